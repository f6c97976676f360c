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

/// A long list of short items, its variables named again by the next
/// expression: 1 KiB of `x,` is what `a`..`g` = `x` and `h` = 249 `x` and an
/// empty item write twice. Each end the first expression may have is read,
/// each a list of hundreds of items; at 8 KiB (`benches/uri_template.rs`,
/// `long_list_8k`) that took 2.3 s and 690 MB before the items of a value
/// shared one buffer and the last expression's failures were no longer
/// remembered, each with the values read before it.
#[test]
fn a_long_list_of_short_items_named_twice_is_found() {
    let template = UriTemplate::parse("{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}").unwrap();
    let captures = template.try_match_uri(&repeat("x,", 512)).unwrap().expect("the values that write it twice");
    assert_eq!(captures.get("a"), Some(&Value::from("x")));
    let mut h = vec!["x".to_owned(); 249];
    h.push(String::new());
    assert_eq!(captures.get("h"), Some(&Value::List(h)));
    // One item fewer in the second half: no values write it.
    let uri = format!("{}{}", repeat("x,", 256), repeat("x,", 255));
    assert_eq!(template.try_match_uri(&uri), Ok(None));
}

/// Lists and associative arrays read back whole, under each operator that
/// reads them: the items of one value share a buffer while matching.
#[test]
fn composite_values_read_back_item_by_item() {
    let list = Value::List(vec!["a b".into(), String::new(), "ü".into()]);
    let map = Value::Map(vec![("k".into(), "v".into()), ("x.y".into(), "1,2".into())]);
    for (source, value) in [
        ("{l}", &list),
        ("{/l*}", &list),
        ("{?l*}", &list),
        ("{;l*}", &list),
        ("{?l}", &list),
        ("{/m*}", &map),
        ("{?m*}", &map),
        ("{;m*}", &map),
        ("{&m*}", &map),
    ] {
        let template = UriTemplate::parse(source).unwrap();
        let name = template.variable_names()[0].to_owned();
        let uri = template.expand(&[(name.clone(), value.clone())]);
        let captures = template.try_match_uri(&uri).unwrap().unwrap_or_else(|| panic!("{source} on {uri}"));
        assert_eq!(captures.get(&name), Some(value), "{source} on {uri}");
    }
    // `.` continues a value of `{.m*}`: it was written inside it.
    let template = UriTemplate::parse("{.m*}").unwrap();
    let captures = template.try_match_uri(".k=v.w").unwrap().unwrap();
    assert_eq!(captures.get("m"), Some(&Value::Map(vec![("k".into(), "v.w".into())])));
}
