//! Matching a concrete URI against a template: expansion run backwards, with
//! the ambiguity rules described in the crate documentation.

use std::cell::OnceCell;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use crate::encoding::{decode_into, decode_value, is_value_byte, prefix};
use crate::{Behaviour, Expression, Modifier, Part, UriTemplate, Value, Variable};

/// The variables a URI gave a template, in template order, percent-decoded.
/// Variables the URI leaves undefined are absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Captures {
    values: Vec<(String, Value)>,
}

impl Captures {
    /// The value of `name`, when the URI defined it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(key, _)| key == name).map(|(_, value)| value)
    }

    /// Every defined variable and its value, in template order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.values.iter().map(|(name, value)| (name.as_str(), value))
    }

    /// How many variables the URI defined.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the URI defined no variable.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl IntoIterator for Captures {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.values.into_iter()
    }
}

/// One variable's value as one expression gave it; `prefix` when it came from
/// a `{var:n}` occurrence as a string, which may hold only the beginning of the
/// value.
struct Capture<'t> {
    name: &'t str,
    value: Rc<Read>,
    prefix: Option<Prefix>,
    /// For an undefined occurrence: whether an empty string would have written
    /// the same text, which holds only where the whole expression wrote nothing
    /// under an operator without a prefix (rule 4). Elsewhere an empty string
    /// writes a separator or a prefix that an undefined variable does not.
    empty_alike: bool,
    /// The template part whose text gave this capture.
    part: usize,
}

/// The `n` of a `{var:n}` occurrence, and whether its operator counts a `%XX`
/// as one character (`+` and `#`), as expansion does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Prefix {
    max: usize,
    allow_reserved: bool,
}

/// A value as matching reads it: every string of it decoded into one buffer,
/// so that reading a list of many short items costs two allocations, not one
/// per item; made a [`Value`] once the URI matched.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Val {
    kind: Kind,
    text: String,
    /// Where each item of a list ends in `text`; for an associative array,
    /// its keys and values in turn. Empty for a string.
    ends: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    String,
    List,
    Map,
}

impl Val {
    fn string(text: String) -> Self {
        Self { kind: Kind::String, text, ends: Vec::new() }
    }

    /// What an undefined occurrence holds: an empty list.
    fn undefined() -> Self {
        Self { kind: Kind::List, text: String::new(), ends: Vec::new() }
    }

    fn is_defined(&self) -> bool {
        self.kind == Kind::String || !self.ends.is_empty()
    }

    fn as_string(&self) -> Option<&str> {
        (self.kind == Kind::String).then_some(self.text.as_str())
    }

    fn items(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let item = &self.text[start..end];
            start = end;
            item
        })
    }

    fn into_value(self) -> Value {
        match self.kind {
            Kind::String => Value::String(self.text),
            Kind::List => Value::List(self.items().map(str::to_owned).collect()),
            Kind::Map => {
                let mut items = self.items();
                let mut pairs = Vec::with_capacity(self.ends.len() / 2);
                while let (Some(key), Some(value)) = (items.next(), items.next()) {
                    pairs.push((key.to_owned(), value.to_owned()));
                }
                Value::Map(pairs)
            }
        }
    }
}

/// The items of a list or an associative array as they are read, decoded
/// into one buffer.
#[derive(Default)]
struct Items {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Items {
    /// Decode `raw` as the next item; `false` when it is no value's text.
    fn push(&mut self, raw: &[u8], allow_reserved: bool) -> bool {
        self.push_joined(&[raw], 0, allow_reserved)
    }

    /// Decode `pieces` joined by `separator` as the next item: the separator
    /// was part of the value (see [`push_exploded`]), so it must be a byte a
    /// value may hold.
    fn push_joined(&mut self, pieces: &[&[u8]], separator: u8, allow_reserved: bool) -> bool {
        let start = self.bytes.len();
        for (index, piece) in pieces.iter().enumerate() {
            if index > 0 {
                if !is_value_byte(separator, allow_reserved) {
                    return false;
                }
                self.bytes.push(separator);
            }
            if !decode_into(piece, allow_reserved, &mut self.bytes) {
                return false;
            }
        }
        // Each item on its own: two halves of a character in two items are no value.
        let item = &self.bytes[start..];
        if !item.is_ascii() && std::str::from_utf8(item).is_err() {
            return false;
        }
        self.ends.push(self.bytes.len());
        true
    }

