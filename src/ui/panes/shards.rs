//! The shard list for the selected collection: one row per shard — glyph, the row cursor `▶` while
//! the pane has the focus (`●` on the shard lit in the key space), name, zones in their colours, draining
//! badge, a chunk-count bar and a data-size bar (the balancer evens chunks before 6.0 and data
//! from 6.0, so both matter), and the shard's share of recent writes (the last 60 s; a live
//! `--heat size` shows each shard's share of the growth instead, headed `growth`). A shard is bold
//! and marked `◀ HOT` only when `cluster::hotspot`'s rule says so; on a live cluster the marker
//! names its evidence (`◀ HOT (change stream)`, `(sampled)`, `(growth)`). The
//! title says the order and the filter, the sorted column's heading its arrow (`data ▼`; a narrow
//! pane shows the bar sorted on); on a long list the hot shard and the draining ones stay in
//! sight (`shard_order`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::shards_notes::all_notes;
use super::{fit, pane_block};
use crate::ui::app::{App, Metric};
use crate::ui::shard_order::{self, ShardSort};
use crate::ui::theme::{Bar, Theme, bar};
use crate::units::human_bytes;
use crate::view::{ClusterView, ShardRow};

/// Column widths for one render.
struct Columns {
    id: usize,
    /// Each shard's name as shown: whole, or cut to the shortest form that keeps them distinct.
    names: Vec<String>,
    zones: usize,
    /// The length every zone name is cut to in the zones column (`None`: whole).
    zone_cut: Option<usize>,
    /// The badge column's width (0: no shard has a badge).
    drain: usize,
    metric_bar: usize,
    both: bool,
    writes_bar: usize,
}

