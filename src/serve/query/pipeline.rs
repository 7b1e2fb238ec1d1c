//! The pipeline stages that work on documents alone (`$match`, `$sort`, `$skip`, `$limit`,
//! `$project`, `$group`, `$count`, `$sample`, `$unwind`…): [`apply`] runs one stage over a list
//! of documents, with MongoDB's checks and errors. Stages that read the cluster live with
//! `aggregate`.
//!
//! May import the rest of `query` and `reply`.

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::query::{self, Projection, compare, get_path};

pub fn unknown_stage(name: &str) -> MongoError {
    MongoError {
        code: 40324,
        code_name: "Location40324",
        message: format!("Unrecognized pipeline stage name: '{name}'"),
    }
}

pub fn bad(m: impl Into<String>) -> MongoError {
    MongoError::bad_value(m)
}
pub fn apply(stage: &Document, mut docs: Vec<Document>) -> Result<Vec<Document>, MongoError> {
    let Some((name, arg)) = stage.iter().next() else {
        return Ok(docs);
    };
    // Every stage starts within the command's time limit (`maxTimeMS`); the long ones check it
    // as they go, as a server's stages check for interrupts.
    crate::serve::query::deadline::check()?;
    match (name.as_str(), arg) {
        ("$match", Bson::Document(f)) => crate::serve::query::in_sets::prepared(f, || {
            let mut out = Vec::new();
            for (i, d) in docs.into_iter().enumerate() {
                crate::serve::query::deadline::check_every(i)?;
                if query::matches(&d, f)? {
                    out.push(d);
                }
            }
            Ok(out)
        }),
        ("$sort", Bson::Document(s)) => {
            query::sort(&mut docs, s)?;
            Ok(docs)
        }
        ("$skip", n) => {
            let n = count_of(n, "$skip")?;
            docs.drain(..n.min(docs.len()));
            Ok(docs)
        }
        ("$limit", n) => {
            docs.truncate(count_of(n, "$limit")?);
            Ok(docs)
        }
        ("$count", Bson::String(field)) => count_field(field).map(|()| {
            if docs.is_empty() {
                Vec::new()
            } else {
                vec![doc! { field: docs.len() as i32 }]
            }
        }),
        ("$project", Bson::Document(p)) => project(p, &docs),
        ("$group", Bson::Document(g)) => group(g, &docs),
        ("$sample", spec) => crate::serve::query::sample::sample(spec, docs),
        (other, _) if other.starts_with('$') => Err(unknown_stage(other)),
        (other, _) => Err(unknown_stage(other)),
    }
}

/// `$count`'s field name, checked as `DocumentSourceCount` checks it
/// (src/mongo/db/pipeline/document_source_count.cpp).
fn count_field(field: &str) -> Result<(), MongoError> {
    let refused = if field.is_empty() {
        Some((
            40157,
            "Location40157",
            "the count field must be a non-empty string",
        ))
    } else if field.starts_with('$') {
        Some((
            40158,
            "Location40158",
            "the count field cannot be a $-prefixed path",
        ))
    } else if field.contains('\0') {
        Some((
            40159,
            "Location40159",
            "the count field cannot contain a null byte",
        ))
    } else if field.contains('.') {
        Some((40160, "Location40160", "the count field cannot contain '.'"))
    } else {
        None
    };
    match refused {
        Some((code, code_name, m)) => Err(MongoError {
            code,
            code_name,
            message: m.to_string(),
        }),
        None => Ok(()),
    }
}

fn count_of(n: &Bson, stage: &str) -> Result<usize, MongoError> {
    match n {
        Bson::Int32(n) if *n >= 0 => Ok(*n as usize),
        Bson::Int64(n) if *n >= 0 => Ok(*n as usize),
        Bson::Double(d) if *d >= 0.0 && d.fract() == 0.0 => Ok(*d as usize),
        _ => Err(bad(format!("invalid argument to {stage} stage"))),
    }
}

/// Evaluates an expression: `"$path"`, `{$ifNull: [a, b]}`, `{$literal: v}`, a document of
/// expressions, or a constant.
fn eval(doc: &Document, expr: &Bson) -> Result<Bson, MongoError> {
    Ok(match expr {
        Bson::String(s) if s.starts_with('$') => {
            get_path(doc, &s[1..]).cloned().unwrap_or(Bson::Null)
        }
        Bson::Document(d) => match d.iter().next() {
            Some((op, arg)) if op == "$literal" => arg.clone(),
            // `db/pipeline/expression.cpp` (`ExpressionToHashedIndexKey`): the hashed index's
            // value of the argument, a long (a missing value hashes as null).
            Some((op, arg)) if op == "$toHashedIndexKey" => {
                let v = eval(doc, arg)?;
                Bson::Int64(crate::model::hash::hash64(
                    &crate::model::extjson::from_bson(&v),
                ))
            }
            Some((op, Bson::Array(args))) if op == "$ifNull" && args.len() >= 2 => {
                let mut value = Bson::Null;
                for a in args {
                    value = eval(doc, a)?;
                    if !matches!(value, Bson::Null) {
                        break;
                    }
                }
                value
            }
            Some((op, _)) if op.starts_with('$') => {
                return Err(MongoError {
                    code: 168,
                    code_name: "InvalidPipelineOperator",
                    message: format!("Unrecognized expression '{op}'"),
                });
            }
            _ => {
                let mut out = Document::new();
                for (k, v) in d {
                    out.insert(k, eval(doc, v)?);
                }
                Bson::Document(out)
            }
        },
        other => other.clone(),
    })
}

