//! `explain`: the balancer's decision for one collection, told chunk by chunk — per shard each
//! rule of the release line with its verdict and its number, and the migration the next round
//! would start. Nothing here decides: the rules are the policy's own checks (`policy::steps`, the
//! bucket of `policy`, `chunk_too_big`, the AutoMerger's runs) and `next` is what the simulator's
//! own round (`start_round`) starts on a copy of the state.
//!
//! Owns: gathering those verdicts into a [`crate::cluster::explain::Explanation`]. May not touch:
//! the policy's decisions (it only calls them), I/O, the clock; it never changes the simulator
//! it explains (the round runs on a copy).

use serde_json::{Value, json};

use super::policy::steps::{self, Check};
use super::{chunk_too_big, move_limit};
use crate::cluster::ServerVersion;

use crate::cluster::explain::{ChunkRef, Explanation, Next, Rule, ShardRules, Verdict};
use crate::cluster::version::BalancingMetric;
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

const POLICY: &str = "src/mongo/db/s/balancer/balancer_policy.cpp";
const SELECTION: &str = "src/mongo/db/s/balancer/balancer_chunk_selection_policy_impl.cpp";

/// What a source could not read: the rules that need it are `unknown`, never guessed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unread {
    /// The shards' data sizes (a refused or invalid read).
    pub sizes: bool,
    /// The balancer's settings and state.
    pub balancer: bool,
    /// Each chunk's own document count (a live poll reads each shard's totals and spreads them
    /// evenly over its chunks).
    pub chunk_docs: bool,
    /// Whether the balancing window is open now (a mongos does not say the config server's
    /// time zone).
    pub window: bool,
}

/// What the diagnosis says the next round does for a collection: a move of the chunk starting
/// at `min` (its donor, recipient and reason in words), or why none.
#[derive(Clone, Debug, PartialEq)]
pub enum Told {
    Move {
        min: ShardKey,
        from: String,
        to: String,
        reason: String,
    },
    Nothing(String),
}

impl Simulator {
    /// The explanation of collection `c` for the chunk holding `key` (default: the chunk the
    /// next round moves — `told`, the diagnosis's answer — else the one with the most writes,
    /// else the largest). The next move is the diagnosis's, never decided here again.
    pub fn explain(
        &self,
        c: usize,
        key: Option<&ShardKey>,
        unread: Unread,
        told: Told,
    ) -> Explanation {
        let coll = &self.cluster.collections[c];
        // The chunk that moves, or — when a split before the round cuts it from a larger one —
        // the chunk holding its range now.
        let moved = match &told {
            Told::Move { min, .. } => {
                Some((coll.table.find_by_min(min)).unwrap_or_else(|| coll.table.route(min)))
            }
            Told::Nothing(_) => None,
        };
        let (i, chosen) = match (key, moved) {
            (Some(k), _) => (coll.table.route(k), "key"),
            (None, Some(i)) => (i, "next"),
            (None, None) => (self.hottest(c), "hottest"),
        };
        let ch = coll.table.chunk(i);
        let chunk = ChunkRef {
            min: coll.pattern.bound_to_json(ch.min),
            max: coll.pattern.bound_to_json(ch.max),
            shard: self.cluster.shard_id(ch.info.shard).to_string(),
            jumbo: ch.info.jumbo,
            range: format!(
                "[{}, {})",
                self.cluster.bound_text(&coll.ns, ch.min),
                self.cluster.bound_text(&coll.ns, ch.max)
            ),
            chosen,
        };
        let shards = (0..self.cluster.shards.len())
            .filter(|&s| !self.cluster.shards[s].removed)
            .map(|s| ShardRules {
                shard: self.cluster.shard_id(ShardIdx(s as u32)).to_string(),
                rules: self.rules(c, i, s, unread),
            })
            .collect();
        let next = match told {
            Told::Move {
                from, to, reason, ..
            } => Next::Move { from, to, reason },
            Told::Nothing(_)
                if unread.sizes && self.cluster.balancing_metric() == BalancingMetric::DataSize =>
            {
                Next::Nothing {
                    reason: "unknown: the shards' data sizes could not be read".into(),
                }
            }
            Told::Nothing(reason) => Next::Nothing { reason },
        };
        // The balancer's settings were not all read: the answer stands on what was.
        let next = match next {
            Next::Move { from, to, reason } if unread.balancer => Next::Move {
                from,
                to,
                reason: format!("{reason}; if the balancer runs: its settings were not all read"),
            },
            Next::Nothing { reason } if unread.balancer => Next::Nothing {
                reason: format!("{reason} (the balancer's settings were not all read)"),
            },
            other => other,
        };
        Explanation {
            ns: coll.ns.clone(),
            chunk,
            shards,
            next,
        }
    }

