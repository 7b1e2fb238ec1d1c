//! The pipeline stages that reshape each document: `$project` with computed fields
//! (`db/exec/projection_executor`: included fields in the input's order, then the computed ones),
//! `$addFields`/`$set` (`document_source_add_fields.cpp`), `$unset`, `$replaceRoot`/
//! `$replaceWith` (`document_source_replace_root.cpp`) and `$unwind`
//! (`document_source_unwind.cpp`), with the server's checks and errors.
//!
//! May import the rest of `query` and `reply`.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::serve::query::expr::eval;
use crate::serve::query::paths::{remove_path, set_path};
use crate::serve::query::{Projection, get_path};
use crate::serve::reply::type_name;

fn located(code: i32, code_name: &'static str, message: String) -> MongoError {
    MongoError {
        code,
        code_name,
        message,
    }
}

/// A projection value that includes (`1`, `true`, a non-zero number) or excludes (`0`, `false`).
fn flag(v: &Bson) -> Option<bool> {
    match v {
        Bson::Boolean(b) => Some(*b),
        Bson::Int32(n) => Some(*n != 0),
        Bson::Int64(n) => Some(*n != 0),
        Bson::Double(d) => Some(*d != 0.0),
        _ => None,
    }
}

fn is_expression(v: &Bson) -> bool {
    match v {
        Bson::Document(d) => d.keys().next().is_none_or(|k| k.starts_with('$')),
        other => flag(other).is_none(),
    }
}

/// The specification with dotted names made nested (`{"a.b": 1}` is `{a: {b: 1}}`).
fn nested(spec: &Document) -> Document {
    let mut out = Document::new();
    for (k, v) in spec {
        let v = match v {
            Bson::Document(d) if !is_expression(v) => Bson::Document(nested(d)),
            other => other.clone(),
        };
        match k.split_once('.') {
            None => {
                out.insert(k, v);
            }
            Some((head, rest)) => {
                let mut inner = match out.remove(head) {
                    Some(Bson::Document(d)) if !is_expression(&Bson::Document(d.clone())) => d,
                    _ => Document::new(),
                };
                let mut one = Document::new();
                one.insert(rest, v);
                for (k2, v2) in nested(&one) {
                    inner.insert(k2, v2);
                }
                out.insert(head, inner);
            }
        }
    }
    out
}

/// `$project`: inclusion or exclusion alone go through the find projection; computed fields
/// (with inclusions) are built from the whole document.
pub fn project(spec: &Document, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    if spec.is_empty() {
        return Err(located(
            51272,
            "Location51272",
            "Invalid $project :: caused by :: projection specification must have at least one field".into(),
        ));
    }
    let computed = spec.iter().any(|(_, v)| contains_expression(v));
    if !computed {
        let p = Projection::parse(spec)?;
        return Ok(docs.iter().map(|d| p.apply(d)).collect());
    }
    if spec
        .iter()
        .any(|(k, v)| k != "_id" && flag(v) == Some(false))
    {
        return Err(located(
            31310,
            "Location31310",
            "Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection".into(),
        ));
    }
    let spec = nested(spec);
    let keep_id = spec.get("_id").is_none_or(|v| flag(v) != Some(false));
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
            project_level(d, d, &spec, &mut out)?;
            Ok(out)
        })
        .collect()
}

fn contains_expression(v: &Bson) -> bool {
    match v {
        Bson::Document(d) if !is_expression(v) => d.values().any(contains_expression),
        other => is_expression(other),
    }
}

/// One level of an inclusion projection with computed fields: the included fields in the
/// input's order, then the computed ones in the specification's order.
fn project_level(
    root: &Document,
    input: &Document,
    spec: &Document,
    out: &mut Document,
) -> Result<(), MongoError> {
    for (k, v) in input {
        match spec.get(k) {
            Some(s) if flag(s) == Some(true) => {
                out.insert(k, v.clone());
            }
            Some(Bson::Document(sub)) if !is_expression(&Bson::Document(sub.clone())) => match v {
                Bson::Document(inner) => {
                    let mut o = Document::new();
                    project_level(root, inner, sub, &mut o)?;
                    out.insert(k, o);
                }
                Bson::Array(items) => {
                    let mut kept = Vec::new();
                    for item in items {
                        if let Bson::Document(inner) = item {
                            let mut o = Document::new();
                            project_level(root, inner, sub, &mut o)?;
                            kept.push(Bson::Document(o));
                        }
                    }
                    out.insert(k, kept);
                }
                _ => {}
            },
            _ => {}
        }
    }
    for (k, v) in spec {
        if flag(v).is_some() {
            continue;
        }
        if let Bson::Document(sub) = v
            && !is_expression(v)
        {
            if !out.contains_key(k) && sub.values().any(contains_expression) {
                let mut o = Document::new();
                project_level(root, &Document::new(), sub, &mut o)?;
                out.insert(k, o);
            }
            continue;
        }
        if let Some(value) = eval(root, v)? {
            out.insert(k, value);
        }
    }
    Ok(())
}

