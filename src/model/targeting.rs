//! Query targeting: which shards a mongos sends a `find` with a given filter to, and how many
//! chunks that touches, worked out from the routing table the way mongos does it
//! (`ChunkManager::getShardIdsForQuery`): the filter becomes bounds on each shard-key field, like
//! index bounds on the shard-key index; the bounds are flattened into shard-key ranges; each range
//! becomes the run of chunks it overlaps, and the owners of those chunks are the targets.
//!
//! Owns: the translation of a query filter into shard-key ranges ([`key_ranges`]) and of ranges
//! into chunks and shards ([`target_ranges`], [`target`]). May not touch: anything outside the
//! model; it reads a routing table and never changes one.
//!
//! # Semantics
//!
//! * **Fields.** A filter path names a shard-key field when it equals the field's (dotted) path.
//!   Equality (`{a: v}`, `{a: {$eq: v}}`) gives the point `v`; `$in` gives several points;
//!   `$gt`/`$gte`/`$lt`/`$lte` give an interval. Several operators on one field, the fields of one
//!   document and the clauses of `$and` intersect. `{a: null}` is the point null, which is also
//!   the key of a document that lacks the field.
//! * **Not constraining.** `{a: /re/}`, `$in` containing a regex, `$ne`, `$nin`, `$not`,
//!   `$exists`, `$regex`, `$elemMatch`, `$type`, `$mod`, `$expr`, `$where`, `$nor`, `$text`, … leave
//!   the field (or the whole filter) unconstrained: they can only widen the target, never miss.
//! * **Arrays.** A shard key never holds an array, so equality to `[x, …]` matches nothing; it is
//!   bounded as MongoDB's index bounds do, by the points `[x, …]` and `x` (`undefined` for `[]`).
//!   On the hashed field an array does not constrain. Range operators with an array operand do
//!   not constrain.
//! * **Embedded documents.** Equality to a plain document (`{a: {b: 1}}`, no `$` keys) is a point
//!   on that document. For a key field *below* the filter path (key `a.b`, filter
//!   `{a: {b: 1}}`, also via `$eq`/`$in`), a document that matches has `a` equal to that value, so
//!   its key field is whatever key extraction finds in it: `1` here, null when the sub-field is
//!   missing or the value is not a document, no constraint when an array is on the way. Ranges on
//!   a parent path, and filters on paths below a key field (`{"a.b.c": 1}` for key `a.b`), do not
//!   constrain.
//! * **Hashed field.** Equality and `$in` points are hashed ([`hash64`](crate::model::hash64),
//!   so a null or missing value hashes null); ranges on a hashed field do not constrain (a
//!   scatter).
//! * **Type bracketing.** A one-sided comparison stays within its operand's canonical type, like
//!   index bounds: numbers run from -Infinity to +Infinity inclusive (NaN only matches
//!   `$gte`/`$lte: NaN`); strings from `""` inclusive to the empty document exclusive (documents
//!   follow strings); documents to the empty array exclusive; BinData to the smallest ObjectId
//!   exclusive; ObjectIds, booleans, dates and timestamps between their smallest and largest
//!   values inclusive. `$gte`/`$lte: null` is the point null, `$gt`/`$lt: null` matches nothing.
//!   Rarer types (regex, code, DBPointer, undefined, MinKey/MaxKey) are bracketed by MinKey and
//!   MaxKey — wider than MongoDB, never narrower.
//! * **`$or`** is the union of its branches: the filter is kept as a disjunction of conjunctions,
//!   so a branch that does not constrain the first key field targets every chunk. An `$or` whose
//!   distribution over the rest of the filter would exceed [`MAX_CONJUNCTS`] conjunctions is
//!   dropped (a wider target).
//! * **Compound keys.** As mongos' `flattenBounds`: fields constrained to one point extend the
//!   bounds; the first field with several intervals (a range, an `$in`, no constraint) gives one
//!   range per interval, and every field after it contributes the start of its first interval
//!   and the end of its last (`[MinKey, MaxKey]` when unconstrained): a second `$in` is not
//!   multiplied out. Inclusivity is ignored, as mongos ignores it: every range is `[min, max]`.
//! * **Chunks.** A range's first chunk is the one holding its lower bound; its last is the one
//!   holding its upper bound, including the chunk that starts exactly at it: mongos'
//!   `getShardIdsForRange` asks `forEachOverlappingChunk(min, max, isMaxInclusive = true)`
//!   (`src/mongo/s/chunk_manager.cpp`), so `{yearID: {$lt: 1876}}` also reaches the chunk starting
//!   at 1876.
//! * **Matching nothing.** A filter whose bounds are empty (`{a: {$in: []}}`,
//!   `{a: {$gt: 5, $lt: 3}}`) still goes to one shard: the owner of the first chunk, as mongos
//!   does (SERVER-4914).
//!
//! Cost: O(ranges × log chunks + chunks touched); the only per-chunk work is setting a bit in a
//! shard bitmap.

use std::cmp::Ordering;

use bson::Document;

use super::key::ShardKey;
use super::pattern::KeyPattern;
use super::routing::RoutingTable;
use super::shard::ShardIdx;

use filter::conjuncts;

