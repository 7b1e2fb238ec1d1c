//! `analyzeShardKey` (7.0+): the metrics for evaluating a candidate shard key of a collection,
//! as a mongos answers them. This module owns the command — its checks and errors (its fields
//! are parsed in `analyze_request`) and `keyCharacteristics` over the documents `serve` keeps
//! for the collection (in insertion order, standing for the record ids); `readDistribution` and
//! `writeDistribution` come from the sampled queries (`analyze_distribution`).
//!
//! The characteristics are `analyze::characteristics`'. Where MongoDB samples at random
//! (`$sampleRate` for the cardinality, a coin per index entry for the monotonicity), `serve`
//! takes as many documents by a pseudo-random choice of a fixed seed, so that an answer
//! repeats. Counts are NumberLong, as the reply's IDL types them (8.0
//! `src/mongo/s/analyze_shard_key_cmd.idl`).
//! When the simulator counts documents of the collection that are not kept (a scenario's
//! workload, past `--max-docs`), the metrics cover the kept ones and a `shardtop` field says so.

use bson::{Bson, Document, doc};

use crate::analyze::characteristics::{Characteristics, KeyCharacteristics, Monotonicity};
use crate::cluster::{MongoError, Placement, ServerVersion};
use crate::model::{KeyPattern, ShardIdx};
use crate::serve::commands::analyze::analyze_distribution;
use crate::serve::commands::analyze::analyze_request::Request;
use crate::serve::commands::analyze::documents::{array_field, sample};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::state::store::Stored;

/// `analyzeShardKeyCharacteristicsDefaultSampleSize`.
const DEFAULT_SAMPLE_SIZE: i64 = 10_000_000;
/// `analyzeShardKeyNumMostCommonValues`.
const MOST_COMMON_VALUES: i64 = 5;

/// `analyzeShardKey: ns, key, keyCharacteristics?, readWriteDistribution?, sampleRate?,
/// sampleSize?`.
pub fn analyze(state: &State, cmd: &Document) -> Answer {
    if state.sim.cluster.version < ServerVersion::V7_0 {
        return Err(MongoError::command_not_found(
            "no such command: 'analyzeShardKey'",
        ));
    }
    let req = Request::parse(cmd)?;
    // 8.0 s/commands/cluster_analyze_shard_key_cmd.cpp, then db/s/analyze_shard_key_cmd.cpp.
    crate::serve::commands::analyze::analyze_request::validate_namespace(&req.ns)?;
    if !req.characteristics && !req.distribution {
        return Err(MongoError::invalid_options(
            "Cannot skip analyzing all metrics",
        ));
    }
    if req.sample_rate.is_some() && req.sample_size.is_some() {
        return Err(MongoError::invalid_options(
            "Cannot specify both 'sampleRate' and 'sampleSize'",
        ));
    }
    if !exists(state, &req.ns) {
        // 8.0 db/s/analyze_shard_key_util.cpp, validateCollectionOptions.
        return Err(MongoError::namespace_not_found(
            "The namespace does not exist",
        ));
    }
    let mut reply = Document::new();
    if req.characteristics {
        match key_characteristics(state, &req)? {
            Some(d) => {
                reply.insert("keyCharacteristics", d);
            }
            None if !req.distribution => {
                return Err(MongoError::illegal_operation(
                    "Cannot analyze the characteristics of a shard key that does not have a \
                     supporting index",
                ));
            }
            None => {}
        }
    }
    if req.distribution {
        let (reads, writes) = analyze_distribution::read_write(state, &req.ns, &req.key)?;
        reply.insert("readDistribution", reads);
        reply.insert("writeDistribution", writes);
    }
    if let Some(note) = state.read_note(&req.ns) {
        reply.insert("shardtop", note);
    }
    Ok(ok(reply))
}

fn exists(state: &State, ns: &str) -> bool {
    state.sim.cluster.collection(ns).is_some() || state.unsharded.contains_key(ns)
}