    /// The chunk with the most writes counted, else the largest (the first on ties).
    fn hottest(&self, c: usize) -> usize {
        let table = &self.cluster.collections[c].table;
        table
            .iter()
            .max_by_key(|ch| {
                (
                    ch.info.stats.writes,
                    ch.info.stats.bytes,
                    std::cmp::Reverse(ch.index),
                )
            })
            .map_or(0, |ch| ch.index)
    }

    /// Shard `s`'s row for chunk `i` of collection `c`, in the order the balancer applies them.
    fn rules(&self, c: usize, i: usize, s: usize, unread: Unread) -> Vec<Rule> {
        let cl = &self.cluster;
        let coll = &cl.collections[c];
        let state = &cl.shards[s];
        let ch = coll.table.chunk(i);
        let owner = ch.info.shard.index() == s;
        let when = |known: bool, r: Rule| if known { r } else { r.unknown() };
        let mut rules = vec![
            // `balancer.cpp`: a round runs only in mode `full`.
            when(
                !unread.balancer,
                Rule::new(
                    "balancerEnabled",
                    Verdict::of(cl.settings.balancer_enabled),
                    (json!(cl.balancer_mode().as_str()), json!("full")),
                    "src/mongo/db/s/balancer/balancer.cpp",
                ),
            ),
            self.window_rule(unread),
            Rule::new(
                "noBalance",
                Verdict::of(!coll.balancing.no_balance),
                (json!(coll.balancing.no_balance), json!(false)),
                SELECTION,
            ),
            Rule::new(
                "permitMigrations",
                Verdict::of(!coll.balancing.migrations_blocked),
                (json!(!coll.balancing.migrations_blocked), json!(true)),
                SELECTION,
            ),
            Rule::new(
                "defragmentation",
                Verdict::of(coll.defragmentation.is_none()),
                (
                    coll.defragmentation
                        .map_or(Value::Null, |p| json!(p.as_str())),
                    Value::Null,
                ),
                "src/mongo/db/s/balancer/balancer_policy_utils",
            ),
        ];
        let zone = coll.zones.zone_of_chunk(ch.min, ch.max);
        let zones: Vec<&String> = state.shard.zones.iter().collect();
        rules.push(Rule::new(
            "zone",
            Verdict::of(zone.map_or(!state.removed, |z| self.carries(s, z))),
            (json!(zones), zone.map_or(Value::Null, |z| json!(z))),
            POLICY,
        ));
        rules.push(Rule::new(
            "draining",
            Verdict::of(!state.shard.draining),
            (json!(state.shard.draining), json!(false)),
            POLICY,
        ));
        let busy = self.busy_shards();
        rules.push(Rule::new(
            "oneMigrationPerShard",
            Verdict::of(!busy[s]),
            (json!(busy[s]), json!(false)),
            POLICY,
        ));
        rules.extend(self.chunk_rules(c, i, owner, unread));
        rules.extend(self.threshold_rules(c, zone, s, unread));
        if cl.version >= ServerVersion::V7_0 {
            let on = self.auto_merger_on() && coll.balancing.auto_merge != Some(false);
            let runs = self.mergeable_runs(c, ShardIdx(s as u32), usize::MAX);
            let chunks: usize = runs.iter().map(ExactSizeIterator::len).sum();
            rules.push(when(
                !unread.balancer,
                Rule::new(
                    "autoMerger",
                    Verdict::of(on),
                    (json!(chunks), Value::Null),
                    "src/mongo/db/s/balancer/auto_merger_policy.cpp",
                ),
            ));
        }
        rules
    }

    fn window_rule(&self, unread: Unread) -> Rule {
        let hm = |m: u32| format!("{:02}:{:02}", m / 60, m % 60);
        let source = "src/mongo/s/balancer_configuration.cpp";
        let Some(w) = self.cluster.settings.active_window else {
            return Rule::new(
                "activeWindow",
                Verdict::Pass,
                (Value::Null, Value::Null),
                source,
            );
        };
        let limit = json!(format!("{}-{}", hm(w.start_minute), hm(w.stop_minute)));
        let now = ((self.cluster.now_ms / 60_000) % (24 * 60)) as u32;
        let rule = Rule::new(
            "activeWindow",
            Verdict::of(w.contains(self.cluster.now_ms)),
            (json!(hm(now)), limit),
            source,
        );
        if unread.window || unread.balancer {
            rule.unknown()
        } else {
            rule
        }
    }

