//! Building a [`ClusterView`] from a cluster state (the simulator's, a replay's or a live
//! poll's). Cost: O(shards + zones + strip cells × sample + recent writes), independent of the
//! chunk count except for a selected cell, which is summed exactly.

use crate::cluster::Placement;
use std::collections::BTreeMap;

use super::strip::{self, StripInput};
use super::{
    BalancerView, Cell, ClockView, ClusterView, CollectionView, HotChunk, MigrationView, Selection,
    ShardRow, ViewRequest,
};
use crate::cluster::Cluster;
use crate::cluster::Collection;
use crate::cluster::version::BalancingMetric;
use crate::model::{ChunkStats, ShardIdx};

/// The view of `cluster` for `req`.
pub fn build(cluster: &Cluster, req: &ViewRequest, source: &str, clock: ClockView) -> ClusterView {
    let collection = cluster
        .collections
        .get(req.collection)
        .or_else(|| cluster.collections.first());
    ClusterView {
        source: source.to_string(),
        server_version: cluster.version.to_string(),
        clock,
        balancer: balancer(cluster),
        shards: shard_rows(cluster, collection),
        collections: cluster
            .collections
            .iter()
            .map(|c| crate::cluster::ns_kind::display_ns(&c.ns))
            .collect(),
        collection: collection.map(|c| collection_view(cluster, c, req)),
        request: req.clone(),
        heat: None,
        heat_auto: false,
        refused: Vec::new(),
        disconnected_since: None,
        heatmap: None,
        history: None,
        lab: None,
        still: None,
        explain: None,
        under_way: Vec::new(),
        conformance: None,
        whatif: None,
        forking: None,
        diagnosis: None,
        drain_estimates: Vec::new(),
    }
}

/// Live shards (removed ones are left out), with the collection's per-shard numbers.
fn shard_rows(cluster: &Cluster, coll: Option<&Collection>) -> Vec<ShardRow> {
    let (n, now) = (cluster.shards.len(), cluster.now_ms);
    let shares = coll.map(|c| c.window.shard_shares(n, now));
    // The shards that can take the collection's writes: those owning a chunk of it.
    let hot = coll.and_then(|c| {
        let eligible = (0..n)
            .filter(|&s| !cluster.shards[s].removed)
            .filter(|&s| c.table.shard_totals(ShardIdx(s as u32)).chunks > 0)
            .count();
        c.window.hot_shard(n, eligible, now).map(|h| h.key)
    });
    cluster
        .shards
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.removed)
        .map(|(i, s)| {
            let idx = ShardIdx(i as u32);
            let mut row = ShardRow {
                id: s.shard.id.clone(),
                zones: s.shard.zones.iter().cloned().collect(),
                draining: s.shard.draining,
                unlisted: s.unlisted,
                config_shard: s.shard.is_config_shard(),
                ..ShardRow::default()
            };
            if let Some(c) = coll {
                let t = c.table.shard_totals(idx);
                row.chunks = t.chunks;
                row.jumbo = t.jumbo;
                row.docs = t.stats.docs;
                row.bytes = t.stats.bytes;
                row.sizes_invalid = c.invalid_sizes.contains(&idx);
                row.writes = c.writes_to(idx);
                (row.orphaned_docs, row.orphaned_bytes) = c.orphans_on(idx);
                row.write_share = shares
                    .as_ref()
                    .and_then(|v| v.get(i).copied())
                    .unwrap_or(0.0);
                // A shard that owns nothing of the collection takes none of its writes now,
                // whatever its recent share (a drained shard, a fork's).
                row.hot = hot == Some(idx) && t.chunks > 0;
            }
            row
        })
        .collect()
}

