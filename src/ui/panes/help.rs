//! The help overlay: every key as bound (the configuration may have changed them), from the key
//! map's own table; on a live cluster, only the keys that apply to it. Two columns when one does
//! not fit the height.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::pane_block;
use crate::ui::app::App;
use crate::ui::keymap::{self, HELP, KeyMap};
use crate::ui::theme::Theme;

const LEGEND: &str = "Shards: chunk and data bars, share of the writes in the last 60 s (of the growth with --heat size, never HOT). ◀ HOT = a hotspot: of at least 100 writes, at least 1.5× its fair share (1 / shards owning chunks) and 10 points above it and above the runner-up. Key space: each cell a run of chunks named by its shard's glyph; ▲ hottest chunk when a hotspot by the same rule, J jumbo, ! outside its zone, ▁…█ recent writes; zone bands below.";

fn group_lines(
    group: &str,
    rows: &[keymap::HelpRow],
    keys: &KeyMap,
    (live, lab): (bool, bool),
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(group.to_string(), theme.title()))];
    for (commands, what) in rows {
        if live && !commands.iter().all(|c| keymap::applies_live(c)) {
            continue;
        }
        // The lab's screen is only there for `shardtop lab`.
        if !lab && commands.contains(&"lab") {
            continue;
        }
        let shown: Vec<String> = commands
            .iter()
            .map(|c| match keys.keys_of(c) {
                k if k.is_empty() => (*c).to_string(),
                k => k,
            })
            .collect();
        let shown = shown.join("  ");
        let pad = 16usize.max(shown.chars().count());
        lines.push(Line::from(vec![
            Span::styled(format!("  {shown:<pad$}  "), theme.key()),
            Span::raw(*what),
        ]));
    }
    if lines.len() == 1 {
        lines.clear();
    }
    lines
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let live = app.view.as_ref().is_some_and(|v| v.clock.is_live());
    let lab = app.view.as_ref().is_some_and(|v| v.lab.is_some());
    let groups: Vec<Vec<Line>> = HELP
        .iter()
        .map(|(g, rows)| group_lines(g, rows, &app.settings.keys, (live, lab), theme))
        .filter(|g| !g.is_empty())
        .collect();
    let total: usize = groups.iter().map(Vec::len).sum();
    let two = total + 6 > usize::from(area.height) && area.width >= 100;
    let (left, right): (Vec<Line>, Vec<Line>) = if two {
        let mut left = Vec::new();
        let mut right = Vec::new();
        for g in groups {
            if left.len() + g.len() <= total / 2 + 2 {
                left.extend(g);
            } else {
                right.extend(g);
            }
        }
        (left, right)
    } else {
        (groups.into_iter().flatten().collect(), Vec::new())
    };
    let rows = left.len().max(right.len()) as u16 + 5;
    let width = if two { 98 } else { 84 }.min(area.width);
    let height = rows.min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let block = pane_block(Line::from(" Keys — any key closes "), true, theme);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [body, legend] = Layout::vertical([Constraint::Min(1), Constraint::Length(3)]).areas(inner);
    if two {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(body);
        frame.render_widget(Paragraph::new(left), l);
        frame.render_widget(Paragraph::new(right), r);
    } else {
        frame.render_widget(Paragraph::new(left), body);
    }
    frame.render_widget(
        Paragraph::new(Span::styled(LEGEND, theme.dim())).wrap(Wrap { trim: true }),
        legend,
    );
}
