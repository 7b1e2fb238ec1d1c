//! The balancer explained for one chunk (`shardtop explain`, the TUI's explain panel): per shard,
//! each rule of the cluster's release line with its verdict and the number behind it, then the
//! migration the next balancer round would start on the collection, or why nothing moves.
//!
//! Owns: the shape of an explanation and its JSON. May not touch: the rules themselves — the
//! simulator's policy (`sim::balancer::explain`) fills this in from its own decisions — nor I/O.

use serde_json::{Value, json};

/// A rule's verdict for one shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The rule lets this shard take part (as donor, recipient, or at all).
    Pass,
    /// The rule keeps this shard out.
    Fail,
    /// What the rule needs could not be read.
    Unknown,
    /// The rule is about another shard (e.g. the chunk's own size, asked of its owner only).
    NotApplicable,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Unknown => "unknown",
            Self::NotApplicable => "n/a",
        }
    }

    /// `Pass` when `ok`, else `Fail`.
    pub fn of(ok: bool) -> Self {
        if ok { Self::Pass } else { Self::Fail }
    }
}

/// One rule on one shard: its name (MongoDB's word for it), verdict, the number it looked at and
/// the limit it compared it with (`null` when the rule has none), and the MongoDB source file it
/// follows.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub rule: &'static str,
    pub verdict: Verdict,
    pub value: Value,
    pub limit: Value,
    pub source: &'static str,
}

impl Rule {
    pub fn new(
        rule: &'static str,
        verdict: Verdict,
        (value, limit): (Value, Value),
        source: &'static str,
    ) -> Self {
        Self {
            rule,
            verdict,
            value,
            limit,
            source,
        }
    }

    /// The number it looked at, for people: bytes in MiB (`3.0 MiB`), `yes`/`no`, words unquoted.
    pub fn value_text(&self) -> String {
        for_people(self.rule, &self.value)
    }

    /// The limit, as [`Rule::value_text`] says the number.
    pub fn limit_text(&self) -> String {
        for_people(self.rule, &self.limit)
    }

    /// The same rule, its verdict and number unknown (what it needs was not read).
    pub fn unknown(mut self) -> Self {
        self.verdict = Verdict::Unknown;
        self.value = Value::Null;
        self
    }
}

/// The rules whose number and limit are bytes (a data size, balancer_policy.cpp's
/// `_getCollectionDataSizeInfo` and `_singleZoneBalanceBasedOnDataSize`).
const IN_BYTES: [&str; 3] = [
    "dataSizeGap",
    "donorAboveIdealDataSize",
    "recipientBelowIdealDataSize",
];

/// A rule's value or limit in the text and the panel: the JSON keeps the raw value.
fn for_people(rule: &str, v: &Value) -> String {
    match v {
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) if IN_BYTES.contains(&rule) => n
            .as_u64()
            .map_or_else(|| n.to_string(), crate::units::human_bytes),
        other => other.to_string(),
    }
}

/// A shard's row: every rule of the release line, in the order the balancer applies them.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardRules {
    pub shard: String,
    pub rules: Vec<Rule>,
}

/// The migration the next round would start on the collection, or why none.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    Move {
        from: String,
        to: String,
        /// MongoDB's reason word (`chunksImbalance`, `zoneViolation`, `drain`), and what happens
        /// to the move when the simulator knows (`fails: ChunkTooBig`).
        reason: String,
    },
    Nothing {
        reason: String,
    },
}

/// The chunk explained: its bounds as Extended JSON, its shard and its jumbo flag.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkRef {
    pub min: Value,
    pub max: Value,
    pub shard: String,
    pub jumbo: bool,
    /// `[min, max)` as the screen writes bounds (not in the JSON, which has `min` and `max`).
    pub range: String,
    /// How it was chosen: `key` (given), `next` (the next round moves it), `hottest`.
    pub chosen: &'static str,
}

/// An explanation of one chunk of one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub ns: String,
    pub chunk: ChunkRef,
    pub shards: Vec<ShardRules>,
    pub next: Next,
}

impl Explanation {
    /// `{ns, chunk, shards: [{shard, rules: [{rule, verdict, value, limit}]}], next, nextReason}`:
    /// `next` is `{from, to, reason}`, or `null` and then `nextReason` says why nothing moves (a
    /// `null` cannot say it). The source file each rule follows is in the text form and docs.
    pub fn to_json(&self) -> Value {
        let shards: Vec<Value> = self
            .shards
            .iter()
            .map(|s| {
                let rules: Vec<Value> = s
                    .rules
                    .iter()
                    .map(|r| {
                        json!({
                            "rule": r.rule, "verdict": r.verdict.as_str(),
                            "value": r.value, "limit": r.limit,
                        })
                    })
                    .collect();
                json!({"shard": s.shard, "rules": rules})
            })
            .collect();
        let (next, why) = match &self.next {
            Next::Move { from, to, reason } => (
                json!({"from": from, "to": to, "reason": reason}),
                Value::Null,
            ),
            Next::Nothing { reason } => (Value::Null, json!(reason)),
        };
        json!({
            "ns": self.ns,
            "chunk": {
                "min": self.chunk.min, "max": self.chunk.max, "shard": self.chunk.shard,
                "jumbo": self.chunk.jumbo, "chosen": self.chunk.chosen,
            },
            "shards": shards,
            "next": next,
            "nextReason": why,
        })
    }

    /// The text form: one block per shard, one line per rule, then the next move.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{}  chunk {} on {}{} ({})\n",
            self.ns,
            self.chunk.range,
            self.chunk.shard,
            if self.chunk.jumbo { ", jumbo" } else { "" },
            self.chunk.chosen
        );
        for s in &self.shards {
            out.push_str(&format!("\n{}\n", s.shard));
            for r in &s.rules {
                let limit = if r.limit.is_null() {
                    String::new()
                } else {
                    format!("  limit {}", r.limit_text())
                };
                let value = if r.value.is_null() && r.verdict == Verdict::Unknown {
                    "unknown".to_string()
                } else {
                    r.value_text()
                };
                out.push_str(&format!(
                    "  {:<8} {:<28} {value}{limit}  [{}]\n",
                    r.verdict.as_str(),
                    r.rule,
                    r.source
                ));
            }
        }
        out.push_str(&match &self.next {
            Next::Move { from, to, reason } => format!("\nnext: {from} → {to} ({reason})\n"),
            Next::Nothing { reason } => format!("\nnext: nothing moves: {reason}\n"),
        });
        out
    }
}
