//! The aggregation stages an application sends, through the Rust driver (issue 50): `$lookup`
//! (equality, pipeline with `let`, over a sharded `from` from 5.1 and refused with 28769
//! before), `$unwind` (both forms and options), `$group`'s accumulators with the server's number
//! types, `$facet`, `$count` and `$project`/`$addFields` expressions.

use crate::common;
use common::{code_of, serve_paused, two_shards};

use bson::{Bson, Document, doc};
use futures::TryStreamExt;
use mongodb::Client;

async fn agg(
    client: &Client,
    coll: &str,
    pipeline: Vec<Document>,
) -> mongodb::error::Result<Vec<Document>> {
    client
        .database("app")
        .collection::<Document>(coll)
        .aggregate(pipeline)
        .await?
        .try_collect()
        .await
}

/// `app.items` (sharded on `k`, two shards) and `app.orders` (unsharded).
async fn fill(client: &Client) {
    let items = client.database("app").collection::<Document>("items");
    items
        .insert_many(vec![
            doc! { "_id": 1, "k": 10, "sku": "a", "tags": ["x", "y"], "qty": 2 },
            doc! { "_id": 2, "k": 150, "sku": "b", "tags": [], "qty": 3 },
            doc! { "_id": 3, "k": 20, "sku": "c", "qty": 4.5 },
        ])
        .await
        .unwrap();
    let orders = client.database("app").collection::<Document>("orders");
    orders
        .insert_many(vec![
            doc! { "_id": 1, "sku": "a", "n": 1 },
            doc! { "_id": 2, "sku": "b", "n": 5 },
            doc! { "_id": 3, "sku": "z", "n": 7 },
        ])
        .await
        .unwrap();
}