/// `calculateKeyCharacteristicsMetrics` (8.0 `db/s/analyze_shard_key_cmd_util.cpp`); `None`
/// when no index supports the key.
fn key_characteristics(state: &State, req: &Request) -> Result<Option<Document>, MongoError> {
    let docs: Vec<&Stored> = state.store.iter(&req.ns).map(|(_, s)| s).collect();
    let Some(first) = docs.first() else {
        return Err(empty_collection(state, &req.ns));
    };
    if let Err(e) = req.key.extract(&first.doc) {
        return Err(array_field(&req.key, &e.0));
    }
    let specs = crate::serve::catalog::indexes::listing(state, &req.ns).unwrap_or_default();
    let usable: Vec<&Document> = specs.iter().filter(|s| usable_index(s, &docs)).collect();
    let Some((index_fields, unique)) = compatible_index(&usable, &req.key) else {
        return Ok(None);
    };
    let is_unique = unique && index_fields == req.key.len();
    let (total, bytes, orphans) = coll_stats(state, &req.ns, &docs);
    let to_sample = docs_to_sample(req, total)?;
    let mut chars = Characteristics::new(&req.key, is_unique);
    for s in sample(&docs, to_sample) {
        chars
            .observe(&s.doc, s.bytes)
            .map_err(|e| array_field(&req.key, &e.0))?;
    }
    let mut found = chars.finish();
    monotonicity_rules(&req.key, &usable, &mut found);
    let num_total = if is_unique {
        total
    } else {
        total.max(found.num_docs)
    };
    Ok(Some(characteristics_doc(
        &found,
        num_total,
        bytes.checked_div(total).unwrap_or(0),
        orphans,
    )))
}

/// The documents sampled: `ceil(sampleRate × total)`, or `sampleSize` (10,000,000 by default)
/// up to the total.
fn docs_to_sample(req: &Request, total: u64) -> Result<usize, MongoError> {
    let size = req.sample_size.unwrap_or(DEFAULT_SAMPLE_SIZE);
    if req.sample_size.is_some() && size < MOST_COMMON_VALUES {
        return Err(MongoError::invalid_options(format!(
            "The requested number of most common values is {MOST_COMMON_VALUES} but the \
             requested number of documents according to 'sampleSize' is {size}"
        )));
    }
    let n = match req.sample_rate {
        Some(rate) => (rate * total as f64).ceil() as u64,
        None => (size as u64).min(total),
    };
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// The mongos's answer for a collection without documents (it asks every shard in turn, each
/// answers CollectionIsEmptyLocally); when the simulator counts documents that are not kept, the
/// reason is said.
fn empty_collection(state: &State, ns: &str) -> MongoError {
    let mut message = "Cannot analyze a shard key for an empty collection: \
                       CollectionIsEmptyLocally: Cannot analyze the characteristics of a shard key \
                       for an empty collection"
        .to_string();
    if let Some(note) = state.read_note(ns) {
        message.push_str(&format!(" (shardtop: {note})"));
    }
    MongoError::illegal_operation(message)
}

/// Whether an index can stand for the key's values (`findCompatiblePrefixedIndex`): a B-tree or
/// hashed index, not sparse, not partial, of the simple collation, not multikey.
fn usable_index(spec: &Document, docs: &[&Stored]) -> bool {
    let Ok(key) = spec.get_document("key") else {
        return false;
    };
    let btree_or_hashed = key.iter().all(|(field, v)| {
        let number = matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_));
        !field.contains("$**") && (number || v.as_str() == Some("hashed"))
    });
    let simple = spec
        .get_document("collation")
        .map_or(true, |c| c.get_str("locale") == Ok("simple"));
    btree_or_hashed
        && simple
        && !reply::flag(spec, "sparse")
        && !spec.contains_key("partialFilterExpression")
        && !docs
            .iter()
            .any(|s| key.keys().any(|path| has_array(&s.doc, path)))
}

/// Whether an array lies on `path` in `doc` (the index on it would be multikey).
fn has_array(doc: &Document, path: &str) -> bool {
    let mut current = doc;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        match current.get(part) {
            Some(Bson::Array(_)) => return true,
            Some(Bson::Document(inner)) if parts.peek().is_some() => current = inner,
            _ => return false,
        }
    }
    false
}

/// The index the key's fields prefix, fewest fields first, a unique one preferred: its number
/// of fields and whether it is unique (the `_id` index is).
fn compatible_index(usable: &[&Document], key: &KeyPattern) -> Option<(usize, bool)> {
    let mut best: Option<(usize, bool)> = None;
    for spec in usable {
        let Ok(index) = spec.get_document("key") else {
            continue;
        };
        let names: Vec<&String> = index.keys().collect();
        let prefixed = key.len() <= names.len()
            && key
                .fields()
                .iter()
                .zip(&names)
                .all(|(f, n)| *f.path == ***n);
        if !prefixed {
            continue;
        }
        let unique = reply::flag(spec, "unique") || spec.get_str("name") == Ok("_id_");
        let better = best.is_none_or(|(n, u)| n > names.len() || (!u && unique));
        if better {
            best = Some((names.len(), unique));
        }
    }
    best
}

