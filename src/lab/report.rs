//! What the lab reports for each candidate, measured on the same data and traffic, and the
//! `shardtop-lab` JSON of it (values and filters in relaxed Extended JSON, as `mongoexport`
//! writes them); below it, each candidate's verdict ([`verdict`]), the report as text
//! ([`markdown`]) and the candidates proposed from the traffic ([`suggest`]).
//!
//! The report is data: the trial measures its runs into it (`lab::trial::measure`). It imports
//! [`crate::analyze`] and [`crate::model`] only, never the lab's input or trial.

use bson::Document;
use serde_json::{Value, json};

use crate::analyze::characteristics::KeyCharacteristics;
use crate::analyze::distribution::{Counts, Dispatch, ReadWrite};
use crate::analyze::ranges::{ByRange, too_few_ranges};
use crate::model::KeyPattern;
use crate::model::targeting::TargetKind;

pub mod markdown;
pub mod suggest;
pub mod verdict;

/// One operation of the traffic under a candidate: where the final chunks send it.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryTargeting {
    pub command: &'static str,
    pub filter: Document,
    pub weight: u64,
    pub kind: TargetKind,
    pub shards: usize,
    /// The chunks of the final table its filter's ranges meet.
    pub chunks: usize,
    /// How `analyzeShardKey` counts it: an equality on the whole key (single-shard), a range
    /// of the key (multi-shard), or no shard key in the filter (scatter-gather).
    pub dispatch: Dispatch,
    /// The chunks its filter's ranges meet when the data is cut at the release line's default
    /// chunk size ([`CandidateReport::default_chunk_size`]) instead of the lab's.
    pub default_size_chunks: usize,
    /// It changes the shard key's value (a transaction or a retryable write, and an equality
    /// on the whole key, are then required).
    pub updates_shard_key: bool,
}

/// The traffic's updates that change a candidate's shard key value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShardKeyUpdates {
    /// Operations of the traffic that do.
    pub operations: usize,
    /// Their weights summed.
    pub weight: u64,
    /// Of the operations, those whose filter has no equality on the whole key.
    pub without_full_key: usize,
    /// Of the operations, those with `multi: true` (refused: one document at a time).
    pub multi: usize,
}

/// One chunk of a candidate's final layout.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkEntry {
    pub min: Document,
    pub max: Document,
    pub shard: String,
    pub bytes: u64,
    pub docs: u64,
    pub jumbo: bool,
}

/// The most common value's documents against the chunk size, at the pace of the last tenth of
/// the documents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Every value is in one document (a unique key): no value's chunk grows.
    Never,
    /// They already pass the chunk size.
    Over,
    /// They pass it after this many more documents, at the last tenth's pace.
    After(u64),
    /// It cannot be judged, and why.
    Unknown(&'static str),
}

/// One candidate's measurements.
#[derive(Clone, Debug)]
pub struct CandidateReport {
    pub key: KeyPattern,
    pub characteristics: KeyCharacteristics,
    pub distribution: ReadWrite,
    /// Each shard's id and its share of the new inserts.
    pub shares: Vec<(String, f64)>,
    pub max_shard_share: f64,
    pub hottest_chunk_share: f64,
    pub new_inserts: u64,
    pub migrations: u64,
    pub chunks: usize,
    pub queries: Vec<QueryTargeting>,
    /// The most chunks the key can have (`None`: its values keep arriving new).
    pub max_chunks: Option<u64>,
    /// Chunks over the chunk size holding one key value, or flagged jumbo: they can never be
    /// split. The chunks of [`Self::chunk_map`] flagged `jumbo`, counted.
    pub jumbo: u64,
    /// Documents whose first key field holds a date (a BSON date, or a string starting with an
    /// ISO date): with a key not monotonic in the file's order, a hint to `--order-by` it.
    pub dated: u64,
    /// Key values whose documents alone exceed the chunk size (indivisible wherever they are).
    pub indivisible_values: u64,
    /// The chunks the data needs at the chunk size.
    pub needed_chunks: u64,
    /// When the most common value's documents pass the chunk size.
    pub growth: Growth,
    /// The unique indexes and whether the key allows each (a field-name prefix of it).
    pub unique_indexes: Vec<(KeyPattern, bool)>,
    pub ranges_on_hashed_field: bool,
    pub refused: u64,
    pub first_refusal: Option<String>,
    /// Each zone range given, and whether it applies to this key (its fields start the key).
    pub zones: Vec<(String, bool)>,
    /// `numReadsByRange` / `numWritesByRange`, or the ranges the key could make (fewer than
    /// 100: `analyzeShardKey` fails with error 4952606).
    pub by_range: Result<ByRange, usize>,
    /// The release line's default chunk size in bytes (128 MB from 6.0, 64 MB before).
    pub default_chunk_size: u64,
    /// The chunks the data fills at that size (`splitVector` over the final data).
    pub default_size_chunks: usize,
    pub shard_key_updates: ShardKeyUpdates,
    /// The final chunks, in key order.
    pub chunk_map: Vec<ChunkEntry>,
    pub verdict: String,
}

