//! The one pass over a text that finds every pattern of the text layer.

use std::cell::RefCell;
use std::sync::LazyLock;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, Span, StartKind, packed};
use regex::Regex;

use super::patterns::{HINTS, LITERALS, SERVER_ERROR_STATUS, STATUS_CODE};

/// The patterns as literals, found in one pass over a text.
///
/// Every pattern of [`PATTERNS`](super::patterns::PATTERNS) is an alternation.
/// Most alternatives are plain words (`not found`, `ECONNREFUSED`); these are
/// *exact* literals: finding one (ASCII case-insensitively, as JavaScript's `i`
/// does for ASCII letters) is finding the pattern. The HTTP statuses (patterns 3 to 8, `status code 401` to
/// `status code 5\d\d`) share one literal, `status code `, and the three digits
/// after it decide which pattern, if any, was found. The few alternatives that are
/// not words (`not.*logged.*in`, `missing\s+field`, ...) contribute a word that
/// every match of theirs contains (`logged`, `missing`); finding it makes the
/// pattern a candidate that the regex of that alternative alone then verifies,
/// and only when no pattern before it was found.
///
/// The pass takes one of two forms, chosen by the text's length, that decide the
/// same way (unit tests hold them to it):
///
/// - a short text (nearly every error message) walks an Aho-Corasick DFA byte by
///   byte, driven here rather than through `AhoCorasick`'s overlapping iterator,
///   whose per-call set-up costs more than the walk of a 30-byte message;
/// - a long text is lowercased a chunk at a time into a per-thread buffer and
///   searched with a SIMD literal searcher (Teddy), which skips through text that
///   holds no literal many bytes at a time where the DFA steps one byte at a time.
///   Teddy has no ASCII case-insensitive mode, hence the lowercasing, and holds 64
///   literals at most, which the shared `status code ` literal makes room for.
///
/// A `RegexSet` of the same patterns, whose overlapping search reports every
/// matching pattern too, is the benchmark's other baseline (benches/classify.rs,
/// figures in the guide, guide/src/performance.md).
pub(super) struct Matcher {
    /// The literals of [`Matcher::literals`], ASCII case-insensitively,
    /// overlapping matches included, for short texts.
    dfa: DFA,
    /// The DFA's unanchored start state.
    start: StateID,
    /// The same literals, for long texts lowercased.
    packed: packed::Searcher,
    /// What finding each literal means, by its index in both.
    hits: Vec<Literal>,
    /// The three digits after `status code ` that make patterns 3 to 7, and
    /// their index; any other `5\d\d` is pattern 8.
    status_codes: Vec<([u8; 3], u8)>,
    /// The regex of each of [`HINTS`].
    verifiers: Vec<Regex>,
}

/// What finding a literal means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hit {
    /// The pattern of this index matches.
    Exact(u8),
    /// The alternative of [`HINTS`] of this index may match.
    Hint(u8),
}

impl Hit {
    /// The order of preference among literals that start at the same place: by
    /// pattern, exact first.
    fn preference(self) -> (u8, bool) {
        match self {
            Hit::Exact(pattern) => (pattern, false),
            Hit::Hint(hint) => (HINTS[usize::from(hint)].0, true),
        }
    }
}

/// A literal of the searchers: a word, or the start of patterns 3 to 8.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Literal {
    Word(Hit),
    /// `status code `: the digits after it decide the pattern, if any.
    StatusCode,
}

/// Bit `i` of `exact` set: pattern `i` was found; of `hints`: the word of
/// `HINTS[i]` was.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct Found {
    pub(super) exact: u32,
    pub(super) hints: u32,
}

impl Found {
    fn add(&mut self, hit: Hit) {
        match hit {
            Hit::Exact(pattern) => self.exact |= 1 << pattern,
            Hit::Hint(hint) => self.hints |= 1 << hint,
        }
    }
}

