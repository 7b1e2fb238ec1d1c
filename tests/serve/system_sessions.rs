//! `config.system.sessions` as every real cluster has it (`sh.status-7.0.24.txt`): sharded on
//! `{_id: 1}`, one chunk from 7.0 and 1,024 before (`sh.status-6.0.3.txt`: the balancer's
//! pre-split), `maxChunkSizeBytes: 200000` from 6.0, in `$shardedDataDistribution`; not in the
//! simulator's own collections.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{admin, config_collection, serve_empty};

#[tokio::test]
async fn the_sessions_collection_is_in_the_catalog() {
    for version in ["4.4", "6.0", "7.0", "8.0"] {
        let (_server, client, _) = serve_empty(version, true).await;
        let c = config_collection(&client, "config.system.sessions")
            .await
            .unwrap_or_else(|| panic!("{version}: no config.system.sessions"));
        assert_eq!(
            c.get_document("key").unwrap(),
            &doc! {"_id": 1},
            "{version}"
        );
        if version == "4.4" {
            assert!(!c.contains_key("maxChunkSizeBytes"), "{c}");
        } else {
            assert_eq!(c.get_i64("maxChunkSizeBytes"), Ok(200_000), "{c}");
        }
        let sessions = common::sessions_chunk_test(&client).await;
        let chunks: Vec<Document> =
            crate::common::find_all(&client, "config", "chunks", doc! {}).await;
        let mine: Vec<&Document> = chunks.iter().filter(|d| sessions(d)).collect();
        let want = if version < "7.0" { 1024 } else { 1 };
        assert_eq!(mine.len(), want, "{version}");
        assert!(
            mine.iter().all(|c| c.get_str("shard") == Ok("shard0000")),
            "{version}"
        );
        if version != "4.4" {
            let dist = admin(
                &client,
                doc! {"aggregate": 1, "pipeline": [{"$shardedDataDistribution": {}}], "cursor": {}},
            )
            .await
            .unwrap();
            let rows = dist
                .get_document("cursor")
                .unwrap()
                .get_array("firstBatch")
                .unwrap();
            assert!(
                rows.iter()
                    .any(|r| r.as_document().unwrap().get_str("ns") == Ok("config.system.sessions")),
                "{dist}"
            );
        }
    }
}

/// `balancerCollectionStatus` answers for it as for any sharded collection (a real config server
/// reads it from `config.collections` like the others): the policy over the 1,024 chunks on one
/// shard is `chunksImbalance` while chunk counts are evened (4.4, 5.0), compliant from 6.0 (data
/// size: they hold nothing), with its own `chunkSize` — 0 MB (a long) in 6.0/7.0, whose
/// `maxChunkSizeBytes / (1024 * 1024)` drops the 200,000 bytes, and 0.2 (a double, two
/// decimals rounded up) from 8.0.
#[tokio::test]
async fn balancer_collection_status_answers_for_it() {
    for (version, compliant, chunk_size) in [
        ("4.4", false, None),
        ("5.0", false, None),
        ("6.0", true, Some(bson::Bson::Int64(0))),
        ("7.0", true, Some(bson::Bson::Int64(0))),
        ("8.0", true, Some(bson::Bson::Double(0.2))),
    ] {
        let (_server, client, _) = serve_empty(version, true).await;
        let s = admin(
            &client,
            doc! {"balancerCollectionStatus": "config.system.sessions"},
        )
        .await
        .unwrap_or_else(|e| panic!("{version}: {e}"));
        assert_eq!(
            s.get_bool("balancerCompliant"),
            Ok(compliant),
            "{version}: {s}"
        );
        if compliant {
            assert!(!s.contains_key("firstComplianceViolation"), "{s}");
        } else {
            assert_eq!(s.get_str("firstComplianceViolation"), Ok("chunksImbalance"));
        }
        assert_eq!(s.get("chunkSize"), chunk_size.as_ref(), "{version}: {s}");
    }
}
