//! One poll of a live cluster through a mongos: what it reads (config.shards, collections,
//! chunks — incrementally —, tags, settings, databases, balancerStatus, per-shard data sizes, the
//! tails of the changelog and the actionlog) and the cluster state it makes of it, which the
//! summary and the TUI read as they read the simulator's. The poller keeps that state between
//! polls and patches its routing tables in place.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::balancer_status;
use super::client::{LiveClient, LiveError};
use super::config::{ChunkOwner, ChunkRow, CollectionDoc, SettingsDocs, ShardDoc, TagDoc};
use super::data_sizes;
use super::privileges;
use super::refusals::{Refusals, essential};
use super::routing_cache::{self, CachedRouting, FullLoad};
use super::snapshot::{self, ConfigSnapshot, ShardList};
use crate::cluster::Cluster;
use crate::cluster::ServerVersion;
use crate::model::{RangePatch, RoutingTable, ShardIdx, ShardKey};
use crate::view::LogLine;

pub use super::one_poll::{OnePoll, now_ms, poll_once};

pub(super) fn bad(e: impl std::fmt::Display) -> LiveError {
    LiveError {
        message: e.to_string(),
        input: false,
        unauthorized: false,
        code: None,
    }
}

/// The poller's memory between polls: the connection, the routing caches and the model of the
/// cluster as the last poll left it (its routing tables are refreshed in place).
pub struct Poller {
    pub client: LiveClient,
    pub version: Option<ServerVersion>,
    caches: HashMap<String, CachedRouting>,
    state: Cluster,
    /// The tails of the changelog and the actionlog (a recording takes their entries).
    pub logs: Box<super::logs::LogTails>,
    /// Chunk documents fetched by the last poll (the polling cost).
    pub fetched_chunks: usize,
    /// Change streams for write heat (`--heat changestream`), when asked for.
    pub change_heat: Option<super::change_heat::ChangeHeat>,
    /// Sampled queries for heat (`--heat sampled`), when asked for.
    pub sampled_heat: Option<super::sampled_heat::SampledHeat>,
    /// The reads the last poll was refused (Unauthorized), with what each needs.
    refused: Refusals,
    /// Whether the mongos has `$shardedDataDistribution` (6.0.3+), from its version string.
    sharded_data_distribution: bool,
    /// Its version string is before 6.0.3 (kept in the state: its balancer evens chunk counts).
    before_6_0_3: bool,
    /// The server has `$listClusterCatalog` (8.0.10+, 8.1+).
    list_cluster_catalog: bool,
    /// Which collections' `balancerCollectionStatus` are due, and the answers kept.
    compliance: super::compliance::CompliancePace,
    /// Sizes of the tracked unsharded collections (`$collStats`, paced).
    unsplittable_sizes: super::catalog::UnsplittableSizes,
    /// The shard drains watched, for their observed rate.
    drains: super::draining::DrainWatch,
    /// Wall-clock milliseconds since the epoch of poll time 0: 0 when polls are stamped with the
    /// wall clock (`watch`), the recording's start when they are stamped with trace time
    /// (`record`). Rules that compare with the wall clock (the balancing window) add it.
    pub clock_origin_ms: u64,
    since_check: super::time_check::SinceCheck,
}

/// What a poll produced: the cluster as it is now, and the new lines of its logs.
pub struct Polled<'a> {
    pub state: &'a Cluster,
    pub log: Vec<LogLine>,
}

/// `{jumbo: true}` has no index on `config.chunks` (the config server scans every chunk entry
/// of the collection to answer it), and marking a chunk jumbo announces itself with no version
/// change: the flags are re-read at most this often. Chunks that changed bring their own flag.
const JUMBO_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// How a collection's routing table is brought up to date.
enum Refresh {
    /// A new table (first poll, new incarnation, an answer that did not tile, or a collection
    /// whose chunks are inconsistent: reloaded at every poll).
    Full(Box<routing_cache::Loaded>),
    /// Patches to the kept table, and the jumbo chunks now when they were re-read.
    Patch(Vec<RangePatch>, Option<Vec<ShardKey>>),
    /// No chunk at all (`MissingRoutingTable`): left out, and said so; the rest is shown.
    Missing,
}

