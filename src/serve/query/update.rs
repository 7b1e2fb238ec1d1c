//! The update language over one document: a replacement, or the operators `$set`, `$unset`,
//! `$inc`, `$mul`, `$min`, `$max`, `$setOnInsert` (on an upsert's insert only), `$push` and
//! `$addToSet` (with `$each`) and `$pop`, on top-level or dotted fields (through embedded
//! documents and array indexes). What changed is reported as a change stream's
//! `updateDescription` does: `updatedFields` by path (an array changed by `$push`, `$addToSet` or
//! `$pop` is reported whole), `removedFields`, `truncatedArrays` (always empty). Pipeline updates
//! and other operators are refused with the server's errors.

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::serve::query::compare;
use crate::serve::query::paths::{remove_path, set_path};

/// A parsed `u`.
pub enum Update {
    Replace(Document),
    Ops(Document),
}

/// The result of applying an update to a document.
pub struct Applied {
    pub doc: Document,
    /// Paths set, with their new values (only those whose value changed).
    pub updated: Document,
    /// Paths removed (only those that existed).
    pub removed: Vec<String>,
}

impl Applied {
    /// Whether the document changed.
    pub fn changed(&self) -> bool {
        !self.updated.is_empty() || !self.removed.is_empty()
    }
}

const OPERATORS: &[&str] = &[
    "$set",
    "$unset",
    "$inc",
    "$mul",
    "$min",
    "$max",
    "$setOnInsert",
    "$push",
    "$addToSet",
    "$pop",
];

fn failed_to_parse(m: impl Into<String>) -> MongoError {
    crate::serve::reply::failed_to_parse(m)
}

fn err(code: i32, code_name: &'static str, m: impl Into<String>) -> MongoError {
    MongoError {
        code,
        code_name,
        message: m.into(),
    }
}

/// Reads `u` (the update statement's `u`, or findAndModify's `update`).
pub fn parse(u: Option<&Bson>) -> Result<Update, MongoError> {
    match u {
        Some(Bson::Document(u)) if u.keys().next().is_some_and(|k| k.starts_with('$')) => {
            let mut seen: Vec<&str> = Vec::new();
            for (op, arg) in u {
                if !OPERATORS.contains(&op.as_str()) {
                    return Err(failed_to_parse(format!(
                        "Unknown modifier: {op}. Expected a valid update modifier or \
                         pipeline-style update specified as an array"
                    )));
                }
                let Bson::Document(fields) = arg else {
                    return Err(failed_to_parse(format!(
                        "Modifiers operate on fields but we found type {} instead. For example: \
                         {{$mod: {{<field>: ...}}}} not {{{op}: {arg}}}",
                        type_name(arg)
                    )));
                };
                for path in fields.keys() {
                    crate::serve::query::limits::check_path(path)?;
                    if let Some(other) = seen.iter().find(|p| conflicts(p, path)) {
                        return Err(err(
                            40,
                            "ConflictingUpdateOperators",
                            format!(
                                "Updating the path '{path}' would create a conflict at '{other}'"
                            ),
                        ));
                    }
                    seen.push(path);
                }
            }
            Ok(Update::Ops(u.clone()))
        }
        Some(Bson::Document(u)) => {
            if let Some(k) = u.keys().find(|k| k.starts_with('$')) {
                return Err(failed_to_parse(format!(
                    "The dollar ($) prefixed field '{k}' in '{k}' is not allowed in a replacement \
                     document"
                )));
            }
            Ok(Update::Replace(u.clone()))
        }
        Some(Bson::Array(_)) => Err(MongoError::command_not_supported(
            "shardtop serve does not carry out pipeline-style updates",
        )),
        _ => Err(failed_to_parse(
            "Update argument must be either an object or an array",
        )),
    }
}

fn conflicts(a: &str, b: &str) -> bool {
    a == b
        || b.strip_prefix(a).is_some_and(|r| r.starts_with('.'))
        || a.strip_prefix(b).is_some_and(|r| r.starts_with('.'))
}

fn type_name(b: &Bson) -> &'static str {
    match b {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Array(_) => "array",
        Bson::Document(_) => "object",
        Bson::Boolean(_) => "bool",
        Bson::Null => "null",
        Bson::Int32(_) => "int",
        Bson::Int64(_) => "long",
        _ => "other",
    }
}

fn immutable_id(id: &Bson) -> MongoError {
    err(
        66,
        "ImmutableField",
        format!(
            "After applying the update, the (immutable) field '_id' was found to have been \
             altered to _id: {id}"
        ),
    )
}

/// Applies `u` to `doc`; `inserting` when the document is an upsert's new one (`$setOnInsert`
/// applies then only).
pub fn apply(doc: &Document, u: &Update, inserting: bool) -> Result<Applied, MongoError> {
    let applied = apply_unchecked(doc, u, inserting)?;
    crate::serve::query::limits::check_updated(&applied.doc)?;
    Ok(applied)
}

