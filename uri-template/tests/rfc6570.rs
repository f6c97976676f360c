//! RFC 6570's own examples: every table of section 3.2 (3.2.1 to 3.2.9), with
//! the variable set of section 3.2. Expansion must give the RFC's text; matching
//! that text must succeed, and its captures must expand to the same text.

use mcp_contract_uri_template::{UriTemplate, Value};

/// RFC 6570 §3.2, "Variable Expansion": the values every example uses.
fn rfc_variables() -> Vec<(&'static str, Value)> {
    let list = |items: &[&str]| Value::List(items.iter().map(|&item| item.to_owned()).collect());
    vec![
        ("count", list(&["one", "two", "three"])),
        ("dom", list(&["example", "com"])),
        ("dub", "me/too".into()),
        ("hello", "Hello World!".into()),
        ("half", "50%".into()),
        ("var", "value".into()),
        ("who", "fred".into()),
        ("base", "http://example.com/home/".into()),
        ("path", "/foo/bar".into()),
        ("list", list(&["red", "green", "blue"])),
        (
            "keys",
            Value::Map(vec![
                ("semi".to_owned(), ";".to_owned()),
                ("dot".to_owned(), ".".to_owned()),
                ("comma".to_owned(), ",".to_owned()),
            ]),
        ),
        ("v", "6".into()),
        ("x", "1024".into()),
        ("y", "768".into()),
        ("empty", "".into()),
        ("empty_keys", Value::Map(Vec::new())),
        // `undef` is null: simply absent.
    ]
}

