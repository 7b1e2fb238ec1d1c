//! Zone ranges through the real driver as a config server keeps them: a range defined before
//! its namespace is sharded is in `config.tags` already, and removing bounds that match no range
//! changes nothing and answers ok.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{admin, serve_empty};
use futures::TryStreamExt;

async fn tags(client: &mongodb::Client) -> Vec<Document> {
    client
        .database("config")
        .collection::<Document>("tags")
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test]
async fn ranges_before_sharding_are_listed_and_a_missing_range_removes_nothing() {
    let (server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"addShardToZone": "shard0000", "zone": "EU"})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"updateZoneKeyRange": "app.users", "min": {"region": "EU"}, "max": {"region": "EV"}, "zone": "EU"},
    )
    .await
    .unwrap();
    let listed = tags(&client).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].get_str("ns"), Ok("app.users"));
    assert_eq!(listed[0].get_str("tag"), Ok("EU"));
    assert_eq!(
        listed[0].get_document("min").unwrap(),
        &doc! {"region": "EU"}
    );

    admin(
        &client,
        doc! {"shardCollection": "app.users", "key": {"region": 1}},
    )
    .await
    .unwrap();
    assert_eq!(
        tags(&client).await.len(),
        1,
        "the same range, now the collection's"
    );
    admin(
        &client,
        doc! {"updateZoneKeyRange": "app.users", "min": {"region": "A"}, "max": {"region": "B"}, "zone": null},
    )
    .await
    .unwrap();
    assert_eq!(
        tags(&client).await.len(),
        1,
        "no range matched: nothing removed"
    );
    admin(
        &client,
        doc! {"updateZoneKeyRange": "app.users", "min": {"region": "EU"}, "max": {"region": "EV"}, "zone": null},
    )
    .await
    .unwrap();
    assert!(tags(&client).await.is_empty());
    server.shutdown().await;
}

/// `removeShard` goes through the simulator: the only shard of a zone with a range is refused
/// as `db/s/config/sharding_catalog_manager_shard_operations.cpp` refuses it (ZoneStillInUse).
#[tokio::test]
async fn remove_shard_of_the_only_shard_of_a_used_zone_is_zone_still_in_use() {
    let (server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"addShardToZone": "shard0001", "zone": "EU"})
        .await
        .unwrap();
    admin(
        &client,
        doc! {"updateZoneKeyRange": "app.users", "min": {"region": "EU"}, "max": {"region": "EV"}, "zone": "EU"},
    )
    .await
    .unwrap();
    let err = admin(&client, doc! {"removeShard": "shard0001"})
        .await
        .unwrap_err();
    assert_eq!(common::code_of(&err), 163);
    assert!(
        err.to_string().contains(
            "Operation not allowed because it would remove the only shard for zone EU which has a chunk range is associated with it"
        ),
        "{err}"
    );
    server.shutdown().await;
}
