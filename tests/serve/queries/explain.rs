#![allow(clippy::unwrap_used)]
//! `explain` of a `find` through the real `mongodb` driver: seed 003's queries on a
//! `{customerId: 1, placedAt: 1}` collection spread over three shards (SINGLE_SHARD for an
//! equality or a range inside one chunk, SHARD_MERGE for a filter without the key's prefix), a
//! hashed key (only equality targets), an unsharded collection (its primary shard) and the
//! refusals.

use crate::common;

use bson::{Bson, DateTime, Document, doc};
use mongodb::Client;
use mongodb::error::ErrorKind;
use shardtop::model::{KeyPattern, KeyValue, ShardKey};
use shardtop::serve::{Server, empty_cluster};
use shardtop::sim::Simulator;
use shardtop::sim::ops::ShardCollectionOptions;

const NS: &str = "shop.orders";

fn at(customer: i32) -> ShardKey {
    ShardKey::from_values(vec![KeyValue::Int32(customer), KeyValue::MinKey]).unwrap()
}

/// Chunks `[MinKey, 100)` and `[200, 5000)` on shard0000, `[100, 200)` on shard0001,
/// `[5000, MaxKey)` on shard0002; a hashed `shop.users` over the three shards.
fn cluster() -> Simulator {
    let mut sim = empty_cluster(Some("8.0".parse().unwrap())).unwrap();
    sim.set_balancer(false);
    let key = KeyPattern::parse(&doc! { "customerId": 1, "placedAt": 1 }).unwrap();
    sim.shard_collection(NS, key, &ShardCollectionOptions::default())
        .unwrap();
    for c in [100, 200, 5000] {
        sim.split_at(NS, at(c)).unwrap();
    }
    for (c, to) in [(100, "shard0001"), (5000, "shard0002")] {
        let from = sim.cluster.collections[0].table.route(&at(c));
        let owner = sim.cluster.collections[0].table.chunk(from).info.shard;
        if sim.cluster.shards[owner.index()].shard.id != to {
            sim.move_chunk(NS, &at(c), None, to).unwrap();
            let until = sim.now_ms() + 600_000;
            sim.run_until(until);
        }
    }
    let hashed = KeyPattern::parse(&doc! { "username": "hashed" }).unwrap();
    sim.shard_collection("shop.users", hashed, &ShardCollectionOptions::default())
        .unwrap();
    sim
}

async fn serve() -> (Server, Client) {
    common::serve_paused(cluster()).await
}

async fn explain(client: &Client, coll: &str, filter: Document, verbosity: &str) -> Document {
    client
        .database("shop")
        .run_command(doc! {
            "explain": { "find": coll, "filter": filter },
            "verbosity": verbosity,
        })
        .await
        .unwrap()
}

