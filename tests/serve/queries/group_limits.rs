//! `$group` against a hostile client's sizes: many distinct keys answered in time, and
//! `maxTimeMS` honoured inside the stage.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use crate::common;

use bson::{Document, doc};
use common::{code_of, serve_empty};

async fn fill(client: &mongodb::Client, n: i32) {
    let c = client.database("app").collection::<Document>("c");
    let docs: Vec<Document> = (0..n).map(|i| doc! { "_id": i, "v": i % 1000 }).collect();
    for chunk in docs.chunks(10_000) {
        c.insert_many(chunk.to_vec()).await.unwrap();
    }
}

/// `$group` over 40,000 distinct keys: the groups are found by key, not by a scan of the groups
/// so far (it was quadratic: 14 s), and the stage checks `maxTimeMS` as it goes (MaxTimeMSExpired
/// 50, `DocumentSourceGroup` checking for interrupts, `db/pipeline/document_source_group.cpp`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_over_40000_keys_is_fast_and_checks_max_time_ms() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    fill(&client, 40_000).await;
    let db = client.database("app");
    let started = Instant::now();
    let reply = db
        .run_command(doc! {
            "aggregate": "c",
            "pipeline": [
                { "$group": { "_id": "$_id", "n": { "$sum": 1 }, "vs": { "$push": "$v" } } },
                { "$count": "groups" },
            ],
            "cursor": {}, "maxTimeMS": 20_000,
        })
        .await
        .unwrap();
    let took = started.elapsed();
    let first = common::first_batch(&reply);
    assert_eq!(first[0].get_i32("groups"), Ok(40_000));
    assert!(took < Duration::from_secs(8), "{took:?}");
    // A limit the stage cannot meet: MaxTimeMSExpired, within about the limit.
    let started = Instant::now();
    let e = db
        .run_command(doc! {
            "aggregate": "c",
            "pipeline": [
                { "$project": { "k": { "$ifNull": ["$missing", "$_id"] }, "v": 1 } },
                { "$group": { "_id": "$k", "all": { "$push": "$v" } } },
                { "$group": { "_id": "$all", "n": { "$sum": 1 } } },
            ],
            "cursor": {}, "maxTimeMS": 1,
        })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 50, "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}
