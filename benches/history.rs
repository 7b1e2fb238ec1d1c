//! History's cost: one sample of 1,000 shards × 1,000,000 chunks, and the memory an hour of it at
//! one sample a second holds (target ≤ 50 MB), printed. Run: `cargo bench --bench history`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::cluster::heat_history::History;

mod common;

#[global_allocator]
static COUNTING: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fn history(c: &mut Criterion) {
    let mut sim = common::scale_cluster();
    let base = COUNTING.current_usage();
    let mut hour = History::new(3600);
    for t in 0..3600 {
        sim.cluster.now_ms = t * 1000;
        hour.sample(&sim.cluster);
    }
    let held = COUNTING.current_usage().saturating_sub(base);
    println!(
        "history: an hour at 1 s on 1,000 shards holds {:.1} MB",
        held as f64 / 1e6
    );
    let mut group = c.benchmark_group("history 1000 shards");
    group.bench_function("one sample (ring full)", |b| {
        b.iter(|| {
            sim.cluster.now_ms += 1000;
            hour.sample(black_box(&sim.cluster));
        });
    });
    group.finish();
    black_box(hour);
}

criterion_group!(benches, history);
criterion_main!(benches);
