//! The reads of one poll, before anything changes: the shards, the collections and what brings
//! each routing table up to date (incrementally, by `lastmod`, or a full load), zones, settings,
//! databases and per-shard sizes.
//!
//! Owns: what a poll reads of `config.*` and how a routing table is refreshed. May not touch: the
//! kept model (`install` changes it, all or nothing).

use bson::{Bson, Document, doc};

use super::{Poller, bad};
use crate::cluster::Cluster;
use crate::live::client::{LiveClient, LiveError};
use crate::live::config::{ChunkOwner, ChunkRow, CollectionDoc, SettingsDocs, ShardDoc, TagDoc};
use crate::live::data_sizes;
use crate::live::privileges;
use crate::live::refusals::{Refusals, essential};
use crate::live::routing_cache::{self, FullLoad};
use crate::live::snapshot::ShardList;
use crate::model::{RangePatch, ShardKey};

/// `{jumbo: true}` has no index on `config.chunks` (the config server scans every chunk entry
/// of the collection to answer it), and marking a chunk jumbo announces itself with no version
/// change: the flags are re-read at most this often. Chunks that changed bring their own flag.
const JUMBO_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// How a collection's routing table is brought up to date.
pub(super) enum Refresh {
    /// A new table (first poll, new incarnation, an answer that did not tile, or a collection
    /// whose chunks are inconsistent: reloaded at every poll).
    Full(Box<routing_cache::Loaded>),
    /// Patches to the kept table, and the jumbo chunks now when they were re-read.
    Patch(Vec<RangePatch>, Option<Vec<ShardKey>>),
    /// No chunk at all (`MissingRoutingTable`): left out, and said so; the rest is shown.
    Missing,
}

/// Everything a poll reads before it changes the model (so a poll cut short changes nothing).
pub(super) struct Reads {
    pub(super) shard_docs: Vec<ShardDoc>,
    pub(super) shards: ShardList,
    pub(super) colls: Vec<CollectionDoc>,
    pub(super) refreshes: Vec<Refresh>,
    pub(super) tags: Vec<TagDoc>,
    pub(super) settings: SettingsDocs,
    pub(super) databases: Vec<(String, String)>,
    pub(super) untracked: Vec<crate::live::catalog::Untracked>,
    pub(super) sizes: Vec<data_sizes::ShardSize>,
}

impl Poller {
    /// Every document of `config.<coll>`, parsed.
    async fn parsed<T>(
        client: &LiveClient,
        coll: &str,
        parse: impl Fn(&Document) -> Result<T, crate::live::config::ConfigError>,
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
    pub(super) async fn read(&mut self, refused: &mut Refusals) -> Result<Reads, LiveError> {
        let find = privileges::config_find;
        let shard_docs = Self::parsed(&self.client, "shards", ShardDoc::parse).await;
        let shard_docs = essential(shard_docs, &find("shards"))?;
        let mut shards = ShardList::new(&shard_docs, &self.state);
        let colls = Self::parsed(&self.client, "collections", CollectionDoc::parse).await;
        let mut colls: Vec<CollectionDoc> = essential(colls, &find("collections"))?
            .into_iter()
            .filter(crate::live::catalog::shown)
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
                crate::live::catalog::untracked(&self.client, &colls, &databases, refused).await?;
        }
        let names: Vec<String> = crate::live::catalog::sharded_names(&colls);
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
}
