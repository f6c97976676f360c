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
}

criterion_group!(benches, templates);
criterion_main!(benches);
