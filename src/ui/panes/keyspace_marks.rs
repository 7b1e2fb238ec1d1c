//! The key-space pane's marks row and zone bands. The marks of a cell, in a fixed precedence —
//! `◆` the query's targets, `J` jumbo, `!` a chunk outside its zone, `▲` the hottest chunk when it
//! is a hotspot, then `▁…█` recent writes — drawn side by side as far as the cell is wide; where a
//! cell is too narrow for all, the first is drawn and a hot cell's glyph takes the hot colour (its
//! strip cell is bold and underlined as well), so `▲` never hides `◆` nor `J`. The zone bands are
//! drawn in the zones' own colours (apart from the shards'), and the pane's bottom border is their
//! legend, each zone named in its colour.
//!
//! Part of `ui::panes`: drawing only.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::fit;
use super::keyspace::columns;
use crate::ui::app::App;
use crate::ui::theme::Theme;
use crate::view::{Cell, CollectionView};

const HEAT: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Every mark of a cell, in the precedence they are drawn in.
pub fn cell_marks(cell: &Cell, max_writes: u64, app: &App, theme: Theme) -> Vec<(char, Style)> {
    let mut out = Vec::new();
    if cell.targeted {
        out.push(('◆', theme.key()));
    }
    if cell.jumbo {
        out.push(('J', theme.jumbo()));
    }
    if cell.outside_zone && app.zones {
        out.push(('!', theme.error().add_modifier(Modifier::BOLD)));
    }
    let hot = cell.hot && app.heat;
    if hot {
        out.push(('▲', theme.hot()));
    }
    if app.heat && cell.writes > 0 && !hot {
        let level = (cell.writes * 7).div_ceil(max_writes.max(1)) as usize;
        out.push((HEAT[level.min(7)], theme.hot()));
    }
    out
}

/// The marks row: each cell's marks centred in its columns, as many as fit.
pub fn marks(c: &CollectionView, width: usize, app: &App, theme: Theme) -> Line<'static> {
    let n = c.cells.len().max(1);
    let max_writes = c.cells.iter().map(|x| x.writes).max().unwrap_or(0);
    let mut spans = Vec::new();
    let mut col = 0;
    for (i, cell) in c.cells.iter().enumerate() {
        let (a, b) = columns(i, n, width);
        let mut all = cell_marks(cell, max_writes, app, theme);
        if all.is_empty() {
            continue;
        }
        let room = (b - a).max(1);
        if all.len() > room {
            all.truncate(room);
            // The hot mark did not fit: the first glyph says it in the hot colour.
            if cell.hot && app.heat && all.iter().all(|(ch, _)| *ch != '▲') {
                all[0].1 = theme.hot();
            }
        }
        let at = a + (room - all.len()) / 2;
        if at < col {
            continue;
        }
        spans.push(Span::raw(" ".repeat(at - col)));
        for (ch, style) in &all {
            spans.push(Span::styled(ch.to_string(), *style));
        }
        col = at + all.len();
    }
    Line::from(spans)
}

/// The zone bands: `├USPS──┤` over the cells of each zone, in the zone's colour.
pub fn zones(c: &CollectionView, width: usize, theme: Theme) -> Line<'static> {
    let n = c.cells.len().max(1);
    let mut spans = Vec::new();
    let mut i = 0;
    while i < c.cells.len() {
        let zone = c.cells[i].zone;
        let mut j = i + 1;
        while j < c.cells.len() && c.cells[j].zone == zone {
            j += 1;
        }
        let (a, _) = columns(i, n, width);
        let (_, b) = columns(j - 1, n, width);
        let w = b - a;
        spans.push(match zone {
            Some(z) => {
                let name = c.zone_names.get(z).map_or("?", String::as_str);
                let body = if w >= 2 {
                    let inside = fit(name, w - 2);
                    let fill = "─".repeat(w - 2 - inside.chars().count());
                    format!("├{inside}{fill}┤")
                } else {
                    "┃".repeat(w)
                };
                Span::styled(body, theme.zone(z))
            }
            None => Span::raw(" ".repeat(w)),
        });
        i = j;
    }
    Line::from(spans)
}

/// The zones' legend for the pane's bottom border: ` zones ━ USPS ━ Apple ` with each `━ name`
/// in its zone's colour, as many whole names as `width` holds and `+N` for the rest.
pub fn legend(c: &CollectionView, width: usize, theme: Theme) -> Option<Line<'static>> {
    if c.zone_names.is_empty() {
        return None;
    }
    let mut spans = vec![Span::styled(" zones", theme.dim())];
    let mut used = 6;
    for (z, name) in c.zone_names.iter().enumerate() {
        let piece = format!(" ━ {name}");
        let rest = c.zone_names.len() - z - 1;
        let tail = if rest > 0 {
            4 + rest.to_string().len()
        } else {
            1
        };
        if used + piece.chars().count() + tail > width {
            spans.push(Span::styled(
                format!(" +{} ", c.zone_names.len() - z),
                theme.dim(),
            ));
            return Some(Line::from(spans));
        }
        used += piece.chars().count();
        spans.push(Span::styled(piece, theme.zone(z)));
    }
    spans.push(Span::raw(" "));
    Some(Line::from(spans))
}
