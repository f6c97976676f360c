//! Throughput of the text classifier over the whole conformance corpus: the
//! runtime's one Aho-Corasick pass against a one-pass `RegexSet` and against the
//! naive one-`Regex`-per-pattern loop.
//!
//! `cargo bench --bench classify`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_contract::errors::classify_parts;

#[path = "support/naive.rs"]
mod naive;

use naive::{NaiveClassifier, RegexSetClassifier, conformance_corpus};

fn text_classifier(c: &mut Criterion) {
    let corpus = conformance_corpus();
    let naive = NaiveClassifier::new();
    let regex_set = RegexSetClassifier::new();
    // A benchmark of classifiers that disagree would measure nothing useful.
    for (name, message) in &corpus {
        let expected = naive.classify_parts(name, message);
        assert_eq!(classify_parts(name, message), expected, "{name:?}: {message:?}");
        assert_eq!(regex_set.classify_parts(name, message), expected, "{name:?}: {message:?}");
    }

    // The corpus holds one 10 000-character message; the short ones alone show the
    // per-call cost that dominates real error messages.
    let short: Vec<(String, String)> = corpus.iter().filter(|(_, message)| message.len() < 1024).cloned().collect();
    for (group_name, cases) in
        [("classify_parts/conformance_corpus", &corpus), ("classify_parts/short_messages", &short)]
    {
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(cases.len() as u64));
        group.bench_function("runtime", |b| {
            b.iter(|| {
                for (name, message) in cases {
                    black_box(classify_parts(black_box(name), black_box(message)));
                }
            })
        });
        group.bench_function("regex_set", |b| {
            b.iter(|| {
                for (name, message) in cases {
                    black_box(regex_set.classify_parts(black_box(name), black_box(message)));
                }
            })
        });
        group.bench_function("naive", |b| {
            b.iter(|| {
                for (name, message) in cases {
                    black_box(naive.classify_parts(black_box(name), black_box(message)));
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(6));
    targets = text_classifier
}

criterion_main!(benches);
