//! Undoing one changelog entry on the chunks rebuilt so far ([`super::rebuild`] says what
//! each entry undoes and what it leaves open): segments of the key space, each on one shard with
//! its chunk count (one chunk, or a count whose bounds inside are not known).

use std::collections::BTreeMap;

use crate::model::{KeyPattern, ShardKey};

use super::diary::Entry;
use super::rebuild::Count;

#[derive(Clone, Debug)]
pub(super) struct Seg {
    pub(super) max: ShardKey,
    pub(super) shard: String,
    pub(super) chunks: Count,
}

pub(super) struct Chunks<'a> {
    pub(super) pattern: &'a KeyPattern,
    pub(super) map: BTreeMap<ShardKey, Seg>,
    pub(super) counts: BTreeMap<String, Count>,
    pub(super) partial_moves: bool,
}

/// What stops a rebuild: the gap's reason.
type Stop = String;

impl Chunks<'_> {
    fn bound(&self, d: &bson::Document, key: &str) -> Result<ShardKey, Stop> {
        let doc = d
            .get_document(key)
            .map_err(|_| format!("the entry has no `{key}` bound"))?;
        self.pattern
            .bound_from_document(doc)
            .map_err(|err| format!("its `{key}` bound: {err}"))
    }

    pub(super) fn range(&self, d: &bson::Document) -> Result<(ShardKey, ShardKey), Stop> {
        Ok((self.bound(d, "min")?, self.bound(d, "max")?))
    }

    pub(super) fn add(&mut self, shard: &str, n: Count) {
        let c = self.counts.entry(shard.to_string()).or_default();
        *c = c.plus(n);
    }

    fn sub(&mut self, shard: &str, n: Count) {
        let c = self.counts.entry(shard.to_string()).or_default();
        *c = c.minus(n);
    }

    /// Undoes one entry; `Ok(Some(note))` when it leaves something open.
    pub(super) fn undo(&mut self, e: &Entry) -> Result<Option<String>, Stop> {
        let d = &e.details;
        let text = |k: &str| {
            d.get_str(k)
                .map(str::to_string)
                .map_err(|_| format!("the entry has no `{k}`"))
        };
        match e.what.as_str() {
            "moveChunk.commit" => {
                let (min, max) = self.range(d)?;
                self.undo_move(&min, &max, &text("from")?, &text("to")?)
            }
            "split" | "multi-split" => {
                let before = d
                    .get_document("before")
                    .map_err(|_| "the entry has no `before` range".to_string())?;
                let (min, max) = self.range(before)?;
                // Before 5.0 the entry does not name the shard: the pieces' own, when one.
                let shard = match text("owningShard") {
                    Ok(s) => s,
                    Err(why) => self.only_shard(&min, &max).ok_or(why)?,
                };
                self.replace(&min, &max, &shard, Count::exact(1))
                    .map(|()| None)
            }
            "merge" => {
                let (min, max) = self.range(d)?;
                let n = super::diary::number(d, "numChunks")
                    .and_then(|n| u64::try_from(n).ok())
                    .ok_or("the merge entry does not give `numChunks`: the chunks before it are not known")?;
                self.replace(&min, &max, &text("owningShard")?, Count::exact(n))
                    .map(|()| None)
            }
            _ => Ok(None),
        }
    }

    /// The one shard of the segments in `[min, max)`, `None` when several or none.
    fn only_shard(&self, min: &ShardKey, max: &ShardKey) -> Option<String> {
        let mut shards = self.map.range(min..max).map(|(_, s)| &s.shard);
        let first = shards.next()?;
        shards.all(|s| s == first).then(|| first.clone())
    }

    /// The segments tiling `[min, max)` exactly, removed, with their counts taken off.
    fn take(&mut self, min: &ShardKey, max: &ShardKey) -> Result<Vec<(ShardKey, Seg)>, Stop> {
        let keys: Vec<ShardKey> = self.map.range(min..max).map(|(k, _)| k.clone()).collect();
        let tiles = keys.first() == Some(min)
            && keys
                .last()
                .and_then(|k| self.map.get(k))
                .is_some_and(|s| &s.max == max);
        if !tiles {
            return Err("the chunks rebuilt so far do not have this range's bounds".to_string());
        }
        let mut out = Vec::new();
        for k in keys {
            if let Some(seg) = self.map.remove(&k) {
                self.sub(&seg.shard, seg.chunks);
                out.push((k, seg));
            }
        }
        Ok(out)
    }

    fn replace(
        &mut self,
        min: &ShardKey,
        max: &ShardKey,
        shard: &str,
        n: Count,
    ) -> Result<(), Stop> {
        let taken = self.take(min, max)?;
        if let Some((_, seg)) = taken.iter().find(|(_, s)| s.shard != shard) {
            // Put them back: the entry contradicts the rebuilt chunks.
            let other = seg.shard.clone();
            for (k, s) in taken {
                self.add(&s.shard, s.chunks);
                self.map.insert(k, s);
            }
            return Err(format!(
                "the rebuilt chunks have part of this range on {other}, the entry says {shard}"
            ));
        }
        self.add(shard, n);
        self.map.insert(
            min.clone(),
            Seg {
                max: max.clone(),
                shard: shard.to_string(),
                chunks: n,
            },
        );
        Ok(())
    }

    fn undo_move(
        &mut self,
        min: &ShardKey,
        max: &ShardKey,
        from: &str,
        to: &str,
    ) -> Result<Option<String>, Stop> {
        let Some((start, seg)) = self.map.range(..=min).next_back() else {
            return Err("the rebuilt chunks do not cover this range".to_string());
        };
        let (start, seg) = (start.clone(), seg.clone());
        if seg.shard != to || &seg.max < max {
            return Err(format!(
                "the rebuilt chunks have this range on {}, the entry says it went to {to}",
                seg.shard
            ));
        }
        // The moved range was one chunk on the recipient just after the commit.
        self.map.remove(&start);
        self.sub(to, seg.chunks);
        let rest = seg.chunks.minus(Count::exact(1));
        let (left, right) = (&start < min, &seg.max > max);
        let share = |both: bool| {
            if both {
                Count {
                    lo: 1,
                    hi: rest.hi.saturating_sub(1).max(1),
                }
            } else {
                rest
            }
        };
        if left {
            let n = share(right);
            self.add(to, n);
            self.map.insert(
                start.clone(),
                Seg {
                    max: min.clone(),
                    shard: to.to_string(),
                    chunks: n,
                },
            );
        }
        if right {
            let n = share(left);
            self.add(to, n);
            self.map.insert(
                max.clone(),
                Seg {
                    max: seg.max.clone(),
                    shard: to.to_string(),
                    chunks: n,
                },
            );
        }
        self.map.insert(
            min.clone(),
            Seg {
                max: max.clone(),
                shard: from.to_string(),
                chunks: Count::exact(1),
            },
        );
        self.add(from, Count::exact(1));
        if !self.partial_moves {
            return Ok(None);
        }
        Ok(self.join_donor_neighbours(min, max, from))
    }

    /// From 6.0: a donor chunk touching the moved range may have been one chunk with it.
    fn join_donor_neighbours(
        &mut self,
        min: &ShardKey,
        max: &ShardKey,
        from: &str,
    ) -> Option<String> {
        let left = self
            .map
            .range(..min)
            .next_back()
            .filter(|(_, s)| &s.max == min && s.shard == from)
            .map(|(k, s)| (k.clone(), s.clone()));
        let right = self.map.get(max).filter(|s| s.shard == from).cloned();
        if left.is_none() && right.is_none() {
            return None;
        }
        let mut lo_start = min.clone();
        let mut hi_end = max.clone();
        let mut n = Count { lo: 0, hi: 1 };
        let mut was = Count::exact(1);
        if let Some((k, s)) = left {
            self.map.remove(&k);
            n = n.plus(s.chunks);
            was = was.plus(s.chunks);
            lo_start = k;
        }
        if let Some(s) = right {
            self.map.remove(max);
            n = n.plus(s.chunks);
            was = was.plus(s.chunks);
            hi_end = s.max;
        }
        self.map.remove(min);
        self.sub(from, was);
        self.add(from, n);
        self.map.insert(
            lo_start,
            Seg {
                max: hi_end,
                shard: from.to_string(),
                chunks: n,
            },
        );
        Some(format!(
            "a chunk of {from} touches the moved range: whether the move took a whole chunk or \
             part of one (moveRange) is not logged, so {from}'s count before it is known to within one"
        ))
    }
}
