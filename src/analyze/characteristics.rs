//! A candidate key's characteristics as `analyzeShardKey` computes them
//! (`src/mongo/db/s/analyze_shard_key_cmd_util.cpp`, 7.0+), over documents taken one at a time
//! in insertion order (the insertion order stands for the record ids):
//!
//! - `numDocs`, `numDistinctValues` and the `mostCommonValues` (the 5 most frequent,
//!   `analyzeShardKeyNumMostCommonValues`) with their frequencies; when the key is unique (a
//!   unique index whose fields are the key's), every value has frequency 1, as
//!   `calculateCardinalityAndFrequencyUnique` reports it;
//! - `monotonicity`, as `calculateMonotonicity`: a key whose first field is hashed is not
//!   monotonic (coefficient 0), one hashed on a later field is unknown (no coefficient), a key
//!   with one distinct value is not monotonic; otherwise the keys in index order and
//!   the correlation coefficient between their positions and their record ids, rounded up at
//!   10 places (`kMaxNumDecimalPlaces`), monotonic when its magnitude is at least 0.7
//!   (`analyzeShardKeyMonotonicityCorrelationCoefficientThreshold`);
//! - `avgDocSizeBytes`, the integer mean (as `$collStats` `size / count`).
//!
//! A document missing a key field counts as null there, as a mongos routes it; how many did is
//! counted. Values are counted by sorting the keys into index order, as MongoDB counts them over
//! the supporting index (a hashed field by its hash); the values shown are the raw ones.

use bson::{Bson, Document};

use crate::model::{KeyPattern, ShardKey, extjson, value_at};

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
    /// Per key field, in the key's order, the documents missing it.
    pub missing_by_field: Vec<u64>,
    /// Taken as unique (a unique index with the key's fields) but two documents share a key: such
    /// an index could not exist. The shared value and how many documents hold it; `is_unique`
    /// is then false and the counts are the data's.
    pub unique_duplicate: Option<(Document, u64)>,
    /// Distinct values first seen in the last tenth of the documents: a key whose values keep
    /// arriving new (ascending, or nearly unique) has no bound on its chunks in practice.
    pub late_new_values: u64,
    /// The documents of the last tenth (the last `num_docs / 10`).
    pub last_tenth: u64,
    /// The most common value's documents among the last tenth: how fast it grows now.
    pub most_common_recent: u64,
    /// The distinct values the last tenth of the documents carry, in insertion order: where
    /// the newest inserts land (a key of 7 values whose new documents carry 2 has 2 places
    /// taking inserts, not 7).
    pub recent_values: u64,
}

