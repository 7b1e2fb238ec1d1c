//! The footer: the main keys of the source (no speed or step on a live cluster), as bound, and
//! the latest notice on the right.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::ui::app::App;
use crate::ui::input_mode::InputMode;
use crate::ui::keymap;
use crate::ui::screen::Screen;
use crate::ui::theme::Theme;

/// Commands (one or a pair shown as `a/b`) and their word, in the order they give way.
const KEYS: &[(&[&str], &str)] = &[
    (&["help"], "help"),
    (&["quit"], "quit"),
    (&["pause"], "pause"),
    (&["faster", "slower"], "speed"),
    (&["step-forward", "step-back"], "step"),
    (&["next-migration", "prev-migration"], "migration"),
    (&["focus-next"], "focus"),
    (&["zoom-in", "zoom-out"], "zoom"),
    (&["query"], "query"),
];

/// The keys of the lab's side-by-side screen.
const LAB_KEYS: &[(&[&str], &str)] = &[
    (&["help"], "help"),
    (&["quit"], "quit"),
    (&["pause"], "pause"),
    (&["faster", "slower"], "speed"),
    (&["step-forward", "step-back"], "step"),
    (&["left", "right"], "candidate"),
    (&["zoom-in"], "open"),
];

/// The keys of the what-if screen.
const WHAT_IF_KEYS: &[(&[&str], &str)] = &[
    (&["help"], "help"),
    (&["quit"], "quit"),
    (&["pause"], "pause"),
    (&["faster", "slower"], "speed"),
    (&["step-forward", "step-back"], "step"),
    (&["next-collection"], "collection"),
    (&["whatif"], "leave"),
];

/// The keys of the key visualizer, in place of the main layout's: the way back right after
/// quitting, so that it is the last to give way.
const TIME_VIEW_KEYS: &[(&[&str], &str)] = &[
    (&["help"], "help"),
    (&["quit"], "quit"),
    (&["clear"], "back"),
    (&["pause"], "pause"),
    (&["faster", "slower"], "speed"),
    (&["step-forward", "step-back"], "step"),
    (&["time-zoom-in", "time-zoom-out"], "time zoom"),
    (&["zoom-in", "zoom-out"], "key zoom"),
    (&["zoom-reset"], "reset"),
];

/// The history view's keys.
const HISTORY_KEYS: &[(&[&str], &str)] = &[
    (&["help"], "help"),
    (&["quit"], "quit"),
    (&["history"], "back"),
    (&["pause"], "pause"),
    (&["faster", "slower"], "speed"),
    (&["step-forward", "step-back"], "step"),
    (&["time-zoom-in", "time-zoom-out"], "time zoom"),
];

/// The footer's keys for this source and screen: `(keys, word)`.
fn keys(app: &App) -> Vec<(String, &'static str)> {
    let live = app.view.as_ref().is_some_and(|v| v.clock.is_live());
    let table = match app.screen {
        Screen::Main => KEYS,
        Screen::KeyVisualizer => TIME_VIEW_KEYS,
        Screen::History => HISTORY_KEYS,
        Screen::Lab => LAB_KEYS,
        Screen::WhatIf => WHAT_IF_KEYS,
    };
    let lab = app.view.as_ref().is_some_and(|v| v.lab.is_some());
    let back: &[(&[&str], &str)] = match app.screen {
        Screen::Main if lab => &[(&["lab"], "side by side")],
        _ => &[],
    };
    table
        .iter()
        .chain(back)
        .filter(|(commands, _)| !live || commands.iter().all(|c| keymap::applies_live(c)))
        .filter_map(|(commands, word)| {
            let keys: Option<Vec<String>> = commands
                .iter()
                .map(|c| app.settings.keys.first_key_of(c))
                .collect();
            let word = match (*word, live, app.paused) {
                ("pause", true, true) => "resume polling",
                ("pause", true, false) => "pause polling",
                ("pause", false, true) => "play",
                (w, _, _) => w,
            };
            Some((keys?.join("/"), word))
        })
        .collect()
}

/// A what-if error too long for the footer: wrapped at words over the rows above it (at most
/// four), never cut mid-word.
fn error_above(frame: &mut Frame, footer: Rect, error: &str, theme: Theme) {
    let width = usize::from(footer.width).saturating_sub(2).max(10);
    let lines = crate::units::wrap_words(error, width, 4);
    let rows = (lines.len() as u16).min(footer.y);
    let area = Rect {
        y: footer.y - rows,
        height: rows,
        ..footer
    };
    let text: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::from(Span::styled(format!(" {l}"), theme.warn())))
        .collect();
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(Paragraph::new(text), area);
}

/// Paused at the end of a scenario, a trace or the lab's documents: what ended and the key that
/// plays it again from the start, on every screen until it plays again (a notice of the moment
/// takes its place).
pub fn end_notice(app: &App) -> Option<String> {
    let v = app.view.as_ref()?;
    if !v.clock.at_end() {
        return None;
    }
    let what = if v.source.starts_with("sim:") {
        "scenario"
    } else if v.source == "lab" {
        "the documents"
    } else {
        "trace"
    };
    let keys = &app.settings.keys;
    let key = keys
        .first_key_of("restart")
        .or_else(|| keys.first_key_of("pause"))?;
    Some(format!("end of {what} — {key} restarts"))
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let mut spans = Vec::new();
    let notice = app.notice.clone().or_else(|| end_notice(app));
    let typed = match app.input {
        // The palette shows its own filter.
        InputMode::Commands | InputMode::Palette => None,
        InputMode::Query => Some((" query filter: ", &app.query_text)),
        InputMode::ShardFilter => Some((" shard or zone: ", &app.shard_filter)),
        InputMode::Search => Some((" search: ", &app.search)),
        InputMode::HelpFilter => Some((" help filter: ", &app.help_view.filter)),
        InputMode::WhatIf => Some((" what if: ", &app.whatif.text)),
    };
    if let Some((label, text)) = typed {
        spans.push(Span::styled(label, theme.key()));
        if app.input == InputMode::Query && app.query_selected {
            // The old filter, selected: typing replaces it (as a text field's selection).
            spans.push(Span::styled(
                text.as_str(),
                Style::default().add_modifier(Modifier::REVERSED),
            ));
            spans.push(Span::styled("  typing replaces ·", theme.dim()));
        } else {
            let (before, after) = app.line.split(text);
            spans.push(Span::raw(format!("{before}▏{after}")));
        }
        match (&app.whatif.error, app.input) {
            (Some(e), InputMode::WhatIf) => {
                let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
                if used + 2 + e.chars().count() <= usize::from(area.width) {
                    spans.push(Span::styled(format!("  {e}"), theme.warn()));
                } else {
                    spans.push(Span::styled("  ↑ see above · Esc cancels", theme.dim()));
                    error_above(frame, area, e, theme);
                }
            }
            (None, InputMode::WhatIf) => spans.push(Span::styled(
                "  Enter forks · Esc cancels · empty: no change",
                theme.dim(),
            )),
            _ => spans.push(Span::styled("  Enter keeps · Esc clears", theme.dim())),
        }
    } else {
        // A notice takes the place of the less important keys.
        let room = usize::from(area.width)
            .saturating_sub(notice.as_ref().map_or(0, |n| n.chars().count() + 2));
        let mut used = 0;
        for (key, what) in keys(app) {
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
    if let Some(n) = &notice
        && !app.input.typing()
    {
        frame.render_widget(
            Paragraph::new(Span::styled(format!("{n} "), theme.warn())).alignment(Alignment::Right),
            area,
        );
    }
}
