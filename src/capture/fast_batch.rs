//! A typed fast path for a capture's lines as `open` reads them: each document of a line's
//! `batch` is parsed from its canonical Extended JSON straight into BSON bytes ([`Packed`]),
//! with no `serde_json::Value` nor `Document` between; the line's other fields (`read`, `db`,
//! `command`, …, small) are read by the full path's parser. The path takes only what it is sure
//! the full path reads the same way — the canonical forms the capture writer and mongosh's
//! `EJSON.stringify` produce (`$oid`, `$numberInt`, `$numberLong`, `$numberDouble`,
//! `$timestamp`, `$date` as `$numberLong`, `$minKey`, `$maxKey`, `$binary`), plain strings,
//! numbers, booleans, nulls, arrays and documents — and leaves any other line to the full path,
//! which gives the same answer or names the error.
//!
//! Owns: the bytes of a batch parsed straight. May not touch: what the documents mean.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::bounded_json::{self, MAX_STRING};
use super::raw_documents::Packed;

/// A line read by the fast path: its fields but `batch`, and `batch` packed.
pub(super) struct FastLine {
    pub rest: Map<String, Value>,
    pub batch: Option<Packed>,
}

/// The line `bytes` (without its newline), or `None` when the full path must read it.
pub(super) fn line(bytes: &[u8]) -> Option<FastLine> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut de = serde_json::Deserializer::from_str(text);
    let line = LineSeed.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(line)
}

/// Why the fast path leaves a line (never shown: the full path reads it again).
fn refuse<E: de::Error>() -> E {
    E::custom("left to the full path")
}

struct LineSeed;

impl<'de> DeserializeSeed<'de> for LineSeed {
    type Value = FastLine;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<FastLine, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed {
    type Value = FastLine;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a capture line")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastLine, A::Error> {
        let mut rest = Map::new();
        let mut batch = None;
        while let Some(k) = map.next_key::<Key<'de>>()? {
            if k.0 == "batch" {
                if batch.is_some() {
                    return Err(refuse());
                }
                let mut packed = Packed::default();
                map.next_value_seed(BatchSeed(&mut packed))?;
                batch = Some(packed);
            } else {
                let raw: &RawValue = map.next_value()?;
                let v = bounded_json::parse(raw.get().as_bytes(), MAX_STRING)
                    .map_err(|_| refuse::<A::Error>())?;
                rest.insert(k.0.into_owned(), v);
            }
        }
        Ok(FastLine { rest, batch })
    }
}

/// A field name or a string value, borrowed from the line when it has no escapes; refused when
/// longer than [`MAX_STRING`] or holding a NUL (which BSON's field names cannot).
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Key<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
        checked(s)?;
        Ok(Key(Cow::Borrowed(s)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
        checked(s)?;
        Ok(Key(Cow::Owned(s.to_string())))
    }
}

fn checked<E: de::Error>(s: &str) -> Result<(), E> {
    if s.len() > MAX_STRING || s.as_bytes().contains(&0) {
        return Err(refuse());
    }
    Ok(())
}

/// `batch`: an array of documents, each appended to the packed buffer.
struct BatchSeed<'p>(&'p mut Packed);

impl<'de> DeserializeSeed<'de> for BatchSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BatchSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of documents")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let start = self.0.bytes_mut().len();
            let seed = ValueSeed(self.0.bytes_mut());
            match seq.next_element_seed(seed)? {
                None => return Ok(()),
                // Only a document is a batch's element.
                Some(0x03) => self.0.end_document(),
                Some(_) => {
                    self.0.bytes_mut().truncate(start);
                    return Err(refuse());
                }
            }
        }
    }
}

/// One value written as BSON at the end of the buffer; gives its element type.
struct ValueSeed<'b>(&'b mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = u8;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u8, D::Error> {
        d.deserialize_any(self)
    }
}

fn put_str(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
    buf.extend_from_slice(s.as_bytes());
    buf.push(0);
}