/// The patterns that the hints in `hints` (bits as in [`Found::hints`]) are of.
pub(super) fn hinted_patterns(hints: u32) -> u32 {
    HINTS
        .iter()
        .enumerate()
        .filter(|&(hint, _)| hints & 1 << hint != 0)
        .fold(0, |patterns, (_, &(pattern, _, _))| patterns | 1 << pattern)
}

/// Texts from this length on take the SIMD searcher. Below it, lowercasing and
/// Teddy's set-up cost more than the DFA walk: in a throwaway measurement (not
/// kept in benches/) the two broke even between 128 and 256 bytes of English
/// text, on which Teddy meets many candidate positions.
const LONG_TEXT: usize = 256;

/// The stack buffer a long text is lowercased into, a chunk at a time.
const CHUNK: usize = 4096;

/// Consecutive chunks share this many bytes, so that every literal (and
/// `status code ` with its three digits) lies whole in at least one chunk.
const CHUNK_OVERLAP: usize = 32;

impl Matcher {
    fn new() -> Self {
        let (literals, hits): (Vec<String>, Vec<Literal>) = Self::literals().into_iter().unzip();
        let verifiers = HINTS
            .iter()
            .map(|(_, _, regex)| {
                Regex::new(regex).expect("the classifier's patterns are constant and covered by tests")
            })
            .collect();
        let dfa = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            // Without a prefilter the start state is no special state, so the walk
            // below stops only at match states (and the dead state, never entered in
            // an unanchored search).
            .prefilter(false)
            .build(&literals)
            .expect("the classifier's literals are constant and covered by tests");
        let start = dfa.start_state(Anchored::No).expect("the DFA is built for unanchored searches");
        let packed = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(&literals)
            .build()
            .expect("the classifier's literals are few enough for a packed searcher");
        let status_codes = LITERALS
            .iter()
            .flat_map(|&(index, words)| words.iter().map(move |word| (index, word)))
            .filter_map(|(index, word)| {
                let digits = word.strip_prefix(STATUS_CODE)?.as_bytes().try_into().ok()?;
                Some((digits, index))
            })
            .collect();
        Self { dfa, start, packed, hits, status_codes, verifiers }
    }

    /// The literals: lowercased, most preferred first (by pattern index, exact
    /// before hint), each once, with `status code ` for patterns 3 to 8.
    ///
    /// The long-text searcher reports, at each position, the most preferred literal that
    /// starts there, and [`Matcher::scan_long`] resumes one byte after its start,
    /// so a literal is only missed when a preferred one starts at the same place:
    /// one it is a prefix of, or that is a prefix of it. That loses nothing as long
    /// as the preferred literal of such a pair is exact, which a unit test checks.
    fn literals() -> Vec<(String, Literal)> {
        let mut entries: Vec<(Hit, String)> = LITERALS
            .iter()
            .flat_map(|&(pattern, words)| {
                words.iter().map(move |word| (Hit::Exact(pattern), word.to_ascii_lowercase()))
            })
            .filter(|(_, word)| !word.starts_with(STATUS_CODE))
            .chain((0..).zip(HINTS).map(|(hint, (_, word, _))| (Hit::Hint(hint), word.to_owned())))
            .collect();
        entries.push((Hit::Exact(3), STATUS_CODE.to_owned()));
        // Stable: among a pattern's literals, the table's order.
        entries.sort_by_key(|&(hit, _)| hit.preference());
        let mut literals: Vec<(String, Literal)> = Vec::with_capacity(entries.len());
        for (hit, word) in entries {
            if literals.iter().any(|(seen, _)| *seen == word) {
                continue;
            }
            let literal = if word == STATUS_CODE { Literal::StatusCode } else { Literal::Word(hit) };
            literals.push((word, literal));
        }
        literals
    }

    pub(super) fn scan(&self, text: &str) -> Found {
        if text.len() < LONG_TEXT { self.scan_short(text.as_bytes()) } else { self.scan_long(text.as_bytes()) }
    }

