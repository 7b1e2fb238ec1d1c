//! One poll of a live cluster through a mongos: what it reads (config.shards, collections,
//! chunks — incrementally —, tags, settings, databases, balancerStatus, per-shard data sizes, the
//! tails of the changelog and the actionlog) and the simulator-shaped state it makes of it, so
//! the summary and the TUI work unchanged. Data sizes per chunk are not known to a mongos: each shard's owned bytes and
//! documents are spread evenly over that shard's chunks of the collection.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::client::{LiveClient, LiveError};
use super::config::{ChunkDoc, ChunkOwner, CollectionDoc, SettingsDocs, ShardDoc, TagDoc};
use super::routing_cache::CachedRouting;
use super::snapshot::{self, ConfigSnapshot};
use crate::model::ChunkStats;
use crate::sim::engine::{BalancerState, RoundInProgress};
use crate::sim::{ServerVersion, Simulator};
use crate::view::LogLine;

fn bad(e: impl std::fmt::Display) -> LiveError {
    LiveError {
        message: e.to_string(),
        input: false,
    }
}

/// The poller's memory between polls.
pub struct Poller {
    pub client: LiveClient,
    pub version: Option<ServerVersion>,
    caches: HashMap<String, CachedRouting>,
    logs: super::logs::LogTails,
    /// Chunk documents fetched by the last poll (the polling cost).
    pub fetched_chunks: usize,
    /// Change streams for write heat (`--heat changestream`), when asked for.
    pub change_heat: Option<super::change_heat::ChangeHeat>,
    /// Sampled queries for heat (`--heat sampled`), when asked for.
    pub sampled_heat: Option<super::sampled_heat::SampledHeat>,
}

/// What a poll produced.
pub struct Polled {
    pub state: Simulator,
    pub log: Vec<LogLine>,
}

impl Poller {
    pub fn new(client: LiveClient) -> Self {
        Self {
            client,
            version: None,
            caches: HashMap::new(),
            logs: super::logs::LogTails::default(),
            fetched_chunks: 0,
            change_heat: None,
            sampled_heat: None,
        }
    }

    /// Checks the target is a mongos and reads its version.
    async fn handshake(&mut self) -> Result<ServerVersion, LiveError> {
        if let Some(v) = self.version {
            return Ok(v);
        }
        let hello = self.client.command("admin", doc! {"hello": 1}).await?;
        if hello.get_str("msg") != Ok("isdbgrid") {
            let what = if hello.get_str("setName").is_ok() {
                "a replica-set member"
            } else {
                "a standalone mongod"
            };
            return Err(bad(format!(
                "{} is {what}, not a mongos (hello.msg is not \"isdbgrid\"): point shardtop at a mongos of the sharded cluster",
                self.client.target()
            )));
        }
        let info = self.client.command("admin", doc! {"buildInfo": 1}).await?;
        let text = info.get_str("version").unwrap_or("8.0");
        let v = text.parse::<ServerVersion>().map_err(bad)?;
        self.version = Some(v);
        Ok(v)
    }

    /// Every document of `config.<coll>`, parsed.
    async fn parsed<T>(
        &self,
        coll: &str,
        parse: impl Fn(&Document) -> Result<T, super::config::ConfigError>,
    ) -> Result<Vec<T>, LiveError> {
        self.config(coll, doc! {})
            .await?
            .iter()
            .map(|d| parse(d).map_err(bad))
            .collect()
    }

    async fn config(&self, coll: &str, filter: Document) -> Result<Vec<Document>, LiveError> {
        self.client.find("config", coll, filter, None, None).await
    }