fn project(spec: &Document, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    let computed = spec
        .iter()
        .any(|(_, v)| matches!(v, Bson::String(_) | Bson::Document(_)));
    if !computed {
        let p = Projection::parse(spec)?;
        let mut out = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            crate::serve::query::deadline::check_every(i)?;
            out.push(p.apply(d));
        }
        return Ok(out);
    }
    let keep_id = !matches!(spec.get("_id"), Some(Bson::Int32(0) | Bson::Boolean(false)));
    docs.iter()
        .enumerate()
        .map(|(i, d)| {
            crate::serve::query::deadline::check_every(i)?;
            let mut out = Document::new();
            if keep_id
                && !spec.contains_key("_id")
                && let Some(id) = d.get("_id")
            {
                out.insert("_id", id.clone());
            }
            for (k, v) in spec {
                match v {
                    Bson::Int32(0) | Bson::Boolean(false) => {}
                    Bson::Int32(_) | Bson::Int64(_) | Bson::Boolean(true) | Bson::Double(_) => {
                        if let Some(x) = get_path(d, k) {
                            out.insert(k, x.clone());
                        }
                    }
                    expr => {
                        out.insert(k, eval(d, expr)?);
                    }
                }
            }
            Ok(out)
        })
        .collect()
}

fn add(a: &Bson, b: &Bson) -> Bson {
    match (a, b) {
        (Bson::Int32(x), Bson::Int32(y)) => x
            .checked_add(*y)
            .map_or(Bson::Int64(i64::from(*x) + i64::from(*y)), Bson::Int32),
        (Bson::Int32(x), Bson::Int64(y)) | (Bson::Int64(y), Bson::Int32(x)) => {
            Bson::Int64(i64::from(*x) + y)
        }
        (Bson::Int64(x), Bson::Int64(y)) => Bson::Int64(x + y),
        (x, y) => Bson::Double(as_f64(x) + as_f64(y)),
    }
}

fn as_f64(b: &Bson) -> f64 {
    match b {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        _ => 0.0,
    }
}

fn group(spec: &Document, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    let id_expr = spec
        .get("_id")
        .ok_or_else(|| bad("a group specification must include an _id"))?;
    // Each group found by its `_id` in BSON order (equal values of different numeric types are
    // one group, as in `DocumentSourceGroup`'s value comparator) in O(log n), kept in the order
    // first seen; the deadline checked as documents are grouped
    // (src/mongo/db/pipeline/document_source_group.cpp).
    let mut index: std::collections::BTreeMap<crate::model::KeyValue, usize> =
        std::collections::BTreeMap::new();
    let mut groups: Vec<Document> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        crate::serve::query::deadline::check_every(i)?;
        let id = eval(d, id_expr)?;
        let key = crate::model::extjson::from_bson(&id);
        let at = *index.entry(key).or_insert_with(|| {
            groups.push(doc! { "_id": id });
            groups.len() - 1
        });
        let out = &mut groups[at];
        for (field, acc) in spec.iter().filter(|(k, _)| *k != "_id") {
            let Bson::Document(acc) = acc else {
                return Err(bad(format!(
                    "The field '{field}' must be an accumulator object"
                )));
            };
            let Some((op, arg)) = acc.iter().next() else {
                return Err(bad(format!(
                    "The field '{field}' must specify one accumulator"
                )));
            };
            let value = eval(d, arg)?;
            // Taken, not copied (a `$push` array grows without being copied per document); the
            // field keeps its place when set again.
            let previous = out.get_mut(field).map(|v| std::mem::replace(v, Bson::Null));
            let next = match (op.as_str(), previous) {
                ("$sum", prev) => {
                    let v = if matches!(value, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)) {
                        value
                    } else {
                        Bson::Int32(0)
                    };
                    add(&prev.unwrap_or(Bson::Int32(0)), &v)
                }
                ("$min", Some(p)) if compare(&p, &value).is_le() => p,
                ("$max", Some(p)) if compare(&p, &value).is_ge() => p,
                ("$min" | "$max" | "$last", _) | ("$first", None) => value,
                ("$first", Some(p)) => p,
                ("$push", prev) => {
                    let mut items = match prev {
                        Some(Bson::Array(a)) => a,
                        _ => Vec::new(),
                    };
                    items.push(value);
                    Bson::Array(items)
                }
                (other, _) => {
                    return Err(MongoError {
                        code: 15952,
                        code_name: "Location15952",
                        message: format!("unknown group operator '{other}'"),
                    });
                }
            };
            out.insert(field, next);
        }
    }
    Ok(groups)
}
