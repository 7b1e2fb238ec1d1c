//! 1,000,000 documents read from a JSON-lines file (a counting pass, then the run, as the
//! command does) and tried on seed 003's four candidates: the time and the peak allocated are
//! printed. Target: at most 1 GB. Run: `cargo bench --bench lab_memory`.
#![allow(clippy::unwrap_used)]

use std::io::Write;

use shardtop::lab::input::{data, example};
use shardtop::lab::trial::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::model::KeyPattern;

#[global_allocator]
static COUNTING: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fn keys(texts: &[&str]) -> Vec<KeyPattern> {
    texts
        .iter()
        .map(|k| KeyPattern::parse_json(k).unwrap())
        .collect()
}

fn main() {
    const N: u64 = 1_000_000;
    let four = keys(&example::CANDIDATES);
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
    let total = data::open(&path).unwrap().count().unwrap();
    let mut docs = data::open(&path).unwrap();
    let unique = keys(&[example::UNIQUE_INDEX]);
    let spec = ClusterSpec::new(3, 1, shardtop::cluster::ServerVersion::DEFAULT);
    let arrival = Arrival {
        from_empty: false,
        initial_docs: total / 2,
        rate_per_sec: 1000.0,
    };
    let mut trial = Trial::new(spec, arrival, &four, &unique).unwrap();
    trial.run_to_end(&mut docs).unwrap();
    let report = trial.finish(&example::traffic(), &unique);
    let peak = COUNTING.peak_usage().saturating_sub(base);
    println!(
        "lab: {} documents from a {:.0} MB file on four candidates: {:.1} s, peak {:.0} MB",
        report.documents,
        size as f64 / 1e6,
        start.elapsed().as_secs_f64(),
        peak as f64 / 1e6
    );
}
