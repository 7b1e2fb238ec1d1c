//! The query operators beyond comparison: `$regex` (and BSON regular expressions as values),
//! `$elemMatch`, `$size`, `$type`, `$all` and `$mod`, as `db/matcher/expression_*.cpp` define
//! them. Regular expressions run on Rust's `regex` engine: PCRE's look-around and
//! back-references are refused with the server's error rather than matched differently (see
//! docs/fidelity.md).

use std::cell::RefCell;
use std::collections::HashMap;

use bson::{Bson, Document};
use regex::Regex;

use crate::cluster::MongoError;

fn bad_value(m: impl Into<String>) -> MongoError {
    MongoError::bad_value(m)
}

thread_local! {
    static COMPILED: RefCell<HashMap<(String, String), Regex>> = RefCell::new(HashMap::new());
    /// The expression compiled last: a command matching many documents with one pattern finds
    /// it here by comparing bytes, without copying or hashing the pattern per document.
    static LAST: RefCell<Option<(String, String, Regex)>> = const { RefCell::new(None) };
}

/// The longest pattern a server compiles, in bytes.
// 8.0 `src/mongo/db/matcher/expression_leaf.h`: `RegexMatchExpression::kMaxPatternSize = 32764`;
// a longer pattern fails PCRE2's compile (`src/mongo/util/pcre.cpp` sets it as the maximum
// pattern length) and `expression_leaf.cpp` raises 51091 "Regular expression is invalid: " with
// PCRE2's message (`jstests/core/query/regex/regex_limit.js` expects 51091).
pub const MAX_PATTERN_BYTES: usize = 32764;

/// The compiled expression for `pattern` with MongoDB's `options` (`i`, `m`, `s`, `x`, `u`).
fn compiled(pattern: &str, options: &str) -> Result<Regex, MongoError> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(MongoError {
            code: 51091,
            code_name: "Location51091",
            message: "Regular expression is invalid: pattern string is longer than the limit set \
                      by the application"
                .into(),
        });
    }
    let last = LAST.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(p, o, _)| p == pattern && o == options)
            .map(|(_, _, r)| r.clone())
    });
    if let Some(r) = last {
        return Ok(r);
    }
    let key = (pattern.to_string(), options.to_string());
    if let Some(r) = COMPILED.with(|c| c.borrow().get(&key).cloned()) {
        LAST.with(|l| *l.borrow_mut() = Some((key.0, key.1, r.clone())));
        return Ok(r);
    }
    let mut flags = String::new();
    for o in options.chars() {
        match o {
            'i' | 'm' | 's' | 'x' => flags.push(o),
            'u' => {}
            other => {
                return Err(MongoError {
                    code: 51108,
                    code_name: "Location51108",
                    message: format!("invalid flag in regex options: {other}"),
                });
            }
        }
    }
    let source = if flags.is_empty() {
        pattern.to_string()
    } else {
        format!("(?{flags}){pattern}")
    };
    let r = Regex::new(&source).map_err(|e| MongoError {
        code: 51091,
        code_name: "Location51091",
        message: format!("Regular expression is invalid: {e}"),
    })?;
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 256 {
            c.clear();
        }
        c.insert(key.clone(), r.clone());
    });
    LAST.with(|l| *l.borrow_mut() = Some((key.0, key.1, r.clone())));
    Ok(r)
}

/// Whether a string value (or a string element of an array) matches the expression.
pub fn regex_matches(
    value: Option<&Bson>,
    pattern: &str,
    options: &str,
) -> Result<bool, MongoError> {
    let r = compiled(pattern, options)?;
    let one = |v: &Bson| match v {
        Bson::String(s) | Bson::Symbol(s) => r.is_match(s),
        Bson::RegularExpression(x) => x.pattern == pattern && x.options == options,
        _ => false,
    };
    Ok(match value {
        Some(Bson::Array(items)) => items.iter().any(one),
        Some(v) => one(v),
        None => false,
    })
}

/// `{$regex: p, $options: o}` (the pattern may itself be a BSON regular expression).
pub fn regex_operator(value: Option<&Bson>, ops: &Document) -> Result<bool, MongoError> {
    let options = match ops.get("$options") {
        None => String::new(),
        Some(Bson::String(o)) => o.clone(),
        Some(_) => return Err(bad_value("$options has to be a string")),
    };
    match ops.get("$regex") {
        Some(Bson::String(p)) => regex_matches(value, p, &options),
        Some(Bson::RegularExpression(r)) => {
            if !options.is_empty() && !r.options.is_empty() {
                return Err(bad_value("options set in both $regex and $options"));
            }
            let o = if options.is_empty() {
                r.options.clone()
            } else {
                options
            };
            regex_matches(value, &r.pattern, &o)
        }
        _ => Err(bad_value("$regex has to be a string")),
    }
}

