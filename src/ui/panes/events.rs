//! The event log: splits, migrations, jumbo marks, zone changes, balancer rounds and errors,
//! newest at the bottom; filterable by kind (f) and by text (/), scrollable when focused.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{pane_block, time_text};
use crate::ui::app::App;
use crate::ui::theme::Theme;
use crate::view::LogKind;

fn kind_style(kind: LogKind, theme: Theme) -> ratatui::style::Style {
    match kind {
        LogKind::Error => theme.error(),
        LogKind::Jumbo => theme.jumbo(),
        LogKind::Migration => theme.warn(),
        LogKind::Zone => theme.zone(0),
        LogKind::Balancer | LogKind::Other => theme.dim(),
        LogKind::Split | LogKind::Shard => theme.ok(),
    }
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme, focused: bool) {
    let filter = app.log_filter.map_or("all", LogKind::label);
    let mut title = format!(" Events · {filter}");
    if !app.search.is_empty() {
        title.push_str(&format!(" · /{}", app.search));
    }
    if app.log_scroll > 0 {
        title.push_str(&format!(" · scrolled back {}", app.log_scroll));
    }
    title.push(' ');
    let block = pane_block(
        Line::from(Span::styled(title, theme.title())),
        focused,
        theme,
    );
    let inner = block.inner(area);
    let rows = usize::from(inner.height);
    let width = usize::from(inner.width);
    let visible: Vec<_> = app.visible_log().collect();
    let (virtual_time, offset) = super::times_of(app);
    let end = visible
        .len()
        .saturating_sub(app.log_scroll.min(visible.len()));
    let refused = super::refused_lines(app, &[crate::view::Feeds::Events], width, theme);
    let rows = rows.saturating_sub(refused.len());
    let start = end.saturating_sub(rows);
    let mut lines: Vec<Line> = if visible.is_empty() {
        vec![Line::from(Span::styled(
            if app.log.is_empty() {
                "no events yet"
            } else {
                "no event matches the filter (Esc clears)"
            },
            theme.dim(),
        ))]
    } else {
        visible[start..end]
            .iter()
            .map(|l| {
                Line::from(vec![
                    Span::styled(
                        format!("{:>8} ", time_text(l.at_ms + offset, virtual_time)),
                        theme.dim(),
                    ),
                    Span::styled(
                        crate::units::cut_at_words(&l.text, width.saturating_sub(9)),
                        kind_style(l.kind, theme),
                    ),
                ])
            })
            .collect()
    };
    lines.splice(0..0, refused);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
