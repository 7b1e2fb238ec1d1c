//! `record` → `replay` against the real-document test mongos says what `watch` said: the same
//! JSON summary, including what only a live poll observes (an inconsistent collection, a drain,
//! the balancing window now) and the keyframes carry.

use std::path::Path;

use bson::doc;
use serde_json::Value;
use shardtop::source::Timeline;

use super::real_mongos::{self, ClusterFile};

use super::helpers::{shardtop, watch_once_json};

/// The overlapping 7.0 cluster (its `test.authors` is inconsistent), with `shard2` draining, a
/// balancing window, and two balancer rounds no UTC offset fits in that window (so what the
/// window is now is deterministically "not known", from 2 rounds, whatever the test's clock).
fn cluster() -> ClusterFile {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clusters");
    let mut file = ClusterFile::load(&dir.join("awkward-overlap-7.0.json"));
    for s in file.config.get_mut("shards").unwrap() {
        if s.get_str("_id") == Ok("shard2") {
            s.insert("draining", true);
        }
    }
    file.config
        .get_mut("settings")
        .unwrap()
        .push(doc! {"_id": "balancer", "mode": "full", "stopped": false,
        "activeWindow": {"start": "10:00", "stop": "11:00"}});
    let at = |h: i64| bson::DateTime::from_millis(1_758_240_000_000 + h * 3_600_000);
    let round = |h: i64| {
        doc! {"what": "balancer.round", "ns": "", "time": at(h),
        "details": {"executionTimeMillis": 30, "errorOccured": false, "candidateChunks": 0, "chunksMoved": 0}}
    };
    // 12 hours apart: inside a one-hour window in no time zone.
    file.config
        .get_mut("actionlog")
        .unwrap()
        .extend([round(0), round(12)]);
    file
}

/// The summary without what differs between two runs of the same cluster: its source, and its
/// wall-clock time (returned).
fn comparable(mut v: Value) -> (Value, f64) {
    let time = v["time"].as_f64().unwrap();
    super::common::relative_times(&mut v);
    if let Some(o) = v.as_object_mut() {
        o.remove("source");
        o.remove("time");
    }
    // `watch --once` reads one poll, a recording as many as its duration holds.
    if let Some(c) = v["conformance"].as_object_mut() {
        c.remove("polls");
    }
    (v, time)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_says_what_watch_said_of_an_inconsistency_a_drain_and_the_window() {
    let file = cluster();
    let mongos = real_mongos::start(file).await;
    let live = watch_once_json(&mongos.uri).await;
    assert!(live.status.success(), "{live:?}");
    let live: Value = serde_json::from_slice(&live.stdout).unwrap();
    // What only a live poll observes is there.
    let authors = live["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ns"] == "test.authors")
        .unwrap();
    assert_eq!(
        authors["inconsistencies"][0]["type"], "RoutingTableRangeOverlap",
        "{authors}"
    );
    let drains = live["balancer"]["drains"].as_array().unwrap();
    assert_eq!(drains.len(), 1, "{drains:?}");
    assert_eq!(drains[0]["shard"], "shard2");
    let window = &live["balancer"]["activeWindow"];
    assert_eq!(window["timeZone"], "server", "{window}");
    assert_eq!(window["open"], Value::Null, "{window}");

    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("overlap.ndjson");
    let out = super::helpers::record_2s(&mongos.uri, &trace).await;
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let keyframe: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l.get("keyframe").is_some())
        .unwrap();
    let frame = &keyframe["keyframe"];
    assert_eq!(frame["balancer"]["windowNow"]["rounds"], 2, "{frame}");
    assert_eq!(frame["balancer"]["drains"][0]["source"], "derived");
    let out = shardtop(vec![
        "replay".into(),
        trace.display().to_string(),
        "--json".into(),
    ])
    .await;
    assert!(out.status.success(), "{out:?}");
    let replayed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ((replayed, replayed_at), (live, live_at)) = (comparable(replayed), comparable(live));
    assert!(replayed == live, "replay: {replayed}\nwatch: {live}");
    // The replay's time is the recording's wall-clock time (after `watch`'s, within the test;
    // the recording's time 0 is the whole second it started in).
    assert!(
        (live_at.floor()..live_at + 120.0).contains(&replayed_at),
        "watch at {live_at}, replay at {replayed_at}"
    );
    // The TUI's replay: wall-clock time from the recording's start, no write signal.
    let tl = shardtop::source::replay::ReplayTimeline::open(&trace).unwrap();
    let start = tl.wall_start_ms().unwrap();
    assert!(
        (live_at.floor() * 1000.0) as u64 <= start && start as f64 <= replayed_at * 1000.0,
        "{start}"
    );
    let clock = shardtop::view::ClockView {
        virtual_time: false,
        wall_start_ms: Some(start),
        end_ms: tl.end_ms(),
        ..Default::default()
    };
    assert!(!clock.is_live());
    let view = tl.view(&shardtop::view::ViewRequest::default(), clock, None);
    assert_eq!(view.heat, Some("off"));
    // The notes on the reads a poll could not use (the overlap's failed balancerCollectionStatus,
    // the chunks' onCurrentShardSince) degrade the same panes in the replay as in watch.
    let polled = shardtop::live::poller::poll_once(&mongos.uri, std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let notes = |r: &[shardtop::view::RefusedRead]| -> Vec<(&'static str, String)> {
        r.iter()
            .map(|n| (n.feeds.label(), n.text.clone()))
            .collect()
    };
    assert!(polled.refused.len() >= 2, "{:?}", polled.refused);
    assert_eq!(notes(&view.refused), notes(&polled.refused));
    let unknown = mongos.unknown.lock().unwrap().clone();
    assert!(unknown.is_empty(), "{unknown:#?}");
}
