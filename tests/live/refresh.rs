#![allow(clippy::unwrap_used, clippy::float_cmp)]
//! The live source's routing cache: after the simulator splits, moves and merges chunks, an
//! incremental refresh (only chunks with `lastmod` ≥ the cached collection version) converges to
//! the same table as a full reload, fetching a small part of the chunks; a new incarnation asks
//! for a full reload.

use shardtop::live::config::{ChunkRow, CollectionDoc, Incarnation};
use shardtop::live::routing_cache::{self, CachedRouting, FullLoad};
use shardtop::model::{ChunkInfo, RoutingTable, ShardKey};
use shardtop::sim::{Simulator, scenario};

fn start(name: &str, version: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

/// What `config.collections` would say of the simulator's collection.
fn collection_doc(sim: &Simulator, ns: &str) -> CollectionDoc {
    let c = sim.cluster.collection(ns).unwrap();
    CollectionDoc {
        ns: ns.to_string(),
        key: c.pattern.clone(),
        unique: false,
        incarnation: Incarnation {
            uuid: None,
            epoch: Some(bson::oid::ObjectId::from_bytes([c.incarnation as u8; 12])),
            timestamp: None,
        },
        dropped: false,
        unsplittable: false,
        timeseries: false,
        no_balance: false,
        defragmentation: None,
        balancing: c.balancing,
    }
}

/// What `config.chunks` would return for the collection, optionally only `lastmod >= since`.
fn chunk_rows(
    sim: &Simulator,
    ns: &str,
    since: Option<shardtop::model::ChunkVersion>,
) -> Vec<ChunkRow> {
    let c = sim.cluster.collection(ns).unwrap();
    c.table
        .iter()
        .filter(|ch| since.is_none_or(|v| ch.info.version >= v))
        .map(|ch| {
            let mut info = ChunkInfo::new(ch.info.shard, ch.info.version);
            info.jumbo = ch.info.jumbo;
            info.since = ch.info.since;
            ChunkRow {
                min: ch.min.clone(),
                max: ch.max.clone(),
                info,
            }
        })
        .collect()
}

/// A routing table as the poller keeps it: the table and what it remembers besides.
struct Cache {
    meta: CachedRouting,
    table: RoutingTable,
}

impl Cache {
    /// A full load, fed in the order given.
    fn load(coll: &CollectionDoc, rows: Vec<ChunkRow>) -> Self {
        let mut load = FullLoad::new(&coll.ns, &coll.key);
        for r in rows {
            load.push(r);
        }
        let loaded = load.finish().unwrap();
        assert!(loaded.inconsistencies.is_empty());
        Self {
            meta: CachedRouting::new(coll, loaded.jumbo),
            table: loaded.table,
        }
    }

    /// An incremental refresh: the changed chunks and the jumbo ones; returns the patches.
    fn refresh(&mut self, changed: Vec<ChunkRow>, jumbo: Vec<ShardKey>) -> usize {
        let patches =
            routing_cache::patches(&self.meta.ns, &self.meta.pattern, &self.table, changed)
                .unwrap();
        let n = patches.len();
        self.meta
            .patch(&mut self.table, patches, Some(jumbo))
            .unwrap();
        n
    }

    fn rows(&self) -> Vec<(ShardKey, ShardKey, ChunkInfo)> {
        self.table
            .iter()
            .map(|c| (c.min.clone(), c.max.clone(), *c.info))
            .collect()
    }
}

fn same(cache: &Cache, full: &[ChunkRow]) -> bool {
    let rows = cache.rows();
    rows.len() == full.len()
        && rows.iter().zip(full).all(|((min, max, info), b)| {
            *min == b.min
                && *max == b.max
                && info.shard == b.info.shard
                && info.version == b.info.version
                && info.jumbo == b.info.jumbo
                && info.since == b.info.since
        })
}

/// Polls every 10 virtual seconds until `until`, checking convergence; returns (fetched, total
/// chunk documents over all polls).
fn poll(sim: &mut Simulator, ns: &str, until_ms: u64) -> (usize, usize) {
    let coll = collection_doc(sim, ns);
    let mut cache = Cache::load(&coll, chunk_rows(sim, ns, None));
    let (mut fetched, mut total) = (0, 0);
    while sim.now_ms() < until_ms {
        sim.run_until(sim.now_ms() + 10_000);
        let coll = collection_doc(sim, ns);
        let full = chunk_rows(sim, ns, None);
        if cache.meta.is_stale_for(&coll) {
            cache = Cache::load(&coll, full.clone());
        } else {
            let changed = chunk_rows(sim, ns, Some(cache.table.version()));
            let jumbo: Vec<_> = full
                .iter()
                .filter(|c| c.info.jumbo)
                .map(|c| c.min.clone())
                .collect();
            fetched += changed.len() + jumbo.len();
            cache.refresh(changed, jumbo);
        }
        total += full.len();
        cache.table.check_invariants().unwrap();
        assert!(
            same(&cache, &full),
            "{ns} at {} ms the refreshed table ({} chunks) differs from a full load ({})",
            sim.now_ms(),
            cache.table.len(),
            full.len()
        );
    }
    (fetched, total)
}

#[test]
fn incremental_refresh_follows_splits_and_migrations() {
    for (name, version) in [
        ("ascending", "5.0"),
        ("ascending", "8.0"),
        ("add-shard", "7.0"),
        ("drain", "8.0"),
        ("zones-ip", "6.0"),
        ("low-cardinality", "4.4"),
    ] {
        let mut sim = start(name, version);
        let ns = sim.cluster.collections[0].ns.clone();
        let ns = ns.as_str();
        let (fetched, total) = poll(&mut sim, ns, 300_000);
        assert!(
            total > 0 && fetched > 0,
            "{name} {version}: the polls saw changes"
        );
    }
}

#[test]
fn merges_are_followed_too() {
    let mut sim = start("manual", "5.0");
    let ns = sim.cluster.collections[0].ns.clone();
    let coll = collection_doc(&sim, &ns);
    let mut cache = Cache::load(&coll, chunk_rows(&sim, &ns, None));
    sim.run_until(60_000);
    let c = sim.cluster.collection(&ns).unwrap();
    let (a, b) = (c.table.chunk(0), c.table.chunk(1));
    let same_shard = a.info.shard == b.info.shard;
    let (min, max) = (a.min.clone(), b.max.clone());
    if same_shard {
        sim.merge_chunks(&ns, &min, &max).unwrap();
    } else {
        let to = sim.cluster.shard_id(a.info.shard).to_string();
        sim.move_chunk_forced(&ns, &b.min.clone(), &to).unwrap();
        sim.run_until(sim.now_ms() + 5_000);
        sim.merge_chunks(&ns, &min, &max).unwrap();
    }
    let changed = chunk_rows(&sim, &ns, Some(cache.table.version()));
    cache.refresh(changed, Vec::new());
    assert!(same(&cache, &chunk_rows(&sim, &ns, None)));
}

#[test]
fn a_new_incarnation_needs_a_full_reload() {
    let mut sim = start("hot-customer", "8.0");
    let ns = sim.cluster.collections[0].ns.clone();
    let before = collection_doc(&sim, &ns);
    let cache = Cache::load(&before, chunk_rows(&sim, &ns, None));
    sim.run_until(400_000);
    let after = collection_doc(&sim, &ns);
    assert_ne!(
        sim.cluster.collection(&ns).unwrap().incarnation,
        1,
        "hot-customer refines its key"
    );
    assert!(cache.meta.is_stale_for(&after));
}

#[test]
fn a_quiet_cluster_poll_fetches_only_the_newest_chunk() {
    // With nothing changed, `lastmod >= collection version` returns only the newest chunk.
    let mut sim = start("hashed", "8.0");
    let ns = sim.cluster.collections[0].ns.clone();
    sim.run_until(600_000);
    let coll = collection_doc(&sim, &ns);
    let mut cache = Cache::load(&coll, chunk_rows(&sim, &ns, None));
    let changed = chunk_rows(&sim, &ns, Some(cache.table.version()));
    assert_eq!(changed.len(), 1);
    assert_eq!(cache.refresh(changed, Vec::new()), 0, "nothing to patch");
}

#[test]
fn a_full_load_in_any_order_gives_the_same_table() {
    let mut sim = start("ascending", "7.0");
    sim.run_until(300_000);
    let ns = sim.cluster.collections[0].ns.clone();
    let coll = collection_doc(&sim, &ns);
    let rows = chunk_rows(&sim, &ns, None);
    assert!(rows.len() > 3);
    let mut shuffled = rows.clone();
    shuffled.reverse();
    shuffled.swap(0, 1);
    assert!(same(&Cache::load(&coll, shuffled), &rows));
    // A gap is named as checkMetadataConsistency names it, and the rest still loads.
    let mut gap = rows.clone();
    gap.remove(1);
    let mut load = FullLoad::new(&ns, &coll.key);
    for r in gap {
        load.push(r);
    }
    let loaded = load.finish().unwrap();
    assert_eq!(loaded.inconsistencies.len(), 1);
    let gap = &loaded.inconsistencies[0];
    assert_eq!(gap.kind, "RoutingTableRangeGap");
    assert!(
        gap.description.starts_with(&ns) && !gap.description.contains("ShardKey"),
        "{}",
        gap.description
    );
    assert_eq!(loaded.table.len(), rows.len() - 1);
}

#[test]
fn changes_that_do_not_tile_the_cached_ranges_are_refused() {
    let mut sim = start("ascending", "5.0");
    sim.run_until(10_000);
    let ns = sim.cluster.collections[0].ns.clone();
    let coll = collection_doc(&sim, &ns);
    let cache = Cache::load(&coll, chunk_rows(&sim, &ns, None));
    sim.run_until(120_000);
    let mut changed = chunk_rows(&sim, &ns, Some(cache.table.version()));
    // A read that raced a commit: a chunk split off since the cached version is missing.
    let split_off = changed
        .iter()
        .position(|r| cache.table.find_by_min(&r.min).is_none())
        .unwrap();
    changed.remove(split_off);
    let e = routing_cache::patches(&ns, &coll.key, &cache.table, changed)
        .unwrap_err()
        .0;
    // Named with the collection and both chunks' bounds with their fields, in mongosh notation.
    let field = coll.key.fields()[0].path.to_string();
    assert!(
        e.starts_with(&format!(
            "config.chunks of {ns}: the changed chunk [{{ {field}: "
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "does not line up with the cached chunk [{{ {field}: "
        )),
        "{e}"
    );
    assert!(!e.contains("{ : "), "no bound without its field name: {e}");
}

#[test]
fn size_heat_gives_the_growing_shard_all_the_heat() {
    use shardtop::source::heat::SizeHeat;
    let mut sim = start("ascending", "8.0");
    sim.run_until(5_000);
    let mut heat = SizeHeat::default();
    heat.observe(&sim.cluster);
    assert_eq!(
        heat.share("app.events", "shard0000"),
        0.0,
        "one poll is not enough"
    );
    sim.run_until(15_000);
    heat.observe(&sim.cluster);
    assert!((heat.share("app.events", "shard0000") - 1.0).abs() < 1e-9);
    assert_eq!(heat.share("app.events", "shard0001"), 0.0);
}

#[test]
fn jumbo_flags_follow_each_reread() {
    let sim = start("hashed", "8.0");
    let ns = sim.cluster.collections[0].ns.clone();
    let coll = collection_doc(&sim, &ns);
    let mut cache = Cache::load(&coll, chunk_rows(&sim, &ns, None));
    let jumbo_chunks = |c: &Cache| c.table.iter().filter(|ch| ch.info.jumbo).count();
    let one = cache.table.chunk(1).min.clone();
    cache
        .meta
        .patch(&mut cache.table, Vec::new(), Some(vec![one]))
        .unwrap();
    assert!(cache.table.chunk(1).info.jumbo);
    // A changed chunk that comes marked jumbo, between two reads of the flags.
    let two = cache.table.chunk(2);
    let mut info = *two.info;
    info.jumbo = true;
    info.version = cache.table.version().next_major();
    let patch = shardtop::model::RangePatch {
        range: 2..3,
        chunks: vec![(two.min.clone(), info)],
    };
    cache
        .meta
        .patch(&mut cache.table, vec![patch], None)
        .unwrap();
    assert_eq!(jumbo_chunks(&cache), 2, "flags kept until the next read");
    // The next read says none is jumbo any more: both flags are cleared.
    cache
        .meta
        .patch(&mut cache.table, Vec::new(), Some(Vec::new()))
        .unwrap();
    assert_eq!(jumbo_chunks(&cache), 0);
    cache.table.check_invariants().unwrap();
}
