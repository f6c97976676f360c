//! RFC 6570 URI templates, levels 1 to 4, for MCP resource templates.
//!
//! One parser serves both sides of mcp-contract: the `#[mcp_resource]` macro
//! checks a template at compile time and points at the offending character
//! ([`ParseError::offset`]), and the server matches the URI of a
//! `resources/read` request against its templates ([`UriTemplate::match_uri`]).
//!
//! ```
//! use mcp_contract_uri_template::{UriTemplate, Value};
//!
//! let template = UriTemplate::parse("museum://objects/{object_id}{?fields*}").unwrap();
//! assert_eq!(template.variable_names(), ["object_id", "fields"]);
//!
//! let uri = template.expand(&[
//!     ("object_id", Value::from("436535")),
//!     ("fields", Value::List(vec!["title".into(), "artist".into()])),
//! ]);
//! assert_eq!(uri, "museum://objects/436535?fields=title&fields=artist");
//!
//! let captures = template.match_uri(&uri).unwrap();
//! assert_eq!(captures.get("object_id"), Some(&Value::from("436535")));
//! assert_eq!(captures.get("fields"), Some(&Value::List(vec!["title".into(), "artist".into()])));
//!
//! let err = UriTemplate::parse("museum://objects/{object id}").unwrap_err();
//! assert_eq!(err.offset(), 24); // the space
//! ```
//!
//! # Matching, and how it resolves ambiguity
//!
//! Expansion loses information (RFC 6570 §1.4: templates are not designed for
//! matching), so [`UriTemplate::match_uri`] makes these choices, in this order:
//!
//! 1. Literal text matches byte for byte.
//! 2. An expression can only span characters its expansion can produce: for
//!    operators other than `+` and `#` that is unreserved characters,
//!    percent-encoded triplets (and, leniently, non-ASCII characters), plus the
//!    operator's own prefix and separators, `,` and `=`. So `{id}` never runs over
//!    a `/` or a `?`, which is what makes most templates unambiguous.
//! 3. When an expression can end at several places, the leftmost expression takes
//!    the longest text that still lets the rest of the template match
//!    (backtracking), and a prefix variable `{var:n}` never takes more than `n`
//!    characters.
//! 4. An empty expression means every variable in it is undefined, so
//!    `O{var}X` matches `OX` without `var`. Operators with a prefix tell an
//!    empty value from an undefined one: `X{.var}` on `X.` gives `var = ""`.
//! 5. Named operators (`;`, `?`, `&`) assign each `name=value` to the variable of
//!    that name, in template order, skipping undefined ones; pairs named after no
//!    variable go to the next exploded variable (as an associative array). An
//!    exploded variable whose pairs all carry its own name is a list.
//! 6. Other operators split the expression at its separator and fill variables
//!    from the left: an exploded variable takes every piece except one for each
//!    variable after it, and the last variable of a `,`-separated expression takes
//!    all remaining pieces (a comma-separated list). An exploded variable whose
//!    first piece holds `=` is an associative array (a later piece without `=`
//!    continues the value before it, as `.` can under `{.keys*}`), otherwise a list.
//!    So the variables after an exploded one read back only when defined:
//!    `{/list*,path:4}` with `path` undefined reads the last item as `path`
//!    (or does not match, where that item is longer than 4 characters).
//! 7. A value of a variable without explode that holds unencoded commas is a list
//!    (its items decoded one by one), except under `+` and `#`, where a comma
//!    may be part of a string: there the value is one string.
//! 8. Values are percent-decoded and must be UTF-8; a malformed `%` means no match.
//! 9. A variable named twice must get the same value both times (a prefix
//!    `{var:n}` occurrence must be the first `n` characters of the other, and
//!    the value kept is the longest). An occurrence an expression's text leaves
//!    out (`b` in `{c,d,b}` on `,`, the second `b` in `{dc,b,b}` on `,`) is
//!    undefined there; an undefined occurrence agrees with an empty string only where
//!    the whole expression wrote nothing under an operator without a prefix
//!    (simple or `+`), and with one such empty string, not two (`{c,d}` writes
//!    `,` for two). Rule 6 fills variables from the left, so a list named
//!    twice in one expression (`{f,f}`) is not split back in two, and does not
//!    match its own expansion.
//!
//! So `match_uri(expand(vars))` gives `vars` back for every template whose
//! variables are strings, lists or associative arrays under operators other
//! than `+` and `#`, given values that are defined and non-empty where rule 4
//! cannot tell; `+` and `#` allow reserved characters in values, so composite
//! values under them come back as one string, and a value that holds one
//! (from a URI's `%2C`, say) may come back split at it; and they pass a
//! value's `%XX` through as written, so such a value comes back decoded.
//!
//! Matching reads an expression's text only where the template can go on after
//! it (at the end of the URI, or before the next literal), so it costs about
//! the URI's length when a variable is followed by a literal the URI holds
//! once. A literal the URI repeats (`{name}.txt` on `a.txta.txt…`) or two
//! expressions in a row can still cost the square of its length: a server that
//! matches untrusted URIs bounds their length first, as `mcp-contract`'s
//! `resources/read` does (8 KiB).
//!
//! A variable named in several expressions is checked against its earlier
//! values as each expression is read, and the matcher remembers the states
//! that fail together with the values the rest of the template must agree
//! with; so `{U}{+U}{U}{#U}…` costs a power of the URI's length, not an
//! exponential. Whatever the template, matching stops after
//! [`MATCH_STEP_BUDGET`] steps (a span read costs one plus its length) and then
//! reports no match: [`UriTemplate::try_match_uri`] tells that apart from a URI
//! no values fit. Three expressions in a row on a long URI none can end, a
//! cubic search, is the kind of case that reaches it.

