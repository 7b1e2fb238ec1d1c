//! The screen, one pane per file. `render` lays the panes out and draws each from `&App`.
//!
//! ```text
//! ┌ header: source · version · clock · play/speed · balancer ─────────────────┐
//! ┌ Shards ───────────────────────────┐┌ Balancer ────────────────────────────┐
//! │ swatch id zones  chunks  data  writes ││ mode · rounds · why · in flight      │
//! └───────────────────────────────────┘└──────────────────────────────────────┘
//! ┌ Key space ns {key} ─────────────────────────────────────────────────────────┐
//! │ window bounds · strip of chunks by shard · hot/jumbo/zone marks · zones · detail│
//! └─────────────────────────────────────────────────────────────────────────────┘
//! ┌ Events ─────────────────────────────────────────────────────────────────────┐
//! footer: main keys · notice
//! ```

pub mod balancer;
pub mod command_palette;
pub mod detail;
pub mod events;
pub mod explain;
pub mod footer;
pub mod header;
pub mod help;
pub mod history;
pub mod key_visualizer;
pub mod key_visualizer_shards;
pub mod keyspace;
pub mod keyspace_marks;
pub mod lab;
pub mod shards;
pub mod shards_notes;
pub mod whatif;

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::app::{App, Focus};
use super::theme::Theme;

pub use super::layout::{Areas, MIN_HEIGHT, MIN_WIDTH, layout};

/// A pane's frame: rounded border, title, focus highlight.
pub fn pane_block(title: Line<'_>, focused: bool, theme: Theme) -> Block<'_> {
    Block::bordered()
        .border_type(ratatui::widgets::BorderType::Rounded)
        .border_style(theme.border(focused))
        .title(title)
}

/// Draws the whole screen.
pub fn render(frame: &mut Frame, app: &App) {
    let theme = app.settings.theme;
    let area = frame.area();
    let shard_count = app.view.as_ref().map_or(3, |v| v.shards.len());
    let Some(areas) = layout(area, shard_count) else {
        let text = format!(
            "terminal too small: {}×{} — shardtop needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\nEnlarge the window, or press q to quit.",
            area.width, area.height
        );
        frame.render_widget(
            Paragraph::new(text)
                .alignment(Alignment::Center)
                .wrap(Wrap { trim: true }),
            area,
        );
        return;
    };
    header::render(frame, areas.header, app, theme);
    if app.screen != crate::ui::screen::Screen::Main {
        let body = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(2),
            ..area
        };
        if app.screen == crate::ui::screen::Screen::History {
            history::render(frame, body, app, theme);
        } else if app.screen == crate::ui::screen::Screen::Lab {
            lab::render(frame, body, app, theme);
        } else if app.screen == crate::ui::screen::Screen::WhatIf {
            whatif::render(frame, body, app, theme);
        } else {
            key_visualizer::render(frame, body, app, theme);
        }
        footer::render(frame, areas.footer, app, theme);
        if app.help {
            help::render(frame, area, app, theme);
        }
        command_palette::render(frame, area, app, theme);
        return;
    }
    shards::render(frame, areas.shards, app, theme, app.focus == Focus::Shards);
    balancer::render(
        frame,
        areas.balancer,
        app,
        theme,
        app.focus == Focus::Balancer,
    );
    keyspace::render(
        frame,
        areas.keyspace,
        app,
        theme,
        app.focus == Focus::KeySpace,
    );
    match areas.events {
        Some(events) if app.explain => explain::render(frame, events, app, theme),
        Some(events) => events::render(frame, events, app, theme, app.focus == Focus::Events),
        // No room for the event log: the panel takes the top row's panes.
        None if app.explain => {
            explain::render(frame, areas.shards.union(areas.balancer), app, theme);
        }
        None => {}
    }
    footer::render(frame, areas.footer, app, theme);
    detail::render(frame, area, app, theme);
    if app.help {
        help::render(frame, area, app, theme);
    }
    command_palette::render(frame, area, app, theme);
}

/// Lines one refused-read note may take in a pane; a longer note ends in `…`.
const NOTE_LINES: usize = 4;

