//! The chunks of each collection undone backward from the present through the changelog: each
//! shard's chunk count after every entry that changed the chunks.
//!
//! Undoing, newest entry first (the entries' shapes: `serve/write_path/diary.rs` and the
//! server files it cites):
//! - `moveChunk.commit` `[min, max)` from → to: the range goes back to the donor. Before 6.0 a
//!   migration moved one whole chunk (`moveChunk`); from 6.0 `moveRange` (and from 7.0 the
//!   balancer's moves, `balancer_policy.cpp`) may move the first part of a chunk, the donor
//!   keeping the rest as a new chunk (`migration_source_manager.cpp`, `computeOtherBound`), and
//!   no entry tells which happened: when a chunk of the donor touches the range, the range and
//!   it may have been one chunk, and the donor's count is known to within one from there back.
//! - `split` / `multi-split`: the pieces become the one chunk `before` on `owningShard`.
//! - `merge` (7.0+: `owningShard`, `min`, `max`, `numChunks`): the range becomes `numChunks`
//!   chunks on its shard, their bounds not logged (not known).
//! - `shardCollection.*`: the collection begins; resharding, `moveCollection`,
//!   `unshardCollection`, a refined key or a drop replaced the layout wholesale: the rebuild
//!   stops there and says so.
//!
//! An entry the rebuilt chunks contradict (its range on another shard) stops the rebuild of its
//! collection at that entry, said as a gap; nothing before it is guessed.

use std::collections::BTreeMap;

use crate::cluster::{Cluster, ServerVersion};
use crate::model::ShardKey;

use super::diary::Diary;
use super::undo::{Chunks, Seg};

/// A chunk count known to within a range (`lo..=hi`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub lo: u64,
    pub hi: u64,
}

impl Count {
    pub const fn exact(n: u64) -> Self {
        Self { lo: n, hi: n }
    }

    pub fn is_exact(self) -> bool {
        self.lo == self.hi
    }

    pub fn contains(self, n: u64) -> bool {
        self.lo <= n && n <= self.hi
    }

    pub(super) fn plus(self, o: Self) -> Self {
        Self {
            lo: self.lo.saturating_add(o.lo),
            hi: self.hi.saturating_add(o.hi),
        }
    }

    pub(super) fn minus(self, o: Self) -> Self {
        Self {
            lo: self.lo.saturating_sub(o.lo),
            hi: self.hi.saturating_sub(o.hi),
        }
    }

    /// `7` or `7–8`.
    pub fn text(self) -> String {
        if self.is_exact() {
            self.lo.to_string()
        } else {
            format!("{}–{}", self.lo, self.hi)
        }
    }
}

/// Where the diary could not be followed, or what it leaves open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    pub time_ms: i64,
    pub what: String,
    pub why: String,
}

/// Each shard's chunk count (shard id → count) just after one entry.
#[derive(Clone, Debug)]
pub struct PastState {
    pub time_ms: i64,
    pub what: String,
    /// The entry's index in [`Diary::entries`].
    pub entry: usize,
    pub counts: BTreeMap<String, Count>,
}

/// One collection's rebuilt past.
#[derive(Clone, Debug)]
pub struct CollectionPast {
    pub ns: String,
    /// The counts now (from the present's chunks).
    pub now: BTreeMap<String, Count>,
    /// After each chunk-changing entry undone, oldest first.
    pub states: Vec<PastState>,
    /// The counts before the oldest entry undone, and its time (`None`: nothing undone).
    pub earliest: Option<(i64, BTreeMap<String, Count>)>,
    /// Where the rebuild stopped before the diary's oldest entry (older states not known).
    pub stopped: Option<Gap>,
    /// Entries that leave something open (a count known to within one) or that the rebuilt
    /// chunks did not match exactly though the rebuild could go on.
    pub notes: Vec<Gap>,
}

/// Every collection's rebuilt past.
#[derive(Clone, Debug, Default)]
pub struct Past {
    pub collections: Vec<CollectionPast>,
    /// Namespaces the changelog names with chunk changes that are not sharded now (their chunks
    /// are not rebuilt: nothing of the present to start from).
    pub not_present: Vec<String>,
}

