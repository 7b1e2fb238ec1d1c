//! The command palette's overlay: the filter being typed, then one row per command of the screen
//! shown (its keys, its name, what it does), the chosen row reversed and kept in view, and a last
//! line with the palette's own keys and how many commands match.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{fit, pane_block};
use crate::ui::app::App;
use crate::ui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let Some(state) = app.palette.as_ref() else {
        return;
    };
    let entries = app.palette_entries();
    // Between the header and the footer when there is room: a third of the way down.
    let width = 84.min(area.width);
    let room = if area.height > 7 {
        area.height - 2
    } else {
        area.height
    };
    let height = (entries.len() as u16 + 4).clamp(5.min(room), room);
    let top = area.y + u16::from(room < area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: top + (room - height) / 3,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let block = pane_block(Line::from(" Commands "), true, theme);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [prompt, list, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(": ", theme.key()),
            Span::raw({
                let (before, after) = app.line.split(&state.filter);
                format!("{before}▏{after}")
            }),
        ])),
        prompt,
    );
    let rows = usize::from(list.height);
    let selected = state.selected.min(entries.len().saturating_sub(1));
    let first = (selected + 1).saturating_sub(rows);
    let text_width = usize::from(list.width);
    let lines: Vec<Line> = entries
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, e)| {
            let keys = if e.keys.is_empty() {
                "unbound"
            } else {
                e.keys.as_str()
            };
            let text = fit(
                &format!(" {keys:<12} {:<16} {}", e.command, e.what),
                text_width,
            );
            if i == selected {
                Line::from(Span::styled(
                    format!("{text:<text_width$}"),
                    Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD),
                ))
            } else {
                Line::from(Span::raw(text))
            }
        })
        .collect();
    if lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled(
                format!(" no command matches “{}”", state.filter),
                theme.dim(),
            )),
            list,
        );
    } else {
        frame.render_widget(Paragraph::new(lines), list);
    }
    let count = match entries.len() {
        1 => "1 command".to_string(),
        n => format!("{n} commands"),
    };
    let status_text = fit(
        &format!("↑/↓ choose · Enter runs · Esc closes · {count}"),
        usize::from(status.width),
    );
    frame.render_widget(
        Paragraph::new(Span::styled(status_text, theme.dim())),
        status,
    );
}
