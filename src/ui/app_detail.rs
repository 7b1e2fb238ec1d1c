//! The detail view's part of the UI state: `Enter` on the event under the events pane's cursor
//! opens the whole of it — the line, the error whole (code, code name, message) and what it
//! means (`cluster::error::causes`), every document behind it laid out — and `Enter` on the
//! balancer pane opens its "why" whole with the notes on the reads behind it. While it is open
//! the keys act on it alone: ↑/↓ (`k`/`j`) and PgUp/PgDn scroll, `y` copies its text (OSC 52),
//! Esc, `q` and Enter close it, Ctrl-C quits. Also the events pane's cursor.
//!
//! Part of `ui`'s state: imports only `ui` and `view`; no I/O (the runtime sends the clipboard's
//! text); the view is drawn by `panes::detail` from the text built here when it opens.

use super::action::Action;
use super::app::{App, Effects, Focus};
use crate::view::{EventDetail, EventDocument, EventError, LogLine};

/// What the detail view shows: its title and its text in lines (not wrapped: the view wraps
/// each at its width under its own indent), and how far it is scrolled (rows past the first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DetailState {
    pub title: String,
    pub lines: Vec<String>,
    pub scroll: usize,
}

impl App {
    /// `Enter` on the main screen: the event under the events pane's cursor, or the balancer's
    /// why, opened whole; `false` when the focused pane has nothing to open (Enter then zooms,
    /// as before).
    pub(super) fn open_detail(&mut self) -> bool {
        let opened = match self.focus {
            Focus::Events if !self.explain => {
                let Some(line) = super::panes::events::selected(self) else {
                    self.notice = Some("no event under the cursor".into());
                    return true;
                };
                let (virtual_time, offset) = super::panes::times_of(self);
                let time = super::panes::time_text(line.at_ms + offset, virtual_time);
                let mut state = event_state(line, &time);
                // An event of the collection shown: the diagnosis it feeds, whole.
                if let Some(v) = &self.view
                    && let Some(d) = v.diagnosis.as_ref().filter(|d| line.text.contains(&d.ns))
                {
                    state.lines.push(String::new());
                    state
                        .lines
                        .push(format!("the diagnosis of {} it feeds:", d.ns));
                    let why = super::panes::balancer::why_text(v);
                    state.lines.extend(why.lines().map(|l| format!("  {l}")));
                }
                state
            }
            Focus::Balancer => match &self.view {
                Some(v) => why_state(v),
                None => return true,
            },
            _ => return false,
        };
        self.detail = Some(opened);
        true
    }

    /// Applies an action while the detail view is open.
    pub(super) fn detail_action(&mut self, action: Action) -> Effects {
        let (rows, page) = super::panes::detail::extent(self);
        let max = rows.saturating_sub(page);
        let Some(d) = self.detail.as_mut() else {
            return Effects::default();
        };
        match action {
            Action::Interrupt => {
                return Effects {
                    quit: true,
                    ..Effects::default()
                };
            }
            Action::Up => d.scroll = d.scroll.min(max).saturating_sub(1),
            Action::Down => d.scroll = (d.scroll + 1).min(max),
            Action::Page(true) => d.scroll = d.scroll.min(max).saturating_sub(page.max(1)),
            Action::Page(false) => d.scroll = (d.scroll + page.max(1)).min(max),
            Action::Copy => {
                let text = d.lines.join("\n");
                self.notice = Some(format!(
                    "copied {} (OSC 52): {} lines",
                    d.title.trim(),
                    d.lines.len()
                ));
                return Effects {
                    clipboard: Some(text),
                    ..Effects::default()
                };
            }
            Action::Escape | Action::Quit | Action::Open => self.detail = None,
            Action::Resize(w, h) => self.size = (w, h),
            _ => {}
        }
        Effects::default()
    }