    fn finish(self, kind: Kind) -> Val {
        // Each item was checked to be UTF-8, so the whole is.
        let text = String::from_utf8(self.bytes).unwrap_or_default();
        Val { kind, text, ends: self.ends }
    }
}

/// A value read, shared by the captures and the remembered failures that
/// hold it; its hash is computed once, when a remembered state first needs it.
#[derive(Debug)]
struct Read {
    value: Val,
    hash: OnceCell<u64>,
}

impl Read {
    fn new(value: Val) -> Rc<Self> {
        Rc::new(Self { value, hash: OnceCell::new() })
    }

    fn hash(&self) -> u64 {
        *self.hash.get_or_init(|| BuildHasherDefault::<DefaultHasher>::default().hash_one(&self.value))
    }

    /// How much remembering a failure that holds this value keeps alive.
    fn weight(&self) -> usize {
        self.value.text.len() + self.value.ends.len()
    }
}

/// How much reading [`UriTemplate::match_uri`] may do for one URI: spans read,
/// each costing one plus its length in bytes. Checking repeated names as each
/// value is read keeps matching polynomial, but some templates (three
/// expressions in a row, a literal the URI repeats) still cost the square or the
/// cube of the URI's length; past this budget matching gives up and reports no
/// match. A URI of 8 KiB against a template whose cost is quadratic stays well
/// within it (about 2^25 steps).
///
/// The budget bounds time as well as the search: a step costs an amount of
/// work bounded by the template's size, whatever the shape of the values. The items of a list or an
/// associative array are decoded into one buffer (two allocations a value, not
/// one an item), a failure remembered shares the values it holds rather than
/// copying them, and the failures of the last expression (after which only
/// literals come) are not remembered, so memory stays within tens of MiB.
/// Looking up whether a state failed before is charged too (32 steps).
/// Measured in a release build on a loaded 2-core machine
/// (`benches/uri_template.rs`): spending the whole budget on plain strings
/// (`{a}{b}{c}` on 2 KB, `budget_exhausted`) takes about 0.2 s;
/// `{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}` on 8 KiB of `x,` (`long_list_8k`,
/// about 2^25 steps, and a match) about 0.2 s of CPU, against 2.3 s and
/// 690 MB when each item was a `String` and each remembered failure a copy;
/// the slowest inputs found, four expressions in a row on 8 KiB of one-byte
/// items (`{a}{b}{c}{a}`), spend the whole budget in about 1.5 s of CPU.
pub const MATCH_STEP_BUDGET: u64 = 1 << 27;

/// The most the remembered failures may keep alive, in bytes and items of
/// the values they hold (a few tens of MiB at most): past it, a failure is
/// not remembered, and the step budget alone bounds the search.
const MAX_REMEMBERED: usize = 1 << 22;

/// What looking up whether a state failed before costs, in steps (see
/// [`MATCH_STEP_BUDGET`]): it copies a reference to each value the rest must
/// agree with, and hashes it. Only the failures of an expression followed by
/// another are looked up and remembered: after the last expression come
/// literals only, which either match at once or not, so retrying it costs a
/// span read (charged), and remembering it would keep each value read before
/// it alive.
pub(crate) const STATE_STEPS: u64 = 32;

/// Where the longest end of `uri` that the last part, an expression, may
/// read begins: the last part is not remembered, so it is tried once for each
/// way the parts before it end, and this tells at once whether it can.
fn admissible_tail(parts: &[Part], uri: &[u8]) -> usize {
    let Some(Part::Expression(expression)) = parts.last() else { return uri.len() };
    let behaviour = expression.operator.behaviour();
    uri.iter().rposition(|&byte| !admissible(byte, &behaviour)).map_or(0, |at| at + 1)
}

/// [`UriTemplate::try_match_uri`] gave up: telling whether any values expand the
/// template to the URI would have taken more than [`MATCH_STEP_BUDGET`] steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchBudgetExceeded;

impl fmt::Display for MatchBudgetExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "matching the URI against the template took more than {MATCH_STEP_BUDGET} steps")
    }
}

impl std::error::Error for MatchBudgetExceeded {}

