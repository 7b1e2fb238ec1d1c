//! Secondary indexes and query operators through the real driver: the common index kinds on
//! sharded and unsharded collections listed with their names and options, unique indexes
//! enforced on kept documents (E11000 as the server words it), `shardCollection` of a collection
//! with documents needing a supporting index; `$regex`, `$elemMatch`, `$size`, `$type`, `$all`
//! and `$mod` filters, and an unknown operator refused with BadValue.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{admin, code_of, serve_empty};
use futures::TryStreamExt;

async fn run(client: &mongodb::Client, cmd: Document) -> mongodb::error::Result<Document> {
    client.database("shop").run_command(cmd).await
}

async fn listed(client: &mongodb::Client, coll: &str) -> Vec<Document> {
    let reply = run(client, doc! {"listIndexes": coll}).await.unwrap();
    common::first_batch(&reply)
}

fn orders() -> Vec<Document> {
    (0..100)
        .map(|i| {
            let tags: Vec<&str> = ["a", "b", "c"].into_iter().take(1 + i % 3).collect();
            let city = ["Pune", "Delhi", "Kochi", "pune"][i % 4];
            doc! {"_id": i as i32, "customerId": (i % 10) as i32, "orderNo": i as i32,
            "city": city, "tags": tags,
            "items": [{"sku": format!("s{}", i % 5), "qty": (i % 7) as i32}]}
        })
        .collect()
}

#[tokio::test]
async fn the_common_index_kinds_are_created_listed_and_dropped() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    admin(
        &client,
        doc! {"shardCollection": "shop.orders", "key": {"customerId": "hashed"}},
    )
    .await
    .unwrap();
    let specs = [
        doc! {"key": {"placedAt": -1}, "name": "placedAt_-1"},
        doc! {"key": {"city": "text"}, "name": "city_text"},
        doc! {"key": {"loc": "2dsphere"}, "name": "loc_2dsphere"},
        doc! {"key": {"placedAt": 1}, "name": "ttl", "expireAfterSeconds": 3600},
        doc! {"key": {"orderNo": 1, "city": -1}, "name": "partial",
        "partialFilterExpression": {"orderNo": {"$gt": 5}}},
    ];
    for spec in &specs {
        run(
            &client,
            doc! {"createIndexes": "orders", "indexes": [spec.clone()]},
        )
        .await
        .unwrap();
    }
    let list = listed(&client, "orders").await;
    let names: Vec<&str> = list.iter().map(|d| d.get_str("name").unwrap()).collect();
    assert_eq!(
        names,
        [
            "_id_",
            "customerId_hashed",
            "placedAt_-1",
            "city_text",
            "loc_2dsphere",
            "ttl",
            "partial"
        ]
    );
    let ttl = list
        .iter()
        .find(|d| d.get_str("name") == Ok("ttl"))
        .unwrap();
    assert_eq!(ttl.get_i32("expireAfterSeconds"), Ok(3600), "{ttl}");
    let err = run(
        &client,
        doc! {"createIndexes": "orders", "indexes": [{"key": {"x": "nope"}, "name": "x"}]},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 67, "{err}");
    let reply = run(&client, doc! {"dropIndexes": "orders", "index": "ttl"})
        .await
        .unwrap();
    assert_eq!(reply.get_i32("nIndexesWas"), Ok(7), "{reply}");
    run(
        &client,
        doc! {"dropIndexes": "orders", "index": {"placedAt": -1}},
    )
    .await
    .unwrap();
    run(&client, doc! {"dropIndexes": "orders", "index": "*"})
        .await
        .unwrap();
    let names: Vec<String> = listed(&client, "orders")
        .await
        .iter()
        .map(|d| d.get_str("name").unwrap().to_string())
        .collect();
    assert_eq!(names, ["_id_", "customerId_hashed"]);
}

