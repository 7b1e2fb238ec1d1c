//! A quiet cluster of 3,000 one-chunk collections (7.0.24, three shards), generated in memory
//! for the test mongos: what `poll_cost` counts and `benches/poll.rs` times. Owns nothing else.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::real_mongos::ClusterFile;

pub const COLLECTIONS: usize = 3_000;

/// A 7.0.24 cluster of three shards and 3,000 one-chunk collections (shaped, in memory).
pub fn quiet_cluster() -> ClusterFile {
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
