//! The offline paths at a million chunks (issue 47): the peak resident memory and the time of
//! each as a child process (`shardtop …` of this build), on inputs generated here, so the whole
//! process is counted — its allocator's own overhead included.
//!
//! - `sim --record` of 1,000 shards × 1,000,000 chunks (hashed, 5.0, 30 s), which writes the
//!   trace the next three read: `replay --json`, `explain` and `whatif --add-shards 100` of it.
//! - a capture of 1,000,000 chunks (4 shards, hashed, 7.0) made by `capture` from `serve`, then
//!   `open --json`, `explain` and `whatif` of it.
//!
//! Targets: a capture's paths ≤ 600 MB and ≤ 10 s; a trace's ≤ 300 MB; `sim --record` ≤ 600
//! MB. Run: `cargo bench --bench offline_memory` (several minutes: the inputs are made first).
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");
const CHUNKS: u64 = 1_000_000;

/// The scenario of the trace: 1,000 shards, `app.big` hashed into a million initial chunks.
fn scenario_1000_shards() -> String {
    format!(
        r#"{{"name": "big1000", "description": "d", "seedPassage": "p", "shards": 1000,
            "collections": [{{"ns": "app.big", "key": {{"h": "hashed"}}, "numInitialChunks": {CHUNKS}}}],
            "until": 30}}"#
    )
}

/// Runs `shardtop ARGS` to its end under `/usr/bin/time` (GNU time, which reads the child's
/// `ru_maxrss` when it is reaped): (seconds, peak resident bytes), its output discarded.
fn measured(args: &[&str], dir: &Path) -> (f64, u64) {
    let report = dir.join("time.txt");
    let status = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%e %M")
        .arg("-o")
        .arg(&report)
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("/usr/bin/time (GNU time) measures the peak resident memory");
    assert!(status.success(), "shardtop {args:?} failed ({status})");
    let text = std::fs::read_to_string(&report).unwrap();
    let mut fields = text.split_whitespace();
    let secs: f64 = fields.next().unwrap().parse().unwrap();
    // `%M` is in kilobytes.
    let kb: u64 = fields.next().unwrap().parse().unwrap();
    (secs, kb * 1024)
}

fn report(path: &str, (secs, peak): (f64, u64)) {
    println!(
        "{path:<44} {secs:>6.1} s  peak {:>6.0} MB  {:>5.0} bytes per chunk",
        peak as f64 / 1e6,
        peak as f64 / CHUNKS as f64
    );
}

/// `serve` of [`common::big_hashed_scenario`] and one `capture` of it into `dir/capture.json.zst`.
fn make_capture(dir: &Path) {
    let (uri, mut serve) = common::serve_big_hashed(BIN, dir, CHUNKS as u32);
    report(
        "capture (from serve, 4 shards)",
        measured(&["capture", &uri, "-o", "capture.json.zst"], dir),
    );
    let _ = serve.kill();
    let _ = serve.wait();
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    println!(
        "the offline paths at 1,000,000 chunks (each a child process, measured by /usr/bin/time):"
    );
    std::fs::write(d.join("big1000.json"), scenario_1000_shards()).unwrap();
    let record = [
        "sim",
        "--scenario-file",
        "big1000.json",
        "--server-version",
        "5.0",
        "--record",
        "trace.json",
    ];
    report("sim --record (1,000 shards)", measured(&record, d));
    read_paths(d, "trace", "trace.json", "100", "1h");
    make_capture(d);
    read_paths(d, "capture", "capture.json.zst", "4", "10m");
}

/// The three reading paths of `file` (a trace or a capture), each measured: `replay --json`
/// (`open --json` of a capture), `explain`, and `whatif --add-shards ADD --until UNTIL`.
fn read_paths(d: &Path, kind: &str, file: &str, add: &str, until: &str) {
    let first = if kind == "trace" { "replay" } else { "open" };
    report(
        &format!("{first} --json ({kind})"),
        measured(&[first, file, "--json"], d),
    );
    report(
        &format!("explain ({kind})"),
        measured(&["explain", file, "--ns", "app.big", "--json"], d),
    );
    let whatif = [
        "whatif",
        file,
        "--ns",
        "app.big",
        "--add-shards",
        add,
        "--until",
        until,
        "--json",
    ];
    report(
        &format!("whatif --add-shards {add}, {until} ({kind})"),
        measured(&whatif, d),
    );
}
