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
    /// Chunks over the chunk size holding one key value: they can never be split.
    pub jumbo: u64,
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
            "reads": side(&self.distribution.reads, "Reads"),
            "writes": writes,
            "queries": self.queries.iter().map(|q| json!({
                "command": q.command,
                "filter": relaxed(&q.filter),
                "weight": q.weight,
                "targeting": q.kind.stage(),
                "shards": q.shards,
                "chunks": q.chunks,
                "dispatch": dispatch_name(q.dispatch),
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