    /// Every literal in `text`, overlapping ones included, by walking the DFA.
    fn scan_short(&self, text: &[u8]) -> Found {
        let mut found = Found::default();
        let mut state = self.start;
        for (at, &byte) in text.iter().enumerate() {
            state = self.dfa.next_state(Anchored::No, state, byte);
            if self.dfa.is_special(state) {
                self.record_matches(&mut found, state, &text[at + 1..]);
            }
        }
        found
    }

    /// Records the literals that end in the match state `state`, followed by
    /// `rest`. Out of line and cold: inlined, it made the walk a third slower.
    #[cold]
    #[inline(never)]
    fn record_matches(&self, found: &mut Found, state: StateID, rest: &[u8]) {
        if self.dfa.is_match(state) {
            for i in 0..self.dfa.match_len(state) {
                let literal = self.hits[self.dfa.match_pattern(state, i).as_usize()];
                self.record(found, literal, rest);
            }
        }
    }

    /// Records that `literal` was found, followed by `rest`.
    fn record(&self, found: &mut Found, literal: Literal, rest: &[u8]) {
        match literal {
            Literal::Word(hit) => found.add(hit),
            Literal::StatusCode => {
                if let Some(index) = self.status_code(rest) {
                    found.exact |= 1 << index;
                }
            }
        }
    }

    /// What [`Matcher::scan_short`] finds, by searching lowercased chunks of
    /// `text` with the SIMD searcher.
    fn scan_long(&self, text: &[u8]) -> Found {
        // A buffer per thread rather than on the stack: zeroing 4 KiB on every call
        // cost as much as searching a few KiB.
        LOWERCASED.with_borrow_mut(|buffer| self.scan_long_with(text, buffer))
    }

    fn scan_long_with(&self, text: &[u8], buffer: &mut [u8; CHUNK]) -> Found {
        let mut found = Found::default();
        let mut chunk_start = 0;
        loop {
            let chunk_end = (chunk_start + CHUNK).min(text.len());
            let chunk = &mut buffer[..chunk_end - chunk_start];
            // One branch-free expression per byte, which the compiler vectorizes;
            // `copy_from_slice` and `make_ascii_lowercase` took nearly twice as long.
            for (lower, &byte) in chunk.iter_mut().zip(&text[chunk_start..chunk_end]) {
                *lower = byte | (u8::from(byte.wrapping_sub(b'A') < 26) << 5);
            }
            let chunk = &*chunk;
            let mut at = 0;
            while let Some(literal) = self.packed.find_in(chunk, Span::from(at..chunk.len())) {
                // Resume right after its start: literals may overlap.
                at = literal.start() + 1;
                // Digits after `status code ` cut off by the chunk's end are whole in
                // the next chunk.
                self.record(&mut found, self.hits[literal.pattern().as_usize()], &chunk[literal.end()..]);
            }
            if chunk_end == text.len() {
                return found;
            }
            chunk_start = chunk_end - CHUNK_OVERLAP;
        }
    }

    /// The pattern of `status code ` followed by `rest`, if any.
    fn status_code(&self, rest: &[u8]) -> Option<u8> {
        let digits: [u8; 3] = rest.get(..3)?.try_into().ok()?;
        if let Some(&(_, index)) = self.status_codes.iter().find(|(code, _)| *code == digits) {
            return Some(index);
        }
        (digits[0] == b'5' && digits[1].is_ascii_digit() && digits[2].is_ascii_digit()).then_some(SERVER_ERROR_STATUS)
    }

    /// Whether the alternative `HINTS[hint]` matches `text`.
    pub(super) fn verify(&self, hint: usize, text: &str) -> bool {
        self.verifiers[hint].is_match(text)
    }
}

pub(super) static MATCHER: LazyLock<Matcher> = LazyLock::new(Matcher::new);

