#![allow(clippy::unwrap_used, clippy::float_cmp)]
//! `analyzeShardKey` (7.0+) through the real driver against `shardtop serve`: 2,000 orders
//! (`customerId` of 1,000 values, an ascending unique `orderNo`, eight cities), their indexes,
//! sampled reads and writes, then several candidates — every field of the reply and its number
//! type (NumberLong counts, double percentages rounded up at the 10th place as the server
//! does), the options, a sharded collection's orphans. The refusals are in
//! `serve_analyze_shard_key_errors.rs`.

use crate::common;
use common::{admin, code_of, serve_empty};

use bson::{Bson, Document, doc};
use mongodb::Client;

const CITIES: [&str; 8] = [
    "Lyon", "Oslo", "Pune", "Lima", "Kobe", "Graz", "Cork", "Bari",
];

async fn orders(client: &Client) {
    let docs: Vec<Document> = (0..2000)
        .map(|i| {
            doc! {
                "_id": i, "orderNo": i + 1, "customerId": (i * 7) % 1000,
                "city": CITIES[(i % 8) as usize], "total": (i * 31) % 500,
            }
        })
        .collect();
    let coll = client.database("shop").collection::<Document>("orders");
    coll.insert_many(docs).await.unwrap();
    let indexes = vec![
        doc! {"key": {"customerId": 1}, "name": "customerId_1"},
        doc! {"key": {"orderNo": 1}, "name": "orderNo_1", "unique": true},
        doc! {"key": {"city": 1}, "name": "city_1"},
    ];
    client
        .database("shop")
        .run_command(doc! {"createIndexes": "orders", "indexes": indexes})
        .await
        .unwrap();
}

/// 30 sampled reads (20 by customer, 5 by city, 5 ranges of order numbers) and 18 writes (10
/// updates by customer, 5 by city, 3 deletes by `_id`), within the analyzer's 50 a second.
async fn traffic(client: &Client) {
    admin(
        client,
        doc! {"configureQueryAnalyzer": "shop.orders", "mode": "full", "samplesPerSecond": 50},
    )
    .await
    .unwrap();
    let coll = client.database("shop").collection::<Document>("orders");
    for c in 0..20 {
        coll.find_one(doc! {"customerId": c * 3}).await.unwrap();
    }
    for city in &CITIES[..5] {
        coll.find_one(doc! {"city": city}).await.unwrap();
    }
    for n in 0..5 {
        coll.find_one(doc! {"orderNo": {"$gte": n * 100, "$lt": n * 100 + 50}})
            .await
            .unwrap();
    }
    for c in 0..10 {
        let u = doc! {"$inc": {"total": 1}};
        coll.update_one(doc! {"customerId": c}, u).await.unwrap();
    }
    for city in &CITIES[..5] {
        let u = doc! {"$set": {"seen": true}};
        coll.update_many(doc! {"city": city}, u).await.unwrap();
    }
    for id in [90_001, 90_002, 90_003] {
        coll.delete_one(doc! {"_id": id}).await.unwrap();
    }
}

async fn ask(client: &Client, extra: Document) -> mongodb::error::Result<Document> {
    let mut cmd = doc! {"analyzeShardKey": "shop.orders"};
    cmd.extend(extra);
    admin(client, cmd).await
}

