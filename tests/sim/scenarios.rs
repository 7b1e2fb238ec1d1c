//! Every "must show" row of the built-in scenarios of the simulator, with the seeds' numbers.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::SummaryOptions;
use shardtop::cluster::{EventKind, ServerVersion};
use shardtop::model::{KeyValue, ShardIdx, ShardKey};
use shardtop::sim::engine::TICK_MS;
use shardtop::sim::{Simulator, scenario};

fn start(name: &str, version: Option<&str>) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    let v = version.map(|v| v.parse::<ServerVersion>().unwrap());
    Simulator::from_scenario(&sc, sc.seed, v).unwrap()
}

fn until(name: &str) -> u64 {
    (scenario::built_in(name).unwrap().unwrap().until * 1000.0) as u64
}

fn run(name: &str, version: Option<&str>) -> Simulator {
    let mut sim = start(name, version);
    sim.run_until(until(name));
    sim
}

fn shards(sim: &Simulator) -> Vec<ShardIdx> {
    (0..sim.cluster.shards.len())
        .map(|i| ShardIdx(i as u32))
        .collect()
}

#[test]
fn ascending_sends_every_write_to_the_max_chunk_on_one_shard() {
    let mut sim = start("ascending", None);
    let end = until("ascending");
    while sim.now_ms() < end {
        sim.step();
        let events = sim.take_events();
        let c = &sim.cluster.collections[0];
        for e in events {
            if let EventKind::Writes { chunks, .. } = e.kind {
                assert_eq!(
                    chunks.len(),
                    1,
                    "an ascending key writes to one chunk per tick"
                );
                let i = c.table.route(&chunks[0].min);
                // the chunk that took the writes (or the piece of it that kept its writes) ends at MaxKey
                let last = c.table.len() - 1;
                assert!(i == last || c.table.chunk(last).info.shard == c.table.chunk(i).info.shard);
            }
        }
    }
    let c = &sim.cluster.collections[0];
    let writes: Vec<u64> = shards(&sim).iter().map(|s| c.writes_to(*s)).collect();
    assert_eq!(writes.iter().sum::<u64>(), 10_000);
    assert_eq!(
        writes.iter().copied().max(),
        Some(10_000),
        "one shard takes 100% of the writes: {writes:?}"
    );
    let hot = writes.iter().position(|&w| w == 10_000).unwrap();
    assert!(
        sim.cluster.balancer.completed > 0,
        "the balancer keeps migrating data away"
    );
    for s in shards(&sim) {
        if s.index() != hot {
            assert!(
                c.table.shard_totals(s).chunks > 0,
                "chunks were moved to {s}"
            );
        }
    }
    // The 10,000 inserts run to the end (34/s over 294 s of the 300): at 95 s and at the end
    // alike the MaxKey chunk takes them all.
    let mut early = start("ascending", None);
    early.run_until(95_000);
    for sim in [&early, &sim] {
        let c = &sim.cluster.collections[0];
        let hottest = c.window.hottest(&c.table, sim.cluster.now_ms).unwrap();
        assert_eq!(
            hottest.chunk,
            c.table.len() - 1,
            "the hottest chunk is the MaxKey chunk"
        );
        // (the writes of the last 60 s to keys a split has since put in the piece below count
        // there)
        assert!(hottest.share > 0.8, "{hottest:?}");
        assert!(hottest.hot, "an ascending key's MaxKey chunk is a hotspot");
    }
}