    /// Loads or refreshes the routing cache of one collection.
    async fn refresh(&mut self, coll: &CollectionDoc) -> Result<(), LiveError> {
        let owner = match coll.chunk_owner() {
            ChunkOwner::Uuid(u) => doc! {"uuid": Bson::Binary(u)},
            ChunkOwner::Ns(ns) => doc! {"ns": ns},
        };
        let parse = |docs: Vec<Document>| -> Result<Vec<ChunkDoc>, LiveError> {
            docs.iter()
                .map(|d| ChunkDoc::parse(d, &coll.key).map_err(bad))
                .collect()
        };
        let cached = self.caches.get(&coll.ns).filter(|c| !c.is_stale_for(coll));
        let Some(cache) = cached else {
            // Parsed batch by batch: a full load never holds every chunk's raw document.
            let mut chunks = Vec::new();
            let cmd = doc! {"find": "chunks", "filter": owner, "batchSize": 10_000};
            self.client
                .drain_batches("config", cmd, |docs| {
                    chunks.extend(parse(docs)?);
                    Ok(())
                })
                .await?;
            self.fetched_chunks += chunks.len();
            let cache = CachedRouting::load(coll, chunks).map_err(bad)?;
            self.caches.insert(coll.ns.clone(), cache);
            return Ok(());
        };
        let v = cache.version();
        let mut since = owner.clone();
        since.insert(
            "lastmod",
            doc! {"$gte": Bson::Timestamp(bson::Timestamp { time: v.major, increment: v.minor })},
        );
        let changed = parse(self.config("chunks", since).await?)?;
        let mut jumbo = owner;
        jumbo.insert("jumbo", true);
        let jumbo_docs = self.config("chunks", jumbo).await?;
        let jumbo = parse(jumbo_docs)?;
        self.fetched_chunks += changed.len() + jumbo.len();
        let cache = self
            .caches
            .get_mut(&coll.ns)
            .ok_or_else(|| bad("cache vanished"))?;
        cache.apply(changed);
        cache.set_jumbo(&jumbo.into_iter().map(|c| c.min).collect::<Vec<_>>());
        cache.check().map_err(bad)
    }

    /// One poll that gives up after `limit` (a server that stops answering).
    pub async fn poll_within(
        &mut self,
        now_ms: u64,
        limit: std::time::Duration,
    ) -> Result<Polled, LiveError> {
        tokio::time::timeout(limit, self.poll(now_ms))
            .await
            .unwrap_or_else(|_| {
                Err(LiveError {
                    message: format!(
                        "{} stopped answering: no reply to the poll within {} s",
                        self.client.target(),
                        limit.as_secs()
                    ),
                    input: false,
                })
            })
    }

    /// One poll.
    pub async fn poll(&mut self, now_ms: u64) -> Result<Polled, LiveError> {
        let version = self.handshake().await?;
        self.fetched_chunks = 0;
        let shards = self.parsed("shards", ShardDoc::parse).await?;
        let colls = self.parsed("collections", CollectionDoc::parse).await?;
        let colls: Vec<CollectionDoc> = colls
            .into_iter()
            .filter(CollectionDoc::is_sharded)
            .collect();
        for c in &colls {
            self.refresh(c).await?;
        }
        self.caches
            .retain(|ns, _| colls.iter().any(|c| &c.ns == ns));
        let tags = self.parsed("tags", TagDoc::parse).await?;
        let settings =
            SettingsDocs::parse(&self.config("settings", doc! {}).await?).map_err(bad)?;
        let databases: Vec<(String, String)> = self
            .config("databases", doc! {})
            .await?
            .iter()
            .filter_map(|d| {
                Some((
                    d.get_str("_id").ok()?.to_string(),
                    d.get_str("primary").ok()?.to_string(),
                ))
            })
            .collect();
        let pairs: Vec<(&CollectionDoc, &CachedRouting)> = colls
            .iter()
            .filter_map(|c| self.caches.get(&c.ns).map(|r| (c, r)))
            .collect();
        let cluster = snapshot::cluster(&ConfigSnapshot {
            version,
            shards: &shards,
            settings: &settings,
            databases: &databases,
            collections: &pairs,
            tags: &tags,
        })
        .map_err(bad)?;
        let mut state = Simulator::from_cluster(cluster);
        self.data_sizes(&mut state).await?;
        let log = self.logs.read(&self.client).await?;
        let status = self
            .client
            .command("admin", doc! {"balancerStatus": 1})
            .await?;
        state.balancer = BalancerState {
            rounds: status
                .get_i64("numBalancerRounds")
                .or_else(|_| status.get_i32("numBalancerRounds").map(i64::from))
                .unwrap_or(0) as u64,
            round: status
                .get_bool("inBalancerRound")
                .unwrap_or(false)
                .then_some(RoundInProgress {
                    number: 0,
                    started_ms: now_ms,
                    candidates: 0,
                    migration_ids: Vec::new(),
                    moved: 0,
                    failed: 0,
                }),
            completed: self.logs.completed,
            failed: self.logs.failed,
            ..BalancerState::default()
        };
        state.cluster.settings.balancer_enabled &= status.get_str("mode") != Ok("off");
        let names = state.cluster.namespaces();
        state.balancer.why_not = self.compliance(names).await;
        if let Some(e) = &self.logs.round_error {
            state
                .balancer
                .why_not
                .push(format!("the last balancer round failed: {e}"));
        }
        let ops = self.current_migrations().await;
        state.balancer.in_flight = ops
            .iter()
            .enumerate()
            .filter_map(|(k, op)| in_flight(&state, op, now_ms, k as u64 + 1))
            .collect();
        if let Some(heat) = self.change_heat.as_mut() {
            heat.observe(&self.client, &mut state).await;
        }
        if let Some(heat) = self.sampled_heat.as_mut() {
            heat.observe(&self.client, &mut state).await;
        }
        state.replay_clock(now_ms);
        Ok(Polled { state, log })
    }

