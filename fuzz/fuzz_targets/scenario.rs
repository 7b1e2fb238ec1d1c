//! Text as a scenario file. When it parses and its numbers are small (bounds below: absurd
//! sizes are refused separately in src/, not here), the simulator is built from it and stepped
//! at most `MAX_TICKS` ticks; neither may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::sim::Simulator;
use shardtop::sim::scenario::keygen::GenSpec;
use shardtop::sim::scenario::{self, DocSize, Op, Scenario, ShardsSpec};

/// Ticks of 100 ms stepped at most (40 s of virtual time: four balancer rounds).
const MAX_TICKS: u64 = 400;
/// Inserts the workloads may make over the ticks stepped (fewer ticks for a high rate).
const MAX_INSERTS: f64 = 5_000.0;
const MAX_SHARDS: usize = 8;
const MAX_CHUNKS: usize = 64;
const MAX_UNTIL_SECS: f64 = 3600.0;
const MAX_RATE: f64 = 10_000.0;
const MAX_DOC_BYTES: u64 = 16 << 20;

fn small_gen(g: &GenSpec) -> bool {
    match g {
        GenSpec::RandomString { length } | GenSpec::Alphabetical { length } => *length <= 64,
        GenSpec::Choice { values, weights } => values.len() <= 64 && weights.len() <= 64,
        GenSpec::Mix(parts) => parts.len() <= 16 && parts.iter().all(|w| small_gen(&w.generator)),
        GenSpec::Repeat { generator, .. } => small_gen(generator),
        _ => true,
    }
}

fn small(sc: &Scenario) -> bool {
    let shards = match &sc.shards {
        ShardsSpec::Count(n) => *n as usize,
        ShardsSpec::List(l) => l.len(),
    };
    let chunks_ok = |n: Option<u32>| n.is_none_or(|n| n as usize <= MAX_CHUNKS);
    shards <= MAX_SHARDS
        && sc.until.is_finite()
        && sc.until <= MAX_UNTIL_SECS
        && sc.collections.len() <= 4
        && sc.collections.iter().all(|c| {
            chunks_ok(c.num_initial_chunks)
                && c.indexes.len() <= 8
                && c.initial_layout
                    .as_ref()
                    .is_none_or(|l| l.split_points.len() <= MAX_CHUNKS)
        })
        && sc.workloads.len() <= 4
        && sc.workloads.iter().all(|w| {
            w.rate.is_finite()
                && w.rate <= MAX_RATE
                && match w.doc_size {
                    DocSize::Fixed(n) => n <= MAX_DOC_BYTES,
                    DocSize::Range { min, max } => min <= MAX_DOC_BYTES && max <= MAX_DOC_BYTES,
                }
                && w.fields.len() <= 8
                && w.fields.values().all(small_gen)
        })
        && sc.actions.len() <= 32
        && sc.actions.iter().all(|a| match &a.op {
            Op::AddShard { .. } => shards < MAX_SHARDS,
            Op::ReshardCollection {
                num_initial_chunks, ..
            } => chunks_ok(*num_initial_chunks),
            _ => true,
        })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sc) = scenario::parse(text) else {
        return;
    };
    if !small(&sc) {
        return;
    }
    let Ok(mut sim) = Simulator::from_scenario(&sc, sc.seed, None) else {
        return;
    };
    let per_tick: f64 = sc.workloads.iter().map(|w| w.rate.max(0.0) / 10.0).sum();
    let budget = if per_tick > 0.0 { (MAX_INSERTS / per_tick) as u64 } else { MAX_TICKS };
    let ticks = ((sc.until.max(0.0) * 10.0) as u64).min(MAX_TICKS).min(budget.max(1));
    for _ in 0..ticks {
        sim.step();
        let _ = sim.take_events();
    }
    let _ = sim.summary_text("fuzz");
});
