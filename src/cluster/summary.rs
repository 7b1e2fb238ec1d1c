//! The contract's JSON summary (`--json`) of a cluster state; its text twin is [`text`].

use serde_json::{Value, json};

use super::Cluster;
use super::Collection;
use crate::model::ShardIdx;

mod text;

/// Options of the summary.
#[derive(Clone, Debug, Default)]
pub struct SummaryOptions {
    /// `"sim:ascending"`, `"replay:<file>"`, …
    pub source: String,
    /// Include every chunk (`--chunks`).
    pub chunks: bool,
    /// No write signal (a live cluster without heat): `writes` are `null`.
    pub writes_unknown: bool,
}

impl Cluster {
    /// The JSON summary of the contract.
    pub fn summary_json(&self, opts: &SummaryOptions) -> Value {
        let cluster = self;
        let shards: Vec<Value> = cluster
            .shards
            .iter()
            .filter(|s| !s.removed)
            .map(|s| json!({"id": s.shard.id, "zones": s.shard.zones.iter().collect::<Vec<_>>(), "draining": s.shard.draining, "inConfigShards": !s.unlisted, "configShard": s.shard.is_config_shard()}))
            .collect();
        let collections: Vec<Value> = cluster
            .collections
            .iter()
            .map(|c| self.collection_json(c, opts))
            .collect();
        json!({
            "format": "shardtop-summary",
            "version": 1,
            "source": opts.source,
            "time": self.now_ms as f64 / 1000.0,
            "serverVersion": cluster.version.to_string(),
            "chunkSizeBytes": cluster.settings.chunk_size_bytes,
            "balancer": {
                "mode": cluster.balancer_mode().as_str(),
                "inRound": self.balancer.round.is_some(),
                "rounds": self.balancer.rounds,
                "migrations": {
                    "completed": self.balancer.completed, "completedFrom": self.balancer.completed_from.map(super::balancer::MovedFrom::as_str),
                    "failed": self.balancer.failed,
                    "inFlight": self.balancer.in_flight.len(),
                },
                "inFlight": self.balancer.in_flight.iter().map(|m| {
                    let p = self.collection(&m.ns).map(|c| &c.pattern);
                    let bound = |k| p.map_or(Value::Null, |p| p.bound_to_json(k));
                    json!({
                        "ns": m.ns, "from": self.shard_id(m.from), "to": self.shard_id(m.to),
                        "min": bound(&m.min), "max": bound(m.end.as_ref().unwrap_or(&m.max)),
                        "reason": m.reason.as_str(), "bytes": m.bytes,
                        "bytesEstimated": m.bytes_estimated,
                    })
                }).collect::<Vec<_>>(),
                "whyNot": self.balancer.why_not,
                "autoMerger": self.auto_merger_enabled().map(|on| json!({"enabled": on})),
                "activeWindow": self.active_window_json(),
                "activeWindowRejected": self.settings.window_rejected,
                "drains": self.balancer.drains.iter().map(|d| json!({
                    "shard": d.shard,
                    "source": d.source.as_str(),
                    "state": d.state,
                    "remaining": {"chunks": d.chunks, "jumboChunks": d.jumbo_chunks},
                    "dbsToMove": d.dbs_to_move,
                    "collectionsToMove": d.collections_to_move,
                    "truncated": d.truncated,
                    "estimatedSecsLeft": d.eta_secs,
                })).collect::<Vec<_>>(),
            },
            "shards": shards,
            "collections": collections,
            "errors": self.failed_actions.iter().map(super::failed_actions::FailedAction::json).collect::<Vec<_>>(),
        })
    }

    /// `activeWindow`: `null` when none is set; the simulator's in virtual time; a live
    /// cluster's in the config server's local time, open now only when its rounds tell.
    fn active_window_json(&self) -> Value {
        let Some(w) = self.settings.active_window else {
            return Value::Null;
        };
        let hm = |m: u32| format!("{:02}:{:02}", m / 60, m % 60);
        let mut out = json!({"start": hm(w.start_minute), "stop": hm(w.stop_minute)});
        if let Some(now) = &self.balancer.window_now {
            out["timeZone"] = json!("server");
            out["open"] = json!(now.open);
            out["utcOffsetMinutes"] = json!(
                now.utc_offset_minutes
                    .map(|(min, max)| json!({"min": min, "max": max}))
            );
            out["inferredFromRounds"] = json!(now.rounds);
        } else {
            out["timeZone"] = json!("virtual");
            out["open"] = json!(w.contains(self.now_ms));
        }
        out
    }