/// The reads a live cluster refused that feed one of `feeds`, each wrapped at the pane's `width`
/// (at most `NOTE_LINES` lines): the pane says what is missing and who grants it, not a line cut
/// at the pane's edge. Every such read is optional (an essential one fails the poll), so the note
/// is dim: the rest of the pane goes on.
pub fn refused_lines(
    app: &App,
    feeds: &[crate::view::Feeds],
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    note_lines(app, feeds, width, NOTE_LINES, theme)
}

/// [`refused_lines`], each note at most `max_lines` lines.
pub fn note_lines(
    app: &App,
    feeds: &[crate::view::Feeds],
    width: usize,
    max_lines: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    app.view
        .iter()
        .flat_map(|v| &v.refused)
        .filter(|r| feeds.contains(&r.feeds))
        .flat_map(|r| {
            crate::units::wrap_words(&format!("note: {}", r.text), width.max(8), max_lines)
        })
        .map(|l| Line::from(Span::styled(l, theme.dim())))
        .collect()
}

/// Seconds as `12.3s`, `4m05s` or `2h03m`.
pub fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    if s < 60 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// A time on screen: virtual seconds (`clock_text`), or wall-clock `HH:MM:SS` for a live source.
pub fn time_text(ms: u64, virtual_time: bool) -> String {
    if virtual_time {
        clock_text(ms)
    } else {
        let s = ms / 1000;
        format!("{:02}:{:02}:{:02}", (s / 3600) % 24, (s / 60) % 60, s % 60)
    }
}

/// How the shown source's times read: `(virtual_time, offset_ms)`, the offset turning a replayed
/// live recording's trace times into wall-clock time (see `ClockView::shown_ms`); virtual
/// seconds before the first view.
pub fn times_of(app: &crate::ui::App) -> (bool, u64) {
    app.view.as_ref().map_or((true, 0), |v| {
        (v.clock.virtual_time, v.clock.wall_start_ms.unwrap_or(0))
    })
}

/// A time on a time axis: virtual seconds, or a live source's wall-clock `HH:MM:SS` (`UTC`
/// appended when `label`), never epoch milliseconds read as elapsed time.
pub fn axis_time(ms: u64, virtual_time: bool, label: bool) -> String {
    let t = time_text(ms, virtual_time);
    if !virtual_time && label {
        format!("{t} UTC")
    } else {
        t
    }
}

/// `text` broken into lines of at most `width` characters at spaces (a
/// word longer than `width` is a line of its own).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

/// Cuts `s` to `width` characters, ending in `…` when cut. A number is never cut: when the cut
/// would fall in a word holding a digit (`32.0…` of `32.0 MiB`, `shard00…`), or just before its
/// unit, the whole word goes, as long as that keeps at least half the width.
pub fn fit(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    let rest: String = s.chars().skip(width - 1).take(8).collect();
    let kept = out.trim_end().len();
    let in_word = kept == out.len() && !rest.starts_with(' ');
    let unit_follows = rest.trim_start().starts_with(char::is_alphabetic);
    if let Some(at) = out[..kept].rfind(' ') {
        let cut_off = if in_word {
            rest.split(' ').next()
        } else {
            None
        };
        let word = format!("{}{}", &out[at + 1..kept], cut_off.unwrap_or(""));
        let number = word.chars().any(|c| c.is_ascii_digit());
        if number && (in_word || unit_follows) && at >= width / 2 {
            out.truncate(out[..at].trim_end().len());
        }
    }
    out.push('…');
    out
}

#[cfg(test)]
mod fit_tests {
    use super::fit;

    #[test]
    fn a_number_is_never_cut_nor_parted_from_its_unit() {
        let s = "assumed: migrationRate: 1000 ms + bytes ÷ 32.0 MiB/s per migration";
        assert_eq!(fit(s, 46), "assumed: migrationRate: 1000 ms + bytes ÷…");
        assert_eq!(fit(s, 47), "assumed: migrationRate: 1000 ms + bytes ÷…");
        assert_eq!(fit("largest shard shard0000 holds", 19), "largest shard…");
        assert_eq!(
            fit("balanced at 1m07s (+7.5s after", 21),
            "balanced at 1m07s…"
        );
        assert_eq!(
            fit("balanced at 1m07s · 2 migrations", 19),
            "balanced at 1m07s …"
        );
        assert_eq!(fit("short", 5), "short");
    }
}