    /// ↑/↓ with the events pane focused: the cursor moves over the lines shown, and the log
    /// scrolls once it is at the top or the bottom of the pane.
    pub(super) fn move_log_cursor(&mut self, up: bool) {
        let len = self.visible_log().count();
        let w = super::panes::events::inner_area(self)
            .map(|inner| super::panes::events::window(self, inner, len));
        let shown = w.map_or(0, |w| w.end - w.start);
        let more_above = w.is_some_and(|w| w.start > 0);
        if up {
            if self.log_row + 1 < shown {
                self.log_row += 1;
            } else if more_above {
                self.log_scroll += 1;
            }
        } else if self.log_row > 0 {
            self.log_row = self.log_row.min(shown.saturating_sub(1)).saturating_sub(1);
        } else {
            self.log_scroll = self.log_scroll.saturating_sub(1);
        }
    }
}

/// The detail of one event-log line shown at `time`.
pub fn event_state(line: &LogLine, time: &str) -> DetailState {
    let what = line.text.split_whitespace().next().unwrap_or("event");
    DetailState {
        title: format!(" {what} · {time} "),
        lines: event_lines(line, time),
        scroll: 0,
    }
}

/// The text of an event's detail: the line whole, its error whole and what it means, then
/// every document behind it, laid out.
pub fn event_lines(line: &LogLine, time: &str) -> Vec<String> {
    let mut out = vec![format!("{time}  {}", line.text), String::new()];
    let Some(detail) = &line.detail else {
        out.push("The source keeps nothing more of this event than its line.".into());
        return out;
    };
    if let Some(e) = &detail.error {
        out.extend(error_lines(e));
        out.push(String::new());
    }
    out.extend(document_lines(detail));
    out
}

/// The error whole — code, code name, message — and what it means.
fn error_lines(e: &EventError) -> Vec<String> {
    let code = match (e.code, &e.code_name) {
        (Some(c), Some(n)) => format!("{n} ({c})"),
        (None, Some(n)) => n.clone(),
        (Some(c), None) => c.to_string(),
        (None, None) => "not given (the entry has only its message)".into(),
    };
    let mut out = vec![
        "error".to_string(),
        format!("  code     {code}"),
        format!("  errmsg   {}", e.errmsg),
    ];
    match e.cause() {
        Some(c) => {
            out.push(format!("what it means: {}", c.cause));
            out.push(format!("  {}", c.meaning));
            out.push(format!(
                "  (MongoDB's {} {}: {})",
                c.code_name, c.code, c.source
            ));
        }
        None => out.push(
            "what it means: not in shardtop's table of MongoDB's errors (the message above is \
             the server's own)"
                .into(),
        ),
    }
    out
}

/// Each document behind the line, as JSON laid out two spaces a level.
fn document_lines(detail: &EventDetail) -> Vec<String> {
    let n = detail.documents.len();
    let mut out = Vec::new();
    for (i, d) in detail.documents.iter().enumerate() {
        if n > 1 {
            out.push(format!("{} ({} of {n})", d.origin, i + 1));
        } else {
            out.push(d.origin.clone());
        }
        out.extend(pretty(d).lines().map(str::to_string));
        if d.left_out > 0 {
            out.push(format!(
                "… {} more bytes not kept (a document is kept up to {} bytes)",
                d.left_out,
                crate::view::event_detail::MAX_DOCUMENT_BYTES
            ));
        }
        out.push(String::new());
    }
    out.pop();
    out
}

/// A document's JSON laid out; as it is when cut short (no longer JSON).
fn pretty(d: &EventDocument) -> String {
    serde_json::from_str::<serde_json::Value>(&d.json)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| d.json.clone())
}

/// The balancer pane's why, whole, with the notes on the reads it rests on.
fn why_state(v: &crate::view::ClusterView) -> DetailState {
    let mut lines = vec![format!("why: {}", super::panes::balancer::why_text(v))];
    let notes: Vec<&str> = (v.refused.iter())
        .filter(|r| r.feeds == crate::view::Feeds::Balancer)
        .map(|r| r.text.as_str())
        .collect();
    if !notes.is_empty() {
        lines.push(String::new());
        lines.push("notes on the reads behind the balancer pane:".into());
        lines.extend(notes.iter().map(|n| format!("  {n}")));
    }
    DetailState {
        title: " Balancer · why ".into(),
        lines,
        scroll: 0,
    }
}
