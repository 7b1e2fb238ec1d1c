//! Key patterns: validation, dotted-path extraction, arrays refused, hashed fields.

use super::*;

#[test]
fn key_pattern_validation() {
    for bad in [
        "{}",
        r#"{"a": -1}"#,
        r#"{"a": 2}"#,
        r#"{"a": 0}"#,
        r#"{"a": "text"}"#,
        r#"{"a": "2dsphere"}"#,
        r#"{"a": true}"#,
        r#"{"a": "hashed", "b": "hashed"}"#,
        r#"{"$a": 1}"#,
        r#"{"a.$b": 1}"#,
        r#"{"": 1}"#,
        r#"{"a..b": 1}"#,
        r#"{"a.": 1}"#,
        "[1]",
        "1",
        "{not json",
    ] {
        assert!(
            KeyPattern::parse_json(bad).is_err(),
            "{bad} should be refused"
        );
    }
    let err = KeyPattern::parse_json("{}").unwrap_err();
    assert!(err.to_string().contains("empty"), "{err}");
    let err = KeyPattern::parse_json(r#"{"a": -1}"#).unwrap_err();
    assert!(err.to_string().contains("'a'"), "{err}");

    for good in [
        r#"{"a": 1}"#,
        r#"{"a": 1.0}"#,
        r#"{"a": {"$numberLong": "1"}}"#,
        r#"{"a": "hashed"}"#,
        r#"{"a": 1, "b": "hashed"}"#,
        r#"{"a.b.c": 1, "d": 1}"#,
        r#"{"_id": 1}"#,
    ] {
        KeyPattern::parse_json(good).unwrap();
    }
    let p = KeyPattern::parse_json(r#"{"a": 1, "b": "hashed"}"#).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p.hashed_field(), Some(1));
    assert!(!p.fields()[0].hashed);
    assert_eq!(&*p.fields()[1].path, "b");
    assert_eq!(p.to_document(), bson::doc! {"a": 1, "b": "hashed"});
    assert_eq!(KeyPattern::parse(&p.to_document()).unwrap(), p);
}

#[test]
fn extract_follows_dotted_paths() {
    let p = KeyPattern::parse_json(r#"{"a.b": 1, "c": 1}"#).unwrap();
    let k = p
        .extract(&bson::doc! {"c": "x", "a": {"b": 5, "z": 1}, "other": [1, 2]})
        .unwrap();
    assert_eq!(k.len(), 2);
    assert_eq!(k.get(0).unwrap(), &KeyValue::Int32(5));
    assert_eq!(k.get(1).unwrap(), &KeyValue::string("x"));
    // Missing at any depth, or a scalar where a document is expected: null.
    for doc in [
        bson::doc! {"c": "x"},
        bson::doc! {"c": "x", "a": {"y": 1}},
        bson::doc! {"c": "x", "a": 7},
        bson::doc! {"c": "x", "a": null},
    ] {
        let k = p.extract(&doc).unwrap();
        assert_eq!(k.get(0).unwrap(), &KeyValue::Null, "{doc}");
        assert!(matches!(k.get(0), Some(KeyValue::Null)));
    }
    // A document as a key value is kept whole.
    let q = KeyPattern::parse_json(r#"{"a": 1}"#).unwrap();
    let k = q.extract(&bson::doc! {"a": {"b": 1}}).unwrap();
    assert!(matches!(k.get(0), Some(KeyValue::Document(_))));
    // Bounds round trip through documents.
    let bound = p.bound_to_document(&p.extract(&bson::doc! {"a": {"b": 5}, "c": 1}).unwrap());
    assert_eq!(bound, bson::doc! {"a.b": 5, "c": 1});
    let back = p.bound_from_document(&bound).unwrap();
    assert_eq!(
        back,
        p.key_of(vec![KeyValue::Int32(5), KeyValue::Int32(1)])
            .unwrap()
    );
    assert!(
        p.bound_from_document(&bson::doc! {"c": 1, "a.b": 5})
            .is_err()
    );
    assert!(p.bound_from_document(&bson::doc! {"a.b": 5}).is_err());
}

#[test]
fn extract_refuses_arrays() {
    let p = KeyPattern::parse_json(r#"{"a.b": 1}"#).unwrap();
    for doc in [
        bson::doc! {"a": [1, 2]},
        bson::doc! {"a": {"b": [1]}},
        bson::doc! {"a": {"b": []}},
    ] {
        let err = p.extract(&doc).unwrap_err();
        assert!(err.to_string().contains("array"), "{doc}: {err}");
    }
    let hashed = KeyPattern::parse_json(r#"{"x": "hashed"}"#).unwrap();
    let err = hashed.extract(&bson::doc! {"x": [1]}).unwrap_err();
    assert!(err.to_string().contains("array"), "{err}");
}

#[test]
fn hashed_fields_are_hashed_and_bounds_are_canonical_json() {
    let p = KeyPattern::parse_json(r#"{"u": "hashed"}"#).unwrap();
    let k = p.key_of(vec![KeyValue::string("abc")]).unwrap();
    assert_eq!(
        k.get(0).unwrap(),
        &KeyValue::Int64(8_478_485_326_885_698_097)
    );
    assert_eq!(
        p.bound_to_json(&k),
        serde_json::json!({"u": {"$numberLong": "8478485326885698097"}})
    );
    assert_eq!(
        p.bound_to_json(&p.global_min()),
        serde_json::json!({"u": {"$minKey": 1}})
    );
    assert_eq!(
        p.bound_to_json(&p.global_max()),
        serde_json::json!({"u": {"$maxKey": 1}})
    );
    assert!(p.key_of(vec![]).is_err());
    assert!(p.key_of(vec![KeyValue::Null, KeyValue::Null]).is_err());
    let c = KeyPattern::parse_json(r#"{"a": 1, "b": 1}"#).unwrap();
    assert_eq!(c.global_min().len(), 2);
    assert!(c.global_min().values().all(|v| *v == KeyValue::MinKey));
    assert!(c.global_max().values().all(|v| *v == KeyValue::MaxKey));
}