impl UriTemplate {
    /// The variables that expand this template to `uri`, or `None` when no
    /// values do (see the crate documentation for how ambiguity is resolved).
    ///
    /// Also `None` when matching would take more than [`MATCH_STEP_BUDGET`]
    /// steps, so that no URI makes matching hang; [`UriTemplate::try_match_uri`]
    /// tells the two apart.
    ///
    /// ```
    /// use mcp_contract_uri_template::{UriTemplate, Value};
    /// let template = UriTemplate::parse("file:///{+path}.txt").unwrap();
    /// let captures = template.match_uri("file:///notes/a%20b.txt").unwrap();
    /// assert_eq!(captures.get("path"), Some(&Value::from("notes/a b")));
    /// assert!(template.match_uri("file:///notes/a.md").is_none());
    /// ```
    pub fn match_uri(&self, uri: &str) -> Option<Captures> {
        self.try_match_uri(uri).ok().flatten()
    }

    /// [`UriTemplate::match_uri`], with `Err` where it gave up after
    /// [`MATCH_STEP_BUDGET`] steps rather than found that no values match.
    ///
    /// ```
    /// use mcp_contract_uri_template::UriTemplate;
    /// let template = UriTemplate::parse("{U}{+U}{U}{#U}").unwrap();
    /// assert!(template.try_match_uri("abab").unwrap().is_none());
    /// ```
    pub fn try_match_uri(&self, uri: &str) -> Result<Option<Captures>, MatchBudgetExceeded> {
        self.match_within(uri, MATCH_STEP_BUDGET)
    }

    fn match_within(&self, uri: &str, budget: u64) -> Result<Option<Captures>, MatchBudgetExceeded> {
        let mut matcher = Matcher {
            parts: &self.parts,
            uri: uri.as_bytes(),
            captured: Vec::new(),
            failed: HashSet::new(),
            remembered: 0,
            last_expression: self.parts.iter().rposition(|part| matches!(part, Part::Expression(_))),
            admissible_tail: None,
            repeated: self.repeated_names.then(|| Repeated::new(&self.parts)),
            steps: 0,
            budget,
            exhausted: false,
        };
        let matched = matcher.match_from(0, 0);
        if matcher.exhausted {
            return Err(MatchBudgetExceeded);
        }
        if !matched {
            return Ok(None);
        }
        // The remembered failures share the values read: let them go first.
        drop(matcher.failed);
        let mut values: Vec<(String, Value)> = Vec::with_capacity(matcher.captured.len());
        let mut longest: Vec<Option<Prefix>> = Vec::with_capacity(matcher.captured.len());
        for capture in matcher.captured {
            if !capture.value.value.is_defined() {
                continue;
            }
            let value = Rc::try_unwrap(capture.value).map_or_else(|read| read.value.clone(), |read| read.value);
            let value = value.into_value();
            match values.iter().position(|(name, _)| name == capture.name) {
                // Agreement was checked; keep the whole value over a prefix of
                // it, and a longer prefix over a shorter one.
                Some(at) => {
                    let longer = match (longest[at], capture.prefix) {
                        (None, _) => false,
                        (Some(_), None) => true,
                        (Some(kept), Some(new)) => new.max > kept.max,
                    };
                    if longer {
                        values[at].1 = value;
                        longest[at] = capture.prefix;
                    }
                }
                None => {
                    values.push((capture.name.to_owned(), value));
                    longest.push(capture.prefix);
                }
            }
        }
        Ok(Some(Captures { values }))
    }
}

/// For a template that names a variable more than once: where each name is used
/// last, which is what decides whether a capture still matters to the parts left.
struct Repeated<'t> {
    last_part: Vec<(&'t str, usize)>,
}

