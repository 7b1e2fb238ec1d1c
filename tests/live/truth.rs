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
