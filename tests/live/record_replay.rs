//! `record` against `serve` → replay: the replay's event log has the same lines as the live
//! view's (the changelog and actionlog entries each poll read), `n`/`p` step through the
//! recorded migrations and stop at both ends, and playing forward shows each poll's state.

use std::time::Duration;

use shardtop::cluster::Cluster;
use shardtop::live::poller::poll_once;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::Timeline;
use shardtop::source::replay::ReplayTimeline;
use shardtop::view::LogLine;

fn docs(state: &Cluster) -> u64 {
    state
        .collections
        .iter()
        .flat_map(|c| c.table.iter())
        .map(|ch| ch.info.stats.docs)
        .sum()
}

fn texts(log: &[LogLine]) -> Vec<String> {
    log.iter()
        .map(|l| format!("{:?} {}", l.kind, l.text))
        .collect()
}

/// A `moveChunk.start` or `moveChunk.commit` entry's line (a commit's reads `moveChunk … committed`).
fn is_migration(l: &LogLine) -> bool {
    l.text.starts_with("moveChunk.start ")
        || (l.text.starts_with("moveChunk ") && l.text.contains(" committed"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_replays_the_live_views_events_migrations_and_states() {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some("6.0".parse().unwrap())).unwrap();
    sim.run_until(150_000);
    let coll = &sim.cluster.collections[0];
    let (db, name) = coll.ns.split_once('.').unwrap();
    let (db, name) = (db.to_string(), name.to_string());
    let field = coll.pattern.to_document().keys().next().unwrap().clone();
    let (server, uri) = super::helpers::serve_paused(sim).await;
    // What the live view's event log shows at its first poll.
    let live = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
    assert!(live.log.iter().any(is_migration), "{:?}", texts(&live.log));

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.ndjson.zst");
    let recording = super::helpers::record_in_process(&uri, &path, 1_400);
    // Writes between two polls: later keyframes hold more documents.
    let writes = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
        let docs: Vec<bson::Document> = (0..40_i64)
            .map(|i| bson::doc! {field.as_str(): 9_000_000_000_i64 + i})
            .collect();
        client
            .database(&db)
            .collection::<bson::Document>(&name)
            .insert_many(docs)
            .await
            .unwrap();
    };
    let (recorded, ()) = tokio::join!(recording, writes);
    server.shutdown().await;
    assert!(recorded.polls >= 3, "{} polls", recorded.polls);

    let mut tl = ReplayTimeline::open(&path).unwrap();
    assert!(tl.warnings().is_empty(), "{:?}", tl.warnings());
    let at_start = {
        let mut r =
            shardtop::trace::Replay::open(&path, shardtop::trace::ReadOptions::default()).unwrap();
        r.seek(0).unwrap();
        docs(r.state())
    };
    let end = tl.end_ms().unwrap();
    let mut log = Vec::new();
    tl.advance_to(end, &mut log).unwrap();
    // The same lines as the live view (times are the trace's).
    assert_eq!(texts(&log), texts(&live.log));
    // Played forward, the replay reached the last poll's state, with the writes.
    let mut r =
        shardtop::trace::Replay::open(&path, shardtop::trace::ReadOptions::default()).unwrap();
    r.play_to(end).unwrap();
    assert_eq!(
        docs(r.state()),
        at_start + 40,
        "played forward to the last poll"
    );

    // n/p: migration by migration, then "no later migration"; back to the first.
    let migrations = live.log.iter().filter(|l| is_migration(l)).count();
    let mut tl = ReplayTimeline::open(&path).unwrap();
    let mut jump = Vec::new();
    let mut forward = 0;
    while tl.migration(true, &mut jump).unwrap() {
        forward += 1;
        assert!(is_migration(jump.last().unwrap()), "{:?}", jump.last());
        assert!(forward <= migrations);
    }
    assert_eq!(forward, migrations);
    assert_eq!(tl.no_migration(true), "no later migration");
    let mut back = 0;
    while tl.migration(false, &mut jump).unwrap() {
        back += 1;
        assert!(back < migrations);
    }
    assert_eq!(back, migrations - 1);
    // After going back, the log is the log up to the first migration.
    let first = live.log.iter().position(is_migration).unwrap();
    assert_eq!(texts(&jump), texts(&live.log[..=first]));
}
