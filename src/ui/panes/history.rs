//! The history view: per shard, the collection's data, chunks and write share over time as
//! sparklines (`▁…█`, newest at the right) beside their latest values, drains and reshardings
//! with their progress over time and an estimated end, a time axis, and in the room left a
//! chart of the largest shards' data over the whole window.

use ratatui::Frame;
use ratatui::layout::Rect;
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
        let row = window(s, spark, h.now_col);
        shard_line(&row, name, (max_bytes, max_chunks), theme)
    }));
    let more = h.shards.len().saturating_sub(scroll + room);
    // The sparklines span the chart's window: from its first column to now.
    let times = super::times_of(app);
    lines.push(axis(
        (h.from_ms + times.1, h.now_ms + times.1),
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

/// A shard's series over the chart's window — from its first column to the source's time, never
/// past it — in at most `n` columns.
fn window(s: &ShardHistory, n: usize, now_col: usize) -> ShardHistory {
    ShardHistory {
        bytes: resample(&s.bytes, n, now_col + 1),
        chunks: resample(&s.chunks, n, now_col + 1),
        shares: resample(&s.shares, n, now_col + 1),
        ..s.clone()
    }
}

/// The first `end` columns of `values` in at most `n` columns, each the last value of its span;
/// a column with no sample carries the value before it (a live source samples once a poll, so
/// the columns between two polls hold the last poll's value, not a gap).
pub fn resample<T: Copy>(values: &[Option<T>], n: usize, end: usize) -> Vec<Option<T>> {
    let end = end.min(values.len());
    let carried: Vec<Option<T>> = values[..end]
        .iter()
        .scan(None, |last, v| {
            if v.is_some() {
                *last = *v;
            }
            Some(*last)
        })
        .collect();
    if end <= n || n == 0 {
        return carried;
    }
    (0..n).map(|i| carried[(i + 1) * end / n - 1]).collect()
}

/// The largest shards' data over the window up to now (never past it after a seek back), a line
/// each in its shard's colour; the legend is the chart's title line, above the data.
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
                .take(h.now_col + 1)
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
    let width = secs(h.now_col).max(1.0);
    let shown = if h.shards.len() > CHART_SHARDS {
        format!(
            " data per shard (the {CHART_SHARDS} largest of {}) ",
            h.shards.len()
        )
    } else {
        " data per shard ".to_string()
    };
    let legend = legend(&shown, &largest, usize::from(area.width), theme);
    let chart = Chart::new(datasets)
        .block(ratatui::widgets::Block::new().title(legend))
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, width])
                .labels([
                    axis_time(h.from_ms + offset, virtual_time, false),
                    axis_time(h.now_ms + offset, virtual_time, true),
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

/// The chart's title and legend on one line above it: ` data per shard ━ shard0000 ━ shard0001`,
/// each name in its shard's colour, as many whole names as `width` holds and `+N` for the rest.
fn legend(title: &str, shards: &[&ShardHistory], width: usize, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(title.to_string(), theme.dim())];
    let mut used = title.chars().count();
    for (i, s) in shards.iter().enumerate() {
        let piece = format!("━ {} ", s.id);
        let rest = shards.len() - i - 1;
        let tail = if rest > 0 {
            3 + rest.to_string().len()
        } else {
            0
        };
        if used + piece.chars().count() + tail > width {
            spans.push(Span::styled(format!("+{}", shards.len() - i), theme.dim()));
            break;
        }
        used += piece.chars().count();
        spans.push(Span::styled(piece, theme.shard(s.index)));
    }
    Line::from(spans)
}

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

#[cfg(test)]
mod tests {
    use super::resample;

    #[test]
    fn a_series_is_resampled_over_its_window_to_now_and_gaps_carry_the_last_poll() {
        let polls = [
            Some(1),
            None,
            None,
            Some(4),
            None,
            Some(6),
            Some(7),
            Some(8),
        ];
        // Between two polls the last one's value, not a gap; nothing before the first.
        assert_eq!(
            resample(&[None, Some(2), None, None], 10, 4),
            [None, Some(2), Some(2), Some(2)]
        );
        // Up to now (column 5): never past it.
        assert_eq!(
            resample(&polls, 10, 6),
            [Some(1), Some(1), Some(1), Some(4), Some(4), Some(6)]
        );
        // The whole window in 4 columns, each the last value of its span.
        assert_eq!(resample(&polls, 4, 8), [Some(1), Some(4), Some(6), Some(8)]);
        assert_eq!(resample(&polls, 0, 8).len(), 8);
    }
}
