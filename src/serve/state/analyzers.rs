//! The query analyzers `configureQueryAnalyzer` turned on, per collection, and the queries they
//! sampled: data only; `commands::query_analyzer` configures and samples.
//!
//! May import nothing of `serve` above `state`.

use std::collections::{HashMap, VecDeque};

use bson::Document;

pub const KEEP: usize = 100_000;
pub const EXPIRE_SECS: i64 = 7 * 24 * 3600;

#[derive(Debug)]
pub struct Analyzer {
    pub samples_per_second: f64,
    pub tokens: f64,
    pub last_ms: i64,
}

/// Query analyzers and the samples they took.
#[derive(Debug, Default)]
pub struct QueryAnalyzers {
    pub on: HashMap<String, Analyzer>,
    pub samples: VecDeque<Document>,
    pub next: u64,
}
