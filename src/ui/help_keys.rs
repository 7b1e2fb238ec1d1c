//! What the help overlay lists, screen by screen: groups of rows, each row some commands of the
//! key map (shown with their keys as bound) and what they do there. The main layout, the key
//! visualizer, the history, the lab's side-by-side screen and the what-if screen each list the keys
//! that act on them.
//!
//! Part of `ui`: plain tables, no state and no I/O; the overlay (`panes::help`) draws them.

use super::screen::Screen;

/// One row of the help: the commands whose keys it shows, and what they do.
pub type HelpRow = (&'static [&'static str], &'static str);

/// A group of rows under a title.
pub type HelpGroup = (&'static str, &'static [HelpRow]);

/// The rows of every screen: quitting, the help itself and the panes.
const GENERAL: HelpGroup = (
    "general",
    &[
        (
            &["quit"],
            "quit (Ctrl-C always quits; Ctrl-Z suspends, fg returns)",
        ),
        (&["help"], "this help (scrolls, filters; Esc closes)"),
        (&["palette"], "command palette: type to filter, Enter runs"),
        (&["focus-next", "focus-prev"], "next / previous pane"),
        (
            &["next-collection", "prev-collection"],
            "next / previous collection",
        ),
    ],
);

/// The rows of the screens in place of the main layout: quitting, the help and the palette.
const GENERAL_SHORT: HelpGroup = ("general", GENERAL.1.split_at(3).0);

/// The clock's keys (a live cluster has only pause).
const TIME: HelpGroup = (
    "time",
    &[
        (&["pause"], "pause / resume"),
        (
            &["restart"],
            "restart from the start (at the end, Space too)",
        ),
        (&["faster", "slower"], "faster / slower"),
        (
            &["step-forward", "step-back"],
            "step 1 s forward / back (pauses)",
        ),
        (&["seek-forward", "seek-back"], "jump 10 s forward / back"),
        (
            &["next-migration", "prev-migration"],
            "next / previous migration",
        ),
    ],
);

/// The main layout's help.
pub const HELP: &[HelpGroup] = &[
    GENERAL,
    TIME,
    (
        "key space",
        &[
            (
                &["left", "right"],
                "select a cell (any pane; pans at the edges)",
            ),
            (
                &["zoom-in", "zoom-out"],
                "zoom in / out around the selection",
            ),
            (&["zoom-reset"], "whole key space"),
            (&["copy"], "copy the selection's bounds (OSC 52 clipboard)"),
        ],
    ),
    (
        "views",
        &[
            (
                &["query"],
                "query targeting: type a filter ({_id: 5}, as in mongosh); ◆ marks the chunks it asks",
            ),
            (&["metric"], "shard bars: chunk count / data size first"),
            (
                &["mouse"],
                "click focuses a pane or selects a cell; wheel scrolls, zooms",
            ),
            (&["zones"], "zone bands on / off"),
            (
                &["explain"],
                "explain: balancer rules per shard for the selected chunk",
            ),
            (&["heat"], "write heat on / off"),
            (
                &["export"],
                "save the screen: shardtop-TIME.txt and .svg here",
            ),
            (
                &["key-visualizer"],
                "key visualizer: writes by key range over time",
            ),
            (&["history"], "history: per shard over time; drains"),
            (
                &["lab"],
                "lab: the candidate keys side by side (Enter opens one, L back)",
            ),
            (
                &["whatif"],
                "what if: fork now with changes (--add-shards 2…), beside now",
            ),
            (
                &["time-zoom-in", "time-zoom-out"],
                "in those: fewer / more seconds a column",
            ),
        ],
    ),
    (
        "shards (focused)",
        &[
            (&["up", "down"], "move the cursor ▶"),
            (&["page-up", "page-down"], "move the cursor a page"),
            (
                &["open"],
                "light the shard's chunks in the key space (Esc clears)",
            ),
            (
                &["sort-shards"],
                "sort: name, data, chunks, writes, orphans (▲/▼ by the column)",
            ),
            (&["search"], "filter by shard name or zone (Enter keeps)"),
        ],
    ),
    (
        "events (focused)",
        &[
            (
                &["up", "down"],
                "move the cursor ▶ (the log scrolls at its ends)",
            ),
            (
                &["open"],
                "the whole event under ▶: documents, full error, its meaning",
            ),
            (&["page-up", "page-down"], "scroll a page"),
            (
                &["filter-events"],
                "filter: all, splits, migrations, jumbo, …",
            ),
            (&["search"], "search text (Enter keeps, Esc clears)"),
            (&["clear"], "clear the search, filter or query"),
        ],
    ),
    (
        "balancer (focused)",
        &[(&["open"], "the why line whole, with the notes on its reads")],
    ),
    TYPING,
];