/// Section by section: (template, expansion).
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "3.2.1 variable expansion",
        &[
            ("{count}", "one,two,three"),
            ("{count*}", "one,two,three"),
            ("{/count}", "/one,two,three"),
            ("{/count*}", "/one/two/three"),
            ("{;count}", ";count=one,two,three"),
            ("{;count*}", ";count=one;count=two;count=three"),
            ("{?count}", "?count=one,two,three"),
            ("{?count*}", "?count=one&count=two&count=three"),
            ("{&count*}", "&count=one&count=two&count=three"),
        ],
    ),
    (
        "3.2.2 simple string expansion",
        &[
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{half}", "50%25"),
            ("O{empty}X", "OX"),
            ("O{undef}X", "OX"),
            ("{x,y}", "1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("?{x,empty}", "?1024,"),
            ("?{x,undef}", "?1024"),
            ("?{undef,y}", "?768"),
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ],
    ),
    (
        "3.2.3 reserved expansion",
        &[
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+half}", "50%25"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
            ("O{+empty}X", "OX"),
            ("O{+undef}X", "OX"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("up{+path}{var}/here", "up/foo/barvalue/here"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+list*}", "red,green,blue"),
            ("{+keys}", "semi,;,dot,.,comma,,"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
        ],
    ),
    (
        "3.2.4 fragment expansion",
        &[
            ("{#var}", "#value"),
            ("{#hello}", "#Hello%20World!"),
            ("{#half}", "#50%25"),
            ("foo{#empty}", "foo#"),
            ("foo{#undef}", "foo"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list}", "#red,green,blue"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ],
    ),
    (
        "3.2.5 label expansion with dot-prefix",
        &[
            ("{.who}", ".fred"),
            ("{.who,who}", ".fred.fred"),
            ("{.half,who}", ".50%25.fred"),
            ("www{.dom*}", "www.example.com"),
            ("X{.var}", "X.value"),
            ("X{.empty}", "X."),
            ("X{.undef}", "X"),
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            ("X{.empty_keys}", "X"),
            ("X{.empty_keys*}", "X"),
        ],
    ),
    (
        "3.2.6 path segment expansion",
        &[
            ("{/who}", "/fred"),
            ("{/who,who}", "/fred/fred"),
            ("{/half,who}", "/50%25/fred"),
            ("{/who,dub}", "/fred/me%2Ftoo"),
            ("{/var}", "/value"),
            ("{/var,empty}", "/value/"),
            ("{/var,undef}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/var:1,var}", "/v/value"),
            ("{/list}", "/red,green,blue"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ],
    ),
    (
        "3.2.7 path-style parameter expansion",
        &[
            ("{;who}", ";who=fred"),
            ("{;half}", ";half=50%25"),
            ("{;empty}", ";empty"),
            ("{;v,empty,who}", ";v=6;empty;who=fred"),
            ("{;v,bar,who}", ";v=6;who=fred"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{;x,y,undef}", ";x=1024;y=768"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ],
    ),
    (
        "3.2.8 form-style query expansion",
        &[
            ("{?who}", "?who=fred"),
            ("{?half}", "?half=50%25"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?x,y,undef}", "?x=1024&y=768"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ],
    ),
    (
        "3.2.9 form-style query continuation",
        &[
            ("{&who}", "&who=fred"),
            ("{&half}", "&half=50%25"),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{&x,y,undef}", "&x=1024&y=768"),
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ],
    ),
];

fn parse(template: &str) -> UriTemplate {
    UriTemplate::parse(template).unwrap_or_else(|err| panic!("{template}: {err}"))
}

#[test]
fn every_section_3_example_expands_as_the_rfc_says() {
    let variables = rfc_variables();
    let mut checked = 0;
    for (section, examples) in EXAMPLES {
        for (template, expected) in *examples {
            assert_eq!(parse(template).expand(&variables), *expected, "§{section}: {template}");
            checked += 1;
        }
    }
    assert_eq!(checked, 115, "all of section 3.2's examples");
}

#[test]
fn every_section_3_expansion_matches_its_template_and_round_trips() {
    for (section, examples) in EXAMPLES {
        for (template, uri) in *examples {
            let parsed = parse(template);
            let captures = parsed.match_uri(uri).unwrap_or_else(|| panic!("§{section}: {template} must match {uri}"));
            let again: Vec<(String, Value)> = captures.into_iter().collect();
            assert_eq!(parsed.expand(&again), *uri, "§{section}: {template} captured {again:?}");
        }
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|&item| item.to_owned()).collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|&(key, value)| (key.to_owned(), value.to_owned())).collect()
}

/// Expected captures, in template order.
type Captured = Vec<(&'static str, Value)>;

/// The values matching recovers, where the crate's rules make them exact.
#[test]
fn matching_recovers_the_rfc_values() {
    let list = Value::List(strings(&["red", "green", "blue"]));
    let keys = Value::Map(pairs(&[("semi", ";"), ("dot", "."), ("comma", ",")]));
    let cases: Vec<(&str, &str, Captured)> = vec![
        ("{hello}", "Hello%20World%21", vec![("hello", "Hello World!".into())]),
        ("{half}", "50%25", vec![("half", "50%".into())]),
        ("O{empty}X", "OX", vec![]),
        (
            "{x,hello,y}",
            "1024,Hello%20World%21,768",
            vec![("x", "1024".into()), ("hello", "Hello World!".into()), ("y", "768".into())],
        ),
        ("?{x,empty}", "?1024,", vec![("x", "1024".into()), ("empty", "".into())]),
        // Rule 6: variables fill from the left.
        ("?{undef,y}", "?768", vec![("undef", "768".into())]),
        ("{var:3}", "val", vec![("var", "val".into())]),
        ("{list}", "red,green,blue", vec![("list", list.clone())]),
        ("{list*}", "red,green,blue", vec![("list", list.clone())]),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C", vec![("keys", keys.clone())]),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex", vec![("base", "http://example.com/home/".into())]),
        ("{+base}index", "http://example.com/home/index", vec![("base", "http://example.com/home/".into())]),
        ("{+path}/here", "/foo/bar/here", vec![("path", "/foo/bar".into())]),
        ("{+path,x}/here", "/foo/bar,1024/here", vec![("path", "/foo/bar".into()), ("x", "1024".into())]),
        ("{+path:6}/here", "/foo/b/here", vec![("path", "/foo/b".into())]),
        // Rules 3 and 4: the leftmost expression is longest; the rest is empty.
        ("up{+path}{var}/here", "up/foo/barvalue/here", vec![("path", "/foo/barvalue".into())]),
        // Rule 7: under `+` and `#`, commas may be part of a string.
        ("{+list}", "red,green,blue", vec![("list", "red,green,blue".into())]),
        ("{#keys*}", "#semi=;,dot=.,comma=,", vec![("keys", "semi=;,dot=.,comma=,".into())]),
        ("foo{#empty}", "foo#", vec![("empty", "".into())]),
        ("{#path,x}/here", "#/foo/bar,1024/here", vec![("path", "/foo/bar".into()), ("x", "1024".into())]),
        ("www{.dom*}", "www.example.com", vec![("dom", Value::List(strings(&["example", "com"])))]),
        ("X{.empty}", "X.", vec![("empty", "".into())]),
        ("X{.undef}", "X", vec![]),
        ("X{.list*}", "X.red.green.blue", vec![("list", list.clone())]),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C", vec![("keys", keys.clone())]),
        ("{/who,dub}", "/fred/me%2Ftoo", vec![("who", "fred".into()), ("dub", "me/too".into())]),
        ("{/var,empty}", "/value/", vec![("var", "value".into()), ("empty", "".into())]),
        ("{/var:1,var}", "/v/value", vec![("var", "value".into())]),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo", vec![("list", list.clone()), ("path", "/foo".into())]),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C", vec![("keys", keys.clone())]),
        (
            "{;v,empty,who}",
            ";v=6;empty;who=fred",
            vec![("v", "6".into()), ("empty", "".into()), ("who", "fred".into())],
        ),
        ("{;v,bar,who}", ";v=6;who=fred", vec![("v", "6".into()), ("who", "fred".into())]),
        ("{;hello:5}", ";hello=Hello", vec![("hello", "Hello".into())]),
        ("{;list}", ";list=red,green,blue", vec![("list", list.clone())]),
        ("{;list*}", ";list=red;list=green;list=blue", vec![("list", list.clone())]),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C", vec![("keys", keys.clone())]),
        ("{?x,y,empty}", "?x=1024&y=768&empty=", vec![("x", "1024".into()), ("y", "768".into()), ("empty", "".into())]),
        ("{?list*}", "?list=red&list=green&list=blue", vec![("list", list.clone())]),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C", vec![("keys", keys.clone())]),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024", vec![("x", "1024".into())]),
        (
            "{&keys}",
            "&keys=semi,%3B,dot,.,comma,%2C",
            vec![("keys", Value::List(strings(&["semi", ";", "dot", ".", "comma", ","])))],
        ),
    ];
    for (template, uri, expected) in cases {
        let captures = parse(template).match_uri(uri).unwrap_or_else(|| panic!("{template} must match {uri}"));
        let got: Vec<(&str, &Value)> = captures.iter().collect();
        let expected: Vec<(&str, &Value)> = expected.iter().map(|(name, value)| (*name, value)).collect();
        assert_eq!(got, expected, "{template} on {uri}");
    }
}

#[test]
fn uris_the_template_cannot_produce_do_not_match() {
    let cases = [
        ("museum://objects/{object_id}", "museum://objects/1/images"),
        ("museum://objects/{object_id}", "museum://things/1"),
        ("museum://objects/{object_id}", "museum://objects/a%2"),
        ("museum://objects/{object_id}", "museum://objects/%FF"),
        ("museum://objects/{object_id}", "museum://objects/a b"),
        ("{var:3}", "value"),
        ("{?x,y}", "?z=1"),
        ("{/who,who}", "/fred/barney"),
        ("file:///{+path}.txt", "file:///notes.md"),
        ("museum://about", "museum://about/"),
    ];
    for (template, uri) in cases {
        assert_eq!(parse(template).match_uri(uri), None, "{template} must not match {uri}");
    }
}

#[test]
fn typical_resource_templates_match() {
    let template = parse("museum://objects/{object_id}/images{/size}{?format,page}");
    let captures = template.match_uri("museum://objects/436535/images/large?page=2").unwrap();
    let got: Vec<(&str, &Value)> = captures.iter().collect();
    assert_eq!(got, [("object_id", &Value::from("436535")), ("size", &"large".into()), ("page", &"2".into())]);
    let bare = template.match_uri("museum://objects/436535/images").unwrap();
    assert_eq!(bare.len(), 1);
    let static_uri = parse("museum://about");
    assert!(static_uri.match_uri("museum://about").unwrap().is_empty());
    let unicode = parse("notes://{title}").match_uri("notes://caf%C3%A9").unwrap();
    assert_eq!(unicode.get("title"), Some(&Value::from("café")));
}

/// A long URI that fits no template: each span an expression could take used
/// to be decoded before the literal after it was looked at, so a megabyte
/// took hours. Only spans the template can go on from are read now.
#[test]
fn a_long_uri_is_not_decoded_once_per_span() {
    let long = "a".repeat(1 << 18);
    let cases = [
        ("museum://objects/{object_id}/{view}", format!("museum://objects/{long}")),
        ("museum://objects/{object_id}/{view}", format!("museum://objects/1/{long} ")),
        ("museum://loans/{loan_id}", format!("museum://loans/{long}%FF")),
        ("file:///{+path}.txt", format!("file:///{long}.md")),
    ];
    for (template, uri) in cases {
        assert_eq!(parse(template).match_uri(&uri), None, "{template}");
    }
    let fits = parse("museum://objects/{object_id}/{view}").match_uri(&format!("museum://objects/{long}/full"));
    assert_eq!(
        fits.unwrap().get("object_id").map(|id| matches!(id, Value::String(s) if s.len() == 1 << 18)),
        Some(true)
    );
}

/// Found by the fuzz target `uri_template`: a variable left undefined by one
/// of its expressions (an empty match) was not compared with the value another
/// gave it, so `{;n}{n}` matched `h`, which no value of `n` expands to.
#[test]
fn a_variable_undefined_in_one_expression_and_defined_in_another_does_not_match() {
    let template = parse("{;n}{n}");
    assert!(template.match_uri("h").is_none());
    let captures = template.match_uri(";n=hh").expect("n = h");
    assert_eq!(captures.get("n"), Some(&Value::from("h")));
    // An empty string and an undefined occurrence expand alike, and agree.
    let template = parse("{n}{.n}");
    let captures = template.match_uri(".").expect("n is empty");
    assert_eq!(captures.get("n"), Some(&Value::from("")));
    assert_eq!(template.expand(&[("n", Value::from(""))]), ".");
}

/// Found by the fuzz target `uri_template`: under `#`, the leftmost expression
/// takes the text of the expressions after it (rule 3), and a `%2B` it took
/// comes back as `+`, which `#` writes as is. Not the same URI, but the same
/// values: what a server reads from a URI survives the round trip.
#[test]
fn values_matched_under_fragment_expansion_come_back_the_same() {
    let template = parse("{#a}-{?b}{?c}$$+");
    let uri = template.expand(&[("a", Value::from("e308+")), ("b", Value::from("\0+[-"))]);
    assert_eq!(uri, "#e308+-?b=%00%2B%5B-$$+");
    let values: Vec<(String, Value)> = template.match_uri(&uri).expect("its own expansion").into_iter().collect();
    assert_eq!(values, [("a".to_owned(), Value::from("e308+-?b=\0+["))]);
    let again = template.expand(&values);
    assert_ne!(again, uri, "`#` writes the `+` it decoded as is");
    let recaptured: Vec<(String, Value)> = template.match_uri(&again).expect("matches").into_iter().collect();
    assert_eq!(recaptured, values);
}

/// Found by the fuzz target `uri_template`: an expression whose text ran out
/// before its last variables (`{c,d,b}` on `,`) left them out of the agreement
/// check, so `b` came back `""` from `{a,b}` although `b = ""` writes `,,` in
/// `{c,d,b}`, and `,,,` gave values that expand to `,,,,`. A variable the text
/// leaves out is undefined there, which an empty string agrees with only where
/// the whole expression wrote nothing under an operator without a prefix.
#[test]
fn a_variable_an_expression_leaves_out_is_undefined_there() {
    let template = parse("{a,b}{c,d,b}{e},");
    let values: Vec<(String, Value)> = template.match_uri(",,,").expect("b and e").into_iter().collect();
    assert_eq!(
        values,
        [
            ("a".to_owned(), Value::from("")),
            ("b".to_owned(), Value::from("")),
            ("e".to_owned(), Value::List(strings(&["", ""])))
        ]
    );
    assert_eq!(template.expand(&values), ",,,");
    // `b` written by the first expression and left out of the second.
    assert!(parse("{a,b}{c,d,b}").match_uri("x,y,z").is_none());
    assert!(parse("{?a,b}/{b}").match_uri("?a=x/y").is_none());
    let captures = parse("{?a,b}/{b}").match_uri("?a=x&b=y/y").expect("b = y");
    assert_eq!(captures.get("b"), Some(&Value::from("y")));
    // Two empty strings in one expression write its separator.
    assert!(parse("{c,d}{.c}{.d}").match_uri("..").is_none());
    assert!(parse("{c,d}{.c}{.d}").match_uri(",..").is_some());
}