fn columns(v: &ClusterView, width: usize) -> Columns {
    let ids: Vec<&str> = v.shards.iter().map(|s| s.id.as_str()).collect();
    let base = ids
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 14);
    let (id, names) = crate::units::shortest_unique(&ids, base);
    let room = (width / 3).max(base);
    let (id, names) = if id <= room {
        (id, names)
    } else {
        let cut = crate::units::cut_names(&ids, room)
            .unwrap_or_else(|| ids.iter().map(|s| fit(s, room)).collect());
        (room, cut)
    };
    let mut zones = v
        .shards
        .iter()
        .map(|s| s.zones.join(",").len())
        .max()
        .unwrap_or(0)
        .min(12);
    // The badge column: `DRAIN`, `GHOST` (not in config.shards), `CONFIG` (8.0+ config shard).
    let drain = if v.shards.iter().any(|s| s.config_shard) {
        7
    } else if v.shards.iter().any(|s| s.draining || s.unlisted) {
        6
    } else {
        0
    };
    let mut fixed = 2 + id + 1 + if zones > 0 { zones + 1 } else { 0 } + drain;
    let mut writes_bar = if width >= 90 { 8 } else { 4 };
    // The share, its percentage and ` ◀ HOT`, with a live source's evidence when a shard is.
    let named = if v.shards.iter().any(|s| s.hot) {
        evidence(v).chars().count()
    } else {
        0
    };
    // The narrowest bar with its number (data: 12 columns) before ` ◀ HOT` is cut: the writes
    // bar gives up its columns first.
    let need = fixed + writes_bar + 11 + named + 12;
    if width < need {
        writes_bar = writes_bar.saturating_sub(need - width).max(1);
    }
    // Then the zones column, a label, down to 5 columns.
    let need = fixed + writes_bar + 11 + named + 12;
    if width < need && zones > 5 {
        let cut = (need - width).min(zones - 5);
        zones -= cut;
        fixed -= cut;
    }
    let writes = writes_bar + 5 + 6 + named;
    let left = width.saturating_sub(fixed + writes);
    let both = left >= 30;
    let metric_bar = if both {
        (left - 21) / 2
    } else {
        left.saturating_sub(11)
    }
    .max(1);
    Columns {
        id,
        names,
        zones,
        zone_cut: zone_prefix(v, zones),
        drain,
        metric_bar,
        both,
        writes_bar,
    }
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme, focused: bool) {
    let mut title = match app.view.as_ref().and_then(|v| v.collection.as_ref()) {
        Some(c) => format!(" Shards · {} ", c.ns),
        None => " Shards ".to_string(),
    };
    if app.shard_sort != ShardSort::Name {
        let sort = app.shard_sort;
        title.push_str(&format!("· by {} {} ", sort.label(), sort.arrow()));
    }
    if !app.shard_filter.is_empty() {
        title.push_str(&format!("· /{} ", app.shard_filter));
    }
    let block = pane_block(
        Line::from(Span::styled(title, theme.title())),
        focused,
        theme,
    );
    let inner = block.inner(area);
    let Some(v) = &app.view else {
        frame.render_widget(Paragraph::new("waiting for the source…").block(block), area);
        return;
    };
    let cols = columns(v, usize::from(inner.width));
    let max_chunks = v.shards.iter().map(|s| s.chunks).max().unwrap_or(0).max(1);
    let max_bytes = v.shards.iter().map(|s| s.bytes).max().unwrap_or(0).max(1);
    let hot = v.hot_shard();
    let metric = shown_metric(app, &cols);
    let mut lines = vec![heading(&cols, metric, signal(v), app.shard_sort, theme)];
    let rows = usize::from(inner.height).saturating_sub(1);
    let width = usize::from(inner.width);
    let order = shard_order::order(&v.shards, app.shard_sort, &app.shard_filter);
    let others = all_notes(v, app, (width, rows.saturating_sub(order.len())), theme);
    // The one-line notes take their rows first (all but one); the shard rows the rest, the last
    // one saying how many are not shown when they do not all fit.
    let note_rows = others.len().min(rows.saturating_sub(1));
    let shard_rows = rows - note_rows;
    let keep: Vec<usize> = hot
        .into_iter()
        .chain((0..v.shards.len()).filter(|&i| v.shards[i].draining))
        .collect();
    let (shown, below) = shard_order::around(&order, &keep, app.shard_row, shard_rows);
    let cursor = focused.then(|| app.shard_at_cursor()).flatten();
    let lit = app.lit_index();
    for &i in &shown {
        let s = &v.shards[i];
        let fractions = (
            s.chunks as f64 / max_chunks as f64,
            s.bytes as f64 / max_bytes as f64,
        );
        let look = Look {
            hot: hot == Some(i),
            cursor: cursor == Some(i),
            lit: lit == Some(i),
            metric,
        };
        lines.push(row(i, s, &cols, fractions, look, app, theme));
    }
    if below > 0
        && let Some(last) = lines.last_mut()
    {
        let more = format!("… {} more (↓ with the focus here)", below + 1);
        *last = Line::from(Span::styled(more, theme.dim()));
    }
    let refused = super::refused_lines(
        app,
        &[crate::view::Feeds::Shards, crate::view::Feeds::Heat],
        width,
        theme,
    );
    // The wrapped refused-read notes take the rows the shards leave, the last one kept ending
    // in `…` when they do not all fit.
    let room = (rows + 1).saturating_sub(lines.len() + note_rows);
    let cut = refused.len() > room;
    lines.extend(refused.into_iter().take(room));
    if cut
        && room > 0
        && let Some(last) = lines.last_mut()
    {
        let text: String = last.spans.iter().map(|s| s.content.as_ref()).collect();
        let head: String = text.chars().take(width.saturating_sub(1)).collect();
        *last = Line::from(Span::styled(format!("{}…", head.trim_end()), theme.dim()));
    }
    lines.extend(others.into_iter().take(note_rows));
    if order.is_empty() && !app.shard_filter.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(
                "no shard or zone matches {:?} (Esc clears)",
                app.shard_filter
            ),
            theme.dim(),
        )));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// What the share column counts: `growth` for a live `--heat size` (each shard's share of the
/// growth between polls: a migration's recipient grows with no insert), else `writes`.
pub(super) fn signal(v: &ClusterView) -> &'static str {
    if v.heat == Some("size") {
        "growth"
    } else {
        "writes"
    }
}

/// What a live source's `HOT` rests on, after the marker: the writes seen in its change streams,
/// its sampled queries, or its data growth (the documents each shard grew by); the simulator and
/// replays see every write (nothing added).
fn evidence(v: &ClusterView) -> &'static str {
    match v.heat {
        Some("changestream") => " (change stream)",
        Some("sampled") => " (sampled)",
        Some("size") => " (growth)",
        _ => "",
    }
}

/// The bar drawn first (the only one on a narrow pane): the one the list is sorted by when it is
/// sorted by data or chunks, so the order is always shown; else the one `m` chose.
fn shown_metric(app: &App, cols: &Columns) -> Metric {
    match (cols.both, app.shard_sort) {
        (false, ShardSort::Data) => Metric::Data,
        (false, ShardSort::Chunks) => Metric::Chunks,
        _ => app.metric,
    }
}

