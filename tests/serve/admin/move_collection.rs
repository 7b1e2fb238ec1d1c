//! `moveCollection` and `unshardCollection` (8.0) through the real driver against `shardtop serve`:
//! a collection written through `serve` and never sharded moves to another shard and is tracked
//! as `unsplittable`; a sharded one is unsharded onto one shard; `$shardedDataDistribution` leaves
//! them out; the refusals carry the server's codes; 7.0 has neither command.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use bson::{Document, doc};
use common::{admin, code_of, serve_opts};
use futures::TryStreamExt;
use mongodb::Client;
use shardtop::serve::ServeOptions;
use shardtop::sim::{Simulator, scenario};

/// Two shards, `app.items` sharded on `{k: 1}`, resharding's minimum duration 200 ms.
fn cluster(version: &str) -> Simulator {
    let text = r#"{
      "name": "two", "description": "", "seedPassage": "", "shards": 2,
      "reshardingMinimumOperationDurationMillis": 200,
      "collections": [{ "ns": "app.items", "key": { "k": 1 } }],
      "until": 0
    }"#;
    let sc = scenario::parse(text).unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

async fn collection_doc(client: &Client, ns: &str) -> Option<Document> {
    common::config_collection(client, ns).await
}

/// The shards of `ns`'s chunks (config.chunks by uuid, 5.0+).
async fn chunk_shards(client: &Client, ns: &str) -> Vec<String> {
    let Some(coll) = collection_doc(client, ns).await else {
        return Vec::new();
    };
    let uuid = coll.get("uuid").unwrap().clone();
    let chunks: Vec<Document> =
        crate::common::find_all(client, "config", "chunks", doc! {"uuid": uuid}).await;
    chunks
        .iter()
        .map(|c| c.get_str("shard").unwrap().to_string())
        .collect()
}

/// Waits (up to 20 s of wall time) until `ns` is one chunk on `shard` with key `{_id: 1}`.
async fn wait_for_one_chunk(client: &Client, ns: &str, shard: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let key = collection_doc(client, ns)
            .await
            .and_then(|c| c.get_document("key").ok().cloned());
        if key == Some(doc! {"_id": 1}) && chunk_shards(client, ns).await == [shard] {
            return;
        }
        assert!(Instant::now() < deadline, "{ns} never ended on {shard}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn move_and_unshard_through_the_driver() {
    let opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), cluster("8.0"));
    let (server, client, _) = serve_opts(opts).await;
    let logs = client.database("app").collection::<Document>("logs");
    let docs: Vec<Document> = (0..50).map(|i| doc! {"_id": i, "msg": "x"}).collect();
    logs.insert_many(docs).await.unwrap();
    let items = client.database("app").collection::<Document>("items");
    let docs: Vec<Document> = (0..30).map(|i| doc! {"k": i}).collect();
    items.insert_many(docs).await.unwrap();
    assert!(
        collection_doc(&client, "app.logs").await.is_none(),
        "untracked"
    );

    admin(
        &client,
        doc! {"moveCollection": "app.logs", "toShard": "shard0001"},
    )
    .await
    .unwrap();
    let tracked = collection_doc(&client, "app.logs").await.unwrap();
    assert_eq!(tracked.get_bool("unsplittable"), Ok(true));
    wait_for_one_chunk(&client, "app.logs", "shard0001").await;
    assert_eq!(logs.count_documents(doc! {}).await.unwrap(), 50);

    let err = admin(
        &client,
        doc! {"moveCollection": "app.items", "toShard": "shard0001"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 26, "{err}");
    assert!(
        err.to_string()
            .contains("MoveCollection can only be called on an unsharded collection.")
    );
    let err = admin(
        &client,
        doc! {"moveCollection": "app.logs", "toShard": "nowhere"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 70, "ShardNotFound: {err}");
    let err = admin(&client, doc! {"moveCollection": "app.logs"})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 40414, "{err}");

    admin(
        &client,
        doc! {"unshardCollection": "app.items", "toShard": "shard0000"},
    )
    .await
    .unwrap();
    wait_for_one_chunk(&client, "app.items", "shard0000").await;
    assert_eq!(items.count_documents(doc! {}).await.unwrap(), 30);
    let err = admin(
        &client,
        doc! {"unshardCollection": "app.items", "toShard": "shard0001"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 118, "NamespaceNotSharded: {err}");

    let dist: Vec<Document> = client
        .database("admin")
        .aggregate(vec![doc! {"$shardedDataDistribution": {}}])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert!(
        dist.iter()
            .all(|d| !["app.logs", "app.items"].contains(&d.get_str("ns").unwrap())),
        "{dist:?}"
    );
    server.shutdown().await;

    let opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), cluster("7.0"));
    let (server, client, _) = serve_opts(opts).await;
    for cmd in [
        doc! {"moveCollection": "app.logs", "toShard": "shard0001"},
        doc! {"unshardCollection": "app.items"},
    ] {
        let err = admin(&client, cmd).await.unwrap_err();
        assert_eq!(code_of(&err), 59, "CommandNotFound: {err}");
    }
    server.shutdown().await;
}
