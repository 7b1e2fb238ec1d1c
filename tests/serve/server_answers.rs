//! Fields and commands a mongos answers (issue 50), through the Rust driver: `hello`'s
//! `topologyVersion` and the awaitable hello's wait, `serverStatus`'s `connections` and
//! `sharding`, `dbStats` with `raw` per shard, `estimatedDocumentCount` counting orphans, 4.4's
//! refusal of `$`-prefixed field names, 8.0's `bulkWrite`. (300 connections at once: in
//! `tests/model/wire.rs`, away from the soak this program runs.)

use crate::common;
use common::{admin, code_of, serve_empty, serve_paused, two_shards};

use std::time::{Duration, Instant};

use bson::{Bson, Document, doc};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_has_a_topology_version_and_an_awaitable_hello_waits_alone() {
    let (server, client) = serve_paused(two_shards("4.4")).await;
    let hello = admin(&client, doc! { "hello": 1 }).await.unwrap();
    let tv = hello.get_document("topologyVersion").unwrap().clone();
    assert!(
        matches!(tv.get("processId"), Some(Bson::ObjectId(_))),
        "{tv}"
    );
    assert_eq!(tv.get("counter"), Some(&Bson::Int64(0)));
    let keys: Vec<&str> = hello.keys().take(3).map(String::as_str).collect();
    assert_eq!(keys, ["isWritablePrimary", "msg", "topologyVersion"]);

    // The awaitable hello on this process's version waits maxAwaitTimeMS; a ping on another
    // connection is answered meanwhile.
    let waiting = {
        let client = client.clone();
        let tv = tv.clone();
        tokio::spawn(async move {
            let at = Instant::now();
            admin(
                &client,
                doc! { "hello": 1, "topologyVersion": tv, "maxAwaitTimeMS": 600 },
            )
            .await
            .unwrap();
            at.elapsed()
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let at = Instant::now();
    admin(&client, doc! { "ping": 1 }).await.unwrap();
    assert!(
        at.elapsed() < Duration::from_millis(300),
        "{:?}",
        at.elapsed()
    );
    let waited = waiting.await.unwrap();
    assert!(waited >= Duration::from_millis(600), "{waited:?}");
    // Another process's version is answered at once.
    let other = doc! { "processId": bson::oid::ObjectId::new(), "counter": 0_i64 };
    let at = Instant::now();
    admin(
        &client,
        doc! { "hello": 1, "topologyVersion": other, "maxAwaitTimeMS": 5000 },
    )
    .await
    .unwrap();
    assert!(at.elapsed() < Duration::from_secs(1));
    let e = admin(&client, doc! { "hello": 1, "maxAwaitTimeMS": 10 })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 51760, "{e}");
    let mut ahead = tv.clone();
    ahead.insert("counter", 5_i64);
    let e = admin(
        &client,
        doc! { "hello": 1, "topologyVersion": ahead, "maxAwaitTimeMS": 10 },
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 51761, "{e}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_status_db_stats_and_dollar_fields() {
    let (server, client) = serve_paused(two_shards("4.4")).await;
    let items = client.database("app").collection::<Document>("items");
    items
        .insert_many((0..200).map(|i| doc! { "k": i, "pad": "x".repeat(50) }))
        .await
        .unwrap();
    let status = admin(&client, doc! { "serverStatus": 1 }).await.unwrap();
    let conns = status.get_document("connections").unwrap();
    for f in ["current", "available", "totalCreated", "active"] {
        assert!(matches!(conns.get(f), Some(Bson::Int32(_))), "{f}: {conns}");
    }
    assert!(conns.get_i32("current").unwrap() >= 1);
    let sharding = status.get_document("sharding").unwrap();
    assert!(
        sharding
            .get_str("configsvrConnectionString")
            .unwrap()
            .contains('/')
    );
    assert!(
        sharding
            .get_document("lastSeenConfigServerOpTime")
            .unwrap()
            .get_timestamp("ts")
            .is_ok()
    );
    assert_eq!(sharding.get_i64("maxChunkSizeInBytes"), Ok(64 << 20));

    let stats = client
        .database("app")
        .run_command(doc! { "dbStats": 1 })
        .await
        .unwrap();
    let raw = stats.get_document("raw").unwrap();
    assert_eq!(raw.len(), 2, "{raw}");
    let per_shard: Vec<i32> = raw
        .values()
        .map(|r| r.as_document().unwrap().get_i32("objects").unwrap())
        .collect();
    assert_eq!(per_shard, vec![100, 100]);
    assert_eq!(stats.get_i32("objects"), Ok(200));
    assert_eq!(
        stats.get_i32("collections"),
        Ok(2),
        "a collection per shard that holds it"
    );
    assert!(stats.get_f64("avgObjSize").unwrap() > 50.0);
    let scaled = client
        .database("app")
        .run_command(doc! { "dbStats": 1, "scale": 1024 })
        .await
        .unwrap();
    assert_eq!(scaled.get_i32("scaleFactor"), Ok(1024));
    assert!(scaled.get_i32("dataSize").unwrap() < stats.get_i32("dataSize").unwrap());
    let e = client
        .database("app")
        .run_command(doc! { "dbStats": 1, "scale": 0 })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 51024);

    // 4.4 refuses `$`-prefixed field names in inserts.
    let e = items
        .insert_one(doc! { "k": 1, "$price": 3 })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 2, "{e}");
    assert!(
        e.to_string()
            .contains("Document can't have $ prefixed field names: $price"),
        "{e}"
    );
    server.shutdown().await;

    let (server, client) = serve_paused(two_shards("5.0")).await;
    let items = client.database("app").collection::<Document>("items");
    items
        .insert_one(doc! { "k": 1, "$price": 3 })
        .await
        .unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn estimated_document_count_includes_orphans() {
    let (server, client, _) = serve_empty("8.0", false).await;
    admin(
        &client,
        doc! { "shardCollection": "app.c", "key": { "k": 1 } },
    )
    .await
    .unwrap();
    let c = client.database("app").collection::<Document>("c");
    c.insert_many((0..50).map(|i| doc! { "k": i }))
        .await
        .unwrap();
    admin(
        &client,
        doc! { "moveChunk": "app.c", "find": { "k": 1 }, "to": "shard0001" },
    )
    .await
    .unwrap();
    // The donor keeps its copy for orphanCleanupDelaySecs (900 s): a fast count sees both.
    assert_eq!(c.estimated_document_count().await.unwrap(), 100);
    assert_eq!(c.count_documents(doc! {}).await.unwrap(), 50);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_write_answers_a_cursor_of_results_from_8_0() {
    let (server, client) = serve_paused(two_shards("8.0")).await;
    let cmd = doc! {
        "bulkWrite": 1,
        "ops": [
            { "insert": 0, "document": { "_id": 1, "k": 1 } },
            { "insert": 1, "document": { "_id": 1, "name": "a" } },
            { "update": 0, "filter": { "k": 1 }, "updateMods": { "$set": { "v": 2 } } },
            { "update": 1, "filter": { "_id": 9 }, "updateMods": { "$set": { "v": 3 } }, "upsert": true },
            { "insert": 0, "document": { "_id": 1, "k": 1 } },
            { "delete": 1, "filter": { "_id": 1 }, "multi": false },
        ],
        "nsInfo": [{ "ns": "app.items" }, { "ns": "app.other" }],
        "ordered": false,
    };
    let r = admin(&client, cmd.clone()).await.unwrap();
    let items = r
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap();
    assert_eq!(items.len(), 6);
    assert_eq!(
        items[0].as_document().unwrap(),
        &doc! { "ok": 1.0, "idx": 0, "n": 1 }
    );
    assert_eq!(
        items[2].as_document().unwrap(),
        &doc! { "ok": 1.0, "idx": 2, "n": 1, "nModified": 1 }
    );
    assert_eq!(
        items[3].as_document().unwrap(),
        &doc! { "ok": 1.0, "idx": 3, "n": 1, "nModified": 0, "upserted": { "_id": 9 } }
    );
    let dup = items[4].as_document().unwrap();
    assert_eq!(
        (dup.get_i32("code"), dup.get_str("codeName")),
        (Ok(11000), Ok("DuplicateKey"))
    );
    for (f, n) in [
        ("nErrors", 1),
        ("nInserted", 2),
        ("nMatched", 1),
        ("nModified", 1),
        ("nUpserted", 1),
        ("nDeleted", 1),
    ] {
        assert_eq!(r.get_i32(f), Ok(n), "{f}: {r}");
    }
    server.shutdown().await;
    let (server, client) = serve_paused(two_shards("7.0")).await;
    let e = admin(&client, cmd).await.unwrap_err();
    assert_eq!(code_of(&e), 59, "{e}");
    server.shutdown().await;
}
