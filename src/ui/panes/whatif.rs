//! The what-if screen: "now" on the left and the fork on the right, each drawn by the main
//! layout's own panes (shards with their chunk and data bars, the key space strip, the
//! balancer), the fork's clock on the source's, and above them the prediction for the chosen
//! collection with the first input that is assumed (so nothing reads as measured that is not),
//! or with `e` every input of the fork, measured or assumed, and how.
//!
//! ```text
//!  prediction for db.c: balanced at 14m20s (+12m20s after the fork) · 40 migrations · …
//!  assumed: writes: none: the fork runs without writes …
//!  now · 2m00s                       what if: +2 shards · 2m00s (forked at 2m00s)
//! ┌ Shards ──────────────┐          ┌ Shards ──────────────┐
//! ┌ Key space ───────────┐          ┌ Key space ───────────┐
//! ┌ Balancer ────────────┐          ┌ Balancer ────────────┐
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{axis_time, balancer, clock_text, fit, keyspace, shards, wrap};
use crate::ui::app::{App, Focus};
use crate::ui::theme::Theme;
use crate::units::human_bytes;
use crate::view::ClockView;
use crate::view::whatif::{PredictionView, WhatIfView};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let whatif = app.view.as_ref().and_then(|v| v.whatif.as_deref());
    let clock = app
        .view
        .as_ref()
        .map(|v| v.clock.clone())
        .unwrap_or_default();
    let width = usize::from(area.width);
    let inputs = app.whatif.inputs;
    let lines = whatif.map_or_else(Vec::new, |w| summary(w, &clock, (width, inputs), theme));
    let top_h = (lines.len() as u16).max(1);
    let [top, columns] =
        Layout::vertical([Constraint::Length(top_h), Constraint::Min(0)]).areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(columns);
    let Some(w) = whatif else {
        // Made on a thread of its own: how far it got, while "now" goes on.
        let progress = (app.view.as_ref())
            .and_then(|v| v.forking.as_deref())
            .map_or_else(String::new, |p| format!(" {p}"));
        let text = format!(
            "forking {} at {}…{progress} (Esc leaves)",
            app.whatif.changes,
            at(clock.time_ms, &clock)
        );
        frame.render_widget(Paragraph::new(fit(&text, width)), top);
        side(
            frame,
            left,
            app,
            &format!("now · {}", at(clock.time_ms, &clock)),
            theme,
        );
        return;
    };
    frame.render_widget(Paragraph::new(lines), top);
    let rows = shard_rows(app, w);
    side_rows(
        frame,
        left,
        app,
        rows,
        &format!("now · {}", at(clock.time_ms, &clock)),
        theme,
    );
    let fork = app.side(&w.fork, &w.log);
    let title = format!(
        "what if: {} · {}",
        w.changes,
        at(w.fork.clock.time_ms, &clock)
    );
    side_rows(frame, right, &fork, rows, &title, theme);
}

/// A time of the source as its own clock shows it: virtual seconds, or `HH:MM:SS UTC`.
fn at(ms: u64, clock: &ClockView) -> String {
    axis_time(clock.shown_ms(ms), clock.virtual_time, true)
}

/// The shard rows both sides make room for (the fork may have more shards).
fn shard_rows(app: &App, w: &WhatIfView) -> usize {
    let now = app.view.as_ref().map_or(0, |v| v.shards.len());
    now.max(w.fork.shards.len())
}

fn side(frame: &mut Frame, area: Rect, app: &App, title: &str, theme: Theme) {
    let rows = app.view.as_ref().map_or(0, |v| v.shards.len());
    side_rows(frame, area, app, rows, title, theme);
}

/// One side: its title, then the shards, the key space and the balancer panes of `app`.
fn side_rows(frame: &mut Frame, area: Rect, app: &App, rows: usize, title: &str, theme: Theme) {
    // Every shard first (the borders, the header and a note or two: orphans, no writes), then
    // the key space (its strip at least), then the balancer (three rows at least).
    let h = area.height.saturating_sub(1);
    let shards_h = (rows as u16).saturating_add(5).min(h.saturating_sub(5 + 3));
    let keyspace_h = (if h >= 37 { 9 } else { 8 }).min(h.saturating_sub(shards_h + 3));
    let [head, shards_area, keyspace_area, balancer_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(shards_h),
        Constraint::Length(keyspace_h),
        Constraint::Min(0),
    ])
    .areas(area);
    let head_text = fit(&format!(" {title}"), usize::from(area.width));
    frame.render_widget(Paragraph::new(Span::styled(head_text, theme.title())), head);
    shards::render(frame, shards_area, app, theme, app.focus == Focus::Shards);
    keyspace::render(
        frame,
        keyspace_area,
        app,
        theme,
        app.focus == Focus::KeySpace,
    );
    balancer::render(
        frame,
        balancer_area,
        app,
        theme,
        app.focus == Focus::Balancer,
    );
}