/// `$size: n`: an array of exactly `n` elements.
pub fn size(value: Option<&Bson>, arg: &Bson) -> Result<bool, MongoError> {
    let n = match arg {
        Bson::Int32(n) => i64::from(*n),
        Bson::Int64(n) => *n,
        Bson::Double(d) if d.fract() == 0.0 => *d as i64,
        Bson::Double(_) => return Err(bad_value("$size must be a whole number")),
        _ => return Err(bad_value("$size needs a number")),
    };
    if n < 0 {
        return Err(bad_value("$size may not be negative"));
    }
    Ok(matches!(value, Some(Bson::Array(items)) if items.len() as i64 == n))
}

/// `$type: code | alias | [..]`.
pub fn type_matches(value: Option<&Bson>, arg: &Bson) -> Result<bool, MongoError> {
    let wanted: Vec<&Bson> = match arg {
        Bson::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    let Some(v) = value else {
        return Ok(false);
    };
    let mut candidates = vec![v];
    if let Bson::Array(items) = v {
        candidates.extend(items.iter());
    }
    for w in wanted {
        let alias = type_alias(w)?;
        if candidates.iter().any(|c| is_type(c, &alias)) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn type_alias(w: &Bson) -> Result<String, MongoError> {
    let code = match w {
        Bson::String(s) => return known_alias(s),
        Bson::Int32(n) => i64::from(*n),
        Bson::Int64(n) => *n,
        Bson::Double(d) => *d as i64,
        _ => {
            return Err(bad_value(
                "type must be represented as a number or a string",
            ));
        }
    };
    let alias = match code {
        1 => "double",
        2 => "string",
        3 => "object",
        4 => "array",
        5 => "binData",
        6 => "undefined",
        7 => "objectId",
        8 => "bool",
        9 => "date",
        10 => "null",
        11 => "regex",
        12 => "dbPointer",
        13 => "javascript",
        14 => "symbol",
        15 => "javascriptWithScope",
        16 => "int",
        17 => "timestamp",
        18 => "long",
        19 => "decimal",
        -1 => "minKey",
        127 => "maxKey",
        _ => return Err(bad_value(format!("Invalid numerical type code: {code}"))),
    };
    Ok(alias.to_string())
}

fn known_alias(s: &str) -> Result<String, MongoError> {
    let known = [
        "double",
        "string",
        "object",
        "array",
        "binData",
        "undefined",
        "objectId",
        "bool",
        "date",
        "null",
        "regex",
        "dbPointer",
        "javascript",
        "symbol",
        "javascriptWithScope",
        "int",
        "timestamp",
        "long",
        "decimal",
        "minKey",
        "maxKey",
        "number",
    ];
    if known.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(bad_value(format!("Unknown type name alias: {s}")))
    }
}

fn is_type(v: &Bson, alias: &str) -> bool {
    let name = crate::serve::reply::type_name(v);
    name == alias || (alias == "number" && matches!(name, "double" | "int" | "long" | "decimal"))
}

/// `$mod: [divisor, remainder]` on a numeric value (truncated toward zero).
pub fn modulo(value: Option<&Bson>, arg: &Bson) -> Result<bool, MongoError> {
    let Bson::Array(parts) = arg else {
        return Err(bad_value("malformed mod, needs to be an array"));
    };
    let [divisor, remainder] = parts.as_slice() else {
        return Err(bad_value(if parts.len() < 2 {
            "malformed mod, not enough elements"
        } else {
            "malformed mod, too many elements"
        }));
    };
    let (Some(d), Some(r)) = (whole(divisor), whole(remainder)) else {
        return Err(bad_value(
            "malformed mod, divisor and remainder must be numbers",
        ));
    };
    if d == 0 {
        return Err(bad_value("divisor cannot be 0"));
    }
    let test = |v: &Bson| whole(v).is_some_and(|x| x.wrapping_rem(d) == r);
    Ok(match value {
        Some(Bson::Array(items)) => items.iter().any(test),
        Some(v) => test(v),
        None => false,
    })
}

fn whole(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(d) if d.is_finite() => Some(d.trunc() as i64),
        _ => None,
    }
}
