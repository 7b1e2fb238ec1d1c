//! One poll of a live cluster through a mongos: what it reads (config.shards, collections,
//! chunks — incrementally —, tags, settings, databases, balancerStatus, per-shard data sizes, the
//! tails of the changelog and the actionlog) and the cluster state it makes of it, which the
//! summary and the TUI read as they read the simulator's. The poller keeps that state between
//! polls and patches its routing tables in place.

use std::collections::HashMap;

use bson::doc;

use super::balancer_status;
use super::client::{LiveClient, LiveError};
use super::data_sizes;
use super::privileges;
use super::refusals::Refusals;
use super::routing_cache::CachedRouting;
use super::snapshot;
use crate::cluster::Cluster;
use crate::cluster::ServerVersion;
use crate::model::{ShardIdx, ShardKey};
use crate::view::LogLine;

pub use super::one_poll::{OnePoll, now_ms, poll_once};

mod install;
mod reads;

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
