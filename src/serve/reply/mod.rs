//! Reply documents: success (`ok: 1.0`, as servers send) and errors with MongoDB's code, code
//! name and message; reading a command's arguments with the errors a server gives.
//!
//! The bottom layer: imports nothing of `serve`.

pub mod error_info;
pub mod raw_reply;

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;

/// A handler's answer: a reply document, or an error reply.
pub type Answer = Result<Document, MongoError>;

/// `reply` with `ok: 1.0` appended.
pub fn ok(mut reply: Document) -> Document {
    reply.insert("ok", 1.0);
    reply
}

/// `{ok: 0, errmsg, code, codeName}` and the error's extra fields (`error_info`).
pub fn error(e: &MongoError) -> Document {
    let mut d =
        doc! { "ok": 0.0, "errmsg": e.message.clone(), "code": e.code, "codeName": e.code_name };
    if let Some(info) = error_info::of(e) {
        d.extend(info);
    }
    d
}

/// `FailedToParse` (9).
pub fn failed_to_parse(m: impl Into<String>) -> MongoError {
    MongoError {
        code: 9,
        code_name: "FailedToParse",
        message: m.into(),
    }
}

/// `TypeMismatch` (14).
pub fn type_mismatch(m: impl Into<String>) -> MongoError {
    MongoError {
        code: 14,
        code_name: "TypeMismatch",
        message: m.into(),
    }
}

/// `CursorNotFound` (43).
pub fn cursor_not_found(id: i64) -> MongoError {
    MongoError {
        code: 43,
        code_name: "CursorNotFound",
        message: format!("cursor id {id} not found"),
    }
}

/// `InvalidNamespace` (73).
pub fn invalid_namespace(m: impl Into<String>) -> MongoError {
    MongoError {
        code: 73,
        code_name: "InvalidNamespace",
        message: m.into(),
    }
}

/// The string value of the command's first field (a collection or namespace name).
pub fn first_string(cmd: &Document, name: &str) -> Result<String, MongoError> {
    match cmd.iter().next().map(|(_, v)| v) {
        Some(Bson::String(s)) if !s.is_empty() => Ok(s.clone()),
        _ => Err(type_mismatch(format!(
            "collection name has invalid type: {name} expects a string"
        ))),
    }
}

/// A required string argument.
pub fn string_arg(cmd: &Document, field: &str) -> Result<String, MongoError> {
    match cmd.get(field) {
        Some(Bson::String(s)) => Ok(s.clone()),
        Some(_) => Err(type_mismatch(format!(
            "BSON field '{field}' is the wrong type, expected type 'string'"
        ))),
        None => Err(missing(field)),
    }
}

/// A required document argument.
pub fn doc_arg<'a>(cmd: &'a Document, field: &str) -> Result<&'a Document, MongoError> {
    match cmd.get(field) {
        Some(Bson::Document(d)) => Ok(d),
        Some(_) => Err(type_mismatch(format!(
            "BSON field '{field}' is the wrong type, expected type 'object'"
        ))),
        None => Err(missing(field)),
    }
}

/// An optional document argument.
pub fn opt_doc<'a>(cmd: &'a Document, field: &str) -> Result<Option<&'a Document>, MongoError> {
    match cmd.get(field) {
        None | Some(Bson::Null) => Ok(None),
        Some(Bson::Document(d)) => Ok(Some(d)),
        Some(_) => Err(type_mismatch(format!(
            "BSON field '{field}' is the wrong type, expected type 'object'"
        ))),
    }
}

/// An optional non-negative integer argument (int32, int64 or integral double).
pub fn opt_count(cmd: &Document, field: &str) -> Result<Option<i64>, MongoError> {
    let n = match cmd.get(field) {
        None | Some(Bson::Null) => return Ok(None),
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(d)) if d.fract() == 0.0 => *d as i64,
        Some(_) => {
            return Err(type_mismatch(format!(
                "BSON field '{field}' is the wrong type, expected a number"
            )));
        }
    };
    Ok(Some(n))
}

/// A truthy flag (`true`, or a non-zero number).
/// The BSON type's name as the server words it (`$type`, error messages).
pub fn type_name(v: &Bson) -> &'static str {
    crate::model::shell_text::bson_type_name(v)
}

pub fn flag(cmd: &Document, field: &str) -> bool {
    match cmd.get(field) {
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Int32(n)) => *n != 0,
        Some(Bson::Int64(n)) => *n != 0,
        Some(Bson::Double(d)) => *d != 0.0,
        _ => false,
    }
}

fn missing(field: &str) -> MongoError {
    MongoError {
        code: 40414,
        code_name: "Location40414",
        message: format!("BSON field '{field}' is missing but a required field"),
    }
}

/// A count as the server appends it (`BSONObjBuilder::appendNumber`): int32 when it fits, int64
/// otherwise.
pub fn number(n: u64) -> Bson {
    i32::try_from(n).map_or_else(|_| Bson::Int64(n as i64), Bson::Int32)
}
