//! Where each pane of the main screen goes for a terminal size and a shard count: the one layout
//! that drawing (`panes`) and the mouse (`App`'s clicks and wheel) both read.
//!
//! Part of `ui`: pure arithmetic on rectangles; imports only ratatui's layout types.

use ratatui::layout::{Constraint, Layout, Rect};

/// The smallest terminal the layout works in.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Where each pane goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub shards: Rect,
    pub balancer: Rect,
    pub keyspace: Rect,
    /// Absent on short terminals.
    pub events: Option<Rect>,
    pub footer: Rect,
}

/// The layout of `area` for `shard_count` shards; `None` when the terminal is too small.
pub fn layout(area: Rect, shard_count: usize) -> Option<Areas> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let keyspace_h = if area.height >= 40 { 9 } else { 8 };
    let body = area.height - 2 - keyspace_h;
    let wanted_top = (shard_count as u16).saturating_add(3).max(9);
    let events_min = 5;
    let (top_h, events_h) = if body >= wanted_top + events_min {
        let top = wanted_top.min(body - events_min).min((body * 3 / 5).max(7));
        (top, body - top)
    } else {
        (body, 0)
    };
    let [header, top, keyspace, events, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(top_h),
        Constraint::Length(keyspace_h),
        Constraint::Length(events_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let left = if area.width >= 100 { 60 } else { 55 };
    let [shards, balancer] = Layout::horizontal([
        Constraint::Percentage(left),
        Constraint::Percentage(100 - left),
    ])
    .areas(top);
    Some(Areas {
        header,
        shards,
        balancer,
        keyspace,
        events: (events_h > 0).then_some(events),
        footer,
    })
}
