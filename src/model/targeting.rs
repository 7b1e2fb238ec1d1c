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
//! * **Hashed field.** Equality and `$in` points are hashed ([`hash64`], so a null or missing
//!   value hashes null); ranges on a hashed field do not constrain (a scatter).
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
//! * **Compound keys.** Points on a prefix of the key are each followed by the next field's
//!   constraint (a cartesian product, up to [`MAX_PREFIXES`] prefixes; beyond that a field's points
//!   are replaced by their hull). The first field with a range — or with no constraint — ends the
//!   product: each of its intervals becomes one range, and the fields after it contribute the hull
//!   of their bounds (`[MinKey, MaxKey]` when unconstrained), as mongos' `flattenBounds` does.
//!   Inclusivity is kept exactly: an exclusive lower bound on a field fills the fields after it
//!   with MaxKey, an exclusive upper bound with MinKey.
//! * **Chunks.** A range's first chunk is the one its lower bound routes to; its last is the one
//!   holding its upper bound, less that chunk when the upper bound is exclusive and is exactly the
//!   chunk's min. (mongos ignores inclusivity here, so it may name one more chunk at a boundary.)
//! * **Matching nothing.** A filter whose bounds are empty (`{a: {$in: []}}`,
//!   `{a: {$gt: 5, $lt: 3}}`) still goes to one shard: the owner of the first chunk, as mongos
//!   does (SERVER-4914).
//!
//! Cost: O(ranges × log chunks + chunks touched); the only per-chunk work is setting a bit in a
//! shard bitmap.

use std::cmp::Ordering;

use bson::{Bson, Document};

use super::extjson::from_bson;
use super::hash::hash64;
use super::key::ShardKey;
use super::pattern::{KeyField, KeyPattern};
use super::routing::RoutingTable;
use super::shard::ShardIdx;
use super::value::KeyValue;

/// The most conjunctions a filter is expanded into by distributing `$or` over the rest of it.
pub const MAX_CONJUNCTS: usize = 256;

/// The most shard-key prefixes one conjunction's points are multiplied out into.
pub const MAX_PREFIXES: usize = 4096;

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
    if range.is_empty() {
        return None;
    }
    let first = table.route(&range.min);
    let mut last = table.route(&range.max);
    if !range.max_inclusive && last > first && *table.chunk(last).min == range.max {
        last -= 1;
    }
    Some((first, last))
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

// ---------------------------------------------------------------------------------------------
// Intervals of one field
// ---------------------------------------------------------------------------------------------

/// One end of an interval.
#[derive(Clone, Debug)]
struct Bound {
    value: KeyValue,
    inclusive: bool,
}

impl Bound {
    fn incl(value: KeyValue) -> Self {
        Self {
            value,
            inclusive: true,
        }
    }

    fn excl(value: KeyValue) -> Self {
        Self {
            value,
            inclusive: false,
        }
    }
}

/// Lower bounds in key order: at one value, inclusive starts first.
fn cmp_lower(a: &Bound, b: &Bound) -> Ordering {
    a.value
        .cmp(&b.value)
        .then_with(|| b.inclusive.cmp(&a.inclusive))
}

/// Upper bounds in key order: at one value, exclusive ends first.
fn cmp_upper(a: &Bound, b: &Bound) -> Ordering {
    a.value
        .cmp(&b.value)
        .then_with(|| a.inclusive.cmp(&b.inclusive))
}

/// A non-empty interval of one field's values.
#[derive(Clone, Debug)]
struct Interval {
    lo: Bound,
    hi: Bound,
}

impl Interval {
    /// The interval, or `None` when it holds no value.
    fn new(lo: Bound, hi: Bound) -> Option<Self> {
        let empty = match lo.value.cmp(&hi.value) {
            Ordering::Less => false,
            Ordering::Equal => !(lo.inclusive && hi.inclusive),
            Ordering::Greater => true,
        };
        (!empty).then_some(Self { lo, hi })
    }

    fn point(value: KeyValue) -> Self {
        Self {
            lo: Bound::incl(value.clone()),
            hi: Bound::incl(value),
        }
    }

    fn everything() -> Self {
        Self {
            lo: Bound::incl(KeyValue::MinKey),
            hi: Bound::incl(KeyValue::MaxKey),
        }
    }

