//! Random operations on a routing table checked against a plain reference model after every step.

use super::*;

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
