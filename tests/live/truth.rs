//! What `watch` says must be so: the balancer's mode as MongoDB means it, per-collection
//! balancing settings, the reasons and sizes of migrations in flight, values no server reports.

use bson::doc;
use shardtop::cluster::balancer::BalancerMode;
use shardtop::live::config::{CollectionDoc, SettingsDocs};

fn mode_of(balancer: bson::Document) -> BalancerMode {
    let mut d = doc! {"_id": "balancer"};
    d.extend(balancer);
    SettingsDocs::parse(&[d]).unwrap().balancer_mode
}

#[test]
fn balancer_modes_as_mongodb_reads_them() {
    assert_eq!(mode_of(doc! {}), BalancerMode::Full);
    assert_eq!(mode_of(doc! {"mode": "full"}), BalancerMode::Full);
    assert_eq!(
        mode_of(doc! {"mode": "autoSplitOnly"}),
        BalancerMode::AutoSplitOnly
    );
    assert_eq!(mode_of(doc! {"mode": "off"}), BalancerMode::Off);
    // `stopped: true` wins over any mode.
    assert_eq!(
        mode_of(doc! {"stopped": true, "mode": "full"}),
        BalancerMode::Off
    );
    assert_eq!(
        mode_of(doc! {"stopped": false, "mode": "autoSplitOnly"}),
        BalancerMode::AutoSplitOnly
    );
    // A mode no release knows turns the balancer off (7.1+).
    assert_eq!(mode_of(doc! {"mode": "sometimes"}), BalancerMode::Off);
    assert!(!BalancerMode::AutoSplitOnly.migrates());
    assert!(BalancerMode::Full.migrates());
}

#[test]
fn collection_balancing_settings_are_read() {
    let d = doc! {
        "_id": "app.orders", "key": {"a": 1}, "noBalance": true, "permitMigrations": false,
        "enableAutoMerge": false, "defragmentCollection": true,
        "defragmentationPhase": "moveAndMergeChunks",
    };
    let c = CollectionDoc::parse(&d).unwrap();
    assert!(c.no_balance && c.balancing.no_balance);
    assert!(c.balancing.migrations_blocked);
    assert_eq!(c.balancing.auto_merge, Some(false));
    assert_eq!(
        c.defragmentation,
        Some(Some(
            shardtop::cluster::defragmentation::DefragmentationPhase::MoveAndMergeChunks
        ))
    );
    let plain = CollectionDoc::parse(&doc! {"_id": "app.x", "key": {"a": 1}}).unwrap();
    assert!(!plain.balancing.no_balance && !plain.balancing.migrations_blocked);
    assert_eq!(plain.defragmentation, None);
}

use shardtop::cluster::Cluster;
use shardtop::cluster::event::MigrationReason;
use shardtop::live::config::ShardDoc;
use shardtop::live::in_flight;
use shardtop::live::snapshot::{self, ConfigSnapshot, ShardList};
use shardtop::model::{ChunkInfo, ChunkStats, ChunkVersion, RoutingTable, ShardIdx, ShardKey};