    fn is_point(&self) -> bool {
        self.lo.inclusive && self.hi.inclusive && self.lo.value == self.hi.value
    }

    fn intersect(&self, other: &Self) -> Option<Self> {
        let lo = if cmp_lower(&self.lo, &other.lo).is_ge() {
            &self.lo
        } else {
            &other.lo
        };
        let hi = if cmp_upper(&self.hi, &other.hi).is_le() {
            &self.hi
        } else {
            &other.hi
        };
        Self::new(lo.clone(), hi.clone())
    }
}

/// The values one key field may take: sorted, disjoint intervals (MongoDB's ordered interval
/// list). No interval: the field can take no value, so the conjunction matches nothing.
#[derive(Clone, Debug)]
struct FieldBounds(Vec<Interval>);

impl FieldBounds {
    fn everything() -> Self {
        Self(vec![Interval::everything()])
    }

    fn nothing() -> Self {
        Self(Vec::new())
    }

    fn interval(interval: Option<Interval>) -> Self {
        Self(interval.into_iter().collect())
    }

    fn points(mut values: Vec<KeyValue>) -> Self {
        values.sort_unstable();
        values.dedup();
        Self(values.into_iter().map(Interval::point).collect())
    }

    fn is_everything(&self) -> bool {
        matches!(&self.0[..], [only] if only.lo.value == KeyValue::MinKey
            && only.hi.value == KeyValue::MaxKey
            && only.lo.inclusive
            && only.hi.inclusive)
    }

    fn is_points(&self) -> bool {
        self.0.iter().all(Interval::is_point)
    }

    /// The smallest single interval holding all of them; `None` when there are none.
    fn hull(&self) -> Option<Interval> {
        let (first, last) = (self.0.first()?, self.0.last()?);
        Some(Interval {
            lo: first.lo.clone(),
            hi: last.hi.clone(),
        })
    }

