//! The operations a key is weighed against, in MongoDB's words: the command (`find`,
//! `aggregate`, `count`, `distinct`, `update`, `delete`, `findAndModify`) and what a router
//! routes it by — the filter, and for writes the update, `multi` and `upsert` — with a weight
//! (how many times it counts). The lab reads them from workload files and logs, `serve` from its
//! own sampled queries ([`super::sampled`]). Imports nothing of the crate.

use bson::Document;

/// The command an operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Find,
    Aggregate,
    Count,
    Distinct,
    Update,
    Delete,
    FindAndModify,
}

impl Command {
    pub const ALL: [Self; 7] = [
        Self::Find,
        Self::Aggregate,
        Self::Count,
        Self::Distinct,
        Self::Update,
        Self::Delete,
        Self::FindAndModify,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Find => "find",
            Self::Aggregate => "aggregate",
            Self::Count => "count",
            Self::Distinct => "distinct",
            Self::Update => "update",
            Self::Delete => "delete",
            Self::FindAndModify => "findAndModify",
        }
    }

    /// A query (routed by its filter) rather than a write.
    pub fn is_read(self) -> bool {
        matches!(
            self,
            Self::Find | Self::Aggregate | Self::Count | Self::Distinct
        )
    }

    /// The command named `name`, as a workload spells it.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// One operation of the traffic with its weight (how many times it counts).
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    pub command: Command,
    /// The filter: `find`'s, `count`'s or `distinct`'s filter or query, `aggregate`'s leading
    /// `$match`, an update's or delete's `q`, findAndModify's `query`; empty when none.
    pub filter: Document,
    /// An update's `u` or findAndModify's `update` when it is a document (modifiers like `$set`,
    /// or a replacement); `None` otherwise.
    pub update: Option<Document>,
    /// The update is an aggregation pipeline (`u: [...]`); `update` is then `None`.
    pub pipeline_update: bool,
    pub multi: bool,
    pub upsert: bool,
    pub weight: u64,
    /// The line of the workload or log file it was read from (1-based).
    pub line: u64,
}

impl Operation {
    /// `command` with an empty filter, weight 1, read at `line`.
    pub fn new(command: Command, line: u64) -> Self {
        Self {
            command,
            filter: Document::new(),
            update: None,
            pipeline_update: false,
            multi: false,
            upsert: false,
            weight: 1,
            line,
        }
    }
}
