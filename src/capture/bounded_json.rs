//! A capture's line parsed as JSON with a bound on each string: a string (a value or a field
//! name) longer than [`MAX_STRING`] bytes is refused before it is copied, so a small compressed
//! file of a few huge strings costs the memory of one line, not of every string it holds.
//!
//! Owns: turning one line's bytes into a `serde_json::Value` under that bound. May not touch:
//! what the values mean (`file`).

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The longest string a capture may hold: a BSON document — a reply, a command, one document of
/// a cursor — holds at most 16 MiB (mongo `src/mongo/bson/bsonobj.h`, `BSONObjMaxUserSize = 16 *
/// 1024 * 1024`), so no string in one can be longer.
pub const MAX_STRING: usize = 16 * 1024 * 1024;

/// Why a line could not be parsed.
#[derive(Debug, PartialEq, Eq)]
pub enum LineError {
    /// A string of this many bytes, over `max`.
    TooLong { bytes: usize, max: usize },
    /// Not valid JSON: serde_json's words.
    Json(String),
}

/// Parses `bytes` as one JSON value whose strings are at most `max` bytes each.
pub fn parse(bytes: &[u8], max: usize) -> Result<Value, LineError> {
    let too_long = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = Bounded {
        max,
        too_long: &too_long,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match (parsed, too_long.get()) {
        (Ok(v), _) => Ok(v),
        (Err(_), Some(bytes)) => Err(LineError::TooLong { bytes, max }),
        (Err(e), None) => Err(LineError::Json(e.to_string())),
    }
}

#[derive(Clone, Copy)]
struct Bounded<'a> {
    max: usize,
    /// The length of the first string found too long.
    too_long: &'a Cell<Option<usize>>,
}

impl Bounded<'_> {
    fn string<E: de::Error>(self, s: &str) -> Result<String, E> {
        if s.len() > self.max {
            self.too_long.set(Some(s.len()));
            return Err(E::custom("string too long"));
        }
        Ok(s.to_owned())
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A field name under the same bound.
struct Key<'a>(Bounded<'a>);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
        self.0.string(s)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        self.string(s).map(Value::String)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key_seed(Key(self))? {
            let v = map.next_value_seed(self)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_as_serde_json_does_under_the_bound() {
        let text = br#"{"a":[1,-2,3.5,"x\n",null,true,{"b":{"$numberLong":"7"}}],"c":"d"}"#;
        let want: Value = serde_json::from_slice(text).unwrap();
        assert_eq!(parse(text, 16).unwrap(), want);
        assert_eq!(
            serde_json::to_string(&parse(text, 16).unwrap()).unwrap(),
            serde_json::to_string(&want).unwrap(),
            "field order kept"
        );
    }

    #[test]
    fn a_long_value_or_field_name_is_refused_with_its_length() {
        let long = format!(r#"{{"a":"{}"}}"#, "x".repeat(20));
        assert_eq!(
            parse(long.as_bytes(), 16),
            Err(LineError::TooLong { bytes: 20, max: 16 })
        );
        let key = format!(r#"{{"{}":1}}"#, "k".repeat(17));
        assert_eq!(
            parse(key.as_bytes(), 16),
            Err(LineError::TooLong { bytes: 17, max: 16 })
        );
        // Escapes count as the bytes they stand for.
        let escaped = format!(r#"["{}"]"#, "\\n".repeat(16));
        assert!(parse(escaped.as_bytes(), 16).is_ok());
    }

    #[test]
    fn bad_json_keeps_serde_json_words() {
        let Err(LineError::Json(e)) = parse(b"{\"a\":", 16) else {
            panic!("expected a JSON error");
        };
        assert!(e.contains("EOF"), "{e}");
        assert!(matches!(parse(b"1 2", 16), Err(LineError::Json(_))));
    }
}