/// Everything a poll reads before it changes the model (so a poll cut short changes nothing).
struct Reads {
    shard_docs: Vec<ShardDoc>,
    shards: ShardList,
    colls: Vec<CollectionDoc>,
    refreshes: Vec<Refresh>,
    tags: Vec<TagDoc>,
    settings: SettingsDocs,
    databases: Vec<(String, String)>,
    untracked: Vec<super::catalog::Untracked>,
    sizes: Vec<data_sizes::ShardSize>,
}

impl Poller {
    pub fn new(client: LiveClient) -> Self {
        Self {
            client,
            version: None,
            caches: HashMap::new(),
            state: snapshot::empty(),
            logs: Box::default(),
            fetched_chunks: 0,
            change_heat: None,
            sampled_heat: None,
            refused: Refusals::default(),
            sharded_data_distribution: true,
            before_6_0_3: false,
            list_cluster_catalog: false,
            compliance: super::compliance::CompliancePace::default(),
            unsplittable_sizes: super::catalog::UnsplittableSizes::default(),
            drains: super::draining::DrainWatch::default(),
            clock_origin_ms: 0,
            since_check: super::time_check::SinceCheck::default(),
        }
    }

    /// At most `n` `balancerCollectionStatus` a poll (`usize::MAX`: every collection, every poll).
    pub fn set_compliance_budget(&mut self, n: usize) {
        self.compliance.budget = n;
    }

    /// The reads the last poll was refused, with what each needs.
    pub fn refused(&self) -> &[crate::cluster::privileges::RefusedRead] {
        &self.refused.0
    }

    /// Each collection's write counts by chunk (a key of the chunk, writes) since the last
    /// take, from change streams or sampled queries; empty with no such heat.
    pub fn take_counted(&mut self) -> Vec<(String, Vec<(crate::model::ShardKey, u64)>)> {
        let mut out = Vec::new();
        if let Some(h) = self.change_heat.as_mut() {
            out.extend(h.take_counted());
        }
        if let Some(h) = self.sampled_heat.as_mut() {
            out.extend(h.take_counted());
        }
        out
    }

    /// The migrations committed since the last take: `(at_ms, ns, min, max, donor shard)`, the
    /// bounds in the collection's shard key (entries of collections not known are left out).
    pub fn take_committed(&mut self) -> Vec<(u64, String, ShardKey, ShardKey, ShardIdx)> {
        self.logs.take_committed(&self.state)
    }

    pub fn state(&self) -> &Cluster {
        &self.state
    }

    /// The cluster as the last successful poll saw it, owned.
    pub fn into_state(self) -> Cluster {
        self.state
    }

    /// Ends the driver's sessions on the cluster and closes its connections, within `within`.
    pub async fn close(self, within: std::time::Duration) {
        self.client.close(within).await;
    }

    /// The state, the driver's sessions ended first ([`Poller::close`]).
    pub async fn finish(self) -> Cluster {
        let Self { client, state, .. } = self;
        client.close(super::client::CLOSE_WITHIN).await;
        state
    }

    /// Checks the target is a mongos and reads its version.
    async fn handshake(&mut self) -> Result<ServerVersion, LiveError> {
        if let Some(v) = self.version {
            return Ok(v);
        }
        let (v, text) = super::handshake::mongos_version(&self.client).await?;
        let sdd = data_sizes::has_sharded_data_distribution(&text);
        (self.sharded_data_distribution, self.before_6_0_3) = (sdd, !sdd);
        self.list_cluster_catalog = super::catalog::has_list_cluster_catalog(&text);
        self.version = Some(v);
        Ok(v)
    }

