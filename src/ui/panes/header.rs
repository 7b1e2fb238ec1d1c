//! The header line: source, server version, clock, play/pause and speed, the balancer.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::clock_text;
use crate::ui::app::App;
use crate::ui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let mut spans = vec![Span::styled(" shardtop ", theme.title())];
    let sep = || Span::styled(" │ ", theme.dim());
    let Some(v) = &app.view else {
        spans.push(sep());
        spans.push(Span::raw("starting…"));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    };
    spans.push(sep());
    let source_at = spans.len();
    spans.push(Span::raw(v.source.clone()));
    spans.push(sep());
    spans.push(Span::raw(format!("v{}", v.server_version)));
    spans.push(sep());
    let c = &v.clock;
    let time = match (c.end_ms, c.virtual_time) {
        (Some(end), true) => format!("{} / {}", clock_text(c.time_ms), clock_text(end)),
        // A replayed live recording: wall-clock time, as the live view showed it.
        (Some(end), false) => format!(
            "{} / {} UTC",
            super::time_text(c.shown_ms(c.time_ms), false),
            super::time_text(c.shown_ms(end), false)
        ),
        (None, _) => super::axis_time(c.time_ms, c.virtual_time, true),
    };
    spans.push(Span::raw(time));
    spans.push(sep());
    if let Some(since) = v.disconnected_since {
        spans.push(Span::styled(
            format!(
                "○ disconnected since {} UTC",
                super::time_text(since, false)
            ),
            theme.error(),
        ));
    } else if let Some(still) = &v.still {
        spans.push(Span::styled(format!("■ {still}"), theme.warn()));
    } else {
        live_state(&mut spans, v, theme);
    }
    spans.push(sep());
    balancer_state(&mut spans, v, theme);
    fit_line(&mut spans, source_at, usize::from(area.width));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The source's name in short: a URI's hosts (`mongodb://monitor@h1:27017/?x=y` → `h1:27017`), a
/// file's name without its folders; any other name as it is.
fn short_source(source: &str) -> String {
    if let Some(rest) = source
        .strip_prefix("mongodb://")
        .or_else(|| source.strip_prefix("mongodb+srv://"))
    {
        let hosts = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
        return hosts.split(['/', '?']).next().unwrap_or(hosts).to_string();
    }
    if source.contains('/') && !source.starts_with("sim:") {
        return source.rsplit('/').next().unwrap_or(source).to_string();
    }
    source.to_string()
}

/// Makes the header fit `width` by leaving out its least important text first: the ` shardtop `
/// title, then a URI's scheme, user and options and a file's folders, then the separators'
/// spaces, and only then the end of the source's name (to no less than 8 characters); the clock,
/// the play state, the balancer's state and the collection's status are never cut.
fn fit_line(spans: &mut Vec<Span<'static>>, source_at: usize, width: usize) {
    let total = |spans: &[Span]| {
        spans
            .iter()
            .map(|s| s.content.chars().count())
            .sum::<usize>()
    };
    if total(spans) <= width {
        return;
    }
    // The title and its separator go first: the source's name says more.
    let title = 2.min(source_at);
    spans.drain(..title);
    let source_at = source_at - title;
    let short = short_source(&spans[source_at].content);
    spans[source_at].content = short.into();
    if total(spans) <= width {
        return;
    }
    // The separators' spaces, one at a time, as many as it takes.
    for narrower in ["│ ", "│"] {
        for i in 0..spans.len() {
            if total(spans) > width
                && spans[i].content.contains('│')
                && spans[i].content.len() > narrower.len()
            {
                spans[i].content = narrower.into();
            }
        }
    }
    let over = total(spans).saturating_sub(width);
    if over == 0 {
        return;
    }
    let source = spans[source_at].content.to_string();
    let keep = source.chars().count().saturating_sub(over).max(8);
    spans[source_at].content = super::fit(&source, keep).into();
}

/// Play/pause, or live/polling paused, with the speed or the heat mode.
fn live_state(spans: &mut Vec<Span<'static>>, v: &crate::view::ClusterView, theme: Theme) {
    match (!v.clock.is_live(), v.clock.paused) {
        (true, true) if v.clock.at_end() => {
            spans.push(Span::styled("■ end, paused", theme.warn()));
        }
        (true, true) => spans.push(Span::styled("❚❚ paused", theme.warn())),
        (true, false) => spans.push(Span::styled("▶", theme.ok())),
        (false, true) => spans.push(Span::styled("❚❚ polling paused", theme.warn())),
        (false, false) => spans.push(Span::styled("● live", theme.ok())),
    }
    if !v.clock.is_live() {
        spans.push(Span::raw(format!(" ×{}", speed_text(v.clock.speed))));
    } else if let Some(h) = v.heat {
        let auto = if v.heat_auto { " (auto)" } else { "" };
        spans.push(Span::raw(format!(" · heat {h}{auto}")));
    }
}

/// The balancer's mode (and a round running).
fn balancer_state(spans: &mut Vec<Span<'static>>, v: &crate::view::ClusterView, theme: Theme) {
    let b = &v.balancer;
    if b.enabled && b.window_rejected.is_some() {
        // The config server loads no settings: no round runs, whatever the mode says.
        spans.push(Span::styled("balancer settings rejected", theme.error()));
    } else if b.enabled {
        spans.push(Span::styled("balancer on", theme.ok()));
        if b.in_round {
            spans.push(Span::styled(" · in round", theme.warn()));
        }
    } else if b.mode == "autoSplitOnly" {
        // autoSplitOnly never migrates: not "on".
        spans.push(Span::styled("balancer autoSplitOnly", theme.warn()));
    } else {
        spans.push(Span::styled("balancer off", theme.warn()));
    }
    // The selected collection's status, the diagnosis's word.
    if let Some(d) = &v.diagnosis {
        let style = match d.status {
            "balanced" => theme.ok(),
            "stalled" | "blocked" => theme.error(),
            _ => theme.warn(),
        };
        spans.push(Span::styled(" · ", theme.dim()));
        spans.push(Span::styled(d.status, style));
    }
}

/// `5`, `0.5`, `0.25`.
pub fn speed_text(speed: f64) -> String {
    if (speed - speed.round()).abs() < 1e-9 {
        format!("{speed:.0}")
    } else {
        format!("{speed}")
    }
}

#[cfg(test)]
mod tests {
    use super::short_source;

    #[test]
    fn a_source_is_shortened_to_what_names_it() {
        let uri = "mongodb://monitor@mongos1.example.net:27017/?authSource=admin";
        assert_eq!(short_source(uri), "mongos1.example.net:27017");
        assert_eq!(
            short_source("mongodb://127.0.0.1:37831/"),
            "127.0.0.1:37831"
        );
        assert_eq!(
            short_source("/tmp/runs/prod.capture.zst"),
            "prod.capture.zst"
        );
        assert_eq!(short_source("sim:ascending"), "sim:ascending");
    }
}