/// The past of every collection of `present` from `diary`.
pub fn rebuild(present: &Cluster, diary: &Diary) -> Past {
    let mut past = Past::default();
    for c in &present.collections {
        past.collections
            .push(rebuild_collection(present, &c.ns, diary));
    }
    let mut gone: Vec<String> = diary
        .changes()
        .filter(|e| changes_chunks(&e.what) && present.collection(&e.ns).is_none())
        .map(|e| e.ns.clone())
        .collect();
    gone.sort();
    gone.dedup();
    past.not_present = gone;
    past
}

fn changes_chunks(what: &str) -> bool {
    matches!(what, "moveChunk.commit" | "split" | "multi-split" | "merge")
}

/// Whether `what` replaces or begins a collection's layout (the rebuild stops there).
fn layout_boundary(what: &str) -> Option<&'static str> {
    Some(match what {
        "shardCollection.start" | "shardCollection.end" => "the collection was sharded here",
        "reshardCollection.commit" | "reshardCollection.end" => {
            "resharding replaced the chunks here; the layout before is not in the changelog"
        }
        "moveCollection.commit"
        | "moveCollection.end"
        | "unshardCollection.commit"
        | "unshardCollection.end" => {
            "the collection was moved or unsharded here; the layout before is not in the changelog"
        }
        "refineCollectionShardKey.end" => {
            "the shard key was refined here; the bounds before are not in the changelog"
        }
        "dropCollection" | "dropCollection.start" => {
            "the collection was dropped and created again after this"
        }
        _ => return None,
    })
}

fn rebuild_collection(present: &Cluster, ns: &str, diary: &Diary) -> CollectionPast {
    let mut out = CollectionPast {
        ns: ns.to_string(),
        now: BTreeMap::new(),
        states: Vec::new(),
        earliest: None,
        stopped: None,
        notes: Vec::new(),
    };
    let Some(c) = present.collection(ns) else {
        return out;
    };
    let mut chunks = Chunks {
        pattern: &c.pattern,
        map: BTreeMap::new(),
        counts: BTreeMap::new(),
        partial_moves: present.version >= ServerVersion::V6_0,
    };
    for ch in c.table.iter() {
        let shard = present.shard_id(ch.info.shard).to_string();
        *chunks.counts.entry(shard.clone()).or_default() = chunks
            .counts
            .get(&shard)
            .copied()
            .unwrap_or_default()
            .plus(Count::exact(1));
        chunks.map.insert(
            ch.min.clone(),
            Seg {
                max: ch.max.clone(),
                shard,
                chunks: Count::exact(1),
            },
        );
    }
    for s in &present.shards {
        // Removed shards too: they were shards in the past.
        chunks.counts.entry(s.shard.id.clone()).or_default();
    }
    out.now = chunks.counts.clone();
    let mut last_multi: Option<(ShardKey, ShardKey)> = None;
    let mut states = Vec::new();
    for (i, e) in diary.entries.iter().enumerate().rev() {
        if e.ns != ns || e.log != super::Log::Changelog {
            continue;
        }
        let gap = |why: String| Gap {
            time_ms: e.time_ms,
            what: e.what.clone(),
            why,
        };
        if let Some(why) = layout_boundary(&e.what) {
            out.stopped = Some(gap(why.to_string()));
            break;
        }
        if !changes_chunks(&e.what) {
            continue;
        }
        if e.what == "multi-split" {
            let before = e
                .details
                .get_document("before")
                .ok()
                .and_then(|b| chunks.range(b).ok());
            if before.is_some() && before == last_multi {
                continue; // another piece of a split already undone
            }
            last_multi.clone_from(&before);
        } else {
            last_multi = None;
        }
        let after = chunks.counts.clone();
        match chunks.undo(e) {
            Ok(note) => {
                states.push(PastState {
                    time_ms: e.time_ms,
                    what: e.what.clone(),
                    entry: i,
                    counts: after,
                });
                out.earliest = Some((e.time_ms, chunks.counts.clone()));
                if let Some(why) = note {
                    out.notes.push(gap(why));
                }
            }
            Err(why) => {
                out.stopped = Some(gap(why));
                break;
            }
        }
    }
    states.reverse();
    out.states = states;
    out
}