#[test]
fn balancer_generations_even_chunk_counts_before_6_0_and_data_size_after() {
    // The range deleter at once (`orphanCleanupDelaySecs: 0`): with 900 s, a chunk moved back
    // onto a shard that still holds orphans of an overlapping range waits for them and fails
    // (`migration_destination_manager.cpp`), and 300 s is too short to even the counts.
    let mut old = start("ascending", Some("5.0"));
    old.cluster.settings.orphan_cleanup_delay_secs = Some(0);
    old.run_until(until("ascending"));
    let c = &old.cluster.collections[0];
    let counts: Vec<u64> = shards(&old)
        .iter()
        .map(|s| c.table.shard_totals(*s).chunks)
        .collect();
    assert!(
        counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1,
        "5.0 evens chunk counts: {counts:?}"
    );
    assert!(
        c.table.len() > 6,
        "5.0 auto-splits: {} chunks",
        c.table.len()
    );

    let new = run("ascending", Some("7.0"));
    let c = &new.cluster.collections[0];
    let sizes: Vec<u64> = shards(&new)
        .iter()
        .map(|s| c.table.shard_totals(*s).stats.bytes)
        .collect();
    let threshold = 3 * new.cluster.settings.chunk_size_bytes;
    assert!(
        sizes.iter().max().unwrap() - sizes.iter().min().unwrap() < threshold,
        "7.0 evens data size: {sizes:?}"
    );
    let counts: Vec<u64> = shards(&new)
        .iter()
        .map(|s| c.table.shard_totals(*s).chunks)
        .collect();
    assert!(
        counts.iter().max().unwrap() - counts.iter().min().unwrap() > 1,
        "7.0 leaves chunk counts uneven: {counts:?}"
    );
}

#[test]
fn random_gives_every_shard_between_15_and_50_percent_of_writes() {
    let sim = run("random", None);
    let c = &sim.cluster.collections[0];
    let total: u64 = c.routed_writes.iter().sum();
    assert_eq!(total, 10_000);
    for s in shards(&sim) {
        let share = c.writes_to(s) as f64 / total as f64;
        assert!((0.15..=0.50).contains(&share), "shard {s} took {share}");
    }
}

fn hashed_bounds(sim: &Simulator) -> Vec<i64> {
    let c = &sim.cluster.collections[0];
    c.table
        .iter()
        .skip(1)
        .map(|ch| match ch.min.get(0) {
            Some(KeyValue::Int64(v)) => *v,
            other => panic!("unexpected bound {other:?}"),
        })
        .collect()
}

#[test]
fn hashed_presplits_at_the_exact_boundaries_and_then_scatters() {
    let sim = start("hashed", None); // 7.0: two chunks per shard
    assert_eq!(
        hashed_bounds(&sim),
        vec![
            -6_148_914_691_236_517_204,
            -3_074_457_345_618_258_602,
            0,
            3_074_457_345_618_258_602,
            6_148_914_691_236_517_204
        ]
    );
    let c = &sim.cluster.collections[0];
    let owners: Vec<u32> = c.table.iter().map(|ch| ch.info.shard.0).collect();
    assert_eq!(owners, vec![0, 0, 1, 1, 2, 2]);
    let new = start("hashed", Some("8.0")); // 7.2+: one chunk per shard
    assert_eq!(
        hashed_bounds(&new),
        vec![-3_074_457_345_618_258_602, 3_074_457_345_618_258_602]
    );

    let sim = run("hashed", None);
    let c = &sim.cluster.collections[0];
    for s in shards(&sim) {
        assert!(
            c.writes_to(s) > 2_500,
            "ascending usernames scatter to every shard: {:?}",
            c.routed_writes
        );
    }
}

#[test]
fn low_cardinality_never_exceeds_cities_plus_one_chunks_and_goes_jumbo() {
    let mut sim = start("low-cardinality", None);
    let end = until("low-cardinality");
    while sim.now_ms() < end {
        sim.step();
        assert!(
            sim.cluster.collections[0].table.len() <= 9,
            "at most 8 cities + 1 chunks"
        );
    }
    let c = &sim.cluster.collections[0];
    assert!(
        c.table.iter().any(|ch| ch.info.jumbo),
        "a one-city chunk is jumbo"
    );
    assert!(
        sim.action_errors()
            .iter()
            .any(|e| e.contains("CannotSplit")),
        "{:?}",
        sim.action_errors()
    );
    // Asking again to split a one-city chunk fails with MongoDB's error.
    let chennai = ShardKey::single(KeyValue::string("Chennai"));
    let err = sim.split_find("lab.bycity", &chennai).unwrap_err();
    assert_eq!((err.code, err.code_name), (87, "CannotSplit"));
    assert_eq!(
        err.message,
        "Unable to find median in chunk because chunk is indivisible."
    );
}

