//! `getParameter` / `setParameter` for the sharding parameters a lab shortens, through the real
//! driver: a five-minute resharding made one second long.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use bson::doc;
use common::{admin, code_of, config_collection, serve_empty};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_class_shortens_a_resharding() {
    let (server, client, _) = serve_empty("8.0", false).await;
    let got = admin(
        &client,
        doc! {"getParameter": 1, "reshardingMinimumOperationDurationMillis": 1},
    )
    .await
    .unwrap();
    assert_eq!(
        got.get_i32("reshardingMinimumOperationDurationMillis"),
        Ok(300_000)
    );
    let set = admin(
        &client,
        doc! {"setParameter": 1, "reshardingMinimumOperationDurationMillis": 1000},
    )
    .await
    .unwrap();
    assert_eq!(set.get_i32("was"), Ok(300_000));
    let all = admin(&client, doc! {"getParameter": "*"}).await.unwrap();
    assert_eq!(
        all.get_i32("reshardingMinimumOperationDurationMillis"),
        Ok(1000)
    );
    assert_eq!(all.get_i32("autoMergerIntervalSecs"), Ok(3600));

    admin(&client, doc! {"shardCollection": "app.c", "key": {"a": 1}})
        .await
        .unwrap();
    let started = Instant::now();
    admin(
        &client,
        doc! {"reshardCollection": "app.c", "key": {"b": 1}},
    )
    .await
    .unwrap();
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(15),
        "{took:?}"
    );
    let coll = config_collection(&client, "app.c").await.unwrap();
    assert_eq!(
        coll.get_document("key").unwrap(),
        &doc! {"b": 1},
        "committed when it answered"
    );

    let err = admin(&client, doc! {"setParameter": 1, "noSuchParameter": 1})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 72, "{err}");
    let err = admin(
        &client,
        doc! {"setParameter": 1, "autoMergerIntervalSecs": "soon"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 2, "{err}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orphans_wait_for_the_cleanup_delay_set() {
    let (_server, client, _) = serve_empty("8.0", false).await;
    let got = admin(
        &client,
        doc! {"getParameter": 1, "orphanCleanupDelaySecs": 1},
    )
    .await
    .unwrap();
    assert_eq!(got.get_i32("orphanCleanupDelaySecs"), Ok(900));
    admin(
        &client,
        doc! {"setParameter": 1, "orphanCleanupDelaySecs": 0},
    )
    .await
    .unwrap();
    admin(&client, doc! {"shardCollection": "app.c", "key": {"k": 1}})
        .await
        .unwrap();
    let coll = client.database("app").collection::<bson::Document>("c");
    let docs: Vec<bson::Document> = (0..50).map(|i| doc! {"k": i}).collect();
    coll.insert_many(docs).await.unwrap();
    admin(
        &client,
        doc! {"moveChunk": "app.c", "find": {"k": 1}, "to": "shard0001"},
    )
    .await
    .unwrap();
    // With no delay the range deleter removes the donor's copy on the next ticks.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let orphans = common::distribution_total(&client, "numOrphanedDocs").await;
        if orphans == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{orphans} orphans remain");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_balancer_throttle_is_a_parameter_from_6_0() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let got = admin(
        &client,
        doc! {"getParameter": 1, "balancerMigrationsThrottlingMs": 1},
    )
    .await
    .unwrap();
    assert_eq!(got.get_i32("balancerMigrationsThrottlingMs"), Ok(1000));
    let set = admin(
        &client,
        doc! {"setParameter": 1, "balancerMigrationsThrottlingMs": 200},
    )
    .await
    .unwrap();
    assert_eq!(set.get_i32("was"), Ok(1000));
    let err = admin(
        &client,
        doc! {"setParameter": 1, "balancerMigrationsThrottlingMs": -1},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 2, "{err}");
}
