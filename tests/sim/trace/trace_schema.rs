//! Every line of recorded traces conforms to docs/trace-format.schema.json (checked with a small
//! validator for the keywords the schema uses: type, required, properties, items, $ref, oneOf,
//! const, pattern-free minimum/minItems/maxItems/minProperties).
#![allow(clippy::unwrap_used, clippy::collapsible_if)]

use serde_json::Value;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/$defs/");
            &root["$defs"][name]
        }
        None => schema,
    }
}

fn check(root: &Value, schema: &Value, v: &Value, path: &str) -> Result<(), String> {
    let schema = resolve(root, schema);
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let matches = options
            .iter()
            .filter(|o| check(root, o, v, path).is_ok())
            .count();
        return if matches == 1 {
            Ok(())
        } else {
            Err(format!("{path}: matches {matches} of the oneOf branches"))
        };
    }
    if let Some(c) = schema.get("const") {
        if c != v {
            return Err(format!("{path}: expected {c}"));
        }
    }
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            _ => true,
        };
        if !ok {
            return Err(format!("{path}: expected {t}, got {v}"));
        }
    }
    if let (Some(min), Some(x)) = (schema.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if x < min {
            return Err(format!("{path}: below {min}"));
        }
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for r in required {
            let name = r.as_str().unwrap();
            if v.get(name).is_none() {
                return Err(format!("{path}: missing required `{name}`"));
            }
        }
    }
    if let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        v.as_object(),
    ) {
        for (name, sub) in props {
            if let Some(x) = obj.get(name) {
                check(root, sub, x, &format!("{path}.{name}"))?;
            }
        }
    }
    if let (Some(n), Some(obj)) = (
        schema.get("minProperties").and_then(Value::as_u64),
        v.as_object(),
    ) {
        if (obj.len() as u64) < n {
            return Err(format!("{path}: fewer than {n} properties"));
        }
    }
    if let Some(items) = v.as_array() {
        if let Some(n) = schema.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < n {
                return Err(format!("{path}: fewer than {n} items"));
            }
        }
        if let Some(n) = schema.get("maxItems").and_then(Value::as_u64) {
            if (items.len() as u64) > n {
                return Err(format!("{path}: more than {n} items"));
            }
        }
        if let Some(item) = schema.get("items") {
            for (i, x) in items.iter().enumerate() {
                check(root, item, x, &format!("{path}[{i}]"))?;
            }
        }
    }
    Ok(())
}

#[test]
fn recorded_traces_conform_to_the_published_schema() {
    let root: Value =
        serde_json::from_str(include_str!("../../../docs/trace-format.schema.json")).unwrap();
    let dir = std::env::temp_dir().join(format!("shardtop-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "ascending",
        "low-cardinality",
        "hot-customer",
        "add-shard",
        "zones-ip",
        "drain",
        "firehose",
        "reshard",
    ] {
        let sc = scenario::built_in(name).unwrap().unwrap();
        let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
        let path = dir.join(format!("{name}.ndjson"));
        let header = sim_header(&sim, &format!("sim:{name}"), name, sc.seed);
        record_sim(&mut sim, 320_000, &path, &header, |_, _| {}).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut kinds = std::collections::BTreeSet::new();
        for (i, line) in text.lines().enumerate() {
            let v: Value = serde_json::from_str(line).unwrap();
            check(&root, &root, &v, &format!("{name}:{}", i + 1)).unwrap();
            if let Some(w) = v.get("what").and_then(Value::as_str) {
                kinds.insert(w.to_string());
            }
        }
        assert!(
            kinds.contains("writes") && kinds.contains("balancer.round"),
            "{name}: {kinds:?}"
        );
    }
    // The validator can fail: a keyframe chunk without its shard is rejected.
    let broken = serde_json::json!({"t": 1.0, "keyframe": {"serverVersion": "8.0", "settings": {}, "shards": [], "databases": [], "balancer": {},
        "collections": [{"ns": "a.b", "key": {"x": 1}, "incarnation": 1, "routedWrites": [], "indexes": [], "zones": [], "window": [],
        "chunks": [{"min": {"x": {"$minKey": 1}}, "v": [1, 0], "docs": 0, "bytes": 0, "writes": 0, "jumbo": false, "since": 0}]}]}});
    assert!(check(&root, &root, &broken, "broken").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
