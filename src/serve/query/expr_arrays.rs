//! The array and string operators of aggregation expressions (`db/pipeline/expression.cpp`):
//! `$size`, `$arrayElemAt`, `$in`, `$first`, `$last`, `$type`, `$toLower`, `$toUpper`,
//! `$concat`, with the server's codes; any other operator is unknown (168
//! InvalidPipelineOperator); and the helpers `expr` shares (the errors, the arity check). `expr`
//! evaluates the arguments and hands its evaluator in.
//!
//! May import the rest of `query` and `reply`.

use std::cmp::Ordering;

use bson::Bson;

use crate::cluster::MongoError;
use crate::serve::query::compare;
use crate::serve::reply::type_name;

pub fn located(code: i32, code_name: &'static str, message: String) -> MongoError {
    MongoError {
        code,
        code_name,
        message,
    }
}

/// `expression.cpp` (`ExpressionNary::validateArguments`): a fixed number of arguments.
pub fn arity<'a>(op: &str, arg: &'a Bson, n: usize) -> Result<Vec<&'a Bson>, MongoError> {
    let args: Vec<&Bson> = match arg {
        Bson::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    if args.len() != n {
        return Err(located(
            16020,
            "Location16020",
            format!(
                "Expression {op} takes exactly {n} arguments. {} were passed in.",
                args.len()
            ),
        ));
    }
    Ok(args)
}

pub fn nullish(v: Option<&Bson>) -> bool {
    matches!(v, None | Some(Bson::Null | Bson::Undefined))
}

/// The array and string operators (and `$type`); any other operator is unknown (168).
pub fn arrays_and_strings(
    op: &str,
    arg: &Bson,
    ev: &dyn Fn(&Bson) -> Result<Option<Bson>, MongoError>,
) -> Result<Option<Bson>, MongoError> {
    Ok(match op {
        "$size" => {
            let a = arity(op, arg, 1)?;
            match ev(a[0])? {
                Some(Bson::Array(items)) => Some(crate::serve::reply::number(items.len() as u64)),
                other => {
                    return Err(located(
                        17124,
                        "Location17124",
                        format!(
                            "The argument to $size must be an array. Type of argument was: {}",
                            other.as_ref().map_or("missing", type_name)
                        ),
                    ));
                }
            }
        }
        "$arrayElemAt" => {
            let a = arity(op, arg, 2)?;
            array_elem_at(ev(a[0])?, ev(a[1])?)?
        }
        "$in" => {
            let a = arity(op, arg, 2)?;
            let needle = ev(a[0])?;
            match ev(a[1])? {
                Some(Bson::Array(items)) => Some(Bson::Boolean(items.iter().any(|i| {
                    needle
                        .as_ref()
                        .is_some_and(|n| compare(n, i) == Ordering::Equal)
                }))),
                other => {
                    return Err(located(
                        40081,
                        "Location40081",
                        format!(
                            "$in requires an array as a second argument, found: {}",
                            other.as_ref().map_or("missing", type_name)
                        ),
                    ));
                }
            }
        }
        // `ExpressionFirst`/`ExpressionLast` (4.4+): an array's first or last element.
        "$first" | "$last" => {
            let a = arity(op, arg, 1)?;
            match ev(a[0])? {
                None | Some(Bson::Null | Bson::Undefined) => Some(Bson::Null),
                Some(Bson::Array(items)) => {
                    if op == "$first" {
                        items.into_iter().next()
                    } else {
                        items.into_iter().last()
                    }
                }
                Some(other) => {
                    return Err(located(
                        28689,
                        "Location28689",
                        format!(
                            "{op}'s argument must be an array, but is {}",
                            type_name(&other)
                        ),
                    ));
                }
            }
        }
        // `ExpressionType`: the BSON type's name, "missing" for a missing value.
        "$type" => {
            let a = arity(op, arg, 1)?;
            Some(Bson::String(
                ev(a[0])?.as_ref().map_or("missing", type_name).to_string(),
            ))
        }
        "$toLower" | "$toUpper" => {
            let a = arity(op, arg, 1)?;
            Some(to_case(op, ev(a[0])?)?)
        }
        _ => {
            return Err(located(
                168,
                "InvalidPipelineOperator",
                format!("Unrecognized expression '{op}'"),
            ));
        }
    })
}

/// `$toLower` / `$toUpper` (`ExpressionToLower`, `ExpressionToUpper`): null or missing is "",
/// numbers are written out.
fn to_case(op: &str, v: Option<Bson>) -> Result<Bson, MongoError> {
    let s = match v {
        None | Some(Bson::Null) => String::new(),
        Some(Bson::String(s)) => s,
        Some(Bson::Int32(n)) => n.to_string(),
        Some(Bson::Int64(n)) => n.to_string(),
        Some(Bson::Double(d)) => d.to_string(),
        Some(other) => {
            return Err(located(
                16007,
                "Location16007",
                format!(
                    "can't convert from BSON type {} to String",
                    type_name(&other)
                ),
            ));
        }
    };
    Ok(Bson::String(if op == "$toLower" {
        s.to_lowercase()
    } else {
        s.to_uppercase()
    }))
}

/// `$concat` (`ExpressionConcat`): strings only; null or missing gives null.
pub fn concat(args: Vec<Option<Bson>>) -> Result<Option<Bson>, MongoError> {
    let mut out = String::new();
    for a in args {
        match a {
            None | Some(Bson::Null | Bson::Undefined) => return Ok(Some(Bson::Null)),
            Some(Bson::String(s)) => out.push_str(&s),
            Some(other) => {
                return Err(located(
                    16702,
                    "Location16702",
                    format!("$concat only supports strings, not {}", type_name(&other)),
                ));
            }
        }
    }
    Ok(Some(Bson::String(out)))
}

/// `$arrayElemAt` (`ExpressionArrayElemAt`): a negative index counts from the end; out of range
/// is missing.
fn array_elem_at(array: Option<Bson>, index: Option<Bson>) -> Result<Option<Bson>, MongoError> {
    if nullish(array.as_ref()) || nullish(index.as_ref()) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Array(items)) = array else {
        return Err(located(
            28689,
            "Location28689",
            format!(
                "$arrayElemAt's first argument must be an array, but is {}",
                array.as_ref().map_or("missing", type_name)
            ),
        ));
    };
    let i = match index {
        Some(Bson::Int32(n)) => i64::from(n),
        Some(Bson::Int64(n)) => n,
        Some(Bson::Double(d)) if d.fract() == 0.0 => d as i64,
        other => {
            return Err(located(
                28690,
                "Location28690",
                format!(
                    "$arrayElemAt's second argument must be a numeric value, but is {}",
                    other.as_ref().map_or("missing", type_name)
                ),
            ));
        }
    };
    let at = if i < 0 { items.len() as i64 + i } else { i };
    Ok(usize::try_from(at)
        .ok()
        .and_then(|at| items.get(at).cloned()))
}
