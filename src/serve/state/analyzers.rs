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

/// Which statements of a command a query analyzer samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampled {
    No,
    /// A read: its filter (`find`, `count`, `distinct`, `aggregate`'s leading `$match`).
    Read,
    /// Each statement of an `update` or `delete`.
    Statements,
    /// The whole `findAndModify`.
    Whole,
}

#[cfg_attr(not(test), allow(dead_code))] // the docs table, checked by a test
impl Sampled {
    pub fn describe(self) -> &'static str {
        match self {
            Self::No => "",
            Self::Read => "the filter",
            Self::Statements => "each statement",
            Self::Whole => "the command",
        }
    }
}
