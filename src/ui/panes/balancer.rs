//! The balancer: mode, policy and window; rounds and migration counts; why it is or is not
//! balancing; where the cluster did not do what its rules say (conformance); migrations in
//! flight with progress; the latest finished migrations.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{fit, pane_block, time_text};
use crate::ui::app::App;
use crate::ui::theme::{Bar, Theme, bar};
use crate::view::Feeds;
use crate::view::{LogKind, MigrationStep};

/// `rounds N · moved N · `; a live cluster's count says which log it is read from.
fn counts_text(b: &crate::view::BalancerView) -> String {
    let from = b
        .completed_from
        .map(|f| format!(" ({f})"))
        .unwrap_or_default();
    format!("rounds {} · moved {}{from} · ", b.rounds, b.completed)
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme, focused: bool) {
    let block = pane_block(
        Line::from(Span::styled(" Balancer ", theme.title())),
        focused,
        theme,
    );
    let inner = block.inner(area);
    let width = usize::from(inner.width);
    let Some(v) = &app.view else {
        frame.render_widget(Paragraph::new("").block(block), area);
        return;
    };
    let b = &v.balancer;
    let mut lines = Vec::new();
    let mode = if b.enabled && b.window_rejected.is_some() {
        Span::styled("on (full), settings REJECTED", theme.error())
    } else if b.enabled {
        Span::styled("on (full)", theme.ok())
    } else if b.mode == "autoSplitOnly" {
        Span::styled("autoSplitOnly: never migrates", theme.warn())
    } else {
        Span::styled("STOPPED (off)", theme.warn())
    };
    lines.push(Line::from(vec![
        Span::raw("mode "),
        mode,
        Span::raw(format!(
            " · evens {} · window {}{}",
            b.policy,
            match (&b.window_rejected, b.window.as_deref()) {
                (Some(_), _) => "rejected",
                (None, w) => w.unwrap_or("always"),
            },
            match b.auto_merger {
                Some(true) => " · AutoMerger on",
                Some(false) => " · AutoMerger off",
                None => "",
            }
        )),
    ]));
    if let Some(why) = &b.window_rejected {
        lines.push(Line::from(Span::styled(
            format!("activeWindow rejected: {why} — no balancing until fixed"),
            theme.error(),
        )));
    }
    lines.push(Line::from(vec![
        Span::raw(counts_text(b)),
        Span::styled(
            format!("failed {}", b.failed),
            if b.failed > 0 {
                theme.error()
            } else {
                theme.dim()
            },
        ),
        if b.in_round {
            Span::styled(" · round running", theme.warn())
        } else {
            Span::raw("")
        },
    ]));
    lines.extend(why_lines(v, width, theme));
    lines.extend(conformance_lines(v, width, theme));
    for m in &b.in_flight {
        let head = format!("#{} {}→{} ", m.id, m.from, m.to);
        lines.push(Line::from(vec![
            Span::styled(head, theme.warn()),
            Span::styled(bar(m.progress.unwrap_or(0.0), 8), theme.bar(Bar::Writes)),
            Span::raw(m.progress.map_or_else(
                || " running ".to_string(),
                |p| format!(" {:>3.0}% ", p * 100.0),
            )),
            Span::styled(
                fit(
                    &format!("{} · {} · {}", m.reason, size_text(m), m.range),
                    width.saturating_sub(30),
                ),
                theme.dim(),
            ),
        ]));
    }
    // Each drain's estimate is the diagnosis's; a live cluster's own drain facts follow it.
    for d in v.drain_estimates.iter().chain(&b.drains) {
        lines.push(Line::from(Span::styled(d.clone(), theme.warn())));
    }
    // The refused reads' notes, one line each, in the rows the balancer's own lines leave
    // (Enter on the pane shows them whole).
    let room = usize::from(inner.height).saturating_sub(lines.len());
    lines.extend(
        super::note_lines(app, &[Feeds::Balancer], width, 1, theme)
            .into_iter()
            .take(room),
    );
    let room = usize::from(inner.height).saturating_sub(lines.len() + 1);
    lines.extend(recent(app, room, width, theme));
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}

/// The collection's diagnosis, whole (the pane wraps it): status and cause, the next move, the
/// estimate — or, before the source has one, the balancer's own reasons of its last round.
fn why_lines(v: &crate::view::ClusterView, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let Some(d) = &v.diagnosis else {
        let b = &v.balancer;
        let why = if b.why_not.is_empty() {
            if b.in_flight.is_empty() {
                "being worked out".to_string()
            } else {
                "balancing".to_string()
            }
        } else {
            b.why_not.join("; ")
        };
        return vec![Line::from(vec![
            Span::styled("why: ", theme.title()),
            Span::raw(fit(&why, width.saturating_sub(5) * 3)),
        ])];
    };
    let style = match d.status {
        "balanced" => theme.ok(),
        "stalled" | "blocked" => theme.error(),
        _ => theme.warn(),
    };
    if d.status == "balanced" {
        // Balanced: what the policy measured says the rest (the next round's words); a next
        // round that moves all the same (writes go on meanwhile) is said.
        let Some(why) = &d.next_why else {
            return vec![
                Line::from(vec![
                    Span::styled("why: ", theme.title()),
                    Span::styled("balanced now", style),
                ]),
                Line::from(Span::raw(d.next.clone())),
            ];
        };
        let why = why.strip_prefix("balanced").unwrap_or(why);
        let sep = if why.starts_with([' ', ':', '(']) {
            ""
        } else {
            " — "
        };
        return vec![Line::from(vec![
            Span::styled("why: ", theme.title()),
            Span::styled("balanced", style),
            Span::raw(format!("{sep}{why}")),
        ])];
    }
    let mut out = vec![
        Line::from(vec![
            Span::styled("why: ", theme.title()),
            Span::styled(format!("{} ({})", d.status, d.rule_name), style),
        ]),
        Line::from(Span::raw(d.eta.clone())),
        Line::from(Span::raw(d.next.clone())),
        Line::from(Span::styled(d.cause.clone(), theme.dim())),
    ];
    // Worked out on a thread of its own, a diagnosis may lag the clock: said when it shows.
    if let Some(t) = d
        .of_earlier_ms
        .filter(|&t| v.clock.time_ms.abs_diff(t) > 5_000)
    {
        let at = crate::units::clock_time(v.clock.shown_ms(t), !v.clock.virtual_time);
        out.push(Line::from(Span::styled(
            format!("(diagnosed at {at})"),
            theme.dim(),
        )));
    }
    out
}