/// The winning plan's stage and its shards' names.
fn targeted(e: &Document) -> (String, Vec<String>) {
    let plan = e
        .get_document("queryPlanner")
        .unwrap()
        .get_document("winningPlan")
        .unwrap();
    let shards = plan
        .get_array("shards")
        .unwrap()
        .iter()
        .map(|s| match s {
            Bson::Document(d) => d.get_str("shardName").unwrap().to_string(),
            other => panic!("{other}"),
        })
        .collect();
    (plan.get_str("stage").unwrap().to_string(), shards)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_003_queries_target_like_a_mongos() {
    let (server, client) = serve().await;
    let e = explain(
        &client,
        "orders",
        doc! { "customerId": 4242 },
        "queryPlanner",
    )
    .await;
    assert_eq!(
        targeted(&e),
        ("SINGLE_SHARD".to_string(), vec!["shard0000".to_string()])
    );
    assert!(!e.contains_key("executionStats"));
    let range = doc! { "customerId": { "$gte": 100, "$lt": 150 } };
    let e = explain(&client, "orders", range, "executionStats").await;
    assert_eq!(
        targeted(&e),
        ("SINGLE_SHARD".to_string(), vec!["shard0001".to_string()])
    );
    let stats = e.get_document("executionStats").unwrap();
    assert_eq!(stats.get_i32("nReturned").unwrap(), 0);
    assert!(!stats.contains_key("shardtop"), "every document is kept");
    let stages = stats.get_document("executionStages").unwrap();
    assert_eq!(stages.get_str("stage").unwrap(), "SINGLE_SHARD");
    let per_shard = stages.get_array("shards").unwrap();
    assert_eq!(per_shard.len(), 1);
    let since = DateTime::from_millis(1_700_000_000_000);
    let e = explain(
        &client,
        "orders",
        doc! { "placedAt": { "$gte": since } },
        "allPlansExecution",
    )
    .await;
    assert_eq!(
        targeted(&e),
        (
            "SHARD_MERGE".to_string(),
            vec!["shard0000".into(), "shard0001".into(), "shard0002".into()]
        )
    );
    let e = explain(
        &client,
        "orders",
        doc! { "customerId": { "$in": [150, 6000] } },
        "queryPlanner",
    )
    .await;
    assert_eq!(
        targeted(&e),
        (
            "SHARD_MERGE".to_string(),
            vec!["shard0001".into(), "shard0002".into()]
        )
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hashed_keys_target_on_equality_only_and_unsharded_goes_to_the_primary() {
    let (server, client) = serve().await;
    let e = explain(&client, "users", doc! { "username": "ada" }, "queryPlanner").await;
    let (stage, shards) = targeted(&e);
    assert_eq!((stage.as_str(), shards.len()), ("SINGLE_SHARD", 1));
    let e = explain(
        &client,
        "users",
        doc! { "username": { "$gt": "ada" } },
        "queryPlanner",
    )
    .await;
    let (stage, shards) = targeted(&e);
    assert_eq!((stage.as_str(), shards.len()), ("SHARD_MERGE", 3));
    let e = explain(&client, "notes", doc! { "x": 1 }, "queryPlanner").await;
    assert_eq!(targeted(&e).0, "SINGLE_SHARD");
    let e = client
        .database("shop")
        .run_command(doc! { "explain": { "count": "orders" } })
        .await
        .unwrap_err();
    match &*e.kind {
        ErrorKind::Command(c) => assert_eq!(c.code, 115, "{e}"),
        other => panic!("{other:?}"),
    }
    let e = client
        .database("shop")
        .run_command(doc! { "explain": { "find": "orders" }, "verbosity": "loud" })
        .await
        .unwrap_err();
    assert!(e.to_string().contains("verbosity"), "{e}");
    server.shutdown().await;
}

#[tokio::test]
async fn an_aggregate_is_explained_with_its_split_pipeline_and_shards() {
    let (server, client) = common::serve_paused(common::two_shards("7.0")).await;
    let db = client.database("app");
    let all = db
        .run_command(doc! {
            "explain": { "aggregate": "items", "pipeline": [
                { "$match": { "v": 1 } },
                { "$group": { "_id": "$v", "n": { "$sum": 1 } } },
            ], "cursor": {} },
            "verbosity": "queryPlanner",
        })
        .await
        .unwrap();
    assert_eq!(all.get_str("mergeType"), Ok("mongos"), "{all}");
    let split = all.get_document("splitPipeline").unwrap();
    let merger = split.get_array("mergerPart").unwrap();
    assert!(
        merger[0]
            .as_document()
            .unwrap()
            .contains_key("$mergeCursors")
    );
    let merge_group = merger[1]
        .as_document()
        .unwrap()
        .get_document("$group")
        .unwrap();
    assert_eq!(merge_group.get_bool("$doingMerge"), Ok(true));
    let shards = all.get_document("shards").unwrap();
    assert_eq!(
        shards.keys().collect::<Vec<_>>(),
        ["shard0000", "shard0001"]
    );
    let stages = shards
        .get_document("shard0000")
        .unwrap()
        .get_array("stages")
        .unwrap();
    assert!(stages[0].as_document().unwrap().contains_key("$cursor"));
    // Targeted to one shard by the shard key: no split.
    let one = db
        .run_command(doc! {
            "aggregate": "items",
            "pipeline": [{ "$match": { "k": 5 } }, { "$count": "n" }],
            "explain": true,
        })
        .await
        .unwrap();
    assert_eq!(one.get("splitPipeline"), Some(&bson::Bson::Null), "{one}");
    assert_eq!(
        one.get_document("shards")
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["shard0000"]
    );
    server.shutdown().await;
}
