//! A candidate key's characteristics as `analyzeShardKey` computes them
//! (`src/mongo/db/s/analyze_shard_key_cmd_util.cpp`, 7.0+), over documents taken one at a time
//! in insertion order (the insertion order stands for the record ids):
//!
//! - `numDocs`, `numDistinctValues` and the `mostCommonValues` (the 5 most frequent,
//!   `analyzeShardKeyNumMostCommonValues`) with their frequencies; when the key is unique (a
//!   unique index whose fields are the key's), every value has frequency 1, as
//!   `calculateCardinalityAndFrequencyUnique` reports it;
//! - `monotonicity`, as `calculateMonotonicity`: a single-field hashed key is not monotonic
//!   (coefficient 0), a key with one distinct value too; otherwise the keys in index order and
//!   the correlation coefficient between their positions and their record ids, rounded to 10
//!   places (`kMaxNumDecimalPlaces`), monotonic when its magnitude is at least 0.7
//!   (`analyzeShardKeyMonotonicityCorrelationCoefficientThreshold`);
//! - `avgDocSizeBytes`, the integer mean (as `$collStats` `size / count`).
//!
//! A document missing a key field counts as null there, as a mongos routes it; how many did is
//! counted. Values are grouped by their raw values (MongoDB groups a hashed field by its hash:
//! the same but for hash collisions).

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::model::{KeyPattern, ShardKey, extjson};

/// Most common values reported (`analyzeShardKeyNumMostCommonValues`).
pub const MOST_COMMON_VALUES: usize = 5;
/// The magnitude of the coefficient from which a key is monotonic.
pub const MONOTONIC_THRESHOLD: f64 = 0.7;

/// `monotonicity.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monotonicity {
    Monotonic,
    NotMonotonic,
    Unknown,
}

impl Monotonicity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Monotonic => "monotonic",
            Self::NotMonotonic => "not monotonic",
            Self::Unknown => "unknown",
        }
    }
}

/// One candidate's characteristics.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyCharacteristics {
    pub num_docs: u64,
    pub num_distinct_values: u64,
    pub is_unique: bool,
    /// The most frequent values (as documents of the key's fields) and their frequencies, most
    /// frequent first.
    pub most_common_values: Vec<(Document, u64)>,
    pub monotonicity: Monotonicity,
    /// `recordIdCorrelationCoefficient` (`None` with an unknown monotonicity).
    pub coefficient: Option<f64>,
    pub avg_doc_size_bytes: u64,
    /// Documents missing at least one key field (counted as null).
    pub missing: u64,
    /// Distinct values first seen in the last tenth of the documents: a key whose values keep
    /// arriving new (ascending, or nearly unique) has no bound on its chunks in practice.
    pub late_new_values: u64,
}

/// The running count of one candidate's characteristics.
pub struct Characteristics {
    pattern: KeyPattern,
    /// The key's fields as plain values (a hashed field's raw value, not its hash).
    raw: KeyPattern,
    unique: bool,
    /// Per distinct raw value: its frequency and its first document's order.
    values: BTreeMap<ShardKey, (u64, u64)>,
    /// Per document, its key in index order (hashed fields hashed) and its record id.
    order: Vec<(ShardKey, u64)>,
    bytes: u64,
    missing: u64,
    docs: u64,
}

/// Why a document cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAKey(pub String);

impl Characteristics {
    /// For `pattern`; `unique` when a unique index has exactly the key's fields.
    pub fn new(pattern: &KeyPattern, unique: bool) -> Self {
        let raw: Document = pattern
            .fields()
            .iter()
            .map(|f| (f.path.to_string(), Bson::Int32(1)))
            .collect();
        let raw = KeyPattern::parse(&raw).unwrap_or_else(|_| pattern.clone());
        Self {
            pattern: pattern.clone(),
            raw,
            unique,
            values: BTreeMap::new(),
            order: Vec::new(),
            bytes: 0,
            missing: 0,
            docs: 0,
        }
    }

