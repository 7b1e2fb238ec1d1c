//! Aggregation expressions over one document, as `db/pipeline/expression.cpp` evaluates them:
//! field paths (`"$a.b"`, through arrays of documents), variables (`$$ROOT`, `$$CURRENT`,
//! `$$REMOVE`, a `$lookup`'s `let`), `$literal`, `$ifNull`, `$cond`, `$concat`, `$add`,
//! `$subtract`, `$multiply`, `$divide`, `$size`, `$arrayElemAt`, `$first`, `$last`, `$in`, `$type`, `$toLower`, `$toUpper`,
//! the comparisons (`$eq` … `$cmp`), `$and`/`$or`/`$not`, `$toHashedIndexKey`. An unknown
//! operator is refused as the server refuses it (168 InvalidPipelineOperator).
//!
//! A value is `None` when it is missing (a `$project` leaves the field out), as the server's
//! `Value()` is. May import `query` and `reply`.

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::serve::query::compare;
use crate::serve::query::expr_arrays::{arity, located, nullish};

/// The variables an expression sees besides `$$ROOT`/`$$CURRENT` (a `$lookup`'s `let`).
pub type Vars = [(String, Bson)];

/// Evaluates `expr` against `doc` (no variables besides `$$ROOT`).
pub fn eval(doc: &Document, expr: &Bson) -> Result<Option<Bson>, MongoError> {
    eval_with(doc, expr, &[])
}

/// Evaluates `expr` against `doc` with the variables `vars`.
pub fn eval_with(doc: &Document, expr: &Bson, vars: &Vars) -> Result<Option<Bson>, MongoError> {
    match expr {
        Bson::String(s) if s.starts_with("$$") => variable(doc, &s[2..], vars),
        Bson::String(s) if s.starts_with('$') => Ok(field_path(doc, &s[1..])),
        Bson::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(eval_with(doc, i, vars)?.unwrap_or(Bson::Null));
            }
            Ok(Some(Bson::Array(out)))
        }
        Bson::Document(d) => match d.iter().next() {
            Some((op, arg)) if op.starts_with('$') => {
                if d.len() > 1 {
                    return Err(located(
                        15983,
                        "Location15983",
                        format!(
                            "an expression specification must contain exactly one field, the name of the expression. Found {} fields in {d}",
                            d.len()
                        ),
                    ));
                }
                operator(doc, op, arg, vars)
            }
            _ => {
                let mut out = Document::new();
                for (k, v) in d {
                    if let Some(v) = eval_with(doc, v, vars)? {
                        out.insert(k, v);
                    }
                }
                Ok(Some(Bson::Document(out)))
            }
        },
        other => Ok(Some(other.clone())),
    }
}

/// `$$name` or `$$name.path` (`variables.cpp`): `ROOT` and `CURRENT` are the document, `REMOVE`
/// is missing, others come from `let`; an undefined one is refused (17276).
fn variable(doc: &Document, path: &str, vars: &Vars) -> Result<Option<Bson>, MongoError> {
    let (name, rest) = path
        .split_once('.')
        .map_or((path, None), |(n, r)| (n, Some(r)));
    let base = match name {
        "ROOT" | "CURRENT" => Bson::Document(doc.clone()),
        "REMOVE" => return Ok(None),
        _ => match vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => v.clone(),
            None => {
                return Err(located(
                    17276,
                    "Location17276",
                    format!("Use of undefined variable: {name}"),
                ));
            }
        },
    };
    Ok(match (rest, base) {
        (None, v) => Some(v),
        (Some(r), Bson::Document(d)) => field_path(&d, r),
        (Some(r), Bson::Array(items)) => Some(array_path(&items, r)),
        _ => None,
    })
}