/// `calculateMonotonicity`: a compound hashed key is not monotonic when the hashed field comes
/// first, unknown otherwise; any other key needs an index with the key (values included) as its
/// prefix, or its monotonicity is unknown.
fn monotonicity_rules(key: &KeyPattern, usable: &[&Document], found: &mut KeyCharacteristics) {
    let fields = key.fields();
    if key.hashed_field().is_some() {
        if fields.len() > 1 {
            (found.monotonicity, found.coefficient) = if fields[0].hashed {
                (Monotonicity::NotMonotonic, Some(0.0))
            } else {
                (Monotonicity::Unknown, None)
            };
        }
        return;
    }
    let specs: Vec<Document> = usable.iter().map(|d| (*d).clone()).collect();
    if !crate::serve::catalog::indexes::supports_shard_key(&specs, key) {
        (found.monotonicity, found.coefficient) = (Monotonicity::Unknown, None);
    }
}

/// `$collStats` summed over the shards (`calculateCollStats`): documents and bytes, orphans
/// included, and the orphans of a sharded collection.
fn coll_stats(state: &State, ns: &str, kept: &[&Stored]) -> (u64, u64, Option<u64>) {
    let kept_bytes: u64 = kept.iter().map(|s| s.bytes).sum();
    let kept_n = kept.len() as u64;
    if let Some(c) = state.sim.cluster.collection(ns) {
        let (mut docs, mut bytes, mut orphans) = (0, 0, 0);
        for s in 0..state.sim.cluster.shards.len() {
            let s = ShardIdx(s as u32);
            let t = c.table.shard_totals(s);
            let (od, ob) = c.orphans_on(s);
            docs += t.stats.docs + od;
            bytes += t.stats.bytes + ob;
            orphans += od;
        }
        if docs < kept_n {
            (docs, bytes) = (kept_n, kept_bytes);
        }
        return (
            docs,
            bytes,
            (c.placement == Placement::Sharded).then_some(orphans),
        );
    }
    let count = state.unsharded.get(ns).map_or(0, |u| u.count).max(kept_n);
    let bytes = (kept_bytes * count).checked_div(kept_n).unwrap_or(0);
    (count, bytes, None)
}

/// `keyCharacteristics` in the IDL's order.
fn characteristics_doc(
    c: &KeyCharacteristics,
    total: u64,
    avg_size: u64,
    orphans: Option<u64>,
) -> Document {
    let long = |n: u64| Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX));
    let mut d = doc! { "numDocsTotal": long(total) };
    if let Some(o) = orphans {
        d.insert("numOrphanDocs", long(o));
    }
    d.insert("avgDocSizeBytes", long(avg_size));
    d.insert("numDocsSampled", long(c.num_docs));
    d.insert("isUnique", c.is_unique);
    d.insert("numDistinctValues", long(c.num_distinct_values));
    let common: Vec<Bson> = c
        .most_common_values
        .iter()
        .map(|(value, n)| Bson::Document(doc! { "value": value.clone(), "frequency": long(*n) }))
        .collect();
    d.insert("mostCommonValues", common);
    let mut monotonicity = Document::new();
    if let Some(r) = c.coefficient {
        monotonicity.insert("recordIdCorrelationCoefficient", r);
    }
    monotonicity.insert("type", c.monotonicity.as_str());
    d.insert("monotonicity", monotonicity);
    if orphans.is_some() {
        d.insert("note", ORPHANS_NOTE);
    }
    d
}

/// `kOrphanDocsWarningMessage`, given for a sharded collection.
const ORPHANS_NOTE: &str = "Due to performance reasons, the analyzeShardKey command does not \
    filter out orphan documents when calculating metrics about the characteristics of the shard \
    key. Therefore, if \"numOrphanDocs\" is large relative to \"numDocsTotal\", you may want to \
    rerun the command at some other time to get more accurate \"numDistinctValues\" and \
    \"mostCommonValues\" metrics.";
