//! One candidate key tried on the data: a simulated cluster of its own (the lab's shards, chunk
//! size and release line) holding the collection sharded on that key. The first documents are
//! inserted with the balancer off and laid out as `reshardCollection` would lay them out for the
//! key ([`Simulator::lay_out_as_resharding`]); the rest arrive as new inserts, tick by tick,
//! with the balancer on — or, from empty, every document is a new insert into the chunks
//! `shardCollection` makes on an empty collection.
//!
//! Counted over the new inserts: each shard's inserts (the shard that owned the chunk when the
//! document arrived), the hottest chunk of each balancer round (the round's inserts to its
//! busiest chunk; a round also ends when the chunks change), and the migrations committed. A
//! seeded sample of 1,000 documents' keys is kept for `analyzeShardKey`'s per-range counts.

use bson::Document;

use crate::analyze::characteristics::{Characteristics, KeyCharacteristics};
use crate::analyze::ranges::{self, KeySample};
use crate::cluster::event::{Event, EventKind};
use crate::model::{KeyPattern, ShardIdx};
use crate::sim::engine::{ROUND_INTERVAL_MS, Simulator};
use crate::sim::ops::ShardCollectionOptions;

/// The namespace every candidate's collection has.
pub const LAB_NS: &str = "lab.candidate";

/// The cluster every candidate runs on.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    pub shards: u32,
    pub chunk_size_mb: u64,
    pub server_version: crate::cluster::ServerVersion,
    /// `reshardCollection`'s `numInitialChunks` for the layout (`None`: the release's default).
    pub num_initial_chunks: Option<u32>,
    /// Zones and their shards.
    pub zones: Vec<(String, Vec<String>)>,
    /// Zone ranges: zone, min, max (on leading key fields).
    pub zone_ranges: Vec<ZoneRangeSpec>,
}

impl ClusterSpec {
    /// `shards` shards, `chunk_size_mb` chunks, the release's layout, no zones.
    pub fn new(
        shards: u32,
        chunk_size_mb: u64,
        server_version: crate::cluster::ServerVersion,
    ) -> Self {
        Self {
            shards,
            chunk_size_mb,
            server_version,
            num_initial_chunks: None,
            zones: Vec::new(),
            zone_ranges: Vec::new(),
        }
    }
}

/// A zone range as given, on a prefix of the key's fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneRangeSpec {
    pub zone: String,
    pub min: Document,
    pub max: Document,
}

impl ZoneRangeSpec {
    /// Whether the range's fields start `key` (then it applies to that candidate).
    pub fn applies_to(&self, key: &KeyPattern) -> bool {
        let fields: Vec<&str> = self.min.keys().map(String::as_str).collect();
        let max: Vec<&str> = self.max.keys().map(String::as_str).collect();
        !fields.is_empty()
            && fields == max
            && fields.len() <= key.len()
            && fields.iter().zip(key.fields()).all(|(f, k)| *f == &*k.path)
    }
}

/// Inserts counted since the layout.
#[derive(Clone, Debug, Default)]
pub struct InsertCounts {
    pub total: u64,
    pub per_shard: Vec<u64>,
    /// The sum over rounds of the round's inserts to its busiest chunk.
    pub hottest: u64,
    pub migrations: u64,
    /// The current round's inserts per chunk, and the chunks' version they count against.
    round: Vec<u64>,
    round_version: Option<crate::model::ChunkVersion>,
    round_ends_ms: u64,
    /// The hotspot chunk of the last round that took inserts (`cluster::hotspot`'s rule).
    last_hot: Option<usize>,
}

impl InsertCounts {
    fn close_round(&mut self, chunks: usize) {
        self.hottest += self.round.iter().copied().max().unwrap_or(0);
        if busiest(&self.round).is_some() {
            self.last_hot = hotspot_of(&self.round, chunks);
        }
        self.round.clear();
    }
}

/// The round's hotspot chunk by `cluster::hotspot`'s rule (every chunk can take inserts).
fn hotspot_of(round: &[u64], chunks: usize) -> Option<usize> {
    crate::cluster::hotspot::hotspot(round.iter().copied().enumerate(), chunks).map(|h| h.key)
}

