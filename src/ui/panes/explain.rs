//! The explain panel, in place of the event log (`e`): for the selected chunk of the key space
//! (else the chunk the next round moves, else the hottest), one line per shard — the rules that
//! pass, each rule that keeps the shard out with its number and limit, the rules not read — and
//! the next move. Drawn from the view's pre-aggregate (`view::explain`); `shardtop explain` gives
//! every rule with its number. The chunk is named in the title when it fits there whole, else on
//! the panel's first line, wrapped.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::pane_block;
use crate::ui::app::App;
use crate::ui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let panel = app.view.as_ref().and_then(|v| v.explain.as_ref());
    // The chunk in the title when it fits whole; else its own first line, wrapped (never cut).
    let whole = panel.map(|p| format!(" Explain · {} ", p.chunk));
    let fits = |t: &String| t.chars().count() + 2 <= usize::from(area.width);
    let in_title = whole.as_ref().is_some_and(fits);
    let title = match whole {
        Some(t) if in_title => t,
        _ => " Explain ".to_string(),
    };
    let block = pane_block(Line::from(Span::styled(title, theme.title())), false, theme);
    let Some(panel) = panel else {
        let text = "waiting for the source's explanation (e closes)";
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim()))
                .wrap(Wrap { trim: true })
                .block(block),
            area,
        );
        return;
    };
    let width = panel.rows.iter().map(|r| r.shard.len()).max().unwrap_or(5);
    let mut lines: Vec<Line> = Vec::new();
    if !in_title {
        lines.push(Line::from(Span::styled(panel.chunk.clone(), theme.title())));
    }
    lines.push(Line::from(Span::styled(panel.next.clone(), theme.warn())));
    for row in &panel.rows {
        let mut spans = vec![
            Span::raw(format!("{:<width$} ", row.shard)),
            Span::styled(format!("{} pass", row.passed), theme.ok()),
        ];
        if !row.failed.is_empty() {
            spans.push(Span::raw(" · "));
            spans.push(Span::styled(row.failed.join(" · "), theme.error()));
        }
        if !row.unknown.is_empty() {
            spans.push(Span::raw(" · "));
            spans.push(Span::styled(
                format!("unknown: {}", row.unknown.join(", ")),
                theme.dim(),
            ));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}