    /// Every document of `config.<coll>`, parsed.
    async fn parsed<T>(
        client: &LiveClient,
        coll: &str,
        parse: impl Fn(&Document) -> Result<T, super::config::ConfigError>,
    ) -> Result<Vec<T>, LiveError> {
        Self::config(client, coll, doc! {})
            .await?
            .iter()
            .map(|d| parse(d).map_err(bad))
            .collect()
    }

    async fn config(
        client: &LiveClient,
        coll: &str,
        filter: Document,
    ) -> Result<Vec<Document>, LiveError> {
        client.find("config", coll, filter, None, None).await
    }

    /// Reads what brings one collection's routing table up to date.
    async fn refresh(
        &mut self,
        coll: &CollectionDoc,
        shards: &mut ShardList,
    ) -> Result<Refresh, LiveError> {
        let owner = match coll.chunk_owner() {
            ChunkOwner::Uuid(u) => doc! {"uuid": Bson::Binary(u)},
            ChunkOwner::Ns(ns) => doc! {"ns": ns},
        };
        let consistent = |state: &Cluster| {
            state
                .collection(&coll.ns)
                .is_some_and(|c| c.inconsistencies.is_empty())
        };
        let fresh = self
            .caches
            .get(&coll.ns)
            .is_some_and(|c| !c.is_stale_for(coll))
            && consistent(&self.state);
        let kept = |state: &Cluster| state.collection(&coll.ns).map(|c| c.table.version());
        if let (true, Some(v)) = (fresh, kept(&self.state)) {
            let mut since = owner.clone();
            since.insert(
                "lastmod",
                doc! {"$gte": Bson::Timestamp(bson::Timestamp { time: v.major, increment: v.minor })},
            );
            let mut changed = routing_cache::rows(&self.client, coll, since, shards).await?;
            self.since_check.rows(&coll.ns, &mut changed);
            self.fetched_chunks += changed.len();
            let due = self
                .caches
                .get(&coll.ns)
                .is_none_or(|c| c.jumbo_read.elapsed() >= JUMBO_EVERY);
            let mut jumbo = None;
            if due {
                let mut filter = owner.clone();
                filter.insert("jumbo", true);
                let docs = routing_cache::rows(&self.client, coll, filter, shards).await?;
                self.fetched_chunks += docs.len();
                jumbo = Some(docs.into_iter().map(|r| r.min).collect());
            }
            let table = self.state.collection(&coll.ns).map(|c| &c.table);
            if let Some(Ok(patches)) =
                table.map(|t| routing_cache::patches(&coll.ns, &coll.key, t, changed))
            {
                return Ok(Refresh::Patch(patches, jumbo));
            }
        }
        // Parsed as the driver delivers each document: a full load never holds them all.
        let mut load = FullLoad::new(&coll.ns, &coll.key);
        let check = &mut self.since_check;
        check.full(&coll.ns);
        let fetched = (self.client)
            .scan("config", "chunks", owner, |raw| {
                let row = ChunkRow::parse_raw(raw, &coll.key, &mut |s| shards.index_of(s));
                let mut row = row.map_err(bad)?;
                check.row(&coll.ns, &mut row);
                load.push(row);
                Ok(())
            })
            .await?;
        self.fetched_chunks += fetched;
        let loaded = (fetched > 0).then(|| load.finish()).transpose();
        Ok(loaded
            .map_err(bad)?
            .map_or(Refresh::Missing, |l| Refresh::Full(Box::new(l))))
    }

