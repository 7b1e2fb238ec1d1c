#![allow(clippy::unwrap_used)]
//! `configureCollectionBalancing` and `moveRange` with one bound through the real driver against
//! `shardtop serve`: the collection document shows the settings, `balancerCollectionStatus`
//! reports the collection's chunk size, the live source reads them back, and refusals carry
//! MongoDB's codes.

use crate::common;
use common::{admin, code_of, serve_empty};

use std::time::Duration;

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::Client;

async fn collection_doc(client: &Client, ns: &str) -> Document {
    common::config_collection(client, ns).await.unwrap()
}

/// The chunks of the test's collection (not `config.system.sessions`'s), by `min`.
async fn chunks(client: &Client) -> Vec<Document> {
    let sessions = common::sessions_chunk_test(client).await;
    let all: Vec<Document> = client
        .database("config")
        .collection::<Document>("chunks")
        .find(doc! {})
        .sort(doc! {"min": 1})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    all.into_iter().filter(|d| !sessions(d)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configure_collection_balancing_is_shown_and_read_back() {
    // Paused: the defragmentation's phase is read twice and must not move on in between.
    let (server, client, uri) = serve_empty("7.0", true).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"x": 1}})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"configureCollectionBalancing": "app.c", "chunkSize": 256, "enableAutoMerger": false},
    )
    .await
    .unwrap();
    let coll = collection_doc(&client, "app.c").await;
    assert_eq!(coll.get_i64("maxChunkSizeBytes").unwrap(), 256 << 20);
    assert_eq!(coll.get_bool("enableAutoMerge"), Ok(false));
    let status = admin(&client, doc! {"balancerCollectionStatus": "app.c"})
        .await
        .unwrap();
    assert_eq!(status.get_i64("chunkSize").unwrap(), 256);
    // The live source reads the collection's own chunk size.
    let polled = shardtop::live::poller::poll_once(&uri, Duration::from_secs(5))
        .await
        .unwrap();
    let c = polled.state.collection_index("app.c").unwrap();
    assert_eq!(polled.state.chunk_size_of(c), 256 << 20);
    // chunkSize 0 goes back to the cluster's.
    admin(
        &client,
        doc! {"configureCollectionBalancing": "app.c", "chunkSize": 0},
    )
    .await
    .unwrap();
    let coll = collection_doc(&client, "app.c").await;
    assert!(coll.get("maxChunkSizeBytes").is_none());
    admin(
        &client,
        doc! {"configureCollectionBalancing": "app.c", "defragmentCollection": true},
    )
    .await
    .unwrap();
    let coll = collection_doc(&client, "app.c").await;
    assert_eq!(coll.get_bool("defragmentCollection"), Ok(true));
    assert_eq!(
        coll.get_str("defragmentationPhase"),
        Ok("mergeAndMeasureChunks")
    );
    let status = admin(&client, doc! {"balancerCollectionStatus": "app.c"})
        .await
        .unwrap();
    assert_eq!(status.get_bool("balancerCompliant"), Ok(false));
    assert_eq!(
        status.get_str("firstComplianceViolation"),
        Ok("defragmentingChunks")
    );
    let details = status.get_document("details").unwrap();
    assert_eq!(details.get_str("currentPhase"), Ok("mergeAndMeasureChunks"));
    let progress = details.get_document("progress").unwrap();
    assert!(matches!(
        progress.get("remainingChunksToProcess"),
        Some(bson::Bson::Int64(n)) if *n >= 1
    ));
    server.shutdown().await;

    let (server, client, _) = serve_empty("4.4", false).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"x": 1}})
        .await
        .unwrap();
    let err = admin(
        &client,
        doc! {"configureCollectionBalancing": "app.c", "chunkSize": 256},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 59);
    let err = admin(
        &client,
        doc! {"moveRange": "app.c", "min": {"x": 0}, "toShard": "shard01"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 59);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_range_with_only_max_through_the_driver() {
    let (server, client, _) = serve_empty("8.0", false).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"x": 1}})
        .await
        .unwrap();
    admin(&client, doc! {"split": "app.c", "middle": {"x": 100}})
        .await
        .unwrap();
    let before = chunks(&client).await;
    let owner = before[0].get_str("shard").unwrap().to_string();
    let shards: Vec<Document> = crate::common::find_all(&client, "config", "shards", doc! {}).await;
    let other = shards
        .iter()
        .map(|s| s.get_str("_id").unwrap())
        .find(|s| *s != owner)
        .unwrap()
        .to_string();
    // max 100 is the end of the first chunk: the range is that chunk (it holds no data).
    admin(
        &client,
        doc! {"moveRange": "app.c", "max": {"x": 100}, "toShard": &other},
    )
    .await
    .unwrap();
    let mut moved = false;
    for _ in 0..100 {
        let now = chunks(&client).await;
        if now[0].get_str("shard").unwrap() == other {
            moved = true;
            assert_eq!(now.len(), 2);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(moved, "the range [MinKey, 100) reached {other}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_in_flight_carries_the_collection_chunk_size_and_move_chunk_answers_when_done()
{
    let (server, client, _) = serve_empty("7.0", false).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"x": 1}})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"configureCollectionBalancing": "app.c", "chunkSize": 64},
    )
    .await
    .unwrap();
    let owner = chunks(&client).await[0]
        .get_str("shard")
        .unwrap()
        .to_string();
    let to = if owner == "shard0000" {
        "shard0001"
    } else {
        "shard0000"
    };
    // moveChunk answers once the migration has committed; meanwhile another client sees it.
    let mover = client.clone();
    let target = to.to_string();
    let moving = tokio::spawn(async move {
        admin(
            &mover,
            doc! {"moveChunk": "app.c", "find": {"x": 1}, "to": target},
        )
        .await
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let ops = loop {
        let ops: Vec<Document> = client
            .database("admin")
            .aggregate(vec![
                doc! {"$currentOp": {"allUsers": true, "localOps": false}},
            ])
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        if !ops.is_empty() {
            break ops;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the migration never showed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let cmd = ops[0].get_document("command").unwrap();
    assert_eq!(cmd.get_i64("maxChunkSizeBytes").unwrap(), 64 << 20);
    let reply = moving.await.unwrap().unwrap();
    assert!(reply.get_i32("millis").unwrap() >= 1000, "{reply}");
    assert_eq!(
        chunks(&client).await[0].get_str("shard").unwrap(),
        to,
        "committed before the answer"
    );
    server.shutdown().await;
}

/// The book's manual loop: with the clock paused each `moveChunk` runs virtual time forward
/// until its migration commits, so the next one starts from a quiet cluster.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_move_chunks_run_to_their_commit_one_after_another() {
    let (server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"x": 1}})
        .await
        .unwrap();
    for x in [10, 20, 30] {
        admin(&client, doc! {"split": "app.c", "middle": {"x": x}})
            .await
            .unwrap();
    }
    for (x, to) in [(10, "shard0001"), (20, "shard0002"), (30, "shard0001")] {
        let reply = admin(
            &client,
            doc! {"moveChunk": "app.c", "find": {"x": x}, "to": to},
        )
        .await
        .unwrap();
        assert!(reply.get_i32("millis").unwrap() >= 1000, "{reply}");
    }
    let owners: Vec<String> = chunks(&client)
        .await
        .iter()
        .map(|c| c.get_str("shard").unwrap().to_string())
        .collect();
    assert_eq!(owners[1..], ["shard0001", "shard0002", "shard0001"]);
    server.shutdown().await;
}
