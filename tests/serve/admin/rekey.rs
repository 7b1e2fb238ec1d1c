//! Changing the key of a collection built through `serve` (issue 16's first recipe): refine and
//! reshard work on its kept documents, an empty collection included, through the real driver.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use bson::{Document, doc};
use common::{admin, config_collection, serve_opts};
use shardtop::serve::ServeOptions;
use shardtop::sim::{Simulator, scenario};

/// Two shards, nothing sharded, resharding's minimum duration 200 ms.
fn cluster() -> Simulator {
    let text = r#"{
      "name": "two", "description": "", "seedPassage": "", "shards": 2,
      "reshardingMinimumOperationDurationMillis": 200,
      "collections": [], "until": 0
    }"#;
    let sc = scenario::parse(text).unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some("8.0".parse().unwrap())).unwrap()
}

async fn wait_for_key(client: &mongodb::Client, ns: &str, key: Document) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = config_collection(client, ns)
            .await
            .and_then(|c| c.get_document("key").ok().cloned());
        if now.as_ref() == Some(&key) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{ns} never got key {key}: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn refine_and_reshard_a_collection_built_through_serve() {
    let opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), cluster());
    let (server, client, _) = serve_opts(opts).await;
    admin(
        &client,
        doc! {"shardCollection": "app.items", "key": {"k": 1}},
    )
    .await
    .unwrap();
    let items = client.database("app").collection::<Document>("items");
    let docs: Vec<Document> = (0..60).map(|i| doc! {"k": i, "g": i % 3}).collect();
    items.insert_many(docs).await.unwrap();
    client
        .database("app")
        .run_command(doc! {"createIndexes": "items", "indexes": [{"key": {"k": 1, "g": 1}, "name": "k_1_g_1"}]})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"refineCollectionShardKey": "app.items", "key": {"k": 1, "g": 1}},
    )
    .await
    .unwrap();
    wait_for_key(&client, "app.items", doc! {"k": 1, "g": 1}).await;

    admin(
        &client,
        doc! {"reshardCollection": "app.items", "key": {"g": 1}},
    )
    .await
    .unwrap();
    wait_for_key(&client, "app.items", doc! {"g": 1}).await;
    assert_eq!(items.count_documents(doc! {}).await.unwrap(), 60);
    assert_eq!(items.count_documents(doc! {"g": 2}).await.unwrap(), 20);

    admin(
        &client,
        doc! {"shardCollection": "app.empty", "key": {"a": 1}},
    )
    .await
    .unwrap();
    admin(
        &client,
        doc! {"reshardCollection": "app.empty", "key": {"b": 1}},
    )
    .await
    .unwrap();
    wait_for_key(&client, "app.empty", doc! {"b": 1}).await;
    server.shutdown().await;
}

/// Seed 003's refusals, word for word (9.0.2 output).
#[tokio::test]
async fn refine_refusals_are_worded_as_the_server_words_them() {
    let opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), cluster());
    let (server, client, _) = serve_opts(opts).await;
    admin(
        &client,
        doc! {"shardCollection": "app.logs", "key": {"ts": 1, "level": 1}},
    )
    .await
    .unwrap();
    let err = admin(
        &client,
        doc! {"refineCollectionShardKey": "app.logs", "key": {"level": 1, "ts": 1}},
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string().contains(
            "refineCollectionShardKey shard key { level: 1, ts: 1 } does not extend the current shard key { ts: 1, level: 1 }"
        ),
        "{err}"
    );
    assert_eq!(common::code_of(&err), 72);
    let err = admin(
        &client,
        doc! {"refineCollectionShardKey": "app.logs", "key": {"ts": 1, "level": 1, "x": 1}},
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string().contains(
            "Please create an index that starts with the proposed shard key before refining the collection's shard key."
        ),
        "{err}"
    );
    server.shutdown().await;
}
