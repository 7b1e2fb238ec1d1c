//! `$lookup` (`db/pipeline/document_source_lookup.cpp`): the equality form (`localField`,
//! `foreignField`), the pipeline form (`let`, `pipeline`, its `$$variables`) and, from 5.0, both
//! at once; over a sharded `from` collection from 5.1 (before, mongos refuses it:
//! `s/query/cluster_aggregate.cpp`, 28769 "… cannot be sharded"). Also the stage runner the
//! aggregate command uses, which gives `$lookup` its reads and runs `$facet`'s sub-pipelines
//! with it.
//!
//! May import `catalog` (reads), `state`, `query` and `reply`.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::cluster::{MongoError, Placement, ServerVersion};
use crate::model::KeyValue;
use crate::model::extjson::from_bson;
use crate::serve::catalog::reads;
use crate::serve::query::expr::{Vars, eval_with, field_path};
use crate::serve::query::pipeline::{apply, facet};
use crate::serve::reply::type_name;
use crate::serve::state::State;

fn failed_to_parse(m: impl Into<String>) -> MongoError {
    MongoError {
        code: 9,
        code_name: "FailedToParse",
        message: m.into(),
    }
}

/// Runs one stage of a pipeline on `db` (a `$lookup`, a `$facet`, or a stage on documents
/// alone), `vars` bound for a `$lookup`'s sub-pipeline.
pub fn run(
    state: &State,
    db: &str,
    stage: &Document,
    docs: Vec<Document>,
) -> Result<Vec<Document>, MongoError> {
    match stage.iter().next() {
        Some((name, spec)) if name == "$lookup" => lookup(state, db, spec, docs),
        Some((name, spec)) if name == "$facet" => {
            facet(spec, &docs, &mut |s, d| run(state, db, s, d))
        }
        _ => apply(stage, docs),
    }
}

/// A parsed `$lookup`.
struct Spec<'a> {
    from: String,
    as_field: String,
    equality: Option<(String, String)>,
    vars: Vec<(&'a str, &'a Bson)>,
    pipeline: Option<&'a Vec<Bson>>,
}

fn string_arg(name: &str, v: &Bson) -> Result<String, MongoError> {
    match v {
        Bson::String(s) => Ok(s.clone()),
        other => Err(failed_to_parse(format!(
            "$lookup argument '{name}: {other}' must be a string, is type {}",
            type_name(other)
        ))),
    }
}

fn parse(v: ServerVersion, spec: &Bson) -> Result<Spec<'_>, MongoError> {
    let Bson::Document(d) = spec else {
        return Err(MongoError {
            code: 40319,
            code_name: "Location40319",
            message: format!(
                "the $lookup stage specification must be an object, but found {}",
                type_name(spec)
            ),
        });
    };
    let (mut from, mut as_field, mut local, mut foreign) = (None, None, None, None);
    let (mut vars, mut pipeline) = (Vec::new(), None);
    for (k, val) in d {
        match k.as_str() {
            "from" => from = Some(string_arg(k, val)?),
            "as" => as_field = Some(string_arg(k, val)?),
            "localField" => local = Some(string_arg(k, val)?),
            "foreignField" => foreign = Some(string_arg(k, val)?),
            "let" => match val {
                Bson::Document(l) => vars = l.iter().map(|(n, e)| (n.as_str(), e)).collect(),
                other => {
                    return Err(failed_to_parse(format!(
                        "$lookup argument 'let: {other}' must be an object, is type {}",
                        type_name(other)
                    )));
                }
            },
            "pipeline" => match val {
                Bson::Array(p) => pipeline = Some(p),
                _ => {
                    return Err(failed_to_parse(
                        "'pipeline' option must be specified as an array",
                    ));
                }
            },
            other => {
                return Err(failed_to_parse(format!(
                    "unknown argument to $lookup: {other}"
                )));
            }
        }
    }
    let Some(from) = from else {
        return Err(failed_to_parse("must specify 'from' field for a $lookup"));
    };
    let Some(as_field) = as_field else {
        return Err(failed_to_parse("must specify 'as' field for a $lookup"));
    };
    let equality = match (local, foreign) {
        (Some(l), Some(f)) => Some((l, f)),
        (None, None) => None,
        _ if v >= ServerVersion::V5_0 || pipeline.is_some() => {
            return Err(failed_to_parse(
                "$lookup requires both or neither of 'localField' and 'foreignField' to be specified",
            ));
        }
        _ => None,
    };
    if v < ServerVersion::V5_0 {
        if pipeline.is_some() && equality.is_some() {
            return Err(failed_to_parse(
                "$lookup with 'pipeline' may not specify 'localField' or 'foreignField'",
            ));
        }
        if pipeline.is_none() && equality.is_none() {
            return Err(failed_to_parse(
                "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
            ));
        }
    } else if pipeline.is_none() && equality.is_none() {
        return Err(failed_to_parse(
            "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
        ));
    }
    if !vars.is_empty() && pipeline.is_none() {
        return Err(failed_to_parse(
            "$lookup with a 'let' argument must also specify 'pipeline'",
        ));
    }
    Ok(Spec {
        from,
        as_field,
        equality,
        vars,
        pipeline,
    })
}