/// `$addFields` / `$set`: each field set to its expression's value (a missing value removes
/// it); dotted names set nested fields.
pub fn add_fields(
    stage: &str,
    spec: &Bson,
    docs: Vec<Document>,
) -> Result<Vec<Document>, MongoError> {
    let Bson::Document(spec) = spec else {
        return Err(located(
            40272,
            "Location40272",
            format!(
                "{stage} specification stage must be an object, got {}",
                type_name(spec)
            ),
        ));
    };
    let mut out = Vec::with_capacity(docs.len());
    for (i, d) in docs.into_iter().enumerate() {
        crate::serve::query::deadline::check_every(i)?;
        let mut next = d.clone();
        for (k, v) in spec {
            match eval(&d, v)? {
                Some(value) => set_path(&mut next, k, value)?,
                None => remove_path(&mut next, k),
            }
        }
        out.push(next);
    }
    Ok(out)
}

/// `$unset`: a field name or a list of them, removed as an exclusion projection removes them.
pub fn unset(spec: &Bson, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    let names: Vec<&Bson> = match spec {
        Bson::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut exclusion = Document::new();
    for n in names {
        let Bson::String(s) = n else {
            return Err(located(
                31120,
                "Location31120",
                "$unset specification must be a string or an array containing only string values"
                    .into(),
            ));
        };
        exclusion.insert(s.clone(), 0);
    }
    let p = Projection::parse(&exclusion)?;
    Ok(docs.iter().map(|d| p.apply(d)).collect())
}

/// `$replaceRoot: {newRoot: expr}` and `$replaceWith: expr`: the value must be a document.
pub fn replace_root(
    stage: &str,
    spec: &Bson,
    docs: &[Document],
) -> Result<Vec<Document>, MongoError> {
    let expr = if stage == "$replaceRoot" {
        match spec {
            Bson::Document(d) => d.get("newRoot").ok_or_else(|| {
                located(
                    40231,
                    "Location40231",
                    "no newRoot specified for the $replaceRoot stage".into(),
                )
            })?,
            other => {
                return Err(located(
                    40228,
                    "Location40228",
                    format!(
                        "expected an object as specification for $replaceRoot stage, got {}",
                        type_name(other)
                    ),
                ));
            }
        }
    } else {
        spec
    };
    docs.iter()
        .map(|d| match eval(d, expr)? {
            Some(Bson::Document(root)) => Ok(root),
            other => Err(located(
                40228,
                "Location40228",
                format!(
                    "'newRoot' expression must evaluate to an object, but resulting value was: {}. Type of resulting value: '{}'. Input document: {d}",
                    other.as_ref().map_or_else(|| "MISSING".to_string(), ToString::to_string),
                    other.as_ref().map_or("missing", type_name)
                ),
            )),
        })
        .collect()
}

/// `$unwind`'s options.
struct Unwind {
    path: String,
    index: Option<String>,
    preserve: bool,
}

fn unwind_spec(spec: &Bson) -> Result<Unwind, MongoError> {
    let (path, index, preserve) = match spec {
        Bson::String(p) => (p.clone(), None, false),
        Bson::Document(d) => {
            let mut path = None;
            let mut index = None;
            let mut preserve = false;
            for (k, v) in d {
                match (k.as_str(), v) {
                    ("path", Bson::String(p)) => path = Some(p.clone()),
                    ("path", other) => {
                        return Err(located(
                            28808,
                            "Location28808",
                            format!(
                                "expected a string as the path for $unwind stage, got {}",
                                type_name(other)
                            ),
                        ));
                    }
                    ("includeArrayIndex", Bson::String(s)) if !s.is_empty() => {
                        if s.starts_with('$') {
                            return Err(located(
                                28822,
                                "Location28822",
                                format!(
                                    "includeArrayIndex option to $unwind stage should not be prefixed with a '$': {s}"
                                ),
                            ));
                        }
                        index = Some(s.clone());
                    }
                    ("includeArrayIndex", other) => {
                        return Err(located(
                            28810,
                            "Location28810",
                            format!(
                                "expected a non-empty string for the includeArrayIndex option to $unwind stage, got {}",
                                type_name(other)
                            ),
                        ));
                    }
                    ("preserveNullAndEmptyArrays", Bson::Boolean(b)) => preserve = *b,
                    ("preserveNullAndEmptyArrays", other) => {
                        return Err(located(
                            28809,
                            "Location28809",
                            format!(
                                "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got {}",
                                type_name(other)
                            ),
                        ));
                    }
                    (other, _) => {
                        return Err(located(
                            28811,
                            "Location28811",
                            format!("unrecognized option to $unwind stage: {other}"),
                        ));
                    }
                }
            }
            let Some(path) = path else {
                return Err(located(
                    28812,
                    "Location28812",
                    "no path specified to $unwind stage".into(),
                ));
            };
            (path, index, preserve)
        }
        other => {
            return Err(located(
                15981,
                "Location15981",
                format!(
                    "expected either a string or an object as specification for $unwind stage, got {}",
                    type_name(other)
                ),
            ));
        }
    };
    let Some(path) = path.strip_prefix('$') else {
        return Err(located(
            28818,
            "Location28818",
            format!("path option to $unwind stage should be prefixed with a '$': {path}"),
        ));
    };
    Ok(Unwind {
        path: path.to_string(),
        index,
        preserve,
    })
}

/// `$unwind`: one document per element of the array at the path (its index an int64 when asked
/// for); a value that is not an array is one element (index null); null, missing or an empty
/// array drop the document unless `preserveNullAndEmptyArrays` (then an empty array's field is
/// removed and the index is null).
pub fn unwind(spec: &Bson, docs: Vec<Document>) -> Result<Vec<Document>, MongoError> {
    let u = unwind_spec(spec)?;
    let mut out = Vec::with_capacity(docs.len());
    for (i, d) in docs.into_iter().enumerate() {
        crate::serve::query::deadline::check_every(i)?;
        match get_path(&d, &u.path).cloned() {
            Some(Bson::Array(items)) if !items.is_empty() => {
                for (at, item) in items.into_iter().enumerate() {
                    let mut next = d.clone();
                    set_path(&mut next, &u.path, item)?;
                    if let Some(ix) = &u.index {
                        set_path(&mut next, ix, Bson::Int64(at as i64))?;
                    }
                    out.push(next);
                }
            }
            Some(Bson::Array(_) | Bson::Null) | None if u.preserve => {
                let mut next = d;
                if matches!(get_path(&next, &u.path), Some(Bson::Array(_))) {
                    remove_path(&mut next, &u.path);
                }
                if let Some(ix) = &u.index {
                    set_path(&mut next, ix, Bson::Null)?;
                }
                out.push(next);
            }
            Some(Bson::Array(_) | Bson::Null) | None => {}
            Some(_) => {
                let mut next = d;
                if let Some(ix) = &u.index {
                    set_path(&mut next, ix, Bson::Null)?;
                }
                out.push(next);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    use super::*;

    #[test]
    fn unwind_follows_the_server() {
        let docs = vec![
            doc! { "_id": 1, "a": [1, 2] },
            doc! { "_id": 2, "a": [] },
            doc! { "_id": 3 },
            doc! { "_id": 4, "a": 5 },
        ];
        let plain = unwind(&Bson::String("$a".into()), docs.clone()).unwrap();
        assert_eq!(plain.len(), 3);
        let kept = unwind(
            &Bson::Document(
                doc! { "path": "$a", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true },
            ),
            docs,
        )
        .unwrap();
        assert_eq!(kept[1], doc! { "_id": 1, "a": 2, "i": 1_i64 });
        assert_eq!(kept[2], doc! { "_id": 2, "i": Bson::Null });
        assert_eq!(kept[4], doc! { "_id": 4, "a": 5, "i": Bson::Null });
        assert_eq!(
            unwind(&Bson::String("a".into()), vec![]).unwrap_err().code,
            28818
        );
        assert_eq!(unwind(&Bson::Int32(1), vec![]).unwrap_err().code, 15981);
    }

    #[test]
    fn project_mixes_inclusion_and_computed_fields() {
        let d = doc! { "_id": 1, "a": 2, "b": { "c": 3, "d": 4 }, "e": 5 };
        let out = project(
            &doc! { "b.c": 1, "twice": { "$multiply": ["$a", 2] }, "a": 1 },
            &[d],
        )
        .unwrap();
        assert_eq!(
            out[0],
            doc! { "_id": 1, "a": 2, "b": { "c": 3 }, "twice": 4 }
        );
    }
}
