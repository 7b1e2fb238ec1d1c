//! The contract's JSON summary (`--json`) and the text summary of a cluster state — the text
//! reads like `db.collection.getShardDistribution()` plus the balancer's state.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Cluster;
use super::Collection;
use crate::model::ShardIdx;
use crate::units::human_bytes;

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

/// `part` in percent of `whole` (0 when `whole` is 0).
fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// A shard's writes in the text summary: `writes N (x% of all, y% recent)`, or `writes unknown`
/// (a live cluster without write counts, as the JSON's `null`).
fn writes_text(known: Option<(u64, f64, f64)>) -> String {
    match known {
        Some((n, of_all, recent)) => format!(
            "writes {n:>9} ({of_all:5.1}% of all, {:5.1}% recent)",
            recent * 100.0
        ),
        None => "writes unknown".to_string(),
    }
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

    /// The text summary, at virtual time.
    pub fn summary_text(&self, title: &str) -> String {
        self.summary_text_at(
            title,
            &format!("virtual time {:.1} s", self.now_ms as f64 / 1000.0),
            false,
        )
    }

    /// The text summary, with `clock` saying when; `writes_unknown` (a live cluster without write
    /// counts, as the JSON's `null`) prints the writes as unknown.
    pub fn summary_text_at(&self, title: &str, clock: &str, writes_unknown: bool) -> String {
        let mut s = String::new();
        let cluster = self;
        let _ = writeln!(
            s,
            "{title} — MongoDB {} rules, {clock}, chunk size {}\n",
            cluster.version,
            human_bytes(cluster.settings.chunk_size_bytes)
        );
        for c in &cluster.collections {
            self.collection_text(&mut s, c, writes_unknown);
        }
        self.balancer_text(&mut s);
        s
    }

    /// The collection's first lines: its name, what it is, what reshapes it now, what keeps the
    /// balancer from it, what is inconsistent in its routing metadata.
    fn collection_heading(&self, s: &mut String, c: &Collection) {
        let what = match c.placement {
            super::Placement::Sharded => format!("shard key {}", c.pattern),
            super::Placement::Unsplittable => format!(
                "unsharded (tracked, unsplittable) on {}",
                self.shard_id(c.table.chunk(0).info.shard)
            ),
            super::Placement::Untracked => "unsharded (on its database's primary)".to_string(),
        };
        let what = match super::ns_kind::label(&c.ns) {
            Some(label) => format!("{label}, {what}"),
            None => what,
        };
        let _ = writeln!(s, "{}  {what}", super::ns_kind::display_ns(&c.ns));
        if let Some(r) = &c.resharding {
            let _ = writeln!(
                s,
                "  resharding to {} since {:.1} s",
                r.key,
                r.started_ms as f64 / 1000.0
            );
        }
        if let Some(p) = c.defragmentation {
            let _ = writeln!(s, "  defragmenting: phase {}", p.as_str());
        }
        if let Some(p) = &c.resharding_progress {
            let _ = writeln!(s, "  {}", p.text());
        }
        let notes: Vec<String> = c
            .balancing_notes()
            .into_iter()
            .filter(|n| !n.starts_with("defragmenting"))
            .collect();
        if !notes.is_empty() {
            let _ = writeln!(s, "  balancing: {}", notes.join(" · "));
        }
        for i in &c.inconsistencies {
            let _ = writeln!(s, "  INCONSISTENT {}: {}", i.kind, i.description);
        }
    }

    fn collection_text(&self, s: &mut String, c: &Collection, writes_unknown: bool) {
        self.collection_heading(s, c);
        let unit = c.unit();
        let table = &c.table;
        let n = self.shards.len();
        let total_docs: u64 = (0..n)
            .map(|i| table.shard_totals(ShardIdx(i as u32)).stats.docs)
            .sum();
        let total_bytes: u64 = (0..n)
            .map(|i| table.shard_totals(ShardIdx(i as u32)).stats.bytes)
            .sum();
        let total_writes: u64 = c.routed_writes.iter().sum();
        let recent = c.window.shard_shares(n, self.now_ms);
        for i in (0..n).filter(|&i| !self.shards[i].removed) {
            let idx = ShardIdx(i as u32);
            let t = table.shard_totals(idx);
            let recent = recent.get(i).copied().unwrap_or(0.0);
            let writes = writes_text((!writes_unknown).then(|| {
                (
                    c.writes_to(idx),
                    pct(c.writes_to(idx), total_writes),
                    recent,
                )
            }));
            // A size no server reports is not a figure.
            let (data, docs, per_chunk) = if c.invalid_sizes.contains(&idx) {
                let bad = || "invalid".to_string();
                (bad(), bad(), bad())
            } else {
                let per = t.stats.bytes.checked_div(t.chunks).unwrap_or(0);
                (
                    human_bytes(t.stats.bytes),
                    t.stats.docs.to_string(),
                    human_bytes(per),
                )
            };
            if self.shards[i].unlisted {
                let _ = writeln!(
                    s,
                    "  Shard {} is not in config.shards (chunks name it)",
                    self.shard_id(idx)
                );
            }
            let _ = writeln!(
                s,
                "  Shard {:<10} data {:>10}  {unit} {:>9}  chunks {:>6}{}  est. data/chunk {:>10}  {writes}",
                self.shard_id(idx),
                data,
                docs,
                t.chunks,
                if t.jumbo > 0 {
                    format!(" ({} jumbo)", t.jumbo)
                } else {
                    String::new()
                },
                per_chunk,
            );
            let (orphan_docs, orphan_bytes) = c.orphans_on(idx);
            if orphan_docs > 0 {
                let _ = writeln!(
                    s,
                    "        {:<10} orphaned {:>10}  {unit} {:>9}  (until the range deleter runs)",
                    "",
                    human_bytes(orphan_bytes),
                    orphan_docs
                );
            }
        }
        let _ = writeln!(
            s,
            "  Totals          data {:>10}  {unit} {:>9}  chunks {:>6}  writes {}",
            human_bytes(total_bytes),
            total_docs,
            table.len(),
            if writes_unknown {
                "unknown".to_string()
            } else {
                total_writes.to_string()
            }
        );
        for i in (0..n).filter(|&i| !self.shards[i].removed) {
            let t = table.shard_totals(ShardIdx(i as u32));
            let _ = writeln!(
                s,
                "    {} contains {:.2}% data, {:.2}% {unit} in cluster",
                self.shard_id(ShardIdx(i as u32)),
                pct(t.stats.bytes, total_bytes),
                pct(t.stats.docs, total_docs)
            );
        }
        if let Some(h) = c.window.hottest(table, self.now_ms) {
            let chunk = table.chunk(h.chunk);
            let _ = writeln!(
                s,
                "  Hottest chunk: {} -->> {} on {} ({:.0}% of recent writes)",
                c.pattern.bound_to_json(chunk.min),
                c.pattern.bound_to_json(chunk.max),
                self.shard_id(chunk.info.shard),
                h.share * 100.0
            );
        }
        let _ = writeln!(s);
    }

    fn balancer_text(&self, s: &mut String) {
        let b = &self.balancer;
        let _ = writeln!(
            s,
            "Balancer: {} · {} rounds · migrations {} completed{}, {} failed, {} in flight{}{}",
            match self.balancer_mode() {
                super::balancer::BalancerMode::Full => "on (full)",
                super::balancer::BalancerMode::AutoSplitOnly => "autoSplitOnly (never migrates)",
                super::balancer::BalancerMode::Off => "off",
            },
            b.rounds,
            b.completed,
            (b.completed_from.map(|f| format!(" (by {})", f.as_str()))).unwrap_or_default(),
            b.failed,
            b.in_flight.len(),
            if b.round.is_some() {
                " · round running"
            } else {
                ""
            },
            match self.auto_merger_enabled() {
                Some(true) => " · AutoMerger on",
                Some(false) => " · AutoMerger off",
                None => "",
            }
        );
        if let Some(w) = self.settings.active_window {
            let hm = |m: u32| format!("{:02}:{:02}", m / 60, m % 60);
            let when = match &b.window_now {
                Some(now) => format!("server time, {}", now.text()),
                None if w.contains(self.now_ms) => "virtual time, open now".to_string(),
                None => "virtual time, closed now".to_string(),
            };
            let _ = writeln!(
                s,
                "  balancing window {}–{} {when}",
                hm(w.start_minute),
                hm(w.stop_minute)
            );
        }
        for m in &b.in_flight {
            let _ = writeln!(
                s,
                "  moving {} {} → {} ({}, {})",
                m.ns,
                self.shard_id(m.from),
                self.shard_id(m.to),
                match (m.bytes, m.bytes_estimated) {
                    (None, _) => "size unknown".to_string(),
                    (Some(b), true) => format!("≈{} est.", human_bytes(b)),
                    (Some(b), false) => human_bytes(b),
                },
                m.reason.as_str()
            );
        }
        for d in &b.drains {
            let _ = writeln!(s, "  {}", d.text());
        }
        for why in &b.why_not {
            let _ = writeln!(s, "  why: {why}");
        }
    }
}
