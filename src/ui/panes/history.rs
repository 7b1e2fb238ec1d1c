//! The history view: per shard, the collection's data, chunks and write share over time as
//! sparklines (`▁…█`, newest at the right) beside their latest values, drains and reshardings
//! with their progress over time and an estimated end, a time axis, and in the room left a
//! chart of the largest shards' data over the whole window.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Wrap};

use super::{axis_time, pane_block};
use crate::ui::app::App;
use crate::ui::theme::{Bar, Theme};
use crate::units::human_bytes;
use crate::view::history::{HistoryView, Progress, ShardHistory};

const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A sparkline of `values` against `max`: a blank where there is no sample or nothing.
pub fn sparkline(values: impl Iterator<Item = Option<f64>>, max: f64) -> String {
    values
        .map(|v| match v {
            Some(v) if v > 0.0 && max > 0.0 => {
                let l = ((v / max) * 8.0).ceil().clamp(1.0, 8.0) as usize;
                LEVELS[l - 1]
            }
            _ => ' ',
        })
        .collect()
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let v = app.view.as_ref();
    let ns = v
        .and_then(|v| v.collection.as_ref())
        .map_or("", |c| c.ns.as_str());
    let Some(h) = v.and_then(|v| v.history.as_ref()) else {
        let block = pane_block(Line::from(" History "), true, theme);
        let text =
            "No history yet: it is sampled once a second of the source's time. H or Esc goes back.";
        frame.render_widget(
            Paragraph::new(text).wrap(Wrap { trim: true }).block(block),
            area,
        );
        return;
    };
    let title = format!(
        " History · {ns} · {} s per column · per shard: data, chunks, share of writes ",
        h.secs_per_col
    );
    let title = crate::units::cut_at_words(&title, usize::from(area.width).saturating_sub(2));
    let block = pane_block(Line::from(Span::styled(title, theme.title())), true, theme);
    let inner = block.inner(area);
    let mut lines: Vec<Line> = h
        .progress
        .iter()
        .flat_map(|p| progress_lines(p, h.now_col, theme, usize::from(inner.width)))
        .collect();
    let name = h
        .shards
        .iter()
        .map(|s| s.id.chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, 16);
    let spark = usize::from(inner.width).saturating_sub(name + ROW_FIXED) / 3;
    lines.push(header(spark, name, theme));
    let room = usize::from(inner.height).saturating_sub(lines.len() + 2);
    let max_bytes = max_of(h.shards.iter().flat_map(|s| s.bytes.iter()));
    let max_chunks = max_of(h.shards.iter().flat_map(|s| s.chunks.iter()));
    let scroll = app.history.scroll.min(h.shards.len().saturating_sub(1));
    lines.extend(h.shards.iter().skip(scroll).take(room).map(|s| {
        let row = tail(s, spark, h.now_col);
        shard_line(&row, name, (max_bytes, max_chunks), theme)
    }));
    let more = h.shards.len().saturating_sub(scroll + room);
    let first_col = (h.now_col + 1).saturating_sub(spark);
    let spark_from = h.from_ms + first_col as u64 * h.secs_per_col * 1000;
    let times = super::times_of(app);
    lines.push(axis(
        (spark_from + times.1, h.now_ms + times.1),
        usize::from(inner.width),
        more,
        times.0,
    ));
    let used = lines.len() as u16;
    frame.render_widget(Paragraph::new(lines).block(block), area);
    let left = Rect {
        y: inner.y + used,
        height: inner.height.saturating_sub(used),
        ..inner
    };
    if left.height >= MIN_CHART_ROWS {
        chart(frame, left, h, theme, times);
    }
}

/// A row's width besides its name and its three sparklines.
const ROW_FIXED: usize = 3 + 10 + 3 + 8 + 3 + 5;
/// The chart needs this many rows to say anything.
const MIN_CHART_ROWS: u16 = 8;
/// The chart draws at most this many shards (the largest now).
const CHART_SHARDS: usize = 8;

/// The `n` columns of a shard's series up to the source's time.
fn tail(s: &ShardHistory, n: usize, now_col: usize) -> ShardHistory {
    let end = (now_col + 1).min(s.bytes.len());
    let range = end.saturating_sub(n)..end;
    ShardHistory {
        bytes: s.bytes[range.clone()].to_vec(),
        chunks: s.chunks[range.clone()].to_vec(),
        shares: s.shares[range].to_vec(),
        ..s.clone()
    }
}

