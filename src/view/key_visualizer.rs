//! The key visualizer's frame: a collection's writes per key range (rows, MinKey at the bottom)
//! per interval (columns, newest at the right), pre-aggregated from the source's heat log, with
//! each range's owning shard at each interval and what lies under the cursor.

use crate::cluster::Cluster;
use crate::cluster::heat_history::HeatLog;
use crate::model::{ShardIdx, ShardKey};

/// What the key visualizer asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyVisualizerRequest {
    pub cols: usize,
    pub rows: usize,
    /// Virtual seconds per column (the time zoom).
    pub secs_per_col: u64,
    /// The cursor: column (0 = oldest shown) and row (0 = the lowest range).
    pub cursor: (usize, usize),
    /// The key range shown, `[low, high)` (the key zoom; `None`: the whole key space).
    pub keys: Option<Box<(ShardKey, ShardKey)>>,
}

/// One frame of the key visualizer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyVisualizerView {
    /// Writes per column (oldest first), per row (lowest range first).
    pub writes: Vec<Vec<u64>>,
    pub max: u64,
    /// The rows' bounds (one more than the rows, lowest first), to zoom into.
    pub bounds: Vec<ShardKey>,
    /// Each row's range, as mongosh prints bounds.
    pub ranges: Vec<String>,
    /// Per column, the shard owning each row's lower bound at the column's end (its index, as
    /// strip cells name shards).
    pub owners: Vec<Vec<usize>>,
    /// The window's start and end, and the source's time (at or before the end).
    pub from_ms: u64,
    pub to_ms: u64,
    pub now_ms: u64,
    pub secs_per_col: u64,
    /// The key range shown, when zoomed, as mongosh prints bounds.
    pub zoomed: Option<String>,
    /// What lies under the cursor, in words.
    pub cursor_text: String,
}

/// A column's span: virtual seconds (`40–41s`), or wall-clock UTC times on a live source or a
/// recording of one (`14:03:54–14:03:55 UTC`).
fn column_span(from_ms: u64, to_ms: u64, clock: &super::ClockView) -> String {
    if clock.virtual_time {
        return format!(
            "{:.0}–{:.0}s",
            from_ms as f64 / 1000.0,
            to_ms as f64 / 1000.0
        );
    }
    let from = crate::units::clock_time(clock.shown_ms(from_ms), true);
    format!(
        "{}–{}",
        from.trim_end_matches(" UTC"),
        crate::units::clock_time(clock.shown_ms(to_ms), true)
    )
}

/// The frame for `ns` ending at `now_ms` on `clock`.
pub fn build(
    heat: &HeatLog,
    cluster: &Cluster,
    ns: &str,
    req: &KeyVisualizerRequest,
    (now_ms, clock): (u64, &super::ClockView),
) -> Option<KeyVisualizerView> {
    // Each column is exactly `secs_per_col`. Before the window fills, it starts at time 0 (the
    // first second seen) and has only the columns up to now: none is in the future.
    let col_ms = req.secs_per_col.max(1) * 1000;
    let cols = (req.cols.max(1) as u64).min((now_ms + 1).div_ceil(col_ms).max(1));
    let span_ms = col_ms * cols;
    let to_ms = (now_ms + 1).max(span_ms);
    let from_ms = to_ms - span_ms;
    let keys = req.keys.as_deref().map(|(a, b)| (a, b));
    let cols = cols as usize;
    let grid = heat.grid(cluster, ns, (cols, req.rows), (from_ms, to_ms), keys)?;
    let text = |k: &ShardKey| cluster.bound_text(ns, k);
    let ranges: Vec<String> = grid
        .bounds
        .windows(2)
        .map(|b| format!("[{}, {})", text(&b[0]), text(&b[1])))
        .collect();
    let max = grid.writes.iter().flatten().copied().max().unwrap_or(0);
    let (col, row) = (
        req.cursor.0.min(cols.saturating_sub(1)),
        req.cursor.1.min(ranges.len().saturating_sub(1)),
    );
    let col_from = from_ms + col as u64 * req.secs_per_col * 1000;
    let shard = |s: Option<&usize>| s.map_or("?", |&s| cluster.shard_id(ShardIdx(s as u32)));
    let then = shard(grid.owners.get(col).and_then(|o| o.get(row)));
    let now = shard(grid.owners.last().and_then(|o| o.get(row)));
    let owner = if then == now {
        format!("on {then}")
    } else {
        format!("on {then} then, {now} now")
    };
    let writes = grid.writes.get(col).and_then(|c| c.get(row)).copied();
    let cursor_text = format!(
        "{} · {} · {} · {owner}",
        column_span(col_from, col_from + req.secs_per_col * 1000, clock),
        ranges.get(row).map_or("", String::as_str),
        crate::units::count(writes.unwrap_or(0), "write"),
    );
    Some(KeyVisualizerView {
        writes: grid.writes,
        max,
        zoomed: req
            .keys
            .as_deref()
            .map(|(a, b)| format!("[{}, {})", text(a), text(b))),
        bounds: grid.bounds,
        ranges,
        owners: grid.owners,
        from_ms,
        to_ms,
        now_ms,
        secs_per_col: req.secs_per_col,
        cursor_text,
    })
}
