//! Contract fuzzing over the museum example: `check_contract` of each of its
//! eight default tools through the in-process client, as its tests run it.
//! The figure is cases per second (criterion's throughput), shrinking
//! included only if a tool fails, which the museum's do not.
//!
//! `cargo bench --bench contract`; the guide's Performance chapter (guide/src/performance.md) quotes it.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_contract::testing::{Cases, Client};
use tokio::runtime::Runtime;

#[path = "../examples/museum.rs"]
#[allow(dead_code, unreachable_pub, reason = "the example's binary half is not benchmarked")]
mod museum;

/// Cases per tool in one iteration.
const CASES: u32 = 100;

fn contract(c: &mut Criterion) {
    let runtime = Runtime::new().expect("a tokio runtime");
    let client = runtime.block_on(async {
        Client::builder()
            .caller(mcp_contract::auth::AuthInfo::with_scopes(["images:read"]))
            .connect(museum::server(None))
            .await
            .expect("the museum builds")
    });
    let reports = runtime.block_on(museum::check_every_tool(&client, || Cases::new(CASES).seed(1)));
    for report in &reports {
        report.assert_passed();
    }
    let mut group = c.benchmark_group("contract");
    group.throughput(Throughput::Elements(u64::from(CASES) * reports.len() as u64));
    group.sample_size(10);
    let mut seed = 0;
    group.bench_function("museum_8_tools", |b| {
        b.iter(|| {
            seed += 1;
            runtime.block_on(museum::check_every_tool(&client, || Cases::new(CASES).seed(seed)))
        });
    });
    group.finish();
}

criterion_group!(benches, contract);
criterion_main!(benches);
