//! The keys that move about the main screen: Tab in the screen's order, `←`/`→` from any pane,
//! the Shards pane's row cursor and `Enter` lighting a shard's chunks in the key space, the sort's
//! column and arrow at 80 columns, and the one line editor of every text input.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::ui::Action;
use shardtop::ui::InputMode;
use shardtop::ui::app::Focus;
use shardtop::ui::line_editor::Edit;

fn text(f: &Fixture) -> String {
    format!("{}", f.draw().backend())
}

#[test]
fn tab_takes_the_panes_in_the_screen_order_and_skips_the_events_when_not_drawn() {
    let mut f = Fixture::new("ascending", 60_000, (120, 40));
    assert_eq!(f.app.focus, Focus::Shards);
    let mut seen = vec![];
    for _ in 0..4 {
        f.keys(&[Action::FocusNext]);
        seen.push(f.app.focus);
    }
    let order = [
        Focus::Balancer,
        Focus::KeySpace,
        Focus::Events,
        Focus::Shards,
    ];
    assert_eq!(seen, order);
    f.keys(&[Action::FocusPrev]);
    assert_eq!(f.app.focus, Focus::Events);
    // The explain panel in the events' place: Tab skips the events.
    f.keys(&[Action::FocusNext, Action::ToggleExplain, Action::FocusPrev]);
    assert_eq!(f.app.focus, Focus::KeySpace);
    f.keys(&[Action::FocusNext]);
    assert_eq!(f.app.focus, Focus::Shards);
    // A terminal too short for the event log: the same.
    let mut f = Fixture::new("ascending", 60_000, (80, 16));
    f.keys(&[Action::FocusPrev]);
    assert_eq!(f.app.focus, Focus::KeySpace);
}

#[test]
fn left_and_right_move_in_the_key_space_from_any_pane() {
    let mut f = Fixture::new("ascending", 120_000, (120, 40));
    assert_eq!(f.app.focus, Focus::Shards);
    let cells = f.app.view.as_ref().unwrap().collection.as_ref().unwrap();
    assert!(cells.cells.len() > 2, "ascending has split by 120 s");
    f.keys(&[Action::Right, Action::Right]);
    assert_eq!(f.app.focus, Focus::KeySpace, "the selection shows");
    assert_eq!(f.app.cursor, 2);
    f.keys(&[Action::FocusNext, Action::FocusNext, Action::Left]);
    assert_eq!((f.app.focus, f.app.cursor), (Focus::KeySpace, 1));
}

#[test]
fn the_shard_cursor_moves_and_enter_lights_the_shard_s_chunks() {
    for size in [(80, 24), (120, 40)] {
        let mut f = Fixture::new("drain", 40_000, size);
        let list = f.app.shard_list();
        assert!(list.len() >= 3);
        f.keys(&[Action::Down, Action::Down, Action::Up]);
        assert_eq!(f.app.shard_row, 1);
        let k = f.app.shard_at_cursor().unwrap();
        assert_eq!(k, list[1]);
        f.keys(&[Action::Open]);
        let id = f.app.view.as_ref().unwrap().shards[k].id.clone();
        assert_eq!(f.app.lit_shard.as_deref(), Some(id.as_str()));
        assert_eq!(f.app.focus, Focus::Shards, "Enter on a shard does not zoom");
        let screen = text(&f);
        assert!(screen.contains(&format!("● {id} lit: ")), "{screen}");
        // Each cell shows the lit shard where it holds a chunk of it, else a dot.
        let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
        let lit = c.cells.iter().filter(|x| x.owners.contains(&k)).count();
        assert!(lit > 0 && lit < c.cells.len(), "{lit} of {}", c.cells.len());
        let glyph = shardtop::ui::theme::Theme::shard_glyph(k);
        let lines: Vec<&str> = screen.lines().collect();
        let title = lines.iter().position(|l| l.contains("Key space")).unwrap();
        let strip = lines[title + 2];
        for ch in strip.chars().filter(char::is_ascii_alphanumeric) {
            assert_eq!(ch, glyph, "only the lit shard's glyph: {strip}");
        }
        assert!(strip.contains('·') && strip.contains(glyph), "{strip}");
        assert_snapshot!(format!("lit_shard_drain_{}x{}", size.0, size.1), screen);
        f.keys(&[Action::Escape]);
        assert!(f.app.lit_shard.is_none(), "Esc clears");
        f.keys(&[Action::Open, Action::Open]);
        assert!(f.app.lit_shard.is_none(), "Enter again puts it out");
    }
}

