//! The key-space strip: a window of a collection's chunks cut into cells of consecutive chunks.
//! A cell of many chunks is summarised from an even sample of at most `SAMPLE` of them (owner,
//! jumbo, zone), so the cost per view does not grow with the chunk count; recent writes are
//! exact (they come from the write window, which is small).

use std::collections::BTreeMap;

use super::Cell;
use crate::model::{RoutingTable, ZoneRanges};

/// Chunks looked at per cell.
pub const SAMPLE: usize = 32;

/// The chunk ordinals `[first, first + len)` that a window `(start, span)` covers.
pub fn window(chunks: usize, start: f64, span: f64) -> (usize, usize) {
    if chunks == 0 {
        return (0, 0);
    }
    let n = chunks as f64;
    let start = start.clamp(0.0, 1.0);
    let span = span.clamp(0.0, 1.0);
    let first = ((start * n).floor() as usize).min(chunks - 1);
    let end = (((start + span) * n).ceil() as usize).clamp(first + 1, chunks);
    (first, end - first)
}

/// The first chunk ordinal of each of `cells` cells over `len` chunks starting at `first`.
pub fn cell_starts(first: usize, len: usize, cells: usize) -> Vec<usize> {
    let cells = cells.min(len).max(1);
    (0..cells).map(|i| first + i * len / cells).collect()
}

/// What the strip needs to know about the collection.
pub struct StripInput<'a> {
    pub table: &'a RoutingTable,
    pub zones: &'a ZoneRanges,
    pub zone_names: &'a [String],
    /// For each zone name (same order), whether each shard carries it.
    pub zone_shards: &'a [Vec<bool>],
    pub writes: &'a BTreeMap<usize, u64>,
    /// The hottest chunk, when it is a hotspot (`cluster::hotspot`).
    pub hottest: Option<usize>,
}

/// The cells of the window `[first, first + len)`.
pub fn cells(input: &StripInput<'_>, first: usize, len: usize, cells: usize) -> Vec<Cell> {
    if len == 0 {
        return Vec::new();
    }
    let starts = cell_starts(first, len, cells);
    let end = first + len;
    let mut out: Vec<Cell> = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let e = starts.get(i + 1).copied().unwrap_or(end);
            summarise(input, s, e - s)
        })
        .collect();
    for (&ordinal, &n) in input.writes.range(first..end) {
        let i = starts.partition_point(|&s| s <= ordinal) - 1;
        out[i].writes += n;
    }
    if let Some(h) = input.hottest.filter(|h| (first..end).contains(h)) {
        let i = starts.partition_point(|&s| s <= h) - 1;
        out[i].hot = true;
    }
    out
}

fn summarise(input: &StripInput<'_>, first: usize, count: usize) -> Cell {
    let step = count.div_ceil(SAMPLE).max(1);
    let mut owners: BTreeMap<u32, usize> = BTreeMap::new();
    let mut cell = Cell {
        first,
        count,
        ..Cell::default()
    };
    for ordinal in (first..first + count).step_by(step) {
        let chunk = input.table.chunk(ordinal);
        *owners.entry(chunk.info.shard.0).or_insert(0) += 1;
        cell.jumbo |= chunk.info.jumbo;
        let zone = input
            .zones
            .zone_of_chunk(chunk.min, chunk.max)
            .and_then(|z| input.zone_names.iter().position(|n| n == z));
        if let Some(z) = zone {
            cell.zone.get_or_insert(z);
            let carriers = &input.zone_shards[z];
            let owner = chunk.info.shard.index();
            if carriers.iter().any(|&c| c) && !carriers.get(owner).copied().unwrap_or(false) {
                cell.outside_zone = true;
            }
        }
    }
    cell.mixed = owners.len() > 1;
    cell.owners = owners.keys().map(|&s| s as usize).collect();
    cell.shard = owners
        .iter()
        .max_by_key(|&(shard, n)| (*n, std::cmp::Reverse(*shard)))
        .map_or(0, |(&s, _)| s as usize);
    cell
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_requested_fraction() {
        assert_eq!(window(100, 0.0, 1.0), (0, 100));
        assert_eq!(window(100, 0.5, 0.25), (50, 25));
        assert_eq!(window(3, 0.9, 0.5), (2, 1));
        assert_eq!(window(0, 0.0, 1.0), (0, 0));
    }

    #[test]
    fn cells_split_chunks_evenly() {
        assert_eq!(cell_starts(0, 10, 4), vec![0, 2, 5, 7]);
        assert_eq!(cell_starts(5, 3, 80), vec![5, 6, 7]);
    }
}
