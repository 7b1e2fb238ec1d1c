//! `$group` and its accumulators, as `db/pipeline/document_source_group.cpp` and the
//! `accumulator_*.cpp` files compute them: `$sum` (`accumulator_sum.cpp`: int32 until it
//! overflows, non-numbers ignored), `$avg` (`accumulator_avg.cpp`: a double, null when no
//! number was seen), `$min`/`$max` (`accumulator_min_max.cpp`: null and missing ignored),
//! `$push` (missing values not pushed), `$addToSet` (each distinct value once, in the order first
//! seen), `$first`/`$last` (missing kept as null). Groups come out in the order first seen.
//!
//! May import the rest of `query` and `reply`.

use std::collections::{BTreeMap, BTreeSet};

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;
use crate::serve::query::arith::Sum;
use crate::serve::query::compare;
use crate::serve::query::expr::eval;

fn located(code: i32, code_name: &'static str, message: String) -> MongoError {
    MongoError {
        code,
        code_name,
        message,
    }
}

/// One accumulator's running state.
enum Acc {
    Sum(Sum),
    Avg(Sum, u64),
    Min(Option<Bson>),
    Max(Option<Bson>),
    Push(Vec<Bson>),
    AddToSet(Vec<Bson>, BTreeSet<KeyValue>),
    First(Option<Bson>),
    Last(Bson),
}

impl Acc {
    fn new(op: &str) -> Option<Self> {
        Some(match op {
            "$sum" => Self::Sum(Sum::default()),
            "$avg" => Self::Avg(Sum::default(), 0),
            "$min" => Self::Min(None),
            "$max" => Self::Max(None),
            "$push" => Self::Push(Vec::new()),
            "$addToSet" => Self::AddToSet(Vec::new(), BTreeSet::new()),
            "$first" => Self::First(None),
            "$last" => Self::Last(Bson::Null),
            _ => return None,
        })
    }

    fn process(&mut self, value: Option<Bson>) {
        match self {
            Self::Sum(s) => {
                if let Some(v) = &value {
                    s.add(v);
                }
            }
            Self::Avg(s, n) => {
                if let Some(v) = &value
                    && s.add(v)
                {
                    *n += 1;
                }
            }
            Self::Min(_) | Self::Max(_) => {
                let Some(v) = value.filter(|v| !matches!(v, Bson::Null | Bson::Undefined)) else {
                    return;
                };
                let less = matches!(self, Self::Min(_));
                let (Self::Min(m) | Self::Max(m)) = self else {
                    return;
                };
                let replace = m.as_ref().is_none_or(|cur| {
                    let o = compare(&v, cur);
                    if less { o.is_lt() } else { o.is_gt() }
                });
                if replace {
                    *m = Some(v);
                }
            }
            Self::Push(items) => items.extend(value),
            Self::AddToSet(items, seen) => {
                if let Some(v) = value
                    && seen.insert(from_bson(&v))
                {
                    items.push(v);
                }
            }
            Self::First(f) => {
                if f.is_none() {
                    *f = Some(value.unwrap_or(Bson::Null));
                }
            }
            Self::Last(l) => *l = value.unwrap_or(Bson::Null),
        }
    }

    fn value(self) -> Bson {
        match self {
            Self::Sum(s) => s.value(),
            Self::Avg(s, n) => {
                if n == 0 {
                    return Bson::Null;
                }
                let total = match s.value() {
                    Bson::Int32(x) => f64::from(x),
                    Bson::Int64(x) => x as f64,
                    Bson::Double(x) => x,
                    _ => 0.0,
                };
                Bson::Double(total / n as f64)
            }
            Self::Min(m) | Self::Max(m) => m.unwrap_or(Bson::Null),
            Self::Push(items) | Self::AddToSet(items, _) => Bson::Array(items),
            Self::First(f) => f.unwrap_or(Bson::Null),
            Self::Last(l) => l,
        }
    }
}

