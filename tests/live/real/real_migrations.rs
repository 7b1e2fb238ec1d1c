//! The event log of `watch` over the real changelog entries of
//! `tests/fixtures/clusters/8.0.32-realrock.json`, read through [`super::real_mongos`]: one line
//! per migration. The file's `moveChunk.commit` is given the entries the same migration logs
//! around it (its `moveChunk.start` before, its donor's `moveChunk.from` after — the real
//! `moveChunk.from` of the file, its bounds set to the commit's); the file's own
//! `moveChunk.from`, of a migration whose start and commit are not there, stays a line of its
//! own. The namespace is said once.

use std::collections::VecDeque;
use std::time::Duration;

use bson::{Document, doc};
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;
use shardtop::view::{LogKind, LogLine, append_log};

use super::real_mongos::{self, ClusterFile};

/// After every document of the file (2026-12-03 09:00:00 UTC).
const NOW_MS: u64 = 1_796_288_400_000;

fn shifted(d: &Document, what: &str, dt_ms: i64, details: Document) -> Document {
    let mut e = d.clone();
    let t = d.get_datetime("time").unwrap().timestamp_millis() + dt_ms;
    e.insert("what", what);
    e.insert("time", bson::DateTime::from_millis(t));
    e.insert("details", details);
    if let Ok(id) = d.get_str("_id") {
        e.insert("_id", format!("{id}-{what}"));
    }
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_migration_is_one_line_of_the_live_event_log() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clusters/8.0.32-realrock.json");
    let mut file = ClusterFile::load(&path);
    let real = file.docs("changelog").to_vec();
    let commit = real
        .iter()
        .find(|d| d.get_str("what") == Ok("moveChunk.commit"))
        .unwrap();
    let from = real
        .iter()
        .find(|d| d.get_str("what") == Ok("moveChunk.from"))
        .unwrap();
    let cd = commit.get_document("details").unwrap();
    let start = doc! {"min": cd.get("min").unwrap(), "max": cd.get("max").unwrap(),
    "from": cd.get("from").unwrap(), "to": cd.get("to").unwrap()};
    let mut donor = from.get_document("details").unwrap().clone();
    donor.insert("min", cd.get("min").unwrap().clone());
    donor.insert("max", cd.get("max").unwrap().clone());
    let mut changelog = real.clone();
    changelog.push(shifted(commit, "moveChunk.start", -1_500, start));
    changelog.push(shifted(commit, "moveChunk.from", 300, donor));
    file.config.insert("changelog".into(), changelog);

    let mongos = real_mongos::start(file).await;
    let client = LiveClient::connect(&mongos.uri, Duration::from_secs(10))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    let lines = poller.poll(NOW_MS).await.unwrap().log;
    let mut log: VecDeque<LogLine> = VecDeque::new();
    for l in lines {
        append_log(&mut log, l);
    }
    let migrations: Vec<&LogLine> = (log.iter())
        .filter(|l| l.text.starts_with("moveChunk"))
        .collect();
    let texts: Vec<&str> = migrations.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "moveChunk            shop.orders sh1 → sh2 committed: 3784 docs, 1.0 MiB cloned · \
             [{ customerId: MinKey }, { customerId: 3784 })",
            "moveChunk            shop.orders sh1 → sh2 succeeded · \
             [{ customerId: 37840 }, { customerId: 41624 })",
        ]
    );
    let start_ms = commit.get_datetime("time").unwrap().timestamp_millis() as u64 - 1_500;
    assert_eq!(migrations[0].at_ms, start_ms, "the line is at its start");
    assert!(migrations.iter().all(|l| l.kind == LogKind::Migration));
    let unknown = mongos.unknown.lock().unwrap().clone();
    assert!(unknown.is_empty(), "{unknown:#?}");
}