impl<'t> Repeated<'t> {
    fn new(parts: &'t [Part]) -> Self {
        let mut last_part: Vec<(&'t str, usize)> = Vec::new();
        for (index, part) in parts.iter().enumerate() {
            let Part::Expression(expression) = part else { continue };
            for variable in &expression.variables {
                match last_part.iter_mut().find(|(name, _)| *name == variable.name) {
                    Some((_, last)) => *last = index,
                    None => last_part.push((&variable.name, index)),
                }
            }
        }
        Self { last_part }
    }

    /// Whether `name` is used in part `part` or after it.
    fn used_from(&self, name: &str, part: usize) -> bool {
        self.last_part.iter().any(|(used, last)| *used == name && *last >= part)
    }
}

/// What the captures made so far tell the parts from some part on: the
/// captures of the names still to come (deduplicated), and, for each expression
/// that wrote nothing under an operator without a prefix, how many of its
/// variables are defined elsewhere so far (rule 9's "one such empty string").
/// Whether the rest of the template matches from a position depends on nothing
/// else, so a failure remembered under this key is sound.
#[derive(PartialEq, Eq)]
struct State<'t> {
    part: usize,
    pos: usize,
    held: Vec<Held<'t>>,
    silent: Vec<(usize, usize)>,
}

/// A capture the parts left must agree with; its value shared, not copied.
struct Held<'t> {
    name: &'t str,
    value: Rc<Read>,
    prefix: Option<Prefix>,
    empty_alike: bool,
}

impl PartialEq for Held<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.prefix == other.prefix
            && self.empty_alike == other.empty_alike
            && (Rc::ptr_eq(&self.value, &other.value) || self.value.value == other.value.value)
    }
}

impl Eq for Held<'_> {}

impl Hash for State<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.part.hash(state);
        self.pos.hash(state);
        self.silent.hash(state);
        for held in &self.held {
            held.name.hash(state);
            held.prefix.hash(state);
            held.empty_alike.hash(state);
            held.value.hash().hash(state);
        }
    }
}

struct Matcher<'t, 'u> {
    parts: &'t [Part],
    uri: &'u [u8],
    captured: Vec<Capture<'t>>,
    /// States known to fail.
    failed: HashSet<State<'t>>,
    /// How much the failures remembered keep alive (the sizes of the values
    /// they hold): past [`MAX_REMEMBERED`], failures are no longer remembered.
    remembered: usize,
    /// The last expression's part: the failures of the expressions before it
    /// are worth remembering, not its own (see [`STATE_STEPS`]).
    last_expression: Option<usize>,
    /// Where the end of the URI the last part may read begins (see
    /// [`admissible_tail`]), once the last part was reached.
    admissible_tail: Option<usize>,
    /// `Some` when a name repeats: agreement is then checked as each value is
    /// read, and remembered failures carry what the parts left must agree with.
    repeated: Option<Repeated<'t>>,
    steps: u64,
    budget: u64,
    /// The step budget ran out: every state fails from then on.
    exhausted: bool,
}

