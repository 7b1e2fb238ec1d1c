//! Small helpers to read JSON values with the field path in every error.

use serde_json::Value;

use crate::model::{ChunkStats, KeyPattern, KeyValue, ShardKey, extjson};

pub type Res<T> = Result<T, String>;

pub fn field<'a>(v: &'a Value, name: &str, path: &str) -> Res<&'a Value> {
    v.get(name)
        .ok_or_else(|| format!("field `{path}{name}` is missing"))
}

pub fn u64_at(v: &Value, name: &str, path: &str) -> Res<u64> {
    field(v, name, path)?
        .as_u64()
        .ok_or_else(|| format!("field `{path}{name}`: expected a non-negative integer"))
}

pub fn f64_at(v: &Value, name: &str, path: &str) -> Res<f64> {
    field(v, name, path)?
        .as_f64()
        .ok_or_else(|| format!("field `{path}{name}`: expected a number"))
}

pub fn str_at<'a>(v: &'a Value, name: &str, path: &str) -> Res<&'a str> {
    field(v, name, path)?
        .as_str()
        .ok_or_else(|| format!("field `{path}{name}`: expected a string"))
}

pub fn bool_at(v: &Value, name: &str, path: &str) -> Res<bool> {
    field(v, name, path)?
        .as_bool()
        .ok_or_else(|| format!("field `{path}{name}`: expected true or false"))
}

pub fn array_at<'a>(v: &'a Value, name: &str, path: &str) -> Res<&'a Vec<Value>> {
    field(v, name, path)?
        .as_array()
        .ok_or_else(|| format!("field `{path}{name}`: expected an array"))
}

pub fn strings_at(v: &Value, name: &str, path: &str) -> Res<Vec<String>> {
    array_at(v, name, path)?
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.as_str()
                .map(String::from)
                .ok_or_else(|| format!("field `{path}{name}[{i}]`: expected a string"))
        })
        .collect()
}

/// A shard-key value written as a document (`{"_id": {"$oid": …}}`): its values in order.
pub fn key_at(v: &Value, name: &str, path: &str) -> Res<ShardKey> {
    key_of(field(v, name, path)?, &format!("{path}{name}"))
}

pub fn key_of(v: &Value, path: &str) -> Res<ShardKey> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("field `{path}`: expected a shard-key document"))?;
    let values = obj
        .iter()
        .map(|(k, x)| match canonical_value(x) {
            Some(value) => Ok(value),
            None => extjson::from_json(x.clone()).map_err(|e| format!("field `{path}.{k}`: {e}")),
        })
        .collect::<Res<Vec<_>>>()?;
    ShardKey::from_values(values).ok_or_else(|| format!("field `{path}`: empty shard-key document"))
}

/// The Extended JSON forms traces use most, read directly (the same values `bson` would give);
/// `None` sends anything else through the full parser.
fn canonical_value(value: &Value) -> Option<KeyValue> {
    match value {
        Value::String(text) => Some(KeyValue::String(text.as_str().into())),
        Value::Bool(b) => Some(KeyValue::Bool(*b)),
        Value::Null => Some(KeyValue::Null),
        Value::Object(map) if map.len() == 1 => {
            let (kind, inner) = map.iter().next()?;
            match (kind.as_str(), inner) {
                ("$numberLong", Value::String(text)) => text.parse().ok().map(KeyValue::Int64),
                ("$numberInt", Value::String(text)) => text.parse().ok().map(KeyValue::Int32),
                ("$oid", Value::String(text)) => parse_oid(text).map(KeyValue::ObjectId),
                ("$minKey", Value::Number(one)) if one.as_i64() == Some(1) => {
                    Some(KeyValue::MinKey)
                }
                ("$maxKey", Value::Number(one)) if one.as_i64() == Some(1) => {
                    Some(KeyValue::MaxKey)
                }
                ("$date", Value::Object(d)) if d.len() == 1 => d
                    .get("$numberLong")?
                    .as_str()?
                    .parse()
                    .ok()
                    .map(KeyValue::DateTime),
                _ => None,
            }
        }
        _ => None,
    }
}

fn parse_oid(s: &str) -> Option<[u8; 12]> {
    let bytes = s.as_bytes();
    if bytes.len() != 24 {
        return None;
    }
    let mut out = [0u8; 12];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let hex = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(hex, 16).ok()?;
    }
    Some(out)
}

/// Writes a shard-key value as a document, naming fields by `pattern` (positions beyond it by
/// index).
pub fn key_json(pattern: Option<&KeyPattern>, key: &ShardKey) -> Value {
    let mut map = serde_json::Map::new();
    for (i, value) in key.values().enumerate() {
        let name = pattern
            .and_then(|p| p.fields().get(i))
            .map_or_else(|| i.to_string(), |f| f.path.to_string());
        map.insert(name, extjson::to_canonical(value));
    }
    Value::Object(map)
}

pub fn pattern_at(v: &Value, name: &str, path: &str) -> Res<KeyPattern> {
    KeyPattern::parse_json(&field(v, name, path)?.to_string())
        .map_err(|e| format!("field `{path}{name}`: {e}"))
}

pub fn pattern_json(p: &KeyPattern) -> Value {
    bson::Bson::Document(p.to_document()).into_relaxed_extjson()
}

pub fn stats_json(s: ChunkStats) -> Value {
    serde_json::json!({"docs": s.docs, "bytes": s.bytes, "writes": s.writes})
}

pub fn stats_at(v: &Value, name: &str, path: &str) -> Res<ChunkStats> {
    let s = field(v, name, path)?;
    stats_of(s, &format!("{path}{name}."))
}

pub fn stats_of(s: &Value, path: &str) -> Res<ChunkStats> {
    Ok(ChunkStats::new(
        u64_at(s, "docs", path)?,
        u64_at(s, "bytes", path)?,
        u64_at(s, "writes", path)?,
    ))
}

pub fn ms_of_seconds(t: f64) -> u64 {
    (t * 1000.0).round().max(0.0) as u64
}

pub fn seconds(ms: u64) -> Value {
    serde_json::json!(ms as f64 / 1000.0)
}
