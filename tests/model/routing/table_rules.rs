//! Split, merge, move and moveRange rules, chunk versions, layout validation and statistics totals.

use super::*;

#[test]
fn split_must_be_strictly_inside_the_chunk() {
    let mut t = int_table();
    // At the global bounds.
    for bound in [
        ShardKey::single(KeyValue::MinKey),
        ShardKey::single(KeyValue::MaxKey),
    ] {
        assert!(matches!(
            t.split(0, &[bound], &zeros(2)),
            Err(RoutingError::InvalidSplitPoint(_))
        ));
    }
    t.split(0, &[int(10), int(20)], &zeros(3)).unwrap();
    // Chunk 1 is [10, 20): its bounds and points outside it are refused.
    for p in [10, 20, 5, 25, i64::MIN, i64::MAX] {
        assert!(
            matches!(
                t.split(1, &[int(p)], &zeros(2)),
                Err(RoutingError::InvalidSplitPoint(_))
            ),
            "split at {p}"
        );
    }
    // 10.0 and NumberInt(10) are the bound too.
    assert!(matches!(
        t.split(1, &[ShardKey::single(KeyValue::Double(10.0))], &zeros(2)),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    assert!(matches!(
        t.split(1, &[ShardKey::single(KeyValue::Int32(20))], &zeros(2)),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    // Order, count and statistics.
    assert!(matches!(
        t.split(1, &[], &zeros(1)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15), int(12)], &zeros(3)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15), int(15)], &zeros(3)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15)], &zeros(3)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15)], &[ChunkStats::new(1, 0, 0), ChunkStats::ZERO]),
        Err(RoutingError::BadSplit(_))
    ));
    assert_eq!(t.len(), 3);
    // Strictly inside works, also as a double between integers.
    t.split(1, &[ShardKey::single(KeyValue::Double(10.5))], &zeros(2))
        .unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t.route(&int(10)), 1);
    assert_eq!(t.route(&int(11)), 2);
    t.check_invariants().unwrap();
}

#[test]
fn merge_rules() {
    let mut t = int_table();
    t.split(0, &[int(10), int(20), int(30)], &zeros(4)).unwrap();
    t.move_chunk(2, ShardIdx(1), 0).unwrap();
    // Across shards.
    assert!(matches!(t.merge(1..3), Err(RoutingError::BadMerge(_))));
    assert!(matches!(t.merge(0..4), Err(RoutingError::BadMerge(_))));
    // Fewer than two, or out of range.
    assert!(matches!(t.merge(0..1), Err(RoutingError::BadMerge(_))));
    assert!(matches!(t.merge(3..5), Err(RoutingError::BadMerge(_))));
    let v = t.version();
    t.merge(0..2).unwrap();
    assert_eq!(t.len(), 3);
    assert_eq!(t.chunk(0).info.version, v.next_minor());
    assert_eq!(t.version(), v.next_minor());
    assert_eq!(t.chunk(0).max, &int(20));
    t.check_invariants().unwrap();
}

#[test]
fn split_versions_are_successive_minors_in_key_order() {
    let mut t = int_table();
    assert_eq!(t.version(), ChunkVersion::new(1, 0));
    assert_eq!(t.chunk(0).info.version, ChunkVersion::new(1, 0));
    t.split(0, &[int(0), int(10)], &zeros(3)).unwrap();
    let versions: Vec<_> = t.iter().map(|c| c.info.version).collect();
    assert_eq!(
        versions,
        [
            ChunkVersion::new(1, 1),
            ChunkVersion::new(1, 2),
            ChunkVersion::new(1, 3)
        ]
    );
    assert_eq!(t.version(), ChunkVersion::new(1, 3));
    // Splitting a later chunk continues from the collection version.
    t.split(0, &[int(-5)], &zeros(2)).unwrap();
    let versions: Vec<_> = t.iter().map(|c| c.info.version).collect();
    assert_eq!(
        versions,
        [
            ChunkVersion::new(1, 4),
            ChunkVersion::new(1, 5),
            ChunkVersion::new(1, 2),
            ChunkVersion::new(1, 3)
        ]
    );
    assert_eq!(t.shard_totals(ShardIdx(0)).version, ChunkVersion::new(1, 5));
    t.check_invariants().unwrap();
}

