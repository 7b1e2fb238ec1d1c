//! The lab's cost. Targets: the four candidates of seed 003's 200,000-document example with its
//! traffic, headless, in at most 10 s; routing and statistics at 1,000,000 documents a second or
//! more per candidate; 1,000,000 documents read from a file and tried on four candidates in at
//! most 1 GB (the peak is printed). Run: `cargo bench --bench lab`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::io::Write;

use bson::Document;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shardtop::lab::report::Report;
use shardtop::lab::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::lab::{data, example};
use shardtop::model::KeyPattern;

#[global_allocator]
static COUNTING: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fn spec() -> ClusterSpec {
    ClusterSpec {
        shards: 3,
        chunk_size_mb: 1,
        server_version: shardtop::cluster::ServerVersion::DEFAULT,
        num_initial_chunks: None,
    }
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
            b.iter(|| {
                let mut it = docs.iter().cloned().map(Ok::<_, ()>);
                black_box(run(&one, example::ORDERS, &mut it))
            });
        });
    }
    group.finish();
    drop(docs);
    million_from_a_file(&four);
}

/// 1,000,000 orders written as JSON lines, then read (a counting pass, then the run, as the
/// command does) and tried on four candidates; the peak allocated is printed.
fn million_from_a_file(four: &[KeyPattern]) {
    const N: u64 = 1_000_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orders.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for d in example::orders_n(example::SEED, N) {
        let line = bson::Bson::Document(d).into_relaxed_extjson().to_string();
        writeln!(out, "{line}").unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let size = std::fs::metadata(&path).unwrap().len();
    COUNTING.reset_peak_usage();
    let base = COUNTING.current_usage();
    let start = std::time::Instant::now();
    let total = data::open(&path).unwrap().count() as u64;
    let mut docs = data::open(&path).unwrap();
    let report = run(four, total, &mut docs);
    let peak = COUNTING.peak_usage().saturating_sub(base);
    println!(
        "lab: {} documents from a {:.0} MB file on four candidates: {:.1} s, peak {:.0} MB",
        report.documents,
        size as f64 / 1e6,
        start.elapsed().as_secs_f64(),
        peak as f64 / 1e6
    );
}

criterion_group!(benches, lab);
criterion_main!(benches);
