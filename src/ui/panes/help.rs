//! The help overlay: the keys of the screen shown, as bound (the configuration may have changed
//! them), from the tables of `help_keys`; on a live cluster, only the keys that apply to it. It
//! scrolls (its last line says where it is and which keys scroll, filter and close it), a `/`
//! filter keeps the rows whose keys or words match, and two columns are used when one does not
//! fit a wide terminal.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{pane_block, wrap};
use crate::ui::app::App;
use crate::ui::help_keys::{HelpGroup, help_of};
use crate::ui::input_mode::InputMode;
use crate::ui::keymap::{self, KeyMap};
use crate::ui::theme::Theme;

const LEGEND: &str = "Shards: chunk and data bars, share of the writes in the last 60 s (of the growth with --heat size). ◀ HOT = a hotspot: of at least 100 writes, at least 1.5× its fair share (1 / shards owning chunks) and 10 points above it and above the runner-up; live, it names its evidence: (change stream), (sampled), (growth). Key space: each cell a run of chunks named by its shard's glyph; ▲ hottest chunk when a hotspot by the same rule, J jumbo, ! outside its zone, ▁…█ recent writes; zone bands below.";

/// What the rows may show: a live cluster's, the lab's, and the filter.
struct Shown<'a> {
    live: bool,
    lab: bool,
    filter: &'a str,
    /// The column's width: longer rows wrap under their words.
    width: usize,
}

fn group_lines(
    group: &HelpGroup,
    keys: &KeyMap,
    shown: &Shown,
    theme: Theme,
) -> Vec<Line<'static>> {
    let (title, rows) = group;
    let needle = shown.filter.to_lowercase();
    let whole_group = !needle.is_empty() && title.to_lowercase().contains(&needle);
    let mut lines = vec![Line::from(Span::styled(
        (*title).to_string(),
        theme.title(),
    ))];
    for (commands, what) in *rows {
        if shown.live && !commands.iter().all(|c| keymap::applies_live(c)) {
            continue;
        }
        // The lab's screen is only there for `shardtop lab`.
        if !shown.lab && commands.contains(&"lab") {
            continue;
        }
        let bound: Vec<String> = commands
            .iter()
            .map(|c| match keys.keys_of(c) {
                k if k.is_empty() => (*c).to_string(),
                k => k,
            })
            .collect();
        let bound = bound.join("  ");
        let matches = needle.is_empty()
            || whole_group
            || bound.to_lowercase().contains(&needle)
            || what.to_lowercase().contains(&needle)
            || commands.iter().any(|c| c.contains(needle.as_str()));
        if !matches {
            continue;
        }
        let pad = 16usize.max(bound.chars().count());
        let indent = pad + 4;
        let words = wrap(what, shown.width.saturating_sub(indent).max(16));
        for (i, part) in words.into_iter().enumerate() {
            let keys = if i == 0 { bound.as_str() } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<pad$}  "), theme.key()),
                Span::raw(part),
            ]));
        }
    }
    if lines.len() == 1 {
        lines.clear();
    }
    lines
}

/// The overlay's shape for the app's terminal: where it goes, its columns of lines, and the
/// lines a page shows.
struct Geometry {
    popup: Rect,
    left: Vec<Line<'static>>,
    right: Vec<Line<'static>>,
    two: bool,
    page: usize,
}

