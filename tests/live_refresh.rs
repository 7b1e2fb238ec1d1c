#![allow(clippy::unwrap_used, clippy::float_cmp)]
//! The live source's routing cache: after the simulator splits, moves and merges chunks, an
//! incremental refresh (only chunks with `lastmod` ≥ the cached collection version) converges to
//! the same table as a full reload, fetching a small part of the chunks; a new incarnation asks
//! for a full reload.

use shardtop::live::config::{ChunkDoc, ChunkOwner, CollectionDoc, Incarnation};
use shardtop::live::routing_cache::CachedRouting;
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
        no_balance: false,
        balancing: c.balancing,
    }
}

/// What `config.chunks` would return for the collection, optionally only `lastmod >= since`.
fn chunk_docs(
    sim: &Simulator,
    ns: &str,
    since: Option<shardtop::model::ChunkVersion>,
) -> Vec<ChunkDoc> {
    let c = sim.cluster.collection(ns).unwrap();
    c.table
        .iter()
        .filter(|ch| since.is_none_or(|v| ch.info.version >= v))
        .map(|ch| ChunkDoc {
            owner: ChunkOwner::Ns(ns.to_string()),
            min: ch.min.clone(),
            max: ch.max.clone(),
            shard: sim.cluster.shard_id(ch.info.shard).to_string(),
            version: ch.info.version,
            jumbo: ch.info.jumbo,
            since: None,
        })
        .collect()
}

fn same(cache: &CachedRouting, full: &[ChunkDoc]) -> bool {
    cache.chunks().len() == full.len() && cache.chunks().zip(full).all(|(a, b)| a == b)
}

/// Polls every 10 virtual seconds until `until`, checking convergence; returns (fetched, total
/// chunk documents over all polls).
fn poll(sim: &mut Simulator, ns: &str, until_ms: u64) -> (usize, usize) {
    let coll = collection_doc(sim, ns);
    let mut cache = CachedRouting::load(&coll, chunk_docs(sim, ns, None)).unwrap();
    let (mut fetched, mut total) = (0, 0);
    while sim.now_ms() < until_ms {
        sim.run_until(sim.now_ms() + 10_000);
        let coll = collection_doc(sim, ns);
        let full = chunk_docs(sim, ns, None);
        if cache.is_stale_for(&coll) {
            cache = CachedRouting::load(&coll, full.clone()).unwrap();
        } else {
            let changed = chunk_docs(sim, ns, Some(cache.version()));
            let jumbo: Vec<_> = full
                .iter()
                .filter(|c| c.jumbo)
                .map(|c| c.min.clone())
                .collect();
            fetched += changed.len() + jumbo.len();
            cache.apply(changed);
            cache.set_jumbo(&jumbo);
        }
        total += full.len();
        cache.check().unwrap();
        if !same(&cache, &full) {
            let diff: Vec<_> = cache
                .chunks()
                .zip(&full)
                .filter(|(a, b)| a != b)
                .take(2)
                .collect();
            panic!(
                "{ns} at {} ms the refreshed table ({} chunks) differs from a full load ({}): {diff:#?}",
                sim.now_ms(),
                cache.chunks().len(),
                full.len()
            );
        }
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
    let mut cache = CachedRouting::load(&coll, chunk_docs(&sim, &ns, None)).unwrap();
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
    let changed = chunk_docs(&sim, &ns, Some(cache.version()));
    cache.apply(changed);
    assert!(same(&cache, &chunk_docs(&sim, &ns, None)));
}

#[test]
fn a_new_incarnation_needs_a_full_reload() {
    let mut sim = start("hot-customer", "8.0");
    let ns = sim.cluster.collections[0].ns.clone();
    let before = collection_doc(&sim, &ns);
    let cache = CachedRouting::load(&before, chunk_docs(&sim, &ns, None)).unwrap();
    sim.run_until(400_000);
    let after = collection_doc(&sim, &ns);
    assert_ne!(
        sim.cluster.collection(&ns).unwrap().incarnation,
        1,
        "hot-customer refines its key"
    );
    assert!(cache.is_stale_for(&after));
}

#[test]
fn a_quiet_cluster_poll_fetches_only_the_newest_chunk() {
    // With nothing changed, `lastmod >= collection version` returns only the newest chunk.
    let mut sim = start("hashed", "8.0");
    let ns = sim.cluster.collections[0].ns.clone();
    sim.run_until(600_000);
    let coll = collection_doc(&sim, &ns);
    let mut cache = CachedRouting::load(&coll, chunk_docs(&sim, &ns, None)).unwrap();
    let changed = chunk_docs(&sim, &ns, Some(cache.version()));
    assert_eq!(changed.len(), 1);
    assert_eq!(cache.apply(changed), 1);
}

#[test]
fn size_heat_gives_the_growing_shard_all_the_heat() {
    use shardtop::source::heat::SizeHeat;
    let mut sim = start("ascending", "8.0");
    sim.run_until(5_000);
    let mut heat = SizeHeat::default();
    heat.observe(&sim);
    assert_eq!(
        heat.share("app.events", "shard0000"),
        0.0,
        "one poll is not enough"
    );
    sim.run_until(15_000);
    heat.observe(&sim);
    assert!((heat.share("app.events", "shard0000") - 1.0).abs() < 1e-9);
    assert_eq!(heat.share("app.events", "shard0001"), 0.0);
}