/// A JSON integer as `Bson::try_from` takes it: Int32 when it fits, else Int64.
fn put_int(buf: &mut Vec<u8>, i: i64) -> u8 {
    if let Ok(small) = i32::try_from(i) {
        buf.extend_from_slice(&small.to_le_bytes());
        0x10
    } else {
        buf.extend_from_slice(&i.to_le_bytes());
        0x12
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = u8;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<u8, E> {
        self.0.push(u8::from(b));
        Ok(0x08)
    }
    fn visit_unit<E: de::Error>(self) -> Result<u8, E> {
        Ok(0x0A)
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<u8, E> {
        Ok(put_int(self.0, i))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<u8, E> {
        match i64::try_from(u) {
            Ok(i) => Ok(put_int(self.0, i)),
            Err(_) => self.visit_f64(u as f64),
        }
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<u8, E> {
        self.0.extend_from_slice(&f.to_le_bytes());
        Ok(0x01)
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<u8, E> {
        self.visit_str(s)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<u8, E> {
        checked(s)?;
        put_str(self.0, s);
        Ok(0x02)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u8, A::Error> {
        let buf = self.0;
        let start = buf.len();
        buf.extend_from_slice(&[0; 4]);
        let mut i = 0usize;
        loop {
            let at = buf.len();
            buf.push(0);
            buf.extend_from_slice(i.to_string().as_bytes());
            buf.push(0);
            let Some(t) = seq.next_element_seed(ValueSeed(buf))? else {
                buf.truncate(at);
                break;
            };
            buf[at] = t;
            i += 1;
        }
        close(buf, start)?;
        Ok(0x04)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u8, A::Error> {
        let buf = self.0;
        let Some(first) = map.next_key::<Key<'de>>()? else {
            buf.extend_from_slice(&5i32.to_le_bytes());
            buf.push(0);
            return Ok(0x03);
        };
        if first.0.starts_with('$') {
            let t = wrapped(&first.0, &mut map, buf)?;
            if map.next_key::<IgnoredAny>()?.is_some() {
                return Err(refuse());
            }
            return Ok(t);
        }
        let start = buf.len();
        buf.extend_from_slice(&[0; 4]);
        // Where each field name starts, to refuse a name given twice (`Map` keeps the last
        // value at the first place; a rare case left to the full path).
        let mut names: Vec<(usize, usize)> = Vec::new();
        let mut key = Some(first);
        while let Some(k) = key {
            if k.0.starts_with('$') {
                return Err(refuse());
            }
            let name = k.0.as_bytes();
            if names.iter().any(|&(s, e)| &buf[s..e] == name) {
                return Err(refuse());
            }
            let at = buf.len();
            buf.push(0);
            names.push((buf.len(), buf.len() + name.len()));
            buf.extend_from_slice(name);
            buf.push(0);
            buf[at] = map.next_value_seed(ValueSeed(buf))?;
            key = map.next_key::<Key<'de>>()?;
        }
        close(buf, start)?;
        Ok(0x03)
    }
}

/// Ends the document begun at `start`: its terminating NUL and its length.
fn close<E: de::Error>(buf: &mut Vec<u8>, start: usize) -> Result<(), E> {
    buf.push(0);
    let len = i32::try_from(buf.len() - start).map_err(|_| refuse::<E>())?;
    buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// The value of a canonical Extended JSON wrapper whose one field, `name`, was just read.
fn wrapped<'de, A: MapAccess<'de>>(
    name: &str,
    map: &mut A,
    buf: &mut Vec<u8>,
) -> Result<u8, A::Error> {
    let text = |map: &mut A| map.next_value::<Key<'de>>().map(|k| k.0);
    match name {
        "$oid" => {
            let hex = text(map)?;
            let oid = bson::oid::ObjectId::parse_str(&*hex).map_err(|_| refuse::<A::Error>())?;
            buf.extend_from_slice(&oid.bytes());
            Ok(0x07)
        }
        "$numberLong" => {
            let n: i64 = text(map)?.parse().map_err(|_| refuse::<A::Error>())?;
            buf.extend_from_slice(&n.to_le_bytes());
            Ok(0x12)
        }
        "$numberInt" => {
            let n: i32 = text(map)?.parse().map_err(|_| refuse::<A::Error>())?;
            buf.extend_from_slice(&n.to_le_bytes());
            Ok(0x10)
        }
        "$numberDouble" => {
            let t = text(map)?;
            let d = match &*t {
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                "NaN" => f64::NAN,
                other => other.parse().map_err(|_| refuse::<A::Error>())?,
            };
            buf.extend_from_slice(&d.to_le_bytes());
            Ok(0x01)
        }
        "$minKey" | "$maxKey" => {
            if map.next_value::<u64>()? != 1 {
                return Err(refuse());
            }
            Ok(if name == "$minKey" { 0xFF } else { 0x7F })
        }
        "$timestamp" => {
            let pair = map.next_value::<Fields>()?;
            let (Some(t), Some(i)) = (pair.get("t"), pair.get("i")) else {
                return Err(refuse());
            };
            let (t, i) = (unsigned32(t)?, unsigned32(i)?);
            if pair.0.len() != 2 {
                return Err(refuse());
            }
            // BSON's timestamp: the increment, then the seconds.
            buf.extend_from_slice(&i.to_le_bytes());
            buf.extend_from_slice(&t.to_le_bytes());
            Ok(0x11)
        }
        "$date" => {
            let body = map.next_value::<Fields>()?;
            let (1, Some(Field::Text(ms))) = (body.0.len(), body.get("$numberLong")) else {
                return Err(refuse());
            };
            let ms: i64 = ms.parse().map_err(|_| refuse::<A::Error>())?;
            buf.extend_from_slice(&ms.to_le_bytes());
            Ok(0x09)
        }
        "$binary" => {
            let body = map.next_value::<Fields>()?;
            let (2, Some(Field::Text(b64)), Some(Field::Text(sub))) =
                (body.0.len(), body.get("base64"), body.get("subType"))
            else {
                return Err(refuse());
            };
            // The bson crate's own reading of the two strings (its base64 and hex rules).
            let one = serde_json::json!({"$binary": {"base64": b64, "subType": sub}});
            let Ok(bson::Bson::Binary(bin)) = bson::Bson::try_from(one) else {
                return Err(refuse());
            };
            let subtype = u8::from(bin.subtype);
            // The old binary subtype (2) nests a second length: left to the full path.
            if subtype == 0x02 {
                return Err(refuse());
            }
            let len = i32::try_from(bin.bytes.len()).map_err(|_| refuse::<A::Error>())?;
            buf.extend_from_slice(&len.to_le_bytes());
            buf.push(subtype);
            buf.extend_from_slice(&bin.bytes);
            Ok(0x05)
        }
        _ => Err(refuse()),
    }
}

fn unsigned32<E: de::Error>(f: &Field) -> Result<u32, E> {
    match f {
        Field::Unsigned(n) => u32::try_from(*n).map_err(|_| refuse()),
        Field::Text(_) => Err(refuse()),
    }
}

/// The body of a wrapper: a few fields, each a string or a non-negative integer (anything
/// else, or a name given twice, is refused).
struct Fields(Vec<(String, Field)>);

enum Field {
    Text(String),
    Unsigned(u64),
}

impl Fields {
    fn get(&self, name: &str) -> Option<&Field> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

impl<'de> de::Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(FieldsVisitor)
    }
}

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a wrapper's body")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut out: Vec<(String, Field)> = Vec::new();
        while let Some(k) = map.next_key::<Key<'de>>()? {
            if out.len() >= 2 || out.iter().any(|(n, _)| *n == k.0) {
                return Err(refuse());
            }
            let v = map.next_value::<FieldValue>()?.0;
            out.push((k.0.into_owned(), v));
        }
        Ok(Fields(out))
    }
}

struct FieldValue(Field);

impl<'de> de::Deserialize<'de> for FieldValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldValueVisitor)
    }
}

struct FieldValueVisitor;

impl Visitor<'_> for FieldValueVisitor {
    type Value = FieldValue;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or a whole number")
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<FieldValue, E> {
        Ok(FieldValue(Field::Unsigned(n)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<FieldValue, E> {
        checked(s)?;
        Ok(FieldValue(Field::Text(s.to_string())))
    }
}

#[cfg(test)]
#[path = "fast_batch_tests.rs"]
mod tests;
