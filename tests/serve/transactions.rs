//! Transactions through the real driver: atomic commit, an abort leaving nothing, the
//! transaction's writes hidden from others until it commits, its reads a snapshot, a write
//! conflict labelled for `with_transaction`'s retry; a shard-key change refused outside a
//! transaction or retryable write with seed 003's code 20 and message (8.0 wording), accepted
//! inside one.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{admin, code_of, serve_empty};
use mongodb::Client;

async fn orders(client: &Client) -> mongodb::Collection<Document> {
    admin(
        client,
        doc! {"shardCollection": "shop.orders", "key": {"customerId": "hashed"}},
    )
    .await
    .unwrap();
    let coll = client.database("shop").collection::<Document>("orders");
    let docs: Vec<Document> = (0..200)
        .map(|i| doc! {"_id": i, "customerId": i % 50, "n": i})
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

#[tokio::test]
async fn commit_is_atomic_and_abort_leaves_nothing() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let mut s = client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    coll.insert_one(doc! {"_id": 1000, "customerId": 1, "n": 1000})
        .session(&mut s)
        .await
        .unwrap();
    coll.update_one(doc! {"_id": 5, "customerId": 5}, doc! {"$set": {"n": 55}})
        .session(&mut s)
        .await
        .unwrap();
    // Others do not see the transaction's writes before it commits; it does.
    assert_eq!(n_of(&coll, 1000).await, None);
    assert_eq!(n_of(&coll, 5).await, Some(5));
    let mine = coll
        .find_one(doc! {"_id": 5})
        .session(&mut s)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(mine.get_i32("n"), Ok(55));
    s.commit_transaction().await.unwrap();
    assert_eq!(n_of(&coll, 1000).await, Some(1000));
    assert_eq!(n_of(&coll, 5).await, Some(55));

    s.start_transaction().await.unwrap();
    coll.insert_one(doc! {"_id": 2000, "customerId": 2, "n": 2000})
        .session(&mut s)
        .await
        .unwrap();
    coll.delete_one(doc! {"_id": 6, "customerId": 6})
        .session(&mut s)
        .await
        .unwrap();
    coll.update_one(
        doc! {"_id": 7, "customerId": 7},
        doc! {"$set": {"customerId": 48}},
    )
    .session(&mut s)
    .await
    .unwrap();
    s.abort_transaction().await.unwrap();
    assert_eq!(n_of(&coll, 2000).await, None);
    assert_eq!(n_of(&coll, 6).await, Some(6));
    let seven = coll.find_one(doc! {"_id": 7}).await.unwrap().unwrap();
    assert_eq!(seven.get_i32("customerId"), Ok(7));
    assert_eq!(coll.count_documents(doc! {}).await.unwrap(), 201);
    // The chunk counts are back too.
    assert_eq!(
        common::distribution_total(&client, "numOwnedDocuments").await,
        201
    );
}

#[tokio::test]
async fn reads_are_a_snapshot_and_conflicts_are_transient() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let mut s = client.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    let before = coll
        .find_one(doc! {"_id": 8})
        .session(&mut s)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(before.get_i32("n"), Ok(8));
    coll.update_one(doc! {"_id": 8, "customerId": 8}, doc! {"$set": {"n": 888}})
        .await
        .unwrap();
    let still = coll
        .find_one(doc! {"_id": 8})
        .session(&mut s)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(still.get_i32("n"), Ok(8));
    let err = coll
        .update_one(doc! {"_id": 8, "customerId": 8}, doc! {"$set": {"n": 1}})
        .session(&mut s)
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 112, "{err}");
    assert!(err.contains_label("TransientTransactionError"), "{err}");
    // The conflict aborted the transaction.
    let err = s.commit_transaction().await.unwrap_err();
    assert_eq!(code_of(&err), 251, "{err}");
    assert_eq!(n_of(&coll, 8).await, Some(888));
}

#[tokio::test]
async fn a_shard_key_change_needs_a_transaction_or_a_retryable_write() {
    let (_server, client, uri) = serve_empty("8.0", true).await;
    let coll = orders(&client).await;
    let plain = Client::with_uri_str(format!("{uri}&retryWrites=false"))
        .await
        .unwrap();
    let pcoll = plain.database("shop").collection::<Document>("orders");
    let err = pcoll
        .update_one(
            doc! {"_id": 42, "customerId": 42},
            doc! {"$set": {"customerId": 47}},
        )
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 20, "{err}");
    assert!(err.to_string().contains(
        "Plan executor error during update :: caused by :: Must run update to shard key field in a multi-statement transaction or with retryWrites: true."
    ), "{err}");
    let mut s = plain.start_session().await.unwrap();
    s.start_transaction().await.unwrap();
    pcoll
        .update_one(
            doc! {"_id": 42, "customerId": 42},
            doc! {"$set": {"customerId": 4242}},
        )
        .session(&mut s)
        .await
        .unwrap();
    s.commit_transaction().await.unwrap();
    // The default client's writes are retryable: accepted outside a transaction.
    coll.update_one(
        doc! {"_id": 43, "customerId": 43},
        doc! {"$set": {"customerId": 4343}},
    )
    .await
    .unwrap();
    let moved = coll
        .count_documents(doc! {"customerId": {"$in": [4242, 4343]}})
        .await
        .unwrap();
    assert_eq!(moved, 2);
}
