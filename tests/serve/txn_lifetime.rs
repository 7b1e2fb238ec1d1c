//! Transactions over time, through the real driver: a write outside a transaction to a document
//! an open transaction holds waits for it to end and then applies (or fails MaxTimeMSExpired at
//! its `maxTimeMS`), as mongod retries a WriteConflict outside a transaction
//! (`writeConflictRetry`, `src/mongo/db/concurrency/exception_util.h`); a transaction open longer
//! than `transactionLifetimeLimitSeconds` is aborted (`abortArbitraryTransactionIfExpired`,
//! `src/mongo/db/transaction/transaction_participant.cpp`) and its next command gets
//! NoSuchTransaction with `TransientTransactionError`; a snapshot keeps what another transaction
//! commits after it began out of its reads.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use crate::common;

use bson::{Document, doc};
use common::{admin, code_of, serve_empty};

async fn orders(client: &mongodb::Client) -> mongodb::Collection<Document> {
    admin(
        client,
        doc! {"shardCollection": "shop.orders", "key": {"customerId": "hashed"}},
    )
    .await
    .unwrap();
    let coll = client.database("shop").collection::<Document>("orders");
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "customerId": i, "n": i})
        .collect();
    coll.insert_many(docs).await.unwrap();
    coll
}

async fn n_of(coll: &mongodb::Collection<Document>, id: i32) -> Option<i32> {
    coll.find_one(doc! {"_id": id})
        .await
        .unwrap()
        .map(|d| d.get_i32("n").unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_outside_waits_for_the_transaction_then_applies() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let mut s = client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    coll.update_one(doc! {"_id": 5, "customerId": 5}, doc! {"$set": {"n": 50}})
        .session(&mut s)
        .await
        .unwrap();
    let outside = coll.clone();
    let started = Instant::now();
    let waiting = tokio::spawn(async move {
        outside
            .update_one(doc! {"_id": 5, "customerId": 5}, doc! {"$inc": {"n": 1}})
            .await
            .map(|r| (r.modified_count, started.elapsed()))
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !waiting.is_finished(),
        "the write waits while the transaction is open"
    );
    // Others are answered meanwhile.
    assert_eq!(n_of(&coll, 6).await, Some(6));
    s.commit_transaction().await.unwrap();
    let (modified, waited) = waiting.await.unwrap().unwrap();
    assert_eq!(modified, 1);
    assert!(waited >= Duration::from_millis(400), "{waited:?}");
    // Applied after the transaction: on its committed version.
    assert_eq!(n_of(&coll, 5).await, Some(51));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_write_fails_at_its_max_time_ms_and_changes_nothing() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let mut s = client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    coll.update_one(doc! {"_id": 7, "customerId": 7}, doc! {"$set": {"n": 70}})
        .session(&mut s)
        .await
        .unwrap();
    let started = Instant::now();
    let err = client
        .database("shop")
        .run_command(doc! {
            "update": "orders",
            "updates": [{"q": {"_id": 7, "customerId": 7}, "u": {"$inc": {"n": 1}}}],
            "maxTimeMS": 300,
        })
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(code_of(&err), 50, "{err}");
    assert!(!err.contains_label("TransientTransactionError"), "{err}");
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    s.abort_transaction().await.unwrap();
    assert_eq!(n_of(&coll, 7).await, Some(7));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transaction_past_its_lifetime_is_aborted() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let got = admin(
        &client,
        doc! {"getParameter": 1, "transactionLifetimeLimitSeconds": 1},
    )
    .await
    .unwrap();
    assert_eq!(
        got.get_i64("transactionLifetimeLimitSeconds").ok().or(got
            .get_i32("transactionLifetimeLimitSeconds")
            .ok()
            .map(i64::from)),
        Some(60)
    );
    admin(
        &client,
        doc! {"setParameter": 1, "transactionLifetimeLimitSeconds": 1},
    )
    .await
    .unwrap();
    let mut s = client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    coll.update_one(doc! {"_id": 3, "customerId": 3}, doc! {"$set": {"n": 30}})
        .session(&mut s)
        .await
        .unwrap();
    // An outside write waits for the expiry, then applies on the version from before.
    let started = Instant::now();
    coll.update_one(doc! {"_id": 3, "customerId": 3}, doc! {"$inc": {"n": 100}})
        .await
        .unwrap();
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert_eq!(n_of(&coll, 3).await, Some(103));
    let err = coll
        .update_one(doc! {"_id": 4, "customerId": 4}, doc! {"$set": {"n": 40}})
        .session(&mut s)
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 251, "{err}");
    assert!(err.contains_label("TransientTransactionError"), "{err}");
    assert_eq!(n_of(&coll, 4).await, Some(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_does_not_see_a_later_commit() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let mut reader = client.start_session().await.unwrap();
    reader.start_transaction().await.unwrap();
    let first = coll
        .find_one(doc! {"_id": 9})
        .session(&mut reader)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.get_i32("n"), Ok(9));
    let mut writer = client.start_session().await.unwrap();
    writer.start_transaction().await.unwrap();
    coll.update_one(doc! {"_id": 9, "customerId": 9}, doc! {"$set": {"n": 99}})
        .session(&mut writer)
        .await
        .unwrap();
    writer.commit_transaction().await.unwrap();
    assert_eq!(n_of(&coll, 9).await, Some(99));
    let again = coll
        .find_one(doc! {"_id": 9})
        .session(&mut reader)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        again.get_i32("n"),
        Ok(9),
        "the reader's snapshot is from before the commit"
    );
    let err = coll
        .update_one(doc! {"_id": 9, "customerId": 9}, doc! {"$set": {"n": 1}})
        .session(&mut reader)
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 112, "{err}");
    assert!(err.contains_label("TransientTransactionError"), "{err}");
}
