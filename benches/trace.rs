//! Trace benchmarks: reading (validating and replaying) a 1,000,000-event trace, seeking in it,
//! and the size of the `ascending` scenario's trace. Run: `cargo bench --bench trace`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::replay::Played;
use shardtop::trace::{ReadOptions, Replay, TraceFile};

fn record(text: &str, name: &str, until_ms: u64, path: &Path) {
    let sc = scenario::parse(text).unwrap();
    let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
    let header = sim_header(&sim, name, name, 1);
    record_sim(&mut sim, until_ms, path, &header, |_, _| {}).unwrap();
}

/// About a million events: one write batch per 100 ms tick for 100,000 virtual seconds.
fn big_trace(dir: &Path) -> PathBuf {
    let path = dir.join("big.ndjson");
    let text = r#"{"name": "big", "description": "d", "seedPassage": "p", "shards": 3, "chunkSizeMb": 1,
        "collections": [{"ns": "db.c", "key": {"u": "hashed"}}],
        "workloads": [{"ns": "db.c", "rate": 10, "docSize": 200, "fields": {"u": {"randomString": {}}}}],
        "until": 100000}"#;
    record(text, "sim:big", 100_000_000, &path);
    path
}

fn sizes(dir: &Path) {
    for ext in ["ndjson", "ndjson.gz", "ndjson.zst"] {
        let path = dir.join(format!("ascending.{ext}"));
        let text = scenario::BUILT_IN
            .iter()
            .find(|(n, _)| *n == "ascending")
            .unwrap()
            .1;
        record(text, "sim:ascending", 300_000, &path);
        let trace = TraceFile::open(&path, ReadOptions::default()).unwrap();
        let total = std::fs::metadata(&path).unwrap().len();
        if ext == "ndjson" {
            let content = std::fs::read_to_string(&path).unwrap();
            let (mut ev, mut evb, mut kf, mut kfb) = (0u64, 0u64, 0u64, 0u64);
            for line in content.lines() {
                if line.contains("\"keyframe\"") {
                    kf += 1;
                    kfb += line.len() as u64 + 1;
                } else if line.contains("\"what\"") {
                    ev += 1;
                    evb += line.len() as u64 + 1;
                }
            }
            eprintln!(
                "ascending trace, uncompressed: {total} bytes; {ev} events, {} bytes/event; {kf} keyframes, {} bytes/keyframe",
                evb / ev.max(1),
                kfb / kf.max(1)
            );
        } else {
            eprintln!(
                "ascending trace, {ext}: {total} bytes ({} bytes per event+keyframe line on average)",
                total / (trace.events + trace.keyframes.len() as u64).max(1)
            );
        }
    }
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    sizes(dir.path());
    let path = big_trace(dir.path());
    let trace = TraceFile::open(&path, ReadOptions::default()).unwrap();
    let events = trace.events;
    let end = trace.end_ms;
    eprintln!(
        "big trace: {events} events, {} keyframes, {} MB",
        trace.keyframes.len(),
        std::fs::metadata(&path).unwrap().len() >> 20
    );
    drop(trace);

    let mut group = c.benchmark_group("trace");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(events));
    group.bench_function("open: read, validate and replay every event", |b| {
        b.iter(|| {
            black_box(
                TraceFile::open(&path, ReadOptions::default())
                    .unwrap()
                    .events,
            )
        });
    });
    group.bench_function(
        "open and build the key visualizer's heat log: open, then play every event into it",
        |b| {
            b.iter(|| {
                let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
                let mut heat = shardtop::cluster::heat_history::HeatLog::keeping(3_600_000);
                replay
                    .play_to_with(end, |_, p| {
                        if let Played::Event(e) = p {
                            heat.observe(std::slice::from_ref(e));
                        }
                    })
                    .unwrap();
                black_box(heat)
            });
        },
    );
    group.throughput(Throughput::Elements(1));
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    let mut t = 0u64;
    group.bench_function("seek to a time anywhere in the trace", |b| {
        b.iter_batched(
            || {
                t = (t + 37_123_457) % end;
                t
            },
            |to| {
                replay.seek(to).unwrap();
                black_box(replay.position())
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(trace_benches, benches);
criterion_main!(trace_benches);