/// The keys of every text input (`/`, `t`, `W`, `:`, the help's filter): the one line editor's.
/// Its rows name keys, not commands: they are not rebound.
const TYPING: HelpGroup = (
    "typing (/ t W :)",
    &[
        (
            &[EDIT_MOVE],
            "move in the text (Ctrl-A / Ctrl-E: start / end)",
        ),
        (&[EDIT_DELETE], "delete before / under the cursor"),
        (
            &[EDIT_KILL],
            "delete to the start / to the end / the word before",
        ),
        (
            &[EDIT_HISTORY],
            "earlier / later text kept in this input (: and the help: their list)",
        ),
    ],
);

/// The line editor's keys as the help shows them (rows of keys, not of commands).
pub const EDIT_MOVE: &str = "← → Home End";
pub const EDIT_DELETE: &str = "Backspace Del";
pub const EDIT_KILL: &str = "Ctrl-U Ctrl-K Ctrl-W";
pub const EDIT_HISTORY: &str = "↑ ↓";

/// The help rows that name keys rather than commands: the mouse and the line editor's keys.
pub const NOT_COMMANDS: [&str; 5] = ["mouse", EDIT_MOVE, EDIT_DELETE, EDIT_KILL, EDIT_HISTORY];

/// The key visualizer's help.
const KEY_VISUALIZER: &[HelpGroup] = &[
    GENERAL_SHORT,
    TIME,
    (
        "key visualizer",
        &[
            (&["left", "right"], "cursor to an earlier / later column"),
            (&["up", "down"], "cursor to a higher / lower key range"),
            (
                &["zoom-in", "open"],
                "zoom into the key range under the cursor",
            ),
            (&["zoom-out"], "zoom back out"),
            (
                &["time-zoom-in", "time-zoom-out"],
                "fewer / more seconds a column",
            ),
            (&["zoom-reset"], "whole key space, 1 s a column"),
            (&["clear", "key-visualizer"], "back to the main layout"),
            (&["history"], "the history in its place"),
        ],
    ),
];

/// The history view's help.
const HISTORY: &[HelpGroup] = &[
    GENERAL_SHORT,
    TIME,
    (
        "history",
        &[
            (&["up", "down"], "scroll the shards"),
            (
                &["time-zoom-in", "time-zoom-out"],
                "fewer / more seconds a column",
            ),
            (&["zoom-reset"], "1 s a column, from the first shard"),
            (&["clear", "history"], "back to the main layout"),
            (&["key-visualizer"], "the key visualizer in its place"),
        ],
    ),
];

/// The lab's side-by-side screen's help.
const LAB: &[HelpGroup] = &[
    GENERAL_SHORT,
    TIME,
    (
        "side by side",
        &[
            (&["left", "right"], "choose the previous / next candidate"),
            (
                &["zoom-in", "open"],
                "open the chosen candidate in the full layout",
            ),
            (&["lab"], "back to the full layout"),
        ],
    ),
];

/// The what-if screen's help.
const WHAT_IF: &[HelpGroup] = &[
    GENERAL,
    TIME,
    (
        "what if",
        &[
            (
                &["whatif", "clear"],
                "leave: back to the main layout (the fork is dropped)",
            ),
            (
                &["focus-next", "focus-prev"],
                "the pane both sides highlight",
            ),
            (&["metric"], "shard bars: chunk count / data size first"),
            (&["zones"], "zone bands on / off"),
            (
                &["explain"],
                "every input of the fork: measured from the source or assumed, and how",
            ),
        ],
    ),
];

/// The help of a screen.
pub fn help_of(screen: Screen) -> &'static [HelpGroup] {
    match screen {
        Screen::Main => HELP,
        Screen::KeyVisualizer => KEY_VISUALIZER,
        Screen::History => HISTORY,
        Screen::Lab => LAB,
        Screen::WhatIf => WHAT_IF,
    }
}

/// Every screen, for tests that walk all the helps.
pub const SCREENS: [Screen; 5] = [
    Screen::Main,
    Screen::KeyVisualizer,
    Screen::History,
    Screen::Lab,
    Screen::WhatIf,
];