fn relaxed(doc: &Document) -> Value {
    bson::Bson::Document(doc.clone()).into_relaxed_extjson()
}

fn side(c: &Counts, what: &str) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert(
        format!("percentageOfSingleShard{what}"),
        json!(c.percent(c.single)),
    );
    m.insert(
        format!("percentageOfMultiShard{what}"),
        json!(c.percent(c.variable)),
    );
    m.insert(
        format!("percentageOfScatterGather{what}"),
        json!(c.percent(c.scatter)),
    );
    m.insert("sampleSize".into(), json!(c.total));
    m
}

impl CandidateReport {
    pub fn to_json(&self) -> Value {
        let ch = &self.characteristics;
        let mut writes = side(&self.distribution.writes, "Writes");
        let w = &self.distribution.writes;
        let extra = json!({
            "shards": self.shares.iter().map(|(s, v)| json!({"shard": s, "share": v})).collect::<Vec<_>>(),
            "maxShardShare": self.max_shard_share,
            "hottestChunkShare": self.hottest_chunk_share,
            "newInserts": self.new_inserts,
            "migrations": self.migrations,
            "percentageOfShardKeyUpdates": w.percent(w.shard_key_updates),
            "percentageOfSingleWritesWithoutShardKey": w.percent(w.single_without_key),
            "percentageOfMultiWritesWithoutShardKey": w.percent(w.multi_without_key),
        });
        if let Value::Object(m) = extra {
            writes.extend(m);
        }
        let mut reads = side(&self.distribution.reads, "Reads");
        if let Ok(r) = &self.by_range {
            reads.insert("numReadsByRange".into(), json!(r.reads));
            writes.insert("numWritesByRange".into(), json!(r.writes));
        }
        let u = &self.shard_key_updates;
        json!({
            "key": relaxed(&self.key.to_document()),
            "keyCharacteristics": {
                "numDocsTotal": ch.num_docs,
                "numDocsSampled": ch.num_docs,
                "numDistinctValues": ch.num_distinct_values,
                "isUnique": ch.is_unique,
                "mostCommonValues": ch.most_common_values.iter()
                    .map(|(v, n)| json!({"value": relaxed(v), "frequency": n}))
                    .collect::<Vec<_>>(),
                "monotonicity": {
                    "type": ch.monotonicity.as_str(),
                    "recordIdCorrelationCoefficient": ch.coefficient,
                },
                "avgDocSizeBytes": ch.avg_doc_size_bytes,
                "numDocsMissingShardKeyFields": ch.missing,
            },
            "uniqueIndexContradicted": ch.unique_duplicate.as_ref()
                .map(|(v, n)| json!({"value": relaxed(v), "count": n})),
            "reads": reads,
            "byRangeError": self.by_range.as_ref().err().map(|n| too_few_ranges(*n)),
            "shardKeyUpdates": {"operations": u.operations, "weight": u.weight,
                                "withoutFullShardKey": u.without_full_key, "multi": u.multi},
            "defaultChunkSizeMB": self.default_chunk_size >> 20,
            "chunksAtDefaultSize": self.default_size_chunks,
            "writes": writes,
            "queries": self.queries.iter().map(|q| json!({
                "command": q.command,
                "filter": relaxed(&q.filter),
                "weight": q.weight,
                "targeting": q.kind.stage(),
                "shards": q.shards,
                "chunks": q.chunks,
                "dispatch": dispatch_name(q.dispatch),
                "chunksAtDefaultSize": q.default_size_chunks,
                "updatesShardKey": q.updates_shard_key,
            })).collect::<Vec<_>>(),
            "chunks": self.chunks,
            "maxChunks": self.max_chunks,
            "lateNewValues": ch.late_new_values,
            "lastTenthDocs": ch.last_tenth,
            "mostCommonValueFillsChunkAfterDocs": match self.growth {
                Growth::Over => json!(0),
                Growth::After(n) => json!(n),
                Growth::Never | Growth::Unknown(_) => Value::Null,
            },
            "jumbo": self.jumbo,
            "indivisibleValues": self.indivisible_values,
            "uniqueIndexes": self.unique_indexes.iter()
                .map(|(k, a)| json!({"key": relaxed(&k.to_document()), "allowed": a}))
                .collect::<Vec<_>>(),
            "refused": self.refused,
            "zones": self.zones.iter()
                .map(|(z, a)| json!({"zone": z, "applied": a}))
                .collect::<Vec<_>>(),
            "verdict": self.verdict,
        })
    }
}

