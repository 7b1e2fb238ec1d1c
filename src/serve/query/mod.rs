//! The query language over generated documents: filters (equality, `$eq`, `$ne`, `$in`, `$nin`,
//! `$gt`/`$gte`/`$lt`/`$lte`, `$exists`, `$not`, `$regex`, `$elemMatch`, `$size`, `$type`,
//! `$all`, `$mod` (`operators`), `$and`/`$or`/`$nor`, dotted paths, array fields matching
//! any element), sorts and projections (inclusion or exclusion, top-level or dotted fields).
//! Values compare in MongoDB's BSON order (the model's `KeyValue` order).
//!
//! The `query` layer: pure functions over documents — filters and their operators
//! (`operators`, `in_sets`), projections, the update language (`update`, `paths`), pipeline
//! stages (`pipeline`, `sample`), document limits and the `maxTimeMS` deadline. May import
//! `reply` only.

pub mod arith;
pub mod array_paths;
pub mod chunk_filter;
pub mod deadline;
pub mod expr;
pub mod expr_arrays;
pub mod group;
pub mod in_sets;
pub mod limits;
pub mod operators;
pub mod paths;
pub mod pipeline;
pub mod projection;
pub mod sample;
pub mod stages;
pub mod update;

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::extjson::from_bson;
use crate::serve::query::operators as ops;

pub use projection::Projection;

fn bad_value(m: impl Into<String>) -> MongoError {
    MongoError::bad_value(m)
}

/// The value at a dotted path (through embedded documents).
pub use crate::model::value_at as get_path;

/// MongoDB's order between two BSON values.
pub fn compare(a: &Bson, b: &Bson) -> Ordering {
    from_bson(a).cmp(&from_bson(b))
}

fn same_type_bracket(a: &Bson, b: &Bson) -> bool {
    from_bson(a).canonical_type() == from_bson(b).canonical_type()
}

