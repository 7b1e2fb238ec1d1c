//! `whatif` at scale: 1,000 shards × 1,000,000 chunks, 100 shards added, the fork run forward.
//! Reports simulated seconds per real second (target: an hour of cluster time in under 10 s).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use shardtop::sim::whatif::{Changes, predict};

mod common;
use common::scale_cluster;

const HOUR_MS: u64 = 3600 * 1000;

fn add_100() -> Changes {
    Changes {
        add_shards: 100,
        ..Changes::default()
    }
}

fn whatif(c: &mut Criterion) {
    let sim = scale_cluster();
    // One hour of cluster time, timed once: the number the issue asks for.
    let fork = sim.clone();
    let start = Instant::now();
    let p = predict(fork, 0, &add_100(), sim.now_ms() + HOUR_MS);
    let real = start.elapsed().as_secs_f64();
    let simulated = (p.ended_ms - p.forked_at_ms) as f64 / 1000.0;
    eprintln!(
        "whatif: 1,000 shards × 1,000,000 chunks + 100 shards: {simulated:.0} s of cluster time in {real:.2} s \
         ({:.0} simulated s per real s); {} migrations, balanced at {:?}",
        simulated / real,
        p.collection.migrations,
        p.collection.balanced_at_ms.map(|ms| ms / 1000),
    );
    let mut group = c.benchmark_group("whatif 1000 shards × 1M chunks, add 100 shards");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("ten minutes of cluster time", |b| {
        b.iter_batched(
            || sim.clone(),
            |s| {
                let p = predict(s, 0, &add_100(), 600_000);
                black_box(p.collection.migrations)
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, whatif);
criterion_main!(benches);
