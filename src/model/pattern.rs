//! Shard-key patterns (`{a: 1, b: "hashed"}`): validation, extracting a document's key, and
//! turning bounds to and from documents.

use std::fmt;

use bson::{Bson, Document};

use super::extjson;
use super::hash::hash64;
use super::key::ShardKey;
use super::value::KeyValue;

/// One field of a shard-key pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyField {
    /// The field path, dotted for embedded fields.
    pub path: Box<str>,
    /// `"hashed"` rather than `1`.
    pub hashed: bool,
}

/// A validated shard-key pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPattern {
    fields: Vec<KeyField>,
}

/// Why a key pattern or a document's key is not acceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError(pub String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

fn err<T>(msg: impl Into<String>) -> Result<T, KeyError> {
    Err(KeyError(msg.into()))
}

/// The most fields a shard key pattern has: a shard key needs an index that starts with it, and a
/// compound index holds at most 32 fields (MongoDB's "Compound Index Fields Limit", docs
/// `reference/limits`: "Compound indexes can have a maximum of 32 fields").
pub const MAX_FIELDS: usize = 32;

impl KeyPattern {
    /// Validates a pattern document.
    pub fn parse(doc: &Document) -> Result<Self, KeyError> {
        if doc.is_empty() {
            return err("shard key pattern is empty: give at least one field, e.g. {_id: 1}");
        }
        if doc.len() > MAX_FIELDS {
            return err(format!(
                "a shard key pattern has at most {MAX_FIELDS} fields (an index on it holds at most \
                 {MAX_FIELDS}); this one has {}",
                doc.len()
            ));
        }
        let mut fields = Vec::with_capacity(doc.len());
        for (path, value) in doc {
            check_path(path)?;
            let hashed = match value {
                Bson::String(s) if s == "hashed" => true,
                Bson::Int32(1) | Bson::Int64(1) => false,
                Bson::Double(d) if d.to_bits() == 1.0f64.to_bits() => false,
                other => {
                    return err(format!(
                        "shard key field '{path}' must be 1 or \"hashed\", not {other}"
                    ));
                }
            };
            fields.push(KeyField {
                path: path.as_str().into(),
                hashed,
            });
        }
        if fields.iter().filter(|f| f.hashed).count() > 1 {
            return err("a shard key pattern may contain at most one \"hashed\" field");
        }
        Ok(Self { fields })
    }

