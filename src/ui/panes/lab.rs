//! The lab's side-by-side screen: one column per candidate key, each a compact shards pane
//! (chunks, data and the share of the new inserts per shard), its key-space strip by owning
//! shard with the hot chunk marked ▲ below, `analyzeShardKey`'s reads and writes per range as
//! heat strips, and its numbers so far.
//!
//! ```text
//! documents 150,000 of 200,000 · new inserts arriving
//! ┌ {_id: 1} ──────────────┐┌ {city: 1} ─────────────┐
//! │ shard0000 30 ch 3.2 MiB 0% │ …                       │
//! │ ██▓▓░░██▓▓░░██          │                          │
//! │               ▲         │                          │
//! │ largest share 100% …    │                          │
//! └─────────────────────────┘└──────────────────────────┘
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, pane_block, wrap};
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
    let title = Line::from(Span::styled(format!(" {} ", c.key), theme.title()));
    let block = pane_block(title, chosen, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut lines: Vec<Line> = c
        .shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let text = format!(
                "{} {} ch {} {:.0}%",
                s.id,
                s.chunks,
                human_bytes(s.bytes),
                s.share * 100.0
            );
            let style = if s.hot { theme.hot() } else { theme.shard(i) };
            Line::from(vec![
                Span::styled(Theme::shard_glyph(i).to_string(), theme.shard_cell(i)),
                Span::styled(format!(" {}", fit(&text, width.saturating_sub(2))), style),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.extend(strip(c, width, theme));
    lines.extend(by_range(c, width, theme));
    lines.push(Line::raw(""));
    for text in numbers(c) {
        lines.push(Line::raw(fit(&text, width)));
    }
    lines.push(Line::raw(""));
    for (query, goes) in &c.targets {
        let style = if goes == "one shard" {
            theme.ok()
        } else {
            theme.warn()
        };
        lines.push(Line::from(Span::styled(fit(goes, width), style)));
        // Wrapped at spaces, not cut: a query's last bound is a number the reader needs.
        for part in wrap(query, width.saturating_sub(2)) {
            lines.push(Line::from(Span::styled(
                fit(&format!("  {part}"), width),
                theme.dim(),
            )));
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

fn numbers(c: &LabColumn) -> Vec<String> {
    vec![
        format!("new inserts {}", crate::units::grouped(c.new_inserts)),
        format!("largest shard share {:.0}%", c.max_share * 100.0),
        format!("chunks {} · jumbo {}", c.chunks, c.jumbo),
        format!("migrations {}", c.migrations),
        format!(
            "queries on one shard {} of {}",
            c.single_shard, c.operations
        ),
    ]
}
