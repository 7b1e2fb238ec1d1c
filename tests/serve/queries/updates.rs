#![allow(clippy::unwrap_used)]
//! `update`, `delete` and `findAndModify` through the real `mongodb` driver on a scenario that
//! keeps its documents' key fields (`keepDocuments`): a shard-key update moves the document to
//! the chunk (and shard) of its new key, other updates and deletes change what is kept, an
//! upsert with the whole shard key inserts; writes to the generated config database are refused.

use crate::common;
use common::code_of;
use common::serve_paused as serve;

use bson::{Bson, Document, doc};
use futures::TryStreamExt;
use mongodb::options::ReturnDocument;
use mongodb::{Client, Collection};
use shardtop::serve::empty_cluster;
use shardtop::sim::Simulator;

/// Two shards; `shop.orders` on `{customerId: 1}` split at 1000 (`[MinKey, 1000)` on shard0000,
/// `[1000, MaxKey)` on shard0001), keeping its documents' `customerId` and `region`.
const KEPT: &str = r#"{
  "name": "kept", "description": "", "seedPassage": "", "shards": 2,
  "collections": [{
    "ns": "shop.orders", "key": { "customerId": 1 }, "keepDocuments": true,
    "initialLayout": { "splitPoints": [{ "customerId": 1000 }], "shards": ["shard0000", "shard0001"] }
  }],
  "workloads": [{
    "ns": "shop.orders", "rate": 1, "count": 1, "start": 100000, "docSize": 100,
    "fields": { "customerId": { "const": 1 }, "region": { "const": "eu" } }
  }],
  "until": 0
}"#;

/// Owned documents per shard, from `$shardedDataDistribution`.
async fn owned(client: &Client) -> Vec<(String, i64)> {
    let docs: Vec<Document> = client
        .database("admin")
        .aggregate(vec![doc! { "$shardedDataDistribution": {} }])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut out = Vec::new();
    let row = docs
        .iter()
        .find(|d| d.get_str("ns") != Ok("config.system.sessions"))
        .unwrap();
    for s in row.get_array("shards").unwrap() {
        let Bson::Document(s) = s else { panic!() };
        out.push((
            s.get_str("shardName").unwrap().to_string(),
            i64::from(s.get_i32("numOwnedDocuments").unwrap()),
        ));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shard_key_update_moves_a_kept_document_to_its_new_shard() {
    let sc = shardtop::sim::scenario::parse(KEPT).unwrap();
    let sim = Simulator::from_scenario(&sc, sc.seed, Some("8.0".parse().unwrap())).unwrap();
    let (server, client) = serve(sim).await;
    let orders: Collection<Document> = client.database("shop").collection("orders");
    orders
        .insert_many(vec![
            doc! { "customerId": 10, "region": "eu" },
            doc! { "customerId": 20, "region": "us" },
        ])
        .await
        .unwrap();
    assert_eq!(
        owned(&client).await,
        [("shard0000".into(), 2), ("shard0001".into(), 0)]
    );
    let r = orders
        .update_one(
            doc! { "customerId": 10 },
            doc! { "$set": { "customerId": 2000 } },
        )
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (1, 1));
    assert_eq!(
        owned(&client).await,
        [("shard0000".into(), 1), ("shard0001".into(), 1)]
    );
    let r = orders
        .update_one(
            doc! { "customerId": 999 },
            doc! { "$set": { "customerId": 5 } },
        )
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (0, 0));
    let r = orders
        .update_one(
            doc! { "customerId": 20 },
            doc! { "$set": { "customerId": 20 } },
        )
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (1, 0));
    let r = orders
        .update_one(doc! { "customerId": 20 }, doc! { "$set": { "note": "x" } })
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (1, 1));
    let r = orders
        .update_one(
            doc! { "customerId": 3000 },
            doc! { "$set": { "region": "ap" } },
        )
        .upsert(true)
        .await
        .unwrap();
    assert!(r.upserted_id.is_some());
    assert_eq!(
        owned(&client).await,
        [("shard0000".into(), 1), ("shard0001".into(), 2)]
    );
    let d = orders
        .find_one_and_update(
            doc! { "customerId": 20 },
            doc! { "$set": { "customerId": 3 } },
        )
        .return_document(ReturnDocument::After)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(d.get_i32("customerId").unwrap(), 3);
    assert_eq!(d.get_str("note").unwrap(), "x");
    let r = orders.delete_one(doc! { "customerId": 3 }).await.unwrap();
    assert_eq!(r.deleted_count, 1);
    assert_eq!(
        owned(&client).await,
        [("shard0000".into(), 0), ("shard0001".into(), 2)]
    );
    assert_eq!(orders.count_documents(doc! {}).await.unwrap(), 2);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_config_database_is_not_written() {
    let (server, client) = serve(empty_cluster(Some("7.0".parse().unwrap())).unwrap()).await;
    let chunks = client.database("config").collection::<Document>("chunks");
    let e = chunks
        .update_one(doc! {}, doc! { "$set": { "jumbo": true } })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 13, "{e}");
    let e = chunks.delete_many(doc! {}).await.unwrap_err();
    assert_eq!(code_of(&e), 13, "{e}");
    server.shutdown().await;
}