    /// Migrations in flight, as `$currentOp` shows the donors' `moveChunk` /
    /// `_shardsvrMoveRange` commands; a cluster that refuses the stage (privileges) shows none.
    async fn current_migrations(&self) -> Vec<Document> {
        let cmd = doc! {"aggregate": 1, "pipeline": [
            {"$currentOp": {"allUsers": true, "localOps": false}},
            {"$match": {"$or": [
                {"command.moveChunk": {"$exists": true}},
                {"command._shardsvrMoveRange": {"$exists": true}},
            ]}},
        ], "cursor": {}};
        self.client.drain("admin", cmd).await.unwrap_or_default()
    }

    /// `balancerCollectionStatus` of each collection, in words; a cluster that refuses the
    /// command (privileges, version) just gives no reason.
    async fn compliance(&self, names: Vec<String>) -> Vec<String> {
        let mut out = Vec::new();
        for ns in names {
            let Ok(r) = self
                .client
                .command("admin", doc! {"balancerCollectionStatus": ns.as_str()})
                .await
            else {
                continue;
            };
            if r.get_bool("balancerCompliant").unwrap_or(true) {
                out.push(format!("{ns}: balanced (balancerCompliant)"));
            } else {
                let why = r
                    .get_str("firstComplianceViolation")
                    .unwrap_or("not compliant");
                out.push(format!("{ns}: {why}"));
            }
        }
        out
    }