/// A field path (`FieldPath`/`Document::getNestedField`): through an array, the path is taken
/// in each element and the results kept as an array (missing ones left out).
pub fn field_path(doc: &Document, path: &str) -> Option<Bson> {
    let (head, rest) = path
        .split_once('.')
        .map_or((path, None), |(h, r)| (h, Some(r)));
    let v = doc.get(head)?;
    match (rest, v) {
        (None, v) => Some(v.clone()),
        (Some(r), Bson::Document(d)) => field_path(d, r),
        (Some(r), Bson::Array(items)) => Some(array_path(items, r)),
        _ => None,
    }
}

fn array_path(items: &[Bson], path: &str) -> Bson {
    Bson::Array(
        items
            .iter()
            .filter_map(|i| match i {
                Bson::Document(d) => field_path(d, path),
                Bson::Array(inner) => Some(array_path(inner, path)),
                _ => None,
            })
            .collect(),
    )
}

/// `Value::coerceToBool`: false, null, missing, undefined and zero are false.
pub fn truthy(v: Option<&Bson>) -> bool {
    match v {
        None | Some(Bson::Null | Bson::Undefined | Bson::Boolean(false)) => false,
        Some(Bson::Int32(n)) => *n != 0,
        Some(Bson::Int64(n)) => *n != 0,
        Some(Bson::Double(d)) => *d != 0.0,
        Some(_) => true,
    }
}

fn operator(doc: &Document, op: &str, arg: &Bson, vars: &Vars) -> Result<Option<Bson>, MongoError> {
    let ev = |e: &Bson| eval_with(doc, e, vars);
    let each = |arg: &Bson| -> Result<Vec<Option<Bson>>, MongoError> {
        match arg {
            Bson::Array(items) => items.iter().map(ev).collect(),
            other => Ok(vec![ev(other)?]),
        }
    };
    Ok(match op {
        "$literal" => Some(arg.clone()),
        // `db/pipeline/expression.cpp` (`ExpressionToHashedIndexKey`): the hashed index's
        // value of the argument, a long (a missing value hashes as null).
        "$toHashedIndexKey" => {
            let v = ev(arg)?.unwrap_or(Bson::Null);
            Some(Bson::Int64(crate::model::hash::hash64(
                &crate::model::extjson::from_bson(&v),
            )))
        }
        "$ifNull" => if_null(&each(arg)?)?,
        "$cond" => return cond(doc, arg, vars),
        "$concat" => crate::serve::query::expr_arrays::concat(each(arg)?)?,
        "$add" => crate::serve::query::arith::add_all(each(arg)?)?,
        "$multiply" => crate::serve::query::arith::multiply_all(each(arg)?)?,
        "$subtract" => {
            let a = arity(op, arg, 2)?;
            crate::serve::query::arith::subtract(ev(a[0])?, ev(a[1])?)?
        }
        "$divide" => {
            let a = arity(op, arg, 2)?;
            crate::serve::query::arith::divide(ev(a[0])?, ev(a[1])?)?
        }
        "$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte" | "$cmp" => {
            let a = arity(op, arg, 2)?;
            let o = compare_values(ev(a[0])?.as_ref(), ev(a[1])?.as_ref());
            Some(match op {
                "$eq" => Bson::Boolean(o.is_eq()),
                "$ne" => Bson::Boolean(o.is_ne()),
                "$gt" => Bson::Boolean(o.is_gt()),
                "$gte" => Bson::Boolean(o.is_ge()),
                "$lt" => Bson::Boolean(o.is_lt()),
                "$lte" => Bson::Boolean(o.is_le()),
                _ => Bson::Int32(o as i32),
            })
        }
        "$and" => {
            let mut all = true;
            for a in arg_list(arg) {
                if !truthy(ev(a)?.as_ref()) {
                    all = false;
                    break;
                }
            }
            Some(Bson::Boolean(all))
        }
        "$or" => {
            let mut any = false;
            for a in arg_list(arg) {
                if truthy(ev(a)?.as_ref()) {
                    any = true;
                    break;
                }
            }
            Some(Bson::Boolean(any))
        }
        "$not" => {
            let a = arity(op, arg, 1)?;
            Some(Bson::Boolean(!truthy(ev(a[0])?.as_ref())))
        }
        _ => return crate::serve::query::expr_arrays::arrays_and_strings(op, arg, &ev),
    })
}