/// How one row is drawn: the hot shard's, the cursor's, the lit one's; the bar shown first.
#[derive(Clone, Copy)]
struct Look {
    hot: bool,
    cursor: bool,
    lit: bool,
    metric: Metric,
}

/// A column's heading, with the sort's arrow when the list is sorted by it.
fn label(name: &str, sorted: bool, sort: ShardSort) -> String {
    if sorted {
        format!("{name} {}", sort.arrow())
    } else {
        name.to_string()
    }
}

fn heading(
    cols: &Columns,
    metric: Metric,
    signal: &str,
    sort: ShardSort,
    theme: Theme,
) -> Line<'static> {
    let chunks = label("chunks", sort == ShardSort::Chunks, sort);
    let data = label("data", sort == ShardSort::Data, sort);
    let signal = label(signal, sort == ShardSort::Writes, sort);
    let mut text = format!("  {:<w$} ", "shard", w = cols.id);
    if cols.zones > 0 {
        text.push_str(&format!("{:<w$} ", "zones", w = cols.zones));
    }
    text.push_str(&" ".repeat(cols.drain));
    let chunks = format!("{chunks:<w$}", w = cols.metric_bar + 9);
    let data = format!("{data:<w$}", w = cols.metric_bar + 10);
    match (cols.both, metric) {
        (true, Metric::Chunks) => text.push_str(&format!("{chunks} {data}")),
        (true, Metric::Data) => text.push_str(&format!("{data} {chunks}")),
        (false, Metric::Chunks) => text.push_str(&format!("{chunks} ")),
        (false, Metric::Data) => text.push_str(&data),
    }
    text.push_str(&signal);
    Line::from(Span::styled(text, theme.dim()))
}

fn row(
    i: usize,
    s: &ShardRow,
    cols: &Columns,
    (chunk_frac, data_frac): (f64, f64),
    look: Look,
    app: &App,
    theme: Theme,
) -> Line<'static> {
    let hot = look.hot;
    let glyph = Theme::shard_glyph(i);
    let mut name_style = if hot {
        theme.hot()
    } else {
        theme.shard(i).add_modifier(Modifier::BOLD)
    };
    if look.lit {
        name_style = name_style.add_modifier(Modifier::UNDERLINED);
    }
    if look.cursor {
        name_style = name_style.patch(theme.selected());
    }
    // The cursor's row says so without colour: ▶ after the swatch; the lit shard's, ●.
    let pointer = match (look.cursor, look.lit) {
        (true, _) => Span::styled("▶", theme.key()),
        (false, true) => Span::styled("●", theme.key()),
        (false, false) => Span::raw(" "),
    };
    let mut spans = vec![
        Span::styled(glyph.to_string(), theme.shard_cell(i)),
        pointer,
        Span::styled(
            format!(
                "{:<w$} ",
                cols.names.get(i).map_or(s.id.as_str(), String::as_str),
                w = cols.id
            ),
            name_style,
        ),
    ];
    if cols.zones > 0 {
        spans.extend(zone_spans(
            &s.zones,
            (cols.zones, cols.zone_cut),
            app,
            theme,
        ));
    }
    if cols.drain > 0 {
        let w = cols.drain;
        spans.push(match (s.unlisted, s.draining, s.config_shard) {
            (true, _, _) => Span::styled(format!("{:<w$}", "GHOST"), theme.error()),
            (false, true, _) => Span::styled(format!("{:<w$}", "DRAIN"), theme.warn()),
            (false, false, true) => Span::styled(format!("{:<w$}", "CONFIG"), theme.dim()),
            (false, false, false) => Span::raw(" ".repeat(w)),
        });
    }
    let jumbo = if s.jumbo > 0 { "J" } else { " " };
    let chunks = vec![
        Span::styled(bar(chunk_frac, cols.metric_bar), theme.bar(Bar::Chunks)),
        Span::raw(format!("{:>7}", s.chunks)),
        Span::styled(format!("{jumbo} "), theme.jumbo()),
    ];
    let data = vec![
        Span::styled(bar(data_frac, cols.metric_bar), theme.bar(Bar::Data)),
        if s.sizes_invalid {
            Span::styled(format!(" {:>9} ", "invalid"), theme.error())
        } else {
            Span::raw(format!(" {:>9} ", human_bytes(s.bytes)))
        },
    ];
    let (first, second) = match look.metric {
        Metric::Chunks => (chunks, data),
        Metric::Data => (data, chunks),
    };
    spans.extend(first);
    if cols.both {
        spans.extend(second);
    }
    let unknown = |v: &ClusterView| v.heat == Some("off") || v.disconnected_since.is_some();
    if s.share_unknown || app.view.as_ref().is_some_and(unknown) {
        let unknown = format!("{:<w$}", "unknown", w = cols.writes_bar + 5);
        spans.push(Span::styled(unknown, theme.dim()));
        return Line::from(spans);
    }
    if !app.heat {
        // Heat off (`w`): the share is not shown, not zero.
        let off = format!("{:<w$}", "off", w = cols.writes_bar + 5);
        spans.push(Span::styled(off, theme.dim()));
        return Line::from(spans);
    }
    let share = s.write_share;
    // No writes is the calm state: dim, not the writes colour (which reads as a warning).
    let writes_style = if hot {
        theme.hot()
    } else if share <= 0.0 {
        theme.dim()
    } else {
        theme.bar(Bar::Writes)
    };
    spans.push(Span::styled(bar(share, cols.writes_bar), writes_style));
    spans.push(Span::styled(
        format!("{:>4.0}%", share * 100.0),
        writes_style,
    ));
    if hot && app.heat {
        let evidence = app.view.as_ref().map_or("", evidence);
        spans.push(Span::styled(format!(" ◀ HOT{evidence}"), theme.hot()));
    }
    Line::from(spans)
}