fn apply_unchecked(doc: &Document, u: &Update, inserting: bool) -> Result<Applied, MongoError> {
    match u {
        Update::Replace(r) => {
            let mut out = Document::new();
            let id = doc.get("_id").cloned();
            if let Some(id) = &id {
                if let Some(new_id) = r.get("_id")
                    && compare(new_id, id) != Ordering::Equal
                {
                    return Err(immutable_id(new_id));
                }
                out.insert("_id", id.clone());
            }
            for (k, v) in r {
                if k != "_id" || id.is_none() {
                    out.insert(k.clone(), v.clone());
                }
            }
            let changed = out != *doc;
            let mut updated = Document::new();
            if changed {
                updated = out.clone();
            }
            Ok(Applied {
                doc: out,
                updated,
                removed: Vec::new(),
            })
        }
        Update::Ops(ops) => {
            let mut out = doc.clone();
            let mut updated = Document::new();
            let mut removed = Vec::new();
            for (op, fields) in ops {
                let Bson::Document(fields) = fields else {
                    continue;
                };
                if op == "$setOnInsert" && !inserting {
                    continue;
                }
                for (path, arg) in fields {
                    if path == "_id" || path.starts_with("_id.") {
                        let same = path == "_id"
                            && (op == "$set" || op == "$setOnInsert")
                            && doc.get("_id").is_none_or(|b| b == arg);
                        if !same {
                            return Err(err(
                                66,
                                "ImmutableField",
                                format!(
                                    "Performing an update on the path '{path}' would modify the \
                                     immutable field '_id'"
                                ),
                            ));
                        }
                    }
                    let before = crate::serve::query::paths::value_at(&out, path).cloned();
                    match operate(op, path, before.as_ref(), arg, &out)? {
                        Some(value) => {
                            if before.as_ref() != Some(&value) {
                                set_path(&mut out, path, value.clone())?;
                                updated.insert(path.clone(), value);
                            }
                        }
                        None => {
                            if before.is_some() {
                                remove_path(&mut out, path);
                                removed.push(path.clone());
                            }
                        }
                    }
                }
            }
            Ok(Applied {
                doc: out,
                updated,
                removed,
            })
        }
    }
}

fn numeric(b: &Bson) -> bool {
    matches!(b, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_))
}

fn arith(a: &Bson, b: &Bson, mul: bool) -> Bson {
    let f = |x: &Bson| match x {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        _ => 0.0,
    };
    let int = |x: &Bson| match x {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        _ => None,
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => {
            let r = if mul {
                x.checked_mul(y)
            } else {
                x.checked_add(y)
            };
            let both32 = matches!((a, b), (Bson::Int32(_), Bson::Int32(_)));
            match r {
                Some(r) if both32 && i32::try_from(r).is_ok() => Bson::Int32(r as i32),
                Some(r) => Bson::Int64(r),
                None => Bson::Double(if mul { f(a) * f(b) } else { f(a) + f(b) }),
            }
        }
        _ => Bson::Double(if mul { f(a) * f(b) } else { f(a) + f(b) }),
    }
}

/// The new value at `path` (`None`: remove it) for one operator.
fn operate(
    op: &str,
    path: &str,
    before: Option<&Bson>,
    arg: &Bson,
    doc: &Document,
) -> Result<Option<Bson>, MongoError> {
    let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
    let non_numeric = |what: &str, v: &Bson| {
        err(
            14,
            "TypeMismatch",
            format!(
                "Cannot apply {what} to a value of non-numeric type. {{_id: {id}}} has the field \
                 '{path}' of non-numeric type {}",
                type_name(v)
            ),
        )
    };
    Ok(Some(match op {
        "$set" | "$setOnInsert" => arg.clone(),
        "$unset" => return Ok(None),
        "$inc" | "$mul" => {
            if !numeric(arg) {
                return Err(err(
                    14,
                    "TypeMismatch",
                    format!(
                        "Cannot {} with non-numeric argument: {{{path}: {arg}}}",
                        &op[1..]
                    ),
                ));
            }
            let mul = op == "$mul";
            match before {
                None if mul => arith(&Bson::Int32(0), arg, true),
                None => arg.clone(),
                Some(v) if numeric(v) => arith(v, arg, mul),
                Some(v) => return Err(non_numeric(op, v)),
            }
        }
        "$min" | "$max" => match before {
            Some(v) => {
                let o = compare(arg, v);
                let take = if op == "$min" { o.is_lt() } else { o.is_gt() };
                if take { arg.clone() } else { v.clone() }
            }
            None => arg.clone(),
        },
        "$push" | "$addToSet" => push(op, path, before, arg, &id)?,
        "$pop" => match before {
            None => return Ok(None),
            Some(Bson::Array(a)) => {
                let mut a = a.clone();
                let first = match arg {
                    Bson::Int32(n) => i64::from(*n),
                    Bson::Int64(n) => *n,
                    Bson::Double(d) if d.fract() == 0.0 => *d as i64,
                    _ => 0,
                };
                match first {
                    -1 if !a.is_empty() => {
                        a.remove(0);
                    }
                    -1 => {}
                    1 => {
                        a.pop();
                    }
                    _ => {
                        return Err(failed_to_parse(format!(
                            "$pop expects 1 or -1, found: {arg}"
                        )));
                    }
                }
                Bson::Array(a)
            }
            Some(v) => {
                return Err(err(
                    14,
                    "TypeMismatch",
                    format!(
                        "Path '{path}' contains an element of non-array type '{}'",
                        type_name(v)
                    ),
                ));
            }
        },
        other => return Err(failed_to_parse(format!("Unknown modifier: {other}"))),
    }))
}

