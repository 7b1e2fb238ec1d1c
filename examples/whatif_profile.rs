//! A what-if at a chosen scale, for profiling (`perf record -g`) and for comparing decisions
//! before and after a change of the simulator's data structures: prints the time taken, the
//! outcome and a digest of the whole prediction (every shard's chunks and bytes at the end, the
//! migrations, when balanced: equal digests, the same decisions).
//!
//! `cargo run --profile bench --example whatif_profile -- SHARDS CHUNKS SECONDS`
//! (defaults 1000 1000000 600: 1,000 shards × 1,000,000 chunks, 100 shards added, ten minutes
//! of cluster time).
#![allow(clippy::unwrap_used)]

use std::hash::{Hash, Hasher};
use std::time::Instant;

use shardtop::sim::whatif::{Changes, predict};

#[path = "../benches/common/mod.rs"]
mod common;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let shards = args.first().copied().unwrap_or(1000) as u32;
    let chunks = args.get(1).copied().unwrap_or(1_000_000) as u32;
    let secs = args.get(2).copied().unwrap_or(600);
    let sim = common::scale_cluster_of(shards, chunks);
    let changes = Changes {
        add_shards: shards / 10,
        ..Changes::default()
    };
    let start = Instant::now();
    let p = predict(sim.clone(), 0, &changes, secs * 1000);
    let real = start.elapsed().as_secs_f64();
    let simulated = (p.ended_ms - p.forked_at_ms) as f64 / 1000.0;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{p:?}").hash(&mut h);
    println!(
        "{shards} shards × {chunks} chunks + {}: {simulated:.0} s of cluster time in {real:.2} s \
         ({:.0} simulated s per real s); {} migrations, balanced at {:?}; digest {:016x}",
        shards / 10,
        simulated / real,
        p.collection.migrations,
        p.collection.balanced_at_ms.map(|ms| ms / 1000),
        h.finish()
    );
}
