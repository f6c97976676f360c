//! Templates that name one variable in several expressions: matching checks
//! agreement as each value is read, so it stays polynomial; these finished in
//! minutes or never before (fuzz target `uri_template`, issue #35). A hang
//! here would time the test run out: no test measures time.

use mcp_contract_uri_template::{UriTemplate, Value};

fn repeat(text: &str, times: usize) -> String {
    text.repeat(times)
}

/// The fuzz target's 313-byte input, decoded: 1,488 s before the fix. No values
/// match (`{#U}` needs a `#` where the URI starts), and the matcher says so
/// without giving up.
#[test]
fn the_fuzzed_template_is_refused_within_the_budget() {
    let template = UriTemplate::parse("{U}{+U}{U}{+U}{U}{#U}").unwrap();
    let uri = format!("{}{}{}#", repeat("h", 6), repeat("V", 95), repeat("h", 39));
    assert_eq!(uri.len(), 141);
    assert_eq!(template.try_match_uri(&uri), Ok(None));
}

/// The same template, given a URI its values write: found, not given up on.
#[test]
fn the_fuzzed_template_matches_its_own_expansion() {
    let template = UriTemplate::parse("{U}{+U}{U}{+U}{U}{#U}").unwrap();
    let value = Value::from(repeat("hV", 25));
    let uri = template.expand(&[("U", value.clone())]);
    let captures = template.try_match_uri(&uri).unwrap().unwrap();
    assert_eq!(captures.get("U"), Some(&value));
}

/// Twenty `{U}` in a row read 300 characters only as twenty times the same 15.
#[test]
fn twenty_adjacent_expressions_split_the_uri_evenly() {
    let template = UriTemplate::parse(&repeat("{U}", 20)).unwrap();
    let captures = template.try_match_uri(&repeat("a", 300)).unwrap().unwrap();
    assert_eq!(captures.get("U"), Some(&Value::from(repeat("a", 15))));
    // 301 is no multiple of 20, and an undefined `U` cannot stand beside a defined one.
    assert_eq!(template.try_match_uri(&repeat("a", 301)), Ok(None));
}

/// Reserved and simple expressions alternating, with a literal the URI holds
/// many times: each `U` must read back as the first one did.
#[test]
fn alternating_operators_and_a_repeated_literal() {
    let template = UriTemplate::parse(&repeat("{U}{+U}/", 10)).unwrap();
    let uri = repeat("ab/", 300);
    // Twenty `U`s and ten `/`s cannot cover 300 slashes: no match.
    assert_eq!(template.try_match_uri(&uri), Ok(None));
    let captures = template.try_match_uri(&repeat("abab/", 10)).unwrap().unwrap();
    assert_eq!(captures.get("U"), Some(&Value::from("ab")));
}