    fn collection_json(&self, c: &Collection, opts: &SummaryOptions) -> Value {
        let with_chunks = opts.chunks;
        let writes = |n: u64| {
            if opts.writes_unknown {
                Value::Null
            } else {
                json!(n)
            }
        };
        let table = &c.table;
        let per_shard: Vec<Value> = (0..self.shards.len())
            .filter(|&s| !self.shards[s].removed)
            .map(|s| self.shard_json(c, ShardIdx(s as u32), opts.writes_unknown))
            .collect();
        let jumbo: u64 = (0..self.shards.len())
            .map(|s| table.shard_totals(ShardIdx(s as u32)).jumbo)
            .sum();
        let hottest = c.window.hottest(table, self.now_ms).map(|h| {
            let chunk = table.chunk(h.chunk);
            json!({
                "min": c.pattern.bound_to_json(chunk.min),
                "max": c.pattern.bound_to_json(chunk.max),
                "shard": self.shard_id(chunk.info.shard),
                "writeShare": h.share,
            })
        });
        let mut out = json!({
            "ns": super::ns_kind::display_ns(&c.ns),
            "key": c.key_json(),
            "chunks": table.len(),
            "jumbo": jumbo,
            "shards": per_shard,
            "hottest": hottest,
        });
        Self::collection_state_json(c, &mut out);
        if with_chunks {
            let list: Vec<Value> = table
                .iter()
                .map(|ch| {
                    json!({
                        "min": c.pattern.bound_to_json(ch.min),
                        "max": c.pattern.bound_to_json(ch.max),
                        "shard": self.shard_id(ch.info.shard),
                        "docs": ch.info.stats.docs, "bytes": ch.info.stats.bytes,
                        "jumbo": ch.info.jumbo,
                        "zone": c.zones.zone_of_chunk(ch.min, ch.max),
                        "writes": writes(ch.info.stats.writes),
                    })
                })
                .collect();
            out["chunkList"] = Value::Array(list);
        }
        out
    }

    /// One shard's entry of a collection in the JSON summary.
    fn shard_json(&self, c: &Collection, idx: ShardIdx, writes_unknown: bool) -> Value {
        let t = c.table.shard_totals(idx);
        let writes = |n: u64| {
            if writes_unknown {
                Value::Null
            } else {
                json!(n)
            }
        };
        let mut row = json!({
            "shard": self.shard_id(idx),
            "chunks": t.chunks, "docs": t.stats.docs, "bytes": t.stats.bytes,
            "jumbo": t.jumbo, "writes": writes(c.writes_to(idx)),
            "orphanedDocs": c.orphans_on(idx).0, "orphanedBytes": c.orphans_on(idx).1,
        });
        if c.invalid_sizes.contains(&idx) {
            // A reported size no server gives: unknown, flagged, never a figure.
            for k in ["docs", "bytes", "orphanedDocs", "orphanedBytes"] {
                row[k] = Value::Null;
            }
            row["sizesInvalid"] = json!(true);
        }
        // A time series' documents are buckets: counted as such, never as documents.
        if c.unit() == "buckets"
            && let Some(o) = row.as_object_mut()
        {
            let docs = o.remove("docs").unwrap_or(Value::Null);
            let orphaned = o.remove("orphanedDocs").unwrap_or(Value::Null);
            o.insert("buckets".into(), docs);
            o.insert("orphanedBuckets".into(), orphaned);
        }
        row
    }

    /// What reshapes a collection now, what it is, what keeps the balancer from it and what is
    /// inconsistent in its metadata, added to its JSON entry.
    fn collection_state_json(c: &Collection, out: &mut Value) {
        let kind = super::ns_kind::NsKind::of(&c.ns);
        if let Some(r) = &c.resharding {
            out["resharding"] = json!({
                "key": bson::Bson::Document(r.key.to_document()).into_relaxed_extjson(),
                "since": r.started_ms as f64 / 1000.0,
            });
        }
        if let Some(p) = c.defragmentation {
            out["defragmentationPhase"] = json!(p.as_str());
        }
        if let Some(p) = &c.resharding_progress {
            out["resharding"] = super::resharding_json::progress(p);
        }
        match &kind {
            super::ns_kind::NsKind::Plain if !c.timeseries => {}
            super::ns_kind::NsKind::Plain | super::ns_kind::NsKind::TimeseriesBuckets { .. } => {
                out["timeseries"] = json!({"bucketsNs": c.ns});
            }
            super::ns_kind::NsKind::ReshardingTemporary { uuid } => {
                out["reshardingTemporary"] = json!({"ns": c.ns, "originalUuid": uuid});
            }
        }
        if c.placement != super::Placement::Sharded {
            out["placement"] = json!(c.placement.as_str());
        }
        out["balancing"] = json!({
            "noBalance": c.balancing.no_balance,
            "permitMigrations": !c.balancing.migrations_blocked,
            "enableAutoMerge": c.balancing.auto_merge,
            "defragmenting": c.defragmentation.is_some(),
        });
        if !c.inconsistencies.is_empty() {
            let list: Vec<Value> = c
                .inconsistencies
                .iter()
                .map(|i| json!({"type": i.kind, "description": i.description}))
                .collect();
            out["inconsistencies"] = Value::Array(list);
        }
    }
}