    /// Parses a pattern written as Extended JSON.
    pub fn parse_json(text: &str) -> Result<Self, KeyError> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| KeyError(format!("not valid JSON: {e}")))?;
        match Bson::try_from(json) {
            Ok(Bson::Document(doc)) => Self::parse(&doc),
            Ok(_) => err("a shard key pattern must be a document like {\"_id\": 1}"),
            Err(e) => err(format!("not valid Extended JSON: {e}")),
        }
    }

    pub fn fields(&self) -> &[KeyField] {
        &self.fields
    }

    pub fn len(&self) -> usize {
        self.fields.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The position of the hashed field, if any.
    pub fn hashed_field(&self) -> Option<usize> {
        self.fields.iter().position(|f| f.hashed)
    }

    /// The pattern as a document (`{a: 1, b: "hashed"}`).
    pub fn to_document(&self) -> Document {
        self.fields
            .iter()
            .map(|f| {
                let v = if f.hashed {
                    Bson::String("hashed".into())
                } else {
                    Bson::Int32(1)
                };
                (f.path.to_string(), v)
            })
            .collect()
    }

    /// The pattern as the server prints a BSON object in messages (`BSONObj::toString`):
    /// `{ customerId: 1, orderNo: 1 }`, `{ customerId: "hashed" }`.
    pub fn server_text(&self) -> String {
        let parts: Vec<String> = self
            .fields
            .iter()
            .map(|f| {
                let kind = if f.hashed { "\"hashed\"" } else { "1" };
                format!("{}: {kind}", f.path)
            })
            .collect();
        format!("{{ {} }}", parts.join(", "))
    }

    /// `{a: MinKey, …}`: the lower bound of the key space.
    pub fn global_min(&self) -> ShardKey {
        ShardKey::repeat(&KeyValue::MinKey, self.len())
    }

    /// `{a: MaxKey, …}`: the upper bound of the key space.
    pub fn global_max(&self) -> ShardKey {
        ShardKey::repeat(&KeyValue::MaxKey, self.len())
    }

    /// The shard key of a document: dotted paths are followed, a missing field counts as null,
    /// an array is refused, and the hashed field is replaced by its hash.
    pub fn extract(&self, doc: &Document) -> Result<ShardKey, KeyError> {
        let values = self
            .fields
            .iter()
            .map(|f| {
                let value = lookup(doc, &f.path)?;
                Ok(Self::finish(f, value))
            })
            .collect::<Result<Vec<_>, KeyError>>()?;
        ShardKey::from_values(values).ok_or_else(|| KeyError("empty shard key".into()))
    }

    /// The key of raw field values given in pattern order (hashing the hashed one).
    pub fn key_of(&self, values: Vec<KeyValue>) -> Result<ShardKey, KeyError> {
        if values.len() != self.len() {
            return err(format!(
                "expected {} shard key values, got {}",
                self.len(),
                values.len()
            ));
        }
        let values = self
            .fields
            .iter()
            .zip(values)
            .map(|(f, v)| Self::finish(f, v))
            .collect();
        ShardKey::from_values(values).ok_or_else(|| KeyError("empty shard key".into()))
    }

    fn finish(field: &KeyField, value: KeyValue) -> KeyValue {
        if field.hashed {
            KeyValue::Int64(hash64(&value))
        } else {
            value
        }
    }

    /// Reads a bound document (`config.chunks` `min`/`max`, a split point): exactly the
    /// pattern's fields, in order, values taken as they are (already hashed).
    pub fn bound_from_document(&self, doc: &Document) -> Result<ShardKey, KeyError> {
        let names: Vec<&str> = doc.keys().map(String::as_str).collect();
        let expected: Vec<&str> = self.fields.iter().map(|f| &*f.path).collect();
        if names != expected {
            return err(format!(
                "bound {} does not match the shard key pattern {}",
                super::shell_text::document(doc),
                self.server_text()
            ));
        }
        let values = doc.values().map(extjson::from_bson).collect();
        ShardKey::from_values(values).ok_or_else(|| KeyError("empty bound".into()))
    }

    /// A bound read from a raw document (as a driver delivers it), without building a
    /// `Document`: `None` when it does not match the pattern or is not valid BSON (the caller
    /// gets the reason from `bound_from_document`).
    pub fn bound_from_raw(&self, doc: &bson::RawDocument) -> Option<ShardKey> {
        let mut fields = self.fields.iter();
        let mut values = doc.into_iter().map(|item| {
            let (name, value) = item.ok()?;
            (fields.next()?.path.as_ref() == name)
                .then(|| extjson::from_raw(value))
                .flatten()
        });
        let first = values.next()??;
        let key = if self.fields.len() == 1 {
            values.next().is_none().then(|| ShardKey::single(first))?
        } else {
            let mut all = vec![first];
            for v in values {
                all.push(v?);
            }
            (all.len() == self.fields.len())
                .then(|| ShardKey::from_values(all))
                .flatten()?
        };
        Some(key)
    }

    /// Writes a key as a document with the pattern's field names.
    pub fn bound_to_document(&self, key: &ShardKey) -> Document {
        self.fields
            .iter()
            .zip(key.values())
            .map(|(f, v)| (f.path.to_string(), extjson::to_bson(v)))
            .collect()
    }

    /// A key as canonical Extended JSON (`{"x": {"$numberLong": "…"}}`).
    pub fn bound_to_json(&self, key: &ShardKey) -> serde_json::Value {
        Bson::Document(self.bound_to_document(key)).into_canonical_extjson()
    }
}

impl fmt::Display for KeyPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}",
            Bson::Document(self.to_document()).into_relaxed_extjson()
        )
    }
}

fn check_path(path: &str) -> Result<(), KeyError> {
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return err(format!(
            "shard key field '{path}' has an empty path segment"
        ));
    }
    if path.split('.').any(|s| s.starts_with('$')) {
        return err(format!("shard key field '{path}' may not start with '$'"));
    }
    Ok(())
}

/// Follows a dotted path; a missing field is null, an array anywhere on the path is an error.
/// The value at a dotted path of `doc`, through embedded documents (`None` when a part is
/// missing or not a document).
pub fn value_at<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let mut current = doc.get(parts.next()?)?;
    for p in parts {
        current = match current {
            Bson::Document(inner) => inner.get(p)?,
            _ => return None,
        };
    }
    Some(current)
}

fn lookup(doc: &Document, path: &str) -> Result<KeyValue, KeyError> {
    let mut current = doc;
    let mut segments = path.split('.').peekable();
    while let Some(segment) = segments.next() {
        let Some(value) = current.get(segment) else {
            return Ok(KeyValue::Null);
        };
        match value {
            Bson::Array(_) => {
                return err(format!("shard key cannot be an array (field '{path}')"));
            }
            Bson::Document(inner) if segments.peek().is_some() => current = inner,
            _ if segments.peek().is_some() => return Ok(KeyValue::Null),
            other => return Ok(extjson::from_bson(other)),
        }
    }
    Ok(KeyValue::Null)
}
