//! The key space of the selected collection, from MinKey to MaxKey: a strip of cells (each a run
//! of consecutive chunks, coloured and named by the owning shard), a marks row (▲ the hottest
//! chunk when it is a hotspot by `cluster::hotspot`'s rule, J jumbo, ! a chunk outside its zone,
//! ▁…█ recent writes), the zone bands, and a detail line for the selected cell (or the hottest
//! chunk of the last 60 s when the pane has no focus).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, pane_block};
use crate::ui::app::App;
use crate::ui::theme::Theme;
use crate::units::human_bytes;
use crate::view::{CollectionView, QueryView};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: Theme, focused: bool) {
    let coll = app.view.as_ref().and_then(|v| v.collection.as_ref());
    let Some(c) = coll else {
        let block = pane_block(Line::from(" Key space "), focused, theme);
        frame.render_widget(
            Paragraph::new("no sharded collection yet").block(block),
            area,
        );
        return;
    };
    let count = app.view.as_ref().map_or(0, |v| v.collections.len());
    // An untracked collection has no shard key and no chunk: its place says it all.
    let mut title = if c.untracked {
        format!(" Key space · {}", c.ns)
    } else {
        format!(
            " Key space · {} {} · {}",
            c.ns,
            c.key,
            crate::units::count(c.chunks as u64, "chunk")
        )
    };
    if c.jumbo > 0 {
        title.push_str(&format!(" · {} jumbo", c.jumbo));
    }
    if let Some(a) = &c.activity {
        title.push_str(&format!(" · {a}"));
    }
    if count > 1 {
        title.push_str(&format!(" · collection {}/{count} (c)", app.collection + 1));
    }
    title.push(' ');
    let mut block = pane_block(
        Line::from(Span::styled(title, theme.title())),
        focused,
        theme,
    );
    let inner = block.inner(area);
    let width = usize::from(inner.width);
    if app.zones
        && let Some(legend) = super::keyspace_marks::legend(c, width.saturating_sub(2), theme)
    {
        block = block.title_bottom(legend);
    }
    let selected = focused.then_some(app.cursor);
    let mut lines = vec![
        axis(c, width, selected, app, theme),
        strip(c, width, selected, app, theme),
        super::keyspace_marks::marks(c, width, app, theme),
    ];
    if app.zones && !c.zone_names.is_empty() {
        lines.push(super::keyspace_marks::zones(c, width, theme));
    } else {
        lines.push(Line::from(Span::styled(
            if c.zone_names.is_empty() {
                "no zones"
            } else {
                "zones hidden (z)"
            },
            theme.dim(),
        )));
    }
    let heat = app.view.as_ref().and_then(|v| v.heat);
    let down = app.view.as_ref().and_then(|v| v.disconnected_since);
    let mut below = detail(c, (focused, heat, down), width, theme);
    // A chunk selected while a query is shown: the query's summary stays, under the chunk's range
    // (its facts follow when the pane has the row).
    if focused
        && c.selection.is_some()
        && let Some(q) = &c.query
    {
        below.insert(1, query_summary(q, width, theme));
        let rows = usize::from(inner.height).saturating_sub(lines.len()).max(2);
        below.truncate(rows);
    }
    if let Some(lit) = lit_line(c, app, width, theme).filter(|_| !focused) {
        below.insert(0, lit);
        below.truncate(2);
    }
    lines.extend(below);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `● shard0001 lit: 4 of 9 cells · Esc clears`: the shard lit from the list (`Enter` on it),
/// in place of the detail's first line while the key space has no selection shown.
fn lit_line(c: &CollectionView, app: &App, width: usize, theme: Theme) -> Option<Line<'static>> {
    let k = app.lit_index()?;
    let id = app.lit_shard.as_deref()?;
    let cells = c.cells.iter().filter(|x| x.owners.contains(&k)).count();
    let text = format!(
        "{id} lit: {} of {} · Esc clears",
        crate::units::count(cells as u64, "cell"),
        c.cells.len()
    );
    Some(Line::from(vec![
        Span::styled("● ", theme.key()),
        Span::styled(
            crate::units::cut_at_words(&text, width.saturating_sub(2)),
            theme.shard(k),
        ),
    ]))
}