impl<'t> Matcher<'t, '_> {
    fn match_from(&mut self, part: usize, pos: usize) -> bool {
        let Some(current) = self.parts.get(part) else {
            return pos == self.uri.len() && self.repeated_variables_agree();
        };
        if self.exhausted {
            return false;
        }
        match current {
            // Cheap to retry: not worth remembering.
            Part::Literal(text) => {
                self.uri[pos..].starts_with(text.as_bytes()) && self.match_from(part + 1, pos + text.len())
            }
            Part::Expression(expression) if self.last_expression.is_none_or(|last| part >= last) => {
                self.match_expression(expression, part, pos)
            }
            Part::Expression(expression) => {
                // Building and looking up the state costs about as much as
                // reading a short span, whatever the span read next.
                self.steps += STATE_STEPS;
                let state = self.state(part, pos);
                if self.failed.contains(&state) {
                    return false;
                }
                let matched = self.match_expression(expression, part, pos);
                if !matched && !self.exhausted {
                    let weight = 1 + state.held.iter().map(|held| held.value.weight()).sum::<usize>();
                    if self.remembered + weight <= MAX_REMEMBERED {
                        self.remembered += weight;
                        self.failed.insert(state);
                    }
                }
                matched
            }
        }
    }

    /// The key under which the failure of `(part, pos)` is remembered: the
    /// position alone when no name repeats.
    fn state(&self, part: usize, pos: usize) -> State<'t> {
        let mut state = State { part, pos, held: Vec::new(), silent: Vec::new() };
        let Some(repeated) = &self.repeated else { return state };
        for capture in &self.captured {
            if !repeated.used_from(capture.name, part) {
                continue;
            }
            let held = Held {
                name: capture.name,
                value: Rc::clone(&capture.value),
                prefix: capture.prefix,
                empty_alike: capture.empty_alike,
            };
            if !state.held.contains(&held) {
                state.held.push(held);
            }
        }
        state.held.sort_by(|a, b| (a.name, a.prefix, a.empty_alike).cmp(&(b.name, b.prefix, b.empty_alike)));
        for capture in self.captured.iter().filter(|capture| capture.empty_alike) {
            if !state.silent.iter().any(|(part, _)| *part == capture.part) {
                state.silent.push((capture.part, self.defined_in_silent(capture.part)));
            }
        }
        state
    }

    /// Try every end of `expression`'s text, longest first (rule 3).
    fn match_expression(&mut self, expression: &'t Expression, part: usize, pos: usize) -> bool {
        let behaviour = expression.operator.behaviour();
        let (shortest, longest) = if part + 1 == self.parts.len() {
            // The last part ends with the URI: only that end is worth a look,
            // if the text up to it is admissible (found once for the URI).
            let tail = *self.admissible_tail.get_or_insert_with(|| admissible_tail(self.parts, self.uri));
            if pos < tail {
                return false;
            }
            (self.uri.len(), self.uri.len())
        } else {
            let run = self.uri[pos..].iter().take_while(|&&byte| admissible(byte, &behaviour)).count();
            (pos, pos + run)
        };
        let lengths = self.body_lengths(expression, &behaviour);
        let first = usize::from(behaviour.first.is_some());
        for end in (shortest..=longest).rev() {
            // Reading a span costs its length: only spans after which the rest
            // of the template can start are read, or a long URI that fits no
            // template would cost the square of its length.
            if !self.can_continue(part + 1, end) {
                continue;
            }
            // A variable already read can only be read again from a text of
            // about its length: skip the others unread.
            if end > pos
                && let Some((shortest, longest)) = lengths
                && !(shortest..=longest).contains(&(end - pos).saturating_sub(first))
            {
                continue;
            }
            self.steps += 1 + (end - pos) as u64;
            if self.steps > self.budget {
                self.exhausted = true;
                return false;
            }
            let mark = self.captured.len();
            if capture(expression, &behaviour, &self.uri[pos..end], &mut self.captured) {
                for capture in &mut self.captured[mark..] {
                    capture.part = part;
                }
                if self.consistent(mark) && self.match_from(part + 1, end) {
                    return true;
                }
            }
            self.captured.truncate(mark);
            if self.exhausted {
                return false;
            }
        }
        false
    }

    /// For an expression of one plain variable already read as a whole string:
    /// the lengths in bytes the text after the operator's prefix can have. A
    /// value's byte is written as itself or as `%XX`; a prefix `{var:n}` writes
    /// the beginning of the value only. `None` when anything may do.
    fn body_lengths(&self, expression: &Expression, behaviour: &Behaviour) -> Option<(usize, usize)> {
        self.repeated.as_ref()?;
        let [variable] = &expression.variables[..] else { return None };
        if behaviour.named || variable.is_exploded() {
            return None;
        }
        let known = self.captured.iter().find_map(|capture| match capture.value.value.as_string() {
            Some(text) if capture.name == variable.name && capture.prefix.is_none() => Some(text.len()),
            _ => None,
        })?;
        let shortest = if matches!(variable.modifier, Modifier::Prefix(_)) { 0 } else { known };
        Some((shortest, known.saturating_mul(3)))
    }

    /// Whether the captures from `mark` on agree with every capture before them
    /// (rule 9), checked as they are made: the search then never goes on from a
    /// value that cannot stand, and a failed state depends only on [`State`].
    fn consistent(&self, mark: usize) -> bool {
        if self.repeated.is_none() {
            return true;
        }
        let pairwise = (mark..self.captured.len()).all(|i| {
            let later = &self.captured[i];
            self.captured[..i].iter().filter(|earlier| earlier.name == later.name).all(|earlier| agree(earlier, later))
        });
        pairwise && self.silent_expressions_hold()
    }

    /// How many variables of the expression of part `part`, which wrote nothing,
    /// are defined elsewhere.
    fn defined_in_silent(&self, part: usize) -> usize {
        self.captured
            .iter()
            .filter(|other| other.part == part && other.empty_alike)
            .filter(|other| self.captured.iter().any(|c| c.name == other.name && c.value.value.is_defined()))
            .count()
    }

    /// An expression that wrote nothing may hold one variable that is an
    /// empty string elsewhere, not two: `{c,d}` writes `,` for two of them.
    fn silent_expressions_hold(&self) -> bool {
        self.captured
            .iter()
            .filter(|capture| capture.empty_alike)
            .all(|silent| self.defined_in_silent(silent.part) <= 1)
    }

    /// Whether the parts from `part` on may match from `pos`, by a cheap look:
    /// the end of the template must meet the end of the URI, and a literal
    /// must be there.
    fn can_continue(&self, part: usize, pos: usize) -> bool {
        match self.parts.get(part) {
            None => pos == self.uri.len(),
            Some(Part::Literal(text)) => self.uri[pos..].starts_with(text.as_bytes()),
            Some(Part::Expression(_)) => true,
        }
    }

    fn repeated_variables_agree(&self) -> bool {
        let pairwise = self.captured.iter().enumerate().all(|(i, later)| {
            self.captured[..i].iter().filter(|earlier| earlier.name == later.name).all(|earlier| agree(earlier, later))
        });
        pairwise && self.silent_expressions_hold()
    }
}