#[test]
fn move_versions_and_control_chunk() {
    let mut t = int_table();
    t.split(0, &[int(0), int(10)], &zeros(3)).unwrap(); // (1,1) (1,2) (1,3)
    t.move_chunk(1, ShardIdx(1), 42).unwrap();
    assert_eq!(t.chunk(1).info.shard, ShardIdx(1));
    assert_eq!(t.chunk(1).info.version, ChunkVersion::new(2, 0));
    assert_eq!(t.chunk(1).info.since, 42);
    // The control chunk: another chunk left on the donor, next to the moved one.
    let donor: Vec<_> = t
        .iter()
        .filter(|c| c.info.shard == ShardIdx(0))
        .map(|c| c.info.version)
        .collect();
    assert!(donor.contains(&ChunkVersion::new(2, 1)), "{donor:?}");
    assert_eq!(t.version(), ChunkVersion::new(2, 1));
    assert_eq!(t.shard_totals(ShardIdx(0)).version, ChunkVersion::new(2, 1));
    assert_eq!(t.shard_totals(ShardIdx(1)).version, ChunkVersion::new(2, 0));
    assert_eq!(t.shard_totals(ShardIdx(1)).chunks, 1);
    // Moving to the owner is refused.
    assert!(matches!(
        t.move_chunk(1, ShardIdx(1), 0),
        Err(RoutingError::BadMove(_))
    ));
    // The donor's last chunk leaves: its shard version drops to (0,0), no control chunk.
    t.move_chunk(1, ShardIdx(2), 50).unwrap();
    assert_eq!(t.chunk(1).info.version, ChunkVersion::new(3, 0));
    assert_eq!(t.version(), ChunkVersion::new(3, 0));
    let emptied = t.shard_totals(ShardIdx(1));
    assert_eq!(emptied.chunks, 0);
    assert_eq!(emptied.version, ChunkVersion::new(0, 0));
    assert_eq!(t.shard_totals(ShardIdx(9)).version, ChunkVersion::new(0, 0));
    t.check_invariants().unwrap();
}