/// Whether `doc` matches `filter`.
pub fn matches(doc: &Document, filter: &Document) -> Result<bool, MongoError> {
    for (key, cond) in filter {
        let ok = match key.as_str() {
            "$and" => logical(doc, cond, "$and")?.iter().all(|x| *x),
            "$or" => logical(doc, cond, "$or")?.iter().any(|x| *x),
            "$nor" => !logical(doc, cond, "$nor")?.iter().any(|x| *x),
            "$comment" => true,
            // `matcher/expression_expr.cpp`: an aggregation expression, true when truthy.
            "$expr" => expr::truthy(expr::eval(doc, cond)?.as_ref()),
            "$where" => return Err(bad_value("$where is not allowed in this context")),
            k if k.starts_with('$') => {
                return Err(bad_value(format!("unknown top level operator: {k}")));
            }
            path => path_matches(doc, path, cond)?,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A condition on a dotted path: the path reaches every value `array_paths` finds (through
/// arrays of documents, and array indexes), and the condition holds when it holds for one of them
/// (a negation — `$ne`, `$nin`, `$not`, `$exists: false` — when it holds for none of the
/// positive form); each operator of a condition is tried on its own, as the server parses
/// `{$gt: 1, $lt: 5}` into two conditions.
fn path_matches(doc: &Document, path: &str, cond: &Bson) -> Result<bool, MongoError> {
    if !path.contains('.') {
        return field_matches(doc.get(path), cond);
    }
    if let Some(ops) = is_operator_doc(cond)
        && ops.len() > 1
        && !ops.contains_key("$regex")
    {
        for (op, arg) in ops {
            if !path_matches(doc, path, &doc_of(op, arg))? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    let values = array_paths::values(doc, path);
    if let [single] = values.as_slice() {
        return field_matches(single.as_ref(), cond);
    }
    if let Some(ops) = is_operator_doc(cond)
        && ops.len() == 1
        && let Some((op, arg)) = ops.iter().next()
    {
        let positive = match op.as_str() {
            "$ne" => Some(doc_of("$eq", arg)),
            "$nin" => Some(doc_of("$in", arg)),
            "$not" => Some(arg.clone()),
            "$exists" if !truthy(arg) => Some(doc_of("$exists", &Bson::Boolean(true))),
            _ => None,
        };
        if let Some(p) = positive {
            return Ok(!any_matches(&values, &p)?);
        }
    }
    any_matches(&values, cond)
}

fn doc_of(op: &str, arg: &Bson) -> Bson {
    let mut d = Document::new();
    d.insert(op, arg.clone());
    Bson::Document(d)
}

fn any_matches(values: &[Option<Bson>], cond: &Bson) -> Result<bool, MongoError> {
    for v in values {
        if field_matches(v.as_ref(), cond)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn logical(doc: &Document, cond: &Bson, op: &str) -> Result<Vec<bool>, MongoError> {
    let Bson::Array(items) = cond else {
        return Err(bad_value(format!("{op} must be an array")));
    };
    if items.is_empty() {
        return Err(bad_value(format!(
            "$and/$or/$nor must be a nonempty array ({op})"
        )));
    }
    items
        .iter()
        .map(|i| match i {
            Bson::Document(d) => matches(doc, d),
            _ => Err(bad_value(format!(
                "{op} argument's entries must be objects"
            ))),
        })
        .collect()
}

fn is_operator_doc(cond: &Bson) -> Option<&Document> {
    match cond {
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => Some(d),
        _ => None,
    }
}

fn field_matches(value: Option<&Bson>, cond: &Bson) -> Result<bool, MongoError> {
    if let Bson::RegularExpression(r) = cond {
        return ops::regex_matches(value, &r.pattern, &r.options);
    }
    let Some(ops) = is_operator_doc(cond) else {
        return Ok(equals(value, cond));
    };
    if ops.contains_key("$options") && !ops.contains_key("$regex") {
        return Err(bad_value("$options needs a $regex"));
    }
    for (op, arg) in ops {
        let ok = match op.as_str() {
            "$regex" => ops::regex_operator(value, ops)?,
            "$options" => true,
            "$elemMatch" => elem_match(value, arg)?,
            "$size" => ops::size(value, arg)?,
            "$type" => ops::type_matches(value, arg)?,
            "$mod" => ops::modulo(value, arg)?,
            "$all" => all(value, arg)?,
            "$eq" => equals(value, arg),
            "$ne" => !equals(value, arg),
            "$in" => in_list(value, arg)?,
            "$nin" => !in_list(value, arg)?,
            "$gt" => ordered(value, arg, Ordering::is_gt),
            "$gte" => ordered(value, arg, Ordering::is_ge),
            "$lt" => ordered(value, arg, Ordering::is_lt),
            "$lte" => ordered(value, arg, Ordering::is_le),
            "$exists" => value.is_some() == truthy(arg),
            "$not" => !field_matches(value, arg)?,
            "$near" | "$nearSphere" | "$geoNear" => {
                return Err(bad_value(
                    "$geoNear, $near, and $nearSphere are not allowed in this context",
                ));
            }
            other => return Err(bad_value(format!("unknown operator: {other}"))),
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

fn truthy(b: &Bson) -> bool {
    match b {
        Bson::Boolean(x) => *x,
        Bson::Int32(n) => *n != 0,
        Bson::Int64(n) => *n != 0,
        Bson::Double(d) => *d != 0.0,
        Bson::Null => false,
        _ => true,
    }
}

/// The candidates a condition is checked against: the value, and an array's elements.
fn candidates(value: Option<&Bson>) -> Vec<Bson> {
    match value {
        None => vec![Bson::Null],
        Some(Bson::Array(items)) => {
            let mut all = vec![Bson::Array(items.clone())];
            all.extend(items.iter().cloned());
            all
        }
        Some(v) => vec![v.clone()],
    }
}

fn equals(value: Option<&Bson>, target: &Bson) -> bool {
    let target = from_bson(target);
    candidates(value).iter().any(|c| {
        let c = from_bson(c);
        c == target && c.canonical_type() == target.canonical_type()
    })
}

fn in_list(value: Option<&Bson>, list: &Bson) -> Result<bool, MongoError> {
    let Bson::Array(items) = list else {
        return Err(bad_value("$in needs an array"));
    };
    if let Some(set) = in_sets::set_of(items) {
        // Equal in MongoDB's order means the same canonical type too.
        return Ok(candidates(value)
            .iter()
            .any(|c| set.contains(&from_bson(c))));
    }
    for t in items {
        let hit = match t {
            Bson::RegularExpression(r) => ops::regex_matches(value, &r.pattern, &r.options)?,
            _ => equals(value, t),
        };
        if hit {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `$elemMatch`: some element of the array matches every condition (operators on the element
/// itself, or a filter on an embedded document).
fn elem_match(value: Option<&Bson>, arg: &Bson) -> Result<bool, MongoError> {
    let Bson::Document(cond) = arg else {
        return Err(bad_value("$elemMatch needs an Object"));
    };
    let Some(Bson::Array(items)) = value else {
        return Ok(false);
    };
    let on_element = is_operator_doc(arg).is_some() && cond.keys().all(|k| k.starts_with('$'));
    for item in items {
        let hit = if on_element {
            field_matches(Some(item), arg)?
        } else {
            matches!(item, Bson::Document(d) if matches(d, cond)?)
        };
        if hit {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `$all`: every listed value (or `$elemMatch`) is matched.
fn all(value: Option<&Bson>, arg: &Bson) -> Result<bool, MongoError> {
    let Bson::Array(items) = arg else {
        return Err(bad_value("$all needs an array"));
    };
    if items.is_empty() {
        return Ok(false);
    }
    for item in items {
        if !field_matches(value, item)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn ordered(value: Option<&Bson>, target: &Bson, test: fn(Ordering) -> bool) -> bool {
    let Some(value) = value else {
        // A missing field compares as null only against null ($gte/$lte null).
        return matches!(target, Bson::Null) && test(Ordering::Equal);
    };
    candidates(Some(value))
        .iter()
        .any(|c| same_type_bracket(c, target) && test(compare(c, target)))
}

/// Sorts by a `{field: 1|-1, …}` specification (missing fields sort as null).
pub fn sort(docs: &mut [Document], spec: &Document) -> Result<(), MongoError> {
    let keys = spec
        .iter()
        .map(|(k, v)| match v {
            Bson::Int32(1) | Bson::Int64(1) => Ok((k.clone(), false)),
            Bson::Double(d) if d.to_bits() == 1f64.to_bits() => Ok((k.clone(), false)),
            Bson::Int32(-1) | Bson::Int64(-1) => Ok((k.clone(), true)),
            Bson::Double(d) if d.to_bits() == (-1f64).to_bits() => Ok((k.clone(), true)),
            _ => Err(bad_value(format!(
                "$sort key ordering must be 1 (for ascending) or -1 (for descending): {k}"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    docs.sort_by(|a, b| {
        for (k, desc) in &keys {
            let null = Bson::Null;
            let o = compare(
                get_path(a, k).unwrap_or(&null),
                get_path(b, k).unwrap_or(&null),
            );
            let o = if *desc { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    Ok(())
}