/// A cluster of `shards` (`(id, draining)`), one collection `app.c` `{a: 1}` whose document is
/// `extra` over the plain one, chunks split at 0, 100, 200… owned in turn by the shards, and the
/// balancer settings `balancer`.
pub fn cluster(
    shards: &[(&str, bool)],
    extra: bson::Document,
    balancer: bson::Document,
) -> Cluster {
    let shard_docs: Vec<ShardDoc> = shards
        .iter()
        .map(|(id, draining)| ShardDoc::parse(&doc! {"_id": *id, "draining": *draining}).unwrap())
        .collect();
    let mut d = doc! {"_id": "app.c", "key": {"a": 1}};
    d.extend(extra);
    let coll = CollectionDoc::parse(&d).unwrap();
    let list = ShardList::new(&shard_docs, &snapshot::empty());
    let mut chunks = Vec::new();
    for (i, _) in shards.iter().enumerate().chain(shards.iter().enumerate()) {
        let min = if chunks.is_empty() {
            coll.key.global_min()
        } else {
            key(chunks.len() as i64 * 100)
        };
        let shard = ShardIdx((i % shards.len()) as u32);
        chunks.push((
            min,
            ChunkInfo::new(shard, ChunkVersion::new(1, chunks.len() as u32)),
        ));
    }
    let mut table = RoutingTable::from_chunks(chunks, coll.key.global_max()).unwrap();
    let owned: Vec<(ShardIdx, ChunkStats)> = (0..shards.len())
        .map(|s| (ShardIdx(s as u32), ChunkStats::new(1000, 64 << 20, 0)))
        .collect();
    table.spread_owned(&owned);
    let c = snapshot::collection(&coll, table, &[]).0;
    let mut set = doc! {"_id": "balancer"};
    set.extend(balancer);
    let settings = SettingsDocs::parse(&[set]).unwrap();
    let snap = ConfigSnapshot {
        version: shardtop::cluster::ServerVersion::V8_0,
        shards: &shard_docs,
        settings: &settings,
        databases: &[],
        tags: &[],
    };
    snapshot::cluster(&snap, list, vec![c])
}

pub fn key(a: i64) -> ShardKey {
    shardtop::model::KeyPattern::parse(&doc! {"a": 1})
        .unwrap()
        .bound_from_document(&doc! {"a": a})
        .unwrap()
}

fn move_cmd(from: &str, force_jumbo: i32) -> bson::Document {
    doc! {"_shardsvrMoveRange": "app.c", "fromShard": from, "toShard": "s1", "min": {"a": 100},
    "max": {"a": 200}, "forceJumbo": force_jumbo}
}

#[test]
fn a_migration_is_never_labelled_chunks_imbalance_without_a_reason() {
    let c = cluster(&[("s0", false), ("s1", false)], doc! {}, doc! {});
    let cmd = move_cmd("s0", 0);
    // Nothing known: unknown.
    assert_eq!(
        in_flight::reason(&cmd, &c, "app.c", ShardIdx(0), None),
        MigrationReason::Unknown
    );
    // balancerCollectionStatus's violation, with a balancer that acts on it.
    assert_eq!(
        in_flight::reason(&cmd, &c, "app.c", ShardIdx(0), Some("chunksImbalance")),
        MigrationReason::ChunksImbalance
    );
    assert_eq!(
        in_flight::reason(&cmd, &c, "app.c", ShardIdx(0), Some("zoneViolation")),
        MigrationReason::ZoneViolation
    );
    // A manual move forcing a jumbo chunk says so.
    assert_eq!(
        in_flight::reason(
            &move_cmd("s0", 1),
            &c,
            "app.c",
            ShardIdx(0),
            Some("chunksImbalance")
        ),
        MigrationReason::ManualForce
    );
    // The balancer off, or the collection not balanced: not the balancer's imbalance.
    let off = cluster(
        &[("s0", false), ("s1", false)],
        doc! {},
        doc! {"mode": "autoSplitOnly"},
    );
    assert_eq!(
        in_flight::reason(&cmd, &off, "app.c", ShardIdx(0), Some("chunksImbalance")),
        MigrationReason::Unknown
    );
    let nb = cluster(
        &[("s0", false), ("s1", false)],
        doc! {"noBalance": true},
        doc! {},
    );
    assert_eq!(
        in_flight::reason(&cmd, &nb, "app.c", ShardIdx(0), Some("chunksImbalance")),
        MigrationReason::Unknown
    );
    // Off a draining shard: a drain.
    let drain = cluster(&[("s0", true), ("s1", false)], doc! {}, doc! {});
    assert_eq!(
        in_flight::reason(&cmd, &drain, "app.c", ShardIdx(0), Some("chunksImbalance")),
        MigrationReason::Drain
    );
    // Defragmenting.
    let defrag = cluster(
        &[("s0", false), ("s1", false)],
        doc! {"defragmentCollection": true, "defragmentationPhase": "moveAndMergeChunks"},
        doc! {},
    );
    assert_eq!(
        in_flight::reason(&cmd, &defrag, "app.c", ShardIdx(0), None),
        MigrationReason::Defragmentation
    );
}

