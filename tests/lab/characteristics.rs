#![allow(clippy::unwrap_used)]
//! A candidate key's characteristics as `analyzeShardKey` defines them: an ascending key is
//! monotonic (coefficient 1), a descending one too (−1), a hashed one is not (0), a key of one
//! value is not; cardinality and the most common values of a low-cardinality key; a unique key's
//! frequencies; documents missing the key counted as null; properties over random data.

use bson::{Document, doc};
use proptest::prelude::*;
use shardtop::analyze::characteristics::{Characteristics, KeyCharacteristics, Monotonicity};
use shardtop::model::KeyPattern;

fn characteristics(key: &str, unique: bool, docs: &[Document]) -> KeyCharacteristics {
    let pattern = KeyPattern::parse_json(key).unwrap();
    let mut c = Characteristics::new(&pattern, unique);
    for d in docs {
        c.observe(d, bson::to_vec(d).unwrap().len() as u64).unwrap();
    }
    c.finish()
}

/// Seed 003's cities.
const CITIES: [&str; 8] = [
    "Berlin", "Lagos", "Lima", "Mumbai", "Osaka", "Sydney", "Toronto", "Zurich",
];

fn orders(n: i64) -> Vec<Document> {
    (0..n)
        .map(|i| {
            doc! {
                "_id": i,
                "customerId": (i * 7919) % 500,
                "city": CITIES[(i * 31 % 8) as usize],
                "placedAt": bson::DateTime::from_millis(1_780_000_000_000 + i * 60_000),
            }
        })
        .collect()
}

