//! `moveCollection` and `unshardCollection` (8.0): reshardings to `{_id: 1}` that end with an
//! unsharded collection tracked as unsplittable; their refusals; `collectionsToMove` of a drain;
//! and `reshardCollection`'s `shardDistribution` and `zones`.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::resharding::Provenance;
use shardtop::cluster::{EventKind, Placement};
use shardtop::model::{KeyPattern, ShardIdx};
use shardtop::sim::drains::RemoveShardState;
use shardtop::sim::{Simulator, scenario};

fn start(version: &str) -> Simulator {
    let sc = scenario::built_in("move-collection").unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

fn docs(s: &Simulator, ns: &str) -> u64 {
    let c = s.cluster.collection_index(ns).unwrap();
    s.cluster.collections[c]
        .table
        .iter()
        .map(|ch| ch.info.stats.docs)
        .sum()
}

fn holder(s: &Simulator, ns: &str) -> (Placement, usize, ShardIdx) {
    let c = s.cluster.collection_index(ns).unwrap();
    let coll = &s.cluster.collections[c];
    (
        coll.placement,
        coll.table.len(),
        coll.table.chunk(0).info.shard,
    )
}

#[test]
fn move_and_unshard_end_unsplittable_on_one_shard_with_every_document() {
    let mut s = start("8.0");
    s.run_until(59_000);
    assert_eq!(
        holder(&s, "app.events"),
        (Placement::Untracked, 1, ShardIdx(0))
    );
    assert_eq!(holder(&s, "app.audit").0, Placement::Sharded);
    s.run_until(61_000);
    let started: Vec<Provenance> = s
        .take_events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ReshardingStarted { provenance, .. } => Some(*provenance),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        [Provenance::MoveCollection, Provenance::UnshardCollection]
    );
    assert_eq!(
        holder(&s, "app.events").0,
        Placement::Unsplittable,
        "tracked first"
    );
    s.run_until(420_000);
    assert_eq!(
        holder(&s, "app.events"),
        (Placement::Unsplittable, 1, ShardIdx(2))
    );
    let (placement, chunks, _) = holder(&s, "app.audit");
    assert_eq!((placement, chunks), (Placement::Unsplittable, 1));
    assert_eq!(docs(&s, "app.events"), 80_000);
    assert_eq!(docs(&s, "app.audit"), 20_000);
    let c = s.cluster.collection_index("app.events").unwrap();
    assert_eq!(
        s.cluster.collections[c].pattern,
        KeyPattern::parse_json(r#"{"_id": 1}"#).unwrap()
    );
}

#[test]
fn before_eight_the_commands_do_not_exist() {
    let mut s = start("7.0");
    s.run_until(420_000);
    assert_eq!(
        holder(&s, "app.events"),
        (Placement::Untracked, 1, ShardIdx(0))
    );
    let errors = s.action_errors().join("\n");
    assert!(
        errors.contains("no such command: 'moveCollection'"),
        "{errors}"
    );
    assert!(
        errors.contains("no such command: 'unshardCollection'"),
        "{errors}"
    );
}

#[test]
fn refusals_are_the_servers() {
    let mut s = start("8.0");
    let e = s.move_collection("app.orders", "shard0001").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            26,
            "MoveCollection can only be called on an unsharded collection."
        )
    );
    let e = s.move_collection("app.events", "shard9").unwrap_err();
    assert_eq!(
        (e.code_name, e.message.as_str()),
        ("ShardNotFound", "Shard shard9 not found")
    );
    let e = s.move_collection("app.nothing", "shard0001").unwrap_err();
    assert_eq!(e.code, 26, "{e}");
    // Already there: nothing to do.
    s.move_collection("app.events", "shard0000").unwrap();
    assert!(
        s.cluster.collections[s.cluster.collection_index("app.events").unwrap()]
            .resharding
            .is_none()
    );
    let e = s.unshard_collection("app.events", None).unwrap_err();
    assert_eq!(e.code, 26, "untracked: {e}");
    s.move_collection("app.events", "shard0001").unwrap();
    s.run_until(400_000);
    s.unshard_collection("app.events", None).unwrap();
    s.unshard_collection("app.events", Some("shard0001"))
        .unwrap();
    let e = s
        .unshard_collection("app.events", Some("shard0000"))
        .unwrap_err();
    assert_eq!(e.code_name, "NamespaceNotSharded");
    assert!(
        e.message.starts_with("Collection is already unsharded."),
        "{e}"
    );
    // An unsharded collection is not split, moved or balanced as a sharded one.
    assert_eq!(
        s.split_find(
            "app.events",
            &shardtop::model::ShardKey::single(shardtop::model::KeyValue::Int32(1))
        )
        .unwrap_err()
        .code_name,
        "NamespaceNotSharded"
    );
}

#[test]
fn a_drain_lists_unsharded_collections_to_move_and_move_primary_takes_untracked_ones() {
    let mut s = start("8.0");
    s.run_until(10_000);
    match s.remove_shard("shard0000").unwrap() {
        RemoveShardState::Started {
            dbs_to_move,
            collections_to_move,
        } => {
            assert_eq!(dbs_to_move, ["app"]);
            assert_eq!(collections_to_move, ["app.events"]);
        }
        other => panic!("{other:?}"),
    }
    s.move_primary("app", "shard0001").unwrap();
    assert_eq!(
        holder(&s, "app.events"),
        (Placement::Untracked, 1, ShardIdx(1))
    );
    match s.remove_shard("shard0000").unwrap() {
        RemoveShardState::Ongoing {
            collections_to_move,
            dbs_to_move,
            ..
        } => {
            assert!(collections_to_move.is_empty() && dbs_to_move.is_empty());
        }
        other => panic!("{other:?}"),
    }
}
