//! The per-shard chunk counts `sh.status()` asks for (`$match` on the collection, `$group` by
//! shard with `{$sum: 1}`) and a `count` of one collection's chunks are answered from the
//! routing table: the same answer as grouping the generated chunk documents, by `uuid` from
//! 5.0 and by `ns` before.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Bson, Document, doc};
use common::{admin, config_collection, serve_paused};
use futures::TryStreamExt;

fn many_chunks(version: &str) -> shardtop::sim::Simulator {
    let text = r#"{
      "name": "many", "description": "", "seedPassage": "", "shards": 3,
      "collections": [{"ns": "app.users", "key": {"u": "hashed"}, "numInitialChunks": 300}],
      "until": 0
    }"#;
    let sc = shardtop::sim::scenario::parse(text).unwrap();
    shardtop::sim::Simulator::from_scenario(&sc, 1, Some(version.parse().unwrap())).unwrap()
}

async fn aggregate(client: &mongodb::Client, pipeline: Vec<Document>) -> Vec<Document> {
    let reply = client
        .database("config")
        .run_command(
            doc! {"aggregate": "chunks", "pipeline": pipeline, "cursor": {"batchSize": 1000}},
        )
        .await
        .unwrap();
    common::first_batch(&reply)
}

async fn counts_agree(version: &str) {
    let (_server, client) = serve_paused(many_chunks(version)).await;
    let c = config_collection(&client, "app.users").await.unwrap();
    let m = if version.starts_with('4') {
        doc! {"ns": "app.users"}
    } else {
        doc! {"uuid": c.get("uuid").unwrap().clone()}
    };
    let tail = vec![
        doc! {"$project": {"_id": 0, "shard": "$_id", "nChunks": "$cnt"}},
        doc! {"$sort": {"shard": 1}},
    ];
    let mut fast = vec![
        doc! {"$match": m.clone()},
        doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
    ];
    fast.extend(tail.clone());
    // The same question with a match the fast path does not take: built from the documents.
    let mut slow_match = m.clone();
    slow_match.insert("shard", doc! {"$exists": true});
    let mut slow = vec![
        doc! {"$match": slow_match},
        doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
    ];
    slow.extend(tail);
    let (a, b) = (
        aggregate(&client, fast).await,
        aggregate(&client, slow).await,
    );
    assert_eq!(a, b);
    let total: i32 = a.iter().map(|d| d.get_i32("nChunks").unwrap()).sum();
    assert_eq!(total, 300, "{a:?}");
    let n = client
        .database("config")
        .run_command(doc! {"count": "chunks", "query": m.clone()})
        .await
        .unwrap();
    assert_eq!(n.get("n"), Some(&Bson::Int32(300)), "{n}");
    let grouped = aggregate(
        &client,
        vec![
            doc! {"$match": m.clone()},
            doc! {"$group": {"_id": 1, "n": {"$sum": 1}}},
        ],
    )
    .await;
    assert_eq!(grouped, [doc! {"_id": 1, "n": 300}]);
    // Partial documents (the fields the pipeline reads) give what `find` gives.
    let projection = doc! {"_id": 0, "min": 1, "max": 1, "shard": 1, "lastmod": 1};
    let built = aggregate(
        &client,
        vec![
            doc! {"$match": m.clone()},
            doc! {"$project": projection.clone()},
        ],
    )
    .await;
    let found: Vec<Document> = client
        .database("config")
        .collection::<Document>("chunks")
        .find(m.clone())
        .projection(projection)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(built.len(), 300);
    assert_eq!(built, found);
    let none = admin(&client, doc! {"ping": 1}).await.unwrap();
    assert_eq!(none.get_f64("ok"), Ok(1.0));
}

#[tokio::test]
async fn chunk_counts_by_uuid_match_the_documents() {
    counts_agree("7.0").await;
}

#[tokio::test]
async fn chunk_counts_by_ns_match_the_documents() {
    counts_agree("4.4").await;
}