thread_local! {
    /// Where [`Matcher::scan_long`] lowercases a chunk of text. No allocation:
    /// the array lives in the thread's static storage.
    static LOWERCASED: RefCell<[u8; CHUNK]> = const { RefCell::new([0; CHUNK]) };
}

#[cfg(test)]
mod tests {
    use super::super::patterns::PATTERNS;
    use super::*;

    #[test]
    fn every_exact_literal_is_a_match_of_its_pattern() {
        let matcher = Matcher::new();
        assert_eq!(matcher.hits.len(), matcher.dfa.patterns_len());
        let mut seen = [false; 30];
        for (index, words) in LITERALS {
            seen[usize::from(index)] = true;
            let regex = Regex::new(PATTERNS[usize::from(index)].0).unwrap();
            for word in words {
                assert!(regex.is_match(word), "{word:?} is no match of pattern {index}");
            }
        }
        for (index, hint, alternative) in HINTS {
            let (pattern, alternative) = (PATTERNS[usize::from(index)].0, Regex::new(alternative).unwrap());
            // A hint needs more around it, and alone is no match.
            assert!(!Regex::new(pattern).unwrap().is_match(hint), "{hint:?} alone matches pattern {index}");
            // The alternative is the pattern's own, word for word.
            let body = alternative.as_str().strip_prefix("(?i-u)").unwrap();
            let (parts, pattern_parts) = (top_level_alternatives(body), top_level_alternatives(pattern));
            assert!(
                pattern_parts.windows(parts.len()).any(|w| w == parts),
                "{body:?} is no alternative of pattern {index}"
            );
            // Every match contains the hint: each of its alternatives spells it out.
            for part in parts {
                assert!(part.to_ascii_lowercase().contains(hint), "{hint:?} is not in {part:?}");
            }
        }
        assert!(!seen[usize::from(SERVER_ERROR_STATUS)]);
        seen[usize::from(SERVER_ERROR_STATUS)] = true;
        assert_eq!(seen, [true; 30], "every pattern has literals");
        // `status code ` and the digits after it, in both scans.
        for status in 0..1000 {
            let expected = match status {
                401 => 1 << 3,
                403 => 1 << 4,
                404 => 1 << 5,
                409 => 1 << 6,
                429 => 1 << 7,
                500..600 => 1 << SERVER_ERROR_STATUS,
                _ => 0,
            };
            for text in [format!("Status Code {status:03}"), format!("status code {status:03}9 status code")] {
                for found in [matcher.scan_short(text.as_bytes()), matcher.scan_long(text.as_bytes())] {
                    assert_eq!(found.exact, expected, "{text}");
                }
            }
        }
        // The text ends before the third digit.
        for text in ["status code ", "status code 4", "status code 40", "status code 5", "status code 50"] {
            assert_eq!(matcher.scan_short(text.as_bytes()).exact, 0, "{text}");
            assert_eq!(matcher.scan_long(text.as_bytes()).exact, 0, "{text}");
        }
    }

    #[test]
    fn long_text_searcher_loses_no_literal_to_a_preferred_one() {
        let literals = Matcher::literals();
        assert!(literals.len() <= 64, "Teddy holds 64 literals at most, not {}", literals.len());
        let longest = literals.iter().map(|(word, _)| word.len()).max().unwrap();
        assert!(CHUNK_OVERLAP >= longest.max(STATUS_CODE.len() + 3));
        for (preferred, (first, first_hit)) in literals.iter().enumerate() {
            for (second, _) in &literals[preferred + 1..] {
                if first.starts_with(second.as_str()) || second.starts_with(first.as_str()) {
                    assert!(
                        matches!(first_hit, Literal::Word(Hit::Exact(_))),
                        "{first:?} hides {second:?} and may not match"
                    );
                }
            }
        }
    }