fn agree(a: &Capture<'_>, b: &Capture<'_>) -> bool {
    let empty = |capture: &Capture<'_>| capture.value.value.as_string().is_some_and(str::is_empty);
    match (a.value.value.is_defined(), b.value.value.is_defined()) {
        (false, false) => true,
        // Undefined where an empty string would have written the same nothing.
        (false, true) => a.empty_alike && empty(b),
        (true, false) => b.empty_alike && empty(a),
        (true, true) => match (a.value.value.as_string(), b.value.value.as_string()) {
            // A prefix occurrence holds exactly the first `n` characters of
            // the value: `{x:1,x}` on `,x` is not `x = "x"`, which writes `x,x`
            // (found by a table test of repeated names). Two prefixes agree
            // when the shorter is the beginning of the longer, cut at its `n`.
            (Some(x), Some(y)) => {
                let shorter = match (a.prefix, b.prefix) {
                    (None, None) => return x == y,
                    (Some(limit), None) | (None, Some(limit)) => limit,
                    (Some(p), Some(q)) => p.min(q),
                };
                let cut = |text: &'_ str| prefix(text, shorter.max, shorter.allow_reserved).to_owned();
                cut(x) == cut(y)
            }
            _ => Rc::ptr_eq(&a.value, &b.value) || a.value.value == b.value.value,
        },
    }
}

/// A byte an expression's expansion can produce: a value byte, `%`, or one of
/// the operator's structural characters (rule 2).
fn admissible(byte: u8, behaviour: &Behaviour) -> bool {
    is_value_byte(byte, behaviour.allow_reserved)
        || matches!(byte, b'%' | b',' | b'=')
        || byte == behaviour.separator
        || Some(byte) == behaviour.first
}

/// Read `span`, the text of one expression, into captures; `false` when the
/// expression cannot have produced it.
fn capture<'t>(expression: &'t Expression, behaviour: &Behaviour, span: &[u8], out: &mut Vec<Capture<'t>>) -> bool {
    if span.is_empty() {
        // Rule 4: nothing written, every variable undefined; kept as an empty
        // list, so that a variable named again must be undefined (or empty,
        // where that writes nothing too) there.
        let empty_alike = behaviour.first.is_none();
        out.extend(expression.variables.iter().map(|variable| undefined(variable, empty_alike)));
        return true;
    }
    let body = match behaviour.first {
        Some(first) => match span.split_first() {
            Some((&byte, rest)) if byte == first => rest,
            _ => return false,
        },
        None => span,
    };
    let mark = out.len();
    let captured = if behaviour.named {
        capture_named(expression, behaviour, body, out)
    } else {
        capture_unnamed(expression, behaviour, body, out)
    };
    // The variables the text left out are undefined here, and a variable named
    // again must be undefined there too: `{c,d,b}` on `,` gives `b` nothing, and
    // `b = ""` would have written `,,` (found by the fuzz target `uri_template`).
    // Counted by occurrence, not by name: in `{dc,b,b}` on `,` the text gives the
    // first `b` an empty string and leaves out the second, which `b = ""` would
    // have written as one more `,` (found again by the same target).
    let mut missing: Vec<&'t Variable> = Vec::new();
    for (index, variable) in expression.variables.iter().enumerate() {
        let named = |other: &&Variable| other.name == variable.name;
        let occurrence = expression.variables[..index].iter().filter(named).count();
        let read = out[mark..].iter().filter(|capture| capture.name == variable.name).count();
        if occurrence >= read {
            missing.push(variable);
        }
    }
    out.extend(missing.into_iter().map(|variable| undefined(variable, false)));
    captured
}