    /// Jumbo and ChunkTooBig: rules about the chunk, asked of its owner (the donor) only.
    fn chunk_rules(&self, c: usize, i: usize, owner: bool, unread: Unread) -> Vec<Rule> {
        let cl = &self.cluster;
        let coll = &cl.collections[c];
        let ch = coll.table.chunk(i);
        let na = |rule| {
            Rule::new(
                rule,
                Verdict::NotApplicable,
                (Value::Null, Value::Null),
                POLICY,
            )
        };
        if !owner {
            return vec![na("jumbo"), na("chunkTooBig")];
        }
        let jumbo = Rule::new(
            "jumbo",
            Verdict::of(!ch.info.jumbo),
            (json!(ch.info.jumbo), json!(false)),
            POLICY,
        );
        let donor = coll.table.shard_totals(ch.info.shard).stats;
        let size = cl.chunk_size_of(c);
        let too_big = chunk_too_big(size, donor.bytes, donor.docs, ch.info.stats.docs);
        // With `attemptToBalanceJumboChunks` the balancer's moves carry `kForceBalancer`.
        let forced = cl.settings.attempt_to_balance_jumbo_chunks;
        let limit = json!(move_limit(size, donor.bytes, donor.docs).max_docs);
        let big = Rule::new(
            "chunkTooBig",
            Verdict::of(forced || too_big.is_none()),
            (json!(ch.info.stats.docs), limit),
            "src/mongo/db/s/migration_chunk_cloner_source.cpp",
        );
        vec![
            jumbo,
            if unread.chunk_docs {
                big.unknown()
            } else {
                big
            },
        ]
    }

    /// The imbalance thresholds of the release line, for shard `s` in the chunk's zone (or "no
    /// zone"): chunk counts before 6.0.3, data size from 6.0.3 (with 7.0's donor and 8.0's
    /// recipient ideal-size checks).
    fn threshold_rules(&self, c: usize, zone: Option<&str>, s: usize, unread: Unread) -> Vec<Rule> {
        let cl = &self.cluster;
        let buckets = self.buckets(c, |_, _, _| {});
        let zone_index = zone.and_then(|z| {
            let mut names: Vec<&str> = cl.collections[c]
                .zones
                .iter()
                .map(|r| r.zone.as_str())
                .collect();
            names.sort_unstable();
            names.dedup();
            names.iter().position(|n| *n == z)
        });
        let Some(bucket) = zone_index
            .and_then(|k| buckets.get(k))
            .or_else(|| buckets.last())
        else {
            return Vec::new();
        };
        let rule = |name, check: Check, known: bool| {
            let r = Rule::new(
                name,
                Verdict::of(check.pass),
                (json!(check.value), json!(check.limit)),
                POLICY,
            );
            if known { r } else { r.unknown() }
        };
        match cl.balancing_metric() {
            BalancingMetric::ChunkCount => {
                let ideal = steps::ideal_chunks(bucket);
                vec![
                    rule(
                        "donorAboveIdealChunks",
                        steps::donor_above_ideal(bucket.chunks[s], ideal),
                        true,
                    ),
                    rule(
                        "recipientBelowIdealChunks",
                        steps::recipient_below_ideal(bucket.chunks[s], ideal),
                        true,
                    ),
                ]
            }
            BalancingMetric::DataSize => {
                let known = !unread.sizes
                    && !cl.collections[c]
                        .invalid_sizes
                        .contains(&ShardIdx(s as u32));
                let ideal = steps::ideal_data_size(bucket);
                let most = (0..bucket.members.len())
                    .filter(|&r| bucket.members[r])
                    .map(|r| bucket.bytes[r])
                    .max()
                    .unwrap_or(0);
                let mut rules = vec![rule(
                    "dataSizeGap",
                    steps::gap_over_threshold(
                        most.saturating_sub(bucket.bytes[s]),
                        cl.chunk_size_of(c),
                    ),
                    known,
                )];
                if cl.version.donor_must_exceed_average() {
                    rules.push(rule(
                        "donorAboveIdealDataSize",
                        steps::donor_above_ideal(bucket.bytes[s], ideal),
                        known,
                    ));
                }
                if cl.version.receiver_must_be_below_ideal() {
                    rules.push(rule(
                        "recipientBelowIdealDataSize",
                        steps::recipient_below_ideal(bucket.bytes[s], ideal),
                        known,
                    ));
                }
                rules
            }
        }
    }
}