#![warn(missing_docs)]

mod encoding;
mod expand;
mod matching;
mod parse;

use std::fmt;

pub use expand::Variables;
pub use matching::{Captures, MATCH_STEP_BUDGET, MatchBudgetExceeded};
pub use parse::{ParseError, ParseErrorKind};

/// A parsed URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    source: Box<str>,
    parts: Vec<Part>,
    /// Whether a variable name appears twice (matching must then check agreement).
    repeated_names: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Literal text as expansion writes it (characters outside URIs percent-encoded).
    Literal(String),
    Expression(Expression),
}

/// One `{..}` expression: an operator and its variables.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Expression {
    operator: Operator,
    variables: Vec<Variable>,
}

/// The operator of an expression (RFC 6570 §2.2), which decides how its values
/// are prefixed, separated and encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `{var}`: simple string expansion (level 1).
    Simple,
    /// `{+var}`: reserved expansion, reserved characters kept (level 2).
    Reserved,
    /// `{#var}`: fragment expansion (level 2).
    Fragment,
    /// `{.var}`: label expansion with a dot prefix (level 3).
    Label,
    /// `{/var}`: path segments (level 3).
    Path,
    /// `{;var}`: path-style parameters (level 3).
    PathParameter,
    /// `{?var}`: form-style query (level 3).
    Query,
    /// `{&var}`: form-style query continuation (level 3).
    QueryContinuation,
}

/// How an operator expands: RFC 6570 Appendix A's table.
struct Behaviour {
    first: Option<u8>,
    separator: u8,
    named: bool,
    if_empty: &'static str,
    allow_reserved: bool,
}

impl Operator {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            '+' => Self::Reserved,
            '#' => Self::Fragment,
            '.' => Self::Label,
            '/' => Self::Path,
            ';' => Self::PathParameter,
            '?' => Self::Query,
            '&' => Self::QueryContinuation,
            _ => return None,
        })
    }

    /// The operator's character in a template, `None` for simple expansion.
    pub fn as_char(self) -> Option<char> {
        Some(match self {
            Self::Simple => return None,
            Self::Reserved => '+',
            Self::Fragment => '#',
            Self::Label => '.',
            Self::Path => '/',
            Self::PathParameter => ';',
            Self::Query => '?',
            Self::QueryContinuation => '&',
        })
    }

    fn behaviour(self) -> Behaviour {
        let (first, separator, named, if_empty, allow_reserved) = match self {
            Self::Simple => (None, b',', false, "", false),
            Self::Reserved => (None, b',', false, "", true),
            Self::Fragment => (Some(b'#'), b',', false, "", true),
            Self::Label => (Some(b'.'), b'.', false, "", false),
            Self::Path => (Some(b'/'), b'/', false, "", false),
            Self::PathParameter => (Some(b';'), b';', true, "", false),
            Self::Query => (Some(b'?'), b'&', true, "=", false),
            Self::QueryContinuation => (Some(b'&'), b'&', true, "=", false),
        };
        Behaviour { first, separator, named, if_empty, allow_reserved }
    }
}

/// A variable of an expression (`varspec`): its name and modifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    name: String,
    modifier: Modifier,
    operator: Operator,
    offset: usize,
}

/// A variable's value modifier (RFC 6570 §2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// No modifier.
    None,
    /// `{var:n}`: at most the first `n` characters (1 to 9999).
    Prefix(u16),
    /// `{var*}`: a list or associative array exploded into separate items.
    Explode,
}

impl Variable {
    /// The name as written in the template (it may hold `.` and `%XX`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The modifier.
    pub fn modifier(&self) -> Modifier {
        self.modifier
    }

    /// The operator of the expression the variable belongs to.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The byte offset of the name's first character in the template, so that a
    /// diagnostic can point at it.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the variable is exploded (`*`): a list or associative array.
    pub fn is_exploded(&self) -> bool {
        self.modifier == Modifier::Explode
    }
}

/// The value of a variable (RFC 6570 §2.3): a string, a list, or an associative
/// array. An empty list or array counts as undefined, as the RFC says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A string.
    String(String),
    /// A list of strings.
    List(Vec<String>),
    /// An associative array, in order.
    Map(Vec<(String, String)>),
}

impl Value {
    /// Whether expansion writes anything for this value.
    pub fn is_defined(&self) -> bool {
        match self {
            Self::String(_) => true,
            Self::List(items) => !items.is_empty(),
            Self::Map(pairs) => !pairs.is_empty(),
        }
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

impl UriTemplate {
    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Every variable, in template order (a name used twice appears twice).
    pub fn variables(&self) -> impl Iterator<Item = &Variable> {
        self.parts.iter().flat_map(|part| match part {
            Part::Literal(_) => &[][..],
            Part::Expression(expression) => &expression.variables[..],
        })
    }

    /// The distinct variable names, in order of first use.
    pub fn variable_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for variable in self.variables() {
            if !names.contains(&variable.name()) {
                names.push(variable.name());
            }
        }
        names
    }

    /// Whether the template has no expression: it names exactly one URI.
    pub fn is_static(&self) -> bool {
        self.parts.iter().all(|part| matches!(part, Part::Literal(_)))
    }

    /// The number of literal bytes: a measure of how specific the template is.
    /// A server that has several templates matching one URI prefers the one
    /// with the most literal text.
    pub fn literal_len(&self) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Literal(text) => text.len(),
                Part::Expression(_) => 0,
            })
            .sum()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl std::str::FromStr for UriTemplate {
    type Err = ParseError;

    fn from_str(source: &str) -> Result<Self, ParseError> {
        Self::parse(source)
    }
}
