//! The lab's cost. Targets: the four candidates of seed 003's 200,000-document example with its
//! traffic, headless, in at most 10 s; routing and statistics at 1,000,000 documents a second or
//! more per candidate (each candidate alone: the layout, the inserts, the simulated cluster's
//! ticks and the report). Run: `cargo bench --bench lab`; the memory target is
//! `cargo bench --bench lab_memory`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use bson::Document;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shardtop::lab::input::example;
use shardtop::lab::report::Report;
use shardtop::lab::trial::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::model::KeyPattern;

// The binary's allocator (src/main.rs), so the times are the command's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn spec() -> ClusterSpec {
    ClusterSpec::new(3, 1, shardtop::cluster::ServerVersion::DEFAULT)
}

fn keys(texts: &[&str]) -> Vec<KeyPattern> {
    texts
        .iter()
        .map(|k| KeyPattern::parse_json(k).unwrap())
        .collect()
}

fn unique() -> Vec<KeyPattern> {
    keys(&[example::UNIQUE_INDEX])
}

fn run<E: std::fmt::Debug>(
    candidates: &[KeyPattern],
    total: u64,
    docs: &mut impl Iterator<Item = Result<(Document, u64), E>>,
) -> Report {
    let arrival = Arrival {
        from_empty: false,
        initial_docs: total / 2,
        rate_per_sec: 1000.0,
    };
    let mut trial = Trial::new(spec(), arrival, candidates, &unique()).unwrap();
    trial.run_to_end(docs).unwrap();
    trial.finish(&example::traffic(), &unique())
}

/// `run` over documents held in memory, handed out by reference (no copies).
fn run_slice(candidates: &[KeyPattern], docs: &[(Document, u64)]) -> Report {
    let half = docs.len() / 2;
    let arrival = Arrival {
        from_empty: false,
        initial_docs: half as u64,
        rate_per_sec: 1000.0,
    };
    let mut trial = Trial::new(spec(), arrival, candidates, &unique()).unwrap();
    for (d, size) in &docs[..half] {
        trial.take_initial(d, *size);
    }
    trial.start_inserts();
    let mut i = half;
    while i < docs.len() {
        let end = (i + trial.due().max(1) as usize).min(docs.len());
        black_box(trial.tick(&docs[i..end]));
        i = end;
    }
    trial.finish(&example::traffic(), &unique())
}

fn sized(d: Document) -> (Document, u64) {
    let n = bson::to_vec(&d).unwrap().len() as u64;
    (d, n)
}

fn lab(c: &mut Criterion) {
    let four = keys(&example::CANDIDATES);
    let mut group = c.benchmark_group("lab");
    group.sample_size(10);
    group.bench_function("example orders: four candidates, 200,000 documents", |b| {
        b.iter(|| {
            let mut docs = example::orders(example::SEED).map(|d| Ok::<_, ()>(sized(d)));
            black_box(run(&four, example::ORDERS, &mut docs))
        });
    });
    let docs: Vec<(Document, u64)> = example::orders(example::SEED).map(sized).collect();
    group.throughput(Throughput::Elements(example::ORDERS));
    for key in example::CANDIDATES {
        let one = keys(&[key]);
        group.bench_function(format!("routing and statistics: {key}"), |b| {
            b.iter(|| black_box(run_slice(&one, &docs)));
        });
    }
    group.finish();
}

criterion_group!(benches, lab);
criterion_main!(benches);