#[test]
fn loglevel_keeps_data_in_at_most_three_chunks_on_every_version() {
    for v in ["5.0", "8.0"] {
        let mut sim = start("loglevel", Some(v));
        let end = until("loglevel");
        while sim.now_ms() < end {
            sim.step();
            let with_data = sim.cluster.collections[0]
                .table
                .iter()
                .filter(|ch| ch.info.stats.docs > 0)
                .count();
            assert!(with_data <= 3, "{v}: {with_data} chunks hold data");
        }
        assert_eq!(
            sim.cluster.collections[0]
                .table
                .iter()
                .map(|ch| ch.info.stats.docs)
                .sum::<u64>(),
            60_000
        );
    }
}

#[test]
fn hot_customer_is_jumbo_until_the_key_is_refined_then_splits() {
    let mut sim = start("hot-customer", None);
    sim.run_until(99_000);
    let c = &sim.cluster.collections[0];
    let jumbo: Vec<_> = c.table.iter().filter(|ch| ch.info.jumbo).collect();
    assert_eq!(jumbo.len(), 1, "the hot customer's chunk is jumbo");
    assert_eq!(
        c.keys.stats(jumbo[0].min, jumbo[0].max).docs,
        c.keys
            .stats(
                &ShardKey::single(KeyValue::Int32(4242)),
                &ShardKey::single(KeyValue::Int32(4243))
            )
            .docs
    );
    assert_eq!(jumbo[0].min, &ShardKey::single(KeyValue::Int32(4242)));
    sim.run_until(until("hot-customer"));
    let c = &sim.cluster.collections[0];
    assert_eq!(c.pattern.len(), 2, "the key was refined");
    assert!(
        c.table.iter().all(|ch| !ch.info.jumbo),
        "refining cleared the jumbo flag"
    );
    let lo = ShardKey::from_values(vec![KeyValue::Int32(4242), KeyValue::MinKey]).unwrap();
    let hi = ShardKey::from_values(vec![KeyValue::Int32(4243), KeyValue::MinKey]).unwrap();
    let (first, last) = (c.table.route(&lo), c.table.route(&hi));
    assert!(
        last > first,
        "the customer's orders now span several chunks"
    );
}

