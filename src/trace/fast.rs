//! Typed fast paths for the most frequent trace line, `writes`, parsed straight into shard keys
//! without building generic JSON maps, and for keyframes (`keyframe`). Values in the canonical
//! Extended JSON forms the writer uses are read directly; anything else goes through the full
//! Extended JSON parser. A line a fast path refuses is read by the full path, which names the error.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

use super::json::ms_of_seconds;
use crate::cluster::ChunkWrites;
use crate::cluster::{Event, EventKind};
use crate::model::{ChunkStats, KeyValue, ShardKey, extjson};

mod canonical;
pub mod keyframe;

/// A shard-key document read as its values in order (a repeated field name is refused: the full
/// path keeps only its last value).
struct KeyDoc(ShardKey);

impl<'de> Deserialize<'de> for KeyDoc {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyDoc;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a shard-key document")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyDoc, A::Error> {
                let empty = || de::Error::custom("empty shard-key document");
                let (first_name, first) = map
                    .next_entry::<Cow<'de, str>, ExtValue>()?
                    .ok_or_else(empty)?;
                let Some(second) = map.next_entry::<Cow<'de, str>, ExtValue>()? else {
                    return Ok(KeyDoc(ShardKey::single(first.0)));
                };
                let (mut names, mut values) = (vec![first_name], vec![first.0]);
                let mut next = Some(second);
                while let Some((name, v)) = next {
                    if names.contains(&name) {
                        return Err(de::Error::custom("repeated field in a shard-key document"));
                    }
                    names.push(name);
                    values.push(v.0);
                    next = map.next_entry::<Cow<'de, str>, ExtValue>()?;
                }
                ShardKey::from_values(values).map(KeyDoc).ok_or_else(empty)
            }
        }
        d.deserialize_map(V)
    }
}

/// One Extended JSON value.
struct ExtValue(KeyValue);

impl<'de> Deserialize<'de> for ExtValue {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ExtValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an Extended JSON value")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ExtValue, E> {
                Ok(ExtValue(KeyValue::String(s.into())))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<ExtValue, E> {
                Ok(ExtValue(KeyValue::Bool(b)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ExtValue, E> {
                Ok(ExtValue(KeyValue::Null))
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<ExtValue, E> {
                Ok(ExtValue(
                    i32::try_from(i).map_or(KeyValue::Int64(i), KeyValue::Int32),
                ))
            }
            fn visit_u64<E: de::Error>(self, u: u64) -> Result<ExtValue, E> {
                match i64::try_from(u) {
                    Ok(i) => self.visit_i64(i),
                    Err(_) => Ok(ExtValue(KeyValue::Double(u as f64))),
                }
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<ExtValue, E> {
                Ok(ExtValue(KeyValue::Double(x)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ExtValue, A::Error> {
                let Some(key) = map.next_key::<Cow<'de, str>>()? else {
                    return Ok(ExtValue(KeyValue::Document(Box::default())));
                };
                let direct = match key.as_ref() {
                    "$numberLong" => map
                        .next_value::<Cow<'de, str>>()?
                        .parse()
                        .ok()
                        .map(KeyValue::Int64),
                    "$numberInt" => map
                        .next_value::<Cow<'de, str>>()?
                        .parse()
                        .ok()
                        .map(KeyValue::Int32),
                    "$minKey" => (map.next_value::<i64>()? == 1).then_some(KeyValue::MinKey),
                    "$maxKey" => (map.next_value::<i64>()? == 1).then_some(KeyValue::MaxKey),
                    _ => {
                        // Any other form: gather it and let the full Extended JSON parser read it.
                        let mut all = serde_json::Map::new();
                        all.insert(key.into_owned(), map.next_value::<serde_json::Value>()?);
                        while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                            all.insert(k, v);
                        }
                        return extjson::from_json(serde_json::Value::Object(all))
                            .map(ExtValue)
                            .map_err(de::Error::custom);
                    }
                };
                if map.next_key::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(
                        "unexpected field after an Extended JSON type key",
                    ));
                }
                direct
                    .map(ExtValue)
                    .ok_or_else(|| de::Error::custom("malformed Extended JSON number or key bound"))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<ExtValue, A::Error> {
                let value =
                    serde_json::Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                extjson::from_json(value)
                    .map(ExtValue)
                    .map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct Entry {
    min: KeyDoc,
    docs: u64,
    bytes: u64,
    writes: u64,
    key: KeyDoc,
}

#[derive(Deserialize)]
struct WritesLine {
    chunks: Vec<Entry>,
    ns: String,
    t: f64,
}

/// Whether a raw line is a `writes` event as this program writes it (keys sorted, `what` last).
pub fn is_writes(text: &[u8]) -> bool {
    text.ends_with(b"\"what\":\"writes\"}")
}

/// Parses a `writes` line; the error is the parser's (with its column).
pub fn writes(text: &[u8]) -> Result<Event, String> {
    if let Some(e) = std::str::from_utf8(text)
        .ok()
        .and_then(canonical::writes_line)
    {
        return Ok(e);
    }
    let line: WritesLine = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let chunks = line
        .chunks
        .into_iter()
        .map(|e| ChunkWrites {
            min: e.min.0,
            stats: ChunkStats::new(e.docs, e.bytes, e.writes),
            sample: e.key.0,
        })
        .collect();
    Ok(Event {
        at_ms: ms_of_seconds(line.t),
        kind: EventKind::Writes {
            ns: line.ns,
            chunks,
        },
    })
}