/// The columns `[from, to)` of cell `i` of `n` over `width` columns.
pub(super) fn columns(i: usize, n: usize, width: usize) -> (usize, usize) {
    (i * width / n, (i + 1) * width / n)
}

fn axis(
    c: &CollectionView,
    width: usize,
    selected: Option<usize>,
    app: &App,
    theme: Theme,
) -> Line<'static> {
    let end = c.window_first + c.window_len;
    let left = if c.window_first == 0 {
        "MinKey".to_string()
    } else {
        format!("◀ chunk {}", c.window_first + 1)
    };
    let right = if end >= c.chunks {
        "MaxKey".to_string()
    } else {
        format!("chunk {end} ▶")
    };
    let mut row: Vec<char> = vec![' '; width];
    let mid = if app.span < 1.0 {
        format!(
            "{} of {} · zoom ×{:.0}",
            c.window_len,
            crate::units::count(c.chunks as u64, "chunk"),
            1.0 / app.span
        )
    } else {
        String::new()
    };
    put(&mut row, 0, &left);
    put(
        &mut row,
        width.saturating_sub(right.chars().count()),
        &right,
    );
    put(
        &mut row,
        width.saturating_sub(mid.chars().count()) / 2,
        &mid,
    );
    if let Some(s) = selected.filter(|&s| s < c.cells.len()) {
        let (a, b) = columns(s, c.cells.len(), width);
        if let Some(ch) = row.get_mut(a + (b - a).saturating_sub(1) / 2) {
            *ch = '▼';
        }
    }
    Line::from(Span::styled(
        row.into_iter().collect::<String>(),
        theme.dim(),
    ))
}

fn put(row: &mut [char], at: usize, text: &str) {
    for (i, ch) in text.chars().enumerate() {
        if let Some(slot) = row.get_mut(at + i) {
            *slot = ch;
        }
    }
}

fn strip(
    c: &CollectionView,
    width: usize,
    selected: Option<usize>,
    app: &App,
    theme: Theme,
) -> Line<'static> {
    let n = c.cells.len().max(1);
    let lit = app.lit_index();
    let spans = c
        .cells
        .iter()
        .enumerate()
        .map(|(i, cell)| {
            let (a, b) = columns(i, n, width);
            let w = b - a;
            // A shard lit from the list: its cells show it (even where it is not the most
            // chunks), the others are dots.
            let owner = match lit {
                Some(k) if cell.owners.contains(&k) => Some(k),
                Some(_) => None,
                None => Some(cell.shard),
            };
            let glyph = owner.map_or('·', Theme::shard_glyph);
            let text: String = if theme.colors {
                (0..w)
                    .map(|k| {
                        if k == (w.saturating_sub(1)) / 2 {
                            glyph
                        } else {
                            ' '
                        }
                    })
                    .collect()
            } else {
                std::iter::repeat_n(glyph, w).collect()
            };
            let mut style = owner.map_or(theme.dim(), |k| theme.shard_cell(k));
            if lit.is_some() && owner.is_some() {
                style = style.add_modifier(Modifier::BOLD);
            }
            if cell.hot && app.heat {
                style = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
            }
            if selected == Some(i) {
                style = style.patch(theme.selected());
            }
            Span::styled(text, style)
        })
        .collect::<Vec<_>>();
    Line::from(spans)
}