#[test]
fn move_range_splits_and_moves() {
    let mut t = int_table();
    t.split(0, &[int(0), int(100)], &zeros(3)).unwrap(); // (1,1) (1,2) (1,3)
    t.add_stats(1, ChunkStats::new(10, 1000, 10));
    // More than the chunk holds.
    assert!(matches!(
        t.move_range(1, Some(&int(50)), ChunkStats::new(11, 0, 0), ShardIdx(1), 0),
        Err(RoutingError::BadMove(_))
    ));
    // Outside the chunk.
    assert!(matches!(
        t.move_range(1, Some(&int(150)), ChunkStats::ZERO, ShardIdx(1), 0),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    assert!(matches!(
        t.move_range(1, Some(&int(0)), ChunkStats::ZERO, ShardIdx(1), 0),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    // To its own shard.
    assert!(matches!(
        t.move_range(1, Some(&int(50)), ChunkStats::ZERO, ShardIdx(0), 0),
        Err(RoutingError::BadMove(_))
    ));
    assert_eq!(t.len(), 3);
    t.move_range(
        1,
        Some(&int(50)),
        ChunkStats::new(4, 400, 4),
        ShardIdx(1),
        9,
    )
    .unwrap();
    assert_eq!(t.len(), 4);
    let moved = t.chunk(1);
    assert_eq!((moved.min, moved.max), (&int(0), &int(50)));
    assert_eq!(moved.info.shard, ShardIdx(1));
    assert_eq!(moved.info.stats, ChunkStats::new(4, 400, 4));
    assert_eq!(moved.info.version, ChunkVersion::new(2, 0));
    let left = t.chunk(2);
    assert_eq!((left.min, left.max), (&int(50), &int(100)));
    assert_eq!(left.info.shard, ShardIdx(0));
    assert_eq!(left.info.stats, ChunkStats::new(6, 600, 6));
    assert_eq!(left.info.version, ChunkVersion::new(2, 1));
    // 8.0's commitChunkMigration: the donor's control chunk takes the next minor of the new major.
    let control = t.chunk(0);
    assert_eq!(control.info.shard, ShardIdx(0));
    assert_eq!(control.info.version, ChunkVersion::new(2, 2));
    assert_eq!(t.version(), ChunkVersion::new(2, 2));
    // The whole chunk (upto = its max) is a plain move.
    t.move_range(
        3,
        Some(&ShardKey::single(KeyValue::MaxKey)),
        ChunkStats::ZERO,
        ShardIdx(2),
        0,
    )
    .unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t.chunk(3).info.shard, ShardIdx(2));
    assert_eq!(t.chunk(3).info.version, ChunkVersion::new(3, 0));
    t.check_invariants().unwrap();
}

#[test]
fn from_chunks_validates_the_layout() {
    let p = Kind::Int64.pattern();
    let info = |m| ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, m));
    assert!(matches!(
        RoutingTable::from_chunks(vec![], p.global_max()),
        Err(RoutingError::BadLayout(_))
    ));
    assert!(matches!(
        RoutingTable::from_chunks(
            vec![
                (p.global_min(), info(0)),
                (int(5), info(1)),
                (int(5), info(2))
            ],
            p.global_max()
        ),
        Err(RoutingError::BadLayout(_))
    ));
    assert!(matches!(
        RoutingTable::from_chunks(
            vec![
                (p.global_min(), info(0)),
                (int(5), info(1)),
                (int(3), info(2))
            ],
            p.global_max()
        ),
        Err(RoutingError::BadLayout(_))
    ));
    assert!(matches!(
        RoutingTable::from_chunks(vec![(p.global_min(), info(0))], p.global_min()),
        Err(RoutingError::BadLayout(_))
    ));
    let t = RoutingTable::from_chunks(
        vec![(p.global_min(), info(0)), (int(5), info(1))],
        p.global_max(),
    )
    .unwrap();
    assert_eq!(t.version(), ChunkVersion::new(1, 1));
    assert_eq!(t.route(&int(4)), 0);
    assert_eq!(t.route(&int(5)), 1);
    assert_eq!(t.route(&ShardKey::single(KeyValue::Double(4.9))), 0);
    assert_eq!(t.route(&ShardKey::single(KeyValue::Null)), 0);
    assert_eq!(t.route(&ShardKey::single(KeyValue::string(""))), 1);
    assert_eq!(t.find_by_min(&int(5)), Some(1));
    assert_eq!(
        t.find_by_min(&ShardKey::single(KeyValue::Int32(5))),
        Some(1)
    );
    assert_eq!(t.find_by_min(&int(6)), None);
    t.check_invariants().unwrap();
}

#[test]
fn statistics_and_jumbo_totals() {
    let mut t = int_table();
    t.split(0, &[int(0)], &zeros(2)).unwrap();
    t.move_chunk(1, ShardIdx(1), 0).unwrap();
    t.add_stats(0, ChunkStats::new(5, 50, 1));
    t.add_stats(1, ChunkStats::new(7, 70, 1));
    t.remove_stats(1, ChunkStats::new(100, 10, 9));
    assert_eq!(t.chunk(1).info.stats, ChunkStats::new(0, 60, 1));
    t.set_jumbo(0, true);
    t.set_jumbo(0, true);
    assert_eq!(t.shard_totals(ShardIdx(0)).jumbo, 1);
    assert_eq!(t.shard_totals(ShardIdx(0)).stats, ChunkStats::new(5, 50, 1));
    assert_eq!(t.shard_totals(ShardIdx(1)).stats, ChunkStats::new(0, 60, 1));
    // A move keeps statistics and the jumbo flag with the chunk.
    t.move_chunk(0, ShardIdx(1), 0).unwrap();
    assert_eq!(t.shard_totals(ShardIdx(0)), ShardTotals::default());
    assert_eq!(t.shard_totals(ShardIdx(1)).jumbo, 1);
    assert_eq!(
        t.shard_totals(ShardIdx(1)).stats,
        ChunkStats::new(5, 110, 2)
    );
    // A merge clears jumbo.
    t.merge(0..2).unwrap();
    assert_eq!(t.shard_totals(ShardIdx(1)).jumbo, 0);
    assert!(!t.chunk(0).info.jumbo);
    t.check_invariants().unwrap();
}
