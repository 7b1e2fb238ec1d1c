//! Zone ranges: no overlap, exact removal, chunks in a zone only when wholly inside.

use super::*;

fn zones() -> ZoneRanges {
    let mut z = ZoneRanges::new();
    z.add(int(0), int(10), "A").unwrap();
    z.add(int(20), int(30), "B").unwrap();
    z
}

#[test]
fn zone_ranges_may_not_overlap() {
    let mut z = zones();
    for (lo, hi) in [
        (0, 10),
        (5, 15),
        (-5, 5),
        (2, 8),
        (-5, 35),
        (9, 21),
        (15, 25),
        (29, 40),
    ] {
        assert!(
            matches!(z.add(int(lo), int(hi), "C"), Err(ZoneError::Overlap { .. })),
            "[{lo}, {hi})"
        );
    }
    assert_eq!(z.add(int(5), int(5), "C"), Err(ZoneError::EmptyRange));
    assert_eq!(z.add(int(6), int(5), "C"), Err(ZoneError::EmptyRange));
    assert_eq!(z.len(), 2);
    // Touching ranges are fine, of any zone.
    z.add(int(10), int(20), "A").unwrap();
    z.add(int(-10), int(0), "C").unwrap();
    z.add(int(30), int(31), "B").unwrap();
    assert_eq!(z.len(), 5);
    let mins: Vec<_> = z.iter().map(|r| r.min.clone()).collect();
    assert_eq!(mins, [int(-10), int(0), int(10), int(20), int(30)]);
}

#[test]
fn zone_removal_needs_an_exact_match() {
    let mut z = zones();
    assert_eq!(z.remove(&int(0), &int(5)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.remove(&int(1), &int(10)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.remove(&int(0), &int(30)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.remove(&int(10), &int(20)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.len(), 2);
    let r = z.remove(&int(0), &int(10)).unwrap();
    assert_eq!(r.zone, "A");
    assert_eq!(z.len(), 1);
    assert_eq!(z.remove(&int(0), &int(10)), Err(ZoneError::NoExactMatch));
    // NumberInt(20) equals NumberLong(20): the same bound.
    z.remove(&ShardKey::single(KeyValue::Int32(20)), &int(30))
        .unwrap();
    assert!(z.is_empty());
}

#[test]
fn chunks_are_in_a_zone_only_when_wholly_inside() {
    let z = zones();
    assert_eq!(z.zone_of_chunk(&int(2), &int(8)), Some("A"));
    assert_eq!(z.zone_of_chunk(&int(0), &int(10)), Some("A"));
    assert_eq!(z.zone_of_chunk(&int(20), &int(30)), Some("B"));
    assert_eq!(z.zone_of_chunk(&int(5), &int(15)), None);
    assert_eq!(z.zone_of_chunk(&int(-5), &int(5)), None);
    assert_eq!(z.zone_of_chunk(&int(0), &int(30)), None);
    assert_eq!(z.zone_of_chunk(&int(10), &int(20)), None);
    assert_eq!(z.zone_of_chunk(&int(9), &int(21)), None);
    let p = Kind::Int64.pattern();
    assert_eq!(z.zone_of_chunk(&p.global_min(), &p.global_max()), None);
    // Keys: half-open ranges.
    assert_eq!(z.range_of_key(&int(0)).unwrap().zone, "A");
    assert_eq!(z.range_of_key(&int(9)).unwrap().zone, "A");
    assert!(z.range_of_key(&int(10)).is_none());
    assert!(z.range_of_key(&int(-1)).is_none());
    assert_eq!(z.range_of_key(&int(29)).unwrap().zone, "B");
    assert!(z.range_of_key(&int(30)).is_none());
    // Where a chunk must be split to respect zones.
    let p = Kind::Int64.pattern();
    assert_eq!(
        z.boundaries_inside(&p.global_min(), &p.global_max()),
        [int(0), int(10), int(20), int(30)]
    );
    assert_eq!(z.boundaries_inside(&int(0), &int(20)), [int(10)]);
    assert_eq!(z.boundaries_inside(&int(5), &int(25)), [int(10), int(20)]);
    assert!(z.boundaries_inside(&int(0), &int(10)).is_empty());
    let mut touching = zones();
    touching.add(int(10), int(20), "C").unwrap();
    assert_eq!(
        touching.boundaries_inside(&int(-1), &int(31)),
        [int(0), int(10), int(20), int(30)]
    );
}

proptest! {
    /// Zone ranges never overlap, whatever is added; key lookups agree with a scan.
    #[test]
    fn zones_against_a_scan(
        adds in prop::collection::vec((-30i64..30, 0i64..8, 0u8..3), 0..30),
        keys in prop::collection::vec(-35i64..35, 0..30),
    ) {
        let mut z = ZoneRanges::new();
        let mut accepted: Vec<(i64, i64, String)> = Vec::new();
        for (lo, len, zone) in adds {
            let hi = lo + len;
            let name = format!("z{zone}");
            let overlaps = accepted.iter().any(|(a, b, _)| lo < *b && *a < hi);
            let result = z.add(int(lo), int(hi), name.clone());
            prop_assert_eq!(result.is_ok(), len > 0 && !overlaps, "[{}, {})", lo, hi);
            if result.is_ok() {
                accepted.push((lo, hi, name));
            }
        }
        prop_assert_eq!(z.len(), accepted.len());
        for k in keys {
            let expected = accepted.iter().find(|(a, b, _)| *a <= k && k < *b);
            let got = z.range_of_key(&int(k));
            prop_assert_eq!(got.map(|r| r.zone.clone()), expected.map(|e| e.2.clone()));
            for hi in k + 1..k + 5 {
                let inside = accepted
                    .iter()
                    .find(|(a, b, _)| *a <= k && hi <= *b)
                    .map(|e| e.2.as_str());
                prop_assert_eq!(z.zone_of_chunk(&int(k), &int(hi)), inside);
            }
        }
    }
}
