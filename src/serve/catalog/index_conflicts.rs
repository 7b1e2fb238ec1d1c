//! Whether a requested index conflicts with one the collection has, as
//! `db/catalog/index_catalog_impl.cpp` (`_doesSpecConflictWithExisting`) decides with
//! `IndexDescriptor::compareIndexOptions` (`db/index/index_descriptor.cpp`): the key pattern, the
//! partial filter and the collation identify an index; its other options (unique, sparse, TTL's
//! `expireAfterSeconds`, hidden, …) do not.
//!
//! - same name, another key or identifying option: IndexKeySpecsConflict (86);
//! - same name, same identity, other options: IndexOptionsConflict (85);
//! - another name, same identity: IndexOptionsConflict (85), "with a different name and options"
//!   when the options differ too, else "Index already exists with a different name";
//! - the same index again: nothing to build (`createIndexes` notes "all indexes already exist").
//!
//! The words are those of the 5.0+ source; 4.4 words its conflicts differently ("Index must have
//! unique name…"), which is not reproduced (docs/fidelity.md).
//!
//! May import `state`, `query` and `reply`.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::shell_text;
use crate::serve::catalog::indexes::listing;
use crate::serve::state::State;

/// The options that identify an index beside its key pattern.
const IDENTIFYING: &[&str] = &["partialFilterExpression", "collation"];

/// What a requested index is to the indexes of its collection.
#[derive(Debug, PartialEq, Eq)]
pub enum Existing {
    /// No index like it: build it.
    None,
    /// The same index exists: nothing to build.
    Identical,
}

fn equal(a: Option<&Bson>, b: Option<&Bson>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => crate::serve::query::compare(a, b) == std::cmp::Ordering::Equal,
        _ => false,
    }
}

/// Whether two specs have the same key pattern and identifying options.
fn same_identity(a: &Document, b: &Document) -> bool {
    std::iter::once("key")
        .chain(IDENTIFYING.iter().copied())
        .all(|k| equal(a.get(k), b.get(k)))
}

/// The options beside the name, the key, the version and the identifying options.
fn other_options(spec: &Document) -> Document {
    spec.iter()
        .filter(|(k, _)| {
            !matches!(k.as_str(), "v" | "key" | "name") && !IDENTIFYING.contains(&k.as_str())
        })
        .filter(|(k, v)| {
            !(k.as_str() == "unique" || k.as_str() == "sparse") || **v != Bson::Boolean(false)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn same_options(a: &Document, b: &Document) -> bool {
    let (a, b) = (other_options(a), other_options(b));
    a.len() == b.len() && a.iter().all(|(k, v)| equal(Some(v), b.get(k)))
}

fn key_specs_conflict(spec: &Document, existing: &Document) -> MongoError {
    MongoError {
        code: 86,
        code_name: "IndexKeySpecsConflict",
        message: format!(
            "An existing index has the same name as the requested index. When index names are \
             not specified, they are auto generated and can cause conflicts. Please refer to our \
             documentation. Requested index: {}, existing index: {}",
            shell_text::document(spec),
            shell_text::document(existing)
        ),
    }
}

fn options_conflict(message: String) -> MongoError {
    MongoError {
        code: 85,
        code_name: "IndexOptionsConflict",
        message,
    }
}

/// Checks requested index `spec` (normalized: `{v, key, name, …}`) against the indexes of `ns`.
pub fn check(state: &State, ns: &str, spec: &Document) -> Result<Existing, MongoError> {
    let existing = listing(state, ns).unwrap_or_default();
    let name = spec.get("name");
    if let Some(have) = existing.iter().find(|e| e.get("name") == name) {
        if !same_identity(have, spec) {
            return Err(key_specs_conflict(spec, have));
        }
        if !same_options(have, spec) {
            return Err(options_conflict(format!(
                "An equivalent index already exists with the same name but different options. \
                 Requested index: {}, existing index: {}",
                shell_text::document(spec),
                shell_text::document(have)
            )));
        }
        return Ok(Existing::Identical);
    }
    if let Some(have) = existing.iter().find(|e| same_identity(e, spec)) {
        if !same_options(have, spec) {
            return Err(options_conflict(format!(
                "An equivalent index already exists with a different name and options. \
                 Requested index: {}, existing index: {}",
                shell_text::document(spec),
                shell_text::document(have)
            )));
        }
        return Err(options_conflict(format!(
            "Index already exists with a different name: {}",
            have.get_str("name").unwrap_or_default()
        )));
    }
    Ok(Existing::None)
}