fn busiest(round: &[u64]) -> Option<usize> {
    let (i, n) = round
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, std::cmp::Reverse(*i)))?;
    (*n > 0).then_some(i)
}

/// One candidate's run.
pub struct CandidateRun {
    pub key: KeyPattern,
    pub sim: Simulator,
    coll: usize,
    characteristics: Characteristics,
    pub inserts: InsertCounts,
    laid_out: bool,
    /// Documents the key cannot take (an array in a key field), and the first reason.
    pub refused: u64,
    pub first_refusal: Option<String>,
    /// Documents whose first key field (not hashed) holds a date ([`is_date`]).
    pub dated: u64,
    /// Each zone range given, and whether it applies to this key.
    pub zones: Vec<(String, bool)>,
    /// The documents' keys `analyzeShardKey`'s per-range counts cut their ranges from.
    pub key_sample: KeySample,
    /// The key without hashing (`None`: the key has no hashed field, its keys are raw).
    raw: Option<KeyPattern>,
}

impl CandidateRun {
    /// A cluster of `spec` with the collection sharded on `key`; `unique` as the characteristics
    /// take it (a unique index with exactly the key's fields).
    pub fn new(spec: &ClusterSpec, key: KeyPattern, unique: bool) -> Result<Self, String> {
        let mut sim = cluster(spec)?;
        sim.shard_collection(LAB_NS, key.clone(), &ShardCollectionOptions::default())
            .map_err(|e| e.to_string())?;
        let coll = sim.coll(LAB_NS).map_err(|e| e.to_string())?;
        for (zone, shards) in &spec.zones {
            for s in shards {
                sim.add_shard_to_zone(s, zone)
                    .map_err(|e| format!("--zone {zone}={s}: {e}"))?;
            }
        }
        for r in spec.zone_ranges.iter().filter(|r| r.applies_to(&key)) {
            sim.update_zone_key_range(LAB_NS, &r.min, &r.max, Some(&r.zone))
                .map_err(|e| format!("--zone-range for {}: {e}", r.zone))?;
        }
        sim.set_balancer(false);
        let zones = spec
            .zone_ranges
            .iter()
            .map(|r| (r.zone.clone(), r.applies_to(&key)))
            .collect();
        let raw = key.hashed_field().map(|_| ranges::raw_pattern(&key));
        Ok(Self {
            characteristics: Characteristics::new(&key, unique),
            key,
            sim,
            coll,
            inserts: InsertCounts {
                per_shard: vec![0; spec.shards as usize],
                ..InsertCounts::default()
            },
            laid_out: false,
            refused: 0,
            first_refusal: None,
            dated: 0,
            zones,
            key_sample: KeySample::default(),
            raw,
        })
    }

    /// Inserts one document (`size` bytes of BSON): part of the initial data before
    /// [`Self::start_inserts`], a new insert after it.
    pub fn insert(&mut self, doc: &Document, size: u64) {
        let key = match self.key.extract(doc) {
            Ok(k) => k,
            Err(e) => {
                self.refuse(e.0);
                return;
            }
        };
        if let Err(e) = self.characteristics.observe_key(doc, size, key.clone()) {
            self.refuse(e.0);
            return;
        }
        if self.key.hashed_field() != Some(0)
            && crate::model::value_at(doc, &self.key.fields()[0].path).is_some_and(is_date)
        {
            self.dated += 1;
        }
        if let Some(slot) = self.key_sample.offer() {
            let raw = match &self.raw {
                Some(r) => r.extract(doc).unwrap_or_else(|_| key.clone()),
                None => key.clone(),
            };
            self.key_sample.put(slot, raw, key.clone());
        }
        let (chunk, shard) = self.sim.insert_key(self.coll, key, None, size);
        if self.laid_out {
            self.count(chunk, shard);
        }
    }

    fn refuse(&mut self, reason: String) {
        self.refused += 1;
        self.first_refusal.get_or_insert(reason);
    }