    /// Reads the configuration: shards, collections, the changes to their routing tables, zones,
    /// settings, databases and per-shard sizes.
    async fn read(&mut self, refused: &mut Refusals) -> Result<Reads, LiveError> {
        let find = privileges::config_find;
        let shard_docs = Self::parsed(&self.client, "shards", ShardDoc::parse).await;
        let shard_docs = essential(shard_docs, &find("shards"))?;
        let mut shards = ShardList::new(&shard_docs, &self.state);
        let colls = Self::parsed(&self.client, "collections", CollectionDoc::parse).await;
        let mut colls: Vec<CollectionDoc> = essential(colls, &find("collections"))?
            .into_iter()
            .filter(super::catalog::shown)
            .collect();
        colls.sort_by(|a, b| a.ns.cmp(&b.ns));
        let mut refreshes = Vec::new();
        for c in &colls {
            let refresh = self.refresh(c, &mut shards).await;
            refreshes.push(essential(refresh, &find("chunks"))?);
        }
        let tags = Self::config(&self.client, "tags", doc! {}).await;
        let tags = refused.optional(tags, &find("tags"))?;
        let (tags, notes) = TagDoc::parse_all(&tags);
        for note in notes {
            refused.say(crate::cluster::privileges::Feeds::Shards, note);
        }
        let settings = Self::config(&self.client, "settings", doc! {}).await;
        let settings =
            SettingsDocs::parse(&refused.optional(settings, &find("settings"))?).map_err(bad)?;
        for note in &settings.notes {
            refused.say(crate::cluster::privileges::Feeds::Balancer, note.clone());
        }
        let databases = Self::config(&self.client, "databases", doc! {}).await;
        let databases: Vec<(String, String)> = refused
            .optional(databases, &find("databases"))?
            .iter()
            .filter_map(|d| {
                Some((
                    d.get_str("_id").ok()?.to_string(),
                    d.get_str("primary").ok()?.to_string(),
                ))
            })
            .collect();
        let mut untracked = Vec::new();
        if self.list_cluster_catalog {
            untracked =
                super::catalog::untracked(&self.client, &colls, &databases, refused).await?;
        }
        let names: Vec<String> = super::catalog::sharded_names(&colls);
        let sdd = &mut self.sharded_data_distribution;
        let mut sizes = data_sizes::read(&self.client, sdd, names, refused).await?;
        let unsharded = self
            .unsplittable_sizes
            .read(&self.client, &colls, &untracked, refused);
        sizes.extend(unsharded.await?);
        Ok(Reads {
            shard_docs,
            shards,
            colls,
            refreshes,
            tags,
            settings,
            databases,
            untracked,
            sizes,
        })
    }

    /// Brings the kept model up to date with what a poll read (no I/O: all or nothing).
    fn install(
        &mut self,
        version: ServerVersion,
        reads: Reads,
        refused: &mut Refusals,
    ) -> Result<(), LiveError> {
        let renumber = reads.shards.renumbering(&self.state);
        let renumbered = renumber.iter().enumerate().any(|(i, s)| s.index() != i);
        let mut kept: HashMap<String, RoutingTable> = std::mem::take(&mut self.state.collections)
            .into_iter()
            .map(|c| (c.ns, c.table))
            .collect();
        let mut caches = std::mem::take(&mut self.caches);
        let mut collections = Vec::new();
        for (coll, refresh) in reads.colls.iter().zip(reads.refreshes) {
            let mut inconsistencies = Vec::new();
            let (table, cache) = match refresh {
                Refresh::Full(loaded) => {
                    let loaded = *loaded;
                    inconsistencies = loaded.inconsistencies;
                    (loaded.table, CachedRouting::new(coll, loaded.jumbo))
                }
                Refresh::Patch(patches, jumbo) => {
                    let mut table = kept
                        .remove(&coll.ns)
                        .ok_or_else(|| bad("a kept routing table vanished"))?;
                    if renumbered {
                        table.renumber_shards(&renumber);
                    }
                    let mut cache = caches
                        .remove(&coll.ns)
                        .ok_or_else(|| bad("a routing cache vanished"))?;
                    cache.patch(&mut table, patches, jumbo).map_err(bad)?;
                    (table, cache)
                }
                Refresh::Missing => {
                    super::inconsistency::say_missing(refused, &coll.ns);
                    continue;
                }
            };
            self.caches.insert(coll.ns.clone(), cache);
            let (mut c, notes) = snapshot::collection(coll, table, &reads.tags);
            for note in notes {
                refused.say(crate::cluster::privileges::Feeds::Shards, note);
            }
            c.inconsistencies = inconsistencies;
            super::catalog::mark(coll, &mut c);
            collections.push(c);
        }
        let mut shards = reads.shards;
        (reads.untracked.iter())
            .filter_map(|u| super::catalog::untracked_collection(u, &mut shards))
            .for_each(|c| collections.push(c));
        let snap = ConfigSnapshot {
            version,
            shards: &reads.shard_docs,
            settings: &reads.settings,
            databases: &reads.databases,
            tags: &reads.tags,
        };
        let mut cluster = snapshot::cluster(&snap, shards, collections);
        data_sizes::spread(&mut cluster, &reads.sizes);
        cluster.before_6_0_3 = self.before_6_0_3;
        self.state = cluster;
        Ok(())
    }