    /// Per-shard owned documents and bytes: `$shardedDataDistribution` (6.0.3+), else
    /// `$collStats` per collection.
    async fn data_sizes(&self, state: &mut Simulator) -> Result<(), LiveError> {
        let version = self.version.unwrap_or(ServerVersion::DEFAULT);
        let mut per: Vec<(String, String, u64, u64)> = Vec::new();
        if version >= ServerVersion::V6_0 {
            let rows = self
                .client
                .drain("admin", doc! {"aggregate": 1, "pipeline": [{"$shardedDataDistribution": {}}], "cursor": {}})
                .await?;
            for r in rows {
                let ns = r.get_str("ns").unwrap_or_default().to_string();
                for s in r.get_array("shards").map(Vec::as_slice).unwrap_or_default() {
                    let Some(s) = s.as_document() else { continue };
                    per.push((
                        ns.clone(),
                        s.get_str("shardName").unwrap_or_default().to_string(),
                        number(s, "numOwnedDocuments"),
                        number(s, "ownedSizeBytes"),
                    ));
                }
            }
        } else {
            let names = state.cluster.namespaces();
            for ns in names {
                let (db, coll) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
                let rows = self
                    .client
                    .drain(db, doc! {"aggregate": coll, "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}})
                    .await?;
                for r in rows {
                    let stats = r.get_document("storageStats").cloned().unwrap_or_default();
                    per.push((
                        ns.clone(),
                        r.get_str("shard").unwrap_or_default().to_string(),
                        number(&stats, "count"),
                        number(&stats, "size"),
                    ));
                }
            }
        }
        for (ns, shard, docs, bytes) in per {
            spread(state, &ns, &shard, docs, bytes);
        }
        Ok(())
    }
}

pub(super) fn number(d: &Document, key: &str) -> u64 {
    match d.get(key) {
        Some(Bson::Int32(n)) => (*n).max(0) as u64,
        Some(Bson::Int64(n)) => (*n).max(0) as u64,
        Some(Bson::Double(n)) if *n > 0.0 => *n as u64,
        _ => 0,
    }
}

/// Spreads a shard's owned documents and bytes evenly over its chunks of `ns`.
fn spread(state: &mut Simulator, ns: &str, shard: &str, docs: u64, bytes: u64) {
    let Some(s) = state.cluster.shard_index(shard) else {
        return;
    };
    let Some(c) = state.cluster.collection_index(ns) else {
        return;
    };
    let table = &mut state.cluster.collections[c].table;
    let mine: Vec<usize> = table
        .iter()
        .filter(|ch| ch.info.shard == s)
        .map(|ch| ch.index)
        .collect();
    let n = mine.len() as u64;
    for (k, &i) in mine.iter().enumerate() {
        let extra = |total: u64| total / n + u64::from((k as u64) < total % n);
        table.add_stats(i, ChunkStats::new(extra(docs), extra(bytes), 0));
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Connects and polls once.
pub async fn poll_once(uri: &str, timeout: std::time::Duration) -> Result<Polled, LiveError> {
    let client = LiveClient::connect(uri, timeout).await?;
    let mut poller = Poller::new(client);
    poller
        .poll_within(now_ms(), timeout.max(std::time::Duration::from_secs(1)) * 3)
        .await
}

/// One `$currentOp` migration as the simulator's `Migration`; its end is unknown, so
/// `finish_ms` = `started_ms` (the view shows no progress).
fn in_flight(
    state: &Simulator,
    op: &Document,
    now_ms: u64,
    id: u64,
) -> Option<crate::sim::engine::Migration> {
    let cmd = op.get_document("command").ok()?;
    let ns = cmd
        .get_str("moveChunk")
        .or_else(|_| cmd.get_str("_shardsvrMoveRange"))
        .ok()?;
    let c = state.cluster.collection(ns)?;
    let min = c
        .pattern
        .bound_from_document(cmd.get_document("min").ok()?)
        .ok()?;
    let max = match cmd.get_document("max") {
        Ok(d) => c.pattern.bound_from_document(d).ok()?,
        Err(_) => c.table.chunk(c.table.route(&min)).max.clone(),
    };
    let from = state.cluster.shard_index(cmd.get_str("fromShard").ok()?)?;
    let to = state.cluster.shard_index(cmd.get_str("toShard").ok()?)?;
    let secs = op
        .get_i64("secs_running")
        .or_else(|_| op.get_i32("secs_running").map(i64::from))
        .unwrap_or(0)
        .max(0) as u64;
    let started_ms = now_ms.saturating_sub(secs * 1000);
    Some(crate::sim::engine::Migration {
        id,
        ns: ns.to_string(),
        min,
        end: None,
        max,
        from,
        to,
        started_ms,
        finish_ms: started_ms,
        bytes: 0,
        reason: crate::sim::event::MigrationReason::ChunksImbalance,
    })
}
