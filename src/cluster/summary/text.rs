//! The text summary of a cluster state: it reads like `db.collection.getShardDistribution()`
//! plus the balancer's state. May not touch: the JSON summary (the parent's) or any I/O.

use std::fmt::Write as _;

use super::super::{Cluster, Collection};
use crate::model::ShardIdx;
use crate::units::human_bytes;

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
            super::super::Placement::Sharded => format!("shard key {}", c.pattern),
            super::super::Placement::Unsplittable => format!(
                "unsharded (tracked, unsplittable) on {}",
                self.shard_id(c.table.chunk(0).info.shard)
            ),
            super::super::Placement::Untracked => {
                "unsharded (on its database's primary)".to_string()
            }
        };
        let what = match super::super::ns_kind::label(&c.ns) {
            Some(label) => format!("{label}, {what}"),
            None => what,
        };
        let _ = writeln!(s, "{}  {what}", super::super::ns_kind::display_ns(&c.ns));
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
            "Balancer: {} · {} · migrations {} completed{}, {} failed, {} in flight{}{}",
            match self.balancer_mode() {
                super::super::balancer::BalancerMode::Full => "on (full)",
                super::super::balancer::BalancerMode::AutoSplitOnly =>
                    "autoSplitOnly (never migrates)",
                super::super::balancer::BalancerMode::Off => "off",
            },
            crate::units::count(b.rounds, "round"),
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