    /// One poll.
    pub async fn poll(&mut self, now_ms: u64) -> Result<Polled<'_>, LiveError> {
        let version = self.handshake().await?;
        (self.fetched_chunks, self.since_check.clock_ms) = (0, now_ms + self.clock_origin_ms);
        let mut refused = Refusals::default();
        let reads = self.read(&mut refused).await?;
        let log = self
            .logs
            .read(&self.client, now_ms, self.clock_origin_ms)
            .await;
        let log = refused.optional(log, &privileges::config_find("changelog"))?;
        let status = self
            .client
            .command("admin", doc! {"balancerStatus": 1})
            .await;
        let status = refused.optional(status, &privileges::balancer_status())?;
        let ops = balancer_status::current_migrations(&self.client).await;
        let ops = refused.optional(ops, &privileges::current_op())?;
        let sized = data_sizes::sized(&reads.sizes);
        refused
            .0
            .extend(data_sizes::invalid_notes(&reads.sizes, version));
        let reshardings = super::resharding_progress::read(&self.client, version, &mut refused);
        let reshardings = reshardings.await?;
        self.install(version, reads, &mut refused)?;
        let notes = self.since_check.notes().into_iter();
        (refused.0).extend(notes.chain(self.logs.notes()));
        super::resharding_progress::attach(&mut self.state, &reshardings);
        let derived = super::draining::derive_all(&self.state);
        let drains = (self.drains)
            .read(&self.client, version, derived, &mut refused, now_ms)
            .await;
        // balancerCollectionStatus is for sharded collections only (not tracked unsharded ones).
        let colls: Vec<(String, crate::model::ChunkVersion)> = (self.state.collections.iter())
            .filter(|c| c.placement == crate::cluster::Placement::Sharded)
            .map(|c| (c.ns.clone(), c.table.version()))
            .collect();
        let why_not = (self.compliance)
            .ask(&self.client, &colls, &mut refused)
            .await;
        self.state.poll_notes = refused.kept();
        self.refused = refused;
        let read = balancer_status::BalancerRead {
            status: &status,
            ops: &ops,
            compliance: why_not,
            sized: &sized,
            drains,
        };
        balancer_status::install(
            &mut self.state,
            read,
            &self.logs,
            (now_ms, self.clock_origin_ms),
        );
        // The poll's time first: the write heat of this poll is stamped with it.
        self.state.advance_clock(now_ms);
        if let Some(heat) = self.change_heat.as_mut() {
            let notes = heat.observe(&self.client, &mut self.state).await;
            if !notes.is_empty() {
                for note in notes {
                    self.refused
                        .say(crate::cluster::privileges::Feeds::Heat, note);
                }
                self.state.poll_notes = self.refused.kept();
            }
        }
        if let Some(heat) = self.sampled_heat.as_mut() {
            heat.observe(&self.client, &mut self.state).await;
        }
        Ok(Polled {
            state: &self.state,
            log,
        })
    }
}