#[tokio::test]
async fn lookup_joins_a_sharded_collection_from_5_1_and_is_refused_before() {
    let (server, client) = serve_paused(two_shards("8.0")).await;
    fill(&client).await;
    let joined = agg(
        &client,
        "orders",
        vec![
            doc! { "$lookup": { "from": "items", "localField": "sku", "foreignField": "sku", "as": "item" } },
            doc! { "$project": { "_id": 1, "found": { "$size": "$item" } } },
            doc! { "$sort": { "_id": 1 } },
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        joined,
        vec![
            doc! { "_id": 1, "found": 1 },
            doc! { "_id": 2, "found": 1 },
            doc! { "_id": 3, "found": 0 }
        ]
    );
    let with_let = agg(
        &client,
        "orders",
        vec![
            doc! { "$match": { "_id": 2 } },
            doc! { "$lookup": {
                "from": "items", "let": { "s": "$sku", "n": "$n" },
                "pipeline": [
                    { "$match": { "$expr": { "$and": [{ "$eq": ["$sku", "$$s"] }, { "$lt": ["$qty", "$$n"] }] } } },
                    { "$project": { "_id": 0, "qty": 1 } },
                ],
                "as": "cheap",
            } },
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        with_let[0].get_array("cheap").unwrap(),
        &vec![Bson::Document(doc! { "qty": 3 })]
    );
    let e = agg(
        &client,
        "orders",
        vec![doc! { "$lookup": { "from": "items", "as": "x", "bogus": 1 } }],
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 9, "unknown argument to $lookup");
    server.shutdown().await;

    let (server, client) = serve_paused(two_shards("5.0")).await;
    fill(&client).await;
    let e = agg(
        &client,
        "orders",
        vec![doc! { "$lookup": { "from": "items", "localField": "sku", "foreignField": "sku", "as": "item" } }],
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 28769, "{e}");
    assert!(e.to_string().contains("app.items cannot be sharded"), "{e}");
    // An unsharded `from` is joined on 5.0 too.
    let ok = agg(
        &client,
        "items",
        vec![
            doc! { "$lookup": { "from": "orders", "localField": "sku", "foreignField": "sku", "as": "o" } },
            doc! { "$match": { "_id": 1 } },
        ],
    )
    .await
    .unwrap();
    assert_eq!(ok[0].get_array("o").unwrap().len(), 1);
    server.shutdown().await;
}

#[tokio::test]
async fn unwind_and_group_answer_as_a_server() {
    let (server, client) = serve_paused(two_shards("7.0")).await;
    fill(&client).await;
    let unwound = agg(
        &client,
        "items",
        vec![
            doc! { "$sort": { "_id": 1 } },
            doc! { "$unwind": { "path": "$tags", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true } },
            doc! { "$project": { "tags": 1, "i": 1 } },
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        unwound,
        vec![
            doc! { "_id": 1, "tags": "x", "i": 0_i64 },
            doc! { "_id": 1, "tags": "y", "i": 1_i64 },
            doc! { "_id": 2, "i": Bson::Null },
            doc! { "_id": 3, "i": Bson::Null },
        ]
    );
    let plain = agg(&client, "items", vec![doc! { "$unwind": "$tags" }])
        .await
        .unwrap();
    assert_eq!(plain.len(), 2);
    let e = agg(&client, "items", vec![doc! { "$unwind": "tags" }])
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 28818);

    let grouped = agg(
        &client,
        "items",
        vec![
            doc! { "$sort": { "_id": 1 } },
            doc! { "$group": {
                "_id": null, "n": { "$sum": 1 }, "ints": { "$sum": "$k" }, "all": { "$sum": "$qty" },
                "avg": { "$avg": "$k" }, "min": { "$min": "$qty" }, "max": { "$max": "$sku" },
                "skus": { "$push": "$sku" }, "tags": { "$addToSet": "$tags" },
                "first": { "$first": "$sku" }, "last": { "$last": "$tags" },
            } },
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        grouped[0],
        doc! {
            "_id": Bson::Null, "n": 3, "ints": 180, "all": 9.5, "avg": 60.0, "min": 2, "max": "c",
            "skus": ["a", "b", "c"], "tags": [["x", "y"], []], "first": "a", "last": Bson::Null,
        }
    );
    let e = agg(
        &client,
        "items",
        vec![doc! { "$group": { "_id": null, "m": { "$median": "$k" } } }],
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 15952);

    server.shutdown().await;
}

#[tokio::test]
async fn facet_count_and_expressions_answer_as_a_server() {
    let (server, client) = serve_paused(two_shards("7.0")).await;
    fill(&client).await;
    let faceted = agg(
        &client,
        "items",
        vec![doc! { "$facet": {
            "total": [{ "$count": "n" }],
            "big": [{ "$match": { "k": { "$gte": 20 } } }, { "$sort": { "k": 1 } }, { "$project": { "_id": 1 } }],
        } }],
    )
    .await
    .unwrap();
    assert_eq!(
        faceted,
        vec![doc! { "total": [{ "n": 3 }], "big": [{ "_id": 3 }, { "_id": 2 }] }]
    );

    let shaped = agg(
        &client,
        "items",
        vec![
            doc! { "$match": { "_id": 1 } },
            doc! { "$addFields": { "total": { "$multiply": ["$qty", "$k"] }, "label": { "$concat": ["$sku", "-", "item"] } } },
            doc! { "$project": {
                "_id": 0, "total": 1, "label": 1,
                "plus": { "$add": ["$k", 1, 0.5] },
                "size": { "$cond": { "if": { "$gt": [{ "$size": "$tags" }, 1] }, "then": "many", "else": "few" } },
                "missing": { "$ifNull": ["$nope", "default"] },
            } },
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        shaped,
        vec![
            doc! { "total": 20, "label": "a-item", "plus": 11.5, "size": "many", "missing": "default" }
        ]
    );
    let e = agg(
        &client,
        "items",
        vec![doc! { "$project": { "x": { "$frobnicate": 1 } } }],
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 168);
    let e = agg(&client, "items", vec![doc! { "$bucketAuto": {} }])
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 40324);
    server.shutdown().await;
}
