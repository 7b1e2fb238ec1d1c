#![allow(clippy::unwrap_used)]
//! Documents kept by `shardtop serve`, through the real `mongodb` driver: reads (find with
//! filter, sort, projection, skip, limit and getMore; count; distinct; aggregate), updates,
//! upserts, replacements, deletes and findAndModify — each routed into the simulator, so the
//! per-shard counts follow — duplicate `_id`s, and `--max-docs`.

use crate::common;
use common::{code_of, serve_opts, two_shards};

use bson::{Bson, Document, doc};
use futures::TryStreamExt;
use mongodb::error::ErrorKind;
use mongodb::options::ReturnDocument;
use mongodb::{Client, Collection};
use shardtop::serve::{ServeOptions, Server};
use shardtop::sim::Simulator;

async fn serve_with(
    sim: Simulator,
    max_docs: Option<u64>,
    log: Option<&std::path::Path>,
) -> (Server, Client) {
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    if let Some(n) = max_docs {
        opts.max_docs = n;
    }
    opts.command_log = log.map(std::path::Path::to_path_buf);
    let (server, client, _) = serve_opts(opts).await;
    (server, client)
}

async fn serve(version: &str) -> (Server, Client, Collection<Document>) {
    let (server, client) = serve_with(two_shards(version), None, None).await;
    let items = client.database("app").collection("items");
    (server, client, items)
}

/// Per shard: (documents, bytes) from `$collStats`.
async fn per_shard(client: &Client) -> Vec<(String, i64, i64)> {
    let docs: Vec<Document> = client
        .database("app")
        .collection::<Document>("items")
        .aggregate(vec![
            doc! { "$collStats": { "storageStats": {} } },
            doc! { "$sort": { "shard": 1 } },
        ])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs.iter()
        .map(|d| {
            let s = d.get_document("storageStats").unwrap();
            (
                d.get_str("shard").unwrap().to_string(),
                int(s, "count"),
                int(s, "size"),
            )
        })
        .collect()
}

/// A number as a server appends it (`appendNumber`: int32 when it fits, else int64).
fn int(d: &Document, key: &str) -> i64 {
    match d.get(key) {
        Some(bson::Bson::Int32(n)) => i64::from(*n),
        Some(bson::Bson::Int64(n)) => *n,
        other => panic!("{key}: {other:?}"),
    }
}

fn counts(v: &[(String, i64, i64)]) -> Vec<i64> {
    v.iter().map(|(_, n, _)| *n).collect()
}