/// The largest shards' data over the whole window, a line each in its shard's colour.
fn chart(frame: &mut Frame, area: Rect, h: &HistoryView, theme: Theme, times: (bool, u64)) {
    let (virtual_time, offset) = times;
    let mut largest: Vec<&ShardHistory> = h.shards.iter().collect();
    largest.sort_by_key(|s| std::cmp::Reverse(latest(&s.bytes).unwrap_or(0)));
    largest.truncate(CHART_SHARDS);
    let secs = |col: usize| (col as u64 * h.secs_per_col) as f64;
    let points: Vec<Vec<(f64, f64)>> = largest
        .iter()
        .map(|s| {
            s.bytes
                .iter()
                .enumerate()
                .filter_map(|(c, b)| b.map(|b| (secs(c), b as f64 / MIB)))
                .collect()
        })
        .collect();
    let top = points
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(0.0_f64, f64::max)
        .max(1.0 / 1024.0);
    let datasets: Vec<Dataset> = largest
        .iter()
        .zip(&points)
        .map(|(s, p)| {
            Dataset::default()
                .name(s.id.clone())
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.shard(s.index))
                .data(p)
        })
        .collect();
    let width = secs(h.shards.first().map_or(1, |s| s.bytes.len()));
    let shown = if h.shards.len() > CHART_SHARDS {
        format!(
            " data per shard (the {CHART_SHARDS} largest of {}) ",
            h.shards.len()
        )
    } else {
        " data per shard ".to_string()
    };
    let chart = Chart::new(datasets)
        .block(ratatui::widgets::Block::new().title(Span::styled(shown, theme.dim())))
        .hidden_legend_constraints((Constraint::Ratio(1, 3), Constraint::Ratio(2, 3)))
        .x_axis(
            Axis::default()
                .bounds([0.0, width])
                .labels([
                    axis_time(h.from_ms + offset, virtual_time, false),
                    axis_time(h.to_ms + offset, virtual_time, true),
                ])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, top * 1.05])
                .labels(["0".to_string(), human_bytes((top * MIB) as u64)])
                .style(theme.dim()),
        );
    frame.render_widget(chart, area);
}

const MIB: f64 = 1024.0 * 1024.0;

fn max_of<'a>(values: impl Iterator<Item = &'a Option<u64>>) -> f64 {
    values.filter_map(|v| *v).max().unwrap_or(0) as f64
}

fn latest<T: Copy>(values: &[Option<T>]) -> Option<T> {
    values.iter().rev().find_map(|v| *v)
}

fn progress_lines(p: &Progress, now_col: usize, theme: Theme, width: usize) -> [Line<'static>; 2] {
    let head = format!("{} {:>3.0}% done ", p.what, p.done * 100.0);
    let room = width.saturating_sub(head.chars().count());
    let end = (now_col + 1).min(p.trend.len());
    let trend = &p.trend[end.saturating_sub(room)..end];
    [
        Line::from(vec![
            Span::styled(head, theme.warn()),
            Span::styled(sparkline(trend.iter().copied(), 1.0), theme.bar(Bar::Data)),
        ]),
        Line::from(Span::styled(
            crate::units::cut_at_words(&format!("  {}", p.detail), width),
            theme.dim(),
        )),
    ]
}

fn header(cols: usize, name: usize, theme: Theme) -> Line<'static> {
    let title = |t: &str, w: usize| format!("{t:<w$}");
    Line::from(Span::styled(
        format!(
            "  {:<name$} {} │ {} │ {}",
            "shard",
            title("data", cols + 10),
            title("chunks", cols + 8),
            title("writes", cols + 5),
        ),
        theme.dim(),
    ))
}

fn shard_line(
    s: &ShardHistory,
    name: usize,
    (max_bytes, max_chunks): (f64, f64),
    theme: Theme,
) -> Line<'static> {
    let as_f64 = |v: &Option<u64>| v.map(|n| n as f64);
    let id: String = s.id.chars().take(name).collect();
    let bytes = latest(&s.bytes).map_or_else(|| "-".into(), human_bytes);
    let chunks = latest(&s.chunks).map_or_else(|| "-".into(), |n| n.to_string());
    let share = s
        .shares
        .last()
        .copied()
        .flatten()
        .map_or_else(|| "-".into(), |x| format!("{:.0}%", x * 100.0));
    let mut spans = vec![
        Span::styled(
            Theme::shard_glyph(s.index).to_string(),
            theme.shard_cell(s.index),
        ),
        Span::styled(
            format!(" {id:<name$} "),
            if s.draining {
                theme.warn()
            } else {
                theme.shard(s.index)
            },
        ),
    ];
    let series = [
        (
            sparkline(s.bytes.iter().map(as_f64), max_bytes),
            Bar::Data,
            format!(" {bytes:>9}"),
        ),
        (
            sparkline(s.chunks.iter().map(as_f64), max_chunks),
            Bar::Chunks,
            format!(" {chunks:>7}"),
        ),
        (
            sparkline(s.shares.iter().copied(), 1.0),
            Bar::Writes,
            format!(" {share:>4}"),
        ),
    ];
    for (i, (line, bar, value)) in series.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme.dim()));
        }
        spans.push(Span::styled(line, theme.bar(bar)));
        spans.push(Span::raw(value));
    }
    Line::from(spans)
}

fn axis(
    (from_ms, now_ms): (u64, u64),
    width: usize,
    more: usize,
    virtual_time: bool,
) -> Line<'static> {
    let left = axis_time(from_ms, virtual_time, false);
    let more = if more > 0 {
        format!(" · {more} more shards (↓)")
    } else {
        String::new()
    };
    let right = format!("{} (now){more}", axis_time(now_ms, virtual_time, true));
    let gap = width.saturating_sub(left.chars().count() + right.chars().count() + 2);
    Line::from(format!("  {left}{}{right}", " ".repeat(gap)))
}
