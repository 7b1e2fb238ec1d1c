//! `serve`'s index catalog: `createIndexes` of the common kinds (single and compound
//! ascending/descending, unique, hashed, text, 2d/2dsphere, wildcard, TTL, sparse and partial)
//! on sharded and unsharded collections, and the `listIndexes` listing. The simulator keeps the
//! indexes its sharding rules look at (ascending or hashed keys, without a partial filter or
//! sparse option); every spec is kept here too, as the client gave it, so the listing shows its
//! name and options. Unique indexes are enforced on kept documents (`unique`). A spec that
//! conflicts with an existing index is refused (`catalog::index_conflicts`); inside a transaction
//! only a collection the command creates may get new indexes.
// 8.0 `db/index/index_descriptor.cpp` (spec fields), `db/index_key_validate.cpp` (key values),
// `db/s/shard_key_index_util.cpp` and `s/shard_key_pattern.cpp` (unique needs the shard key as
// a prefix).

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::KeyPattern;
use crate::serve::catalog::index_conflicts::{self, Existing};
use crate::serve::catalog::indexes::{forget_spec, modelled_key};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

const PLUGINS: &[&str] = &[
    "hashed",
    "text",
    "2d",
    "2dsphere",
    "geoHaystack",
    "columnstore",
];

fn cannot_create(m: impl Into<String>) -> MongoError {
    MongoError::cannot_create_index(m)
}

/// `createIndexes: coll, indexes: [{key, name?, unique?, …}]`.
pub fn create_indexes(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "createIndexes")?;
    let ns = format!("{db}.{coll}");
    let Some(Bson::Array(specs)) = cmd.get("indexes") else {
        return Err(reply::failed_to_parse(
            "createIndexes needs an indexes array",
        ));
    };
    let before = crate::serve::catalog::indexes::index_count(state, &ns);
    let created = !exists(state, &ns);
    let mut all_exist = true;
    for spec in specs {
        let Bson::Document(spec) = spec else {
            return Err(reply::type_mismatch(
                "each index specification must be an object",
            ));
        };
        let spec = normalized(spec)?;
        if index_conflicts::check(state, &ns, &spec)? == Existing::Identical {
            continue;
        }
        all_exist = false;
        if !created && state.sessions.current_txn_id().is_some() {
            return Err(new_index_in_transaction(&ns));
        }
        create_one(state, &ns, &spec)?;
    }
    let after = crate::serve::catalog::indexes::index_count(state, &ns);
    let mut reply = doc! {
        "numIndexesBefore": before as i32, "numIndexesAfter": after as i32,
        "createdCollectionAutomatically": created,
    };
    if all_exist {
        // `create_indexes_cmd.cpp`: every requested index exists already.
        reply.insert("note", "all indexes already exist");
    }
    Ok(ok(reply))
}

/// `db/commands/create_indexes_cmd.cpp`: a transaction may create indexes only on a collection
/// it creates; an index that exists already is fine.
fn new_index_in_transaction(ns: &str) -> MongoError {
    MongoError {
        code: 263,
        code_name: "OperationNotSupportedInTransaction",
        message: format!(
            "Cannot create new indexes on existing collection {ns} in a multi-document transaction."
        ),
    }
}

fn exists(state: &State, ns: &str) -> bool {
    state.sim.cluster.collection_index(ns).is_some() || state.unsharded.contains_key(ns)
}

/// The spec as `listIndexes` shows it: `{v: 2, key, name, …options}`.
fn normalized(spec: &Document) -> Result<Document, MongoError> {
    let key = reply::doc_arg(spec, "key")?;
    validate_key(key)?;
    let name = match spec.get("name") {
        Some(Bson::String(n)) if n.contains('\0') => {
            return Err(MongoError {
                code: 67,
                code_name: "CannotCreateIndex",
                message: "The index name cannot contain a null byte".into(),
            });
        }
        Some(Bson::String(n)) => n.clone(),
        _ => crate::serve::catalog::indexes::index_name(key),
    };
    let mut d = doc! { "v": 2, "key": listed_key(key), "name": name };
    for (k, v) in spec {
        let skipped = matches!(k.as_str(), "key" | "name" | "v")
            || (k == "unique" && v == &Bson::Boolean(false));
        if !skipped {
            d.insert(k.clone(), v.clone());
        }
    }
    plugin_defaults(key, &mut d);
    Ok(d)
}

