//! The lab's side-by-side screen: one column per candidate key, each a compact shards pane
//! (chunks, data and the share of the new inserts per shard), its key-space strip by owning
//! shard with the hot chunk marked ▲ below, `analyzeShardKey`'s reads and writes per range as
//! heat strips, and its numbers so far.
//!
//! ```text
//! documents 150,000 of 200,000 · new inserts arriving
//! ┌ {_id: 1} ──────────────┐┌ {city: 1} ─────────────┐
//! │ shard0000 30 ch 3.2 MiB 0% │ 0 30 3.2M 0% (narrow)    │
//! │ ██▓▓░░██▓▓░░██          │                          │
//! │               ▲         │                          │
//! │ largest share 100% …    │                          │
//! └─────────────────────────┘└──────────────────────────┘
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, pane_block};
use crate::ui::app::App;
use crate::ui::theme::Theme;
use crate::units::human_bytes;
use crate::view::lab::{LabColumn, LabView};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let Some(lab) = app.view.as_ref().and_then(|v| v.lab.as_ref()) else {
        let block = pane_block(Line::from(" Lab "), true, theme);
        frame.render_widget(Paragraph::new("waiting for the lab…").block(block), area);
        return;
    };
    let [top, columns] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    frame.render_widget(Paragraph::new(progress(lab)), top);
    let n = lab.columns.len().max(1);
    let areas = Layout::horizontal(vec![Constraint::Ratio(1, n as u32); n]).split(columns);
    for (i, (c, a)) in lab.columns.iter().zip(areas.iter()).enumerate() {
        render_column(frame, *a, c, i == app.collection, theme);
    }
}

fn progress(lab: &LabView) -> String {
    let state = if lab.documents >= lab.total {
        "every document inserted"
    } else {
        "new inserts arriving"
    };
    format!(
        " documents {} of {} · {state}",
        crate::units::grouped(lab.documents),
        crate::units::grouped(lab.total)
    )
}

