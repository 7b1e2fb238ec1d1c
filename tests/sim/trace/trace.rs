//! Traces: record every scenario and replay it, seek, damaged files, prefixes.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use shardtop::cluster::{Cluster, SummaryOptions};
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::{Notable, ReadOptions, Replay};

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("shardtop-trace-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start(name: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, None).unwrap()
}

fn until(name: &str) -> u64 {
    (scenario::built_in(name).unwrap().unwrap().until * 1000.0) as u64
}

fn summary(state: &Cluster) -> serde_json::Value {
    state.summary_json(&SummaryOptions {
        source: "x".into(),
        chunks: true,
        writes_unknown: false,
    })
}

fn record(name: &str, path: &Path, until_ms: u64) -> Simulator {
    let mut sim = start(name);
    let header = sim_header(&sim, &format!("sim:{name}"), name, 1);
    record_sim(&mut sim, until_ms, path, &header, |_, _| {}).unwrap();
    sim
}

#[test]
fn every_scenario_replays_to_the_summary_of_its_run() {
    let dir = TempDir::new("roundtrip");
    for (k, name) in scenario::names().into_iter().enumerate() {
        let ext = ["ndjson", "ndjson.gz", "ndjson.zst"][k % 3];
        let path = dir.path(&format!("{name}.{ext}"));
        let sim = record(name, &path, until(name));
        assert!(path.exists() && !dir.path(&format!("{name}.{ext}.partial")).exists());
        let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
        assert!(
            replay.trace.warnings.is_empty(),
            "{:?}",
            replay.trace.warnings
        );
        replay.seek(replay.end_ms()).unwrap();
        assert_eq!(
            summary(replay.state()),
            summary(&sim.cluster),
            "{name} ({ext})"
        );
    }
}

#[test]
fn seeking_gives_the_state_the_simulator_had_at_that_time() {
    let dir = TempDir::new("seek");
    let path = dir.path("lc.ndjson");
    record("low-cardinality", &path, until("low-cardinality"));
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    let mut playing = Replay::open(&path, ReadOptions::default()).unwrap();
    for t in [
        0, 100, 9_900, 10_000, 10_100, 33_300, 150_000, 42_200, 5_000, 399_900,
    ] {
        let mut sim = start("low-cardinality");
        sim.run_until(t);
        replay.seek(t).unwrap();
        assert_eq!(
            summary(replay.state()),
            summary(&sim.cluster),
            "seek to {t} ms"
        );
        if t >= playing.time_ms() {
            playing.play_to(t).unwrap();
            assert_eq!(
                summary(playing.state()),
                summary(&sim.cluster),
                "play to {t} ms"
            );
        }
    }
}

