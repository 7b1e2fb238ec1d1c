//! Simulator benchmarks: simulated inserts per second (ascending and hashed workloads), and a
//! scale scenario of 1,000 shards and 1,000,000 chunks (set-up time, time per balancer round,
//! memory). Run: `cargo bench --bench sim`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use shardtop::sim::{Simulator, scenario};

const INSERTS: u64 = 1_000_000;

fn workload(key: &str, fields: &str, version: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "bench", "description": "d", "seedPassage": "p", "serverVersion": "{version}", "shards": 3,
            "collections": [{{"ns": "db.c", "key": {key}}}],
            "workloads": [{{"ns": "db.c", "rate": {INSERTS}, "count": {INSERTS}, "docSize": {{"min": 200, "max": 400}}, "fields": {fields}}}],
            "until": 1}}"#
    );
    Simulator::from_scenario(&scenario::parse(&text).unwrap(), 1, None).unwrap()
}

fn inserts(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulated inserts");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(INSERTS));
    let cases = [
        (
            "ascending ObjectId, 8.0",
            r#"{"_id": 1}"#,
            r#"{"_id": {"objectId": {}}}"#,
            "8.0",
        ),
        (
            "ascending ObjectId, 5.0 (auto-split)",
            r#"{"_id": 1}"#,
            r#"{"_id": {"objectId": {}}}"#,
            "5.0",
        ),
        (
            "hashed usernames, 8.0",
            r#"{"username": "hashed"}"#,
            r#"{"username": {"alphabetical": {}}}"#,
            "8.0",
        ),
    ];
    for (name, key, fields, version) in cases {
        group.bench_function(name, |b| {
            b.iter_batched(
                || workload(key, fields, version),
                |mut sim| {
                    sim.run_until(1_000);
                    black_box(sim.take_events().len())
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

mod common;
use common::scale_cluster;

fn scale(c: &mut Criterion) {
    let before = rss_bytes();
    let start = Instant::now();
    let sim = scale_cluster();
    let setup = start.elapsed();
    let after = rss_bytes();
    eprintln!(
        "scale: 1,000 shards × 1,000,000 chunks: set-up {:.2} s, resident memory +{} MiB ({} bytes/chunk)",
        setup.as_secs_f64(),
        (after.saturating_sub(before)) >> 20,
        after.saturating_sub(before) / 1_000_000
    );
    // Each routine returns the simulator so that criterion frees it after timing: dropping a
    // million chunks costs more than a round.
    let mut group = c.benchmark_group("scale 1000 shards × 1M chunks");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function(
        "one balancer round (selection + starting migrations)",
        |b| {
            b.iter_batched(
                || sim.clone(),
                |mut s| {
                    s.balancer_round_now();
                    black_box(s.cluster.balancer.in_flight.len());
                    s
                },
                BatchSize::PerIteration,
            );
        },
    );
    // A round while the AutoMerger is on (its pass at enable done, the next not due): the round
    // and the tick that follows it.
    group.bench_function(
        "one balancer round with the AutoMerger on (round + the next tick)",
        |b| {
            b.iter_batched(
                || {
                    let mut s = sim.clone();
                    s.step();
                    s
                },
                |mut s| {
                    s.balancer_round_now();
                    s.step();
                    black_box(s.cluster.balancer.in_flight.len());
                    s
                },
                BatchSize::PerIteration,
            );
        },
    );
    // The AutoMerger's pass: every chunk is older than the 300 s history window, and each shard
    // holds one contiguous block of 1,000 or 2,000 chunks, so each merge takes 1,000 chunks.
    let mut old = sim.clone();
    old.cluster.now_ms = 400_000;
    group.bench_function(
        "one balancer round with the AutoMerger (a pass's first merge, 1,000 chunks)",
        |b| {
            b.iter_batched(
                || old.clone(),
                |mut s| {
                    s.balancer_round_now();
                    s.auto_merger_round_now();
                    black_box((
                        s.cluster.balancer.in_flight.len(),
                        s.cluster.collections[0].table.len(),
                    ));
                    s
                },
                BatchSize::PerIteration,
            );
        },
    );
    group.bench_function("one balancer round and its commits", |b| {
        b.iter_batched(
            || sim.clone(),
            |mut s| {
                s.balancer_round_now();
                let n = s.cluster.balancer.in_flight.len();
                s.run_until(10_000);
                black_box((n, s.cluster.balancer.completed));
                s
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, inserts, scale);
criterion_main!(benches);