#[test]
fn sorted_by_data_at_80_columns_the_data_column_shows_with_its_arrow() {
    let mut f = Fixture::new("drain", 40_000, (80, 24));
    let before = text(&f);
    assert!(
        !before.contains("MiB ") || before.contains("chunks"),
        "{before}"
    );
    f.keys(&[Action::CycleShardSort]);
    let screen = text(&f);
    assert!(screen.contains("by data ▼"), "{screen}");
    assert!(screen.contains("data ▼"), "{screen}");
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains("MiB")).collect();
    assert!(rows.len() >= 3, "the sizes sorted on are shown:\n{screen}");
    assert_snapshot!("sorted_by_data_80x24", screen);
    f.keys(&[Action::CycleShardSort]);
    let screen = text(&f);
    assert!(screen.contains("chunks ▼"), "{screen}");
}

fn typed(f: &mut Fixture, text: &str) {
    let keys: Vec<Action> = text.chars().map(Action::SearchChar).collect();
    f.keys(&keys);
}

#[test]
fn one_line_editor_moves_deletes_and_remembers_in_every_input() {
    let mut f = Fixture::new("ascending", 60_000, (80, 24));
    // The query filter: typed, a character put in the middle, Ctrl-U, Ctrl-K, Ctrl-W.
    f.keys(&[Action::StartQuery]);
    typed(&mut f, "{_id: 5}");
    f.keys(&[Action::Edit(Edit::Left)]);
    typed(&mut f, "0");
    assert_eq!(f.app.query_text, "{_id: 50}");
    let footer = text(&f);
    assert!(
        footer.contains("{_id: 50▏}"),
        "the cursor is drawn: {footer}"
    );
    f.keys(&[Action::Edit(Edit::Home), Action::Edit(Edit::Delete)]);
    assert_eq!(f.app.query_text, "_id: 50}");
    f.keys(&[Action::Edit(Edit::End), Action::Edit(Edit::KillWord)]);
    assert_eq!(f.app.query_text, "_id: ");
    f.keys(&[Action::Edit(Edit::KillToStart)]);
    typed(&mut f, "{_id: 7}");
    f.keys(&[Action::SearchDone]);
    assert_eq!(f.app.query.as_deref(), Some("{_id: 7}"));
    // Reopened: ↑ brings back what was kept, ↓ the text being typed.
    f.keys(&[Action::Escape, Action::StartQuery]);
    typed(&mut f, "{x");
    f.keys(&[Action::Up]);
    assert_eq!(f.app.query_text, "{_id: 7}");
    f.keys(&[Action::Down]);
    assert_eq!(f.app.query_text, "{x");
    f.keys(&[Action::Escape]);
    // The what-if prompt: the same keys.
    f.keys(&[Action::ToggleWhatIf]);
    assert_eq!(f.app.input, InputMode::WhatIf);
    typed(&mut f, "--add-shards 2 --drain x");
    f.keys(&[Action::Edit(Edit::KillWord), Action::Edit(Edit::KillWord)]);
    assert_eq!(f.app.whatif.text, "--add-shards 2 ");
    f.keys(&[Action::Edit(Edit::Home), Action::Edit(Edit::KillToEnd)]);
    assert_eq!(f.app.whatif.text, "");
    f.keys(&[Action::Escape]);
    // The palette: editing its filter; ↑/↓ still choose a row.
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "hstory");
    f.keys(&[Action::Edit(Edit::Home), Action::Edit(Edit::Right)]);
    typed(&mut f, "i");
    assert_eq!(f.app.palette.as_ref().unwrap().filter, "history");
    f.keys(&[Action::Down]);
    assert_eq!(f.app.palette.as_ref().unwrap().filter, "history");
    f.keys(&[Action::Escape]);
    // The event search: its own history.
    f.keys(&[Action::FocusPrev, Action::StartSearch]);
    assert_eq!(f.app.input, InputMode::Search);
    f.keys(&[Action::Up]);
    assert_eq!(f.app.search, "", "the search kept nothing yet");
}
