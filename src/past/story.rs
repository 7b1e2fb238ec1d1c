//! What the diary tells, entry by entry: each migration (its `moveChunk.start`, `.commit` or
//! `.error`, and the donor's `moveChunk.from` with its step times, paired by namespace, range and
//! shards), each balancer round of the actionlog, each drain (`removeShard.start` …
//! `removeShard`), and the splits and merges per collection.
//!
//! The donor's step times (`move_timing_helper.cpp`, six steps logged by
//! `migration_source_manager.cpp`): 1 the checks, 2 the clone started, 3 the clone, 4 caught up
//! (`awaitToCatchUp`), 5 the critical section entered, 6 the commit. Writes to the range wait
//! from the critical section's start to the commit's end: steps 5 and 6.

use std::collections::BTreeMap;

use bson::Document;

use super::diary::{Diary, Entry, Log, number};

/// How a migration ended, as far as the diary tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    /// `moveChunk.error`, or an aborted `moveChunk.from`, with the `errmsg` when one was logged.
    Failed(Option<String>),
    /// Started, and no end in the entries read (in flight when read, or its end not kept).
    Open,
}

/// One migration.
#[derive(Clone, Debug)]
pub struct Migration {
    pub ns: String,
    pub min: Document,
    pub max: Document,
    pub from: String,
    pub to: String,
    pub started_ms: Option<i64>,
    pub ended_ms: Option<i64>,
    pub outcome: Outcome,
    /// `counts.cloned` / `counts.clonedBytes` of the commit.
    pub docs: Option<i64>,
    pub bytes: Option<i64>,
    /// The donor's six step times (ms), when its `moveChunk.from` was read.
    pub steps_ms: Option<[i64; 6]>,
}

impl Migration {
    /// The donor's time: the sum of its steps.
    pub fn total_ms(&self) -> Option<i64> {
        self.steps_ms.map(|s| s.iter().sum())
    }

    /// Writes to the range paused: the critical section, steps 5 and 6.
    pub fn writes_paused_ms(&self) -> Option<i64> {
        self.steps_ms.map(|s| s[4] + s[5])
    }
}

/// One `balancer.round` of the actionlog.
#[derive(Clone, Debug)]
pub struct Round {
    pub time_ms: i64,
    pub millis: i64,
    pub candidates: i64,
    pub moved: i64,
    /// `errorOccured`/`errorOccurred` with its `errmsg`.
    pub error: Option<String>,
}

/// One drain: `removeShard.start` and, when it finished, `removeShard`.
#[derive(Clone, Debug)]
pub struct Drain {
    pub shard: String,
    pub started_ms: Option<i64>,
    pub removed_ms: Option<i64>,
}

/// The diary read as stories.
#[derive(Clone, Debug, Default)]
pub struct Story {
    pub migrations: Vec<Migration>,
    pub rounds: Vec<Round>,
    pub drains: Vec<Drain>,
    /// Splits (a `multi-split` counted once) and merges per namespace.
    pub splits: BTreeMap<String, u64>,
    pub merges: BTreeMap<String, u64>,
}

fn key(e: &Entry) -> Option<String> {
    let d = &e.details;
    let doc = |k: &str| {
        d.get_document(k).map(|x| {
            bson::Bson::Document(x.clone())
                .into_relaxed_extjson()
                .to_string()
        })
    };
    Some(format!(
        "{} {} {} {} {}",
        e.ns,
        doc("min").ok()?,
        doc("max").ok()?,
        d.get_str("from").ok()?,
        d.get_str("to").ok()?
    ))
}

