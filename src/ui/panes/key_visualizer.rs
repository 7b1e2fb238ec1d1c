//! The key visualizer: the collection's key space (rows, MinKey at the bottom) against time
//! (columns, newest at the right), each cell the writes to that key range in that interval as a
//! shade (` ░▒▓█`, glyphs with or without colour, a colour-blind-safe viridis scale), a band of
//! each range's owning shard at the cursor's time on the left, a band of the cursor range's
//! owner through time below (a migration is a change of colour and glyph), a time axis, a
//! legend and the cell under the cursor.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{axis_time, pane_block};
use crate::ui::app::App;
use crate::ui::theme::Theme;
use crate::view::key_visualizer::KeyVisualizerView;

const SHADES: [char; 5] = [' ', '░', '▒', '▓', '█'];
/// Viridis at four steps: readable for every common colour-vision deficiency.
const SCALE: [Color; 4] = [
    Color::Rgb(59, 82, 139),
    Color::Rgb(33, 145, 140),
    Color::Rgb(94, 201, 98),
    Color::Rgb(253, 231, 37),
];

fn level(writes: u64, max: u64) -> usize {
    if writes == 0 || max == 0 {
        0
    } else {
        (writes * 4).div_ceil(max).clamp(1, 4) as usize
    }
}

fn cell_style(level: usize, theme: Theme) -> Style {
    if level == 0 || !theme.colors {
        Style::new()
    } else {
        Style::new().fg(SCALE[level - 1])
    }
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let v = app.view.as_ref();
    let ns = v
        .and_then(|v| v.collection.as_ref())
        .map_or("", |c| c.ns.as_str());
    let Some(h) = v.and_then(|v| v.heatmap.as_ref()) else {
        super::key_visualizer_shards::render(frame, area, app, theme);
        return;
    };
    let keys = h.zoomed.as_ref().map_or_else(
        || "MinKey at the bottom".to_string(),
        |z| format!("zoomed into {z}"),
    );
    let title = format!(
        " Key visualizer · {ns} · {} s per column · rows: key ranges, {keys} ",
        h.secs_per_col
    );
    // Cut at a word, not at the border: the least important (what the rows are) goes first.
    let title = crate::units::cut_at_words(&title, usize::from(area.width).saturating_sub(2));
    let block = pane_block(Line::from(Span::styled(title, theme.title())), true, theme);
    let inner = block.inner(area);
    let mut lines = grid_lines(h, app, theme);
    lines.push(owner_band(h, app, theme));
    lines.push(axis(h, usize::from(inner.width), super::times_of(app)));
    lines.push(Line::from(vec![
        Span::styled(
            format!("{} ", SHADES[1..].iter().collect::<String>()),
            theme.dim(),
        ),
        Span::raw(crate::units::cut_at_words(
            &format!(
                "¼ ½ ¾ all of the busiest cell ({}) · bands: owners at the cursor (left), the cursor's range over time (below)",
                crate::units::count(h.max, "write")
            ),
            usize::from(inner.width).saturating_sub(5),
        )),
    ]));
    lines.push(Line::from(vec![
        Span::styled("cursor ", theme.key()),
        Span::raw(cursor_fit(
            &h.cursor_text,
            usize::from(inner.width).saturating_sub(7),
        )),
    ]));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The cursor's words (`60–61s · [range) · 0 writes · on shard0001`) in `room` characters:
/// when they do not fit, the range (the longest and least needed: the rows show where it is)
/// moves last, so a cut keeps the writes and the shard.
fn cursor_fit(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_string();
    }
    let parts: Vec<&str> = text.split(" · ").collect();
    let text = if parts.len() >= 3 {
        let mut order = vec![parts[0]];
        order.extend(&parts[2..]);
        order.push(parts[1]);
        order.join(" · ")
    } else {
        text.to_string()
    };
    crate::units::cut_at_words(&text, room)
}

fn grid_lines(h: &KeyVisualizerView, app: &App, theme: Theme) -> Vec<Line<'static>> {
    let req = app.key_visualizer_request();
    let rows = h.ranges.len();
    let ccol = req.cursor.0.min(h.writes.len().saturating_sub(1));
    let crow = req.cursor.1.min(rows.saturating_sub(1));
    let at_cursor = h.owners.get(ccol).or(h.owners.last());
    (0..rows)
        .rev()
        .map(|row| {
            let owner = at_cursor.and_then(|o| o.get(row)).copied().unwrap_or(0);
            let mut spans = vec![
                Span::styled(
                    Theme::shard_glyph(owner).to_string(),
                    theme.shard_cell(owner),
                ),
                Span::raw(" "),
            ];
            // One span per run of equal cells: a frame costs the runs, not the cells.
            let mut run = String::new();
            let mut run_style = None;
            for (col, writes) in h.writes.iter().enumerate() {
                let l = level(writes.get(row).copied().unwrap_or(0), h.max);
                let mut style = cell_style(l, theme);
                if (col, row) == (ccol, crow) {
                    style = style.add_modifier(Modifier::REVERSED);
                }
                if run_style.is_some_and(|s| s != style) {
                    spans.push(Span::styled(
                        std::mem::take(&mut run),
                        run_style.unwrap_or_default(),
                    ));
                }
                run_style = Some(style);
                run.push(SHADES[l]);
            }
            spans.push(Span::styled(run, run_style.unwrap_or_default()));
            Line::from(spans)
        })
        .collect()
}

/// The cursor range's owner in each column, as runs of one shard.
fn owner_band(h: &KeyVisualizerView, app: &App, theme: Theme) -> Line<'static> {
    let row = app.key_visualizer_request().cursor.1;
    let mut spans = vec![Span::raw("  ")];
    let mut run: Option<(usize, usize)> = None;
    let flush = |spans: &mut Vec<Span<'static>>, (shard, n): (usize, usize)| {
        spans.push(Span::styled(
            Theme::shard_glyph(shard).to_string().repeat(n),
            theme.shard_cell(shard),
        ));
    };
    for col in &h.owners {
        let shard = col.get(row).copied().unwrap_or(0);
        match run {
            Some((s, n)) if s == shard => run = Some((s, n + 1)),
            Some(r) => {
                flush(&mut spans, r);
                run = Some((shard, 1));
            }
            None => run = Some((shard, 1)),
        }
    }
    if let Some(r) = run {
        flush(&mut spans, r);
    }
    Line::from(spans)
}

fn axis(h: &KeyVisualizerView, width: usize, times: (bool, u64)) -> Line<'static> {
    let t = |ms: u64, label| axis_time(ms + times.1, times.0, label);
    let left = t(h.from_ms, false);
    let right = if h.to_ms > h.now_ms + 1 {
        format!("now {} · {}", t(h.now_ms, false), t(h.to_ms, true))
    } else {
        format!("{} (now)", t(h.now_ms, true))
    };
    let gap = width.saturating_sub(left.chars().count() + right.chars().count() + 2);
    Line::from(format!("  {left}{}{right}", " ".repeat(gap)))
}