fn detail(
    c: &CollectionView,
    (focused, heat, down): (bool, Option<&str>, Option<u64>),
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    if focused && let Some(s) = &c.selection {
        let what = if s.count == 1 {
            format!("chunk {} of {}", s.first + 1, c.chunks)
        } else {
            format!(
                "chunks {}–{} of {}",
                s.first + 1,
                s.first + s.count,
                c.chunks
            )
        };
        let mut facts = vec![
            s.shards.join(","),
            format!("{} {}", s.docs, unit(c)),
            human_bytes(s.bytes),
            match down {
                Some(_) => "recent writes unknown".to_string(),
                None => format!("{} recent writes", s.writes),
            },
        ];
        if let Some(z) = &s.zone {
            facts.push(format!("zone {z}"));
        }
        if s.jumbo > 0 {
            facts.push(if s.count == 1 {
                "JUMBO".into()
            } else {
                format!("{} jumbo", s.jumbo)
            });
        }
        if let Some(v) = &s.version {
            facts.push(format!("version {v}"));
        }
        return vec![
            Line::from(vec![
                Span::styled(format!("{what}: "), theme.title()),
                Span::raw(fit(
                    &format!("[{}, {})", s.min, s.max),
                    width.saturating_sub(what.len() + 2),
                )),
            ]),
            Line::from(Span::raw(fit(&facts.join(" · "), width))),
        ];
    }
    if let Some(q) = &c.query {
        return query_lines(q, width, theme);
    }
    let secs = crate::view::RECENT_SECS;
    match &c.hot {
        Some(h) => vec![
            Line::from(if h.hot {
                vec![
                    Span::styled("▲ hottest chunk ", theme.hot()),
                    Span::raw(fit(&h.range, width.saturating_sub(16))),
                ]
            } else {
                vec![
                    Span::styled("most-written chunk ", theme.title()),
                    Span::raw(fit(&h.range, width.saturating_sub(19))),
                ]
            }),
            Line::from(Span::raw(format!(
                "on {} · {:.0}% of writes in {secs} s · {} {}, {} in the collection",
                h.shard,
                h.share * 100.0,
                c.docs,
                unit(c),
                human_bytes(c.bytes)
            ))),
        ],
        None => vec![
            Line::from(Span::styled(
                match (heat, down) {
                    (_, Some(since)) => format!(
                        "writes unknown since the disconnection at {} UTC",
                        super::time_text(since, false)
                    ),
                    (Some(mode @ ("size" | "off")), None) => {
                        format!("writes per chunk unknown (--heat {mode})")
                    }
                    (Some("sampled"), None) => format!("no sampled queries in the last {secs} s"),
                    _ => format!("no writes in the last {secs} s"),
                },
                theme.dim(),
            )),
            Line::from(Span::raw(format!(
                "{} {}, {} in the collection · Tab here, then ← → to select a chunk",
                c.docs,
                unit(c),
                human_bytes(c.bytes)
            ))),
        ],
    }
}

/// The query's targeting, as `explain` would sum it up.
fn query_lines(q: &QueryView, width: usize, theme: Theme) -> Vec<Line<'static>> {
    match q {
        QueryView::Targeted {
            filter,
            stage,
            shards,
            chunks,
        } => vec![
            Line::from(vec![
                Span::styled("◆ query ", theme.key()),
                Span::raw(fit(filter, width.saturating_sub(8))),
            ]),
            Line::from(vec![
                Span::styled(format!("{stage} "), theme.title()),
                Span::raw(fit(
                    &format!(
                        "→ {} ({} chunk{}) · Esc clears",
                        shards.join(", "),
                        chunks,
                        if *chunks == 1 { "" } else { "s" }
                    ),
                    width.saturating_sub(stage.len() + 1),
                )),
            ]),
        ],
        QueryView::Invalid { filter, error } => vec![
            Line::from(vec![
                Span::styled("query ", theme.key()),
                Span::raw(fit(filter, width.saturating_sub(6))),
            ]),
            Line::from(Span::styled(
                fit(&format!("not a filter: {error}"), width),
                theme.error(),
            )),
        ],
    }
}

/// The query's targeting in one line: `◆ {_id: 5} → shard0001 (1 chunk) SINGLE_SHARD`.
fn query_summary(q: &QueryView, width: usize, theme: Theme) -> Line<'static> {
    match q {
        QueryView::Targeted {
            filter,
            stage,
            shards,
            chunks,
        } => {
            let tail = format!(
                " → {} ({}) {stage}",
                shards.join(", "),
                crate::units::count(*chunks as u64, "chunk")
            );
            let room = width.saturating_sub(2 + tail.chars().count());
            Line::from(vec![
                Span::styled("◆ ", theme.key()),
                Span::raw(fit(filter, room.max(8))),
                Span::styled(
                    crate::units::cut_at_words(&tail, width.saturating_sub(room.max(8) + 2)),
                    theme.title(),
                ),
            ])
        }
        QueryView::Invalid { filter, error } => Line::from(Span::styled(
            fit(&format!("query {filter}: not a filter: {error}"), width),
            theme.error(),
        )),
    }
}

/// What a collection's documents are: buckets for a time-series collection.
fn unit(c: &crate::view::CollectionView) -> &'static str {
    if c.buckets { "buckets" } else { "docs" }
}
