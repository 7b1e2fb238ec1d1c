//! `analyzeShardKey`'s request: its fields as the IDL parses them (8.0
//! `src/mongo/s/analyze_shard_key_cmd.idl`: `key`, `keyCharacteristics` and
//! `readWriteDistribution` (bools, default true), `sampleRate` in (0, 1], `sampleSize` above 0),
//! the key pattern as `ShardKeyPattern` accepts it, and the namespace checks — each with the
//! server's code and words.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::{KeyPattern, shell_text};
use crate::serve::reply;

/// The command's fields (8.0 `src/mongo/s/analyze_shard_key_cmd.idl`).
pub(crate) struct Request {
    pub ns: String,
    pub key: KeyPattern,
    pub characteristics: bool,
    pub distribution: bool,
    pub sample_rate: Option<f64>,
    pub sample_size: Option<i64>,
}

impl Request {
    /// The command's fields, with the IDL's type and bound errors.
    pub(crate) fn parse(cmd: &Document) -> Result<Self, MongoError> {
        let ns = match cmd.get("analyzeShardKey") {
            Some(Bson::String(s)) => s.clone(),
            other => return Err(wrong_type("analyzeShardKey", other, "'string'")),
        };
        let key = match cmd.get("key") {
            Some(Bson::Document(d)) => shard_key_pattern(d)?,
            None => return Err(missing("analyzeShardKey.key")),
            other => return Err(wrong_type("analyzeShardKey.key", other, "'object'")),
        };
        Ok(Self {
            ns,
            key,
            characteristics: bool_field(cmd, "keyCharacteristics")?,
            distribution: bool_field(cmd, "readWriteDistribution")?,
            sample_rate: sample_rate(cmd)?,
            sample_size: sample_size(cmd)?,
        })
    }
}

/// A `bool` field of the IDL (default `true`): a boolean, nothing else.
fn bool_field(cmd: &Document, field: &str) -> Result<bool, MongoError> {
    match cmd.get(field) {
        None => Ok(true),
        Some(Bson::Boolean(b)) => Ok(*b),
        other => Err(wrong_type(
            &format!("analyzeShardKey.{field}"),
            other,
            "'bool'",
        )),
    }
}

/// A number of the IDL's `safeDouble` / `safeInt64` types.
fn number(cmd: &Document, field: &str) -> Result<Option<f64>, MongoError> {
    match cmd.get(field) {
        None => Ok(None),
        Some(Bson::Double(d)) => Ok(Some(*d)),
        Some(Bson::Int32(n)) => Ok(Some(f64::from(*n))),
        Some(Bson::Int64(n)) => Ok(Some(*n as f64)),
        Some(Bson::Decimal128(d)) => Ok(d.to_string().parse().ok()),
        other => Err(wrong_type(
            &format!("analyzeShardKey.{field}"),
            other,
            "types '[long, int, decimal, double]'",
        )),
    }
}

/// `sampleRate`: `{gt: 0, lte: 1}`.
fn sample_rate(cmd: &Document) -> Result<Option<f64>, MongoError> {
    let Some(rate) = number(cmd, "sampleRate")? else {
        return Ok(None);
    };
    if rate <= 0.0 {
        return Err(out_of_bounds("sampleRate", "> 0", rate));
    }
    if rate > 1.0 {
        return Err(out_of_bounds("sampleRate", "<= 1", rate));
    }
    Ok(Some(rate))
}

/// `sampleSize`: `{gt: 0}`.
fn sample_size(cmd: &Document) -> Result<Option<i64>, MongoError> {
    let Some(size) = number(cmd, "sampleSize")? else {
        return Ok(None);
    };
    let size = size.trunc() as i64;
    if size <= 0 {
        return Err(out_of_bounds("sampleSize", "> 0", size as f64));
    }
    Ok(Some(size))
}

/// The IDL's type error (TypeMismatch).
fn wrong_type(field: &str, value: Option<&Bson>, expected: &str) -> MongoError {
    let actual = value.map_or("missing", reply::type_name);
    reply::type_mismatch(format!(
        "BSON field '{field}' is the wrong type '{actual}', expected type {expected}"
    ))
}

fn missing(field: &str) -> MongoError {
    MongoError {
        code: 40414,
        code_name: "Location40414",
        message: format!("BSON field '{field}' is missing but a required field"),
    }
}

/// The IDL's validator error (`idl_parser.cpp`, `throwComparisonError`).
fn out_of_bounds(field: &str, bound: &str, actual: f64) -> MongoError {
    MongoError {
        code: 51024,
        code_name: "Location51024",
        message: format!(
            "BSON field 'analyzeShardKey.{field}' value must be {bound}, actual value '{actual}'"
        ),
    }
}

/// The key as `ShardKeyPattern` accepts it (8.0 `s/shard_key_pattern.cpp`,
/// `parseShardKeyPattern`): ascending fields (a number whose integer part is 1) and at most one
/// hashed one.
fn shard_key_pattern(key: &Document) -> Result<KeyPattern, MongoError> {
    if key.is_empty() {
        return Err(MongoError::bad_value("Shard key is empty"));
    }
    let text = shell_text::document(key);
    let mut normalized = Document::new();
    let mut hashed = 0;
    for (field, value) in key {
        check_field(field)?;
        let one = match value {
            Bson::String(s) if s == "hashed" => {
                hashed += 1;
                if hashed > 1 {
                    return Err(MongoError::bad_value(format!(
                        "Shard key {text} can contain at most one 'hashed' field. Failed to \
                         parse field {field}"
                    )));
                }
                Bson::String("hashed".into())
            }
            Bson::Int32(1) | Bson::Int64(1) => Bson::Int32(1),
            Bson::Double(d) if (1.0..2.0).contains(d) => Bson::Int32(1),
            _ => {
                return Err(MongoError::bad_value(format!(
                    "Shard key {text}numerical fields must be set to a value of 1 (ascending). \
                     Failed to parse field {field}"
                )));
            }
        };
        normalized.insert(field.clone(), one);
    }
    KeyPattern::parse(&normalized).map_err(|e| MongoError::bad_value(e.0))
}

fn check_field(field: &str) -> Result<(), MongoError> {
    if field.is_empty() {
        return Err(MongoError::bad_value(format!("Field {field} is empty")));
    }
    for (i, part) in field.split('.').enumerate() {
        if part.is_empty() {
            return Err(MongoError::bad_value(format!(
                "Field {field} contains empty parts"
            )));
        }
        let dbref = i > 0 && matches!(part, "$db" | "$id" | "$ref");
        if part.starts_with('$') && !dbref {
            return Err(MongoError::bad_value(format!(
                "Field {field} contains parts that start with '$'"
            )));
        }
    }
    Ok(())
}

/// 8.0 `s/analyze_shard_key_common.cpp` (`validateNamespace`).
pub(crate) fn validate_namespace(ns: &str) -> Result<(), MongoError> {
    let Some((db, coll)) = ns
        .split_once('.')
        .filter(|(d, c)| !d.is_empty() && !c.is_empty())
    else {
        return Err(reply::invalid_namespace("The namespace is invalid"));
    };
    if matches!(db, "admin" | "config" | "local") {
        return Err(MongoError::illegal_operation(
            "Cannot run against an internal collection",
        ));
    }
    if coll.starts_with("system.") {
        return Err(MongoError::illegal_operation(
            "Cannot run against a system collection",
        ));
    }
    Ok(())
}