/// The values a path reaches, an array's elements one by one (a missing value is null), as the
/// equality form matches them.
fn values_at(d: &Document, path: &str) -> Vec<Bson> {
    match field_path(d, path) {
        None => vec![Bson::Null],
        Some(Bson::Array(items)) => items,
        Some(v) => vec![v],
    }
}

fn lookup(
    state: &State,
    db: &str,
    spec: &Bson,
    docs: Vec<Document>,
) -> Result<Vec<Document>, MongoError> {
    let v = state.sim.cluster.version;
    let spec = parse(v, spec)?;
    let ns = format!("{db}.{}", spec.from);
    if v < ServerVersion::new(5, 1)
        && state
            .sim
            .cluster
            .collection(&ns)
            .is_some_and(|c| c.placement == Placement::Sharded)
    {
        return Err(MongoError {
            code: 28769,
            code_name: "Location28769",
            message: format!("{ns} cannot be sharded"),
        });
    }
    let foreign = reads::documents(state, db, &spec.from);
    // The foreign documents by each value of `foreignField` (an array's elements, missing as
    // null), built once for the stage.
    let index: Option<BTreeMap<KeyValue, Vec<usize>>> =
        spec.equality.as_ref().map(|(_, foreign_field)| {
            let mut index: BTreeMap<KeyValue, Vec<usize>> = BTreeMap::new();
            for (i, f) in foreign.iter().enumerate() {
                let mut keys = values_at(f, foreign_field);
                if let Some(whole @ Bson::Array(_)) = field_path(f, foreign_field) {
                    keys.push(whole);
                }
                for k in keys {
                    let slot = index.entry(from_bson(&k)).or_default();
                    if slot.last() != Some(&i) {
                        slot.push(i);
                    }
                }
            }
            index
        });
    let mut out = Vec::with_capacity(docs.len());
    for (n, mut d) in docs.into_iter().enumerate() {
        crate::serve::query::deadline::check_every(n)?;
        let mut matched: Vec<Document> = match (&spec.equality, &index) {
            (Some((local, _)), Some(index)) => {
                let mut at: Vec<usize> = values_at(&d, local)
                    .iter()
                    .filter_map(|k| index.get(&from_bson(k)))
                    .flatten()
                    .copied()
                    .collect();
                at.sort_unstable();
                at.dedup();
                at.into_iter().map(|i| foreign[i].clone()).collect()
            }
            _ => foreign.clone(),
        };
        if let Some(pipeline) = spec.pipeline {
            let mut bound: Vec<(String, Bson)> = Vec::new();
            for (name, e) in &spec.vars {
                let value = eval_with(&d, e, &[])?.unwrap_or(Bson::Null);
                bound.push(((*name).to_string(), value));
            }
            for s in pipeline {
                let Bson::Document(s) = bind(s, &bound, false)? else {
                    return Err(crate::serve::query::pipeline::bad(
                        "A pipeline stage specification object must contain exactly one field.",
                    ));
                };
                matched = run(state, db, &s, matched)?;
            }
        }
        let _ = crate::serve::query::paths::set_path(
            &mut d,
            &spec.as_field,
            Bson::Array(matched.into_iter().map(Bson::Document).collect()),
        );
        out.push(d);
    }
    Ok(out)
}

/// The sub-pipeline with its `$$variables` replaced by their values (as `$literal`s): in
/// expressions, and in a `$match` only inside `$expr` (elsewhere a `$match` reads `"$$x"` as a
/// string, as the server does).
fn bind(v: &Bson, vars: &Vars, in_match: bool) -> Result<Bson, MongoError> {
    Ok(match v {
        Bson::String(s) if !in_match && s.starts_with("$$") => {
            let name = s[2..].split('.').next().unwrap_or("");
            if vars.iter().any(|(n, _)| n == name) {
                match eval_with(&Document::new(), v, vars)? {
                    Some(value) => {
                        let mut lit = Document::new();
                        lit.insert("$literal", value);
                        Bson::Document(lit)
                    }
                    None => Bson::String("$$REMOVE".into()),
                }
            } else {
                v.clone()
            }
        }
        Bson::Array(items) => Bson::Array(
            items
                .iter()
                .map(|i| bind(i, vars, in_match))
                .collect::<Result<_, _>>()?,
        ),
        Bson::Document(d) => {
            let mut out = Document::new();
            for (k, x) in d {
                let inner_match = match k.as_str() {
                    "$match" => true,
                    "$expr" => false,
                    _ => in_match,
                };
                out.insert(k, bind(x, vars, inner_match)?);
            }
            Bson::Document(out)
        }
        other => other.clone(),
    })
}
