#![allow(clippy::unwrap_used)]
//! Change streams on `shardtop serve` through the real `mongodb` driver: `watch()` on a sharded
//! collection sees the inserts another client routes into the simulator (with the shard key and
//! `_id` as `documentKey`), a stream resumed after a token sees only the later events, and a
//! database stream sees inserts into unsharded collections too.

use std::time::Duration;

use bson::{Document, doc};
use futures::StreamExt;
use mongodb::Client;
use mongodb::change_stream::ChangeStream;
use mongodb::change_stream::event::{ChangeStreamEvent, OperationType};
use shardtop::serve::{ServeOptions, Server, empty_cluster, start};

async fn serve() -> (Server, String) {
    let sim = empty_cluster(Some("8.0".parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=5000",
        server.local_addr()
    );
    (server, uri)
}

/// The next `n` events, failing after a deadline.
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

fn key_of(e: &ChangeStreamEvent<Document>) -> Document {
    e.document_key.clone().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_sees_routed_inserts_and_resumes() {
    let (server, uri) = serve().await;
    let watcher = Client::with_uri_str(&uri).await.unwrap();
    let writer = Client::with_uri_str(&uri).await.unwrap();
    let admin = writer.database("admin");
    admin
        .run_command(doc! { "enableSharding": "app" })
        .await
        .unwrap();
    admin
        .run_command(doc! { "shardCollection": "app.users", "key": { "region": 1, "uid": 1 } })
        .await
        .unwrap();

    let users = watcher.database("app").collection::<Document>("users");
    let mut cs = users.watch().await.unwrap();
    let mut db_cs = watcher.database("app").watch().await.unwrap();

    let docs: Vec<Document> = (1..=3)
        .map(|i| doc! { "_id": i, "region": "eu", "uid": i * 10, "name": format!("u{i}") })
        .collect();
    writer
        .database("app")
        .collection::<Document>("users")
        .insert_many(docs)
        .await
        .unwrap();

    let events = next_events(&mut cs, 3).await;
    for (i, e) in (1..=3).zip(&events) {
        assert_eq!(e.operation_type, OperationType::Insert);
        let ns = e.ns.as_ref().unwrap();
        assert_eq!((ns.db.as_str(), ns.coll.as_deref()), ("app", Some("users")));
        assert_eq!(key_of(e), doc! { "region": "eu", "uid": i * 10, "_id": i });
        let full = e.full_document.clone().unwrap();
        assert_eq!(full.get_str("name").unwrap(), format!("u{i}"));
        assert!(e.cluster_time.is_some() && e.wall_time.is_some());
    }

    // Resumed after the first event: the second and third, then only what comes later.
    let mut resumed = users
        .watch()
        .resume_after(events[0].id.clone())
        .await
        .unwrap();
    let again = next_events(&mut resumed, 2).await;
    assert_eq!(key_of(&again[0]).get_i32("_id").unwrap(), 2);
    assert_eq!(key_of(&again[1]).get_i32("_id").unwrap(), 3);

    // An unsharded collection's insert: documentKey is just the _id; only the db stream sees it.
    writer
        .database("app")
        .collection::<Document>("logs")
        .insert_one(doc! { "_id": "l1", "msg": "hi" })
        .await
        .unwrap();
    writer
        .database("app")
        .collection::<Document>("users")
        .insert_one(doc! { "_id": 4, "region": "us", "uid": 40 })
        .await
        .unwrap();
    let later = next_events(&mut resumed, 1).await;
    assert_eq!(
        key_of(&later[0]),
        doc! { "region": "us", "uid": 40, "_id": 4 }
    );
    let later = next_events(&mut cs, 1).await;
    assert_eq!(key_of(&later[0]).get_i32("_id").unwrap(), 4);

    let all = next_events(&mut db_cs, 5).await;
    let colls: Vec<String> = all
        .iter()
        .map(|e| e.ns.as_ref().unwrap().coll.clone().unwrap())
        .collect();
    assert_eq!(colls, ["users", "users", "users", "logs", "users"]);
    assert_eq!(key_of(&all[3]), doc! { "_id": "l1" });

    // The stream's own resume token is the last event's.
    assert_eq!(cs.resume_token().unwrap(), later[0].id);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_shapes() {
    let (server, uri) = serve().await;
    let client = Client::with_uri_str(&uri).await.unwrap();
    let coll = client.database("app").collection::<Document>("users");
    let err = coll
        .aggregate(vec![
            doc! { "$changeStream": {} },
            doc! { "$sort": { "a": 1 } },
        ])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("$sort"), "{err}");
    let err = coll
        .watch()
        .resume_after(
            bson::from_document::<mongodb::change_stream::event::ResumeToken>(
                doc! { "_data": "not hex" },
            )
            .unwrap(),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("resume token"), "{err}");
    // $match after $changeStream is applied to each event.
    let mut cs = coll
        .watch()
        .pipeline(vec![doc! { "$match": { "fullDocument.keep": true } }])
        .await
        .unwrap();
    coll.insert_many(vec![
        doc! { "_id": 1, "keep": false },
        doc! { "_id": 2, "keep": true },
    ])
    .await
    .unwrap();
    let got = next_events(&mut cs, 1).await;
    assert_eq!(key_of(&got[0]), doc! { "_id": 2 });
    server.shutdown().await;
}

/// An idle stream's `getMore` is held (awaitData) rather than answered empty at once, so the
/// driver, which loops on empty batches, does not spin.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_get_more_is_held() {
    let dir = std::env::temp_dir().join(format!("shardtop-cs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("commands.jsonl");
    let sim = empty_cluster(Some("8.0".parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.command_log = Some(log.clone());
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=5000",
        server.local_addr()
    );
    let client = Client::with_uri_str(&uri).await.unwrap();
    let coll = client.database("app").collection::<Document>("idle");
    let mut cs = coll.watch().await.unwrap();
    // Nothing is written: the wait ends by the timeout, and the getMores sent meanwhile are few.
    let waited = tokio::time::timeout(Duration::from_millis(1500), cs.next()).await;
    assert!(waited.is_err());
    let get_mores = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(r#""command":"getMore""#))
        .count();
    assert!(get_mores <= 3, "{get_mores} getMores in 1.5 s");
    server.shutdown().await;
    std::fs::remove_dir_all(&dir).unwrap();
}
