//! A trace line's first reading: through the typed fast paths (a `writes` event, a keyframe)
//! or as JSON — before the first keyframe only the fields that tell lines apart (a million
//! initial chunks in a set-up event are checked, not kept).
//!
//! Owns: how a line's bytes become a value. May not touch: what the reader does with it.

use serde_json::Value;

use crate::cluster::{Cluster, Event};

/// A line as first read.
pub(super) enum Probed {
    Line(Value),
    Event(Event),
    Keyframe(Box<Cluster>),
}

/// A line through the typed fast paths (a `writes` event only when `events`), or else as JSON.
pub(super) fn probe(text: &[u8], events: bool) -> serde_json::Result<Probed> {
    if super::fast::is_writes(text) {
        if events && let Ok(e) = super::fast::writes(text) {
            return Ok(Probed::Event(e));
        }
    } else if super::fast::keyframe::is_keyframe(text)
        && let Some(s) = super::fast::keyframe::keyframe(text)
    {
        return Ok(Probed::Keyframe(Box::new(s)));
    }
    if !events {
        return shallow(text).map(Probed::Line);
    }
    serde_json::from_slice::<Value>(text).map(Probed::Line)
}

/// The fields of a line read before the first keyframe: what tells a keyframe, an event, a
/// recorded log entry and the end marker apart (and a log entry's time and entry).
const BEFORE_KEYFRAME: &[&str] = &["keyframe", "end", "what", "entry", "t"];

/// A line before the first keyframe, as JSON: an event there is counted, not applied (the
/// keyframe holds the set-up it describes), so an object's other fields are checked as JSON and
/// kept as `null` — a collection sharded with a million initial chunks lists them all, a
/// gigabyte as JSON values. The same errors as a whole parse: the same parser reads every byte.
fn shallow(text: &[u8]) -> serde_json::Result<Value> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Fields;
    impl<'de> Visitor<'de> for Fields {
        type Value = Value;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut out = serde_json::Map::new();
            while let Some(k) = map.next_key::<String>()? {
                let v = if BEFORE_KEYFRAME.contains(&k.as_str()) {
                    map.next_value::<Value>()?
                } else {
                    map.next_value::<IgnoredAny>()?;
                    Value::Null
                };
                out.insert(k, v);
            }
            Ok(Value::Object(out))
        }
    }
    impl<'de> DeserializeSeed<'de> for Fields {
        type Value = Value;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    if text.trim_ascii_start().first() != Some(&b'{') {
        return serde_json::from_slice::<Value>(text);
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let v = Fields.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}