fn long(d: &Document, field: &str) -> i64 {
    match d.get(field) {
        Some(Bson::Int64(n)) => *n,
        other => panic!("{field} is not a NumberLong: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_of_many_values_its_characteristics_and_distribution() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    orders(&client).await;
    traffic(&client).await;
    let r = ask(&client, doc! {"key": {"customerId": 1}}).await.unwrap();
    let keys: Vec<&str> = r.keys().map(String::as_str).collect();
    assert_eq!(
        keys[..4],
        [
            "keyCharacteristics",
            "readDistribution",
            "writeDistribution",
            "ok"
        ]
    );
    let kc = r.get_document("keyCharacteristics").unwrap();
    let fields: Vec<&str> = kc.keys().map(String::as_str).collect();
    assert_eq!(
        fields,
        [
            "numDocsTotal",
            "avgDocSizeBytes",
            "numDocsSampled",
            "isUnique",
            "numDistinctValues",
            "mostCommonValues",
            "monotonicity"
        ],
        "an unsharded collection has no numOrphanDocs and no note"
    );
    assert_eq!(long(kc, "numDocsTotal"), 2000);
    assert!(long(kc, "avgDocSizeBytes") > 40, "{kc}");
    assert_eq!(long(kc, "numDocsSampled"), 2000);
    assert!(!kc.get_bool("isUnique").unwrap());
    assert_eq!(long(kc, "numDistinctValues"), 1000);
    let common = kc.get_array("mostCommonValues").unwrap();
    let values: Vec<(Bson, i64)> = common
        .iter()
        .map(|c| {
            let c = c.as_document().unwrap();
            (
                c.get_document("value")
                    .unwrap()
                    .get("customerId")
                    .cloned()
                    .unwrap(),
                long(c, "frequency"),
            )
        })
        .collect();
    let first: Vec<(Bson, i64)> = [0, 7, 14, 21, 28].map(|v| (Bson::Int32(v), 2)).to_vec();
    assert_eq!(values, first, "ties in insertion order");
    let m = kc.get_document("monotonicity").unwrap();
    assert_eq!(m.get_str("type").unwrap(), "not monotonic");
    assert!(m.get_f64("recordIdCorrelationCoefficient").unwrap().abs() < 0.7);

    let rd = r.get_document("readDistribution").unwrap();
    assert_eq!(
        rd.get_document("sampleSize").unwrap(),
        &doc! {"total": 30_i64, "find": 30_i64, "aggregate": 0_i64, "count": 0_i64, "distinct": 0_i64}
    );
    assert_eq!(
        rd.get_f64("percentageOfSingleShardReads").unwrap(),
        66.666_666_666_7
    );
    assert_eq!(rd.get_f64("percentageOfMultiShardReads").unwrap(), 0.0);
    // 10/30 is 33.33333333333…: rounded up, as `calculatePercentage` does.
    assert_eq!(
        rd.get_f64("percentageOfScatterGatherReads").unwrap(),
        33.333_333_333_4
    );
    let by_range = rd.get_array("numReadsByRange").unwrap();
    assert_eq!(by_range.len(), 100);
    assert!(by_range.iter().all(|n| matches!(n, Bson::Int64(_))));
    let sum: i64 = by_range.iter().map(|n| n.as_i64().unwrap()).sum();
    assert_eq!(sum, 20 + 10 * 100, "a scatter-gather counts in every range");

    let wd = r.get_document("writeDistribution").unwrap();
    assert_eq!(
        wd.get_document("sampleSize").unwrap(),
        &doc! {"total": 18_i64, "update": 15_i64, "delete": 3_i64, "findAndModify": 0_i64}
    );
    let expect = [
        ("percentageOfSingleShardWrites", 55.555_555_555_6),
        ("percentageOfMultiShardWrites", 0.0),
        ("percentageOfScatterGatherWrites", 44.444_444_444_5),
        ("percentageOfShardKeyUpdates", 0.0),
        ("percentageOfSingleWritesWithoutShardKey", 16.666_666_666_7),
        ("percentageOfMultiWritesWithoutShardKey", 27.777_777_777_8),
    ];
    for (field, want) in expect {
        assert_eq!(wd.get_f64(field).unwrap(), want, "{field}");
    }
    assert_eq!(wd.get_array("numWritesByRange").unwrap().len(), 100);
    let order: Vec<&str> = wd.keys().map(String::as_str).collect();
    assert_eq!(order[4], "numWritesByRange");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_ascending_key_and_a_key_of_eight_values() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    orders(&client).await;
    let r = ask(
        &client,
        doc! {"key": {"orderNo": 1}, "readWriteDistribution": false},
    )
    .await
    .unwrap();
    assert!(!r.contains_key("readDistribution") && !r.contains_key("writeDistribution"));
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert!(kc.get_bool("isUnique").unwrap());
    assert_eq!(long(kc, "numDistinctValues"), 2000);
    let common = kc.get_array("mostCommonValues").unwrap();
    let first = common[0].as_document().unwrap();
    assert_eq!(first, &doc! {"value": {"orderNo": 1}, "frequency": 1_i64});
    let m = kc.get_document("monotonicity").unwrap();
    assert_eq!(
        m,
        &doc! {"recordIdCorrelationCoefficient": 1.0, "type": "monotonic"}
    );

    let r = ask(
        &client,
        doc! {"key": {"city": 1}, "readWriteDistribution": false},
    )
    .await
    .unwrap();
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert_eq!(long(kc, "numDistinctValues"), 8);
    let common: Vec<Document> = kc
        .get_array("mostCommonValues")
        .unwrap()
        .iter()
        .map(|c| c.as_document().unwrap().clone())
        .collect();
    let want: Vec<Document> = CITIES[..5]
        .iter()
        .map(|c| doc! {"value": {"city": c}, "frequency": 250_i64})
        .collect();
    assert_eq!(common, want);
    let m = kc.get_document("monotonicity").unwrap();
    assert_eq!(m.get_str("type").unwrap(), "not monotonic");

    // Eight values cannot cut the 100 ranges the read and write distribution needs.
    let e = ask(&client, doc! {"key": {"city": 1}}).await.unwrap_err();
    assert_eq!(code_of(&e), 4_952_606);
    assert!(e.to_string().contains(
        "Failed to find split points that partition the data into 100 chunks with roughly equal \
         number of documents using the shard key being analyzed :: caused by :: The shard key \
         provided does not have enough cardinality to make the required number of chunks of \
         100, it can only make 9 chunks"
    ), "{e}");

    // A hashed candidate supported by the ascending index: not monotonic, coefficient 0.
    let r = ask(
        &client,
        doc! {"key": {"customerId": "hashed"}, "readWriteDistribution": false},
    )
    .await
    .unwrap();
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert_eq!(long(kc, "numDistinctValues"), 1000);
    assert_eq!(
        kc.get_document("monotonicity").unwrap(),
        &doc! {"recordIdCorrelationCoefficient": 0.0, "type": "not monotonic"}
    );

    // Sampling: a size, a rate.
    let r = ask(
        &client,
        doc! {"key": {"customerId": 1}, "readWriteDistribution": false, "sampleSize": 100},
    )
    .await
    .unwrap();
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert_eq!(
        (long(kc, "numDocsTotal"), long(kc, "numDocsSampled")),
        (2000, 100)
    );
    let r = ask(
        &client,
        doc! {"key": {"customerId": 1}, "readWriteDistribution": false, "sampleRate": 0.25},
    )
    .await
    .unwrap();
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert_eq!(long(kc, "numDocsSampled"), 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_supporting_index_or_without_samples() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    orders(&client).await;
    let e = ask(
        &client,
        doc! {"key": {"total": 1}, "readWriteDistribution": false},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 20);
    assert!(e.to_string().contains(
        "Cannot analyze the characteristics of a shard key that does not have a supporting index"
    ), "{e}");
    // With the distribution asked too, the characteristics are left out; no analyzer ran, so
    // each side has only its sample size, of zeros.
    let r = ask(&client, doc! {"key": {"total": 1}}).await.unwrap();
    assert!(!r.contains_key("keyCharacteristics"));
    assert_eq!(
        r.get_document("readDistribution").unwrap(),
        &doc! {"sampleSize": {"total": 0_i64, "find": 0_i64, "aggregate": 0_i64, "count": 0_i64, "distinct": 0_i64}}
    );
    assert_eq!(
        r.get_document("writeDistribution").unwrap(),
        &doc! {"sampleSize": {"total": 0_i64, "update": 0_i64, "delete": 0_i64, "findAndModify": 0_i64}}
    );
    let r = ask(
        &client,
        doc! {"key": {"customerId": 1}, "keyCharacteristics": false},
    )
    .await
    .unwrap();
    assert!(!r.contains_key("keyCharacteristics") && r.contains_key("readDistribution"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sharded_collection_reports_its_orphans() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"enableSharding": "app"})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"shardCollection": "app.items", "key": {"k": 1}},
    )
    .await
    .unwrap();
    let docs: Vec<Document> = (0..1200).map(|k| doc! {"k": k}).collect();
    let items = client.database("app").collection::<Document>("items");
    items.insert_many(docs).await.unwrap();
    let r = admin(
        &client,
        doc! {"analyzeShardKey": "app.items", "key": {"k": 1}},
    )
    .await
    .unwrap();
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert_eq!(long(kc, "numOrphanDocs"), 0);
    assert!(kc.get_str("note").unwrap().starts_with(
        "Due to performance reasons, the analyzeShardKey command does not filter out orphan"
    ));
    assert_eq!(
        kc.get_document("monotonicity")
            .unwrap()
            .get_str("type")
            .unwrap(),
        "monotonic"
    );
    assert_eq!(long(kc, "numDocsTotal"), 1200);
}