#[test]
fn add_shard_gets_a_fair_share_round_by_round() {
    let mut sim = start("add-shard", None);
    sim.run_until(30_000);
    let mut moves_to_new = 0;
    sim.take_events();
    sim.run_until(until("add-shard"));
    for e in sim.take_events() {
        if let EventKind::MigrationCommitted { range, .. } = e.kind {
            let to = range.to;
            moves_to_new += usize::from(to == ShardIdx(3));
        }
    }
    assert!(
        moves_to_new >= 2,
        "data arrives round by round ({moves_to_new} migrations)"
    );
    let c = &sim.cluster.collections[0];
    let total: u64 = shards(&sim)
        .iter()
        .map(|s| c.table.shard_totals(*s).stats.bytes)
        .sum();
    let new = c.table.shard_totals(ShardIdx(3)).stats.bytes;
    let fair = total / 4;
    assert!(
        new + 3 * sim.cluster.settings.chunk_size_bytes >= fair,
        "new shard holds {new} of a fair {fair}"
    );
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_another() {
    for name in scenario::names() {
        let summary = |seed: u64| {
            let sc = scenario::built_in(name).unwrap().unwrap();
            let mut sim = Simulator::from_scenario(&sc, seed, None).unwrap();
            let mut log = String::new();
            for _ in 0..600 {
                sim.step();
                for e in sim.take_events() {
                    log.push_str(&sim.cluster.describe(&e));
                }
            }
            let json = sim.cluster.summary_json(&SummaryOptions {
                source: "sim".into(),
                chunks: true,
                writes_unknown: false,
            });
            (serde_json::to_string(&json).unwrap(), log)
        };
        assert_eq!(summary(7), summary(7), "{name} is deterministic");
        if name == "random" {
            assert_ne!(summary(7).0, summary(8).0);
        }
    }
}

#[test]
fn until_zero_is_right_after_sharding() {
    let sim = start("ascending", None);
    assert_eq!(sim.now_ms(), 0);
    assert_eq!(sim.cluster.collections[0].table.len(), 1);
    let _ = TICK_MS;
}

#[test]
fn manual_placement_is_undone_when_the_balancer_starts() {
    let mut sim = start("manual", None);
    sim.run_until(59_000);
    let c = &sim.cluster.collections[0];
    assert_eq!(
        c.table.shard_totals(ShardIdx(0)).chunks,
        6,
        "every chunk was moved to shard0000 by hand"
    );
    assert!(!sim.cluster.settings.balancer_enabled);
    sim.run_until(until("manual"));
    let c = &sim.cluster.collections[0];
    let counts: Vec<u64> = shards(&sim)
        .iter()
        .map(|s| c.table.shard_totals(*s).chunks)
        .collect();
    assert_eq!(
        counts,
        vec![2, 2, 2],
        "the balancer evened the chunks out again"
    );
}

#[test]
fn multi_hotspot_balances_writes_while_each_state_ascends() {
    let sim = run("multi-hotspot", None);
    let c = &sim.cluster.collections[0];
    let total: u64 = c.routed_writes.iter().sum();
    for s in shards(&sim) {
        let share = c.writes_to(s) as f64 / total as f64;
        assert!((0.2..=0.5).contains(&share), "shard {s} took {share}");
    }
    // Within a state the _id ascends: that state's writes all went to its last chunk.
    for state in ["CA", "FL", "IL", "NY", "OH", "TX"] {
        let hi = ShardKey::from_values(vec![KeyValue::string(state), KeyValue::MaxKey]).unwrap();
        let lo = ShardKey::from_values(vec![KeyValue::string(state), KeyValue::MinKey]).unwrap();
        let (first, last) = (c.table.route(&lo), c.table.route(&hi));
        let in_state: u64 = (first..=last)
            .map(|i| c.table.chunk(i).info.stats.writes)
            .sum();
        assert!(in_state > 0, "{state} received writes");
    }
}

#[test]
fn gridfs_keeps_every_file_on_one_shard_and_spreads_files() {
    let sim = run("gridfs", None);
    let c = &sim.cluster.collections[0];
    let min = c.table.global_min().clone();
    let max = c.table.global_max().clone();
    assert_eq!(c.keys.distinct(), 200, "200 files of 20 GridFS chunks each");
    assert_eq!(c.keys.stats(&min, &max).docs, 4_000);
    for chunk in c.table.iter() {
        assert_eq!(
            chunk.info.stats.docs % 20,
            0,
            "a file is never split across chunks"
        );
    }
    for s in shards(&sim) {
        let docs = c.table.shard_totals(s).stats.docs;
        assert!(
            docs >= 800,
            "files spread over every shard: {s} holds {docs} GridFS chunks"
        );
    }
}

#[test]
fn refine_refuses_without_a_supporting_index_and_when_it_does_not_extend_the_key() {
    use shardtop::model::KeyPattern;
    let mut sim = start("hot-customer", None);
    sim.run_until(20_000);
    let refined = KeyPattern::parse_json(r#"{"customerId": 1, "placedAt": 1}"#).unwrap();
    let err = sim
        .refine_shard_key("shop.orders", refined.clone())
        .unwrap_err();
    assert_eq!((err.code, err.code_name), (72, "InvalidOptions"));
    assert_eq!(
        err.message,
        "Please create an index that starts with the proposed shard key before refining the collection's shard key."
    );
    sim.create_index("shop.orders", refined.clone(), false)
        .unwrap();
    let swapped = KeyPattern::parse_json(r#"{"placedAt": 1, "customerId": 1}"#).unwrap();
    let err = sim.refine_shard_key("shop.orders", swapped).unwrap_err();
    assert_eq!(err.code_name, "InvalidOptions");
    assert!(
        err.message
            .contains("does not extend the current shard key"),
        "{err}"
    );
    sim.refine_shard_key("shop.orders", refined).unwrap();
    assert_eq!(sim.cluster.collections[0].table.check_invariants(), Ok(()));
}

#[test]
fn a_unique_index_must_be_prefixed_by_the_shard_key() {
    use shardtop::model::KeyPattern;
    let mut sim = start("hot-customer", None);
    let err = sim
        .create_index(
            "shop.orders",
            KeyPattern::parse_json(r#"{"orderNo": 1}"#).unwrap(),
            true,
        )
        .unwrap_err();
    assert_eq!(err.code_name, "CannotCreateIndex");
    assert!(
        err.message.contains("cannot create index with 'unique'"),
        "{err}"
    );
    sim.create_index(
        "shop.orders",
        KeyPattern::parse_json(r#"{"customerId": 1, "orderNo": 1}"#).unwrap(),
        true,
    )
    .unwrap();
}