#[test]
fn an_ascending_key_is_monotonic_and_a_descending_one_too() {
    let docs = orders(2000);
    let up = characteristics(r#"{"_id": 1}"#, true, &docs);
    assert_eq!(up.monotonicity, Monotonicity::Monotonic);
    assert_eq!(up.coefficient, Some(1.0));
    let at = characteristics(r#"{"placedAt": 1}"#, false, &docs);
    assert_eq!(at.monotonicity, Monotonicity::Monotonic);
    let down: Vec<Document> = (0..2000i64).map(|i| doc! {"k": -i}).collect();
    let d = characteristics(r#"{"k": 1}"#, false, &down);
    assert_eq!(
        (d.monotonicity, d.coefficient),
        (Monotonicity::Monotonic, Some(-1.0))
    );
}

#[test]
fn a_hashed_key_and_a_key_of_one_value_are_not_monotonic() {
    let docs = orders(2000);
    let h = characteristics(r#"{"_id": "hashed"}"#, false, &docs);
    assert_eq!(
        (h.monotonicity, h.coefficient),
        (Monotonicity::NotMonotonic, Some(0.0))
    );
    let one: Vec<Document> = (0..50i64).map(|i| doc! {"_id": i, "k": 7}).collect();
    let o = characteristics(r#"{"k": 1}"#, false, &one);
    assert_eq!(
        (o.monotonicity, o.coefficient),
        (Monotonicity::NotMonotonic, Some(0.0))
    );
    assert_eq!((o.num_distinct_values, o.most_common_values.len()), (1, 1));
    // A customer id that does not grow with time is not monotonic either.
    let c = characteristics(r#"{"customerId": 1}"#, false, &docs);
    assert_eq!(c.monotonicity, Monotonicity::NotMonotonic);
    assert!(c.coefficient.unwrap().abs() < 0.1, "{:?}", c.coefficient);
}

#[test]
fn a_low_cardinality_key_has_few_values_each_frequent() {
    let c = characteristics(r#"{"city": 1}"#, false, &orders(8000));
    assert_eq!(c.num_docs, 8000);
    assert_eq!(c.num_distinct_values, 8);
    assert_eq!(c.most_common_values.len(), 5);
    assert!(
        c.most_common_values.iter().all(|(_, n)| *n == 1000),
        "{:?}",
        c.most_common_values
    );
    let (value, _) = &c.most_common_values[0];
    assert!(CITIES.contains(&value.get_str("city").unwrap()), "{value}");
    assert!(
        c.avg_doc_size_bytes > 40 && c.avg_doc_size_bytes < 120,
        "{}",
        c.avg_doc_size_bytes
    );
    assert_eq!(c.missing, 0);
}

#[test]
fn a_unique_key_reports_frequency_one_and_missing_fields_count_as_null() {
    let u = characteristics(r#"{"_id": 1}"#, true, &orders(100));
    assert_eq!((u.num_distinct_values, u.is_unique), (100, true));
    assert!(u.most_common_values.iter().all(|(_, n)| *n == 1));
    assert_eq!(u.most_common_values[0].0, doc! {"_id": 0_i64});
    let mut docs = orders(10);
    docs.push(doc! {"_id": 99});
    docs.push(doc! {"_id": 100, "city": null});
    let c = characteristics(r#"{"city": 1}"#, false, &docs);
    assert_eq!(
        c.missing, 1,
        "a null is a value; an absent field is missing"
    );
    assert!(
        c.most_common_values
            .iter()
            .any(|(v, n)| v.get("city") == Some(&bson::Bson::Null) && *n == 2)
    );
}

#[test]
fn an_array_in_the_key_is_refused_with_the_field() {
    let pattern = KeyPattern::parse_json(r#"{"tags": 1}"#).unwrap();
    let mut c = Characteristics::new(&pattern, false);
    let e = c.observe(&doc! {"tags": [1, 2]}, 20).unwrap_err();
    assert!(e.0.contains("tags"), "{e:?}");
}

proptest! {
    #[test]
    fn the_numbers_hold_together(values in proptest::collection::vec(0i64..40, 1..300)) {
        let docs: Vec<Document> = values.iter().map(|&v| doc! {"k": v}).collect();
        let c = characteristics(r#"{"k": 1}"#, false, &docs);
        let distinct: std::collections::BTreeSet<i64> = values.iter().copied().collect();
        prop_assert_eq!(c.num_docs, values.len() as u64);
        prop_assert_eq!(c.num_distinct_values, distinct.len() as u64);
        prop_assert!(c.most_common_values.windows(2).all(|w| w[0].1 >= w[1].1));
        prop_assert_eq!(c.most_common_values.len(), distinct.len().min(5));
        let top = values.iter().filter(|&&v| v == values.iter().copied().max_by_key(|x| values.iter().filter(|y| *y == x).count()).unwrap()).count() as u64;
        prop_assert_eq!(c.most_common_values[0].1, top);
        if let Some(r) = c.coefficient {
            prop_assert!((-1.0..=1.0).contains(&r), "{}", r);
        }
    }
}

#[test]
fn seed_003s_orders_give_its_candidates_characteristics() {
    use shardtop::lab::input::example;
    let pattern = |k: &str| KeyPattern::parse_json(k).unwrap();
    let mut all: Vec<Characteristics> = example::CANDIDATES
        .iter()
        .map(|k| Characteristics::new(&pattern(k), *k == r#"{"_id": 1}"#))
        .collect();
    for d in example::orders(3) {
        let size = bson::to_vec(&d).unwrap().len() as u64;
        for c in &mut all {
            c.observe(&d, size).unwrap();
        }
    }
    let [id, city, hashed, compound]: [KeyCharacteristics; 4] = all
        .into_iter()
        .map(Characteristics::finish)
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    assert_eq!(id.num_docs, 200_000);
    // {_id: 1}: ObjectIds ascend with time — monotonic, every insert at the top.
    assert_eq!(
        (id.monotonicity, id.coefficient),
        (Monotonicity::Monotonic, Some(1.0))
    );
    assert!(id.is_unique);
    // {city: 1}: eight values, each a big share of the orders.
    assert_eq!(city.num_distinct_values, 8);
    assert!(
        city.most_common_values.iter().all(|(_, n)| *n > 20_000),
        "{:?}",
        city.most_common_values
    );
    assert_eq!(city.monotonicity, Monotonicity::NotMonotonic);
    // {customerId: "hashed"}: 20,000 values, not monotonic by definition.
    assert_eq!(hashed.num_distinct_values, 20_000);
    assert_eq!(
        (hashed.monotonicity, hashed.coefficient),
        (Monotonicity::NotMonotonic, Some(0.0))
    );
    // {customerId: 1, placedAt: 1}: nearly one value per order, not monotonic.
    assert!(
        compound.num_distinct_values > 199_000,
        "{}",
        compound.num_distinct_values
    );
    assert_eq!(compound.monotonicity, Monotonicity::NotMonotonic);
    assert!(compound.avg_doc_size_bytes > 100 && compound.avg_doc_size_bytes < 160);
}