/// The "why:" text, whole: the diagnosis's every line (what `Enter` on the pane shows, wrapped,
/// with the notes on the reads behind it), or before there is one the balancer's own reasons.
pub fn why_text(v: &crate::view::ClusterView) -> String {
    if let Some(d) = &v.diagnosis {
        let mut lines = vec![
            format!("{}: {} ({})", d.ns, d.status, d.rule),
            d.cause.clone(),
            d.eta.clone(),
            d.next.clone(),
        ];
        lines.extend(d.events.iter().cloned());
        return lines.join("\n");
    }
    let b = &v.balancer;
    if !b.why_not.is_empty() {
        return b.why_not.join("; ");
    }
    if b.in_flight.is_empty() {
        "being worked out".to_string()
    } else {
        "balancing".to_string()
    }
}

/// What the cluster did against its release line's rules: a line per finding (nothing while it
/// conforms or that is unknown).
fn conformance_lines(
    v: &crate::view::ClusterView,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    (v.conformance.iter().flat_map(|c| &c.findings))
        .map(|f| {
            Line::from(vec![
                Span::styled("rules: ", theme.error()),
                Span::raw(fit(&f.text(), width.saturating_sub(7) * 2)),
            ])
        })
        .collect()
}

/// `12.0 MiB`, `≈12.0 MiB` for an estimate, `size unknown`.
fn size_text(m: &crate::view::MigrationView) -> String {
    match (m.bytes, m.bytes_estimated) {
        (None, _) => "size unknown".to_string(),
        (Some(b), true) => format!("≈{}", crate::units::human_bytes(b)),
        (Some(b), false) => crate::units::human_bytes(b),
    }
}

/// A finished migration of the event log: whether it committed, and its text with the least
/// important last (id, donor → recipient, outcome or error, namespace), so a cut keeps the
/// destination and the reason. A line the log joined (`moveChunk … committed: …`) or a
/// commit or error line of its own (a live cluster's changelog).
fn finished(l: &crate::view::LogLine) -> Option<(bool, String)> {
    if let Some(m) = &l.migration {
        // A live migration's line: the shards, the outcome, the namespace.
        let ok = match m.step {
            MigrationStep::Start => return None,
            MigrationStep::Commit | MigrationStep::Succeeded => true,
            MigrationStep::Error | MigrationStep::Aborted => false,
        };
        let outcome = if m.outcome.is_empty() {
            m.word()
        } else {
            &m.outcome
        };
        return Some((ok, format!("{} → {}: {outcome} · {}", m.from, m.to, m.ns)));
    }
    let (what, detail) = l
        .text
        .split_once(' ')
        .map(|(w, rest)| (w, rest.trim_start()))?;
    match what {
        "moveChunk" => {
            let ok = l.kind == LogKind::Migration;
            let word = if ok { " committed: " } else { " failed: " };
            let (head, rest) = detail.split_once(word)?;
            let outcome = rest.rsplit_once(" · [").map_or(rest, |(o, _)| o);
            let (id, rest) = head.split_once(' ')?;
            let (ns, route) = rest.split_once(' ')?;
            Some((ok, format!("{id} {route}: {outcome} · {ns}")))
        }
        "moveChunk.commit" if l.kind == LogKind::Migration => Some((true, detail.to_string())),
        "moveChunk.error" if l.kind == LogKind::Error => Some((false, detail.to_string())),
        _ => None,
    }
}

/// The latest finished migrations, from the event log.
fn recent(app: &App, room: usize, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let recent: Vec<_> = app
        .log
        .iter()
        .rev()
        .filter_map(|l| finished(l).map(|f| (l, f)))
        .take(room)
        .collect();
    let mut lines = Vec::new();
    if !recent.is_empty() {
        lines.push(Line::from(Span::styled("recent:", theme.title())));
        for (l, (ok, text)) in recent {
            let (mark, style) = if ok {
                ("✓", theme.ok())
            } else {
                ("✗", theme.error())
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} "), style),
                Span::styled(
                    format!("{:>7} ", {
                        let (virtual_time, offset) = super::times_of(app);
                        time_text(l.at_ms + offset, virtual_time)
                    }),
                    theme.dim(),
                ),
                Span::raw(crate::units::cut_at_words(&text, width.saturating_sub(10))),
            ]));
        }
    }
    lines
}