impl ChunkEntry {
    /// `{"min", "max", "shard", "bytes", "docs", "jumbo"}`, bounds in relaxed Extended JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "min": relaxed(&self.min),
            "max": relaxed(&self.max),
            "shard": self.shard,
            "bytes": self.bytes,
            "docs": self.docs,
            "jumbo": self.jumbo,
        })
    }
}

/// `analyzeShardKey`'s words for a dispatch: `singleShard`, `multiShard`, `scatterGather`.
pub fn dispatch_name(d: Dispatch) -> &'static str {
    match d {
        Dispatch::SingleShard => "singleShard",
        Dispatch::Variable => "multiShard",
        Dispatch::ScatterGather => "scatterGather",
    }
}

/// A percentage as the text prints it: at most two decimals, trailing zeros dropped; a share
/// that is not 0 (or not all) never prints as 0% (or 100%).
pub fn percent_text(x: f64) -> String {
    if x > 0.0 && x < 0.005 {
        return "<0.01%".into();
    }
    if (99.995..100.0).contains(&x) {
        return ">99.99%".into();
    }
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The whole report.
pub struct Report {
    pub documents: u64,
    /// The unique indexes given that the data contradicts: the index, a key value more than one
    /// document holds, and how many do. Such an index could not exist on these documents.
    pub unique_contradicted: Vec<(KeyPattern, Document, u64)>,
    pub operations: usize,
    pub shards: u32,
    pub chunk_size_mb: u64,
    pub server_version: String,
    pub candidates: Vec<CandidateReport>,
}

impl Report {
    pub fn to_json(&self) -> Value {
        json!({
            "format": "shardtop-lab",
            "version": 1,
            "documents": self.documents,
            "queries": self.operations,
            "shards": self.shards,
            "chunkSizeMB": self.chunk_size_mb,
            "serverVersion": self.server_version,
            "uniqueIndexesContradicted": self.unique_contradicted.iter()
                .map(|(k, v, n)| json!({"key": relaxed(&k.to_document()), "value": relaxed(v), "count": n}))
                .collect::<Vec<_>>(),
            "candidates": self.candidates.iter().map(CandidateReport::to_json).collect::<Vec<_>>(),
        })
    }
}

impl Report {
    /// The `--chunk-map` file: each candidate's final chunks in key order (format
    /// `shardtop-lab-chunks`, version 1).
    pub fn chunk_map_json(&self) -> Value {
        json!({
            "format": "shardtop-lab-chunks",
            "version": 1,
            "shards": self.shards,
            "chunkSizeMB": self.chunk_size_mb,
            "serverVersion": self.server_version,
            "candidates": self.candidates.iter().map(|c| json!({
                "key": relaxed(&c.key.to_document()),
                "chunks": c.chunk_map.iter().map(ChunkEntry::to_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}
