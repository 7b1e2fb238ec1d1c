//! The offline paths' time at a million chunks (issue 47): the state built from a capture
//! (`open`, `explain` and `whatif` of one read it so) and from a trace (`replay`, and a trace as
//! a SOURCE), and the CLI what-if of a trace beside the in-process prediction of
//! `benches/whatif.rs` (target: within 2× of it). Their memory is `benches/offline_memory.rs`'s.
//!
//! Run: `cargo bench --bench offline` (the inputs are made first: a minute or two).
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::trace::{ReadOptions, Replay};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

/// A capture of [`common::big_hashed_scenario`] at a million chunks, made by `capture` from
/// `serve` (both children), at `dir/capture.json.zst`.
fn make_capture(dir: &Path) {
    let (uri, mut serve) = common::serve_big_hashed(BIN, dir, 1_000_000);
    let status = Command::new(BIN)
        .args(["capture", &uri, "-o", "capture.json.zst"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let _ = serve.kill();
    let _ = serve.wait();
}

/// A 20-second recording of [`common::scale_cluster`] (1,000 shards × 1,000,000 chunks) at
/// `dir/trace.json`.
fn make_trace(dir: &Path) -> std::path::PathBuf {
    let mut sim = common::scale_cluster();
    let header = shardtop::source::record::sim_header(&sim, "sim:scale", "scale", 1);
    let path = dir.join("trace.json");
    shardtop::source::record::record_sim(&mut sim, 20_000, &path, &header, |_, _| {}).unwrap()
}

fn offline(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    make_capture(d);
    let trace = make_trace(d);
    let rt = common::runtime();
    let mut group = c.benchmark_group("offline paths at 1,000,000 chunks");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(30));
    let capture = d.join("capture.json.zst");
    group.bench_function("state from a capture (read, then the poll replayed)", |b| {
        b.iter(|| {
            let replay = shardtop::capture::file::read_replay(&capture).unwrap();
            let (polled, _) = rt
                .block_on(shardtop::live::one_poll::replay_reads(replay))
                .unwrap();
            assert_eq!(
                polled.state.collections.iter().map(|c| c.table.len()).max(),
                Some(1_000_000)
            );
        });
    });
    group.bench_function("state from a trace (opened, then at its end)", |b| {
        b.iter(|| {
            let mut r = Replay::open(&trace, ReadOptions::default()).unwrap();
            r.seek(r.end_ms()).unwrap();
            assert_eq!(r.state().collections[0].table.len(), 1_000_000);
        });
    });
    // The CLI what-if of the trace, ten minutes ahead with 100 shards added: the process as a
    // user runs it (`benches/whatif.rs` times the same prediction in process).
    group.bench_function("shardtop whatif TRACE --add-shards 100 --until 10m", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let status = Command::new(BIN)
                    .args(["whatif", "trace.json", "--ns", "app.big"])
                    .args(["--add-shards", "100", "--until", "10m", "--json"])
                    .current_dir(d)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            start.elapsed()
        });
    });
    group.finish();
}

criterion_group!(benches, offline);
criterion_main!(benches);
