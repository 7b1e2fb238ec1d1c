//! Dates no server writes, read through the poller from a test mongos: a chunk's
//! `onCurrentShardSince` and a changelog entry's `time` a month after the poll's clock, an
//! actionlog round before 2009. Each is flagged with a note naming the field and the collection,
//! and not used: the log line says "(time invalid)", is shown once, and the tail goes on.

use std::collections::HashMap;
use std::time::Duration;

use bson::{Bson, DateTime, doc};
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;

use super::real_mongos::{self, ClusterFile};

/// 2026-12-03T03:00:00Z, the polls' clock.
const NOW_MS: u64 = 1_796_266_800_000;
const DAY_MS: i64 = 86_400_000;

fn cluster() -> ClusterFile {
    let uuid = Bson::Binary(bson::Binary {
        subtype: bson::spec::BinarySubtype::Uuid,
        bytes: vec![7; 16],
    });
    let now_s = (NOW_MS / 1000) as u32;
    let ts = |time: u32| Bson::Timestamp(bson::Timestamp { time, increment: 1 });
    let at = |ms: i64| DateTime::from_millis(NOW_MS as i64 + ms);
    let mut config = HashMap::new();
    config.insert(
        "shards".to_string(),
        ["rs0", "rs1"]
            .iter()
            .map(|s| doc! {"_id": *s, "host": format!("{s}/{s}:27017"), "state": 1})
            .collect(),
    );
    config.insert(
        "collections".to_string(),
        vec![doc! {"_id": "app.orders", "uuid": uuid.clone(), "timestamp": ts(now_s - 86_400), "key": {"k": 1}, "unique": false}],
    );
    config.insert(
        "chunks".to_string(),
        vec![
            doc! {"_id": 1, "uuid": uuid.clone(), "min": {"k": Bson::MinKey}, "max": {"k": 0}, "shard": "rs0", "lastmod": ts(1), "onCurrentShardSince": ts(now_s - 3_600)},
            doc! {"_id": 2, "uuid": uuid, "min": {"k": 0}, "max": {"k": Bson::MaxKey}, "shard": "rs1", "lastmod": ts(1), "onCurrentShardSince": ts(now_s + 10 * 86_400)},
        ],
    );
    config.insert(
        "changelog".to_string(),
        vec![
            doc! {"_id": "a", "what": "split", "ns": "app.orders", "time": at(-3_600_000), "details": {}},
            doc! {"_id": "b", "what": "moveChunk.commit", "ns": "app.orders", "time": at(30 * DAY_MS), "details": {"min": {"k": 0}, "max": {"k": Bson::MaxKey}, "from": "rs0", "to": "rs1"}},
        ],
    );
    config.insert(
        "actionlog".to_string(),
        vec![
            doc! {"_id": "r", "what": "balancer.round", "time": DateTime::from_millis(1_000), "details": {"executionTimeMillis": 5, "errorOccurred": false, "candidateChunks": 0, "chunksMoved": 0}},
        ],
    );
    for empty in ["tags", "settings", "databases"] {
        config.insert(empty.to_string(), Vec::new());
    }
    ClusterFile {
        name: "invalid-times".into(),
        version: "7.0.24".into(),
        refuses: Vec::new(),
        config,
        replies: doc! {
            "balancerStatus": {"mode": "full", "inBalancerRound": false, "numBalancerRounds": 0_i64, "ok": 1.0},
            "balancerCollectionStatus": {"app.orders": {"chunkSize": 128_i64, "balancerCompliant": true, "ok": 1.0}},
            "currentOp": [],
            "shardedDataDistribution": [],
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dates_no_server_writes_are_flagged_and_not_used() {
    let mongos = real_mongos::start(cluster()).await;
    let client = LiveClient::connect(&mongos.uri, Duration::from_secs(10))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    let polled = poller.poll(NOW_MS).await.unwrap();
    let texts: Vec<String> = polled.log.iter().map(|l| l.text.clone()).collect();
    let invalid: Vec<&String> = texts
        .iter()
        .filter(|t| t.contains("(time invalid)"))
        .collect();
    assert_eq!(invalid.len(), 2, "{texts:?}");
    assert!(
        invalid.iter().any(|t| t.contains("moveChunk.commit")),
        "{texts:?}"
    );
    assert!(
        invalid.iter().any(|t| t.contains("balancer.round")),
        "{texts:?}"
    );
    // Shown when read, not at their dates.
    for l in polled
        .log
        .iter()
        .filter(|l| l.text.contains("(time invalid)"))
    {
        assert_eq!(l.at_ms, NOW_MS, "{}", l.text);
    }
    let valid = polled.log.iter().find(|l| l.text.starts_with("split"));
    assert_eq!(valid.map(|l| l.at_ms), Some(NOW_MS - 3_600_000));
    let notes: Vec<String> = poller.refused().iter().map(|r| r.text.clone()).collect();
    let has = |s: &str| notes.iter().any(|n| n.contains(s));
    assert!(
        has("config.chunks of app.orders: `onCurrentShardSince` of 1 chunk is not a time"),
        "{notes:?}"
    );
    assert!(
        has(
            "config.changelog: `time` 2027-01-02T03:00:00Z of a moveChunk.commit entry on app.orders is after this poll's clock plus 1 day"
        ),
        "{notes:?}"
    );
    assert!(
        has(
            "config.actionlog: `time` 1970-01-01T00:00:01Z of a balancer.round entry is before 2009"
        ),
        "{notes:?}"
    );
    // Not used: the chunk's time on its shard is unknown; the round is no evidence of the window.
    let since: Vec<u64> = (poller.state().collections[0].table.iter())
        .map(|c| c.info.since)
        .collect();
    assert_eq!(since, [NOW_MS / 1000 - 3_600, 0]);
    assert!(poller.logs.round_times_ms.is_empty());
    assert!(poller.take_committed().is_empty());
    // The next poll: the future entry is not shown again, the notes stay.
    let polled = poller.poll(NOW_MS + 2_000).await.unwrap();
    assert!(polled.log.is_empty(), "{:?}", polled.log);
    assert!(
        poller
            .refused()
            .iter()
            .any(|r| r.text.contains("moveChunk.commit entry")),
        "{:?}",
        poller.refused()
    );
    assert!(
        mongos.unknown.lock().unwrap().is_empty(),
        "{:?}",
        mongos.unknown
    );
}
