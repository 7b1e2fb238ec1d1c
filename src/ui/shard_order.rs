//! Which shards the shard list shows, and in what order: a sort (name, data, chunks, writes,
//! orphans), a filter on shard names and zones, and — when the list is longer than the pane —
//! the hot shard and the draining ones kept in sight above the scrolled rows.

use std::cmp::Ordering;

use crate::view::ShardRow;

/// The order of the shard list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShardSort {
    /// By name, numbers in names compared as numbers (`shard2` before `shard10`).
    #[default]
    Name,
    /// Most data first.
    Data,
    /// Most chunks first.
    Chunks,
    /// Largest share of recent writes first.
    Writes,
    /// Most orphaned documents first.
    Orphans,
}

impl ShardSort {
    /// The direction of the order, as the heading shows it: names ascending, the rest the most
    /// first.
    pub fn arrow(self) -> char {
        if self == Self::Name { '▲' } else { '▼' }
    }

    const ALL: [Self; 5] = [
        Self::Name,
        Self::Data,
        Self::Chunks,
        Self::Writes,
        Self::Orphans,
    ];

    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|&s| s == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Data => "data",
            Self::Chunks => "chunks",
            Self::Writes => "writes",
            Self::Orphans => "orphans",
        }
    }
}

/// Whether a shard passes the filter: its name or one of its zones contains the text (any case).
pub fn matches(row: &ShardRow, filter: &str) -> bool {
    let needle = filter.trim().to_lowercase();
    needle.is_empty()
        || row.id.to_lowercase().contains(&needle)
        || row.zones.iter().any(|z| z.to_lowercase().contains(&needle))
}

/// The indices of the shards that pass the filter, in the sort's order.
pub fn order(rows: &[ShardRow], sort: ShardSort, filter: &str) -> Vec<usize> {
    let mut out: Vec<usize> = (0..rows.len())
        .filter(|&i| matches(&rows[i], filter))
        .collect();
    out.sort_by(|&a, &b| {
        let (x, y) = (&rows[a], &rows[b]);
        let by = match sort {
            ShardSort::Name => Ordering::Equal,
            ShardSort::Data => y.bytes.cmp(&x.bytes),
            ShardSort::Chunks => y.chunks.cmp(&x.chunks),
            ShardSort::Writes => y.write_share.total_cmp(&x.write_share),
            ShardSort::Orphans => y.orphaned_docs.cmp(&x.orphaned_docs),
        };
        by.then_with(|| natural(&x.id, &y.id))
    });
    out
}

/// The rows of a pane `height` rows high scrolled by `scroll`: shards kept in sight (`keep`:
/// the hot one, the draining ones) that the scrolled rows would hide come first, at most a
/// third of the height.
pub fn visible(order: &[usize], keep: &[usize], scroll: usize, height: usize) -> Vec<usize> {
    if order.len() <= height {
        return order.to_vec();
    }
    let scroll = scroll.min(order.len() - height);
    let window = &order[scroll..scroll + height];
    let pinned: Vec<usize> = keep
        .iter()
        .copied()
        .filter(|i| order.contains(i) && !window.contains(i))
        .take(height / 3)
        .collect();
    let rest = window
        .iter()
        .copied()
        .filter(|i| !pinned.contains(i))
        .take(height - pinned.len());
    pinned.iter().copied().chain(rest).collect()
}

/// The rows shown with the cursor on `order[row]` in sight — the smallest scroll that shows it,
/// above the `… N more` line when rows are left below —, and how many rows of `order` are not
/// shown below the last one shown.
pub fn around(order: &[usize], keep: &[usize], row: usize, height: usize) -> (Vec<usize>, usize) {
    let target = order.get(row.min(order.len().saturating_sub(1))).copied();
    let mut scroll = 0;
    loop {
        let shown = visible(order, keep, scroll, height);
        let below = below(order, &shown);
        let seen = target.is_none_or(|t| {
            (shown.iter().position(|&i| i == t)).is_some_and(|p| below == 0 || p + 1 < shown.len())
        });
        if seen || scroll + height >= order.len() {
            return (shown, below);
        }
        scroll += 1;
    }
}

/// The rows of `order` below the last one of `shown` that are not shown (the rows scrolled past
/// above are not counted).
fn below(order: &[usize], shown: &[usize]) -> usize {
    let last = shown.last().and_then(|i| order.iter().position(|o| o == i));
    last.map_or(0, |p| {
        order[p + 1..].iter().filter(|i| !shown.contains(i)).count()
    })
}

/// Compares names with their digit runs as numbers.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.chars().next(), y.chars().next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (n, rx) = split_digits(x);
                let (m, ry) = split_digits(y);
                let by = n
                    .trim_start_matches('0')
                    .len()
                    .cmp(&m.trim_start_matches('0').len())
                    .then_with(|| n.trim_start_matches('0').cmp(m.trim_start_matches('0')));
                if by != Ordering::Equal {
                    return by;
                }
                (x, y) = (rx, ry);
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                (x, y) = (&x[c.len_utf8()..], &y[d.len_utf8()..]);
            }
        }
    }
}

fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, bytes: u64, zones: &[&str]) -> ShardRow {
        ShardRow {
            id: id.into(),
            zones: zones.iter().map(|z| (*z).to_string()).collect(),
            bytes,
            ..ShardRow::default()
        }
    }

    #[test]
    fn names_sort_with_numbers_as_numbers() {
        let mut names = vec!["shard10", "shard2", "shard02x", "a", "shard1"];
        names.sort_by(|a, b| natural(a, b));
        assert_eq!(names, ["a", "shard1", "shard2", "shard02x", "shard10"]);
    }

    #[test]
    fn sorts_filter_and_keep_the_hot_shard_in_sight() {
        let rows = vec![
            row("s1", 5, &["EU"]),
            row("s2", 9, &[]),
            row("s10", 7, &["US"]),
        ];
        assert_eq!(order(&rows, ShardSort::Name, ""), [0, 1, 2]);
        assert_eq!(order(&rows, ShardSort::Data, ""), [1, 2, 0]);
        assert_eq!(order(&rows, ShardSort::Name, "us"), [2]);
        assert_eq!(order(&rows, ShardSort::Name, "S1"), [0, 2]);
        let all: Vec<usize> = (0..1000).collect();
        assert_eq!(visible(&all, &[900], 0, 6), [900, 0, 1, 2, 3, 4]);
        assert_eq!(visible(&all, &[3], 0, 6), [0, 1, 2, 3, 4, 5]);
        assert_eq!(visible(&all, &[], 5000, 3), [997, 998, 999]);
        assert_eq!(ShardSort::Orphans.next(), ShardSort::Name);
    }

    #[test]
    fn the_cursor_row_stays_in_sight_above_the_more_line() {
        let all: Vec<usize> = (0..10).collect();
        assert_eq!(around(&all, &[], 0, 4), (vec![0, 1, 2, 3], 6));
        // Row 3 would be the last shown, which the "… more" line takes: one scroll more.
        assert_eq!(around(&all, &[], 3, 4), (vec![1, 2, 3, 4], 5));
        assert_eq!(around(&all, &[], 9, 4), (vec![6, 7, 8, 9], 0));
        assert_eq!(around(&all, &[], 99, 4), (vec![6, 7, 8, 9], 0));
        // A kept row (the hot shard) pinned above does not hide the cursor.
        let (shown, _) = around(&all, &[0], 6, 4);
        assert!(shown.contains(&6) && shown[0] == 0, "{shown:?}");
        assert_eq!(around(&[], &[], 0, 4), (vec![], 0));
    }
}
