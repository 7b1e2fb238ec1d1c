#![allow(clippy::unwrap_used)]
//! `$currentOp` through the real `mongodb` driver: the balancer's migrations in flight (the drain
//! scenario run to a time when one is running, then served paused) as the donor's `moveChunk`
//! (4.4) or `_shardsvrMoveRange` (8.0), a resharding coordinator, and the refusals.

use crate::common;
use common::serve_paused as serve;

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::Client;
use mongodb::error::ErrorKind;
use shardtop::sim::Simulator;

fn scenario(text: &str, version: &str) -> Simulator {
    let sc = shardtop::sim::scenario::parse(text).unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

/// The drain scenario, stepped until the balancer has a migration in flight.
fn draining(version: &str) -> Simulator {
    let text = std::fs::read_to_string("assets/scenarios/drain.json").unwrap();
    let mut sim = scenario(&text, version);
    for _ in 0..20_000 {
        if !sim.cluster.balancer.in_flight.is_empty() {
            return sim;
        }
        sim.step();
    }
    panic!("no migration started");
}

async fn current_op(client: &Client, options: Document) -> Vec<Document> {
    client
        .database("admin")
        .aggregate(vec![
            doc! { "$currentOp": options },
            doc! { "$match": { "type": "op" } },
        ])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_in_flight_show_as_the_donor_shards_operations() {
    for (version, command) in [("4.4", "moveChunk"), ("8.0", "_shardsvrMoveRange")] {
        let sim = draining(version);
        let expected: Vec<(String, String, String)> = sim
            .cluster
            .balancer
            .in_flight
            .iter()
            .map(|m| {
                let from = sim.cluster.shard_id(m.from).to_string();
                let to = sim.cluster.shard_id(m.to).to_string();
                (m.ns.clone(), from, to)
            })
            .collect();
        let (server, client) = serve(sim).await;
        let ops = current_op(&client, doc! { "allUsers": true, "localOps": false }).await;
        assert_eq!(ops.len(), expected.len(), "{version}: {ops:?}");
        for (op, (ns, from, to)) in ops.iter().zip(&expected) {
            assert_eq!(op.get_str("ns").unwrap(), ns);
            assert_eq!(op.get_str("shard").unwrap(), from);
            assert_eq!(op.get_str("op").unwrap(), "command");
            assert!(op.get_bool("active").unwrap());
            let cmd = op.get_document("command").unwrap();
            assert_eq!(cmd.get_str(command).unwrap(), ns, "{version}: {cmd}");
            assert_eq!(cmd.get_str("fromShard").unwrap(), from);
            assert_eq!(cmd.get_str("toShard").unwrap(), to);
            assert!(cmd.get_document("min").unwrap().contains_key("customerId"));
            assert!(cmd.get_document("max").unwrap().contains_key("customerId"));
            assert!(op.get_i64("secs_running").unwrap() >= 0);
        }
        // A filter on the command, as monitoring scripts write it.
        let matched: Vec<Document> = client
            .database("admin")
            .aggregate(vec![
                doc! { "$currentOp": { "allUsers": true } },
                doc! { "$match": { format!("command.{command}"): "shop.orders" } },
            ])
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(matched.len(), expected.len());
        assert!(
            current_op(&client, doc! { "localOps": true })
                .await
                .is_empty()
        );
        server.shutdown().await;
    }
}

/// Two shards; `shop.orders` keeps its documents' `customerId` and `region` (so it can be
/// resharded).
const KEPT: &str = r#"{
  "name": "kept", "description": "", "seedPassage": "", "shards": 2,
  "reshardingMinimumOperationDurationMillis": 3000,
  "collections": [{ "ns": "shop.orders", "key": { "customerId": 1 }, "keepDocuments": true }],
  "workloads": [{
    "ns": "shop.orders", "rate": 1, "count": 1, "start": 100000, "docSize": 100,
    "fields": { "customerId": { "const": 1 }, "region": { "const": "eu" } }
  }],
  "until": 0
}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resharding_in_progress_and_refusals() {
    // The clock runs: reshardCollection answers when it commits (3 s here), and meanwhile
    // another client sees it in $currentOp.
    let opts =
        shardtop::serve::ServeOptions::new("127.0.0.1:0".parse().unwrap(), scenario(KEPT, "8.0"));
    let (server, client, _) = common::serve_opts(opts).await;
    assert!(current_op(&client, doc! {}).await.is_empty());
    let resharder = client.clone();
    let resharding = tokio::spawn(async move {
        resharder
            .database("admin")
            .run_command(doc! { "reshardCollection": "shop.orders", "key": { "region": 1 } })
            .await
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let ops = loop {
        let ops = current_op(&client, doc! { "allUsers": true, "localOps": false }).await;
        if !ops.is_empty() {
            break ops;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the resharding never showed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    // The coordinator, a donor per shard owning chunks, a recipient per shard (seed 003's table).
    let role = |field: &str| ops.iter().filter(|o| o.contains_key(field)).count();
    assert_eq!(role("coordinatorState"), 1, "{ops:?}");
    assert_eq!(
        role("donorState") + role("recipientState") + 1,
        ops.len(),
        "{ops:?}"
    );
    assert_eq!(role("recipientState"), 2, "{ops:?}");
    for op in &ops {
        let orig = op.get_document("originatingCommand").unwrap();
        assert_eq!(orig.get_str("reshardCollection").unwrap(), "shop.orders");
        assert_eq!(orig.get_document("key").unwrap(), &doc! { "region": 1 });
        assert!(op.get_i64("totalOperationTimeElapsedSecs").is_ok(), "{op}");
    }
    let recipient = ops
        .iter()
        .find(|o| o.contains_key("recipientState"))
        .unwrap();
    let copying = ["cloning", "applying"];
    assert!(
        copying.contains(&recipient.get_str("recipientState").unwrap()),
        "{recipient}"
    );
    assert!(recipient.get_i64("documentsCopied").is_ok(), "{recipient}");
    assert!(
        recipient
            .get_i64("remainingOperationTimeEstimatedSecs")
            .unwrap()
            > 0,
        "{recipient}"
    );
    let donor = ops.iter().find(|o| o.contains_key("donorState")).unwrap();
    let donating = ["donating-initial-data", "donating-oplog-entries"];
    assert!(
        donating.contains(&donor.get_str("donorState").unwrap()),
        "{donor}"
    );
    let e = client
        .database("shop")
        .collection::<Document>("orders")
        .aggregate(vec![doc! { "$currentOp": {} }])
        .await
        .unwrap_err();
    match &*e.kind {
        ErrorKind::Command(c) => assert_eq!(c.code, 73, "{e}"),
        other => panic!("{other:?}"),
    }
    resharding.await.unwrap().unwrap();
    assert!(
        current_op(&client, doc! { "allUsers": true, "localOps": false })
            .await
            .is_empty(),
        "answered once committed"
    );
    server.shutdown().await;
}
