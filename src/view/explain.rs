//! The explain panel's frame: the explanation of one chunk (`cluster::explain`) pre-aggregated
//! into one line per shard — how many rules pass, and each rule that fails or is unknown with its
//! number — and the next move in words.
//!
//! Owns: that aggregation, a pure function. May not touch: the rules (the simulator's policy
//! fills the explanation), the terminal, I/O.

use crate::cluster::explain::{Explanation, Next, Verdict};

/// One shard's line.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplainRow {
    pub shard: String,
    /// Rules that pass (or are not about this shard).
    pub passed: usize,
    /// `rule value/limit` of each rule that keeps the shard out.
    pub failed: Vec<String>,
    /// Rules whose input was not read.
    pub unknown: Vec<String>,
}

/// The panel.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplainView {
    /// `[min, max) on shard01, jumbo (next)`.
    pub chunk: String,
    pub rows: Vec<ExplainRow>,
    /// `next: shard01 → shard02 (chunksImbalance)` or `next: nothing moves: …`.
    pub next: String,
}

/// The panel of `e`.
pub fn panel(e: &Explanation) -> ExplainView {
    let rows = e
        .shards
        .iter()
        .map(|s| {
            let mut row = ExplainRow {
                shard: s.shard.clone(),
                passed: 0,
                failed: Vec::new(),
                unknown: Vec::new(),
            };
            for r in &s.rules {
                match r.verdict {
                    Verdict::Pass | Verdict::NotApplicable => row.passed += 1,
                    Verdict::Unknown => row.unknown.push(r.rule.to_string()),
                    Verdict::Fail if r.limit.is_null() => {
                        row.failed.push(format!("{} {}", r.rule, r.value_text()));
                    }
                    Verdict::Fail => {
                        let (value, limit) = (r.value_text(), r.limit_text());
                        row.failed.push(format!("{} {value}/{limit}", r.rule));
                    }
                }
            }
            row
        })
        .collect();
    ExplainView {
        chunk: format!(
            "{} on {}{} ({})",
            e.chunk.range,
            e.chunk.shard,
            if e.chunk.jumbo { ", jumbo" } else { "" },
            e.chunk.chosen
        ),
        rows,
        next: match &e.next {
            Next::Move { from, to, reason } => format!("next: {from} → {to} ({reason})"),
            Next::Nothing { reason } => format!("next: nothing moves: {reason}"),
        },
    }
}