    /// What decides the code: the first exact pattern and the candidates before it.
    /// The long scan may miss a literal of a later pattern hidden by a preferred
    /// one, which changes nothing else.
    fn decisive(found: Found) -> Found {
        let first_exact = found.exact & found.exact.wrapping_neg();
        Found { exact: first_exact, hints: found.hints & hinted_before(first_exact) }
    }

    /// The hints of patterns before the pattern of `first_exact` (a single bit, or
    /// none: every hint).
    fn hinted_before(first_exact: u32) -> u32 {
        (0..HINTS.len())
            .filter(|&hint| hinted_patterns(1 << hint) & first_exact.wrapping_sub(1) != 0)
            .fold(0, |h, i| h | 1 << i)
    }

    /// `scan_long` and `scan_short` over `text` decide the same way.
    fn assert_scans_agree(matcher: &Matcher, text: &str) {
        let (short, long) = (matcher.scan_short(text.as_bytes()), matcher.scan_long(text.as_bytes()));
        assert_eq!(decisive(short), decisive(long), "{} bytes: {:?}", text.len(), text.get(..200).unwrap_or(text));
    }

    #[test]
    fn long_and_short_scans_agree_at_chunk_boundaries() {
        let matcher = Matcher::new();
        let mut words: Vec<String> =
            LITERALS.iter().flat_map(|(_, words)| words.iter()).map(|w| (*w).to_owned()).collect();
        words.extend(HINTS.map(|(_, hint, _)| hint.to_owned()));
        words.extend((500..600).map(|status| format!("{STATUS_CODE}{status}")));
        // Overlapping literals of different patterns, and near misses.
        words.extend(
            ["gateway timeout", "duplicate key", "ZodError", "Unauthorized", "status code 4291", "status code 5x1"]
                .map(str::to_owned),
        );
        let boundary = CHUNK - CHUNK_OVERLAP;
        for word in &words {
            // Alternate the case of the letters: the long scan lowercases, the short one folds.
            let word: String = word
                .chars()
                .enumerate()
                .map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
                .collect();
            for offset in [0, 1, boundary - word.len(), boundary - 3, boundary, CHUNK - word.len(), CHUNK - 2, CHUNK] {
                for tail in [0, 1, 3, 500] {
                    let text = format!("{}{word}{}", "a".repeat(offset), "b".repeat(tail));
                    assert_scans_agree(&matcher, &text);
                }
            }
        }
    }

    mod long_and_short_scans {
        use super::*;
        use proptest::prelude::*;

        /// Literals in mixed case, their fragments, and long runs of filler, so that
        /// texts reach several chunks and literals straddle chunk boundaries.
        fn long_keyword_text() -> impl Strategy<Value = String> {
            let words: Vec<&str> = LITERALS
                .iter()
                .flat_map(|(_, words)| words.iter().copied())
                .chain(HINTS.map(|(_, hint, _)| hint))
                .collect();
            let piece = prop_oneof![
                proptest::sample::select(words).prop_map(str::to_ascii_uppercase),
                proptest::sample::select(LITERALS.map(|(_, words)| words[0]).to_vec()).prop_map(str::to_owned),
                "[a-zA-Z0-9 _'-]{0,6}",
                "[a ]{0,3000}",
                "\\PC{0,4}",
            ];
            proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn agree_on_long_keyword_text(text in long_keyword_text()) {
                assert_scans_agree(&MATCHER, &text);
            }
        }
    }

    /// The alternatives of a regex's outermost alternation, its leading flags dropped.
    fn top_level_alternatives(regex: &str) -> Vec<&str> {
        let regex = regex.strip_prefix("(?i-u)").unwrap_or(regex);
        let (mut parts, mut depth, mut start, mut escaped) = (Vec::new(), 0, 0, false);
        for (at, c) in regex.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '|' if depth == 0 => {
                    parts.push(&regex[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        parts.push(&regex[start..]);
        parts
    }
}