/// An occurrence of `variable` that the text leaves undefined.
fn undefined(variable: &Variable, empty_alike: bool) -> Capture<'_> {
    Capture { name: &variable.name, value: Read::new(Val::undefined()), prefix: None, empty_alike, part: 0 }
}

/// A defined value `variable` read whole (not as a prefix).
fn whole(variable: &Variable, value: Val) -> Capture<'_> {
    Capture { name: &variable.name, value: Read::new(value), prefix: None, empty_alike: false, part: 0 }
}

/// Rule 6: operators without names (simple, `+`, `#`, `.`, `/`).
fn capture_unnamed<'t>(
    expression: &'t Expression,
    behaviour: &Behaviour,
    body: &[u8],
    out: &mut Vec<Capture<'t>>,
) -> bool {
    let variables = &expression.variables;
    let allow = behaviour.allow_reserved;
    if let [variable] = &variables[..]
        && (!variable.is_exploded() || allow)
    {
        return push_plain(variable, body, allow, out);
    }
    let pieces: Vec<&[u8]> = body.split(|&byte| byte == behaviour.separator).collect();
    let mut next = 0;
    for (index, variable) in variables.iter().enumerate() {
        let remaining = pieces.len() - next;
        if remaining == 0 {
            break;
        }
        let later = variables.len() - index - 1;
        if variable.is_exploded() {
            let take = remaining.saturating_sub(later).max(1);
            if !push_exploded(variable, &pieces[next..next + take], behaviour, out) {
                return false;
            }
            next += take;
        } else if later == 0 && behaviour.separator == b',' && remaining > 1 {
            let mut items = Items::default();
            if !pieces[next..].iter().all(|piece| items.push(piece, allow)) {
                return false;
            }
            out.push(whole(variable, items.finish(Kind::List)));
            next = pieces.len();
        } else {
            if !push_plain(variable, pieces[next], allow, out) {
                return false;
            }
            next += 1;
        }
    }
    next == pieces.len()
}

/// Rule 5: named operators (`;`, `?`, `&`).
fn capture_named<'t>(
    expression: &'t Expression,
    behaviour: &Behaviour,
    body: &[u8],
    out: &mut Vec<Capture<'t>>,
) -> bool {
    let variables = &expression.variables;
    let mut next_variable = 0;
    // The exploded variable being read, and its keys and values so far.
    let mut exploding: Option<(&'t Variable, Items)> = None;
    for piece in body.split(|&byte| byte == behaviour.separator) {
        let (raw_name, raw_value) = match piece.iter().position(|&byte| byte == b'=') {
            Some(at) => (&piece[..at], &piece[at + 1..]),
            // `;` writes an empty value as the bare name.
            None => (piece, &[][..]),
        };
        if let Some(index) = (next_variable..variables.len()).find(|&i| variables[i].name.as_bytes() == raw_name) {
            flush(exploding.take(), out);
            next_variable = index + 1;
            let variable = &variables[index];
            if variable.is_exploded() {
                // Keyed by the variable's name as written (a name may hold `%XX`).
                let mut pairs = Items::default();
                pairs.bytes.extend_from_slice(variable.name.as_bytes());
                pairs.ends.push(pairs.bytes.len());
                if !pairs.push(raw_value, false) {
                    return false;
                }
                exploding = Some((variable, pairs));
            } else if !push_plain(variable, raw_value, false, out) {
                return false;
            }
            continue;
        }
        let pairs = match &mut exploding {
            Some((_, pairs)) => pairs,
            None => {
                let Some(index) = (next_variable..variables.len()).find(|&i| variables[i].is_exploded()) else {
                    return false;
                };
                next_variable = index + 1;
                &mut exploding.insert((&variables[index], Items::default())).1
            }
        };
        if !(pairs.push(raw_name, false) && pairs.push(raw_value, false)) {
            return false;
        }
    }
    flush(exploding, out);
    true
}

/// An exploded variable of a named operator: a list when every pair carries its
/// own name, an associative array otherwise.
fn flush<'t>(exploding: Option<(&'t Variable, Items)>, out: &mut Vec<Capture<'t>>) {
    let Some((variable, pairs)) = exploding else { return };
    let pairs = pairs.finish(Kind::Map);
    let mut values = Items::default();
    let mut items = pairs.items();
    let mut list = true;
    while let (Some(key), Some(value)) = (items.next(), items.next()) {
        if key != variable.name {
            list = false;
            break;
        }
        values.bytes.extend_from_slice(value.as_bytes());
        values.ends.push(values.bytes.len());
    }
    drop(items);
    let value = if list { values.finish(Kind::List) } else { pairs };
    out.push(whole(variable, value));
}

