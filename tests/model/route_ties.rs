//! `route` equals a linear scan, also where every order prefix ties and around index blocks.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shardtop::model::{
    ChunkInfo, ChunkVersion, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey,
};

fn key(i: u64, long: bool) -> ShardKey {
    if long {
        // A shared 20-byte prefix: every order prefix ties, so the full comparison decides.
        ShardKey::single(KeyValue::string(format!("customer-region-emea-{i:08}")))
    } else {
        ShardKey::single(KeyValue::Int64(i as i64))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn route_equals_a_linear_scan(
        bounds in proptest::collection::btree_set(1u64..1_000_000, 1..3000),
        probes in proptest::collection::vec(0u64..1_100_000, 0..700),
        long in any::<bool>(),
    ) {
        let pattern = KeyPattern::parse_json(r#"{"k": 1}"#).unwrap();
        let mut chunks = vec![(pattern.global_min(), ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, 0)))];
        for (i, b) in bounds.iter().enumerate() {
            chunks.push((key(*b, long), ChunkInfo::new(ShardIdx((i % 7) as u32), ChunkVersion::new(1, i as u32 + 1))));
        }
        let table = RoutingTable::from_chunks(chunks, pattern.global_max()).unwrap();
        let mut keys: Vec<ShardKey> = probes.iter().map(|p| key(*p, long)).collect();
        keys.extend(bounds.iter().take(40).map(|b| key(*b, long)));
        keys.push(pattern.global_min());
        for k in &keys {
            let scan = table.iter().filter(|c| c.min <= k).count() - 1;
            prop_assert_eq!(table.route(k), scan, "{:?}", k);
        }
    }
}
