//! Values as mongosh prints them, for what a user reads on screen (the event log, bounds):
//! `ISODate("2026-01-01T00:00:02.982Z")` for a date (mongosh's `inspect` of a `Date`, in
//! mongosh's `packages/service-provider-core/src/printable-bson.ts`), `ObjectId("…")`,
//! `NumberLong(…)`, `MinKey`. The server's own message text is `shell_text`'s, not this.
//!
//! Part of `model`: pure functions, no I/O.

use bson::Bson;

/// One value as mongosh prints it.
pub fn value(v: &Bson) -> String {
    match v {
        Bson::DateTime(d) => iso_date(d.timestamp_millis()),
        Bson::Document(d) => {
            let fields: Vec<String> = d
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), value(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Bson::Array(a) => format!("[{}]", a.iter().map(value).collect::<Vec<_>>().join(", ")),
        Bson::String(s) => quoted(s),
        Bson::Double(f) if f.is_nan() => "NaN".into(),
        Bson::Double(f) if f.is_infinite() => {
            if *f > 0.0 { "Infinity" } else { "-Infinity" }.into()
        }
        // A whole double past 2^53 in digits would read back as the int64 of those digits
        // (`mongosh_read` keeps such integers exact); its exponent form is the same number.
        Bson::Double(f) if f.fract() == 0.0 && f.abs() > 9_007_199_254_740_992.0 => {
            format!("{f:e}")
        }
        Bson::Binary(b) => binary(b),
        Bson::Timestamp(t) => format!("Timestamp({{ t: {}, i: {} }})", t.time, t.increment),
        Bson::Decimal128(d) => format!("Decimal128(\"{d}\")"),
        other => other.to_string(),
    }
}

/// A UUID (subtype 4, 16 bytes) as `UUID("…")`, any other binary as
/// `Binary.createFromBase64("…", subtype)` — mongosh's forms (`printable-bson.ts`).
fn binary(b: &bson::Binary) -> String {
    let subtype = u8::from(b.subtype);
    if subtype == 4 && b.bytes.len() == 16 {
        let hex = b.bytes.iter().fold(String::new(), |mut out, x| {
            use std::fmt::Write;
            let _ = write!(out, "{x:02x}");
            out
        });
        return format!(
            "UUID(\"{}-{}-{}-{}-{}\")",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        );
    }
    let ext = Bson::Binary(b.clone()).into_canonical_extjson();
    let base64 = ext["$binary"]["base64"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    format!("Binary.createFromBase64(\"{base64}\", {subtype})")
}

/// A field name as mongosh prints it: bare when it is an identifier (`_id`, `$gt`), else quoted
/// (`"a.b"`), so that `mongosh_read` reads it back.
fn key(k: &str) -> String {
    let mut bytes = k.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$');
    if first_ok && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$') {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// A string in double quotes, its quotes, backslashes and control characters escaped.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `ISODate("YYYY-MM-DDTHH:MM:SS.mmmZ")` of milliseconds since the epoch (UTC, always with the
/// milliseconds, as mongosh prints `Date.prototype.toISOString`).
pub fn iso_date(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = crate::units::civil_from_days(days);
    let (h, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else {
        // toISOString's expanded years: a sign and six digits.
        format!("{}{:06}", if y < 0 { '-' } else { '+' }, y.unsigned_abs())
    };
    format!("ISODate(\"{year}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z\")")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_and_timestamps_read_as_mongosh_prints_them() {
        let uuid = bson::Binary {
            subtype: bson::spec::BinarySubtype::Uuid,
            bytes: (0..16).collect(),
        };
        assert_eq!(
            value(&Bson::Binary(uuid)),
            "UUID(\"00010203-0405-0607-0809-0a0b0c0d0e0f\")"
        );
        let generic = bson::Binary {
            subtype: bson::spec::BinarySubtype::Generic,
            bytes: b"shard".to_vec(),
        };
        assert_eq!(
            value(&Bson::Binary(generic)),
            "Binary.createFromBase64(\"c2hhcmQ=\", 0)"
        );
        let ts = bson::Timestamp {
            time: 7,
            increment: 2,
        };
        assert_eq!(value(&Bson::Timestamp(ts)), "Timestamp({ t: 7, i: 2 })");
    }

    #[test]
    fn dates_read_as_mongosh_prints_them() {
        assert_eq!(iso_date(0), "ISODate(\"1970-01-01T00:00:00.000Z\")");
        assert_eq!(
            iso_date(1_767_225_602_982),
            "ISODate(\"2026-01-01T00:00:02.982Z\")"
        );
        assert_eq!(iso_date(-1), "ISODate(\"1969-12-31T23:59:59.999Z\")");
        assert_eq!(
            iso_date(951_782_400_000),
            "ISODate(\"2000-02-29T00:00:00.000Z\")"
        );
        let v = Bson::DateTime(bson::DateTime::from_millis(1_767_225_602_982));
        assert_eq!(value(&v), "ISODate(\"2026-01-01T00:00:02.982Z\")");
        let d = Bson::Document(bson::doc! {"at": v, "n": 1});
        assert_eq!(
            value(&d),
            "{at: ISODate(\"2026-01-01T00:00:02.982Z\"), n: 1}"
        );
    }

    #[test]
    fn every_day_agrees_with_bson() {
        for day in (-719_000_i64..2_900_000).step_by(997) {
            let ms = day * 86_400_000 + 45_296_789;
            let want = bson::DateTime::from_millis(ms)
                .try_to_rfc3339_string()
                .unwrap_or_default();
            let got = iso_date(ms);
            // bson prints the date part the same; compare it.
            assert_eq!(&got[9..19], &want[..10], "{ms}");
        }
    }
}