/// `$push` / `$addToSet` of `arg` (or its `$each`) onto the array at `path`.
fn push(
    op: &str,
    path: &str,
    before: Option<&Bson>,
    arg: &Bson,
    id: &Bson,
) -> Result<Bson, MongoError> {
    let mut items = match before {
        None => Vec::new(),
        Some(Bson::Array(a)) => a.clone(),
        Some(v) => {
            return Err(err(
                2,
                "BadValue",
                format!(
                    "The field '{path}' must be an array but is of type {} in document {{_id: {id}}}",
                    type_name(v)
                ),
            ));
        }
    };
    let each = match arg {
        Bson::Document(d) if d.contains_key("$each") => match d.get("$each") {
            Some(Bson::Array(e)) => e.clone(),
            _ => return Err(err(2, "BadValue", "The argument to $each must be an array")),
        },
        v => vec![v.clone()],
    };
    if op == "$push" {
        items.extend(each);
        return Ok(Bson::Array(items));
    }
    // $addToSet: membership in MongoDB's order (1 and 1.0 are the same value), in n log n.
    let mut present: std::collections::BTreeSet<crate::model::KeyValue> =
        items.iter().map(crate::model::extjson::from_bson).collect();
    for v in each {
        if present.insert(crate::model::extjson::from_bson(&v)) {
            items.push(v);
        }
    }
    Ok(Bson::Array(items))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    use super::*;

    #[allow(clippy::needless_pass_by_value)] // called with `doc!` literals
    fn run(d: Document, u: Document) -> Result<Applied, MongoError> {
        apply(&d, &parse(Some(&Bson::Document(u)))?, false)
    }

    #[test]
    fn operators_and_their_description() {
        let a = run(
            doc! { "_id": 1, "n": 1, "gone": true, "tags": ["a"], "sub": { "x": 1 } },
            doc! {
                "$inc": { "n": 2 }, "$unset": { "gone": "", "absent": "" },
                "$push": { "tags": { "$each": ["b", "c"] } }, "$set": { "sub.y": 2, "same": 5 },
                "$setOnInsert": { "only": 1 },
            },
        )
        .unwrap();
        assert_eq!(
            a.doc,
            doc! { "_id": 1, "n": 3, "tags": ["a", "b", "c"], "sub": { "x": 1, "y": 2 }, "same": 5 }
        );
        assert_eq!(a.removed, vec!["gone".to_string()]);
        assert_eq!(
            a.updated,
            doc! { "n": 3, "tags": ["a", "b", "c"], "sub.y": 2, "same": 5 }
        );
        let same = run(doc! { "_id": 1, "n": 1 }, doc! { "$set": { "n": 1 } }).unwrap();
        assert!(!same.changed());
        let mixed = run(doc! { "_id": 1, "n": 1 }, doc! { "$set": { "n": 1.0 } }).unwrap();
        assert!(
            mixed.changed(),
            "1 and 1.0 differ in type, as a server sees it"
        );
    }

    #[test]
    fn server_errors() {
        let e = |d: Document, u: Document| run(d, u).err().map(|e| e.code);
        assert_eq!(
            e(doc! { "_id": 1, "s": "x" }, doc! { "$inc": { "s": 1 } }),
            Some(14)
        );
        assert_eq!(
            e(doc! { "_id": 1 }, doc! { "$set": { "_id": 2 } }),
            Some(66)
        );
        assert_eq!(e(doc! { "_id": 1 }, doc! { "$bogus": { "a": 1 } }), Some(9));
        assert_eq!(
            e(
                doc! { "_id": 1 },
                doc! { "$set": { "a": 1 }, "$inc": { "a.b": 1 } }
            ),
            Some(40)
        );
        assert_eq!(e(doc! { "_id": 1 }, doc! { "_id": 2, "a": 1 }), Some(66));
        let r = run(doc! { "_id": 1, "a": 1 }, doc! { "b": 2 }).unwrap();
        assert_eq!(r.doc, doc! { "_id": 1, "b": 2 });
    }
}