    /// The values in both, by a merge of the two sorted lists.
    fn intersect(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < a.len() && j < b.len() {
            out.extend(a[i].intersect(&b[j]));
            if cmp_upper(&a[i].hi, &b[j].hi).is_le() {
                i += 1;
            } else {
                j += 1;
            }
        }
        Self(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Filter → conjunctions of field bounds
// ---------------------------------------------------------------------------------------------

/// Bounds on every key field (in pattern order) that hold at once.
#[derive(Clone, Debug)]
struct Conjunct(Vec<FieldBounds>);

impl Conjunct {
    fn everything(fields: usize) -> Self {
        Self(vec![FieldBounds::everything(); fields])
    }

    fn matches_nothing(&self) -> bool {
        self.0.iter().any(|f| f.0.is_empty())
    }

    fn intersect(&self, other: &Self) -> Self {
        Self(
            self.0
                .iter()
                .zip(&other.0)
                .map(|(a, b)| a.intersect(b))
                .collect(),
        )
    }
}

/// The filter as a disjunction of conjunctions that can match something (empty: nothing).
fn conjuncts(pattern: &KeyPattern, filter: &Document) -> Vec<Conjunct> {
    let mut dnf = vec![Conjunct::everything(pattern.len())];
    for (name, value) in filter {
        dnf = clause(pattern, dnf, name, value);
    }
    dnf.retain(|c| !c.matches_nothing());
    dnf
}

/// Applies one top-level clause of a filter document to the conjunctions so far.
fn clause(pattern: &KeyPattern, dnf: Vec<Conjunct>, name: &str, value: &Bson) -> Vec<Conjunct> {
    match name {
        "$and" => sub_filters(value).fold(dnf, |acc, sub| and(acc, &conjuncts(pattern, sub))),
        "$or" => {
            let branches: Vec<&Document> = sub_filters(value).collect();
            if branches.is_empty() {
                return dnf;
            }
            let union: Vec<Conjunct> = branches
                .into_iter()
                .flat_map(|branch| conjuncts(pattern, branch))
                .collect();
            and(dnf, &union)
        }
        _ if name.starts_with('$') => dnf,
        _ => constrain(pattern, dnf, name, value),
    }
}

/// The documents of an `$and` / `$or` array (anything else in it is skipped).
fn sub_filters(value: &Bson) -> impl Iterator<Item = &Document> {
    let items = match value {
        Bson::Array(items) => &items[..],
        _ => &[],
    };
    items.iter().filter_map(Bson::as_document)
}

/// Both: every pair intersected. Past [`MAX_CONJUNCTS`] the right side is dropped, which only
/// widens the result.
fn and(left: Vec<Conjunct>, right: &[Conjunct]) -> Vec<Conjunct> {
    if left.len().saturating_mul(right.len()) > MAX_CONJUNCTS {
        return left;
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in &left {
        for r in right {
            let both = l.intersect(r);
            if !both.matches_nothing() {
                out.push(both);
            }
        }
    }
    out
}

/// Narrows every conjunction by a `path: value` clause, for each key field it constrains.
fn constrain(
    pattern: &KeyPattern,
    mut dnf: Vec<Conjunct>,
    path: &str,
    value: &Bson,
) -> Vec<Conjunct> {
    for (i, field) in pattern.fields().iter().enumerate() {
        let bounds = if *field.path == *path {
            field_bounds(field, value)
        } else if let Some(rest) = below(&field.path, path) {
            parent_bounds(field, rest, value)
        } else {
            continue;
        };
        if bounds.is_everything() {
            continue;
        }
        for conjunct in &mut dnf {
            conjunct.0[i] = conjunct.0[i].intersect(&bounds);
        }
    }
    dnf
}

/// The rest of `key_path` below `path` (`a.b.c` below `a` is `b.c`), if `path` is a parent of it.
fn below<'k>(key_path: &'k str, path: &str) -> Option<&'k str> {
    key_path.strip_prefix(path)?.strip_prefix('.')
}

/// An operator document (`{$gt: 1}`) rather than a value to compare with.
fn operators(value: &Bson) -> Option<&Document> {
    match value {
        Bson::Document(doc) if doc.keys().next().is_some_and(|k| k.starts_with('$')) => Some(doc),
        _ => None,
    }
}

/// The bounds a filter value puts on the key field it names.
fn field_bounds(field: &KeyField, value: &Bson) -> FieldBounds {
    if let Some(ops) = operators(value) {
        return ops
            .iter()
            .fold(FieldBounds::everything(), |acc, (op, operand)| {
                acc.intersect(&operator_bounds(field, op, operand))
            });
    }
    match value {
        Bson::RegularExpression(_) => FieldBounds::everything(),
        other => equality(field, std::slice::from_ref(other)),
    }
}

/// The bounds of one operator on a key field.
fn operator_bounds(field: &KeyField, op: &str, operand: &Bson) -> FieldBounds {
    match op {
        "$eq" => equality(field, std::slice::from_ref(operand)),
        "$in" => match operand {
            Bson::Array(items) if !items.iter().any(is_regex) => equality(field, items),
            _ => FieldBounds::everything(),
        },
        "$gt" | "$gte" | "$lt" | "$lte" if !field.hashed => comparison(op, from_bson(operand)),
        _ => FieldBounds::everything(),
    }
}

fn is_regex(value: &Bson) -> bool {
    matches!(value, Bson::RegularExpression(_))
}

/// Points for equality with any of `values` (hashed on the hashed field).
fn equality(field: &KeyField, values: &[Bson]) -> FieldBounds {
    let mut points = Vec::with_capacity(values.len());
    for value in values {
        match value {
            Bson::Array(_) if field.hashed => return FieldBounds::everything(),
            Bson::Array(items) => {
                points.push(from_bson(value));
                points.push(items.first().map_or(KeyValue::Undefined, from_bson));
            }
            other => points.push(from_bson(other)),
        }
    }
    key_points(field, points)
}

/// Points on a key field, hashing them when the field is hashed.
fn key_points(field: &KeyField, values: Vec<KeyValue>) -> FieldBounds {
    if field.hashed {
        FieldBounds::points(values.iter().map(|v| KeyValue::Int64(hash64(v))).collect())
    } else {
        FieldBounds::points(values)
    }
}

/// The bounds that `parent: value` puts on the key field `rest` levels below it: only plain
/// equality (`{a: {b: 1}}`, `$eq`, `$in`) constrains it.
fn parent_bounds(field: &KeyField, rest: &str, value: &Bson) -> FieldBounds {
    let equal_to: &[Bson] = match operators(value) {
        Some(ops) => {
            return ops
                .iter()
                .fold(FieldBounds::everything(), |acc, (op, operand)| {
                    let bounds = match (op.as_str(), operand) {
                        ("$eq", v) => projected(field, rest, std::slice::from_ref(v)),
                        ("$in", Bson::Array(items)) => projected(field, rest, items),
                        _ => FieldBounds::everything(),
                    };
                    acc.intersect(&bounds)
                });
        }
        None => std::slice::from_ref(value),
    };
    projected(field, rest, equal_to)
}

/// Points for the key field `rest` below a parent equal to one of `values`.
fn projected(field: &KeyField, rest: &str, values: &[Bson]) -> FieldBounds {
    let mut points = Vec::with_capacity(values.len());
    for value in values {
        match project(value, rest) {
            Some(v) => points.push(v),
            None => return FieldBounds::everything(),
        }
    }
    key_points(field, points)
}

/// The key value at `rest` inside `value`, as key extraction finds it: missing or below a
/// non-document is null. `None` when it cannot be known (a regex match, an array on the way).
fn project(value: &Bson, rest: &str) -> Option<KeyValue> {
    let mut current = value;
    for segment in rest.split('.') {
        match current {
            Bson::Document(doc) => match doc.get(segment) {
                Some(inner) => current = inner,
                None => return Some(KeyValue::Null),
            },
            Bson::Array(_) | Bson::RegularExpression(_) => return None,
            _ => return Some(KeyValue::Null),
        }
    }
    match current {
        Bson::Array(_) => None,
        other => Some(from_bson(other)),
    }
}

/// The interval of `$gt`/`$gte`/`$lt`/`$lte` with `operand`, bracketed to its type.
fn comparison(op: &str, operand: KeyValue) -> FieldBounds {
    let inclusive = op.ends_with('e');
    if matches!(operand, KeyValue::Array(_)) {
        return FieldBounds::everything();
    }
    if operand == KeyValue::Null || is_nan(&operand) {
        // Only equal values compare: a point for $gte/$lte, nothing for $gt/$lt.
        return if inclusive {
            FieldBounds::points(vec![operand])
        } else {
            FieldBounds::nothing()
        };
    }
    let at = Bound {
        value: operand,
        inclusive,
    };
    let interval = if op.starts_with("$gt") {
        let top = type_ceiling(&at.value);
        Interval::new(at, top)
    } else {
        let bottom = type_floor(&at.value);
        Interval::new(bottom, at)
    };
    FieldBounds::interval(interval)
}

fn is_nan(value: &KeyValue) -> bool {
    value.is_number() && *value == KeyValue::Double(f64::NAN)
}

/// The lowest value of `value`'s canonical type (MinKey for the rare types).
fn type_floor(value: &KeyValue) -> Bound {
    match value.canonical_type() {
        10 => Bound::incl(KeyValue::Double(f64::NEG_INFINITY)),
        15 => Bound::incl(KeyValue::string("")),
        20 => Bound::incl(KeyValue::Document(Box::default())),
        30 => Bound::incl(KeyValue::Binary(Box::new(super::value::Binary {
            subtype: 0,
            bytes: Box::default(),
        }))),
        35 => Bound::incl(KeyValue::ObjectId([0; 12])),
        40 => Bound::incl(KeyValue::Bool(false)),
        45 => Bound::incl(KeyValue::DateTime(i64::MIN)),
        47 => Bound::incl(KeyValue::Timestamp {
            time: 0,
            increment: 0,
        }),
        _ => Bound::incl(KeyValue::MinKey),
    }
}

/// The highest value of `value`'s canonical type, or the first of the next type exclusive
/// (MaxKey for the rare types).
fn type_ceiling(value: &KeyValue) -> Bound {
    match value.canonical_type() {
        10 => Bound::incl(KeyValue::Double(f64::INFINITY)),
        15 => Bound::excl(KeyValue::Document(Box::default())),
        20 => Bound::excl(KeyValue::Array(Box::default())),
        30 => Bound::excl(KeyValue::ObjectId([0; 12])),
        35 => Bound::incl(KeyValue::ObjectId([0xFF; 12])),
        40 => Bound::incl(KeyValue::Bool(true)),
        45 => Bound::incl(KeyValue::DateTime(i64::MAX)),
        47 => Bound::incl(KeyValue::Timestamp {
            time: u32::MAX,
            increment: u32::MAX,
        }),
        _ => Bound::incl(KeyValue::MaxKey),
    }
}

// ---------------------------------------------------------------------------------------------
// Conjunction → shard-key ranges
// ---------------------------------------------------------------------------------------------

impl Conjunct {
    /// Appends the shard-key ranges of this conjunction (see the module docs, "Compound keys").
    fn flatten(&self, out: &mut Vec<KeyRange>) {
        let fields = &self.0;
        let mut prefixes: Vec<Vec<KeyValue>> = vec![Vec::with_capacity(fields.len())];
        let mut i = 0;
        while i < fields.len() && fields[i].is_points() && fits(prefixes.len(), fields[i].0.len()) {
            prefixes = extend(&prefixes, &fields[i]);
            i += 1;
        }
        if i == fields.len() {
            out.extend(prefixes.into_iter().filter_map(point_range));
            return;
        }
        let intervals = if fits(prefixes.len(), fields[i].0.len()) {
            fields[i].0.clone()
        } else {
            fields[i].hull().into_iter().collect()
        };
        let tail: Vec<Interval> = fields[i + 1..]
            .iter()
            .filter_map(FieldBounds::hull)
            .collect();
        for prefix in &prefixes {
            for interval in &intervals {
                out.extend(compound_range(prefix, interval, &tail));
            }
        }
    }
}

/// Whether `prefixes` prefixes times `n` values stays within [`MAX_PREFIXES`] (one prefix
/// never multiplies, so a single long `$in` stays exact).
fn fits(prefixes: usize, n: usize) -> bool {
    prefixes == 1 || prefixes.saturating_mul(n) <= MAX_PREFIXES
}

/// Every prefix followed by every point of `field`.
fn extend(prefixes: &[Vec<KeyValue>], field: &FieldBounds) -> Vec<Vec<KeyValue>> {
    let mut out = Vec::with_capacity(prefixes.len() * field.0.len());
    for prefix in prefixes {
        for point in &field.0 {
            let mut key = prefix.clone();
            key.push(point.lo.value.clone());
            out.push(key);
        }
    }
    out
}

/// The range holding exactly one key.
fn point_range(values: Vec<KeyValue>) -> Option<KeyRange> {
    let key = ShardKey::from_values(values)?;
    Some(KeyRange {
        min: key.clone(),
        min_inclusive: true,
        max: key,
        max_inclusive: true,
    })
}

/// The range of keys that start with `prefix`, continue with a value in `interval` and then
/// with values in the hulls `tail`. Its lower bound is exact: a key can only equal it while every
/// lower end met is inclusive, and once one is exclusive the key is above it whatever follows, so
/// the rest is filled with MaxKey (dually, upper bounds are filled with MinKey).
fn compound_range(prefix: &[KeyValue], interval: &Interval, tail: &[Interval]) -> Option<KeyRange> {
    let fields = prefix.len() + 1 + tail.len();
    let ends = || std::iter::once(interval).chain(tail);
    let (min, min_inclusive) = bound_key(prefix, ends().map(|iv| &iv.lo), fields, KeyValue::MaxKey);
    let (max, max_inclusive) = bound_key(prefix, ends().map(|iv| &iv.hi), fields, KeyValue::MinKey);
    Some(KeyRange {
        min: ShardKey::from_values(min)?,
        min_inclusive,
        max: ShardKey::from_values(max)?,
        max_inclusive,
    })
}

/// `prefix` followed by the `ends` values up to and including the first exclusive one, then
/// `fill` up to `fields` values; inclusive when no end was exclusive.
fn bound_key<'a>(
    prefix: &[KeyValue],
    ends: impl Iterator<Item = &'a Bound>,
    fields: usize,
    fill: KeyValue,
) -> (Vec<KeyValue>, bool) {
    let mut values = prefix.to_vec();
    for end in ends {
        values.push(end.value.clone());
        if !end.inclusive {
            values.resize(fields, fill);
            return (values, false);
        }
    }
    (values, true)
}
