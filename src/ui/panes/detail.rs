//! The detail view (`Enter` on an event, or on the balancer pane): the whole of what was opened,
//! over the panes between the header and the footer (whose notice says what `y` copied), each
//! line wrapped at the width under its own indent — nothing is cut — and scrolled by rows; its
//! last line says where it is and which keys scroll, copy and close it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::pane_block;
use crate::ui::app::App;
use crate::ui::theme::Theme;

/// The view's area on a terminal of `area`: all but the header's and the footer's rows.
fn body(area: Rect) -> Rect {
    Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(2),
        ..area
    }
}

/// `text` broken into rows of at most `width` characters at spaces, the text kept as it is
/// (runs of spaces too); the rows after the first start under the line's indent plus two, and a
/// word longer than a row is cut into rows.
pub fn wrap_kept(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let lead = text.chars().take_while(|c| *c == ' ').count();
    let pad = " ".repeat(lead.min(width / 2) + 2);
    let mut rows = Vec::new();
    let mut rest: Vec<char> = text.chars().collect();
    // The first row is the text's own; the next ones continue under the indent.
    let mut prefix = String::new();
    loop {
        let room = width - prefix.chars().count();
        if rest.len() <= room {
            rows.push(format!("{prefix}{}", rest.iter().collect::<String>()));
            break;
        }
        // At the last space the row holds, past its own leading spaces; a word longer than the
        // row is cut where the row ends. Every row takes at least one character: it ends.
        let start = rest.iter().take_while(|c| **c == ' ').count();
        let cut = ((start + 1)..=room)
            .rev()
            .find(|&i| rest[i] == ' ')
            .unwrap_or(room);
        let row: String = rest[..cut].iter().collect();
        rows.push(format!("{prefix}{}", row.trim_end()));
        rest = rest[cut..]
            .iter()
            .copied()
            .skip_while(|c| *c == ' ')
            .collect();
        prefix.clone_from(&pad);
        if rest.is_empty() {
            break;
        }
    }
    rows
}

/// The rows of the open view at `width`, each with its style.
fn rows(app: &App, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let Some(d) = &app.detail else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in &d.lines {
        let heading = !line.starts_with(' ') && !line.starts_with('{') && !line.starts_with('}');
        let style = if line.starts_with("what it means") || line.starts_with("error") {
            theme.title()
        } else if heading && out.is_empty() {
            theme.key()
        } else if line.starts_with("  (MongoDB") {
            theme.dim()
        } else {
            ratatui::style::Style::new()
        };
        for row in wrap_kept(line, width) {
            out.push(Line::from(Span::styled(row, style)));
        }
    }
    out
}

/// The view's length in rows and the rows a page shows, for the app's terminal: what scrolling
/// may reach.
pub fn extent(app: &App) -> (usize, usize) {
    let area = body(Rect::new(0, 0, app.size.0, app.size.1));
    let width = usize::from(area.width.saturating_sub(2));
    let page = usize::from(area.height.saturating_sub(3));
    (rows(app, width, app.settings.theme).len(), page)
}

/// The keys of a command as its first bound key, or `fallback`.
fn first(app: &App, command: &str, fallback: &str) -> String {
    app.settings
        .keys
        .first_key_of(command)
        .unwrap_or_else(|| fallback.to_string())
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let Some(d) = &app.detail else {
        return;
    };
    let popup = body(area);
    frame.render_widget(Clear, popup);
    let block = pane_block(
        Line::from(Span::styled(d.title.clone(), theme.title())),
        true,
        theme,
    );
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [text, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let all = rows(app, usize::from(inner.width), theme);
    let page = usize::from(text.height);
    let scroll = d.scroll.min(all.len().saturating_sub(page));
    let shown: Vec<Line> = all.iter().skip(scroll).take(page).cloned().collect();
    frame.render_widget(Paragraph::new(shown), text);
    let place = if all.len() > page {
        format!(
            "{}–{} of {} ",
            scroll + 1,
            (scroll + page).min(all.len()),
            all.len()
        )
    } else {
        String::new()
    };
    let scroll_keys = if all.len() > page {
        format!(
            "{}{} {} {} scroll · ",
            first(app, "up", "↑"),
            first(app, "down", "↓"),
            first(app, "page-up", "PgUp"),
            first(app, "page-down", "PgDn")
        )
    } else {
        String::new()
    };
    let keys = format!(
        "{scroll_keys}{} copy · {} {} close",
        first(app, "copy", "y"),
        first(app, "clear", "Esc"),
        first(app, "quit", "q")
    );
    let room = usize::from(status.width).saturating_sub(place.chars().count());
    frame.render_widget(
        Paragraph::new(Span::styled(super::fit(&keys, room), theme.dim())),
        status,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(place, theme.dim()))
            .alignment(ratatui::layout::Alignment::Right),
        status,
    );
}

#[cfg(test)]
mod tests {
    use super::wrap_kept;

    proptest::proptest! {
        /// Any text at any width: it ends, every row fits, and no character but spaces is lost.
        #[test]
        fn any_text_wraps_whole_within_the_width(text in "[ a-z]{0,80}", width in 0usize..40) {
            let rows = wrap_kept(&text, width);
            let width = width.max(8);
            proptest::prop_assert!(rows.iter().all(|r| r.chars().count() <= width), "{:?}", rows);
            let kept: String = rows.concat().chars().filter(|c| *c != ' ').collect();
            let had: String = text.chars().filter(|c| *c != ' ').collect();
            proptest::prop_assert_eq!(kept, had);
        }
    }

    #[test]
    fn rows_keep_the_text_and_continue_under_the_indent() {
        assert_eq!(wrap_kept("  code     96", 40), ["  code     96"]);
        let rows = wrap_kept("  errmsg   one two three four five six seven", 20);
        assert_eq!(rows[0], "  errmsg   one two");
        assert!(
            rows[1..]
                .iter()
                .all(|r| r.starts_with("    ") && r.len() <= 20),
            "{rows:?}"
        );
        let joined: Vec<&str> = rows.iter().flat_map(|r| r.split_whitespace()).collect();
        assert_eq!(joined.join(" "), "errmsg one two three four five six seven");
        let long = "x".repeat(30);
        let rows = wrap_kept(&long, 12);
        assert_eq!(rows.iter().map(|r| r.trim().len()).sum::<usize>(), 30);
        assert_eq!(wrap_kept("", 10), [""]);
        // A continued row's word longer than the row: cut, and the wrap ends (it looped).
        let rows = wrap_kept(&format!("  key {}", "y".repeat(50)), 16);
        assert_eq!(rows.iter().map(|r| r.trim().len()).sum::<usize>(), 3 + 50);
        assert!(rows.iter().all(|r| r.chars().count() <= 16), "{rows:?}");
    }
}