fn balancer(cluster: &Cluster) -> BalancerView {
    let b = &cluster.balancer;
    let now = cluster.now_ms;
    let settings = &cluster.settings;
    BalancerView {
        enabled: settings.balancer_enabled,
        mode: cluster.balancer_mode().as_str(),
        window: settings.active_window.map(|w| {
            let hours = format!(
                "{:02}:{:02}–{:02}:{:02}",
                w.start_minute / 60,
                w.start_minute % 60,
                w.stop_minute / 60,
                w.stop_minute % 60
            );
            // A live cluster: MongoDB compares the window with the config server's local time.
            match &b.window_now {
                Some(now) => format!("{hours} server time, {}", now.text()),
                None => hours,
            }
        }),
        window_rejected: settings.window_rejected.clone(),
        in_round: b.round.is_some(),
        rounds: b.rounds,
        completed: b.completed,
        completed_from: b
            .completed_from
            .map(crate::cluster::balancer::MovedFrom::as_str),
        failed: b.failed,
        in_flight: b
            .in_flight
            .iter()
            .map(|m| {
                let span = m.finish_ms.saturating_sub(m.started_ms).max(1);
                MigrationView {
                    id: m.id,
                    ns: m.ns.clone(),
                    range: format!(
                        "[{}, {})",
                        cluster.bound_text(&m.ns, &m.min),
                        cluster.bound_text(&m.ns, m.end.as_ref().unwrap_or(&m.max))
                    ),
                    from: cluster.shard_id(m.from).to_string(),
                    to: cluster.shard_id(m.to).to_string(),
                    progress: (m.finish_ms > m.started_ms)
                        .then(|| (now.saturating_sub(m.started_ms) as f64 / span as f64).min(1.0)),
                    reason: m.reason.as_str().to_string(),
                    bytes: m.bytes,
                    bytes_estimated: m.bytes_estimated,
                }
            })
            .collect(),
        why_not: b.why_not.clone(),
        drains: b
            .drains
            .iter()
            .map(crate::cluster::drain::DrainStatus::text)
            .collect(),
        auto_merger: cluster.auto_merger_enabled(),
        policy: match cluster.balancing_metric() {
            BalancingMetric::ChunkCount => "chunk count",
            BalancingMetric::DataSize => "data size",
        },
    }
}

/// Shard positions in the view's shard list (removed shards are not listed).
fn view_positions(cluster: &Cluster) -> Vec<usize> {
    let mut next = 0;
    cluster
        .shards
        .iter()
        .map(|s| {
            let at = next;
            if !s.removed {
                next += 1;
            }
            at
        })
        .collect()
}

fn collection_view(cluster: &Cluster, c: &Collection, req: &ViewRequest) -> CollectionView {
    let table = &c.table;
    let zone_names: Vec<String> = {
        let mut names: Vec<String> = c.zones.iter().map(|z| z.zone.clone()).collect();
        names.sort();
        names.dedup();
        names
    };
    let zone_shards: Vec<Vec<bool>> = zone_names
        .iter()
        .map(|z| {
            cluster
                .shards
                .iter()
                .map(|s| !s.removed && !s.shard.draining && s.shard.zones.contains(z))
                .collect()
        })
        .collect();
    let writes = c.window.by_chunk(table, cluster.now_ms);
    let hottest = c.window.hottest(table, cluster.now_ms);
    let (first, len) = strip::window(table.len(), req.start, req.span);
    let input = StripInput {
        table,
        zones: &c.zones,
        zone_names: &zone_names,
        zone_shards: &zone_shards,
        writes: &writes,
        hottest: hottest.as_ref().filter(|h| h.hot).map(|h| h.chunk),
    };
    let positions = view_positions(cluster);
    let mut cells = strip::cells(&input, first, len, req.cells);
    for cell in &mut cells {
        cell.shard = positions.get(cell.shard).copied().unwrap_or(0);
    }
    let query = req
        .query
        .as_deref()
        .map(|filter| super::query::target(cluster, c, filter, &mut cells));
    let selection = req
        .selected
        .and_then(|i| cells.get(i))
        .map(|cell| select(cluster, c, cell, &writes));
    let totals = (0..cluster.shards.len()).fold(ChunkStats::ZERO, |mut acc, s| {
        acc.add(table.shard_totals(ShardIdx(s as u32)).stats);
        acc
    });
    let jumbo = (0..cluster.shards.len())
        .map(|s| table.shard_totals(ShardIdx(s as u32)).jumbo)
        .sum();
    let activity = activity(cluster, c);
    CollectionView {
        activity,
        ns: crate::cluster::ns_kind::display_ns(&c.ns),
        balancing: c.balancing_notes(),
        buckets: c.unit() == "buckets",
        untracked: c.placement == Placement::Untracked,
        key: key_text(&c.pattern),
        chunks: table.len(),
        jumbo,
        docs: totals.docs,
        bytes: totals.bytes,
        window_first: first,
        window_len: len,
        cells,
        hot: hottest.map(|h| {
            let chunk = table.chunk(h.chunk);
            HotChunk {
                ordinal: h.chunk,
                shard: cluster.shard_id(chunk.info.shard).to_string(),
                share: h.share,
                range: format!(
                    "[{}, {})",
                    cluster.bound_text(&c.ns, chunk.min),
                    cluster.bound_text(&c.ns, chunk.max)
                ),
                hot: h.hot,
            }
        }),
        recent_writes: c.window.total(cluster.now_ms),
        zone_names,
        selection,
        query,
    }
}