    fn count(&mut self, chunk: usize, shard: ShardIdx) {
        let c = &mut self.inserts;
        c.total += 1;
        if let Some(n) = c.per_shard.get_mut(shard.index()) {
            *n += 1;
        }
        if c.round.len() <= chunk {
            c.round.resize(chunk + 1, 0);
        }
        c.round[chunk] += 1;
    }

    /// Ends the initial data: lays it out as resharding would (unless `from_empty`), turns the
    /// balancer on; what follows are new inserts.
    pub fn start_inserts(&mut self, from_empty: bool, num_initial_chunks: Option<u32>) {
        if !from_empty && let Err(e) = self.sim.lay_out_as_resharding(LAB_NS, num_initial_chunks) {
            self.first_refusal.get_or_insert(e.to_string());
        }
        self.sim.take_events();
        self.sim.set_balancer(true);
        self.laid_out = true;
        self.begin_round();
    }

    fn begin_round(&mut self) {
        let now = self.sim.now_ms();
        let version = self.sim.cluster.collections[self.coll].table.version();
        let c = &mut self.inserts;
        c.round_version = Some(version);
        c.round_ends_ms = now + ROUND_INTERVAL_MS;
    }

    /// One tick of the simulated cluster (balancer, migrations); counts what it committed and
    /// returns its events.
    pub fn step(&mut self) -> Vec<Event> {
        self.sim.step();
        let events = self.sim.take_events();
        for e in &events {
            if matches!(e.kind, EventKind::MigrationCommitted { .. }) {
                self.inserts.migrations += 1;
            }
        }
        if self.laid_out {
            self.end_round_if_due();
        }
        events
    }

    /// The chunk that is a hotspot of this balancer round's inserts so far (of the last round's
    /// while this one has too few to tell), by `cluster::hotspot`'s rule: none on an even load.
    pub fn hot_chunk(&self) -> Option<usize> {
        let round = &self.inserts.round;
        if round.iter().sum::<u64>() >= crate::cluster::hotspot::MIN_WRITES {
            return hotspot_of(round, self.collection().table.len());
        }
        self.inserts.last_hot
    }

    fn end_round_if_due(&mut self) {
        let version = self.sim.cluster.collections[self.coll].table.version();
        if self.sim.now_ms() >= self.inserts.round_ends_ms
            || self.inserts.round_version != Some(version)
        {
            let chunks = self.collection().table.len();
            self.inserts.close_round(chunks);
            self.begin_round();
        }
    }

    /// The collection as it stands.
    pub fn collection(&self) -> &crate::cluster::Collection {
        &self.sim.cluster.collections[self.coll]
    }

    /// The characteristics of every document inserted, and the counts of the new inserts.
    pub fn finish(mut self) -> (KeyCharacteristics, Self) {
        let chunks = self.collection().table.len();
        self.inserts.close_round(chunks);
        let ch = std::mem::replace(
            &mut self.characteristics,
            Characteristics::new(&self.key, false),
        );
        (ch.finish(), self)
    }
}

/// A date: a BSON date, or a string that starts with an ISO 8601 date (`2017-06-14`, as
/// `mongoimport` leaves a CSV column it is not told the type of), which sorts in time order.
pub fn is_date(v: &bson::Bson) -> bool {
    match v {
        bson::Bson::DateTime(_) => true,
        bson::Bson::String(s) => {
            let b = s.as_bytes();
            b.len() >= 10
                && b[..4].iter().all(u8::is_ascii_digit)
                && b[4] == b'-'
                && b[5..7].iter().all(u8::is_ascii_digit)
                && b[7] == b'-'
                && b[8..10].iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

/// A cluster of `spec`'s shards, no collections, balancer on.
fn cluster(spec: &ClusterSpec) -> Result<Simulator, String> {
    let text = format!(
        r#"{{"name": "lab", "description": "", "seedPassage": "", "shards": {}, "chunkSizeMb": {}, "collections": [], "until": 0}}"#,
        spec.shards, spec.chunk_size_mb
    );
    let sc = crate::sim::scenario::parse(&text)?;
    Simulator::from_scenario(&sc, sc.seed, Some(spec.server_version))
}