/// A variable without explode (rule 7), or any single variable under `+`/`#`.
fn push_plain<'t>(variable: &'t Variable, raw: &[u8], allow_reserved: bool, out: &mut Vec<Capture<'t>>) -> bool {
    let value = if !allow_reserved && raw.contains(&b',') {
        let mut items = Items::default();
        if !raw.split(|&byte| byte == b',').all(|item| items.push(item, false)) {
            return false;
        }
        items.finish(Kind::List)
    } else {
        let Some(text) = decode_value(raw, allow_reserved) else { return false };
        if let Modifier::Prefix(max) = variable.modifier
            && text.chars().count() > usize::from(max)
        {
            return false;
        }
        Val::string(text)
    };
    let prefix = match (value.kind, variable.modifier) {
        (Kind::String, Modifier::Prefix(max)) => Some(Prefix { max: usize::from(max), allow_reserved }),
        _ => None,
    };
    out.push(Capture { name: &variable.name, value: Read::new(value), prefix, empty_alike: false, part: 0 });
    true
}

/// An exploded variable of an unnamed operator: an associative array when its
/// first piece holds `=`, a list otherwise. In an array, a piece without `=`
/// continues the value before it: the separator was part of that value, as `.`
/// can be under `{.keys*}`.
fn push_exploded<'t>(
    variable: &'t Variable,
    pieces: &[&[u8]],
    behaviour: &Behaviour,
    out: &mut Vec<Capture<'t>>,
) -> bool {
    let allow = behaviour.allow_reserved;
    let mut items = Items::default();
    let value = if pieces.first().is_some_and(|piece| piece.contains(&b'=')) {
        let mut at = 0;
        while at < pieces.len() {
            let piece = pieces[at];
            let Some(equals) = piece.iter().position(|&byte| byte == b'=') else { return false };
            // The pieces without `=` after this one continue its value.
            let more = pieces[at + 1..].iter().take_while(|piece| !piece.contains(&b'=')).count();
            let mut value: Vec<&[u8]> = Vec::with_capacity(1 + more);
            value.push(&piece[equals + 1..]);
            value.extend_from_slice(&pieces[at + 1..at + 1 + more]);
            if !(items.push(&piece[..equals], allow) && items.push_joined(&value, behaviour.separator, allow)) {
                return false;
            }
            at += 1 + more;
        }
        items.finish(Kind::Map)
    } else {
        if !pieces.iter().all(|piece| items.push(piece, allow)) {
            return false;
        }
        items.finish(Kind::List)
    };
    out.push(whole(variable, value));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three expressions in a row on a URI none can end cost the cube of its
    /// length: matching stops at the budget (a small one here, so that the
    /// test stays fast unoptimised) and says it gave up.
    #[test]
    fn a_cubic_search_stops_at_the_budget() {
        let template = UriTemplate::parse("{a}{b}{c}").unwrap();
        let uri = format!("{}/", "x".repeat(2000));
        assert_eq!(template.match_within(&uri, 1 << 20), Err(MatchBudgetExceeded));
        // The same budget finds what fits, and refuses what cannot fit cheaply.
        assert!(template.match_within(&"x".repeat(2000), 1 << 20).unwrap().is_some());
        assert_eq!(template.match_within(&"x/".repeat(1000), 1 << 20), Ok(None));
    }
}
