//! A stall on a real cluster's documents: the 8.0.32 cluster whose `moveRange` back onto the
//! shard still holding that range's orphans failed (its author published the error, the
//! fixtures' `real-config/commands-8.0.ejson.txt`), with three such failures in its changelog
//! the way 8.0 logs them — a `moveChunk.error` (`min`, `max`, `from`, `to`;
//! `migration_source_manager.cpp`) and the donor's aborted `moveChunk.from` with the `errmsg`
//! (`move_timing_helper.cpp`), the donor's words being the published mongos error without the
//! mongos's "Command request failed on source shard. :: caused by :: " (shaped entries around
//! the real text). `watch --once --json` says the collection is stalled, names the cause in
//! MongoDB's words and in plain words, lists each failure, and gives no estimate.

use std::path::Path;

use bson::doc;
use serde_json::Value;

use super::real_mongos::{ClusterFile, start};

/// The donor's words of the published error.
const ERRMSG: &str = "Data transfer error: migrate failed: ExceededTimeLimit: Migration failed \
                      because the orphans cleanup routine didn't clear yet a portion of the range \
                      being migrated that was previously owned by the recipient shard.";

fn stalled_cluster() -> ClusterFile {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clusters");
    let mut file = ClusterFile::load(&dir.join("8.0.32-realrock.json"));
    let now = bson::DateTime::now().timestamp_millis();
    let log = file.config.get_mut("changelog").unwrap();
    for (k, ago) in [90_000_i64, 60_000, 30_000].into_iter().enumerate() {
        let at = |ms: i64| bson::DateTime::from_millis(now - ago + ms);
        let range = doc! {"min": {"customerId": bson::Bson::MinKey}, "max": {"customerId": 3784}};
        let mut error = range.clone();
        error.insert("from", "sh2");
        error.insert("to", "sh1");
        log.push(
            doc! {"_id": format!("stall-{k}-error"), "what": "moveChunk.error",
            "ns": "shop.orders", "time": at(0), "details": error.clone()},
        );
        let mut from = doc! {"step 1 of 6": 0, "step 2 of 6": 3, "step 3 of 6": 10_012};
        from.extend(error);
        from.insert("note", "aborted");
        from.insert("errmsg", ERRMSG);
        log.push(
            doc! {"_id": format!("stall-{k}-from"), "what": "moveChunk.from",
            "ns": "shop.orders", "time": at(5), "details": from},
        );
    }
    file
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_back_onto_the_orphans_of_a_real_cluster_is_stalled_with_its_cause() {
    let mongos = start(stalled_cluster()).await;
    let out = super::helpers::watch_once_json(&mongos.uri).await;
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let orders = (v["collections"].as_array().unwrap().iter())
        .find(|c| c["ns"] == "shop.orders")
        .unwrap();
    let d = &orders["diagnosis"];
    assert_eq!(d["status"], "stalled", "{d}");
    assert_eq!(d["cause"]["rule"], "rangeDeletionPending", "{d}");
    assert_eq!(
        d["cause"]["message"], ERRMSG,
        "the server's words, whole: {d}"
    );
    assert!(
        d["cause"]["plain"]
            .as_str()
            .unwrap()
            .contains("range deleter"),
        "{d}"
    );
    let events = d["cause"]["events"].as_array().unwrap();
    assert_eq!(
        events.len(),
        3,
        "one per failed migration, not per entry: {d}"
    );
    assert!(
        events
            .iter()
            .all(|e| e["text"].as_str().unwrap().contains(ERRMSG)),
        "{d}"
    );
    assert!(
        d["eta"]["at"].is_null() && d["eta"]["basis"] == "unknown",
        "{d}"
    );
    assert!(d["eta"]["why"].as_str().unwrap().contains("stalled"), "{d}");
}