fn geometry(app: &App, area: Rect) -> Geometry {
    let theme = app.settings.theme;
    let lines_of = |width: u16| {
        let shown = Shown {
            live: app.view.as_ref().is_some_and(|v| v.clock.is_live()),
            lab: app.view.as_ref().is_some_and(|v| v.lab.is_some()),
            filter: &app.help_view.filter,
            width: usize::from(width),
        };
        help_of(app.screen)
            .iter()
            .map(|g| group_lines(g, &app.settings.keys, &shown, theme))
            .filter(|g| !g.is_empty())
            .collect::<Vec<Vec<Line>>>()
    };
    let one_width = 84.min(area.width);
    let mut groups = lines_of(one_width.saturating_sub(2));
    let mut total: usize = groups.iter().map(Vec::len).sum();
    let two = total + 4 > usize::from(area.height) && area.width >= 150;
    let width = if two { 148 } else { one_width };
    if two {
        groups = lines_of(width.saturating_sub(2) / 2);
        total = groups.iter().map(Vec::len).sum();
    }
    let (mut left, right): (Vec<Line>, Vec<Line>) = if two {
        let mut left = Vec::new();
        let mut right = Vec::new();
        for g in groups {
            if right.is_empty() && left.len() + g.len() <= total / 2 + 2 {
                left.extend(g);
            } else {
                right.extend(g);
            }
        }
        (left, right)
    } else {
        (groups.into_iter().flatten().collect(), Vec::new())
    };
    if app.help_view.filter.is_empty() && app.screen == crate::ui::screen::Screen::Main {
        left.push(Line::default());
        let legend_width = if two {
            usize::from(width.saturating_sub(2) / 2)
        } else {
            usize::from(width.saturating_sub(2))
        };
        left.extend(
            wrap(LEGEND, legend_width)
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.dim()))),
        );
    }
    if left.is_empty() && right.is_empty() {
        left.push(Line::from(Span::styled(
            format!("no key matches “{}”", app.help_view.filter),
            theme.dim(),
        )));
    }
    let rows = left.len().max(right.len()) as u16 + 3;
    let height = rows.min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    Geometry {
        popup,
        left,
        right,
        two,
        page: usize::from(height.saturating_sub(3)),
    }
}

/// The help's length in lines (its longer column) and the lines a page shows, for the app's
/// terminal: what scrolling may reach.
pub fn extent(app: &App) -> (usize, usize) {
    let g = geometry(app, Rect::new(0, 0, app.size.0, app.size.1));
    (g.left.len().max(g.right.len()), g.page)
}

/// The keys of a command as its first bound key, or `fallback`.
fn first(app: &App, command: &str, fallback: &str) -> String {
    app.settings
        .keys
        .first_key_of(command)
        .unwrap_or_else(|| fallback.to_string())
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let g = geometry(app, area);
    let lines = g.left.len().max(g.right.len());
    let scroll = app.help_view.scroll.min(lines.saturating_sub(g.page));
    frame.render_widget(Clear, g.popup);
    let close = format!(
        "{} Esc {} close",
        first(app, "help", "?"),
        first(app, "quit", "q")
    );
    let title = match app.screen {
        crate::ui::screen::Screen::Main => " Keys ",
        crate::ui::screen::Screen::KeyVisualizer => " Keys of the key visualizer ",
        crate::ui::screen::Screen::History => " Keys of the history ",
        crate::ui::screen::Screen::Lab => " Keys of the side-by-side screen ",
        crate::ui::screen::Screen::WhatIf => " Keys of the what-if screen ",
    };
    let block = pane_block(Line::from(format!("{title}— {close} ")), true, theme);
    let inner = block.inner(g.popup);
    frame.render_widget(block, g.popup);
    let [body, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let offset = u16::try_from(scroll).unwrap_or(u16::MAX);
    if g.two {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(body);
        frame.render_widget(Paragraph::new(g.left).scroll((offset, 0)), l);
        frame.render_widget(Paragraph::new(g.right).scroll((offset, 0)), r);
    } else {
        frame.render_widget(Paragraph::new(g.left).scroll((offset, 0)), body);
    }
    let last = (scroll + g.page).min(lines);
    let place = if lines > g.page {
        format!("{}–{last} of {lines} ", scroll + 1)
    } else {
        String::new()
    };
    let left = if app.input == InputMode::HelpFilter {
        vec![
            Span::styled("filter: ", theme.key()),
            Span::raw({
                let (before, after) = app.line.split(&app.help_view.filter);
                format!("{before}▏{after}")
            }),
            Span::styled("  Enter keeps · Esc clears", theme.dim()),
        ]
    } else {
        let filter = if app.help_view.filter.is_empty() {
            String::new()
        } else {
            format!("filter “{}” · ", app.help_view.filter)
        };
        let scroll_keys = if lines > g.page {
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
        vec![Span::styled(
            format!(
                "{filter}{scroll_keys}{} filter · {close}",
                first(app, "search", "/")
            ),
            theme.dim(),
        )]
    };
    let room = usize::from(status.width).saturating_sub(place.chars().count());
    let mut used = 0;
    let mut spans = Vec::new();
    for s in left {
        let text = super::fit(&s.content, room.saturating_sub(used));
        used += text.chars().count();
        spans.push(Span::styled(text, s.style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), status);
    frame.render_widget(
        Paragraph::new(Span::styled(place, theme.dim()))
            .alignment(ratatui::layout::Alignment::Right),
        status,
    );
}