#[test]
fn stepping_and_jumping_between_notable_events() {
    let dir = TempDir::new("step");
    let path = dir.path("lc.ndjson.zst");
    record("low-cardinality", &path, until("low-cardinality"));
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    let first = replay.step_forward().unwrap().unwrap();
    let second = replay.step_forward().unwrap().unwrap();
    let after_two = summary(replay.state());
    replay.step_back().unwrap();
    let third = replay.step_forward().unwrap().unwrap();
    assert_eq!(third.at_ms, second.at_ms);
    assert_eq!(summary(replay.state()), after_two);
    assert!(first.at_ms <= second.at_ms);

    assert!(replay.next_notable(Some(Notable::Jumbo)).unwrap());
    let jumbo_at = replay.position();
    assert!(
        replay.state().collections[0]
            .table
            .iter()
            .any(|c| c.info.jumbo)
    );
    assert!(replay.next_notable(Some(Notable::Error)).unwrap() || replay.position() > jumbo_at);
    assert!(replay.prev_notable(Some(Notable::Jumbo)).unwrap());
    assert_eq!(replay.position(), jumbo_at);
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

fn open_err(path: &Path, opts: ReadOptions) -> String {
    match Replay::open(path, opts) {
        Ok(_) => panic!("{} opened", path.display()),
        Err(e) => {
            assert!(e.input, "{e}");
            e.message
        }
    }
}

#[test]
fn damaged_traces_give_clear_errors_never_panics() {
    let dir = TempDir::new("bad");
    let good = dir.path("good.ndjson");
    record("ascending", &good, 60_000);
    let text = std::fs::read_to_string(&good).unwrap();
    let lines: Vec<&str> = text.lines().collect();

    // Truncated last line: tolerated with a warning.
    let cut = dir.path("cut.ndjson");
    write(&cut, &text[..text.len() - 40]);
    let replay = Replay::open(&cut, ReadOptions::default()).unwrap();
    assert!(
        replay
            .trace
            .warnings
            .iter()
            .any(|w| w.contains("cut short")),
        "{:?}",
        replay.trace.warnings
    );

    // A malformed line in the middle: an error naming the line and the field.
    let mut broken: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    let victim = broken
        .iter()
        .position(|l| l.contains("\"what\":\"moveChunk.start\""))
        .unwrap();
    broken[victim] = broken[victim].replace("\"from\":", "\"frm\":");
    let mid = dir.path("mid.ndjson");
    write(&mid, &(broken.join("\n") + "\n"));
    let msg = open_err(&mid, ReadOptions::default());
    assert!(
        msg.contains(&format!("mid.ndjson:{}:", victim + 1)) && msg.contains("field `from`"),
        "{msg}"
    );

    let mut garbage: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    garbage[5] = "{not json".into();
    let g = dir.path("garbage.ndjson");
    write(&g, &(garbage.join("\n") + "\n"));
    let msg = open_err(&g, ReadOptions::default());
    assert!(msg.contains("garbage.ndjson:6: not JSON"), "{msg}");

    // A newer major version is refused; a newer minor version's unknown fields and events are not.
    let v2 = dir.path("v2.ndjson");
    write(
        &v2,
        &text.replacen("\"version\":\"1.1\"", "\"version\":\"2.0\"", 1),
    );
    assert!(open_err(&v2, ReadOptions::default()).contains("version 2.0 is not supported"));
    let v11 = dir.path("v11.ndjson");
    let mut newer: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    newer[0] = newer[0].replacen(
        "\"version\":\"1.1\"",
        "\"version\":\"1.2\",\"future\":true",
        1,
    );
    newer.insert(3, r#"{"t":0.0,"what":"somethingNew","x":1}"#.into());
    write(&v11, &(newer.join("\n") + "\n"));
    Replay::open(&v11, ReadOptions::default()).unwrap();

    for (name, content, needle) in [
        ("notjson.ndjson", "hello world\n", "not a shardtop trace"),
        ("empty.ndjson", "", "empty file"),
        (
            "other.ndjson",
            "{\"format\":\"something-else\"}\n",
            "not a shardtop trace",
        ),
        ("header-only.ndjson", lines[0], "no keyframe"),
    ] {
        let p = dir.path(name);
        write(&p, content);
        let msg = open_err(&p, ReadOptions::default());
        assert!(msg.contains(needle), "{name}: {msg}");
    }

    // A huge line is refused by size, not read into memory whole.
    let huge = dir.path("huge.ndjson");
    write(
        &huge,
        &format!(
            "{}\n{{\"t\":0,\"what\":\"writes\",\"pad\":\"{}\"}}\n",
            lines[0],
            "x".repeat(100_000)
        ),
    );
    let msg = open_err(
        &huge,
        ReadOptions {
            max_line_bytes: 10_000,
            ..ReadOptions::default()
        },
    );
    assert!(
        msg.contains("huge.ndjson:2: line is longer than 10000 bytes"),
        "{msg}"
    );

    // A missing file is a runtime failure (exit 1), not bad input.
    let missing = Replay::open(&dir.path("nope.ndjson"), ReadOptions::default())
        .err()
        .unwrap();
    assert!(!missing.input);
}

#[test]
fn a_recorder_killed_midway_leaves_a_readable_partial_trace() {
    let dir = TempDir::new("partial");
    let path = dir.path("run.ndjson.gz");
    let mut sim = start("ascending");
    let header = sim_header(&sim, "sim:ascending", "ascending", 1);
    let mut w = shardtop::trace::writer::TraceWriter::create(
        &path,
        &header,
        shardtop::trace::writer::Existing::Refuse,
    )
    .unwrap();
    let partial = w.partial_path().unwrap();
    assert!(partial.starts_with(dir.path("")), "{partial:?}");
    let events = sim.take_events();
    let names = shardtop::trace::event_codec::Names {
        state: &sim.cluster,
    };
    for e in &events {
        w.line(&shardtop::trace::event_codec::encode(e, &names))
            .unwrap();
    }
    w.keyframe(&shardtop::trace::state_codec::encode(&sim.cluster))
        .unwrap();
    sim.run_until(20_000);
    let later = sim.take_events();
    let names = shardtop::trace::event_codec::Names {
        state: &sim.cluster,
    };
    for e in &later {
        w.line(&shardtop::trace::event_codec::encode(e, &names))
            .unwrap();
    }
    w.keyframe(&shardtop::trace::state_codec::encode(&sim.cluster))
        .unwrap();
    drop(w); // killed: never finished
    assert!(!path.exists());
    let mut replay = Replay::open(&partial, ReadOptions::default()).unwrap();
    assert!(
        replay
            .trace
            .warnings
            .iter()
            .any(|w| w.contains("no end marker")),
        "{:?}",
        replay.trace.warnings
    );
    replay.seek(20_000).unwrap();
    assert_eq!(
        replay.state().collections[0]
            .routed_writes
            .iter()
            .sum::<u64>(),
        2_000
    );
}

#[test]
fn the_committed_fixtures_still_replay_to_their_scenario() {
    for (file, name) in [
        ("ascending.ndjson.zst", "ascending"),
        ("low-cardinality.ndjson.gz", "low-cardinality"),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/traces")
            .join(file);
        let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
        replay.seek(replay.end_ms()).unwrap();
        let mut sim = start(name);
        sim.run_until(until(name));
        // These traces were written before failed actions were recorded (`scheduledAction.failed`
        // events, keyframes' `failedActions`): they replay with none, everything else the same.
        let mut now = summary(&sim.cluster);
        now["errors"] = serde_json::json!([]);
        // They keep the balancer's words of their day: "only jumbo chunks are left to move"
        // now reads "only jumbo chunks left to move".
        let then = serde_json::to_string(&summary(replay.state()))
            .unwrap()
            .replace("jumbo chunks are left to move", "jumbo chunks left to move");
        let mut then: serde_json::Value = serde_json::from_str(&then).unwrap();
        if file.starts_with("ascending") {
            // Its migrations were cut at "about one chunk size"; since issue 50 a 6.0+ donor cuts
            // them with `autoSplitVector` (limit 1), a few documents off: the same moves, rounds
            // and chunks per shard, other bounds and sizes (and, the sizes deciding, two of the
            // middle chunks on each other's shard).
            without_sizes(&mut then);
            without_sizes(&mut now);
        }
        assert_eq!(then, now, "{file}");
    }
}

/// A summary without its chunks' bounds, sizes and shards, and the shards' documents and bytes.
fn without_sizes(summary: &mut serde_json::Value) {
    for coll in summary["collections"].as_array_mut().unwrap() {
        for shard in coll["shards"].as_array_mut().unwrap() {
            for field in ["docs", "bytes", "orphanedDocs", "orphanedBytes"] {
                shard[field] = serde_json::Value::Null;
            }
        }
        for chunk in coll["chunkList"].as_array_mut().unwrap() {
            for field in ["min", "max", "shard", "docs", "bytes", "writes"] {
                chunk[field] = serde_json::Value::Null;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn any_prefix_of_a_trace_replays_or_says_why(cut in 0.0f64..1.0) {
        let dir = TempDir::new(&format!("prefix-{}", (cut * 1e9) as u64));
        let full = dir.path("full.ndjson");
        record("hashed", &full, 30_000);
        let bytes = std::fs::read(&full).unwrap();
        let first_keyframe_end = {
            let text = String::from_utf8(bytes.clone()).unwrap();
            let start = text.find("\"keyframe\"").unwrap();
            start + text[start..].find('\n').unwrap() + 1
        };
        let at = (bytes.len() as f64 * cut) as usize;
        let prefix = dir.path("prefix.ndjson");
        std::fs::write(&prefix, &bytes[..at]).unwrap();
        match Replay::open(&prefix, ReadOptions::default()) {
            Ok(mut replay) => {
                prop_assert!(at >= first_keyframe_end);
                replay.seek(replay.end_ms()).unwrap();
            }
            Err(e) => {
                prop_assert!(at < first_keyframe_end, "{}", e);
                prop_assert!(e.input);
            }
        }
    }
}

#[test]
fn a_trace_cut_during_a_resharding_replays_to_its_state() {
    let dir = TempDir::new("reshard");
    let path = dir.path("reshard.ndjson");
    let sim = record("reshard", &path, 300_000);
    assert!(sim.cluster.collections[0].resharding.is_some());
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    replay.seek(replay.end_ms()).unwrap();
    let got = summary(replay.state());
    assert_eq!(got, summary(&sim.cluster));
    assert!(got["collections"][0]["resharding"].is_object(), "{got}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// The new rules leave events a replay applies to the simulator's exact state, on every line:
    /// forced drains, movePrimary and the second removeShard, the AutoMerger's merges, orphans and
    /// the range deleter, defragmentation, moveCollection and unshardCollection — and owned
    /// documents are conserved through all of them.
    #[test]
    fn drains_merges_and_orphans_replay_on_every_release_line(
        which in 0usize..5,
        version in prop::sample::select(vec!["4.4", "5.0", "6.0", "7.0", "8.0", "8.2", "8.3", "9.0"]),
        seed in 1u64..1000,
    ) {
        let name = ["drain", "auto-merge", "orphans", "defragment", "move-collection"][which];
        let dir = TempDir::new(&format!("lines-{which}-{seed}"));
        let path = dir.path("t.ndjson");
        let sc = scenario::built_in(name).unwrap().unwrap();
        let mut sim = Simulator::from_scenario(&sc, seed, Some(version.parse().unwrap())).unwrap();
        let header = sim_header(&sim, &format!("sim:{name}"), name, seed);
        let end = (sc.until * 1000.0) as u64;
        record_sim(&mut sim, end, &path, &header, |_, _| {}).unwrap();
        let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
        replay.seek(replay.end_ms()).unwrap();
        prop_assert_eq!(summary(replay.state()), summary(&sim.cluster), "{} {}", name, version);
        let coll = &sim.cluster.collections[0];
        let owned: u64 = coll.table.iter().map(|c| c.info.stats.docs).sum();
        let inserted: u64 = coll.routed_writes.iter().sum();
        prop_assert_eq!(owned, inserted, "{} {}", name, version);
        prop_assert_eq!(coll.table.check_invariants(), Ok(()));
    }
}

#[test]
fn keyframes_keep_collection_balancing_settings_and_orphans() {
    let sc = scenario::built_in("orphans").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.configure_collection_balancing(
        "app.events",
        shardtop::sim::balancer::collection_balancing::BalancingRequest {
            chunk_size_mb: Some(1),
            enable_auto_merger: Some(false),
            defragment: None,
        },
    )
    .unwrap();
    sim.run_until(60_000);
    let frame = shardtop::trace::state_codec::encode(&sim.cluster);
    let back = shardtop::trace::state_codec::decode(&frame).unwrap();
    let (a, b) = (&sim.cluster.collections[0], &back.collections[0]);
    assert_eq!(a.balancing, b.balancing);
    assert!(!a.range_deletions.is_empty());
    assert_eq!(a.range_deletions, b.range_deletions);
    assert_eq!(sim.cluster.settings.auto_merge, back.settings.auto_merge);
}
