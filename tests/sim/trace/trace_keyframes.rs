//! A trace of keyframes with recorded log entries between them, as `record` writes a live
//! cluster: playing forward takes each keyframe as the state from its time on (not only a seek
//! does), the entries are handed on in order without changing the state, and the jumps between
//! migrations find the recorded `moveChunk` entries and stop at the first and the last.

use serde_json::json;
use shardtop::cluster::{ActiveWindow, Cluster};
use shardtop::sim::{Simulator, scenario};
use shardtop::trace::replay::Played;
use shardtop::trace::writer::TraceWriter;
use shardtop::trace::{Header, LogCollection, Logged, Notable, ReadOptions, Replay, state_codec};

fn cluster() -> Cluster {
    let sc = scenario::built_in("hashed").unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, None)
        .unwrap()
        .cluster
}

fn entry(at_ms: u64, what: &str) -> Logged {
    Logged {
        at_ms,
        collection: LogCollection::Changelog,
        entry: json!({"what": what, "ns": "app.users", "time": {"$date": {"$numberLong": "1767225600000"}},
            "details": {"from": "shard0000", "to": "shard0001"}}),
    }
}

/// Three polls: at 0 s the first state, at 1 s the balancer stopped, at 2 s a balancing window
/// set; a migration's start and commit logged between them.
fn write_trace(path: &std::path::Path) -> (Cluster, Cluster, Cluster) {
    let first = cluster();
    let mut second = first.clone();
    second.now_ms = 1_000;
    second.settings.balancer_enabled = false;
    let mut third = second.clone();
    third.now_ms = 2_000;
    third.settings.active_window = Some(ActiveWindow {
        start_minute: 23 * 60,
        stop_minute: 6 * 60,
    });
    let header = Header {
        recorder: "test".into(),
        source: "mongodb://example:27017".into(),
        server_version: first.version.to_string(),
        start_epoch_seconds: 1_767_225_600,
        keyframe_interval_ms: 1_000,
        shards: first.shards.iter().map(|s| s.shard.id.clone()).collect(),
        collections: Vec::new(),
        scenario: None,
    };
    let mut w =
        TraceWriter::create(path, &header, shardtop::trace::writer::Existing::Replace).unwrap();
    w.keyframe(&state_codec::encode(&first)).unwrap();
    w.line(&entry(0, "split").encode()).unwrap();
    w.line(&entry(400, "moveChunk.start").encode()).unwrap();
    w.keyframe(&state_codec::encode(&second)).unwrap();
    w.line(&entry(1_500, "moveChunk.commit").encode()).unwrap();
    w.keyframe(&state_codec::encode(&third)).unwrap();
    w.finish(2_000).unwrap();
    (first, second, third)
}

#[test]
fn playing_forward_takes_each_keyframe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("polls.ndjson.zst");
    write_trace(&path);
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    assert!(
        replay.trace.warnings.is_empty(),
        "{:?}",
        replay.trace.warnings
    );
    assert!(replay.state().settings.balancer_enabled);
    let mut seen = Vec::new();
    let play = |replay: &mut Replay, t: u64, seen: &mut Vec<String>| {
        replay
            .play_to_with(t, |_, p| {
                if let Played::Logged(l) = p {
                    seen.push(format!("{}@{}", l.what(), l.at_ms));
                }
            })
            .unwrap();
    };
    play(&mut replay, 999, &mut seen);
    assert!(
        replay.state().settings.balancer_enabled,
        "before the second poll"
    );
    assert_eq!(seen, ["split@0", "moveChunk.start@400"]);
    play(&mut replay, 1_000, &mut seen);
    assert!(
        !replay.state().settings.balancer_enabled,
        "the second poll's state"
    );
    assert_eq!(replay.state().settings.active_window, None);
    play(&mut replay, 2_000, &mut seen);
    assert_eq!(
        replay.state().settings.active_window,
        Some(ActiveWindow {
            start_minute: 23 * 60,
            stop_minute: 6 * 60
        }),
        "the balancing window is kept"
    );
    assert_eq!(seen.last().unwrap(), "moveChunk.commit@1500");
    // Back and forth by seeking gives the same states.
    replay.seek(0).unwrap();
    assert!(replay.state().settings.balancer_enabled);
    replay.seek(1_200).unwrap();
    assert!(!replay.state().settings.balancer_enabled);
    assert_eq!(replay.state().settings.active_window, None);
}

#[test]
fn jumps_between_recorded_migrations_stop_at_the_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("polls.ndjson");
    write_trace(&path);
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    let m = Some(Notable::Migration);
    let migrations: Vec<u64> = replay
        .trace
        .notable
        .iter()
        .filter(|n| n.2 == Notable::Migration)
        .map(|n| n.0)
        .collect();
    assert_eq!(migrations, [400, 1_500]);
    assert!(!replay.prev_notable(m).unwrap(), "none before the start");
    // Just after each entry (the split is event 0, the start 1, the commit 2); the start was
    // the last entry before the second poll, so the state is that poll's.
    assert!(replay.next_notable(m).unwrap());
    assert_eq!(replay.position(), 2);
    assert!(!replay.state().settings.balancer_enabled);
    assert!(replay.next_notable(m).unwrap());
    assert_eq!(replay.position(), 3);
    let at = replay.time_ms();
    assert!(!replay.next_notable(m).unwrap(), "none after the last");
    assert_eq!(
        (replay.position(), replay.time_ms()),
        (3, at),
        "it stays at the last"
    );
    assert!(replay.prev_notable(m).unwrap());
    assert_eq!(replay.position(), 2);
    assert!(!replay.prev_notable(m).unwrap(), "p stops at the first");
    assert_eq!(replay.position(), 2);
}

/// Recording writes a keyframe and each set-up event chunk by chunk
/// (`trace::state_codec::write`, `event_codec::write`): the bytes are the encoded values'.
#[test]
fn the_streamed_keyframe_is_the_encoded_one_byte_for_byte() {
    use shardtop::trace::event_codec;
    let text = r#"{"name": "n", "description": "d", "seedPassage": "p", "shards": 3,
        "collections": [{"ns": "app.a", "key": {"h": "hashed"}, "numInitialChunks": 40},
                        {"ns": "app.b", "key": {"k": 1, "t": 1}}], "until": 60}"#;
    let sc = scenario::parse(text).expect("scenario");
    let mut sim = Simulator::from_scenario(&sc, 7, None).expect("sim");
    // The set-up events too: each collection sharded, its initial layout written entry by entry.
    let events = sim.take_events();
    let names = event_codec::Names {
        state: &sim.cluster,
    };
    let sharded = |e: &&shardtop::cluster::Event| {
        matches!(
            e.kind,
            shardtop::cluster::EventKind::CollectionSharded { .. }
        )
    };
    assert_eq!(events.iter().filter(sharded).count(), 2);
    for e in &events {
        let expected = serde_json::to_vec(&event_codec::encode(e, &names));
        let mut got = Vec::new();
        event_codec::write(e, &names, &mut got).expect("write");
        assert_eq!(got, expected.expect("json"));
    }
    sim.run_until(30_000);
    let c = &sim.cluster;
    let expected = serde_json::to_vec(&state_codec::encode(c)).expect("json");
    let mut got = Vec::new();
    state_codec::write(c, &mut got).expect("write");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&expected)
    );
}