fn render_column(frame: &mut Frame, area: Rect, c: &LabColumn, chosen: bool, theme: Theme) {
    let room = usize::from(area.width).saturating_sub(4);
    let title = Line::from(Span::styled(
        format!(" {} ", fit(&c.key, room)),
        theme.title(),
    ));
    let block = pane_block(title, chosen, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut lines: Vec<Line> = shard_rows(c, width.saturating_sub(2))
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let style = if c.shards[i].hot {
                theme.hot()
            } else {
                theme.shard(i)
            };
            Line::from(vec![
                Span::styled(Theme::shard_glyph(i).to_string(), theme.shard_cell(i)),
                Span::styled(format!(" {text}"), style),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.extend(strip(c, width, theme));
    lines.extend(by_range(c, width, theme));
    lines.push(Line::raw(""));
    for (labels, value) in numbers(c) {
        lines.push(Line::raw(labelled(labels, &value, width)));
    }
    lines.push(Line::raw(""));
    for (query, goes) in &c.targets {
        let style = if goes == "one shard" {
            theme.ok()
        } else {
            theme.warn()
        };
        lines.push(Line::from(Span::styled(fit(goes, width), style)));
        // Wrapped at spaces, never cut (a word longer than the line goes on the next): a query's
        // last bound is a number the reader needs.
        for part in crate::units::wrap_words(query, width.saturating_sub(2), usize::MAX) {
            lines.push(Line::from(Span::styled(format!("  {part}"), theme.dim())));
        }
    }
    let height = usize::from(inner.height);
    if lines.len() > height && height > 0 {
        // A query cut by the pane's height would read as a shorter query: say more follow.
        lines.truncate(height - 1);
        lines.push(Line::from(Span::styled(
            fit("  … more queries (a taller terminal)", width),
            theme.dim(),
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The strip sampled to `width` cells, and the hot chunk's mark below it.
fn strip(c: &LabColumn, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let n = c.strip.len();
    if n == 0 || width == 0 {
        return Vec::new();
    }
    let mut cells = Vec::with_capacity(width);
    let mut marks = String::with_capacity(width);
    for x in 0..width {
        let from = x * n / width;
        let to = ((x + 1) * n / width).max(from + 1).min(n);
        let (shard, _) = c.strip[from];
        let hot = c.strip[from..to].iter().any(|(_, h)| *h);
        let i = shard.index();
        cells.push(Span::styled(
            Theme::shard_glyph(i).to_string(),
            theme.shard_cell(i),
        ));
        marks.push(if hot { '▲' } else { ' ' });
    }
    vec![
        Line::from(cells),
        Line::from(Span::styled(marks, theme.hot())),
    ]
}

/// `analyzeShardKey`'s reads and writes per range as heat strips sampled to `width` (a cell
/// shows the hottest of the ranges it covers; the glyphs ` ▁…█` order as their chars do).
fn by_range(c: &LabColumn, width: usize, theme: Theme) -> Vec<Line<'static>> {
    if c.reads_by_range.is_empty() {
        return vec![Line::from(Span::styled(
            fit("by range: too few key values for 100 ranges", width),
            theme.dim(),
        ))];
    }
    let row = |label: &str, glyphs: &str| {
        let cells: Vec<char> = glyphs.chars().collect();
        let w = width.saturating_sub(label.len());
        let n = cells.len();
        let strip: String = (0..w)
            .map(|x| {
                let from = x * n / w.max(1);
                let to = ((x + 1) * n / w.max(1)).max(from + 1).min(n);
                cells[from.min(n - 1)..to]
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(' ')
            })
            .collect();
        Line::from(vec![
            Span::styled(label.to_string(), theme.dim()),
            Span::styled(strip, theme.warn()),
        ])
    };
    vec![
        row("reads  ", &c.reads_by_range),
        row("writes ", &c.writes_by_range),
    ]
}

/// Each number with its label's forms, longest first: the number always shows whole, the label
/// in the longest form that fits beside it.
fn numbers(c: &LabColumn) -> Vec<(&'static [&'static str], String)> {
    vec![
        (
            &["new inserts", "inserts", "ins"],
            crate::units::grouped(c.new_inserts),
        ),
        (
            &["largest shard share", "largest share", "max share", "max"],
            format!("{:.0}%", c.max_share * 100.0),
        ),
        (
            &["chunks", "ch"],
            format!("{} · jumbo {}", c.chunks, c.jumbo),
        ),
        (&["migrations", "moves", "mv"], c.migrations.to_string()),
        (
            &[
                "queries on one shard",
                "one-shard queries",
                "1-shard",
                "1sh",
            ],
            format!("{} of {}", c.single_shard, c.operations),
        ),
    ]
}

/// `label value` in `width`: the longest form of the label that fits, the value never cut (when
/// even the shortest does not fit, the value alone).
fn labelled(labels: &[&str], value: &str, width: usize) -> String {
    let need = value.chars().count();
    labels
        .iter()
        .find(|l| l.chars().count() + 1 + need <= width)
        .map_or_else(|| fit(value, width), |l| format!("{l} {value}"))
}

/// The shards' rows in `width`: the numbers (chunks, data, share of the new inserts) get their
/// width first (`4 ch 109.8 KiB 0%`, or `4 109.8K 0%` when narrow); the shard names are cut to a
/// unique form in what is left, or left out (the row's glyph names the shard, as in the strip).
fn shard_rows(c: &LabColumn, width: usize) -> Vec<String> {
    let form = |compact: bool| -> Vec<String> {
        (c.shards.iter())
            .map(|s| {
                let (bytes, share) = (human_bytes(s.bytes), s.share * 100.0);
                if compact {
                    // `4 109.8K 0%`: the unit's letter kept, its `iB` and the `ch` dropped.
                    let bytes = bytes.replace(' ', "").replace("iB", "");
                    format!("{} {bytes} {share:.0}%", s.chunks)
                } else {
                    format!("{} ch {bytes} {share:.0}%", s.chunks)
                }
            })
            .collect()
    };
    let widest = |n: &[String]| n.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let ids: Vec<&str> = c.shards.iter().map(|s| s.id.as_str()).collect();
    let longest = ids.iter().map(|i| i.chars().count()).max().unwrap_or(0);
    // Whole names with the full numbers, else with the compact ones; else names cut to a unique
    // form of at least 6; else none (`sh…1`-like cuts say no more than the row's glyph, the
    // shard's as in the strip).
    let mut numbers = form(false);
    if widest(&numbers) + 1 + longest > width {
        numbers = form(true);
    }
    let room = width.saturating_sub(widest(&numbers) + 1);
    let names = crate::units::cut_names(&ids, room)
        .filter(|_| room >= 6)
        .unwrap_or_else(|| vec![String::new(); ids.len()]);
    (names.iter().zip(&numbers))
        .map(|(name, n)| {
            let line = format!("{name} {n}").trim_start().to_string();
            if line.chars().count() > width {
                fit(n, width)
            } else {
                line
            }
        })
        .collect()
}