    /// Takes the next document inserted, `size` bytes of BSON.
    pub fn observe(&mut self, doc: &Document, size: u64) -> Result<(), NotAKey> {
        let key = self.pattern.extract(doc).map_err(|e| NotAKey(e.0))?;
        self.observe_key(doc, size, key)
    }

    /// [`Self::observe`] of a document whose key (hashed fields hashed) is already extracted.
    pub fn observe_key(&mut self, doc: &Document, size: u64, key: ShardKey) -> Result<(), NotAKey> {
        let raw = self.raw.extract(doc).map_err(|e| NotAKey(e.0))?;
        self.docs += 1;
        self.bytes += size;
        if self
            .pattern
            .fields()
            .iter()
            .any(|f| !has_path(doc, &f.path))
        {
            self.missing += 1;
        }
        let id = self.docs;
        self.values.entry(raw).or_insert((0, id)).0 += 1;
        self.order.push((key, id));
        Ok(())
    }

    /// The characteristics of the documents taken.
    pub fn finish(mut self) -> KeyCharacteristics {
        let (monotonicity, coefficient) = self.monotonicity();
        let mut common: Vec<(&ShardKey, &(u64, u64))> = self.values.iter().collect();
        // Most frequent first; ties in insertion order (a unique key: the first documents).
        common.sort_by_key(|(_, (n, first))| (std::cmp::Reverse(*n), *first));
        let most_common_values = common
            .into_iter()
            .take(MOST_COMMON_VALUES)
            .map(|(k, (n, _))| (self.value_document(k), if self.unique { 1 } else { *n }))
            .collect();
        KeyCharacteristics {
            num_docs: self.docs,
            num_distinct_values: if self.unique {
                self.docs
            } else {
                self.values.len() as u64
            },
            is_unique: self.unique,
            most_common_values,
            monotonicity,
            coefficient,
            avg_doc_size_bytes: self.bytes.checked_div(self.docs).unwrap_or(0),
            missing: self.missing,
            late_new_values: self.late_new_values(),
        }
    }

    fn late_new_values(&self) -> u64 {
        let from = self.docs - self.docs / 10;
        if self.unique {
            return self.docs - from;
        }
        self.values
            .values()
            .filter(|(_, first)| *first > from)
            .count() as u64
    }

    fn monotonicity(&mut self) -> (Monotonicity, Option<f64>) {
        let fields = self.pattern.fields();
        if fields.len() == 1 && fields[0].hashed {
            return (Monotonicity::NotMonotonic, Some(0.0));
        }
        if self.docs == 0 {
            return (Monotonicity::Unknown, None);
        }
        if self.values.len() == 1 {
            return (Monotonicity::NotMonotonic, Some(0.0));
        }
        // The index's order: by key, then by record id.
        self.order.sort_unstable();
        let ids: Vec<f64> = self.order.iter().map(|(_, id)| *id as f64).collect();
        let c = round10(correlation(&ids));
        let kind = if c.abs() >= MONOTONIC_THRESHOLD {
            Monotonicity::Monotonic
        } else {
            Monotonicity::NotMonotonic
        };
        (kind, Some(c))
    }

    fn value_document(&self, raw: &ShardKey) -> Document {
        self.raw
            .fields()
            .iter()
            .zip(raw.values())
            .map(|(f, v)| (f.path.to_string(), extjson::to_bson(v)))
            .collect()
    }
}

/// Pearson's correlation between positions 1..=n and `y`.
fn correlation(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    let mean_x = f64::midpoint(n, 1.0);
    let mean_y = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (i, &yi) in y.iter().enumerate() {
        let dx = (i + 1) as f64 - mean_x;
        let dy = yi - mean_y;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

fn round10(x: f64) -> f64 {
    (x * 1e10).round() / 1e10
}

/// Whether the dotted `path` names a field of `doc` (null included).
fn has_path(doc: &Document, path: &str) -> bool {
    let mut current = doc;
    let mut segments = path.split('.').peekable();
    while let Some(segment) = segments.next() {
        match (current.get(segment), segments.peek()) {
            (Some(_), None) => return true,
            (Some(Bson::Document(inner)), Some(_)) => current = inner,
            _ => return false,
        }
    }
    false
}
