//! The RFC 6570 matcher on the `resources/read` path: parse a template (once per
//! resource, at `Server::build`), match one URI against one template, and find
//! the template of a URI among twenty, as the server does for every read.
//!
//! `cargo bench --bench uri_template`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_contract::resources::UriTemplate;

fn templates(c: &mut Criterion) {
    let source = "museum://objects/{object_id}/images{/size}{?format,page}";
    let mut group = c.benchmark_group("uri_template");
    group.bench_function("parse", |b| b.iter(|| UriTemplate::parse(black_box(source)).unwrap()));

    let template = UriTemplate::parse(source).unwrap();
    let uri = "museum://objects/436535/images/large?format=png&page=2";
    assert_eq!(template.match_uri(uri).map(|captures| captures.len()), Some(4));
    group.bench_function("match_one", |b| b.iter(|| template.match_uri(black_box(uri))));

    let object = UriTemplate::parse("museum://objects/{object_id}").unwrap();
    group.bench_function("match_simple", |b| b.iter(|| object.match_uri(black_box("museum://objects/436535"))));

    // Twenty resources of a server, the URI fitting the last one.
    let many: Vec<UriTemplate> = (0..19)
        .map(|n| UriTemplate::parse(&format!("museum://collection{n}/{{id}}{{?fields*}}")).unwrap())
        .chain([template.clone()])
        .collect();
    let found = many.iter().filter(|template| template.match_uri(uri).is_some()).count();
    assert_eq!(found, 1);
    group.bench_function("resolve_among_20", |b| {
        b.iter(|| many.iter().filter_map(|template| template.match_uri(black_box(uri))).next())
    });
    group.finish();

    // The costly shapes (issue #35), ten samples each.
    let mut group = c.benchmark_group("uri_template_costly");
    group.sample_size(10);
    // One variable in six adjacent expressions, on the fuzzer's 141-byte URI:
    // 1,488 s before agreement was checked as each value is read.
    let repeated = UriTemplate::parse("{U}{+U}{U}{+U}{U}{#U}").unwrap();
    let fuzzed = format!("{}{}{}#", "h".repeat(6), "V".repeat(95), "h".repeat(39));
    assert_eq!(repeated.try_match_uri(&fuzzed), Ok(None));
    group.bench_function("repeated_name_fuzzed", |b| b.iter(|| repeated.try_match_uri(black_box(&fuzzed))));
    // A quadratic case at the `resources/read` limit: two expressions in a row
    // on 8 KiB that the second cannot end.
    let pair = UriTemplate::parse("{a}{b}").unwrap();
    let long = format!("{}/", "x".repeat(8190));
    assert_eq!(pair.try_match_uri(&long), Ok(None));
    group.bench_function("quadratic_8k", |b| b.iter(|| pair.try_match_uri(black_box(&long))));
    // A cubic search that runs into the step budget: the most matching costs.
    let triple = UriTemplate::parse("{a}{b}{c}").unwrap();
    let cubic = format!("{}/", "x".repeat(2000));
    assert!(triple.try_match_uri(&cubic).is_err());
    group.bench_function("budget_exhausted", |b| b.iter(|| triple.try_match_uri(black_box(&cubic))));
    // A long list of short items, its variables named again by the next
    // expression, at the `resources/read` limit: 8 KiB of `x,`, which the
    // values `a`..`g` = `x`, `h` = 2,041 `x` and an empty item write twice.
    let lists = UriTemplate::parse("{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}").unwrap();
    let items = "x,".repeat(4096);
    assert!(lists.try_match_uri(&items).unwrap().is_some());
    group.bench_function("long_list_8k", |b| b.iter(|| lists.try_match_uri(black_box(&items))));
    group.finish();
}

criterion_group!(benches, templates);
criterion_main!(benches);