fn arg_list(arg: &Bson) -> Vec<&Bson> {
    match arg {
        Bson::Array(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// Values in the expression language's order: a missing value sorts before null (so
/// `{$eq: ["$missing", null]}` is false, as in `Value::compare`).
fn compare_values(a: Option<&Bson>, b: Option<&Bson>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => compare(x, y),
    }
}

/// `$ifNull` (`ExpressionIfNull`): the first argument that is neither null nor missing, else the
/// last; at least two arguments.
fn if_null(args: &[Option<Bson>]) -> Result<Option<Bson>, MongoError> {
    if args.len() < 2 {
        return Err(located(
            1_257_300,
            "Location1257300",
            format!("$ifNull needs at least two arguments, had: {}", args.len()),
        ));
    }
    let last = args.len() - 1;
    for (i, a) in args.iter().enumerate() {
        if i == last || !nullish(a.as_ref()) {
            return Ok(a.clone());
        }
    }
    Ok(None)
}

/// `$cond` (`ExpressionCond::parse`): `[if, then, else]` or `{if, then, else}`.
fn cond(doc: &Document, arg: &Bson, vars: &Vars) -> Result<Option<Bson>, MongoError> {
    let (c, t, e) = match arg {
        Bson::Document(d) => {
            for k in d.keys() {
                if !matches!(k.as_str(), "if" | "then" | "else") {
                    return Err(located(
                        17083,
                        "Location17083",
                        format!("Unrecognized parameter to $cond: {k}"),
                    ));
                }
            }
            let get = |k: &str, code: i32, name: &'static str| {
                d.get(k)
                    .ok_or_else(|| located(code, name, format!("Missing '{k}' parameter to $cond")))
            };
            (
                get("if", 17080, "Location17080")?,
                get("then", 17081, "Location17081")?,
                get("else", 17082, "Location17082")?,
            )
        }
        other => {
            let a = arity("$cond", other, 3)?;
            (a[0], a[1], a[2])
        }
    };
    if truthy(eval_with(doc, c, vars)?.as_ref()) {
        eval_with(doc, t, vars)
    } else {
        eval_with(doc, e, vars)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    use super::*;

    #[test]
    fn paths_conditions_and_strings() {
        let d = doc! { "a": { "b": 2 }, "xs": [{ "v": 1 }, { "w": 2 }, { "v": 3 }], "s": "ab" };
        assert_eq!(
            eval(&d, &Bson::String("$a.b".into())).unwrap(),
            Some(Bson::Int32(2))
        );
        assert_eq!(
            eval(&d, &Bson::String("$xs.v".into())).unwrap(),
            Some(Bson::Array(vec![Bson::Int32(1), Bson::Int32(3)]))
        );
        assert_eq!(eval(&d, &Bson::String("$nope".into())).unwrap(), None);
        let c = Bson::Document(doc! { "$cond": [{ "$gt": ["$a.b", 1] }, "big", "small"] });
        assert_eq!(eval(&d, &c).unwrap(), Some(Bson::String("big".into())));
        let cat = Bson::Document(doc! { "$concat": ["$s", "-", "$nope"] });
        assert_eq!(eval(&d, &cat).unwrap(), Some(Bson::Null));
        let bad = Bson::Document(doc! { "$concat": ["$s", 1] });
        assert_eq!(eval(&d, &bad).unwrap_err().code, 16702);
        let size = Bson::Document(doc! { "$size": "$s" });
        assert_eq!(eval(&d, &size).unwrap_err().code, 17124);
        let eq = Bson::Document(doc! { "$eq": ["$nope", null] });
        assert_eq!(eval(&d, &eq).unwrap(), Some(Bson::Boolean(false)));
    }
}
