//! The pipeline stages that work on documents alone (`$match`, `$sort`, `$skip`, `$limit`,
//! `$project`, `$group`, `$count`, `$sample`, `$unwind`, `$addFields`/`$set`, `$unset`,
//! `$replaceRoot`/`$replaceWith`, `$facet`): [`apply`] runs one stage over a list of documents,
//! with MongoDB's checks and errors (the reshaping stages in `stages`, `$group` in `group`).
//! Stages that read the cluster (`$lookup`) live with `aggregate`, which runs `$facet`'s
//! sub-pipelines through [`facet`] with its own stage runner.
//!
//! May import the rest of `query` and `reply`.

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::query::{self, stages};
use crate::serve::reply::type_name;

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
        ("$project", Bson::Document(p)) => stages::project(p, &docs),
        ("$group", Bson::Document(g)) => crate::serve::query::group::group(g, &docs),
        ("$sample", spec) => crate::serve::query::sample::sample(spec, docs),
        ("$unwind", spec) => stages::unwind(spec, docs),
        ("$addFields" | "$set", spec) => stages::add_fields(name, spec, docs),
        ("$unset", spec) => stages::unset(spec, &docs),
        ("$replaceRoot" | "$replaceWith", spec) => stages::replace_root(name, spec, &docs),
        ("$facet", spec) => facet(spec, &docs, &mut |s, d| apply(s, d)),
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

/// The stages a `$facet` sub-pipeline may not hold (`document_source_facet.cpp`: those that are
/// not allowed in a facet, such as `$out`, `$merge`, `$changeStream`, `$collStats`,
/// `$indexStats`, `$geoNear`, `$facet` itself).
const NOT_IN_FACET: &[&str] = &[
    "$facet",
    "$out",
    "$merge",
    "$changeStream",
    "$collStats",
    "$indexStats",
    "$geoNear",
    "$currentOp",
    "$listSessions",
    "$planCacheStats",
    "$documents",
];

/// Runs one stage of a sub-pipeline over documents.
pub type StageRunner<'a> =
    dyn FnMut(&Document, Vec<Document>) -> Result<Vec<Document>, MongoError> + 'a;

/// `$facet`: each named sub-pipeline over the same input documents, one output document of
/// arrays (`document_source_facet.cpp`); `run` runs one stage.
pub fn facet(
    spec: &Bson,
    docs: &[Document],
    run: &mut StageRunner<'_>,
) -> Result<Vec<Document>, MongoError> {
    let spec = match spec {
        Bson::Document(d) if !d.is_empty() => d,
        other => {
            return Err(MongoError {
                code: 15947,
                code_name: "Location15947",
                message: format!(
                    "the $facet specification must be a non-empty object, but found: {other}"
                ),
            });
        }
    };
    let mut pipelines = Vec::new();
    for (name, p) in spec {
        let Bson::Array(stages) = p else {
            return Err(MongoError {
                code: 40170,
                code_name: "Location40170",
                message: format!(
                    "arguments to $facet must be arrays, {name} is type {}",
                    type_name(p)
                ),
            });
        };
        if stages.is_empty() {
            return Err(MongoError {
                code: 40169,
                code_name: "Location40169",
                message: format!("sub-pipeline in $facet stage cannot be empty: {name}"),
            });
        }
        let mut parsed = Vec::new();
        for s in stages {
            let Bson::Document(s) = s else {
                return Err(bad(
                    "A pipeline stage specification object must contain exactly one field.",
                ));
            };
            if let Some(stage) = s.keys().next()
                && NOT_IN_FACET.contains(&stage.as_str())
            {
                return Err(MongoError {
                    code: 40600,
                    code_name: "Location40600",
                    message: format!("{stage} is not allowed to be used within a $facet stage"),
                });
            }
            parsed.push(s);
        }
        pipelines.push((name, parsed));
    }
    let mut out = Document::new();
    for (name, stages) in pipelines {
        let mut d = docs.to_vec();
        for s in stages {
            d = run(s, d)?;
        }
        out.insert(name, d.into_iter().map(Bson::Document).collect::<Vec<_>>());
    }
    Ok(vec![out])
}