/// The running count of one candidate's characteristics.
pub struct Characteristics {
    pattern: KeyPattern,
    /// The key's fields as plain values (a hashed field's raw value, not its hash).
    raw: KeyPattern,
    unique: bool,
    /// Per document, its key in index order (hashed fields hashed) and its record id; values
    /// are counted by sorting it (as MongoDB counts them over the supporting index).
    order: Vec<(ShardKey, u64)>,
    /// With a hashed field, each document's raw key (by record id), to show the values.
    raws: Vec<ShardKey>,
    bytes: u64,
    missing: u64,
    missing_by_field: Vec<u64>,
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
            order: Vec::new(),
            raws: Vec::new(),
            bytes: 0,
            missing: 0,
            missing_by_field: vec![0; pattern.len()],
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
        if self.pattern.hashed_field().is_some() {
            let raw = self.raw.extract(doc).map_err(|e| NotAKey(e.0))?;
            self.raws.push(raw);
        }
        self.docs += 1;
        self.bytes += size;
        let mut missing = false;
        for (f, n) in self.pattern.fields().iter().zip(&mut self.missing_by_field) {
            if value_at(doc, &f.path).is_none() {
                *n += 1;
                missing = true;
            }
        }
        self.missing += u64::from(missing);
        self.order.push((key, self.docs));
        Ok(())
    }

    /// The characteristics of the documents taken.
    pub fn finish(mut self) -> KeyCharacteristics {
        // The index's order: by key, then by record id.
        self.order.sort_unstable();
        let groups = self.groups();
        // A unique index holds each key once (a missing field counts as null, so two documents
        // missing it collide too): a repeated key contradicts it.
        let unique_duplicate = if self.unique {
            groups
                .iter()
                .find(|g| g.count > 1)
                .map(|g| (self.value_document(g.start), g.count))
        } else {
            None
        };
        self.unique = self.unique && unique_duplicate.is_none();
        let (monotonicity, coefficient) = self.monotonicity(groups.len());
        let most_common_values = most_common(&groups)
            .into_iter()
            .map(|g| {
                let frequency = if self.unique { 1 } else { g.count };
                (self.value_document(g.start), frequency)
            })
            .collect();
        let from = self.docs - self.docs / 10;
        let most_common_recent = top_group(&groups).map_or(0, |g| {
            let run = &self.order[g.start..g.start + g.count as usize];
            run.iter().filter(|(_, id)| *id > from).count() as u64
        });
        let (late_new_values, recent_values) = if self.unique {
            (self.docs - from, self.docs - from)
        } else {
            (
                groups.iter().filter(|g| g.first_id > from).count() as u64,
                groups.iter().filter(|g| g.last_id > from).count() as u64,
            )
        };
        KeyCharacteristics {
            num_docs: self.docs,
            num_distinct_values: if self.unique {
                self.docs
            } else {
                groups.len() as u64
            },
            is_unique: self.unique,
            most_common_values,
            monotonicity,
            coefficient,
            avg_doc_size_bytes: self.bytes.checked_div(self.docs).unwrap_or(0),
            missing: self.missing,
            missing_by_field: self.missing_by_field,
            unique_duplicate,
            late_new_values,
            last_tenth: self.docs / 10,
            most_common_recent,
            recent_values,
        }
    }

    /// Runs of equal keys in the sorted order: where each starts, its size, its first record id.
    fn groups(&self) -> Vec<Group> {
        let mut out: Vec<Group> = Vec::new();
        for (i, (key, id)) in self.order.iter().enumerate() {
            match out.last_mut() {
                Some(g) if self.order[g.start].0 == *key => {
                    g.count += 1;
                    g.first_id = g.first_id.min(*id);
                    g.last_id = g.last_id.max(*id);
                }
                _ => out.push(Group {
                    start: i,
                    count: 1,
                    first_id: *id,
                    last_id: *id,
                }),
            }
        }
        out
    }

    fn monotonicity(&self, distinct: usize) -> (Monotonicity, Option<f64>) {
        // 8.0 `analyze_shard_key_cmd_util.cpp`, `calculateMonotonicity`: a hashed first field
        // is not monotonic (coefficient 0); a hashed later field leaves it unknown, with no
        // coefficient (the manual's `keyCharacteristics` table; jstest
        // `jstests/sharding/analyze_shard_key/monotonicity_hashed_sharding_compound.js`).
        if let Some(h) = self.pattern.hashed_field() {
            return if h == 0 {
                (Monotonicity::NotMonotonic, Some(0.0))
            } else {
                (Monotonicity::Unknown, None)
            };
        }
        if self.docs == 0 {
            return (Monotonicity::Unknown, None);
        }
        if distinct == 1 {
            return (Monotonicity::NotMonotonic, Some(0.0));
        }
        let ids: Vec<f64> = self.order.iter().map(|(_, id)| *id as f64).collect();
        let c = round10(correlation(&ids));
        let kind = if c.abs() >= MONOTONIC_THRESHOLD {
            Monotonicity::Monotonic
        } else {
            Monotonicity::NotMonotonic
        };
        (kind, Some(c))
    }

    /// The values of the group starting at `start` (raw values, not hashes).
    fn value_document(&self, start: usize) -> Document {
        let (key, id) = &self.order[start];
        let raw = if self.raws.is_empty() {
            key
        } else {
            &self.raws[(*id - 1) as usize]
        };
        self.raw
            .fields()
            .iter()
            .zip(raw.values())
            .map(|(f, v)| (f.path.to_string(), extjson::to_bson(v)))
            .collect()
    }
}

/// A run of equal keys.
struct Group {
    start: usize,
    count: u64,
    first_id: u64,
    last_id: u64,
}

/// The most frequent groups, most frequent first; ties by the first record id.
fn most_common(groups: &[Group]) -> Vec<&Group> {
    let mut top: Vec<&Group> = Vec::with_capacity(MOST_COMMON_VALUES + 1);
    for g in groups {
        top.push(g);
        top.sort_by_key(|g| (std::cmp::Reverse(g.count), g.first_id));
        top.truncate(MOST_COMMON_VALUES);
    }
    top
}

/// The most frequent group (the first seen among equals), as [`most_common`] ranks it.
fn top_group(groups: &[Group]) -> Option<&Group> {
    groups
        .iter()
        .min_by_key(|g| (std::cmp::Reverse(g.count), g.first_id))
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

/// MongoDB's `round` in `analyze_shard_key_cmd_util.cpp`: up, at 10 places.
fn round10(x: f64) -> f64 {
    (x * 1e10).ceil() / 1e10
}