mod filter;
mod intervals;
mod ranges;

/// The most conjunctions a filter is expanded into by distributing `$or` over the rest of it.
pub const MAX_CONJUNCTS: usize = 256;

/// How a query is dispatched, named after the explain stage mongos reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// One shard answers (`SINGLE_SHARD`).
    SingleShard,
    /// Several shards answer and mongos merges their results (`SHARD_MERGE`).
    ShardMerge,
}

impl TargetKind {
    /// The explain stage name: `SINGLE_SHARD` or `SHARD_MERGE`.
    pub fn stage(self) -> &'static str {
        match self {
            Self::SingleShard => "SINGLE_SHARD",
            Self::ShardMerge => "SHARD_MERGE",
        }
    }
}

/// The shards a query is sent to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targeting {
    /// The targeted shards, sorted, without repeats; never empty.
    pub shards: Vec<ShardIdx>,
    /// The number of chunks whose range intersects the query's shard-key ranges (at least one).
    pub chunks: usize,
    pub kind: TargetKind,
}

impl Targeting {
    pub fn is_single_shard(&self) -> bool {
        self.kind == TargetKind::SingleShard
    }
}

/// A range of shard-key values, each end inclusive or exclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    pub min: ShardKey,
    pub min_inclusive: bool,
    pub max: ShardKey,
    pub max_inclusive: bool,
}

impl KeyRange {
    /// Whether no key lies in the range.
    pub fn is_empty(&self) -> bool {
        match self.min.cmp(&self.max) {
            Ordering::Less => false,
            Ordering::Equal => !(self.min_inclusive && self.max_inclusive),
            Ordering::Greater => true,
        }
    }
}

/// The shards (and number of chunks) a `find` with `filter` is sent to.
pub fn target(pattern: &KeyPattern, table: &RoutingTable, filter: &Document) -> Targeting {
    target_ranges(table, &key_ranges(pattern, filter))
}

/// The shard-key ranges that hold every document `filter` can match (possibly more), in no
/// particular order; empty when the filter can match nothing.
pub fn key_ranges(pattern: &KeyPattern, filter: &Document) -> Vec<KeyRange> {
    let mut ranges = Vec::new();
    for conjunct in conjuncts(pattern, filter) {
        conjunct.flatten(&mut ranges);
    }
    ranges
}

/// The shards owning the chunks that `ranges` intersect; the first chunk's shard when they
/// intersect none.
pub fn target_ranges(table: &RoutingTable, ranges: &[KeyRange]) -> Targeting {
    let mut spans: Vec<(usize, usize)> = ranges.iter().filter_map(|r| span(table, r)).collect();
    if spans.is_empty() {
        spans.push((0, 0));
    }
    spans.sort_unstable();
    let mut shards = ShardSet::default();
    let mut chunks = 0;
    let mut next = 0; // chunks below `next` are already counted
    for (first, last) in spans {
        let start = first.max(next);
        if start > last {
            continue;
        }
        for k in start..=last {
            shards.insert(table.chunk(k).info.shard);
        }
        chunks += last - start + 1;
        next = last + 1;
    }
    let shards = shards.into_sorted();
    let kind = if shards.len() == 1 {
        TargetKind::SingleShard
    } else {
        TargetKind::ShardMerge
    };
    Targeting {
        shards,
        chunks,
        kind,
    }
}

/// The chunk spans `[first, last]` (inclusive) that `ranges` intersect, sorted, possibly
/// overlapping; empty when they intersect none.
pub fn target_spans(table: &RoutingTable, ranges: &[KeyRange]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = ranges.iter().filter_map(|r| span(table, r)).collect();
    spans.sort_unstable();
    spans
}

/// The first and last chunk (inclusive) a non-empty range intersects.
fn span(table: &RoutingTable, range: &KeyRange) -> Option<(usize, usize)> {
    overlapping(range, |key| table.route(key))
}

/// The first and last of the consecutive pieces (chunks, or `analyzeShardKey`'s ranges) that
/// `range` overlaps as mongos counts them, `route` giving the piece that holds a key: from the
/// piece of `min` to the piece of `max`, that one included even when it starts at `max`;
/// `None` for an empty range.
// 4.4 to 8.0 `src/mongo/s/chunk_manager.cpp` (`getShardIdsForRange`:
// `forEachOverlappingChunk(min, max, true /* isMaxInclusive */, …)`).
pub fn overlapping(range: &KeyRange, route: impl Fn(&ShardKey) -> usize) -> Option<(usize, usize)> {
    if range.is_empty() {
        return None;
    }
    Some((route(&range.min), route(&range.max)))
}

/// A set of shards as a bitmap.
#[derive(Default)]
struct ShardSet(Vec<u64>);

impl ShardSet {
    fn insert(&mut self, shard: ShardIdx) {
        let (word, bit) = (shard.index() / 64, shard.index() % 64);
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << bit;
    }

    fn into_sorted(self) -> Vec<ShardIdx> {
        let mut out = Vec::new();
        for (w, &word) in self.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                out.push(ShardIdx((w * 64) as u32 + bits.trailing_zeros()));
                bits &= bits - 1;
            }
        }
        out
    }
}
