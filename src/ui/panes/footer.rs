//! The footer: the main keys, and the latest notice on the right.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::ui::app::App;
use crate::ui::theme::Theme;

const KEYS: &[(&str, &str)] = &[
    ("?", "help"),
    ("q", "quit"),
    ("space", "pause"),
    ("+/-", "speed"),
    ("./,", "step"),
    ("n/p", "migration"),
    ("tab", "focus"),
    ("i/o", "zoom"),
];

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let mut spans = Vec::new();
    if app.searching {
        if app.typing_query {
            spans.push(Span::styled(" query filter: ", theme.key()));
            spans.push(Span::raw(format!("{}▏", app.query_text)));
        } else {
            spans.push(Span::styled(" search: ", theme.key()));
            spans.push(Span::raw(format!("{}▏", app.search)));
        }
        spans.push(Span::styled("  Enter keeps · Esc clears", theme.dim()));
    } else {
        // A notice takes the place of the less important keys.
        let room = usize::from(area.width)
            .saturating_sub(app.notice.as_ref().map_or(0, |n| n.chars().count() + 2));
        let mut used = 0;
        for (key, what) in KEYS {
            let w = key.chars().count() + what.chars().count() + 2;
            if used + w > room {
                break;
            }
            used += w;
            spans.push(Span::styled(format!(" {key}"), theme.key()));
            spans.push(Span::raw(format!(" {what}")));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    if let Some(n) = &app.notice
        && !app.searching
    {
        frame.render_widget(
            Paragraph::new(Span::styled(format!("{n} "), theme.warn())).alignment(Alignment::Right),
            area,
        );
    }
}