/// The length every zone name is cut to so that each shard's list fits `width` columns while the
/// names stay distinct — their shortest unique form or longer (`Ap,US` for Apple and USPS in 5
/// columns, where `Appl…` hid USPS); `None`: the whole names fit, or no prefix does (then the
/// list is cut with `…`).
fn zone_prefix(v: &ClusterView, width: usize) -> Option<usize> {
    let lists: Vec<&[String]> = v.shards.iter().map(|s| s.zones.as_slice()).collect();
    let fits = |len: usize| {
        lists.iter().all(|z| {
            let letters: usize = z.iter().map(|n| n.chars().count().min(len)).sum();
            letters + z.len().saturating_sub(1) <= width
        })
    };
    if fits(usize::MAX) {
        return None;
    }
    let mut names: Vec<&str> = lists
        .iter()
        .flat_map(|z| z.iter())
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    names.dedup();
    let distinct = |len: usize| {
        let mut cut: Vec<String> = names
            .iter()
            .map(|n| n.chars().take(len).collect())
            .collect();
        cut.sort_unstable();
        cut.dedup();
        cut.len() == names.len()
    };
    let longest = names.iter().map(|n| n.chars().count()).max()?;
    (1..longest).rev().find(|&len| fits(len) && distinct(len))
}

/// A shard's zones, each name in its zone's colour (the key space's bands and legend use the
/// same), each cut to `cut` letters when set (the legend names them whole), the list cut to
/// `width` as one text, then padded.
fn zone_spans(
    zones: &[String],
    (width, cut): (usize, Option<usize>),
    app: &App,
    theme: Theme,
) -> Vec<Span<'static>> {
    let names = (app.view.as_ref())
        .and_then(|v| v.collection.as_ref())
        .map_or(&[][..], |c| c.zone_names.as_slice());
    let shown: Vec<String> = zones
        .iter()
        .map(|z| z.chars().take(cut.unwrap_or(usize::MAX)).collect())
        .collect();
    let text = fit(&shown.join(","), width);
    let mut spans = Vec::new();
    let mut rest = text.as_str();
    for (k, (zone, short)) in zones.iter().zip(&shown).enumerate() {
        let sep = usize::from(k > 0);
        if rest.is_empty() {
            break;
        }
        let take = rest
            .char_indices()
            .nth(sep + short.chars().count())
            .map_or(rest.len(), |(i, _)| i);
        let (piece, after) = rest.split_at(take);
        let style = names
            .iter()
            .position(|n| n == zone)
            .map_or(theme.dim(), |z| theme.zone(z));
        spans.push(Span::styled(piece.to_string(), style));
        rest = after;
    }
    let used = text.chars().count();
    spans.push(Span::raw(" ".repeat(width.saturating_sub(used) + 1)));
    spans
}