/// The selected cell, summed exactly over its chunks.
fn select(
    cluster: &Cluster,
    c: &Collection,
    cell: &Cell,
    writes: &BTreeMap<usize, u64>,
) -> Selection {
    let table = &c.table;
    let range = cell.first..cell.first + cell.count;
    let mut shards: Vec<ShardIdx> = Vec::new();
    let mut out = Selection {
        first: cell.first,
        count: cell.count,
        ..Selection::default()
    };
    for ordinal in range.clone() {
        let chunk = table.chunk(ordinal);
        if !shards.contains(&chunk.info.shard) {
            shards.push(chunk.info.shard);
        }
        out.docs += chunk.info.stats.docs;
        out.bytes += chunk.info.stats.bytes;
        out.jumbo += usize::from(chunk.info.jumbo);
    }
    out.writes = writes.range(range.clone()).map(|(_, n)| n).sum();
    let first = table.chunk(range.start);
    let last = table.chunk(range.end - 1);
    out.min = cluster.bound_text(&c.ns, first.min);
    out.max = cluster.bound_text(&c.ns, last.max);
    out.zone = c
        .zones
        .zone_of_chunk(first.min, last.max)
        .map(str::to_string);
    shards.sort();
    out.shards = shards
        .iter()
        .map(|&s| cluster.shard_id(s).to_string())
        .collect();
    if cell.count == 1 {
        out.version = Some(first.info.version.to_string());
    }
    out
}

/// `{customerId: 1, placedAt: 1}`, `{username: "hashed"}` — as mongosh prints a key.
pub fn key_text(pattern: &crate::model::KeyPattern) -> String {
    let fields: Vec<String> = pattern
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.path, if f.hashed { "\"hashed\"" } else { "1" }))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// What reshapes or marks the collection now, for the key space's title: an inconsistency, a
/// resharding, a defragmentation, or where an unsharded collection lives.
fn activity(cluster: &Cluster, c: &Collection) -> Option<String> {
    let table = &c.table;
    let inconsistent = (!c.inconsistencies.is_empty()).then(|| {
        let mut kinds: Vec<&str> = c.inconsistencies.iter().map(|i| i.kind.as_str()).collect();
        kinds.dedup();
        format!(
            "INCONSISTENT: {} (chunks shown by lower bound)",
            kinds.join(", ")
        )
    });
    match (&c.resharding, c.defragmentation, c.placement) {
        _ if inconsistent.is_some() => inconsistent,
        // A live cluster's resharding, as its `$currentOp` reports it.
        (None, _, _) if c.resharding_progress.is_some() => (c.resharding_progress.as_ref())
            .map(crate::cluster::resharding::ReshardingProgress::text),
        (Some(r), _, _) if r.provenance.ends_unsplittable() => {
            Some(format!("{} under way", r.provenance.as_str()))
        }
        (Some(r), _, _) => Some(format!("resharding to {}", key_text(&r.key))),
        (None, Some(p), _) => Some(format!("defragmenting: {}", p.as_str())),
        (None, None, Placement::Unsplittable) => Some(format!(
            "unsharded (tracked) on {}",
            cluster.shard_id(table.chunk(0).info.shard)
        )),
        (None, None, Placement::Untracked) => {
            let on = cluster.shard_id(table.chunk(0).info.shard);
            let what = format!("unsharded (untracked) on {on}");
            Some(match crate::cluster::ns_kind::label(&c.ns) {
                Some(label) => format!("{label}, {what}"),
                None => what,
            })
        }
        (None, None, Placement::Sharded) => crate::cluster::ns_kind::label(&c.ns),
    }
}
