//! Repeated names among empty and undefined values (issue #35): every
//! occurrence of a variable must agree with the others not only on its value
//! but on being defined, since a defined empty string still writes its
//! separator (RFC 6570 §3.2.1: undefined variables are skipped, empty strings
//! are not).

use mcp_contract_uri_template::{UriTemplate, Value};

fn parse(template: &str) -> UriTemplate {
    UriTemplate::parse(template).unwrap_or_else(|err| panic!("{template}: {err}"))
}

/// Found by the fuzz target `uri_template` from the seed corpus: `{dc,b,b}` on
/// `,` read `dc = ""` and `b = ""` for the first `b`, and left the second `b`
/// out without checking it, as it was already named; `dc = ""`, `b = ""` write
/// `,,` there, so the captures expanded to `,,,,`.
#[test]
fn a_name_repeated_in_one_expression_is_checked_at_each_occurrence() {
    let template = parse("{e},{dc,b,b}{e},");
    if let Some(captures) = template.match_uri(",,,") {
        let values: Vec<(String, Value)> = captures.into_iter().collect();
        assert_eq!(template.expand(&values), ",,,", "captures {values:?}");
    }
    // What the correct values write: `dc` undefined, `b` empty (written twice).
    assert_eq!(template.expand(&[("e", Value::from("")), ("b", Value::from(""))]), ",,,");
    assert_eq!(parse("{dc,b,b}").expand(&[("dc", Value::from("")), ("b", Value::from(""))]), ",,");
    // The second `b` left out is undefined there and disagrees with the first.
    assert!(parse("{dc,b,b}").match_uri(",").is_none());
    assert!(parse("{?b,b}").match_uri("?b=x").is_none());
    let captures = parse("{?b,b}").match_uri("?b=x&b=x").expect("b = x");
    assert_eq!(captures.get("b"), Some(&Value::from("x")));
    let captures = parse("{b,b}").match_uri("x,x").expect("b = x");
    assert_eq!(captures.get("b"), Some(&Value::from("x")));
}

/// Found by the table test below: a prefix occurrence `{x:n}` agreed with any
/// value it began, so `{x:1,x}{x}` matched `,xx` as `x = "x"`, which writes
/// `x,xx`; and of two prefixes the first read was kept, the shorter one here.
#[test]
fn a_prefix_occurrence_holds_exactly_the_first_characters() {
    let template = parse("{x:1,x}{x}");
    assert!(template.match_uri(",xx").is_none());
    let captures = template.match_uri("x,xx").expect("x = x");
    assert_eq!(captures.get("x"), Some(&Value::from("x")));
    let template = parse("{x:1}/{x:3}");
    let captures = template.match_uri("a/abc").expect("x begins abc");
    assert_eq!(captures.get("x"), Some(&Value::from("abc")));
    assert!(template.match_uri("a/ab").is_some());
    assert!(template.match_uri("ab/ab").is_none());
    assert!(template.match_uri("b/abc").is_none());
}

/// Every URI of up to four characters from a small alphabet, against templates
/// that repeat names among operators that tell empty from undefined and those
/// that do not: whatever matches expands back to the same URI. (No `+` or `#`,
/// which write a decoded `%2B` back as `+`, and no `%` in the alphabet.)
#[test]
fn what_a_template_with_repeated_names_matches_expands_back() {
    let templates = [
        "{e},{dc,b,b}{e},",
        "{a,b}{c,d,b}{e},",
        "{b,b}",
        "{dc,b,b}",
        "{a,a,b}{b}",
        "{a}{.a}{/a}",
        "{a,b}{.b,a}",
        "{x:1}/{x:3}{x:2}",
        "{;a,a}{a}",
        "{?a,b,a}{&b}",
        "{/a,a}/{a}",
        "{x:1,x}{x}",
        "{l*,l}",
        "{.a,b,a},{b}",
    ];
    let alphabet = [',', 'x', 'y', '.', '/', ';', '=', '?', '&'];
    let mut uris = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..4 {
        last = last.iter().flat_map(|uri| alphabet.iter().map(move |c| format!("{uri}{c}"))).collect();
        uris.extend(last.iter().cloned());
    }
    let mut matched = 0;
    for template in templates.map(parse) {
        for uri in &uris {
            let Some(captures) = template.match_uri(uri) else { continue };
            matched += 1;
            let values: Vec<(String, Value)> = captures.into_iter().collect();
            assert_eq!(&template.expand(&values), uri, "{template} on {uri:?}: {values:?}");
        }
    }
    // The check is not vacuous: many of these URIs match.
    assert!(matched > 200, "{matched} matches");
}