/// The fields of a `$group` besides `_id`: name, accumulator and its argument, checked as
/// `DocumentSourceGroup::createFromBson` and `parseAccumulator` check them.
fn accumulators(spec: &Document) -> Result<Vec<(&str, &str, &Bson)>, MongoError> {
    let mut out = Vec::new();
    for (field, acc) in spec.iter().filter(|(k, _)| *k != "_id") {
        if field.starts_with('$') {
            return Err(located(
                40236,
                "Location40236",
                format!("The field name '{field}' cannot be an operator name"),
            ));
        }
        if field.contains('.') {
            return Err(located(
                40235,
                "Location40235",
                format!("The field name '{field}' cannot contain '.'"),
            ));
        }
        let Bson::Document(acc) = acc else {
            return Err(located(
                40234,
                "Location40234",
                format!("The field '{field}' must be an accumulator object"),
            ));
        };
        let (Some((op, arg)), 1) = (acc.iter().next(), acc.len()) else {
            return Err(located(
                40238,
                "Location40238",
                format!("The field '{field}' must specify one accumulator"),
            ));
        };
        if Acc::new(op).is_none() {
            return Err(located(
                15952,
                "Location15952",
                format!("unknown group operator '{op}'"),
            ));
        }
        out.push((field.as_str(), op.as_str(), arg));
    }
    Ok(out)
}

/// `$group`: one document per distinct `_id` (equal values of different numeric types are one
/// group, as in the stage's value comparator), found in O(log n), the deadline checked as
/// documents are grouped.
pub fn group(spec: &Document, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    let id_expr = spec.get("_id").ok_or_else(|| {
        located(
            15955,
            "Location15955",
            "a group specification must include an _id".into(),
        )
    })?;
    let fields = accumulators(spec)?;
    let mut index: BTreeMap<KeyValue, usize> = BTreeMap::new();
    let mut groups: Vec<(Bson, Vec<Acc>)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        crate::serve::query::deadline::check_every(i)?;
        let id = eval(d, id_expr)?.unwrap_or(Bson::Null);
        let key = from_bson(&id);
        let at = if let Some(at) = index.get(&key) {
            *at
        } else {
            let accs = fields
                .iter()
                .filter_map(|(_, op, _)| Acc::new(op))
                .collect();
            groups.push((id, accs));
            index.insert(key, groups.len() - 1);
            groups.len() - 1
        };
        for ((_, _, arg), acc) in fields.iter().zip(groups[at].1.iter_mut()) {
            acc.process(eval(d, arg)?);
        }
    }
    Ok(groups
        .into_iter()
        .map(|(id, accs)| {
            let mut out = doc! { "_id": id };
            for ((field, _, _), acc) in fields.iter().zip(accs) {
                out.insert(*field, acc.value());
            }
            out
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn accumulators_keep_the_servers_types() {
        let docs = vec![
            doc! { "k": 1, "v": 2, "s": "a" },
            doc! { "k": 1, "v": 3, "s": "b" },
            doc! { "k": 1, "s": "a" },
        ];
        let spec = doc! {
            "_id": "$k", "sum": { "$sum": "$v" }, "avg": { "$avg": "$v" }, "min": { "$min": "$v" },
            "max": { "$max": "$v" }, "push": { "$push": "$v" }, "set": { "$addToSet": "$s" },
            "first": { "$first": "$v" }, "last": { "$last": "$v" }, "n": { "$sum": 1 },
        };
        let out = group(&spec, &docs).unwrap();
        assert_eq!(
            out,
            vec![doc! {
                "_id": 1, "sum": 5, "avg": 2.5, "min": 2, "max": 3, "push": [2, 3],
                "set": ["a", "b"], "first": 2, "last": Bson::Null, "n": 3,
            }]
        );
        let bad = doc! { "_id": null, "x": { "$median": "$v" } };
        assert_eq!(group(&bad, &docs).unwrap_err().code, 15952);
        assert_eq!(
            group(&doc! { "x": { "$sum": 1 } }, &docs).unwrap_err().code,
            15955
        );
    }
}
