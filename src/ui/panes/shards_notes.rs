//! The Shards pane's notes under its rows: no writes in the window (or unknown since a
//! disconnection), the collection's `balancing:` settings, the shards missing from
//! `config.shards`, and the orphans left on donors — wrapped whole when the rows the shards leave
//! hold it, else its numbers alone (`orphaned: shard0003 4.2 MiB (22086 docs)`): never cut
//! mid-word nor mid-number.
//!
//! Part of `ui::panes`: drawing only.

use ratatui::text::{Line, Span};

use super::fit;
use super::shards::signal;
use crate::ui::app::App;
use crate::ui::theme::Theme;
use crate::units::human_bytes;
use crate::view::ClusterView;

/// The pane's notes under the shards: no writes, the `balancing:` settings, the ghosts, and the
/// orphans' note — wrapped whole when the `free` rows the shards leave hold it, else its numbers
/// alone: never cut mid-word.
pub(super) fn all_notes(
    v: &ClusterView,
    app: &App,
    (width, free): (usize, usize),
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut others: Vec<Line> = Vec::new();
    if let Some(note) = quiet_note(v, app) {
        others.push(Line::from(Span::styled(note, theme.dim())));
    }
    others.extend(notes(v, width, theme));
    if let Some(note) = orphans_note(v) {
        let free = free.saturating_sub(others.len()).max(1);
        let wrapped = crate::units::wrap_words(&note, width, usize::MAX);
        let lines = if wrapped.len() <= free {
            wrapped
        } else {
            vec![orphans_short(v, width)]
        };
        others.extend(
            lines
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.dim()))),
        );
    }
    others
}

/// `no writes in the last 60 s` when the source counts writes and none arrived in the window;
/// `writes unknown since the disconnection at …` when a live source's polls fail (the last
/// poll's shares are not current: see `ClusterView::disconnected`).
fn quiet_note(v: &ClusterView, app: &App) -> Option<String> {
    if let Some(since) = v.disconnected_since {
        return Some(format!(
            "{} unknown since the disconnection at {} UTC",
            signal(v),
            super::time_text(since, false)
        ));
    }
    let c = v.collection.as_ref()?;
    let counts = matches!(v.heat, None | Some("changestream" | "sampled"));
    let secs = crate::view::RECENT_SECS;
    (app.heat && counts && c.recent_writes == 0).then(|| match v.heat {
        Some("sampled") => format!("no sampled queries in the last {secs} s"),
        _ => format!("no writes in the last {secs} s"),
    })
}

/// The collection's `balancing:` settings and the shards missing from `config.shards`.
fn notes(v: &ClusterView, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let Some(c) = v.collection.as_ref().filter(|c| !c.balancing.is_empty()) {
        let note = format!("balancing: {}", c.balancing.join(" · "));
        out.push(Line::from(Span::styled(fit(&note, width), theme.warn())));
    }
    let ghosts: Vec<&str> = v
        .shards
        .iter()
        .filter(|s| s.unlisted)
        .map(|s| s.id.as_str())
        .collect();
    if !ghosts.is_empty() {
        let note = format!("GHOST: not in config.shards: {}", ghosts.join(", "));
        out.push(Line::from(Span::styled(fit(&note, width), theme.error())));
    }
    out
}

/// The orphans' numbers alone, as many shards' as `width` holds whole and `+N` for the rest:
/// Each shard holding orphans: `shard0003 4.2 MiB (22086 docs)`.
fn orphan_parts(v: &ClusterView) -> Vec<String> {
    (v.shards.iter())
        .filter(|s| s.orphaned_docs > 0)
        .map(|s| {
            let bytes = human_bytes(s.orphaned_bytes);
            format!("{} {bytes} ({} docs)", s.id, s.orphaned_docs)
        })
        .collect()
}

/// `orphaned: shard0003 4.2 MiB (22086 docs) · +1`.
fn orphans_short(v: &ClusterView, width: usize) -> String {
    let parts = orphan_parts(v);
    let mut text = "orphaned:".to_string();
    for (i, part) in parts.iter().enumerate() {
        let sep = if i == 0 { " " } else { " · " };
        let rest = parts.len() - i - 1;
        let tail = if rest > 0 {
            5 + rest.to_string().len()
        } else {
            0
        };
        if text.chars().count() + sep.chars().count() + part.chars().count() + tail > width && i > 0
        {
            text.push_str(&format!(" · +{}", parts.len() - i));
            return text;
        }
        text.push_str(sep);
        text.push_str(part);
    }
    text
}

/// `orphaned: shard0000 769.1 KiB (3938 docs) · … — until the range deleter runs` when
/// migrations left documents on donors: the numbers first, so a cut to the pane's width drops the
/// explanation, never a number.
fn orphans_note(v: &crate::view::ClusterView) -> Option<String> {
    let parts = orphan_parts(v);
    (!parts.is_empty()).then(|| {
        format!(
            "orphaned: {} — until the range deleter runs",
            parts.join(" · ")
        )
    })
}
