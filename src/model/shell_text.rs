//! Values as the server prints them in its messages (`BSONObj::toString`, in
//! `bson/bsonelement.cpp`): `{ orderNo: 1 }`, `{ customerId: "hashed" }`, `[ 1, 2 ]`,
//! `ObjectId('…')`, `new Date(…)`, `MinKey`. Error texts use this form, never JSON or Rust debug
//! text.

use std::fmt::Write;

use bson::{Bson, Document};

use super::{KeyValue, ShardKey, extjson};

/// A document as the server prints it: `{ a: 1, b: "x" }`, `{}` when empty.
pub fn document(doc: &Document) -> String {
    let mut out = String::new();
    write_document(&mut out, doc);
    out
}

/// One value as the server prints it.
pub fn value(v: &Bson) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

/// A shard-key value as the server prints it.
pub fn key_value(v: &KeyValue) -> String {
    value(&extjson::to_bson(v))
}

/// A key without its field names, as the server prints a key-stripped object: `{ : 5, : "x" }`.
pub fn stripped_key(key: &ShardKey) -> String {
    let parts: Vec<String> = key
        .values()
        .map(|v| format!(": {}", key_value(v)))
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

fn write_document(out: &mut String, doc: &Document) {
    if doc.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{ ");
    for (i, (k, v)) in doc.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(k);
        out.push_str(": ");
        write_value(out, v);
    }
    out.push_str(" }");
}

fn write_value(out: &mut String, v: &Bson) {
    // `write!` into a String cannot fail.
    let _ = match v {
        Bson::Document(d) => {
            write_document(out, d);
            Ok(())
        }
        Bson::Array(items) => {
            write_array(out, items);
            Ok(())
        }
        Bson::String(s) | Bson::Symbol(s) => write!(out, "\"{s}\""),
        Bson::Int32(n) => write!(out, "{n}"),
        Bson::Int64(n) => write!(out, "{n}"),
        Bson::Double(x) => write!(out, "{}", double(*x)),
        Bson::Decimal128(d) => write!(out, "{d}"),
        Bson::Boolean(b) => write!(out, "{b}"),
        Bson::Null => write!(out, "null"),
        Bson::Undefined => write!(out, "undefined"),
        Bson::MinKey => write!(out, "MinKey"),
        Bson::MaxKey => write!(out, "MaxKey"),
        Bson::ObjectId(o) => write!(out, "ObjectId('{o}')"),
        Bson::DateTime(d) => write!(out, "new Date({})", d.timestamp_millis()),
        Bson::Timestamp(t) => write!(out, "Timestamp({}, {})", t.time, t.increment),
        Bson::RegularExpression(r) => write!(out, "/{}/{}", r.pattern, r.options),
        Bson::Binary(b) => write!(out, "BinData({}, {})", u8::from(b.subtype), hex(&b.bytes)),
        Bson::JavaScriptCode(c) => write!(out, "{c}"),
        other => write!(out, "{other}"),
    };
}

fn write_array(out: &mut String, items: &[Bson]) {
    if items.is_empty() {
        out.push_str("[]");
        return;
    }
    out.push_str("[ ");
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, v);
    }
    out.push_str(" ]");
}

/// `appendDoubleNice`: a whole number keeps a `.0`.
fn double(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else if x.is_nan() {
        "nan.0".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf.0" } else { "-inf.0" }.to_string()
    } else {
        format!("{x}")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02X}");
        s
    })
}

/// The BSON type's name as the server words it (`$type`, error messages).
pub fn bson_type_name(v: &Bson) -> &'static str {
    match v {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Document(_) => "object",
        Bson::Array(_) => "array",
        Bson::Binary(_) => "binData",
        Bson::Undefined => "undefined",
        Bson::ObjectId(_) => "objectId",
        Bson::Boolean(_) => "bool",
        Bson::DateTime(_) => "date",
        Bson::Null => "null",
        Bson::RegularExpression(_) => "regex",
        Bson::DbPointer(_) => "dbPointer",
        Bson::JavaScriptCode(_) => "javascript",
        Bson::Symbol(_) => "symbol",
        Bson::JavaScriptCodeWithScope(_) => "javascriptWithScope",
        Bson::Int32(_) => "int",
        Bson::Timestamp(_) => "timestamp",
        Bson::Int64(_) => "long",
        Bson::Decimal128(_) => "decimal",
        Bson::MinKey => "minKey",
        Bson::MaxKey => "maxKey",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn documents_read_as_the_servers_messages() {
        assert_eq!(document(&doc! {"orderNo": 1}), "{ orderNo: 1 }");
        assert_eq!(
            document(&doc! {"customerId": "hashed", "n": 2.0_f64, "a": [1_i64, "x"]}),
            "{ customerId: \"hashed\", n: 2.0, a: [ 1, \"x\" ] }"
        );
        assert_eq!(document(&Document::new()), "{}");
        assert_eq!(value(&Bson::MinKey), "MinKey");
    }
}
