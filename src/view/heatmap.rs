//! The key visualizer's frame: a collection's writes per key range (rows, MinKey at the bottom)
//! per interval (columns, newest at the right), pre-aggregated from the source's heat log, with
//! each range's owning shard now and what lies under the cursor.

use crate::cluster::Cluster;
use crate::cluster::heat_history::HeatLog;

/// What the key visualizer asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeatmapRequest {
    pub cols: usize,
    pub rows: usize,
    /// Virtual seconds per column (the time zoom).
    pub secs_per_col: u64,
    /// The cursor: column (0 = oldest shown) and row (0 = MinKey's range).
    pub cursor: (usize, usize),
}

/// One frame of the key visualizer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeatmapView {
    /// Writes per column (oldest first), per row (MinKey first).
    pub writes: Vec<Vec<u64>>,
    pub max: u64,
    /// Each row's range, as mongosh prints bounds.
    pub ranges: Vec<String>,
    /// The shard owning each row's lower bound now (its index, as strip cells name shards).
    pub owners: Vec<usize>,
    /// The window's start and end, and the source's time (at or before the end).
    pub from_ms: u64,
    pub to_ms: u64,
    pub now_ms: u64,
    pub secs_per_col: u64,
    /// What lies under the cursor, in words.
    pub cursor_text: String,
}

/// The frame for `ns` ending at `now_ms`.
pub fn build(
    heat: &HeatLog,
    cluster: &Cluster,
    ns: &str,
    req: &HeatmapRequest,
    now_ms: u64,
) -> Option<HeatmapView> {
    let c = cluster.collection(ns)?;
    // Each column is exactly `secs_per_col`; before the window fills, the newest columns are
    // the future (empty) and the window starts at 0.
    let span_ms = req.secs_per_col.max(1) * 1000 * req.cols.max(1) as u64;
    let to_ms = (now_ms + 1).max(span_ms);
    let from_ms = to_ms - span_ms;
    let grid = heat.grid(cluster, ns, (req.cols, req.rows), (from_ms, to_ms))?;
    let first = c.table.chunk(0).min.clone();
    let last = c.table.chunk(c.table.len() - 1).max.clone();
    let lows: Vec<_> = std::iter::once(first.clone())
        .chain(grid.cuts.iter().cloned())
        .collect();
    let highs: Vec<_> = grid
        .cuts
        .iter()
        .cloned()
        .chain(std::iter::once(last))
        .collect();
    let ranges: Vec<String> = lows
        .iter()
        .zip(&highs)
        .map(|(a, b)| {
            format!(
                "[{}, {})",
                cluster.bound_text(ns, a),
                cluster.bound_text(ns, b)
            )
        })
        .collect();
    let owners: Vec<usize> = lows
        .iter()
        .map(|k| c.table.chunk(c.table.route(k)).info.shard.index())
        .collect();
    let max = grid.writes.iter().flatten().copied().max().unwrap_or(0);
    let (col, row) = (
        req.cursor.0.min(req.cols.saturating_sub(1)),
        req.cursor.1.min(ranges.len().saturating_sub(1)),
    );
    let col_from = from_ms + col as u64 * req.secs_per_col * 1000;
    let cursor_text = format!(
        "{:.0}–{:.0}s · {} · {} writes · now on {}",
        col_from as f64 / 1000.0,
        (col_from + req.secs_per_col * 1000) as f64 / 1000.0,
        ranges.get(row).map_or("", String::as_str),
        grid.writes
            .get(col)
            .and_then(|c| c.get(row))
            .copied()
            .unwrap_or(0),
        owners
            .get(row)
            .map_or("?", |&s| cluster.shard_id(crate::model::ShardIdx(s as u32))),
    );
    Some(HeatmapView {
        writes: grid.writes,
        max,
        ranges,
        owners,
        from_ms,
        to_ms,
        now_ms,
        secs_per_col: req.secs_per_col,
        cursor_text,
    })
}