async fn all(items: &Collection<Document>, filter: Document) -> Vec<Document> {
    items
        .find(filter)
        .sort(doc! { "k": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_count_distinct_and_aggregate_read_the_kept_documents() {
    let (server, _client, items) = serve("8.0").await;
    let docs: Vec<Document> = (0..250)
        .map(|i| doc! { "k": i, "g": i % 3, "name": format!("n{i}") })
        .collect();
    items.insert_many(docs).await.unwrap();
    let found: Vec<Document> = items
        .find(doc! { "g": 1 })
        .sort(doc! { "k": -1 })
        .projection(doc! { "k": 1, "_id": 0 })
        .skip(2)
        .limit(5)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let ks = [241, 238, 235, 232, 229];
    assert_eq!(
        found,
        ks.iter().map(|k| doc! { "k": k }).collect::<Vec<_>>()
    );
    // 250 documents in batches of 20: the first batch and twelve getMores.
    let every: Vec<Document> = items
        .find(doc! {})
        .batch_size(20)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(every.len(), 250);
    assert!(
        every
            .iter()
            .all(|d| matches!(d.get("_id"), Some(Bson::ObjectId(_))))
    );
    assert_eq!(items.count_documents(doc! { "g": 0 }).await.unwrap(), 84);
    assert_eq!(
        items
            .count_documents(doc! { "k": { "$gte": 200 } })
            .await
            .unwrap(),
        50
    );
    assert_eq!(items.estimated_document_count().await.unwrap(), 250);
    let distinct = items
        .distinct("g", doc! { "k": { "$lt": 10 } })
        .await
        .unwrap();
    assert_eq!(
        distinct,
        vec![Bson::Int32(0), Bson::Int32(1), Bson::Int32(2)]
    );
    let grouped: Vec<Document> = items
        .aggregate(vec![
            doc! { "$match": { "k": { "$lt": 9 } } },
            doc! { "$group": { "_id": "$g", "n": { "$sum": 1 }, "top": { "$max": "$k" } } },
            doc! { "$sort": { "_id": 1 } },
        ])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        grouped,
        vec![
            doc! { "_id": 0, "n": 3, "top": 6 },
            doc! { "_id": 1, "n": 3, "top": 7 },
            doc! { "_id": 2, "n": 3, "top": 8 },
        ]
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_upserts_and_replacements() {
    let (server, client, items) = serve("8.0").await;
    items
        .insert_many(vec![
            doc! { "_id": 1, "k": 1, "n": 1, "tags": ["a"] },
            doc! { "_id": 2, "k": 2, "n": 1 },
            doc! { "_id": 3, "k": 300, "n": 1 },
        ])
        .await
        .unwrap();
    let r = items
        .update_one(
            doc! { "_id": 1 },
            doc! { "$inc": { "n": 5 }, "$push": { "tags": "b" }, "$unset": { "none": "" } },
        )
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (1, 1));
    let r = items
        .update_many(doc! { "n": 1 }, doc! { "$set": { "seen": true } })
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (2, 2));
    let r = items
        .update_many(doc! {}, doc! { "$set": { "seen": true } })
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (3, 1));
    let r = items
        .replace_one(doc! { "_id": 2 }, doc! { "k": 2, "replaced": "yes" })
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (1, 1));
    let r = items
        .update_one(
            doc! { "k": 50 },
            doc! { "$set": { "n": 7 }, "$setOnInsert": { "fresh": true } },
        )
        .upsert(true)
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (0, 0));
    assert!(matches!(r.upserted_id, Some(Bson::ObjectId(_))));
    let r = items
        .update_one(
            doc! { "k": 50 },
            doc! { "$set": { "n": 8 }, "$setOnInsert": { "fresh": false } },
        )
        .upsert(true)
        .await
        .unwrap();
    assert_eq!(
        (r.matched_count, r.modified_count, r.upserted_id),
        (1, 1, None)
    );
    let docs = all(&items, doc! {}).await;
    let no_ids: Vec<Document> = docs
        .into_iter()
        .map(|mut d| {
            if !matches!(d.get("_id"), Some(Bson::Int32(_))) {
                d.remove("_id");
            }
            d
        })
        .collect();
    assert_eq!(
        no_ids,
        vec![
            doc! { "_id": 1, "k": 1, "n": 6, "tags": ["a", "b"], "seen": true },
            doc! { "_id": 2, "k": 2, "replaced": "yes" },
            doc! { "k": 50, "n": 8, "fresh": true },
            doc! { "_id": 3, "k": 300, "n": 1, "seen": true },
        ]
    );
    // The upsert is a document on shard0000, counted there.
    assert_eq!(counts(&per_shard(&client).await), [3, 1]);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_take_documents_out_of_their_chunks() {
    let (server, client, items) = serve("8.0").await;
    items
        .insert_many(vec![
            doc! { "k": 1, "pad": "x".repeat(100) },
            doc! { "k": 2 },
            doc! { "k": 500 },
            doc! { "k": 600 },
        ])
        .await
        .unwrap();
    let before = per_shard(&client).await;
    assert_eq!(counts(&before), [2, 2]);
    let r = items.delete_one(doc! { "k": 1 }).await.unwrap();
    assert_eq!(r.deleted_count, 1);
    let after = per_shard(&client).await;
    assert_eq!(counts(&after), [1, 2]);
    assert!(
        after[0].2 < before[0].2 - 100,
        "its bytes left too: {after:?}"
    );
    assert_eq!(after[1], before[1]);
    let r = items.delete_one(doc! { "k": 1 }).await.unwrap();
    assert_eq!(r.deleted_count, 0);
    let r = items
        .delete_many(doc! { "k": { "$gte": 2 } })
        .await
        .unwrap();
    assert_eq!(r.deleted_count, 3);
    let empty = per_shard(&client).await;
    assert_eq!(
        empty.iter().map(|(_, n, b)| (*n, *b)).collect::<Vec<_>>(),
        [(0, 0), (0, 0)]
    );
    assert_eq!(items.estimated_document_count().await.unwrap(), 0);
    assert!(all(&items, doc! {}).await.is_empty());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_and_modify_returns_and_changes_one_document() {
    let (server, client, items) = serve("8.0").await;
    items
        .insert_many(vec![
            doc! { "_id": 1, "k": 1, "n": 1 },
            doc! { "_id": 2, "k": 2, "n": 2 },
            doc! { "_id": 3, "k": 3, "n": 3 },
        ])
        .await
        .unwrap();
    let before = items
        .find_one_and_update(doc! { "k": 2 }, doc! { "$inc": { "n": 10 } })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(before, doc! { "_id": 2, "k": 2, "n": 2 });
    let after = items
        .find_one_and_update(doc! { "k": 2 }, doc! { "$inc": { "n": 10 } })
        .return_document(ReturnDocument::After)
        .projection(doc! { "n": 1, "_id": 0 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after, doc! { "n": 22 });
    let gone = items
        .find_one_and_delete(doc! { "k": { "$lt": 50 } })
        .sort(doc! { "n": -1 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(gone.get_i32("_id").unwrap(), 2);
    let raw = client
        .database("app")
        .run_command(doc! {
            "findAndModify": "items", "query": { "k": 77 }, "update": { "$set": { "n": 0 } },
            "upsert": true, "new": true,
        })
        .await
        .unwrap();
    let last = raw.get_document("lastErrorObject").unwrap();
    assert_eq!(last.get_i32("n").unwrap(), 1);
    assert!(!last.get_bool("updatedExisting").unwrap());
    assert!(matches!(last.get("upserted"), Some(Bson::ObjectId(_))));
    assert_eq!(raw.get_document("value").unwrap().get_i32("k").unwrap(), 77);
    let raw = client
        .database("app")
        .run_command(doc! { "findAndModify": "items", "query": { "k": 9 }, "remove": true })
        .await
        .unwrap();
    assert_eq!(
        raw.get_document("lastErrorObject").unwrap(),
        &doc! { "n": 0 }
    );
    assert_eq!(raw.get("value"), Some(&Bson::Null));
    assert_eq!(counts(&per_shard(&client).await), [3, 0]);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shard_key_change_moves_the_document_between_shards() {
    let (server, client, items) = serve("8.0").await;
    items
        .insert_many(vec![
            doc! { "_id": 1, "k": 5, "v": "a" },
            doc! { "_id": 2, "k": 6 },
        ])
        .await
        .unwrap();
    assert_eq!(counts(&per_shard(&client).await), [2, 0]);
    let r = items
        .update_one(doc! { "k": 5 }, doc! { "$set": { "k": 500 } })
        .await
        .unwrap();
    assert_eq!((r.matched_count, r.modified_count), (1, 1));
    assert_eq!(counts(&per_shard(&client).await), [1, 1]);
    let moved = items.find_one(doc! { "k": 500 }).await.unwrap().unwrap();
    assert_eq!(moved, doc! { "_id": 1, "k": 500, "v": "a" });
    // A multi update may not change the shard key (the server's InvalidOptions).
    let e = items
        .update_many(doc! {}, doc! { "$inc": { "k": 1 } })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 72, "{e}");
    assert_eq!(counts(&per_shard(&client).await), [1, 1]);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_ids_are_e11000_and_not_counted() {
    let (server, client, items) = serve("8.0").await;
    items.insert_one(doc! { "_id": 7, "k": 1 }).await.unwrap();
    let e = items
        .insert_one(doc! { "_id": 7, "k": 500 })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 11000, "{e}");
    assert!(
        e.to_string()
            .contains("E11000 duplicate key error collection: app.items index: _id_"),
        "{e}"
    );
    let e = items
        .insert_many(vec![
            doc! { "_id": 8, "k": 2 },
            doc! { "_id": 7.0, "k": 3 },
            doc! { "_id": 9, "k": 4 },
        ])
        .ordered(false)
        .await
        .unwrap_err();
    let ErrorKind::InsertMany(m) = &*e.kind else {
        panic!("{e}")
    };
    let errors = m.write_errors.as_ref().unwrap();
    assert_eq!(
        (errors.len(), errors[0].index, errors[0].code),
        (1, 1, 11000)
    );
    assert_eq!(counts(&per_shard(&client).await), [3, 0]);
    // An upsert whose query names a kept _id but does not match inserts, and collides.
    let e = items
        .update_one(doc! { "_id": 7, "k": 99 }, doc! { "$set": { "x": 1 } })
        .upsert(true)
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 11000, "{e}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_max_docs_writes_are_counted_not_kept_and_reads_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cmds.jsonl");
    let (server, client) = serve_with(two_shards("8.0"), Some(5), Some(&log)).await;
    let items: Collection<Document> = client.database("app").collection("items");
    let docs: Vec<Document> = (0..8).map(|i| doc! { "k": i * 50 }).collect();
    items.insert_many(docs).await.unwrap();
    // The simulator counts every write: 0, 50 on shard0000; 100 … 350 on shard0001.
    assert_eq!(counts(&per_shard(&client).await), [2, 6]);
    assert_eq!(items.estimated_document_count().await.unwrap(), 8);
    assert_eq!(all(&items, doc! {}).await.len(), 5);
    let raw = client
        .database("app")
        .run_command(doc! { "find": "items", "filter": {} })
        .await
        .unwrap();
    let note = raw.get_str("shardtop").unwrap();
    assert!(
        note.starts_with("3 documents of app.items are counted by the simulator but not kept"),
        "{note}"
    );
    assert!(note.contains("--max-docs 5"), "{note}");
    let raw = client
        .database("app")
        .run_command(doc! { "count": "items", "query": { "k": { "$gte": 0 } } })
        .await
        .unwrap();
    assert_eq!(
        raw.get_i32("n")
            .ok()
            .map(i64::from)
            .or(raw.get_i64("n").ok()),
        Some(5)
    );
    assert!(raw.contains_key("shardtop"));
    // Deleting a kept document frees room: the next write is kept again.
    items.delete_one(doc! { "k": 0 }).await.unwrap();
    items.insert_one(doc! { "k": 1000 }).await.unwrap();
    assert_eq!(all(&items, doc! { "k": 1000 }).await.len(), 1);
    server.shutdown().await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains(
            "--max-docs 5 reached: documents written to app.items from now on are counted, not kept"
        ),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_id_is_stored_first_as_a_server_does() {
    let (server, _client, items) = serve("8.0").await;
    items
        .insert_one(doc! {"k": 5, "name": "x", "_id": 42})
        .await
        .unwrap();
    let got = items.find_one(doc! {"k": 5}).await.unwrap().unwrap();
    let keys: Vec<&str> = got.keys().map(String::as_str).collect();
    assert_eq!(keys, ["_id", "k", "name"]);
    server.shutdown().await;
}
