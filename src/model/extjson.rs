//! Conversions between [`KeyValue`] and BSON / MongoDB Extended JSON v2 (parsed relaxed or
//! canonical, printed canonical).

use std::fmt;

use bson::Bson;
use bson::spec::BinarySubtype;

use super::decimal::Decimal128;
use super::value::{Binary, CodeWithScope, DbPointer, Field, KeyValue, Regex};

/// Extended JSON that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtJsonError(pub String);

impl fmt::Display for ExtJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExtJsonError {}

/// Parses one value written as Extended JSON (`"abc"`, `42`, `{"$oid": "…"}`, …).
pub fn parse(text: &str) -> Result<KeyValue, ExtJsonError> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ExtJsonError(format!("not valid JSON: {e}")))?;
    from_json(json)
}

/// Reads an already parsed JSON value as Extended JSON.
pub fn from_json(json: serde_json::Value) -> Result<KeyValue, ExtJsonError> {
    Ok(from_bson(&bson_from_json(json)?))
}

/// Reads an already parsed JSON value as Extended JSON into BSON (a document, or any value).
pub fn bson_from_json(json: serde_json::Value) -> Result<Bson, ExtJsonError> {
    check_decimals(&json)?;
    Bson::try_from(json).map_err(|e| ExtJsonError(format!("not valid Extended JSON: {e}")))
}

/// Every `{"$numberDecimal": "…"}` of `json` holds a number as Decimal128's grammar has it (the
/// bson crate reads `""`, `"."` and `"-"` as 0; MongoDB's `Decimal128(std::string)` refuses
/// them).
fn check_decimals(json: &serde_json::Value) -> Result<(), ExtJsonError> {
    let mut stack = vec![json];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(serde_json::Value::String(s)) = o.get("$numberDecimal")
                    && !decimal_text(s)
                {
                    return Err(ExtJsonError(format!(
                        "not valid Extended JSON: {s:?} is not a decimal number"
                    )));
                }
                stack.extend(o.values());
            }
            serde_json::Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    Ok(())
}

