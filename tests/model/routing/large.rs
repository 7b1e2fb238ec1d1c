//! Large tables (wide keys that tie on the order prefix) route like a binary search, before and after splits, moves and merges.

use super::*;

/// Keys for large tables: random ObjectIds, strings that tie on the whole 128-bit order prefix
/// (15 shared bytes) or on its high half only (7 shared bytes), and numbers of several types.
fn wide_key() -> BoxedStrategy<KeyValue> {
    prop_oneof![
        any::<[u8; 12]>().prop_map(KeyValue::ObjectId),
        "aaaaaaaaaaaaaaa[a-z]{0,3}".prop_map(KeyValue::string),
        "aaaaaaa[a-z]{1,8}".prop_map(KeyValue::string),
        "[a-z]{1,6}".prop_map(KeyValue::string),
        any::<i64>().prop_map(KeyValue::Int64),
        (-1000i64..1000).prop_map(KeyValue::Int64),
        (-2000i32..2000).prop_map(|h| KeyValue::Double(f64::from(h) / 2.0)),
    ]
    .boxed()
}

/// Builds a table on `bounds` and checks routing against a binary search over the sorted bounds
/// with full comparisons, then again after splits, moves and merges in the middle of it.
fn check_large_table(
    pattern: &KeyPattern,
    mut bounds: Vec<ShardKey>,
    probes: &[ShardKey],
) -> Result<(), TestCaseError> {
    let (min, max) = (pattern.global_min(), pattern.global_max());
    bounds.retain(|b| min < *b && *b < max);
    bounds.sort();
    bounds.dedup();
    let chunks: Vec<_> = std::iter::once(min)
        .chain(bounds.iter().cloned())
        .enumerate()
        .map(|(i, b)| {
            let info = ChunkInfo::new(ShardIdx(i as u32 % 7), ChunkVersion::new(1, i as u32));
            (b, info)
        })
        .collect();
    let mut t = RoutingTable::from_chunks(chunks, max).unwrap();
    let check = |t: &RoutingTable, bounds: &[ShardKey]| -> Result<(), TestCaseError> {
        if let Err(e) = t.check_invariants() {
            return Err(TestCaseError::fail(e));
        }
        prop_assert_eq!(t.len(), bounds.len() + 1);
        for k in probes.iter().chain(bounds) {
            // Chunk 0 starts at the global min; chunk i > 0 at bounds[i - 1].
            prop_assert_eq!(
                t.route(k),
                bounds.partition_point(|b| b <= k),
                "route({:?})",
                k
            );
        }
        for (i, b) in bounds.iter().enumerate() {
            prop_assert_eq!(t.find_by_min(b), Some(i + 1));
        }
        Ok(())
    };
    check(&t, &bounds)?;
    // Splits at probes, wherever they land.
    for k in probes.iter().take(40) {
        let i = t.route(k);
        if t.chunk(i).min < k && k < t.chunk(i).max {
            t.split(i, std::slice::from_ref(k), &[ChunkStats::ZERO; 2])
                .unwrap();
            bounds.insert(i, k.clone());
        }
    }
    check(&t, &bounds)?;
    // Merges of neighbours, after moving them together.
    for j in 0..40 {
        if t.len() < 3 {
            break;
        }
        let i = (j * 7919) % (t.len() - 1);
        let shard = t.chunk(i).info.shard;
        if t.chunk(i + 1).info.shard != shard {
            t.move_chunk(i + 1, shard, 0).unwrap();
        }
        t.merge(i..i + 2).unwrap();
        bounds.remove(i);
    }
    check(&t, &bounds)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Thousands of chunks: any search structure over the bounds is exercised across many blocks,
    /// with ties on whole prefixes and on their high halves.
    #[test]
    fn large_tables_route_like_a_search(
        bounds in prop::collection::vec(wide_key().prop_map(ShardKey::single), 1000..5000),
        probes in prop::collection::vec(wide_key().prop_map(ShardKey::single), 0..400),
    ) {
        check_large_table(&Kind::Int64.pattern(), bounds, &probes)?;
    }

    #[test]
    fn large_compound_tables_route_like_a_search(
        bounds in prop::collection::vec((-3i64..3, wide_key()), 1000..4000),
        probes in prop::collection::vec((-3i64..3, wide_key()), 0..400),
    ) {
        let key = |(a, b): (i64, KeyValue)| ShardKey::from_values(vec![KeyValue::Int64(a), b]).unwrap();
        let bounds = bounds.into_iter().map(key).collect();
        let probes: Vec<_> = probes.into_iter().map(key).collect();
        check_large_table(&Kind::Compound.pattern(), bounds, &probes)?;
    }
}
