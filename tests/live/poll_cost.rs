//! What one poll of a quiet cluster of 3,000 collections costs in commands, with
//! `balancerCollectionStatus` for every collection at every poll (as before issue 31) and paced
//! (at most 16 a poll: changed collections first, the rest in turn). Prints the numbers.

use std::collections::HashMap;
use std::time::Duration;

use bson::{Bson, Document, doc};
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;

use super::real_mongos::{self, ClusterFile};

const COLLECTIONS: usize = 3_000;

/// A 7.0.24 cluster of three shards and 3,000 one-chunk collections (shaped, in memory).
fn quiet_cluster() -> ClusterFile {
    let shards = ["shard1", "shard2", "shard3"];
    let mut collections = Vec::new();
    let mut chunks = Vec::new();
    let mut statuses = Document::new();
    let mut sdd = Vec::new();
    for i in 0..COLLECTIONS {
        let ns = format!("db.c{i:04}");
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&(i as u64 + 1).to_be_bytes());
        let uuid = Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Uuid,
            bytes: bytes.to_vec(),
        });
        let shard = shards[i % 3];
        collections.push(doc! {"_id": &ns, "uuid": uuid.clone(), "timestamp": bson::Timestamp {time: 1_758_222_481, increment: i as u32 + 1}, "key": {"k": 1}, "unique": false});
        chunks.push(doc! {"_id": bson::oid::ObjectId::new(), "uuid": uuid, "min": {"k": Bson::MinKey}, "max": {"k": Bson::MaxKey}, "shard": shard, "lastmod": bson::Timestamp {time: 1, increment: 0}});
        statuses.insert(
            &ns,
            doc! {"chunkSize": 128_i64, "balancerCompliant": true, "ok": 1.0},
        );
        sdd.push(doc! {"ns": &ns, "shards": [{"shardName": shard, "numOrphanedDocs": 0, "numOwnedDocuments": 10, "ownedSizeBytes": 1000, "orphanedSizeBytes": 0}]});
    }
    let mut config = HashMap::new();
    config.insert(
        "shards".to_string(),
        shards
            .iter()
            .map(|s| doc! {"_id": *s, "host": format!("{s}/{s}:27017"), "state": 1})
            .collect(),
    );
    config.insert("collections".to_string(), collections);
    config.insert("chunks".to_string(), chunks);
    for empty in ["tags", "settings", "databases", "changelog", "actionlog"] {
        config.insert(empty.to_string(), Vec::new());
    }
    ClusterFile {
        name: "quiet-3000".into(),
        version: "7.0.24".into(),
        refuses: Vec::new(),
        config,
        replies: doc! {
            "balancerStatus": {"mode": "full", "inBalancerRound": false, "numBalancerRounds": 0_i64, "ok": 1.0},
            "balancerCollectionStatus": statuses,
            "currentOp": [],
            "shardedDataDistribution": sdd,
        },
    }
}

/// Commands the poller sent in each of two polls (the first, then a quiet one), by name; the
/// driver's own monitoring (`hello`/`isMaster` heartbeats) left out.
async fn polls(budget: usize) -> Vec<HashMap<String, usize>> {
    let mongos = real_mongos::start(quiet_cluster()).await;
    let client = LiveClient::connect(&mongos.uri, Duration::from_secs(10))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    poller.set_compliance_budget(budget);
    let mut out = Vec::new();
    for k in 0..2 {
        mongos.received.lock().unwrap().clear();
        let polled = poller.poll(k * 2_000).await.unwrap();
        assert_eq!(polled.state.collections.len(), COLLECTIONS);
        let mut counts: HashMap<String, usize> = HashMap::new();
        let heartbeat = |c: &str| c == "hello" || c == "isMaster";
        for c in mongos
            .received
            .lock()
            .unwrap()
            .iter()
            .filter(|c| !heartbeat(c))
        {
            *counts.entry(c.clone()).or_default() += 1;
        }
        let total: usize = counts.values().sum();
        eprintln!(
            "budget {budget}: poll {k}: {total} commands ({} balancerCollectionStatus, {} find)",
            counts.get("balancerCollectionStatus").copied().unwrap_or(0),
            counts.get("find").copied().unwrap_or(0)
        );
        out.push(counts);
    }
    assert!(mongos.unknown.lock().unwrap().is_empty());
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_poll_of_3000_collections_asks_balancer_collection_status_at_most_16_times() {
    let status = |c: &HashMap<String, usize>| c.get("balancerCollectionStatus").copied();
    let every = polls(usize::MAX).await;
    let paced = polls(shardtop::live::compliance::ASK_PER_POLL).await;
    for (e, p) in every.iter().zip(&paced) {
        assert_eq!(status(e), Some(COLLECTIONS));
        assert_eq!(status(p), Some(16));
        let total = |c: &HashMap<String, usize>| c.values().sum::<usize>();
        assert_eq!(total(e) - total(p), COLLECTIONS - 16, "{e:?} {p:?}");
    }
}
