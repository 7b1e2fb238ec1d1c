//! `config.sampledQueries`: the queries the query analyzers sampled, as `$listSampledQueries`
//! lists them and `analyzeShardKey` reads them (by the collection's current `collectionUuid`).
//!
//! May import `state`, `query` and `reply`.

use bson::{Bson, Document};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::reply;
use crate::serve::state::State;

pub fn collection_uuid(state: &State, ns: &str) -> Bson {
    let incarnation = state
        .sim
        .cluster
        .collection(ns)
        .map_or(1, |c| c.incarnation);
    crate::serve::catalog::ids::collection_uuid(ns, incarnation)
}

/// The unexpired samples of `ns`'s current incarnation, oldest first (what `analyzeShardKey`
/// reads: 8.0 `db/s/document_source_analyze_shard_key_read_write_distribution.cpp` finds
/// `config.sampledQueries` by `collectionUuid`).
pub(crate) fn samples_of<'a>(state: &'a State, ns: &str) -> Vec<&'a Document> {
    let uuid = collection_uuid(state, ns);
    let now = bson::DateTime::from_millis(state.now_millis());
    state
        .analyzers
        .samples
        .iter()
        .filter(|d| d.get_str("ns") == Ok(ns) && d.get("collectionUuid") == Some(&uuid))
        .filter(|d| d.get_datetime("expireAt").is_ok_and(|t| *t > now))
        .collect()
}

/// `$listSampledQueries: {namespace?}` (7.0+).
pub fn list(state: &State, spec: &Bson) -> Result<Vec<Document>, MongoError> {
    if state.sim.cluster.version < ServerVersion::V7_0 {
        return Err(crate::serve::query::pipeline::unknown_stage(
            "$listSampledQueries",
        ));
    }
    let ns = match spec {
        Bson::Document(d) => match d.get("namespace") {
            None => None,
            Some(Bson::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(reply::type_mismatch(
                    "BSON field '$listSampledQueries.namespace' is the wrong type, expected type 'string'",
                ));
            }
        },
        _ => {
            return Err(MongoError::bad_value(
                "$listSampledQueries must be given a document",
            ));
        }
    };
    let now = bson::DateTime::from_millis(state.now_millis());
    Ok(state
        .analyzers
        .samples
        .iter()
        .filter(|d| ns.as_deref().is_none_or(|ns| d.get_str("ns") == Ok(ns)))
        .filter(|d| d.get_datetime("expireAt").is_ok_and(|t| *t > now))
        .cloned()
        .collect())
}