/// When the fork was made and the prediction (two lines at most), then the assumption's (or
/// the refusals') line — or, with `inputs`, every input of the fork, measured or assumed.
fn summary(
    w: &WhatIfView,
    clock: &ClockView,
    (width, inputs): (usize, bool),
    theme: Theme,
) -> Vec<Line<'static>> {
    let prediction = match &w.prediction {
        None => "prediction: … (predict runs on a copy of the fork)".to_string(),
        Some(p) => prediction_text(p, w.forked_at_ms, clock),
    };
    let first = format!("forked at {} · {prediction}", at(w.forked_at_ms, clock));
    let mut lines: Vec<Line<'static>> = wrap(&first, width.saturating_sub(1))
        .into_iter()
        .take(2)
        .map(|l| Line::raw(format!(" {l}")))
        .collect();
    if inputs {
        lines.extend(input_lines(w, width, theme));
        return lines;
    }
    let second = if !w.refused.is_empty() {
        Span::styled(
            fit(&format!(" refused: {}", w.refused.join("; ")), width),
            theme.error(),
        )
    } else if let Some(a) = &w.assumed {
        Span::styled(fit(&format!(" assumed: {a}"), width), theme.warn())
    } else {
        Span::styled(
            fit(
                " measured: every input of the fork read from the source (e lists them)",
                width,
            ),
            theme.dim(),
        )
    };
    lines.push(Line::from(second));
    lines
}

/// Every input of the fork, wrapped: `measured · migrationRate: …`, `assumed · writes: …`;
/// then the refusals, if any.
fn input_lines(w: &WhatIfView, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for i in &w.inputs {
        let (how, style) = if i.measured {
            ("measured", theme.dim())
        } else {
            ("assumed", theme.warn())
        };
        let text = format!("{how} · {}: {}", i.what, i.note);
        for (k, l) in wrap(&text, width.saturating_sub(3)).into_iter().enumerate() {
            let indent = if k == 0 { " " } else { "   " };
            out.push(Line::from(Span::styled(format!("{indent}{l}"), style)));
        }
    }
    if !w.refused.is_empty() {
        let text = format!(" refused: {}", w.refused.join("; "));
        out.push(Line::from(Span::styled(fit(&text, width), theme.error())));
    }
    out
}

fn prediction_text(p: &PredictionView, forked_at_ms: u64, clock: &ClockView) -> String {
    // Already so at the fork (a collection the policy has nothing to move from): said so, not
    // as "+0.0s after the fork".
    let when = |ms: u64| {
        if ms <= forked_at_ms {
            return format!("{} (already at the fork)", at(ms, clock));
        }
        format!(
            "{} (+{} after the fork)",
            at(ms, clock),
            clock_text(ms.saturating_sub(forked_at_ms))
        )
    };
    let mut parts = vec![match (p.balanced_at_ms, &p.not_balanced) {
        (Some(t), _) => format!("balanced at {}", when(t)),
        (None, Some(why)) => format!("not balanced: {why}"),
        (None, None) => format!("not balanced by {}", at(p.until_ms, clock)),
    }];
    for (shard, done) in &p.drained {
        parts.push(match done {
            Some(t) => format!("{shard} drained at {}", when(*t)),
            None => format!("{shard} not drained by {}", at(p.until_ms, clock)),
        });
    }
    let noun = if p.migrations == 1 {
        "migration"
    } else {
        "migrations"
    };
    parts.push(format!(
        "{} {noun} · {} moved",
        crate::units::grouped(p.migrations),
        human_bytes(p.bytes_moved)
    ));
    let ns = if p.ns.is_empty() {
        String::new()
    } else {
        format!(" for {}", p.ns)
    };
    format!("prediction{ns}: {}", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_holds_at_the_fork_is_said_so_and_what_comes_later_counts_from_it() {
        let clock = ClockView {
            virtual_time: true,
            ..ClockView::default()
        };
        let p = |balanced_at_ms| PredictionView {
            ns: "app.events".into(),
            balanced_at_ms: Some(balanced_at_ms),
            until_ms: 90_000,
            ..PredictionView::default()
        };
        let now = prediction_text(&p(60_000), 60_000, &clock);
        assert!(now.contains("(already at the fork)"), "{now}");
        assert!(!now.contains("after the fork"), "{now}");
        let later = prediction_text(&p(67_500), 60_000, &clock);
        assert!(later.contains("(+7.5s after the fork)"), "{later}");
    }
}
