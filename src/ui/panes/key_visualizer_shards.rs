//! The key visualizer where the source has no per-chunk writes (a live cluster with `--heat
//! size` or `off`): why, and the per-shard heat there is, as bars of each shard's share.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::pane_block;
use crate::ui::app::App;
use crate::ui::theme::{Bar, Theme, bar};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let v = app.view.as_ref();
    let why = match v.and_then(|v| v.heat) {
        Some("size") => {
            "A live cluster watched with --heat size has no per-chunk signal: a mongos does not know which chunk grew, so there is no key range to light. Per-shard heat only: each shard's share of the growth between polls. For ranges, watch with --heat changestream or --heat sampled (7.0+)."
        }
        Some("off") => {
            "No write signal (--heat off): nothing to draw. Watch with --heat changestream or --heat sampled (7.0+) for key ranges, --heat size for per-shard growth."
        }
        Some(_) => "No writes counted yet: the key visualizer fills as the next polls count them.",
        None => "No sharded collection to show.",
    };
    let block = pane_block(
        Line::from(Span::styled(" Key visualizer ", theme.title())),
        true,
        theme,
    );
    let width = usize::from(block.inner(area).width);
    let mut lines = vec![Line::from(why), Line::from("")];
    if v.and_then(|v| v.heat) == Some("size") {
        let shards = v.map_or(&[][..], |v| v.shards.as_slice());
        let name = shards
            .iter()
            .map(|s| s.id.chars().count())
            .max()
            .unwrap_or(5);
        let cells = width.saturating_sub(name + 10).max(4);
        lines.extend(shards.iter().enumerate().map(|(i, s)| {
            Line::from(vec![
                Span::styled(Theme::shard_glyph(i).to_string(), theme.shard_cell(i)),
                Span::raw(format!(" {:<name$} ", s.id)),
                Span::styled(bar(s.write_share, cells), theme.bar(Bar::Writes)),
                Span::raw(format!(" {:>4.0}%", s.write_share * 100.0)),
            ])
        }));
    }
    lines.push(Line::from(Span::styled("v or Esc goes back", theme.dim())));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}