/// A text index is listed by its internal key (`_fts`, `_ftsx`), its fields as `weights`
/// (`db/fts/fts_spec.cpp`, `fixSpec`).
fn listed_key(key: &Document) -> Document {
    if !key.values().any(|v| v.as_str() == Some("text")) {
        return key.clone();
    }
    let mut out = Document::new();
    let mut text_done = false;
    for (k, v) in key {
        if v.as_str() == Some("text") {
            if !text_done {
                out.insert("_fts", "text");
                out.insert("_ftsx", 1);
                text_done = true;
            }
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// The options a server fills in for text and 2dsphere indexes when the spec leaves them out.
fn plugin_defaults(key: &Document, d: &mut Document) {
    let text: Vec<&String> = key
        .iter()
        .filter(|(_, v)| v.as_str() == Some("text"))
        .map(|(k, _)| k)
        .collect();
    if !text.is_empty() {
        if !d.contains_key("weights") {
            let weights: Document = text
                .iter()
                .map(|k| ((*k).clone(), Bson::Int32(1)))
                .collect();
            d.insert("weights", weights);
        }
        for (k, v) in [
            ("default_language", Bson::String("english".into())),
            ("language_override", Bson::String("language".into())),
            ("textIndexVersion", Bson::Int32(3)),
        ] {
            if !d.contains_key(k) {
                d.insert(k, v);
            }
        }
    }
    if key.values().any(|v| v.as_str() == Some("2dsphere"))
        && !d.contains_key("2dsphereIndexVersion")
    {
        d.insert("2dsphereIndexVersion", 3);
    }
}

fn validate_key(key: &Document) -> Result<(), MongoError> {
    if key.is_empty() {
        return Err(cannot_create("Index keys cannot be an empty field."));
    }
    for (field, v) in key {
        match v {
            Bson::String(s) if PLUGINS.contains(&s.as_str()) => {}
            Bson::String(s) => return Err(cannot_create(format!("Unknown index plugin '{s}'"))),
            Bson::Int32(0) | Bson::Int64(0) => {
                return Err(cannot_create(format!(
                    "Values in the index key pattern can't be 0: {field}"
                )));
            }
            Bson::Double(x) if *x == 0.0 || !x.is_finite() => {
                return Err(cannot_create(format!(
                    "Values in the index key pattern can't be 0: {field}"
                )));
            }
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {}
            _ => {
                return Err(cannot_create(format!(
                    "Values in v:2 index key pattern cannot be of type {}. Only numbers > 0, \
                     numbers < 0, and strings are allowed.",
                    crate::serve::reply::type_name(v)
                )));
            }
        }
    }
    Ok(())
}

fn create_one(state: &mut State, ns: &str, spec: &Document) -> Result<(), MongoError> {
    let name = spec.get_str("name").unwrap_or_default().to_string();
    let unique = reply::flag(spec, "unique");
    if let Some(c) = state.sim.cluster.collection(ns) {
        let key = spec.get_document("key").cloned().unwrap_or_default();
        if unique {
            check_unique_prefix(&c.pattern, &key)?;
        }
        if let Some(k) = modelled_key(spec) {
            state.sim.create_index(ns, k, unique)?;
        }
        let specs = state.extra_indexes.entry(ns.to_string()).or_default();
        if !specs.iter().any(|s| s.get("name") == spec.get("name")) {
            specs.push(spec.clone());
        }
    } else {
        let entry = state.unsharded.entry(ns.to_string()).or_default();
        if !entry
            .indexes
            .iter()
            .any(|i| i.get("name") == spec.get("name"))
        {
            entry.indexes.push(spec.clone());
        }
    }
    if unique {
        let docs = state.store.iter(ns).map(|(seq, s)| (seq, &s.doc));
        let built = state.uniques.create(
            ns,
            &name,
            &spec.get_document("key").cloned().unwrap_or_default(),
            reply::flag(spec, "sparse"),
            docs,
        );
        if let Err(e) = built {
            forget_spec(state, ns, &name);
            return Err(e);
        }
    }
    Ok(())
}

/// A unique index on a sharded collection must start with the shard key's fields.
fn check_unique_prefix(pattern: &KeyPattern, key: &Document) -> Result<(), MongoError> {
    let names: Vec<&str> = key.keys().map(String::as_str).collect();
    let fields = pattern.fields();
    let prefix =
        fields.len() <= names.len() && fields.iter().zip(&names).all(|(f, n)| *f.path == **n);
    if prefix {
        return Ok(());
    }
    Err(cannot_create(format!(
        "cannot create index with 'unique' or 'prepareUnique' option over {} with shard key \
         pattern {} and collation {{}}",
        crate::model::shell_text::document(key),
        pattern.server_text()
    )))
}