/// The diary's migrations, rounds, drains, splits and merges, oldest first.
pub fn story(diary: &Diary) -> Story {
    let mut s = Story::default();
    let mut open: BTreeMap<String, usize> = BTreeMap::new();
    let mut multi: Option<String> = None;
    for e in &diary.entries {
        if e.log == Log::Actionlog {
            if e.what == "balancer.round" {
                s.rounds.push(round(e));
            }
            continue;
        }
        if e.what != "multi-split" {
            multi = None;
        }
        match e.what.as_str() {
            "moveChunk.start" | "moveChunk.commit" | "moveChunk.error" | "moveChunk.from" => {
                let Some(k) = key(e) else { continue };
                let i = match open.get(&k) {
                    Some(&i) if e.what != "moveChunk.start" => i,
                    _ => {
                        s.migrations.push(new_migration(e));
                        open.insert(k.clone(), s.migrations.len() - 1);
                        s.migrations.len() - 1
                    }
                };
                let m = &mut s.migrations[i];
                match e.what.as_str() {
                    "moveChunk.start" => m.started_ms = Some(e.time_ms),
                    "moveChunk.commit" => {
                        m.outcome = Outcome::Committed;
                        m.ended_ms = Some(e.time_ms);
                        if let Ok(c) = e.details.get_document("counts") {
                            m.docs = number(c, "cloned");
                            m.bytes = number(c, "clonedBytes");
                        }
                    }
                    "moveChunk.error" => {
                        m.outcome = Outcome::Failed(None);
                        m.ended_ms = Some(e.time_ms);
                    }
                    _ => {
                        donor_steps(m, e);
                        open.remove(&k);
                    }
                }
            }
            "split" => *s.splits.entry(e.ns.clone()).or_default() += 1,
            "multi-split" => {
                let before = e
                    .details
                    .get_document("before")
                    .ok()
                    .map(|b| format!("{} {b}", e.ns));
                if before.is_none() || before != multi {
                    *s.splits.entry(e.ns.clone()).or_default() += 1;
                }
                multi = before;
            }
            "merge" => *s.merges.entry(e.ns.clone()).or_default() += 1,
            "removeShard.start" | "removeShard" => drain(&mut s.drains, e),
            _ => {}
        }
    }
    s
}

fn new_migration(e: &Entry) -> Migration {
    let d = &e.details;
    Migration {
        ns: e.ns.clone(),
        min: d.get_document("min").cloned().unwrap_or_default(),
        max: d.get_document("max").cloned().unwrap_or_default(),
        from: d.get_str("from").unwrap_or_default().to_string(),
        to: d.get_str("to").unwrap_or_default().to_string(),
        started_ms: None,
        ended_ms: None,
        outcome: Outcome::Open,
        docs: None,
        bytes: None,
        steps_ms: None,
    }
}

/// The donor's `moveChunk.from`: its step times, and its note when no commit or error was read.
fn donor_steps(m: &mut Migration, e: &Entry) {
    let steps: Option<Vec<i64>> = (1..=6)
        .map(|k| e.number(&format!("step {k} of 6")))
        .collect();
    m.steps_ms = steps.and_then(|v| v.try_into().ok());
    let errmsg = e.text("errmsg").map(str::to_string);
    match (e.text("note"), &m.outcome) {
        (Some("aborted"), _) => {
            m.outcome = Outcome::Failed(errmsg);
            m.ended_ms.get_or_insert(e.time_ms);
        }
        (Some("success"), Outcome::Open) => {
            m.outcome = Outcome::Committed;
            m.ended_ms.get_or_insert(e.time_ms);
        }
        _ => {}
    }
}

fn round(e: &Entry) -> Round {
    let failed = ["errorOccured", "errorOccurred"]
        .iter()
        .any(|k| e.details.get_bool(k) == Ok(true));
    Round {
        time_ms: e.time_ms,
        millis: e.number("executionTimeMillis").unwrap_or(0),
        candidates: e.number("candidateChunks").unwrap_or(0),
        moved: e.number("chunksMoved").unwrap_or(0),
        error: failed.then(|| {
            e.text("errmsg")
                .unwrap_or("(the entry gives no error message)")
                .to_string()
        }),
    }
}

fn drain(drains: &mut Vec<Drain>, e: &Entry) {
    let shard = e.text("shard").unwrap_or_default().to_string();
    if e.what == "removeShard.start" {
        drains.push(Drain {
            shard,
            started_ms: Some(e.time_ms),
            removed_ms: None,
        });
        return;
    }
    match drains
        .iter_mut()
        .rev()
        .find(|d| d.shard == shard && d.removed_ms.is_none())
    {
        Some(d) => d.removed_ms = Some(e.time_ms),
        None => drains.push(Drain {
            shard,
            started_ms: None,
            removed_ms: Some(e.time_ms),
        }),
    }
}
