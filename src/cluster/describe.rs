//! One-line, human-readable descriptions of events (the event log of `sim --events` and the TUI).

use super::Cluster;
use super::event::{Event, EventKind, MigrationRange};
use super::resharding::Provenance;
use crate::model::{ShardIdx, ShardKey};
use crate::units::human_bytes;

impl Cluster {
    /// A bound as mongosh prints it: `{_id: ObjectId("…")}`, `{x: MinKey}`, `{h: NumberLong(…)}`,
    /// `{t: ISODate("…Z")}`.
    pub fn bound_text(&self, ns: &str, key: &ShardKey) -> String {
        match self.collection(ns) {
            Some(c) => {
                let fields = c.pattern.fields();
                let parts: Vec<String> = key
                    .values()
                    .enumerate()
                    .map(|(i, v)| {
                        let name = fields.get(i).map_or("?", |f| &*f.path);
                        format!(
                            "{name}: {}",
                            crate::model::mongosh_text::value(&crate::model::extjson::to_bson(v))
                        )
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            None => crate::model::shell_text::stripped_key(key),
        }
    }

    /// A bound as the server prints it in messages: `{ x: MinKey }`, `{ h: 42 }`.
    pub fn bound_server_text(&self, ns: &str, key: &ShardKey) -> String {
        match self.collection(ns) {
            Some(c) => crate::model::shell_text::document(&c.pattern.bound_to_document(key)),
            None => crate::model::shell_text::stripped_key(key),
        }
    }

    /// `app.events [{x: 1}, {x: 2}) on shard0000`.
    fn range_on(&self, ns: &str, min: &ShardKey, max: &ShardKey, shard: ShardIdx) -> String {
        format!(
            "{ns} [{}, {}) on {}",
            self.bound_text(ns, min),
            self.bound_text(ns, max),
            self.shard_id(shard)
        )
    }

    /// `#3 app.events shard0000 → shard0001`.
    fn migration_head(&self, r: &MigrationRange) -> String {
        format!(
            "#{} {} {} → {}",
            r.id,
            r.ns,
            self.shard_id(r.from),
            self.shard_id(r.to)
        )
    }

    /// `"  12.3s  moveChunk.commit  app.events [{_id: …}, {_id: …}) shard0000 → shard0001 …"`.
    pub fn describe(&self, e: &Event) -> String {
        format!(
            "{:>8.1}s  {:<28} {}",
            e.at_ms as f64 / 1000.0,
            e.kind.what(),
            self.describe_detail(e)
        )
    }

    /// What happened, without the time and the `what`.
    #[allow(clippy::too_many_lines)] // one arm per event kind
    pub fn describe_detail(&self, e: &Event) -> String {
        let id = |s| self.shard_id(s).to_string();
        match &e.kind {
            EventKind::ShardAdded { id: name, .. } => format!("shard {name}"),
            EventKind::CollectionSharded {
                ns, key, chunks, ..
            } => {
                format!(
                    "{ns} key {key}, {}",
                    crate::units::count(*chunks as u64, "initial chunk")
                )
            }
            EventKind::Split {
                ns,
                min,
                max,
                points,
                shard,
                cause,
                ..
            } => format!(
                "{} at {} ({cause:?})",
                self.range_on(ns, min, max, *shard),
                points
                    .iter()
                    .map(|p| self.bound_text(ns, p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            EventKind::SplitFailed {
                ns,
                min,
                max,
                shard,
                error,
            } => {
                format!("{}: {error}", self.range_on(ns, min, max, *shard))
            }
            EventKind::Merge {
                ns,
                min,
                max,
                shard,
                chunks,
                auto,
            } => {
                format!(
                    "{}: {}{}",
                    self.range_on(ns, min, max, *shard),
                    crate::units::count(*chunks as u64, "chunk"),
                    if *auto { " (AutoMerger)" } else { "" }
                )
            }
            EventKind::MigrationStarted {
                range: r,
                reason,
                bytes,
            } => format!(
                "{} [{}, {}) ({}, {})",
                self.migration_head(r),
                self.bound_text(&r.ns, &r.min),
                self.bound_text(&r.ns, &r.max),
                human_bytes(*bytes),
                reason.as_str()
            ),
            EventKind::MigrationCommitted {
                range: r,
                moved,
                millis,
            } => format!(
                "{}: {}, {} in {:.1}s",
                self.migration_head(r),
                crate::units::count(moved.docs, "doc"),
                human_bytes(moved.bytes),
                *millis as f64 / 1000.0
            ),
            EventKind::MigrationFailed { range: r, error } => {
                format!("{}: {error}", self.migration_head(r))
            }
            EventKind::JumboMarked {
                ns,
                min,
                max,
                shard,
            } => {
                format!("{} is jumbo", self.range_on(ns, min, max, *shard))
            }
            EventKind::RangeDeleted {
                ns,
                min,
                max,
                shard,
                docs,
                bytes,
            } => {
                format!(
                    "{}: {docs} orphaned docs, {} deleted",
                    self.range_on(ns, min, max, *shard),
                    human_bytes(*bytes)
                )
            }
            EventKind::JumboCleared {
                ns,
                min,
                max,
                shard,
            } => {
                format!(
                    "{}: jumbo flag cleared",
                    self.range_on(ns, min, max, *shard)
                )
            }
            EventKind::BalancerRound {
                round,
                candidates,
                moved,
                failed,
                why_not,
                ..
            } => {
                let why = if why_not.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", why_not.join("; "))
                };
                format!(
                    "round {round}: {}, {moved} moved, {failed} failed{why}",
                    crate::units::count(*candidates as u64, "candidate")
                )
            }
            EventKind::BalancerSet { enabled } => (if *enabled {
                "balancer started"
            } else {
                "balancer stopped"
            })
            .to_string(),
            EventKind::ChunkSizeSet { bytes } => format!("chunk size {}", human_bytes(*bytes)),
            EventKind::AttemptToBalanceJumboChunksSet { enabled } => format!(
                "attemptToBalanceJumboChunks {}",
                if *enabled { "on" } else { "off" }
            ),
            EventKind::AutoMergerSet { enabled } => (if *enabled {
                "AutoMerger started"
            } else {
                "AutoMerger stopped"
            })
            .to_string(),
            EventKind::CollectionBalancingSet {
                ns,
                max_chunk_size_bytes,
                auto_merge,
                no_balance,
                migrations_blocked,
            } => {
                let size = max_chunk_size_bytes.map_or_else(
                    || "the cluster's chunk size".to_string(),
                    |b| format!("chunk size {}", human_bytes(b)),
                );
                let merge = match auto_merge {
                    Some(true) => ", AutoMerger on",
                    Some(false) => ", AutoMerger off",
                    None => "",
                };
                let off = if *no_balance {
                    ", balancing disabled (noBalance)"
                } else {
                    ""
                };
                let blocked = if *migrations_blocked {
                    ", migrations not allowed (permitMigrations: false)"
                } else {
                    ""
                };
                format!("{ns}: {size}{merge}{off}{blocked}")
            }
            EventKind::DefragmentationPhaseSet { ns, phase } => match phase {
                Some(p) => format!("{ns}: defragmentation phase {}", p.as_str()),
                None => format!("{ns}: defragmentation finished"),
            },
            EventKind::IndexCreated { ns, key, unique } => {
                format!("{ns} {key}{}", if *unique { " unique" } else { "" })
            }
            EventKind::KeyRefined { ns, key } => format!("{ns} key now {key}"),
            EventKind::ShardDraining { shard } => format!("{} is draining", id(*shard)),
            EventKind::ShardRemoved { shard } => format!("{} drained and removed", id(*shard)),
            EventKind::PrimaryMoved { db, from, to } => {
                format!("database {db}: primary {} → {}", id(*from), id(*to))
            }
            EventKind::ShardDrainingStopped { shard } => {
                format!("{} stopped draining", id(*shard))
            }
            EventKind::ShardZoneSet {
                shard,
                zone,
                member,
            } => {
                format!(
                    "{} {} zone {zone}",
                    id(*shard),
                    if *member { "joins" } else { "leaves" }
                )
            }
            EventKind::ZoneRangeSet { ns, min, max, zone } => format!(
                "{ns} [{}, {}) → {}",
                self.bound_text(ns, min),
                self.bound_text(ns, max),
                zone.as_deref().unwrap_or("no zone (range removed)")
            ),
            EventKind::Writes { ns, chunks } => {
                let docs: u64 = chunks.iter().map(|c| c.stats.writes).sum();
                format!(
                    "{ns} {} to {}",
                    crate::units::count(docs, "write"),
                    crate::units::count(chunks.len() as u64, "chunk")
                )
            }
            EventKind::BalancerRoundStarted {
                round, candidates, ..
            } => format!(
                "round {round}: {}",
                crate::units::count(*candidates as u64, "candidate")
            ),
            EventKind::BalancerIdle { why_not } => why_not.join("; "),
            EventKind::IndexDropped { ns, key } => format!("{ns} {key}"),
            EventKind::CollectionDropped { ns } => ns.clone(),
            EventKind::ShardKeyUpdated { ns, from, to, .. } => {
                let on = |k: &ShardKey| {
                    self.collection(ns).map_or("?".to_string(), |c| {
                        id(c.table.chunk(c.table.route(k)).info.shard)
                    })
                };
                format!(
                    "{ns} {} on {} → {} on {}",
                    self.bound_text(ns, from),
                    on(from),
                    self.bound_text(ns, to),
                    on(to)
                )
            }
            EventKind::DocumentDeleted { ns, key, bytes } => {
                format!("{ns} {} ({bytes} bytes)", self.bound_text(ns, key))
            }
            EventKind::PendingZoneRangeSet { ns, min, max, zone } => format!(
                "{ns} (not sharded yet) [{min}, {max}) → {}",
                zone.as_deref().unwrap_or("no zone (range removed)")
            ),
            EventKind::ReshardingStarted {
                ns,
                key,
                docs,
                bytes,
                clone_ms,
                provenance,
                ..
            } => format!(
                "{}{ns} to {key}: cloning {docs} docs ({}), critical section in {:.1}s",
                match provenance {
                    Provenance::ReshardCollection => "",
                    Provenance::MoveCollection => "moveCollection: ",
                    Provenance::UnshardCollection => "unshardCollection: ",
                },
                human_bytes(*bytes),
                *clone_ms as f64 / 1000.0
            ),
            EventKind::ReshardingCommitted {
                ns,
                key,
                layout,
                millis,
                critical_section_ms,
                blocked_writes,
                unsplittable,
                ..
            } => {
                let now = if *unsplittable {
                    format!(
                        "now unsharded on {}",
                        layout.first().map_or("?", |c| self.shard_id(c.1))
                    )
                } else {
                    format!(
                        "key now {key}: {}",
                        crate::units::count(layout.len() as u64, "chunk")
                    )
                };
                format!(
                    "{ns} {now}, {:.1}s, critical section {critical_section_ms} ms ({blocked_writes} writes waited)",
                    *millis as f64 / 1000.0
                )
            }
            EventKind::ReshardingAborted { ns, key, error } => format!("{ns} to {key}: {error}"),
            EventKind::ActionFailed {
                path,
                command,
                error,
            } => format!("{command} ({path}) refused: {error}"),
        }
    }
}
