//! The ranges of one collection waiting for the range deleter, in the order their migrations
//! committed, kept so that a tick and a migration's start do not read them all: the due ones are
//! taken from the front when the due times never decrease along the queue (one cleanup delay,
//! commits in time order: the usual case), and a shard with no range waiting is known at once.
//!
//! Owns: the queue and its per-shard counts. May not touch: when a range is due or what a
//! deletion does (`orphans.rs`, the simulator).

use std::collections::VecDeque;

use super::RangeDeletion;
use crate::model::ShardIdx;

/// The ranges waiting for the range deleter, in commit order.
#[derive(Clone, Debug)]
pub struct RangeDeletions {
    list: VecDeque<RangeDeletion>,
    /// `due_ms` never decreases along `list`: the due ranges are a prefix.
    by_due: bool,
    /// Ranges waiting per shard (by shard index).
    per_shard: Vec<u32>,
}

impl Default for RangeDeletions {
    fn default() -> Self {
        Self {
            list: VecDeque::new(),
            by_due: true,
            per_shard: Vec::new(),
        }
    }
}

/// Equal when the same ranges wait in the same order.
impl PartialEq for RangeDeletions {
    fn eq(&self, other: &Self) -> bool {
        self.list == other.list
    }
}

impl Eq for RangeDeletions {}

impl FromIterator<RangeDeletion> for RangeDeletions {
    fn from_iter<I: IntoIterator<Item = RangeDeletion>>(iter: I) -> Self {
        let mut q = Self::default();
        for r in iter {
            q.push(r);
        }
        q
    }
}

impl RangeDeletions {
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The ranges in commit order.
    pub fn iter(&self) -> impl Iterator<Item = &RangeDeletion> + '_ {
        self.list.iter()
    }

    /// The ranges waiting on `shard`, in commit order (none read when it has none).
    pub fn on(&self, shard: ShardIdx) -> impl Iterator<Item = &RangeDeletion> + '_ {
        let any = self.per_shard.get(shard.index()).is_some_and(|&n| n > 0);
        self.list
            .iter()
            .take(if any { self.list.len() } else { 0 })
            .filter(move |r| r.shard == shard)
    }

    /// A range committed after every one already waiting.
    pub fn push(&mut self, r: RangeDeletion) {
        self.by_due &= self.list.back().is_none_or(|b| b.due_ms <= r.due_ms);
        self.count(r.shard, true);
        self.list.push_back(r);
    }

    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Keeps the ranges `keep` says to keep, in their order.
    pub fn retain(&mut self, mut keep: impl FnMut(&RangeDeletion) -> bool) {
        let list = std::mem::take(&mut self.list);
        *self = list.into_iter().filter(|r| keep(r)).collect();
    }

    /// The ranges due at `now_ms` (`due_ms <= now_ms`), taken out in commit order.
    pub fn take_due(&mut self, now_ms: u64) -> Vec<RangeDeletion> {
        let due = |r: &RangeDeletion| r.due_ms <= now_ms;
        if self.by_due {
            let n = self.list.iter().take_while(|r| due(r)).count();
            let out: Vec<RangeDeletion> = self.list.drain(..n).collect();
            for r in &out {
                self.count(r.shard, false);
            }
            return out;
        }
        if !self.list.iter().any(due) {
            return Vec::new();
        }
        let (out, rest): (Vec<RangeDeletion>, Vec<RangeDeletion>) =
            std::mem::take(&mut self.list).into_iter().partition(due);
        *self = rest.into_iter().collect();
        out
    }

    fn count(&mut self, shard: ShardIdx, add: bool) {
        let i = shard.index();
        if self.per_shard.len() <= i {
            self.per_shard.resize(i + 1, 0);
        }
        if add {
            self.per_shard[i] += 1;
        } else {
            self.per_shard[i] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::{KeyValue, ShardKey};
    use proptest::prelude::*;

    fn range(shard: u32, at: i64, due_ms: u64) -> RangeDeletion {
        RangeDeletion {
            shard: ShardIdx(shard),
            min: ShardKey::single(KeyValue::Int64(at)),
            max: ShardKey::single(KeyValue::Int64(at + 1)),
            docs: 1,
            bytes: 1,
            due_ms,
        }
    }

    /// The plain list the queue replaced: a partition of the whole list.
    fn take_due_by_partition(list: &mut Vec<RangeDeletion>, now_ms: u64) -> Vec<RangeDeletion> {
        let (due, rest) = std::mem::take(list)
            .into_iter()
            .partition(|r| r.due_ms <= now_ms);
        *list = rest;
        due
    }

    #[derive(Clone, Debug)]
    enum Op {
        Push(u32, u64),
        TakeDue(u64),
        Retain(u32),
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u32..4, 0u64..100).prop_map(|(s, d)| Op::Push(s, d)),
            3 => (0u64..100).prop_map(Op::TakeDue),
            1 => (0u32..4).prop_map(Op::Retain),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        /// The queue takes out the same ranges, in the same order, as a partition of a plain
        /// list, whatever order the due times come in, and reads a shard's ranges as a filter.
        #[test]
        fn the_queue_agrees_with_a_plain_list(ops in prop::collection::vec(op(), 0..80), nudge in 0u64..3) {
            let (mut q, mut list) = (RangeDeletions::default(), Vec::new());
            let mut clock = 0u64;
            for (k, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Push(s, d) => {
                        // Mostly increasing due times, sometimes not.
                        clock += d % 7;
                        let due = if d % 11 == 0 { clock.saturating_sub(d) } else { clock + nudge };
                        let r = range(s, k as i64, due);
                        q.push(r.clone());
                        list.push(r);
                    }
                    Op::TakeDue(t) => {
                        let now = clock.saturating_sub(t % 20);
                        prop_assert_eq!(q.take_due(now), take_due_by_partition(&mut list, now));
                    }
                    Op::Retain(s) => {
                        q.retain(|r| r.shard.0 != s);
                        list.retain(|r| r.shard.0 != s);
                    }
                    Op::Clear => {
                        q.clear();
                        list.clear();
                    }
                }
                prop_assert!(q.iter().eq(list.iter()));
                prop_assert_eq!(q.len(), list.len());
                for s in 0..5 {
                    let mine: Vec<_> = list.iter().filter(|r| r.shard.0 == s).collect();
                    prop_assert_eq!(q.on(ShardIdx(s)).collect::<Vec<_>>(), mine);
                }
            }
        }
    }

    #[test]
    fn due_ranges_out_of_order_are_all_taken() {
        let mut q: RangeDeletions = [range(0, 0, 50), range(1, 1, 10), range(0, 2, 60)]
            .into_iter()
            .collect();
        let due = q.take_due(20);
        assert_eq!(due, vec![range(1, 1, 10)]);
        assert_eq!(q.len(), 2);
        assert_eq!(q.on(ShardIdx(1)).count(), 0);
        assert_eq!(q.take_due(60).len(), 2);
        assert!(q.is_empty());
    }
}