#[tokio::test]
async fn unique_indexes_hold_on_kept_documents() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    admin(
        &client,
        doc! {"shardCollection": "shop.orders", "key": {"customerId": "hashed"}},
    )
    .await
    .unwrap();
    let coll = client.database("shop").collection::<Document>("orders");
    coll.insert_many(orders()).await.unwrap();
    let err = run(&client, doc! {"createIndexes": "orders", "indexes": [{"key": {"orderNo": 1}, "name": "orderNo_1", "unique": true}]})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 67, "{err}");
    assert!(
        err.to_string().contains(
            "over { orderNo: 1 } with shard key pattern { customerId: \"hashed\" } and collation {}"
        ),
        "{err}"
    );
    run(&client, doc! {"createIndexes": "orders", "indexes": [{"key": {"customerId": 1, "orderNo": 1}, "name": "customerId_1_orderNo_1", "unique": true}]})
        .await
        .unwrap();
    let err = coll
        .insert_one(doc! {"_id": 1000, "customerId": 3, "orderNo": 3})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 11000, "{err}");
    assert!(err.to_string().contains(
        "E11000 duplicate key error collection: shop.orders index: customerId_1_orderNo_1 dup key: { customerId: 3, orderNo: 3 }"
    ), "{err}");
    let err = coll
        .update_one(
            doc! {"_id": 4, "customerId": 4},
            doc! {"$set": {"orderNo": 14}},
        )
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 11000, "{err}");
    // A duplicate already kept fails the index build.
    let events = client.database("shop").collection::<Document>("events");
    events
        .insert_many([doc! {"k": 1}, doc! {"k": 1}])
        .await
        .unwrap();
    let err = run(&client, doc! {"createIndexes": "events", "indexes": [{"key": {"k": 1}, "name": "k_1", "unique": true}]})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 11000, "{err}");
}

#[tokio::test]
async fn sharding_a_collection_with_documents_needs_a_supporting_index() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = client.database("shop").collection::<Document>("orders");
    coll.insert_many(orders()).await.unwrap();
    let err = admin(
        &client,
        doc! {"shardCollection": "shop.orders", "key": {"customerId": 1}},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 72, "{err}");
    assert!(err.to_string().contains(
        "Please create an index that starts with the proposed shard key before sharding the collection."
    ), "{err}");
    run(&client, doc! {"createIndexes": "orders", "indexes": [{"key": {"customerId": 1, "orderNo": -1}, "name": "c_o"}]})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"shardCollection": "shop.orders", "key": {"customerId": 1}},
    )
    .await
    .unwrap();
    let names: Vec<String> = listed(&client, "orders")
        .await
        .iter()
        .map(|d| d.get_str("name").unwrap().to_string())
        .collect();
    assert!(names.contains(&"c_o".to_string()), "{names:?}");
}

async fn count(coll: &mongodb::Collection<Document>, filter: Document) -> u64 {
    coll.count_documents(filter).await.unwrap()
}

#[tokio::test]
async fn query_operators_match_as_a_server_does() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let coll = client.database("shop").collection::<Document>("orders");
    coll.insert_many(orders()).await.unwrap();
    let re = bson::Regex {
        pattern: "^Pu".into(),
        options: String::new(),
    };
    assert_eq!(count(&coll, doc! {"city": re}).await, 25);
    assert_eq!(
        count(&coll, doc! {"city": {"$regex": "^pu", "$options": "i"}}).await,
        50
    );
    let re = bson::Regex {
        pattern: "^K".into(),
        options: String::new(),
    };
    assert_eq!(count(&coll, doc! {"city": {"$in": ["Pune", re]}}).await, 50);
    assert_eq!(
        count(&coll, doc! {"city": {"$not": {"$regex": "e$"}}}).await,
        50
    );
    assert_eq!(count(&coll, doc! {"tags": {"$size": 2}}).await, 33);
    assert_eq!(count(&coll, doc! {"tags": {"$all": ["a", "c"]}}).await, 33);
    assert_eq!(count(&coll, doc! {"orderNo": {"$mod": [10, 3]}}).await, 10);
    assert_eq!(count(&coll, doc! {"orderNo": {"$type": "int"}}).await, 100);
    assert_eq!(
        count(&coll, doc! {"orderNo": {"$type": ["string", 1]}}).await,
        0
    );
    assert_eq!(
        count(
            &coll,
            doc! {"items": {"$elemMatch": {"sku": "s1", "qty": {"$gte": 3}}}}
        )
        .await,
        11
    );
    assert_eq!(
        count(&coll, doc! {"tags": {"$elemMatch": {"$eq": "b"}}}).await,
        66
    );
    let found: Vec<Document> = coll
        .find(doc! {"city": {"$regex": "^D"}})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(found.len(), 25);
    // A dotted path reaches into an array of embedded documents.
    assert_eq!(count(&coll, doc! {"items.sku": "s1"}).await, 20);
    assert_eq!(count(&coll, doc! {"items.qty": {"$ne": 0}}).await, 85);
    let one = coll
        .find_one(doc! {"_id": 3})
        .projection(doc! {"_id": 0})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(one.get_i32("orderNo"), Ok(3), "{one}");
    assert!(!one.contains_key("_id"), "{one}");
    let err = coll
        .count_documents(doc! {"city": {"$near": [0, 0]}})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 2, "{err}");
    let err = coll
        .count_documents(doc! {"city": {"$regex": "(?<=a)b"}})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 51091, "{err}");
}
