#![allow(clippy::unwrap_used)]
//! Kept documents seen from the side, through the real `mongodb` driver: explain's per-shard
//! counts, change-stream update/replace/delete events with their `documentKey`, and a mongos'
//! rules for single-document writes on a sharded collection before and from 7.0.

use crate::common;
use common::{code_of, serve_paused, two_shards};

use std::time::Duration;

use bson::{Bson, Document, doc};
use futures::StreamExt;
use mongodb::change_stream::ChangeStream;
use mongodb::change_stream::event::{ChangeStreamEvent, OperationType};
use mongodb::options::FullDocumentType;
use mongodb::{Client, Collection};
use shardtop::serve::Server;

async fn serve(version: &str) -> (Server, Client, Collection<Document>) {
    let (server, client) = serve_paused(two_shards(version)).await;
    let items = client.database("app").collection("items");
    (server, client, items)
}

/// Per shard of `executionStats`: (shardName, nReturned, totalDocsExamined, totalKeysExamined).
async fn explained(client: &Client, filter: Document) -> (i64, Vec<(String, i64, i64, i64)>) {
    let e = client
        .database("app")
        .run_command(doc! {
            "explain": { "find": "items", "filter": filter },
            "verbosity": "executionStats",
        })
        .await
        .unwrap();
    let stats = e.get_document("executionStats").unwrap();
    let shards = stats
        .get_document("executionStages")
        .unwrap()
        .get_array("shards")
        .unwrap()
        .iter()
        .map(|s| {
            let s = s.as_document().unwrap();
            (
                s.get_str("shardName").unwrap().to_string(),
                i64::from(s.get_i32("nReturned").unwrap()),
                i64::from(s.get_i32("totalDocsExamined").unwrap()),
                i64::from(s.get_i32("totalKeysExamined").unwrap()),
            )
        })
        .collect();
    (i64::from(stats.get_i32("nReturned").unwrap()), shards)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_counts_the_documents_on_each_shard() {
    let (server, client, items) = serve("8.0").await;
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! { "k": i * 10, "even": i % 2 == 0 })
        .collect();
    items.insert_many(docs).await.unwrap();
    // k = 0 … 90 on shard0000, 100 … 190 on shard0001.
    let (n, shards) = explained(&client, doc! { "even": true }).await;
    assert_eq!(n, 10);
    assert_eq!(
        shards,
        vec![
            ("shard0000".into(), 5, 10, 0),
            ("shard0001".into(), 5, 10, 0),
        ]
    );
    let (n, shards) = explained(&client, doc! { "k": { "$gte": 150 }, "even": true }).await;
    // k = 150 … 190 scanned on the index; 160 and 180 are even.
    assert_eq!(n, 2);
    assert_eq!(shards, vec![("shard0001".into(), 2, 5, 5)]);
    let (n, shards) = explained(&client, doc! { "k": { "$in": [20, 120, 125] } }).await;
    assert_eq!(n, 2);
    assert_eq!(
        shards,
        vec![("shard0000".into(), 1, 1, 1), ("shard0001".into(), 1, 1, 1)]
    );
    server.shutdown().await;
}

async fn next_events(
    cs: &mut ChangeStream<ChangeStreamEvent<Document>>,
    n: usize,
) -> Vec<ChangeStreamEvent<Document>> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while out.len() < n {
        let next = tokio::time::timeout_at(deadline, cs.next())
            .await
            .unwrap_or_else(|_| panic!("only {} of {n} events before the deadline", out.len()));
        out.push(next.unwrap().unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_streams_see_updates_replaces_and_deletes() {
    let (server, _client, items) = serve("8.0").await;
    let mut cs = items
        .watch()
        .full_document(FullDocumentType::UpdateLookup)
        .await
        .unwrap();
    items
        .insert_one(doc! { "_id": 1, "k": 5, "a": 1, "b": 2 })
        .await
        .unwrap();
    items
        .update_one(
            doc! { "k": 5 },
            doc! { "$set": { "a": 10 }, "$unset": { "b": "" } },
        )
        .await
        .unwrap();
    items
        .replace_one(doc! { "k": 5 }, doc! { "k": 5, "c": 3 })
        .await
        .unwrap();
    items.delete_one(doc! { "k": 5 }).await.unwrap();
    let events = next_events(&mut cs, 4).await;
    let kinds: Vec<OperationType> = events.iter().map(|e| e.operation_type.clone()).collect();
    assert_eq!(
        kinds,
        [
            OperationType::Insert,
            OperationType::Update,
            OperationType::Replace,
            OperationType::Delete
        ]
    );
    for e in &events {
        assert_eq!(e.document_key.as_ref().unwrap(), &doc! { "k": 5, "_id": 1 });
    }
    let update = events[1].update_description.as_ref().unwrap();
    assert_eq!(update.updated_fields, doc! { "a": 10 });
    assert_eq!(update.removed_fields, vec!["b".to_string()]);
    // updateLookup reads the document as kept when the event is read: deleted by then.
    assert_eq!(events[1].full_document, None);
    assert_eq!(
        events[2].full_document.as_ref().unwrap(),
        &doc! { "_id": 1, "k": 5, "c": 3 }
    );
    assert_eq!(events[3].full_document, None);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_document_writes_follow_the_versions_rules() {
    for version in ["6.0", "7.0"] {
        let (server, client, items) = serve(version).await;
        items
            .insert_many(vec![
                doc! { "_id": 1, "k": 1, "g": "x" },
                doc! { "_id": 2, "k": 200, "g": "x" },
            ])
            .await
            .unwrap();
        let old = version == "6.0";
        let update = items
            .update_one(doc! { "g": "x" }, doc! { "$set": { "s": 1 } })
            .await;
        let delete = items.delete_one(doc! { "g": "y" }).await;
        let fam = items
            .find_one_and_update(doc! { "g": "x" }, doc! { "$set": { "t": 1 } })
            .await;
        let key_change = items
            .update_one(doc! { "_id": 1 }, doc! { "$set": { "k": 300 } })
            .await;
        if old {
            assert_eq!(code_of(&update.unwrap_err()), 72);
            assert_eq!(code_of(&delete.unwrap_err()), 61);
            assert_eq!(code_of(&fam.unwrap_err()), 61);
            assert_eq!(code_of(&key_change.unwrap_err()), 31025);
        } else {
            assert_eq!(update.unwrap().modified_count, 1);
            assert_eq!(delete.unwrap().deleted_count, 0);
            assert!(fam.unwrap().is_some());
            assert_eq!(key_change.unwrap().modified_count, 1);
        }
        // Targeted by _id, or by the shard key onto one shard: always accepted.
        let r = items
            .update_one(doc! { "_id": 2 }, doc! { "$set": { "s": 2 } })
            .await
            .unwrap();
        assert_eq!(r.modified_count, 1);
        let r = items
            .update_one(doc! { "k": { "$gte": 100 } }, doc! { "$set": { "s": 3 } })
            .await
            .unwrap();
        assert_eq!(r.matched_count, 1);
        // An upsert must name the whole shard key, whatever the version.
        let e = items
            .update_one(doc! { "g": "z" }, doc! { "$set": { "s": 1 } })
            .upsert(true)
            .await
            .unwrap_err();
        assert_eq!(code_of(&e), 61);
        let raw = client
            .database("app")
            .run_command(doc! { "count": "items" })
            .await
            .unwrap();
        assert!(!raw.contains_key("shardtop"), "{raw}");
        assert!(
            matches!(raw.get("n"), Some(Bson::Int32(2) | Bson::Int64(2))),
            "{raw}"
        );
        server.shutdown().await;
    }
}
