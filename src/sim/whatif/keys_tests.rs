#![allow(clippy::unwrap_used)]
use super::*;
use proptest::prelude::*;

/// A value of one of the types the estimate interpolates.
fn value_of(line: u8, raw: i64) -> KeyValue {
    match line {
        0 => KeyValue::Int32(raw as i32),
        1 => KeyValue::Int64(raw),
        2 => KeyValue::Double(raw as f64 / 7.0),
        3 => KeyValue::DateTime(raw),
        _ => {
            let mut b = [0u8; 12];
            b[4..].copy_from_slice(&raw.to_be_bytes());
            b[0] = (raw as u8) >> 5;
            KeyValue::ObjectId(b)
        }
    }
}

fn key(first: KeyValue, second: Option<KeyValue>) -> ShardKey {
    ShardKey::from_values(std::iter::once(first).chain(second).collect()).unwrap()
}

proptest! {
    /// The estimated keys of a chunk lie in its `[min, max)` and are strictly ascending, for
    /// every type interpolated, MinKey/MaxKey ends and compound keys.
    #[test]
    fn estimated_keys_lie_in_their_chunk_and_ascend(
        line in 0u8..5,
        a in any::<i64>(),
        b in any::<i64>(),
        ends in 0u8..4,
        second in proptest::option::of((any::<i32>(), any::<i32>())),
        n in 1u64..300,
    ) {
        let (x, y) = (value_of(line, a), value_of(line, b));
        let (mut lo, mut hi) = if x <= y { (x, y) } else { (y, x) };
        if ends & 1 == 1 {
            lo = KeyValue::MinKey;
        }
        if ends & 2 == 2 {
            hi = KeyValue::MaxKey;
        }
        let (second_lo, second_hi) = match second {
            Some((p, q)) => (Some(KeyValue::Int32(p)), Some(KeyValue::Int32(q))),
            None => (None, None),
        };
        let (min, max) = (key(lo.clone(), second_lo), key(hi.clone(), second_hi));
        prop_assume!(min < max);
        let got = estimate(&min, &max, n);
        if lo == hi {
            // A compound key's bounds that share their first field: not estimated.
            prop_assert!(got.is_none());
            return Ok(());
        }
        let keys = got.expect("an interpolated type gets keys");
        prop_assert!(!keys.is_empty() && keys.len() as u64 <= n);
        for k in &keys {
            prop_assert!(*k >= min && *k < max, "{k:?} outside [{min:?}, {max:?})");
        }
        for w in keys.windows(2) {
            prop_assert!(w[0] < w[1], "{:?} !< {:?}", w[0], w[1]);
        }
    }
}

#[test]
fn keys_are_the_midpoints_of_equal_parts_in_the_bounds_type() {
    let k = |v| ShardKey::single(v);
    let got = estimate(&k(KeyValue::Int32(0)), &k(KeyValue::Int32(100)), 4).unwrap();
    assert_eq!(
        got,
        [12, 37, 62, 87].map(|v| k(KeyValue::Int32(v))).to_vec()
    );
    // Numbers of two types: the widest, Double.
    let got = estimate(&k(KeyValue::Int32(0)), &k(KeyValue::Double(1.0)), 2).unwrap();
    assert_eq!(got, [0.25, 0.75].map(|v| k(KeyValue::Double(v))).to_vec());
    // Dates of a day.
    let day = 86_400_000;
    let got = estimate(&k(KeyValue::DateTime(0)), &k(KeyValue::DateTime(day)), 2).unwrap();
    assert_eq!(
        got,
        [day / 4, 3 * day / 4]
            .map(|v| k(KeyValue::DateTime(v)))
            .to_vec()
    );
    // ObjectIds: 12 bytes as one number.
    let mut hi = [0u8; 12];
    hi[11] = 8;
    let got = estimate(
        &k(KeyValue::ObjectId([0; 12])),
        &k(KeyValue::ObjectId(hi)),
        4,
    )
    .unwrap();
    let at: Vec<u8> = got
        .iter()
        .map(|k| match k.get(0) {
            Some(KeyValue::ObjectId(b)) => b[11],
            _ => 99,
        })
        .collect();
    assert_eq!(at, [1, 3, 5, 7]);
    // Fewer values in the range than asked: each once.
    let got = estimate(&k(KeyValue::Int64(5)), &k(KeyValue::Int64(7)), 10).unwrap();
    assert_eq!(got, [5, 6].map(|v| k(KeyValue::Int64(v))).to_vec());
    // Strings and bounds of two types are not estimated.
    let s = |t: &str| k(KeyValue::String(t.into()));
    assert_eq!(estimate(&s("a"), &s("b"), 4), None);
    assert_eq!(estimate(&k(KeyValue::Int32(1)), &s("b"), 4), None);
    // A compound key: on its first field, the rest the lower bound's.
    let c = |a, b| ShardKey::from_values(vec![KeyValue::Int32(a), b]).unwrap();
    let got = estimate(&c(0, KeyValue::MinKey), &c(10, KeyValue::MinKey), 2).unwrap();
    assert_eq!(got, [c(2, KeyValue::MinKey), c(7, KeyValue::MinKey)]);
    assert_eq!(
        estimate(&c(0, KeyValue::Int32(1)), &c(0, KeyValue::Int32(9)), 2),
        None
    );
}
