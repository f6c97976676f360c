//! RFC 6570: any template text parses or is refused; what a URI matched
//! expands to a URI that gives the same values back, and, for the operators
//! the crate promises it for, a template's expansion matches it and expands back.
#![no_main]

use mcp_contract_uri_template::{Modifier, Operator, UriTemplate, Value};

#[derive(Debug, arbitrary::Arbitrary)]
struct Input {
    template: String,
    values: Vec<(String, Var)>,
    uri: String,
}

#[derive(Debug, arbitrary::Arbitrary)]
enum Var {
    String(String),
    List(Vec<String>),
    Map(Vec<(String, String)>),
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let Ok(template) = UriTemplate::parse(&input.template) else { return };
    // `+` and `#` may take the text of the expressions after them (rule 3),
    // and pass a value's `%XX` through as written (RFC 6570 §3.2.3).
    let reserved =
        template.variables().any(|variable| matches!(variable.operator(), Operator::Reserved | Operator::Fragment));
    // Any URI: matched or not, and the values matched expand to a URI that
    // gives the same values back. (Not the same URI: under `+` and `#` a
    // matched `%2B` comes back as `+`, which those operators write as is.)
    //
    // Matching gives up past its step budget (a documented limit, `Err`
    // here): a property is checked only where the matcher answered, so that
    // a legal but costly case does not count as a finding.
    if let Ok(Some(captures)) = template.try_match_uri(&input.uri) {
        let values: Vec<(String, Value)> = captures.into_iter().collect();
        let again = template.expand(&values);
        // Rule 9: a list named twice (`{/path*,path:1}`) is not split back in
        // two, and does not match its own expansion (documented; found again
        // by this target from the RFC's seeds).
        let names: Vec<&str> = template.variables().map(|variable| variable.name()).collect();
        let repeated = names.iter().enumerate().any(|(i, name)| names[..i].contains(name));
        let composite = values.iter().any(|(_, value)| !matches!(value, Value::String(_)));
        if repeated && composite {
            return;
        }
        // Under `+` and `#`, a matched value that holds a `%XX` (the URI had
        // `%25XX`) expands to that `%XX` as written, which reads back decoded,
        // or not at all where those bytes are not UTF-8 (the crate's rules,
        // end: such a value comes back decoded; found by this target on
        // `{+9,hell,oy}` and `lo%25DD`).
        if reserved && values.iter().any(|(_, value)| texts(value).any(holds_percent_triplet)) {
            return;
        }
        // Likewise a reserved character the URI had encoded (`%2C`): matched
        // as part of a value, it expands as written (`,`), which reads back as
        // a separator (the crate's rules, end; found by this target on
        // `{+9,hell,oy}` and `,comma,%2C~~~~~44,He`).
        if reserved && holds_encoded_reserved(&input.uri) {
            return;
        }
        if let Ok(recaptured) = template.try_match_uri(&again) {
            let recaptured: Vec<(String, Value)> =
                recaptured.expect("an expansion matches its template").into_iter().collect();
            assert_eq!(recaptured, values, "{} on {again}", input.template);
        }
    }
    // The crate promises the round trip below for operators other than `+`
    // and `#` only.
    if reserved {
        return;
    }
    // The template's own variables, given values: the expansion round-trips.
    // As the crate promises it (its rules 4, 6 and 9): for values that are not
    // empty, nor hold empty items, and a variable named once (`{f,f}` with a
    // list cannot be split back in two: found by this target, and documented).
    let names: Vec<String> = template.variable_names().into_iter().map(str::to_owned).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != template.variables().count() {
        return;
    }
    // `+` and `#` pass a value's `%XX` through as written (RFC 6570 §3.2.3),
    // so it comes back decoded: no `%` in the values (found by this target).
    // `.` writes a value's `.` as is (unreserved), and splits at it: no `.` in
    // the values of a template with `{.var}` (found by this target).
    let label = template.variables().any(|variable| variable.operator() == Operator::Label);
    let filled = |text: &String| !text.is_empty() && !text.contains('%') && !(label && text.contains('.'));
    // A prefix `{var:n}` takes a string only (RFC 6570 §2.4.1).
    let prefixed = |name: &str| {
        template
            .variables()
            .any(|variable| variable.name() == name && matches!(variable.modifier(), Modifier::Prefix(_)))
    };
    let values: Vec<(String, Value)> = input
        .values
        .into_iter()
        .zip(names)
        .filter_map(|((_, value), name)| {
            let value = match value {
                Var::String(text) if filled(&text) => Value::from(text),
                Var::List(items) if !prefixed(&name) && !items.is_empty() && items.iter().all(filled) => {
                    Value::List(items)
                }
                Var::Map(pairs)
                    if !prefixed(&name) && !pairs.is_empty() && pairs.iter().all(|(k, v)| filled(k) && filled(v)) =>
                {
                    Value::Map(pairs)
                }
                _ => return None,
            };
            Some((name, value))
        })
        .collect();
    // Rule 6: unnamed operators fill variables from the left, and an exploded
    // one leaves a piece for each variable after it, so an undefined variable
    // beside others reads back only under a named operator: `{/list*,path:4}`
    // and `{/v:2,x}` with one of them undefined do not (found by this target
    // from the RFC's seeds).
    let unnamed_undefined = template.variables().any(|variable| {
        matches!(variable.operator(), Operator::Simple | Operator::Label | Operator::Path)
            && !values.iter().any(|(name, _)| name == variable.name())
    });
    if unnamed_undefined && template.variables().count() > 1 {
        return;
    }
    let uri = template.expand(&values);
    let Ok(captures) = template.try_match_uri(&uri) else { return };
    let captures = captures.unwrap_or_else(|| panic!("{uri:?} does not match {}", input.template));
    let values: Vec<(String, Value)> = captures.into_iter().collect();
    assert_eq!(template.expand(&values), uri, "{}", input.template);
});

/// The strings of a value: the string, the list's items, the map's keys and values.
fn texts(value: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        Value::String(text) => Box::new(std::iter::once(text.as_str())),
        Value::List(items) => Box::new(items.iter().map(String::as_str)),
        Value::Map(pairs) => Box::new(pairs.iter().flat_map(|(key, value)| [key.as_str(), value.as_str()])),
    }
}

/// The bytes `text` percent-encodes (`%2C` gives `,`).
fn encoded_bytes(text: &str) -> impl Iterator<Item = u8> + '_ {
    let hex = |digit: u8| char::from(digit).to_digit(16);
    text.as_bytes().windows(3).filter(|w| w[0] == b'%').filter_map(move |w| Some((hex(w[1])? * 16 + hex(w[2])?) as u8))
}

/// Whether `text` holds a percent-encoded triplet (`%` and two hex digits).
fn holds_percent_triplet(text: &str) -> bool {
    encoded_bytes(text).next().is_some()
}

/// Whether `text` holds a percent-encoded reserved character (`%2C`, `%2F`, ..).
fn holds_encoded_reserved(text: &str) -> bool {
    encoded_bytes(text).any(|byte| b":/?#[]@!$&'()*+,;=".contains(&byte))
}