#[test]
fn a_migration_size_is_an_estimate_of_whole_chunks_or_unknown() {
    let c = cluster(&[("s0", false), ("s1", false)], doc! {}, doc! {});
    let sized: std::collections::HashSet<(String, String)> =
        [("app.c".to_string(), "s1".to_string())].into();
    // [100, 200) is one chunk of s1: s1 owns 64 MiB over its two chunks.
    assert_eq!(
        in_flight::size(&c, "app.c", (&key(100), &key(200)), ShardIdx(1), &sized),
        Some(32 << 20)
    );
    // Not the donor's chunk, not whole chunks, or the donor's size not read: unknown.
    assert_eq!(
        in_flight::size(&c, "app.c", (&key(100), &key(200)), ShardIdx(0), &sized),
        None
    );
    assert_eq!(
        in_flight::size(&c, "app.c", (&key(100), &key(150)), ShardIdx(1), &sized),
        None
    );
    assert_eq!(
        in_flight::size(
            &c,
            "app.c",
            (&key(100), &key(200)),
            ShardIdx(1),
            &std::collections::HashSet::<(String, String)>::new()
        ),
        None
    );
}

#[test]
fn why_lines_agree_with_settings_and_what_is_in_flight() {
    let nb = cluster(
        &[("s0", false), ("s1", false)],
        doc! {"noBalance": true},
        doc! {},
    );
    let why = in_flight::why(&nb, &["app.c: chunksImbalance".to_string()]);
    assert_eq!(why.len(), 1, "{why:?}");
    assert!(why[0].contains("noBalance"), "{why:?}");
    assert!(why[0].contains("chunksImbalance left as is"), "{why:?}");
    // Even with no balancerCollectionStatus answer, noBalance is said.
    assert!(in_flight::why(&nb, &[])[0].contains("noBalance (the balancer skips it)"));
    let off = cluster(
        &[("s0", false), ("s1", false)],
        doc! {},
        doc! {"mode": "autoSplitOnly"},
    );
    let why = in_flight::why(&off, &["app.c: chunksImbalance".to_string()]);
    assert!(
        why[0].contains("but balancer autoSplitOnly: no migrations"),
        "{why:?}"
    );
    // Never "balanced" while a migration of the collection is in flight.
    let mut moving = cluster(&[("s0", false), ("s1", false)], doc! {}, doc! {});
    moving
        .balancer
        .in_flight
        .push(shardtop::cluster::balancer::Migration {
            id: 1,
            ns: "app.c".into(),
            min: key(100),
            end: None,
            max: key(200),
            from: ShardIdx(1),
            to: ShardIdx(0),
            started_ms: 0,
            finish_ms: 0,
            bytes: None,
            bytes_estimated: true,
            reason: MigrationReason::Unknown,
        });
    let why = in_flight::why(
        &moving,
        &["app.c: balanced (balancerCompliant)".to_string()],
    );
    assert!(why[0].contains("a migration in flight"), "{why:?}");
    assert!(!why[0].starts_with("app.c: balanced"), "{why:?}");
}

#[test]
fn values_no_server_reports_are_flagged_not_read_as_sizes() {
    use shardtop::live::data_sizes::{MAX_PLAUSIBLE, checked};
    let d = doc! {
        "ok32": 5_i32, "ok64": 7_i64, "okf": 2.0, "neg": -1_i64, "nan": f64::NAN,
        "inf": f64::INFINITY, "huge": 1e300, "big": (MAX_PLAUSIBLE as i64) + 1, "text": "64",
    };
    assert_eq!(checked(&d, "ok32"), Ok(5));
    assert_eq!(checked(&d, "ok64"), Ok(7));
    assert_eq!(checked(&d, "okf"), Ok(2));
    assert_eq!(checked(&d, "missing"), Ok(0));
    for bad in ["neg", "nan", "inf", "huge", "big", "text"] {
        assert_eq!(checked(&d, bad), Err(bad), "{bad}");
    }
}
