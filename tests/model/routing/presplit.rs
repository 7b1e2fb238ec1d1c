//! Hashed pre-split points against MongoDB's, sorted and symmetric.

use super::*;

#[test]
fn hashed_split_points_match_mongodb() {
    assert_eq!(
        hashed_split_points(6),
        [
            -6_148_914_691_236_517_204,
            -3_074_457_345_618_258_602,
            0,
            3_074_457_345_618_258_602,
            6_148_914_691_236_517_204
        ]
    );
    assert_eq!(
        hashed_split_points(3),
        [-3_074_457_345_618_258_602, 3_074_457_345_618_258_602]
    );
    assert_eq!(
        hashed_split_points(4),
        [-4_611_686_018_427_387_902, 0, 4_611_686_018_427_387_902]
    );
    assert_eq!(
        hashed_split_points(8),
        [
            -6_917_529_027_641_081_850,
            -4_611_686_018_427_387_900,
            -2_305_843_009_213_693_950,
            0,
            2_305_843_009_213_693_950,
            4_611_686_018_427_387_900,
            6_917_529_027_641_081_850
        ]
    );
    assert_eq!(hashed_split_points(2), [0]);
    assert!(hashed_split_points(1).is_empty());
    assert!(hashed_split_points(0).is_empty());
}

proptest! {
    #[test]
    fn hashed_split_points_are_sorted_and_symmetric(n in 2u32..5000) {
        let points = hashed_split_points(n);
        prop_assert_eq!(points.len(), n as usize - 1);
        prop_assert!(points.windows(2).all(|w| w[0] < w[1]));
        let mut negated: Vec<i64> = points.iter().map(|p| -p).collect();
        negated.reverse();
        prop_assert_eq!(&negated, &points);
        prop_assert_eq!(points.contains(&0), n % 2 == 0);
        // They make a valid table.
        let p = KeyPattern::parse_json(r#"{"h": "hashed"}"#).unwrap();
        let chunks: Vec<_> = std::iter::once(p.global_min())
            .chain(points.iter().map(|&x| ShardKey::single(KeyValue::Int64(x))))
            .enumerate()
            .map(|(i, b)| (b, ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, i as u32))))
            .collect();
        let t = RoutingTable::from_chunks(chunks, p.global_max()).unwrap();
        prop_assert!(t.check_invariants().is_ok());
    }
}
