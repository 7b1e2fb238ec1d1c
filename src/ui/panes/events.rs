//! The event log: splits, migrations, jumbo marks, zone changes, balancer rounds and errors,
//! newest at the bottom; filterable by kind (f) and by text (/), scrollable when focused, with a
//! row cursor (`▶`) there whose line `Enter` opens whole (`app_detail`).

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

/// Where the pane's lines are, for the visible log of `len` lines in the pane's `inner` area:
/// the lines `[start, end)` shown, the cursor's line, and the rows the notes take above them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub end: usize,
    pub cursor: Option<usize>,
    pub notes: usize,
}

/// The pane's window over the visible log: `app.log_scroll` lines back from the newest, the
/// cursor `app.log_row` rows above the last line shown.
pub fn window(app: &App, inner: Rect, len: usize) -> Window {
    let notes = notes(app, usize::from(inner.width), app.settings.theme).len();
    let rows = usize::from(inner.height).saturating_sub(notes);
    let end = len.saturating_sub(app.log_scroll.min(len));
    let start = end.saturating_sub(rows);
    let cursor = (end > start).then(|| end - 1 - app.log_row.min(end - start - 1));
    Window {
        start,
        end,
        cursor,
        notes,
    }
}

fn notes(app: &App, width: usize, theme: Theme) -> Vec<Line<'static>> {
    super::refused_lines(app, &[crate::view::Feeds::Events], width, theme)
}

/// The pane's inner area on the app's terminal: `None` when there is no room for the event log
/// or the explain panel takes its place.
pub fn inner_area(app: &App) -> Option<Rect> {
    let area = Rect::new(0, 0, app.size.0, app.size.1);
    let shards = app.view.as_ref().map_or(3, |v| v.shards.len());
    let events = super::layout(area, shards)?.events?;
    (!app.explain).then(|| pane_block(Line::default(), false, app.settings.theme).inner(events))
}

/// The line under the cursor, as the pane shows it on the app's terminal.
pub fn selected(app: &App) -> Option<&crate::view::LogLine> {
    let visible: Vec<_> = app.visible_log().collect();
    let w = window(app, inner_area(app)?, visible.len());
    w.cursor.map(|i| visible[i])
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
    let width = usize::from(inner.width);
    let visible: Vec<_> = app.visible_log().collect();
    let (virtual_time, offset) = super::times_of(app);
    let w = window(app, inner, visible.len());
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
        (w.start..w.end)
            .map(|i| {
                let l = visible[i];
                let here = focused && w.cursor == Some(i);
                let mark = if here { '▶' } else { ' ' };
                let text = crate::units::cut_at_words(&l.text, width.saturating_sub(9));
                let style = kind_style(l.kind, theme);
                Line::from(vec![
                    Span::styled(
                        format!("{:>8}{mark}", time_text(l.at_ms + offset, virtual_time)),
                        theme.dim(),
                    ),
                    Span::styled(
                        text,
                        if here {
                            style.patch(theme.selected())
                        } else {
                            style
                        },
                    ),
                ])
            })
            .collect()
    };
    lines.splice(0..0, notes(app, width, theme));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