/// `[+-]digits[.digits][e[+-]digits]` (at least one digit before the exponent), or Inf,
/// Infinity, NaN in any case.
fn decimal_text(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if ["inf", "infinity", "nan"].contains(&body.to_ascii_lowercase().as_str()) {
        return true;
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// Canonical Extended JSON v2 of a value.
pub fn to_canonical(value: &KeyValue) -> serde_json::Value {
    to_bson(value).into_canonical_extjson()
}

/// Converts a raw BSON value (as a driver delivers it); the common scalar types without a
/// detour through `Bson`. `None` for bytes that are not valid BSON.
pub fn from_raw(value: bson::RawBsonRef<'_>) -> Option<KeyValue> {
    use bson::RawBsonRef as R;
    Some(match value {
        R::Int64(i) => KeyValue::Int64(i),
        R::Int32(i) => KeyValue::Int32(i),
        R::Double(d) => KeyValue::Double(d),
        R::String(s) => KeyValue::String(s.into()),
        R::ObjectId(oid) => KeyValue::ObjectId(oid.bytes()),
        R::MinKey => KeyValue::MinKey,
        R::MaxKey => KeyValue::MaxKey,
        R::DateTime(dt) => KeyValue::DateTime(dt.timestamp_millis()),
        R::Boolean(b) => KeyValue::Bool(b),
        R::Null => KeyValue::Null,
        other => from_bson(&Bson::try_from(other.to_raw_bson()).ok()?),
    })
}

/// Converts a BSON value.
pub fn from_bson(bson: &Bson) -> KeyValue {
    match bson {
        Bson::Double(d) => KeyValue::Double(*d),
        Bson::String(s) => KeyValue::String(s.as_str().into()),
        Bson::Array(items) => KeyValue::Array(items.iter().map(from_bson).collect()),
        Bson::Document(doc) => KeyValue::Document(fields_from(doc)),
        Bson::Boolean(b) => KeyValue::Bool(*b),
        Bson::Null => KeyValue::Null,
        Bson::RegularExpression(r) => KeyValue::Regex(Box::new(Regex {
            pattern: r.pattern.as_str().into(),
            options: r.options.as_str().into(),
        })),
        Bson::JavaScriptCode(code) => KeyValue::Code(code.as_str().into()),
        Bson::JavaScriptCodeWithScope(cws) => KeyValue::CodeWithScope(Box::new(CodeWithScope {
            code: cws.code.as_str().into(),
            scope: fields_from(&cws.scope),
        })),
        Bson::Int32(i) => KeyValue::Int32(*i),
        Bson::Int64(i) => KeyValue::Int64(*i),
        Bson::Timestamp(ts) => KeyValue::Timestamp {
            time: ts.time,
            increment: ts.increment,
        },
        Bson::Binary(b) => KeyValue::Binary(Box::new(Binary {
            subtype: u8::from(b.subtype),
            bytes: b.bytes.clone().into_boxed_slice(),
        })),
        Bson::ObjectId(oid) => KeyValue::ObjectId(oid.bytes()),
        Bson::DateTime(dt) => KeyValue::DateTime(dt.timestamp_millis()),
        Bson::Symbol(s) => KeyValue::Symbol(s.as_str().into()),
        Bson::Decimal128(d) => KeyValue::Decimal(Decimal128(d.bytes())),
        Bson::Undefined => KeyValue::Undefined,
        Bson::MaxKey => KeyValue::MaxKey,
        Bson::MinKey => KeyValue::MinKey,
        Bson::DbPointer(_) => db_pointer_from(bson),
    }
}

fn fields_from(doc: &bson::Document) -> Box<[Field]> {
    doc.iter()
        .map(|(k, v)| (k.as_str().into(), from_bson(v)))
        .collect()
}

/// DBPointer's parts are private in the bson crate; its Extended JSON form exposes them.
fn db_pointer_from(bson: &Bson) -> KeyValue {
    let json = bson.clone().into_canonical_extjson();
    let namespace = json["$dbPointer"]["$ref"].as_str().unwrap_or_default();
    let oid = json["$dbPointer"]["$id"]["$oid"]
        .as_str()
        .unwrap_or_default();
    let id = bson::oid::ObjectId::parse_str(oid)
        .map(|o| o.bytes())
        .unwrap_or_default();
    KeyValue::DbPointer(Box::new(DbPointer {
        namespace: namespace.into(),
        id,
    }))
}

/// Converts to a BSON value.
pub fn to_bson(value: &KeyValue) -> Bson {
    match value {
        KeyValue::MinKey => Bson::MinKey,
        KeyValue::MaxKey => Bson::MaxKey,
        KeyValue::Undefined => Bson::Undefined,
        KeyValue::Null => Bson::Null,
        KeyValue::Int32(i) => Bson::Int32(*i),
        KeyValue::Int64(i) => Bson::Int64(*i),
        KeyValue::Double(d) => Bson::Double(*d),
        KeyValue::Decimal(d) => Bson::Decimal128(bson::Decimal128::from_bytes(d.0)),
        KeyValue::String(s) => Bson::String(s.to_string()),
        KeyValue::Symbol(s) => Bson::Symbol(s.to_string()),
        KeyValue::Document(fields) => Bson::Document(document_of(fields)),
        KeyValue::Array(items) => Bson::Array(items.iter().map(to_bson).collect()),
        KeyValue::Binary(b) => Bson::Binary(bson::Binary {
            subtype: BinarySubtype::from(b.subtype),
            bytes: b.bytes.to_vec(),
        }),
        KeyValue::ObjectId(oid) => Bson::ObjectId(bson::oid::ObjectId::from_bytes(*oid)),
        KeyValue::Bool(b) => Bson::Boolean(*b),
        KeyValue::DateTime(ms) => Bson::DateTime(bson::DateTime::from_millis(*ms)),
        KeyValue::Timestamp { time, increment } => Bson::Timestamp(bson::Timestamp {
            time: *time,
            increment: *increment,
        }),
        KeyValue::Regex(r) => Bson::RegularExpression(bson::Regex {
            pattern: r.pattern.to_string(),
            options: r.options.to_string(),
        }),
        KeyValue::DbPointer(p) => db_pointer_to(p),
        KeyValue::Code(c) => Bson::JavaScriptCode(c.to_string()),
        KeyValue::CodeWithScope(cws) => {
            Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                code: cws.code.to_string(),
                scope: document_of(&cws.scope),
            })
        }
    }
}

/// Builds a BSON document from fields.
pub fn document_of(fields: &[Field]) -> bson::Document {
    fields
        .iter()
        .map(|(k, v)| (k.to_string(), to_bson(v)))
        .collect()
}

fn db_pointer_to(p: &DbPointer) -> Bson {
    let oid = bson::oid::ObjectId::from_bytes(p.id).to_hex();
    let json = serde_json::json!({"$dbPointer": {"$ref": &*p.namespace, "$id": {"$oid": oid}}});
    Bson::try_from(json).unwrap_or(Bson::Null)
}

impl fmt::Display for KeyValue {
    /// Canonical Extended JSON, compact.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", to_canonical(self))
    }
}
