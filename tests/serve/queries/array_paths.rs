//! Array index paths matched as the server's matcher walks them (issue 50): `{"dim_cm.1":
//! {$gt: 25}}`, `{"arr.1": 20}`, nested `m.0.1`, a numeric part over an array of documents, in
//! `find`, `countDocuments`, projections and updates.

use crate::common;
use common::{serve_paused, two_shards};

use bson::{Document, doc};
use futures::TryStreamExt;

#[tokio::test]
async fn array_index_paths_match_project_and_update_as_a_server() {
    let (server, client) = serve_paused(two_shards("8.0")).await;
    let c = client.database("app").collection::<Document>("items");
    c.insert_many(vec![
        doc! { "_id": 1, "k": 1, "dim_cm": [14, 21], "arr": [10, 20], "m": [[1, 2], [3, 4]] },
        doc! { "_id": 2, "k": 2, "dim_cm": [22.85, 30], "arr": [20, 10], "m": [[5, 6]] },
        doc! { "_id": 3, "k": 3, "docs": [{ "1": "named" }, { "v": 7 }], "sizes": [{ "w": 1 }, { "w": 9 }] },
    ])
    .await
    .unwrap();
    let ids = |filter: Document| {
        let c = c.clone();
        async move {
            let docs: Vec<Document> = c
                .find(filter)
                .sort(doc! { "_id": 1 })
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            docs.iter()
                .map(|d| d.get_i32("_id").unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(ids(doc! { "dim_cm.1": { "$gt": 25 } }).await, vec![2]);
    assert_eq!(ids(doc! { "arr.1": 20 }).await, vec![1]);
    assert_eq!(ids(doc! { "m.0.1": 6 }).await, vec![2]);
    assert_eq!(ids(doc! { "m.1": [3, 4] }).await, vec![1]);
    // A numeric part over an array of documents: the element at that index, or a field so named.
    assert_eq!(ids(doc! { "docs.1.v": 7 }).await, vec![3]);
    assert_eq!(ids(doc! { "docs.1": "named" }).await, vec![3]);
    assert_eq!(
        ids(doc! { "sizes.w": { "$gt": 5, "$lt": 3 } }).await,
        vec![3],
        "each operator on its own"
    );
    assert_eq!(
        ids(doc! { "arr.5": { "$exists": true } }).await,
        Vec::<i32>::new()
    );
    assert_eq!(
        c.count_documents(doc! { "dim_cm.0": { "$lt": 20 } })
            .await
            .unwrap(),
        1
    );
    // Projections through an array of documents keep each document's field.
    let p = c
        .find_one(doc! { "_id": 3 })
        .projection(doc! { "sizes.w": 1, "_id": 0 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(p, doc! { "sizes": [{ "w": 1 }, { "w": 9 }] });
    // Updates by index read the element they change.
    c.update_one(
        doc! { "_id": 1 },
        doc! { "$inc": { "arr.1": 5 }, "$set": { "m.0.1": 9 } },
    )
    .await
    .unwrap();
    let d = c.find_one(doc! { "_id": 1 }).await.unwrap().unwrap();
    assert_eq!(
        d.get_array("arr").unwrap(),
        &vec![bson::Bson::Int32(10), bson::Bson::Int32(25)]
    );
    assert_eq!(
        d.get_array("m").unwrap()[0],
        bson::Bson::Array(vec![1.into(), 9.into()])
    );
    server.shutdown().await;
}
