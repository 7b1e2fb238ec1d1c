#![allow(clippy::unwrap_used)]
//! The routing table under random sequences of split / merge / move / moveRange / statistics /
//! jumbo changes, checked against a plain reference model after every step; plus chunk-version
//! rules, zones, key patterns and hashed pre-split points.

use std::ops::Range;

use proptest::prelude::*;
use shardtop::model::decimal;
use shardtop::model::{
    ChunkInfo, ChunkStats, ChunkVersion, KeyPattern, KeyValue, RoutingError, RoutingTable,
    ShardIdx, ShardKey, ShardTotals, ZoneError, ZoneRanges, hashed_split_points,
};

const SHARDS: u32 = 4;

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Kind {
    Int64,
    Str,
    Compound,
    /// One field holding numbers of every type (equal values of different types) and strings.
    Mixed,
}

impl Kind {
    fn pattern(self) -> KeyPattern {
        let json = match self {
            Kind::Compound => r#"{"a": 1, "b": 1}"#,
            _ => r#"{"k": 1}"#,
        };
        KeyPattern::parse_json(json).unwrap()
    }

    fn key(self) -> BoxedStrategy<ShardKey> {
        let bound = prop::sample::select(vec![KeyValue::MinKey, KeyValue::MaxKey]);
        match self {
            Kind::Int64 => prop_oneof![
                8 => (-40i64..40).prop_map(KeyValue::Int64),
                1 => any::<i64>().prop_map(KeyValue::Int64),
                1 => prop::sample::select(vec![i64::MIN, i64::MAX]).prop_map(KeyValue::Int64),
                1 => bound,
            ]
            .prop_map(ShardKey::single)
            .boxed(),
            Kind::Str => prop_oneof![
                4 => "[a-c]{0,3}".prop_map(KeyValue::string),
                // Shared 15-byte order prefixes: routing must fall back to full comparisons.
                4 => "aaaaaaaaaaaaaaa[a-c]{0,2}".prop_map(KeyValue::string),
                1 => "\\PC{0,20}".prop_map(KeyValue::string),
                1 => bound,
            ]
            .prop_map(ShardKey::single)
            .boxed(),
            Kind::Compound => {
                let first = prop_oneof![
                    6 => (-3i64..3).prop_map(KeyValue::Int64),
                    2 => (-3i32..3).prop_map(KeyValue::Int32),
                    2 => (-6i32..6).prop_map(|h| KeyValue::Double(f64::from(h) / 2.0)),
                    1 => bound.clone(),
                ];
                let second = prop_oneof![
                    4 => "[a-c]{0,2}".prop_map(KeyValue::string),
                    2 => (-3i64..3).prop_map(KeyValue::Int64),
                    1 => bound,
                ];
                (first, second)
                    .prop_map(|(a, b)| ShardKey::from_values(vec![a, b]).unwrap())
                    .boxed()
            }
            Kind::Mixed => prop_oneof![
                2 => (-10i32..10).prop_map(KeyValue::Int32),
                2 => (-10i64..10).prop_map(KeyValue::Int64),
                2 => (-20i32..20).prop_map(|h| KeyValue::Double(f64::from(h) / 2.0)),
                2 => (any::<bool>(), 0u128..200, -1i32..=1)
                    .prop_map(|(n, c, e)| KeyValue::Decimal(decimal::encode(n, c, e))),
                1 => Just(KeyValue::Double(f64::NAN)),
                2 => "[a-c]{0,2}".prop_map(KeyValue::string),
                1 => bound,
            ]
            .prop_map(ShardKey::single)
            .boxed(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Operations and the reference model
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    /// Split the chunk chosen by `sel` (or the one `points[0]` routes to) at `points`.
    Split {
        sel: Option<usize>,
        points: Vec<ShardKey>,
        sort: bool,
        bad_pieces: bool,
        shares: Vec<u8>,
    },
    /// Merge `len` chunks from `sel`; with `run`, only as far as the first chunk's shard goes.
    Merge {
        sel: usize,
        len: usize,
        run: bool,
    },
    Move {
        sel: usize,
        to: u32,
        now: u64,
    },
    MoveRange {
        at: ShardKey,
        upto: Option<ShardKey>,
        upto_max: bool,
        share: u8,
        overshoot: bool,
        to: u32,
    },
    /// A routed write.
    Write {
        key: ShardKey,
        docs: u64,
        bytes: u64,
    },
    Delete {
        sel: usize,
        docs: u64,
        bytes: u64,
    },
    Jumbo {
        sel: usize,
        jumbo: bool,
    },
}

fn op(kind: Kind) -> BoxedStrategy<Op> {
    let key = kind.key();
    prop_oneof![
        6 => (
            prop::option::weighted(0.3, any::<usize>()),
            prop::collection::vec(key.clone(), 1..6),
            prop::bool::weighted(0.8),
            prop::bool::weighted(0.1),
            prop::collection::vec(any::<u8>(), 6),
        )
            .prop_map(|(sel, points, sort, bad_pieces, shares)| Op::Split {
                sel,
                points,
                sort,
                bad_pieces,
                shares
            }),
        2 => (any::<usize>(), 0usize..5, prop::bool::weighted(0.7))
            .prop_map(|(sel, len, run)| Op::Merge { sel, len, run }),
        2 => (any::<usize>(), 0..SHARDS, 0u64..1000).prop_map(|(sel, to, now)| Op::Move {
            sel,
            to,
            now
        }),
        2 => (
            key.clone(),
            prop::option::weighted(0.8, key.clone()),
            prop::bool::weighted(0.1),
            any::<u8>(),
            prop::bool::weighted(0.1),
            0..SHARDS,
        )
            .prop_map(|(at, upto, upto_max, share, overshoot, to)| Op::MoveRange {
                at,
                upto,
                upto_max,
                share,
                overshoot,
                to
            }),
        3 => (key, 0u64..50, 0u64..5000).prop_map(|(key, docs, bytes)| Op::Write {
            key,
            docs,
            bytes
        }),
        1 => (any::<usize>(), 0u64..60, 0u64..6000).prop_map(|(sel, docs, bytes)| Op::Delete {
            sel,
            docs,
            bytes
        }),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(sel, jumbo)| Op::Jumbo { sel, jumbo }),
    ]
    .boxed()
}

/// The reference: chunks as plain records, operated on in the most direct way.
#[derive(Clone, Debug, PartialEq)]
struct RefChunk {
    min: ShardKey,
    shard: ShardIdx,
    stats: ChunkStats,
    jumbo: bool,
}

struct Harness {
    table: RoutingTable,
    reference: Vec<RefChunk>,
    global_max: ShardKey,
    docs: u64,
}

/// Everything observable about a table, to check that a refused change changed nothing.
fn snapshot(
    t: &RoutingTable,
) -> (
    Vec<(ShardKey, ShardKey, ChunkInfo)>,
    ChunkVersion,
    Vec<String>,
) {
    let chunks = t
        .iter()
        .map(|c| (c.min.clone(), c.max.clone(), *c.info))
        .collect();
    let totals = (0..SHARDS)
        .map(|s| format!("{:?}", t.shard_totals(ShardIdx(s))))
        .collect();
    (chunks, t.version(), totals)
}

/// `n` pieces of `total`, in proportion to `shares`, adding up exactly.
fn divide(total: ChunkStats, shares: &[u8], n: usize) -> Vec<ChunkStats> {
    let weights: Vec<u64> = (0..n)
        .map(|k| u64::from(shares.get(k).copied().unwrap_or(1)) + 1)
        .collect();
    let sum: u64 = weights.iter().sum();
    let part = |v: u64, w: u64| v * w / sum;
    let mut pieces: Vec<ChunkStats> = weights
        .iter()
        .map(|&w| {
            ChunkStats::new(
                part(total.docs, w),
                part(total.bytes, w),
                part(total.writes, w),
            )
        })
        .collect();
    let mut used = ChunkStats::ZERO;
    for p in &pieces[..n - 1] {
        used.add(*p);
    }
    let mut last = total;
    last.sub(used);
    pieces[n - 1] = last;
    pieces
}

fn le_all(a: ChunkStats, b: ChunkStats) -> bool {
    a.docs <= b.docs && a.bytes <= b.bytes && a.writes <= b.writes
}

impl Harness {
    fn new(kind: Kind) -> Self {
        let pattern = kind.pattern();
        let table = RoutingTable::single(pattern.global_min(), pattern.global_max(), ShardIdx(0));
        Self {
            reference: vec![RefChunk {
                min: pattern.global_min(),
                shard: ShardIdx(0),
                stats: ChunkStats::ZERO,
                jumbo: false,
            }],
            table,
            global_max: pattern.global_max(),
            docs: 0,
        }
    }

    fn ref_max(&self, i: usize) -> &ShardKey {
        self.reference
            .get(i + 1)
            .map_or(&self.global_max, |c| &c.min)
    }

    /// Linear scan: the last chunk whose lower bound is ≤ key.
    fn scan(&self, key: &ShardKey) -> usize {
        self.reference
            .iter()
            .rposition(|c| c.min <= *key)
            .unwrap_or(0)
    }

    #[allow(clippy::too_many_lines)] // one arm per operation, each beside its reference
    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let before = snapshot(&self.table);
        let n = self.reference.len();
        let (result, expect_ok, changes_version) = match op {
            Op::Split {
                sel,
                points,
                sort,
                bad_pieces,
                shares,
            } => {
                let i = sel.map_or_else(|| self.scan(&points[0]), |s| s % n);
                let mut points = points.clone();
                if *sort {
                    points.sort();
                    points.dedup();
                }
                let (min, max) = (self.reference[i].min.clone(), self.ref_max(i).clone());
                let inside = points.iter().all(|p| min < *p && *p < max);
                let increasing = points.windows(2).all(|w| w[0] < w[1]);
                let mut pieces = divide(self.reference[i].stats, shares, points.len() + 1);
                if *bad_pieces {
                    pieces[0].docs += 1;
                }
                let result = self.table.split(i, &points, &pieces);
                if points.len() == 1 && !inside {
                    prop_assert!(
                        matches!(result, Err(RoutingError::InvalidSplitPoint(_))),
                        "{result:?}"
                    );
                }
                let ok = inside && increasing && !bad_pieces;
                if ok && result.is_ok() {
                    let old = self.reference.remove(i);
                    let mins = std::iter::once(old.min).chain(points);
                    for (k, (min, stats)) in mins.zip(pieces).enumerate() {
                        self.reference.insert(
                            i + k,
                            RefChunk {
                                min,
                                shard: old.shard,
                                stats,
                                jumbo: false,
                            },
                        );
                    }
                }
                (result, ok, true)
            }
            Op::Merge { sel, len, run } => {
                let start = sel % n;
                let mut end = (start + len).min(n + 1);
                if *run {
                    let shard = self.reference[start].shard;
                    end = start
                        + self.reference[start..]
                            .iter()
                            .take(*len)
                            .take_while(|c| c.shard == shard)
                            .count();
                }
                let range: Range<usize> = start..end;
                let ok = range.len() >= 2
                    && range.end <= n
                    && self.reference[range.clone()]
                        .iter()
                        .all(|c| c.shard == self.reference[start].shard);
                let result = self.table.merge(range.clone());
                if ok && result.is_ok() {
                    let mut stats = ChunkStats::ZERO;
                    for c in &self.reference[range.clone()] {
                        stats.add(c.stats);
                    }
                    let first = self.reference[start].clone();
                    self.reference.splice(
                        range,
                        [RefChunk {
                            stats,
                            jumbo: false,
                            ..first
                        }],
                    );
                }
                (result, ok, true)
            }
            Op::Move { sel, to, now } => {
                let i = sel % n;
                let to = ShardIdx(*to);
                let ok = self.reference[i].shard != to;
                let result = self.table.move_chunk(i, to, *now);
                if ok && result.is_ok() {
                    self.reference[i].shard = to;
                    prop_assert_eq!(self.table.chunk(i).info.since, *now);
                }
                (result, ok, true)
            }
            Op::MoveRange {
                at,
                upto,
                upto_max,
                share,
                overshoot,
                to,
            } => {
                let i = self.scan(at);
                let to = ShardIdx(*to);
                let max = self.ref_max(i).clone();
                let upto = if *upto_max {
                    Some(max.clone())
                } else {
                    upto.clone()
                };
                let stats = self.reference[i].stats;
                let mut moved = divide(stats, &[*share, 255 - *share], 2)[0];
                if *overshoot {
                    moved.docs += 1;
                }
                let whole = upto.as_ref().is_none_or(|u| *u == max);
                let from = self.reference[i].shard;
                let result = self.table.move_range(i, upto.as_ref(), moved, to, 7);
                let ok = if whole {
                    from != to
                } else {
                    let u = upto.clone().unwrap();
                    from != to && le_all(moved, stats) && self.reference[i].min < u && u < max
                };
                if ok && result.is_ok() {
                    if whole {
                        self.reference[i].shard = to;
                    } else {
                        let mut rest = stats;
                        rest.sub(moved);
                        self.reference[i] = RefChunk {
                            min: self.reference[i].min.clone(),
                            shard: to,
                            stats: moved,
                            jumbo: false,
                        };
                        self.reference.insert(
                            i + 1,
                            RefChunk {
                                min: upto.unwrap(),
                                shard: from,
                                stats: rest,
                                jumbo: false,
                            },
                        );
                    }
                }
                (result, ok, true)
            }
            Op::Write { key, docs, bytes } => {
                let i = self.table.route(key);
                prop_assert_eq!(i, self.scan(key));
                let delta = ChunkStats::new(*docs, *bytes, 1);
                self.table.add_stats(i, delta);
                self.reference[i].stats.add(delta);
                self.docs += docs;
                (Ok(()), true, false)
            }
            Op::Delete { sel, docs, bytes } => {
                let i = sel % n;
                let have = self.reference[i].stats;
                let delta = ChunkStats::new((*docs).min(have.docs), (*bytes).min(have.bytes), 0);
                self.table
                    .remove_stats(i, ChunkStats::new(*docs, *bytes, 0));
                self.reference[i].stats.sub(delta);
                self.docs -= delta.docs;
                (Ok(()), true, false)
            }
            Op::Jumbo { sel, jumbo } => {
                let i = sel % n;
                self.table.set_jumbo(i, *jumbo);
                self.reference[i].jumbo = *jumbo;
                (Ok(()), true, false)
            }
        };
        prop_assert_eq!(
            result.is_ok(),
            expect_ok,
            "{:?} gave {:?} on a table of {} chunks",
            op,
            result,
            n
        );
        if result.is_ok() {
            if changes_version {
                prop_assert!(self.table.version() > before.1, "version did not rise");
            } else {
                prop_assert_eq!(self.table.version(), before.1);
            }
        } else {
            prop_assert!(
                snapshot(&self.table) == before,
                "a refused {op:?} changed the table"
            );
        }
        self.check()
    }

    fn check(&self) -> Result<(), TestCaseError> {
        let t = &self.table;
        if let Err(e) = t.check_invariants() {
            return Err(TestCaseError::fail(format!("invariants: {e}")));
        }
        // The same layout as the reference.
        prop_assert_eq!(t.len(), self.reference.len());
        for (c, r) in t.iter().zip(&self.reference) {
            prop_assert_eq!(c.min, &r.min);
            prop_assert_eq!(c.info.shard, r.shard);
            prop_assert_eq!(c.info.stats, r.stats);
            prop_assert_eq!(c.info.jumbo, r.jumbo);
            prop_assert!(c.min < c.max);
        }
        prop_assert_eq!(t.chunk(t.len() - 1).max, &self.global_max);
        prop_assert_eq!(t.global_max(), &self.global_max);
        // Totals per shard equal sums over its chunks; the shard version is its highest chunk's.
        let mut all_docs = 0;
        let mut all_chunks = 0;
        for s in 0..SHARDS {
            let shard = ShardIdx(s);
            let mine: Vec<_> = t.iter().filter(|c| c.info.shard == shard).collect();
            let totals = t.shard_totals(shard);
            let mut stats = ChunkStats::ZERO;
            for c in &mine {
                stats.add(c.info.stats);
            }
            prop_assert_eq!(totals.chunks, mine.len() as u64);
            prop_assert_eq!(totals.stats, stats);
            prop_assert_eq!(
                totals.jumbo,
                mine.iter().filter(|c| c.info.jumbo).count() as u64
            );
            let highest = mine
                .iter()
                .map(|c| c.info.version)
                .max()
                .unwrap_or_default();
            prop_assert_eq!(totals.version, highest);
            all_docs += totals.stats.docs;
            all_chunks += totals.chunks;
        }
        prop_assert_eq!(all_chunks, t.len() as u64);
        // Each shard's first chunk (kept up to date across moves) is a scan's, and so is the
        // next one after any position.
        for s in 0..SHARDS {
            let shard = ShardIdx(s);
            let scan = |from: usize| {
                (from..self.reference.len()).find(|&k| self.reference[k].shard == shard)
            };
            prop_assert_eq!(t.first_on(shard), scan(0), "first chunk of shard {}", s);
            for from in [1, t.len() / 2, t.len() - 1, t.len()] {
                prop_assert_eq!(t.next_on(shard, from), scan(from));
            }
        }
        // Documents are conserved by splits, merges and moves.
        prop_assert_eq!(all_docs, self.docs);
        prop_assert_eq!(t.iter().map(|c| c.info.stats.docs).sum::<u64>(), self.docs);
        // The collection version is the highest chunk version.
        prop_assert_eq!(t.iter().map(|c| c.info.version).max(), Some(t.version()));
        // Every lower bound is found and routes to its own chunk.
        for c in t.iter() {
            prop_assert_eq!(t.route(c.min), c.index);
            prop_assert_eq!(t.find_by_min(c.min), Some(c.index));
        }
        Ok(())
    }

    fn check_routes(&self, probes: &[ShardKey]) -> Result<(), TestCaseError> {
        let t = &self.table;
        for k in probes.iter().chain(t.iter().map(|c| c.max)) {
            let i = t.route(k);
            prop_assert_eq!(i, self.scan(k), "route({:?})", k);
            let c = t.chunk(i);
            if *k < self.global_max {
                prop_assert!(
                    c.min <= k && k < c.max,
                    "{k:?} routed to [{:?}, {:?})",
                    c.min,
                    c.max
                );
            }
            if let Some(j) = t.find_by_min(k) {
                prop_assert_eq!(t.chunk(j).min, k);
            } else {
                prop_assert!(t.iter().all(|c| c.min != k));
            }
        }
        Ok(())
    }
}

fn run(kind: Kind, ops: &[Op], probes: &[ShardKey]) -> Result<(), TestCaseError> {
    let mut h = Harness::new(kind);
    h.check()?;
    for op in ops {
        h.apply(op)?;
        h.check_routes(probes)?;
    }
    Ok(())
}

fn case(kind: Kind) -> impl Strategy<Value = (Vec<Op>, Vec<ShardKey>)> {
    (
        prop::collection::vec(op(kind), 1..60),
        prop::collection::vec(kind.key(), 0..24),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_ops_on_int64_keys((ops, probes) in case(Kind::Int64)) {
        run(Kind::Int64, &ops, &probes)?;
    }

    #[test]
    fn random_ops_on_string_keys((ops, probes) in case(Kind::Str)) {
        run(Kind::Str, &ops, &probes)?;
    }

    #[test]
    fn random_ops_on_compound_keys((ops, probes) in case(Kind::Compound)) {
        run(Kind::Compound, &ops, &probes)?;
    }

    #[test]
    fn random_ops_on_mixed_number_keys((ops, probes) in case(Kind::Mixed)) {
        run(Kind::Mixed, &ops, &probes)?;
    }

    /// A table built in one go from sorted bounds routes like a linear scan.
    #[test]
    fn from_chunks_routes_like_a_scan(
        mut bounds in prop::collection::vec(Kind::Str.key(), 0..200),
        probes in prop::collection::vec(Kind::Str.key(), 0..50),
    ) {
        let pattern = Kind::Str.pattern();
        let min = pattern.global_min();
        let max = pattern.global_max();
        bounds.retain(|b| min < *b && *b < max);
        bounds.sort();
        bounds.dedup();
        let chunks: Vec<_> = std::iter::once(min)
            .chain(bounds.iter().cloned())
            .enumerate()
            .map(|(i, b)| (b, ChunkInfo::new(ShardIdx(i as u32 % 3), ChunkVersion::new(1, i as u32))))
            .collect();
        let t = RoutingTable::from_chunks(chunks, max).unwrap();
        prop_assert!(t.check_invariants().is_ok());
        prop_assert_eq!(t.len(), bounds.len() + 1);
        for k in probes.iter().chain(&bounds) {
            let expected = t.iter().filter(|c| c.min <= k).last().map_or(0, |c| c.index);
            prop_assert_eq!(t.route(k), expected);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Hundreds of splits and moves at random keys: larger tables, every step checked.
    #[test]
    fn many_splits_and_moves(
        (kind, keys) in prop::sample::select(vec![Kind::Int64, Kind::Str, Kind::Compound, Kind::Mixed])
            .prop_flat_map(|kind| (Just(kind), prop::collection::vec(kind.key(), 600)))
    ) {
        let mut h = Harness::new(kind);
        for (n, k) in keys[..400].iter().enumerate() {
            let op = if n % 4 == 3 {
                Op::Move { sel: n * 7919, to: (n % 3) as u32 + 1, now: n as u64 }
            } else {
                Op::Split {
                    sel: None,
                    points: vec![k.clone()],
                    sort: true,
                    bad_pieces: false,
                    shares: vec![],
                }
            };
            h.apply(&op)?;
        }
        h.check_routes(&keys[400..])?;
    }
}

/// Keys for large tables: random ObjectIds, strings that tie on the whole 128-bit order prefix
/// (15 shared bytes) or on its high half only (7 shared bytes), and numbers of several types.
fn wide_key() -> BoxedStrategy<KeyValue> {
    prop_oneof![
        any::<[u8; 12]>().prop_map(KeyValue::ObjectId),
        "aaaaaaaaaaaaaaa[a-z]{0,3}".prop_map(KeyValue::string),
        "aaaaaaa[a-z]{1,8}".prop_map(KeyValue::string),
        "[a-z]{1,6}".prop_map(KeyValue::string),
        any::<i64>().prop_map(KeyValue::Int64),
        (-1000i64..1000).prop_map(KeyValue::Int64),
        (-2000i32..2000).prop_map(|h| KeyValue::Double(f64::from(h) / 2.0)),
    ]
    .boxed()
}

/// Builds a table on `bounds` and checks routing against a binary search over the sorted bounds
/// with full comparisons, then again after splits, moves and merges in the middle of it.
fn check_large_table(
    pattern: &KeyPattern,
    mut bounds: Vec<ShardKey>,
    probes: &[ShardKey],
) -> Result<(), TestCaseError> {
    let (min, max) = (pattern.global_min(), pattern.global_max());
    bounds.retain(|b| min < *b && *b < max);
    bounds.sort();
    bounds.dedup();
    let chunks: Vec<_> = std::iter::once(min)
        .chain(bounds.iter().cloned())
        .enumerate()
        .map(|(i, b)| {
            let info = ChunkInfo::new(ShardIdx(i as u32 % 7), ChunkVersion::new(1, i as u32));
            (b, info)
        })
        .collect();
    let mut t = RoutingTable::from_chunks(chunks, max).unwrap();
    let check = |t: &RoutingTable, bounds: &[ShardKey]| -> Result<(), TestCaseError> {
        if let Err(e) = t.check_invariants() {
            return Err(TestCaseError::fail(e));
        }
        prop_assert_eq!(t.len(), bounds.len() + 1);
        for k in probes.iter().chain(bounds) {
            // Chunk 0 starts at the global min; chunk i > 0 at bounds[i - 1].
            prop_assert_eq!(
                t.route(k),
                bounds.partition_point(|b| b <= k),
                "route({:?})",
                k
            );
        }
        for (i, b) in bounds.iter().enumerate() {
            prop_assert_eq!(t.find_by_min(b), Some(i + 1));
        }
        Ok(())
    };
    check(&t, &bounds)?;
    // Splits at probes, wherever they land.
    for k in probes.iter().take(40) {
        let i = t.route(k);
        if t.chunk(i).min < k && k < t.chunk(i).max {
            t.split(i, std::slice::from_ref(k), &[ChunkStats::ZERO; 2])
                .unwrap();
            bounds.insert(i, k.clone());
        }
    }
    check(&t, &bounds)?;
    // Merges of neighbours, after moving them together.
    for j in 0..40 {
        if t.len() < 3 {
            break;
        }
        let i = (j * 7919) % (t.len() - 1);
        let shard = t.chunk(i).info.shard;
        if t.chunk(i + 1).info.shard != shard {
            t.move_chunk(i + 1, shard, 0).unwrap();
        }
        t.merge(i..i + 2).unwrap();
        bounds.remove(i);
    }
    check(&t, &bounds)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Thousands of chunks: any search structure over the bounds is exercised across many blocks,
    /// with ties on whole prefixes and on their high halves.
    #[test]
    fn large_tables_route_like_a_search(
        bounds in prop::collection::vec(wide_key().prop_map(ShardKey::single), 1000..5000),
        probes in prop::collection::vec(wide_key().prop_map(ShardKey::single), 0..400),
    ) {
        check_large_table(&Kind::Int64.pattern(), bounds, &probes)?;
    }

    #[test]
    fn large_compound_tables_route_like_a_search(
        bounds in prop::collection::vec((-3i64..3, wide_key()), 1000..4000),
        probes in prop::collection::vec((-3i64..3, wide_key()), 0..400),
    ) {
        let key = |(a, b): (i64, KeyValue)| ShardKey::from_values(vec![KeyValue::Int64(a), b]).unwrap();
        let bounds = bounds.into_iter().map(key).collect();
        let probes: Vec<_> = probes.into_iter().map(key).collect();
        check_large_table(&Kind::Compound.pattern(), bounds, &probes)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests
// ---------------------------------------------------------------------------------------------

fn int(x: i64) -> ShardKey {
    ShardKey::single(KeyValue::Int64(x))
}

fn int_table() -> RoutingTable {
    let p = Kind::Int64.pattern();
    RoutingTable::single(p.global_min(), p.global_max(), ShardIdx(0))
}

fn zeros(n: usize) -> Vec<ChunkStats> {
    vec![ChunkStats::ZERO; n]
}

#[test]
fn split_must_be_strictly_inside_the_chunk() {
    let mut t = int_table();
    // At the global bounds.
    for bound in [
        ShardKey::single(KeyValue::MinKey),
        ShardKey::single(KeyValue::MaxKey),
    ] {
        assert!(matches!(
            t.split(0, &[bound], &zeros(2)),
            Err(RoutingError::InvalidSplitPoint(_))
        ));
    }
    t.split(0, &[int(10), int(20)], &zeros(3)).unwrap();
    // Chunk 1 is [10, 20): its bounds and points outside it are refused.
    for p in [10, 20, 5, 25, i64::MIN, i64::MAX] {
        assert!(
            matches!(
                t.split(1, &[int(p)], &zeros(2)),
                Err(RoutingError::InvalidSplitPoint(_))
            ),
            "split at {p}"
        );
    }
    // 10.0 and NumberInt(10) are the bound too.
    assert!(matches!(
        t.split(1, &[ShardKey::single(KeyValue::Double(10.0))], &zeros(2)),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    assert!(matches!(
        t.split(1, &[ShardKey::single(KeyValue::Int32(20))], &zeros(2)),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    // Order, count and statistics.
    assert!(matches!(
        t.split(1, &[], &zeros(1)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15), int(12)], &zeros(3)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15), int(15)], &zeros(3)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15)], &zeros(3)),
        Err(RoutingError::BadSplit(_))
    ));
    assert!(matches!(
        t.split(1, &[int(15)], &[ChunkStats::new(1, 0, 0), ChunkStats::ZERO]),
        Err(RoutingError::BadSplit(_))
    ));
    assert_eq!(t.len(), 3);
    // Strictly inside works, also as a double between integers.
    t.split(1, &[ShardKey::single(KeyValue::Double(10.5))], &zeros(2))
        .unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t.route(&int(10)), 1);
    assert_eq!(t.route(&int(11)), 2);
    t.check_invariants().unwrap();
}

#[test]
fn merge_rules() {
    let mut t = int_table();
    t.split(0, &[int(10), int(20), int(30)], &zeros(4)).unwrap();
    t.move_chunk(2, ShardIdx(1), 0).unwrap();
    // Across shards.
    assert!(matches!(t.merge(1..3), Err(RoutingError::BadMerge(_))));
    assert!(matches!(t.merge(0..4), Err(RoutingError::BadMerge(_))));
    // Fewer than two, or out of range.
    assert!(matches!(t.merge(0..1), Err(RoutingError::BadMerge(_))));
    assert!(matches!(t.merge(3..5), Err(RoutingError::BadMerge(_))));
    let v = t.version();
    t.merge(0..2).unwrap();
    assert_eq!(t.len(), 3);
    assert_eq!(t.chunk(0).info.version, v.next_minor());
    assert_eq!(t.version(), v.next_minor());
    assert_eq!(t.chunk(0).max, &int(20));
    t.check_invariants().unwrap();
}

#[test]
fn split_versions_are_successive_minors_in_key_order() {
    let mut t = int_table();
    assert_eq!(t.version(), ChunkVersion::new(1, 0));
    assert_eq!(t.chunk(0).info.version, ChunkVersion::new(1, 0));
    t.split(0, &[int(0), int(10)], &zeros(3)).unwrap();
    let versions: Vec<_> = t.iter().map(|c| c.info.version).collect();
    assert_eq!(
        versions,
        [
            ChunkVersion::new(1, 1),
            ChunkVersion::new(1, 2),
            ChunkVersion::new(1, 3)
        ]
    );
    assert_eq!(t.version(), ChunkVersion::new(1, 3));
    // Splitting a later chunk continues from the collection version.
    t.split(0, &[int(-5)], &zeros(2)).unwrap();
    let versions: Vec<_> = t.iter().map(|c| c.info.version).collect();
    assert_eq!(
        versions,
        [
            ChunkVersion::new(1, 4),
            ChunkVersion::new(1, 5),
            ChunkVersion::new(1, 2),
            ChunkVersion::new(1, 3)
        ]
    );
    assert_eq!(t.shard_totals(ShardIdx(0)).version, ChunkVersion::new(1, 5));
    t.check_invariants().unwrap();
}

#[test]
fn move_versions_and_control_chunk() {
    let mut t = int_table();
    t.split(0, &[int(0), int(10)], &zeros(3)).unwrap(); // (1,1) (1,2) (1,3)
    t.move_chunk(1, ShardIdx(1), 42).unwrap();
    assert_eq!(t.chunk(1).info.shard, ShardIdx(1));
    assert_eq!(t.chunk(1).info.version, ChunkVersion::new(2, 0));
    assert_eq!(t.chunk(1).info.since, 42);
    // The control chunk: another chunk left on the donor, next to the moved one.
    let donor: Vec<_> = t
        .iter()
        .filter(|c| c.info.shard == ShardIdx(0))
        .map(|c| c.info.version)
        .collect();
    assert!(donor.contains(&ChunkVersion::new(2, 1)), "{donor:?}");
    assert_eq!(t.version(), ChunkVersion::new(2, 1));
    assert_eq!(t.shard_totals(ShardIdx(0)).version, ChunkVersion::new(2, 1));
    assert_eq!(t.shard_totals(ShardIdx(1)).version, ChunkVersion::new(2, 0));
    assert_eq!(t.shard_totals(ShardIdx(1)).chunks, 1);
    // Moving to the owner is refused.
    assert!(matches!(
        t.move_chunk(1, ShardIdx(1), 0),
        Err(RoutingError::BadMove(_))
    ));
    // The donor's last chunk leaves: its shard version drops to (0,0), no control chunk.
    t.move_chunk(1, ShardIdx(2), 50).unwrap();
    assert_eq!(t.chunk(1).info.version, ChunkVersion::new(3, 0));
    assert_eq!(t.version(), ChunkVersion::new(3, 0));
    let emptied = t.shard_totals(ShardIdx(1));
    assert_eq!(emptied.chunks, 0);
    assert_eq!(emptied.version, ChunkVersion::new(0, 0));
    assert_eq!(t.shard_totals(ShardIdx(9)).version, ChunkVersion::new(0, 0));
    t.check_invariants().unwrap();
}

#[test]
fn move_range_splits_and_moves() {
    let mut t = int_table();
    t.split(0, &[int(0), int(100)], &zeros(3)).unwrap(); // (1,1) (1,2) (1,3)
    t.add_stats(1, ChunkStats::new(10, 1000, 10));
    // More than the chunk holds.
    assert!(matches!(
        t.move_range(1, Some(&int(50)), ChunkStats::new(11, 0, 0), ShardIdx(1), 0),
        Err(RoutingError::BadMove(_))
    ));
    // Outside the chunk.
    assert!(matches!(
        t.move_range(1, Some(&int(150)), ChunkStats::ZERO, ShardIdx(1), 0),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    assert!(matches!(
        t.move_range(1, Some(&int(0)), ChunkStats::ZERO, ShardIdx(1), 0),
        Err(RoutingError::InvalidSplitPoint(_))
    ));
    // To its own shard.
    assert!(matches!(
        t.move_range(1, Some(&int(50)), ChunkStats::ZERO, ShardIdx(0), 0),
        Err(RoutingError::BadMove(_))
    ));
    assert_eq!(t.len(), 3);
    t.move_range(
        1,
        Some(&int(50)),
        ChunkStats::new(4, 400, 4),
        ShardIdx(1),
        9,
    )
    .unwrap();
    assert_eq!(t.len(), 4);
    let moved = t.chunk(1);
    assert_eq!((moved.min, moved.max), (&int(0), &int(50)));
    assert_eq!(moved.info.shard, ShardIdx(1));
    assert_eq!(moved.info.stats, ChunkStats::new(4, 400, 4));
    assert_eq!(moved.info.version, ChunkVersion::new(2, 0));
    let left = t.chunk(2);
    assert_eq!((left.min, left.max), (&int(50), &int(100)));
    assert_eq!(left.info.shard, ShardIdx(0));
    assert_eq!(left.info.stats, ChunkStats::new(6, 600, 6));
    assert_eq!(left.info.version, ChunkVersion::new(2, 1));
    // 8.0's commitChunkMigration: the donor's control chunk takes the next minor of the new major.
    let control = t.chunk(0);
    assert_eq!(control.info.shard, ShardIdx(0));
    assert_eq!(control.info.version, ChunkVersion::new(2, 2));
    assert_eq!(t.version(), ChunkVersion::new(2, 2));
    // The whole chunk (upto = its max) is a plain move.
    t.move_range(
        3,
        Some(&ShardKey::single(KeyValue::MaxKey)),
        ChunkStats::ZERO,
        ShardIdx(2),
        0,
    )
    .unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t.chunk(3).info.shard, ShardIdx(2));
    assert_eq!(t.chunk(3).info.version, ChunkVersion::new(3, 0));
    t.check_invariants().unwrap();
}

#[test]
fn from_chunks_validates_the_layout() {
    let p = Kind::Int64.pattern();
    let info = |m| ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, m));
    assert!(matches!(
        RoutingTable::from_chunks(vec![], p.global_max()),
        Err(RoutingError::BadLayout(_))
    ));
    assert!(matches!(
        RoutingTable::from_chunks(
            vec![
                (p.global_min(), info(0)),
                (int(5), info(1)),
                (int(5), info(2))
            ],
            p.global_max()
        ),
        Err(RoutingError::BadLayout(_))
    ));
    assert!(matches!(
        RoutingTable::from_chunks(
            vec![
                (p.global_min(), info(0)),
                (int(5), info(1)),
                (int(3), info(2))
            ],
            p.global_max()
        ),
        Err(RoutingError::BadLayout(_))
    ));
    assert!(matches!(
        RoutingTable::from_chunks(vec![(p.global_min(), info(0))], p.global_min()),
        Err(RoutingError::BadLayout(_))
    ));
    let t = RoutingTable::from_chunks(
        vec![(p.global_min(), info(0)), (int(5), info(1))],
        p.global_max(),
    )
    .unwrap();
    assert_eq!(t.version(), ChunkVersion::new(1, 1));
    assert_eq!(t.route(&int(4)), 0);
    assert_eq!(t.route(&int(5)), 1);
    assert_eq!(t.route(&ShardKey::single(KeyValue::Double(4.9))), 0);
    assert_eq!(t.route(&ShardKey::single(KeyValue::Null)), 0);
    assert_eq!(t.route(&ShardKey::single(KeyValue::string(""))), 1);
    assert_eq!(t.find_by_min(&int(5)), Some(1));
    assert_eq!(
        t.find_by_min(&ShardKey::single(KeyValue::Int32(5))),
        Some(1)
    );
    assert_eq!(t.find_by_min(&int(6)), None);
    t.check_invariants().unwrap();
}

#[test]
fn statistics_and_jumbo_totals() {
    let mut t = int_table();
    t.split(0, &[int(0)], &zeros(2)).unwrap();
    t.move_chunk(1, ShardIdx(1), 0).unwrap();
    t.add_stats(0, ChunkStats::new(5, 50, 1));
    t.add_stats(1, ChunkStats::new(7, 70, 1));
    t.remove_stats(1, ChunkStats::new(100, 10, 9));
    assert_eq!(t.chunk(1).info.stats, ChunkStats::new(0, 60, 1));
    t.set_jumbo(0, true);
    t.set_jumbo(0, true);
    assert_eq!(t.shard_totals(ShardIdx(0)).jumbo, 1);
    assert_eq!(t.shard_totals(ShardIdx(0)).stats, ChunkStats::new(5, 50, 1));
    assert_eq!(t.shard_totals(ShardIdx(1)).stats, ChunkStats::new(0, 60, 1));
    // A move keeps statistics and the jumbo flag with the chunk.
    t.move_chunk(0, ShardIdx(1), 0).unwrap();
    assert_eq!(t.shard_totals(ShardIdx(0)), ShardTotals::default());
    assert_eq!(t.shard_totals(ShardIdx(1)).jumbo, 1);
    assert_eq!(
        t.shard_totals(ShardIdx(1)).stats,
        ChunkStats::new(5, 110, 2)
    );
    // A merge clears jumbo.
    t.merge(0..2).unwrap();
    assert_eq!(t.shard_totals(ShardIdx(1)).jumbo, 0);
    assert!(!t.chunk(0).info.jumbo);
    t.check_invariants().unwrap();
}

// --- Zones ---------------------------------------------------------------------------------------

fn zones() -> ZoneRanges {
    let mut z = ZoneRanges::new();
    z.add(int(0), int(10), "A").unwrap();
    z.add(int(20), int(30), "B").unwrap();
    z
}

#[test]
fn zone_ranges_may_not_overlap() {
    let mut z = zones();
    for (lo, hi) in [
        (0, 10),
        (5, 15),
        (-5, 5),
        (2, 8),
        (-5, 35),
        (9, 21),
        (15, 25),
        (29, 40),
    ] {
        assert!(
            matches!(z.add(int(lo), int(hi), "C"), Err(ZoneError::Overlap { .. })),
            "[{lo}, {hi})"
        );
    }
    assert_eq!(z.add(int(5), int(5), "C"), Err(ZoneError::EmptyRange));
    assert_eq!(z.add(int(6), int(5), "C"), Err(ZoneError::EmptyRange));
    assert_eq!(z.len(), 2);
    // Touching ranges are fine, of any zone.
    z.add(int(10), int(20), "A").unwrap();
    z.add(int(-10), int(0), "C").unwrap();
    z.add(int(30), int(31), "B").unwrap();
    assert_eq!(z.len(), 5);
    let mins: Vec<_> = z.iter().map(|r| r.min.clone()).collect();
    assert_eq!(mins, [int(-10), int(0), int(10), int(20), int(30)]);
}

#[test]
fn zone_removal_needs_an_exact_match() {
    let mut z = zones();
    assert_eq!(z.remove(&int(0), &int(5)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.remove(&int(1), &int(10)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.remove(&int(0), &int(30)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.remove(&int(10), &int(20)), Err(ZoneError::NoExactMatch));
    assert_eq!(z.len(), 2);
    let r = z.remove(&int(0), &int(10)).unwrap();
    assert_eq!(r.zone, "A");
    assert_eq!(z.len(), 1);
    assert_eq!(z.remove(&int(0), &int(10)), Err(ZoneError::NoExactMatch));
    // NumberInt(20) equals NumberLong(20): the same bound.
    z.remove(&ShardKey::single(KeyValue::Int32(20)), &int(30))
        .unwrap();
    assert!(z.is_empty());
}

#[test]
fn chunks_are_in_a_zone_only_when_wholly_inside() {
    let z = zones();
    assert_eq!(z.zone_of_chunk(&int(2), &int(8)), Some("A"));
    assert_eq!(z.zone_of_chunk(&int(0), &int(10)), Some("A"));
    assert_eq!(z.zone_of_chunk(&int(20), &int(30)), Some("B"));
    assert_eq!(z.zone_of_chunk(&int(5), &int(15)), None);
    assert_eq!(z.zone_of_chunk(&int(-5), &int(5)), None);
    assert_eq!(z.zone_of_chunk(&int(0), &int(30)), None);
    assert_eq!(z.zone_of_chunk(&int(10), &int(20)), None);
    assert_eq!(z.zone_of_chunk(&int(9), &int(21)), None);
    let p = Kind::Int64.pattern();
    assert_eq!(z.zone_of_chunk(&p.global_min(), &p.global_max()), None);
    // Keys: half-open ranges.
    assert_eq!(z.range_of_key(&int(0)).unwrap().zone, "A");
    assert_eq!(z.range_of_key(&int(9)).unwrap().zone, "A");
    assert!(z.range_of_key(&int(10)).is_none());
    assert!(z.range_of_key(&int(-1)).is_none());
    assert_eq!(z.range_of_key(&int(29)).unwrap().zone, "B");
    assert!(z.range_of_key(&int(30)).is_none());
    // Where a chunk must be split to respect zones.
    let p = Kind::Int64.pattern();
    assert_eq!(
        z.boundaries_inside(&p.global_min(), &p.global_max()),
        [int(0), int(10), int(20), int(30)]
    );
    assert_eq!(z.boundaries_inside(&int(0), &int(20)), [int(10)]);
    assert_eq!(z.boundaries_inside(&int(5), &int(25)), [int(10), int(20)]);
    assert!(z.boundaries_inside(&int(0), &int(10)).is_empty());
    let mut touching = zones();
    touching.add(int(10), int(20), "C").unwrap();
    assert_eq!(
        touching.boundaries_inside(&int(-1), &int(31)),
        [int(0), int(10), int(20), int(30)]
    );
}

proptest! {
    /// Zone ranges never overlap, whatever is added; key lookups agree with a scan.
    #[test]
    fn zones_against_a_scan(
        adds in prop::collection::vec((-30i64..30, 0i64..8, 0u8..3), 0..30),
        keys in prop::collection::vec(-35i64..35, 0..30),
    ) {
        let mut z = ZoneRanges::new();
        let mut accepted: Vec<(i64, i64, String)> = Vec::new();
        for (lo, len, zone) in adds {
            let hi = lo + len;
            let name = format!("z{zone}");
            let overlaps = accepted.iter().any(|(a, b, _)| lo < *b && *a < hi);
            let result = z.add(int(lo), int(hi), name.clone());
            prop_assert_eq!(result.is_ok(), len > 0 && !overlaps, "[{}, {})", lo, hi);
            if result.is_ok() {
                accepted.push((lo, hi, name));
            }
        }
        prop_assert_eq!(z.len(), accepted.len());
        for k in keys {
            let expected = accepted.iter().find(|(a, b, _)| *a <= k && k < *b);
            let got = z.range_of_key(&int(k));
            prop_assert_eq!(got.map(|r| r.zone.clone()), expected.map(|e| e.2.clone()));
            for hi in k + 1..k + 5 {
                let inside = accepted
                    .iter()
                    .find(|(a, b, _)| *a <= k && hi <= *b)
                    .map(|e| e.2.as_str());
                prop_assert_eq!(z.zone_of_chunk(&int(k), &int(hi)), inside);
            }
        }
    }
}

// --- Key patterns ----------------------------------------------------------------------------------

#[test]
fn key_pattern_validation() {
    for bad in [
        "{}",
        r#"{"a": -1}"#,
        r#"{"a": 2}"#,
        r#"{"a": 0}"#,
        r#"{"a": "text"}"#,
        r#"{"a": "2dsphere"}"#,
        r#"{"a": true}"#,
        r#"{"a": "hashed", "b": "hashed"}"#,
        r#"{"$a": 1}"#,
        r#"{"a.$b": 1}"#,
        r#"{"": 1}"#,
        r#"{"a..b": 1}"#,
        r#"{"a.": 1}"#,
        "[1]",
        "1",
        "{not json",
    ] {
        assert!(
            KeyPattern::parse_json(bad).is_err(),
            "{bad} should be refused"
        );
    }
    let err = KeyPattern::parse_json("{}").unwrap_err();
    assert!(err.to_string().contains("empty"), "{err}");
    let err = KeyPattern::parse_json(r#"{"a": -1}"#).unwrap_err();
    assert!(err.to_string().contains("'a'"), "{err}");

    for good in [
        r#"{"a": 1}"#,
        r#"{"a": 1.0}"#,
        r#"{"a": {"$numberLong": "1"}}"#,
        r#"{"a": "hashed"}"#,
        r#"{"a": 1, "b": "hashed"}"#,
        r#"{"a.b.c": 1, "d": 1}"#,
        r#"{"_id": 1}"#,
    ] {
        KeyPattern::parse_json(good).unwrap();
    }
    let p = KeyPattern::parse_json(r#"{"a": 1, "b": "hashed"}"#).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p.hashed_field(), Some(1));
    assert!(!p.fields()[0].hashed);
    assert_eq!(&*p.fields()[1].path, "b");
    assert_eq!(p.to_document(), bson::doc! {"a": 1, "b": "hashed"});
    assert_eq!(KeyPattern::parse(&p.to_document()).unwrap(), p);
}

#[test]
fn extract_follows_dotted_paths() {
    let p = KeyPattern::parse_json(r#"{"a.b": 1, "c": 1}"#).unwrap();
    let k = p
        .extract(&bson::doc! {"c": "x", "a": {"b": 5, "z": 1}, "other": [1, 2]})
        .unwrap();
    assert_eq!(k.len(), 2);
    assert_eq!(k.get(0).unwrap(), &KeyValue::Int32(5));
    assert_eq!(k.get(1).unwrap(), &KeyValue::string("x"));
    // Missing at any depth, or a scalar where a document is expected: null.
    for doc in [
        bson::doc! {"c": "x"},
        bson::doc! {"c": "x", "a": {"y": 1}},
        bson::doc! {"c": "x", "a": 7},
        bson::doc! {"c": "x", "a": null},
    ] {
        let k = p.extract(&doc).unwrap();
        assert_eq!(k.get(0).unwrap(), &KeyValue::Null, "{doc}");
        assert!(matches!(k.get(0), Some(KeyValue::Null)));
    }
    // A document as a key value is kept whole.
    let q = KeyPattern::parse_json(r#"{"a": 1}"#).unwrap();
    let k = q.extract(&bson::doc! {"a": {"b": 1}}).unwrap();
    assert!(matches!(k.get(0), Some(KeyValue::Document(_))));
    // Bounds round trip through documents.
    let bound = p.bound_to_document(&p.extract(&bson::doc! {"a": {"b": 5}, "c": 1}).unwrap());
    assert_eq!(bound, bson::doc! {"a.b": 5, "c": 1});
    let back = p.bound_from_document(&bound).unwrap();
    assert_eq!(
        back,
        p.key_of(vec![KeyValue::Int32(5), KeyValue::Int32(1)])
            .unwrap()
    );
    assert!(
        p.bound_from_document(&bson::doc! {"c": 1, "a.b": 5})
            .is_err()
    );
    assert!(p.bound_from_document(&bson::doc! {"a.b": 5}).is_err());
}

#[test]
fn extract_refuses_arrays() {
    let p = KeyPattern::parse_json(r#"{"a.b": 1}"#).unwrap();
    for doc in [
        bson::doc! {"a": [1, 2]},
        bson::doc! {"a": {"b": [1]}},
        bson::doc! {"a": {"b": []}},
    ] {
        let err = p.extract(&doc).unwrap_err();
        assert!(err.to_string().contains("array"), "{doc}: {err}");
    }
    let hashed = KeyPattern::parse_json(r#"{"x": "hashed"}"#).unwrap();
    let err = hashed.extract(&bson::doc! {"x": [1]}).unwrap_err();
    assert!(err.to_string().contains("array"), "{err}");
}

#[test]
fn hashed_fields_are_hashed_and_bounds_are_canonical_json() {
    let p = KeyPattern::parse_json(r#"{"u": "hashed"}"#).unwrap();
    let k = p.key_of(vec![KeyValue::string("abc")]).unwrap();
    assert_eq!(
        k.get(0).unwrap(),
        &KeyValue::Int64(8_478_485_326_885_698_097)
    );
    assert_eq!(
        p.bound_to_json(&k),
        serde_json::json!({"u": {"$numberLong": "8478485326885698097"}})
    );
    assert_eq!(
        p.bound_to_json(&p.global_min()),
        serde_json::json!({"u": {"$minKey": 1}})
    );
    assert_eq!(
        p.bound_to_json(&p.global_max()),
        serde_json::json!({"u": {"$maxKey": 1}})
    );
    assert!(p.key_of(vec![]).is_err());
    assert!(p.key_of(vec![KeyValue::Null, KeyValue::Null]).is_err());
    let c = KeyPattern::parse_json(r#"{"a": 1, "b": 1}"#).unwrap();
    assert_eq!(c.global_min().len(), 2);
    assert!(c.global_min().values().all(|v| *v == KeyValue::MinKey));
    assert!(c.global_max().values().all(|v| *v == KeyValue::MaxKey));
}

// --- Hashed pre-split ---------------------------------------------------------------------------

#[test]
fn hashed_split_points_match_mongodb() {
    assert_eq!(
        hashed_split_points(6),
        [
            -6_148_914_691_236_517_204,
            -3_074_457_345_618_258_602,
            0,
            3_074_457_345_618_258_602,
            6_148_914_691_236_517_204
        ]
    );
    assert_eq!(
        hashed_split_points(3),
        [-3_074_457_345_618_258_602, 3_074_457_345_618_258_602]
    );
    assert_eq!(
        hashed_split_points(4),
        [-4_611_686_018_427_387_902, 0, 4_611_686_018_427_387_902]
    );
    assert_eq!(
        hashed_split_points(8),
        [
            -6_917_529_027_641_081_850,
            -4_611_686_018_427_387_900,
            -2_305_843_009_213_693_950,
            0,
            2_305_843_009_213_693_950,
            4_611_686_018_427_387_900,
            6_917_529_027_641_081_850
        ]
    );
    assert_eq!(hashed_split_points(2), [0]);
    assert!(hashed_split_points(1).is_empty());
    assert!(hashed_split_points(0).is_empty());
}

proptest! {
    #[test]
    fn hashed_split_points_are_sorted_and_symmetric(n in 2u32..5000) {
        let points = hashed_split_points(n);
        prop_assert_eq!(points.len(), n as usize - 1);
        prop_assert!(points.windows(2).all(|w| w[0] < w[1]));
        let mut negated: Vec<i64> = points.iter().map(|p| -p).collect();
        negated.reverse();
        prop_assert_eq!(&negated, &points);
        prop_assert_eq!(points.contains(&0), n % 2 == 0);
        // They make a valid table.
        let p = KeyPattern::parse_json(r#"{"h": "hashed"}"#).unwrap();
        let chunks: Vec<_> = std::iter::once(p.global_min())
            .chain(points.iter().map(|&x| ShardKey::single(KeyValue::Int64(x))))
            .enumerate()
            .map(|(i, b)| (b, ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, i as u32))))
            .collect();
        let t = RoutingTable::from_chunks(chunks, p.global_max()).unwrap();
        prop_assert!(t.check_invariants().is_ok());
    }
}

/// A table of `n` chunks at 0, 100, 200, … (the first at MinKey) on shards `i % 3`, versions
/// (1, i).
fn hundreds(n: usize) -> RoutingTable {
    let p = Kind::Int64.pattern();
    let chunks = (0..n)
        .map(|i| {
            let min = if i == 0 {
                p.global_min()
            } else {
                int(i as i64 * 100)
            };
            let info = ChunkInfo::new(ShardIdx((i % 3) as u32), ChunkVersion::new(1, i as u32));
            (min, info)
        })
        .collect();
    RoutingTable::from_chunks(chunks, p.global_max()).unwrap()
}

proptest! {
    /// Replacing ranges with new chunks (a live source's refresh) gives the table a naive
    /// rebuild gives, with its invariants.
    #[test]
    fn replaced_ranges_give_the_rebuilt_table(
        n in 2usize..40,
        cuts in proptest::collection::vec((0usize..40, 1usize..4, 1usize..4, 0u32..3), 0..6),
    ) {
        let mut t = hundreds(n);
        let mut expected: Vec<(ShardKey, ChunkInfo)> =
            t.iter().map(|c| (c.min.clone(), *c.info)).collect();
        let mut patches = Vec::new();
        let mut taken = vec![false; n];
        let mut minor = 0;
        for (start, len, pieces, shard) in cuts {
            let range = start % n..(start % n + len).min(n);
            if range.clone().any(|k| taken[k]) {
                continue;
            }
            range.clone().for_each(|k| taken[k] = true);
            let first = t.chunk(range.start).min.clone();
            let base = range.start as i64 * 100;
            let chunks: Vec<(ShardKey, ChunkInfo)> = (0..pieces)
                .map(|k| {
                    minor += 1;
                    let min = if k == 0 { first.clone() } else { int(base + k as i64) };
                    (min, ChunkInfo::new(ShardIdx(shard), ChunkVersion::new(2, minor)))
                })
                .collect();
            patches.push(shardtop::model::RangePatch { range, chunks });
        }
        let mut sorted = patches.clone();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.range.start));
        for p in &sorted {
            expected.splice(p.range.clone(), p.chunks.clone());
        }
        t.replace_ranges(patches).unwrap();
        prop_assert!(t.check_invariants().is_ok(), "{:?}", t.check_invariants());
        let got: Vec<(ShardKey, ChunkInfo)> =
            t.iter().map(|c| (c.min.clone(), *c.info)).collect();
        prop_assert_eq!(got, expected);
    }

    /// Each shard's owned totals are spread over its chunks: they add up, no two chunks of a
    /// shard differ by more than one.
    #[test]
    fn owned_sizes_spread_evenly(n in 1usize..50, docs in 0u64..1000, bytes in 0u64..100_000) {
        let mut t = hundreds(n);
        let owned = [(ShardIdx(0), ChunkStats::new(docs, bytes, 7)), (ShardIdx(1), ChunkStats::new(bytes, docs, 0))];
        t.spread_owned(&owned);
        prop_assert!(t.check_invariants().is_ok(), "{:?}", t.check_invariants());
        for (s, want) in [(0, (docs, bytes)), (1, (bytes, docs)), (2, (0, 0))] {
            let mine: Vec<ChunkStats> = t.iter().filter(|c| c.info.shard == ShardIdx(s)).map(|c| c.info.stats).collect();
            if mine.is_empty() {
                continue;
            }
            let sum = mine.iter().fold((0, 0), |a, c| (a.0 + c.docs, a.1 + c.bytes));
            prop_assert_eq!(sum, want);
            prop_assert_eq!(t.shard_totals(ShardIdx(s)).stats, ChunkStats::new(want.0, want.1, 0));
            let most = mine.iter().map(|c| c.docs).max().unwrap();
            let least = mine.iter().map(|c| c.docs).min().unwrap();
            prop_assert!(most - least <= 1);
        }
    }
}

#[test]
fn replacements_that_do_not_fit_are_refused() {
    let mut t = hundreds(5);
    let info = ChunkInfo::new(ShardIdx(0), ChunkVersion::new(9, 0));
    let bad = |range: Range<usize>, mins: Vec<ShardKey>| shardtop::model::RangePatch {
        range,
        chunks: mins.into_iter().map(|m| (m, info)).collect(),
    };
    // Not starting at the replaced chunk's lower bound.
    assert!(t.replace_ranges(vec![bad(1..2, vec![int(150)])]).is_err());
    // Past the replaced range.
    assert!(
        t.replace_ranges(vec![bad(1..2, vec![int(100), int(250)])])
            .is_err()
    );
    // Overlapping ranges.
    assert!(
        t.replace_ranges(vec![bad(1..3, vec![int(100)]), bad(2..4, vec![int(200)])])
            .is_err()
    );
    assert!(t.check_invariants().is_ok() && t.len() == 5);
}

#[test]
fn the_version_log_answers_recent_questions_after_a_long_history() {
    let mut t = int_table();
    for k in 1..=10_000i64 {
        let last = t.len() - 1;
        t.split(last, &[int(k)], &zeros(2)).unwrap();
    }
    t.check_invariants().unwrap();
    let recent = t.chunk(t.len() - 5).info.version;
    let scan: Vec<usize> = t
        .iter()
        .filter(|c| c.info.version >= recent)
        .map(|c| c.index)
        .collect();
    assert_eq!(t.changed_since(recent, false), Some(scan));
    let oldest = t.chunk(1).info.version;
    assert_eq!(t.changed_since(oldest, false), None, "older than the log");
}
