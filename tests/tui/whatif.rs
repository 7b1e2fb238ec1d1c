#![allow(clippy::unwrap_used)]
//! The what-if screen: `W` opens the prompt, a bad change is said in it and it stays open, Enter
//! asks the source for the fork and shows "now" and the fork side by side with the same panes,
//! the prediction above them; `?` lists this screen's keys; `W` again leaves and drops the fork.
//! Snapshots at 80×24 and 120×40, the fork made by the source's own code (`source::whatif`).

use std::time::{Duration, Instant};

use insta::assert_snapshot;
use shardtop::source::sim::SimTimeline;
use shardtop::source::whatif::Fork;
use shardtop::source::{SourceControl, SourceEvent, Timeline};
use shardtop::ui::screen::Screen;
use shardtop::ui::{Action, App, InputMode};
use shardtop::view::ClockView;

use super::lab::screen;

fn timeline() -> SimTimeline {
    let sc = shardtop::sim::scenario::built_in("ascending")
        .unwrap()
        .unwrap();
    SimTimeline::new(&sc, sc.seed, None).unwrap()
}

fn clock(tl: &SimTimeline) -> ClockView {
    ClockView {
        time_ms: tl.now_ms(),
        paused: true,
        speed: 4.0,
        end_ms: tl.end_ms(),
        virtual_time: true,
        wall_start_ms: None,
    }
}

/// The source's view with its fork beside it (the prediction waited for: a generous deadline).
fn feed(tl: &SimTimeline, fork: Option<&mut Fork>, app: &mut App) {
    let c = clock(tl);
    let diagnoses = (tl.diagnosis_work()).and_then(shardtop::source::diagnose::now);
    let mut v = tl.view(&app.request(), c.clone(), diagnoses.as_ref());
    if let Some(f) = fork {
        let deadline = Instant::now() + Duration::from_secs(300);
        let w = loop {
            let w = f.view(&app.request(), &c);
            let done = w.prediction.is_some() && w.fork.diagnosis.is_some();
            if done || Instant::now() > deadline {
                break w;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        v.whatif = Some(Box::new(w));
    }
    app.apply(SourceEvent::View(Box::new(v)));
}

fn type_text(app: &mut App, text: &str) {
    for ch in text.chars() {
        app.update(Action::SearchChar(ch));
    }
}

/// The timeline at `at_ms`, and the app of `size` whose what-if prompt got `text` and Enter: the
/// source controls Enter asked for.
fn prompted(at_ms: u64, size: (u16, u16), text: &str) -> (SimTimeline, App, Vec<SourceControl>) {
    let mut tl = timeline();
    tl.advance_to(at_ms, &mut Vec::new()).unwrap();
    let mut app = App::new(size, false, 4.0, true);
    feed(&tl, None, &mut app);
    app.update(Action::ToggleWhatIf);
    assert_eq!(app.input, InputMode::WhatIf);
    type_text(&mut app, text);
    let asked = app.update(Action::SearchDone).controls;
    (tl, app, asked)
}

fn what_if_screen(size: (u16, u16)) -> (App, String) {
    let (mut tl, mut app, asked) = prompted(60_000, size, "--add-shards 2");
    assert_eq!(app.screen, Screen::WhatIf);
    assert_eq!(
        asked[0],
        SourceControl::WhatIf(Some("--add-shards 2".into()))
    );
    let mut fork = Fork::new(tl.fork_point().unwrap(), "--add-shards 2", 0).unwrap();
    tl.advance_to(240_000, &mut Vec::new()).unwrap();
    fork.follow(240_000, None);
    feed(&tl, Some(&mut fork), &mut app);
    let text = screen(&app);
    (app, text)
}

#[test]
fn the_fork_plays_beside_now_with_the_same_panes_at_120x40() {
    let (_, text) = what_if_screen((120, 40));
    for what in [
        "now · 4m00s",
        "what if: +2 shards · 4m00s",
        "forked at 1m00s · prediction for app.events:",
        "added01",
        "Key space",
        "Balancer",
    ] {
        assert!(text.contains(what), "{what}:\n{text}");
    }
    assert_eq!(text.matches("Shards · app.events").count(), 2, "{text}");
    assert_snapshot!("whatif_ascending_120x40", text);
}

#[test]
fn e_lists_every_input_of_the_fork_measured_or_assumed() {
    let (tl, mut app, _) = prompted(60_000, (120, 40), "--add-shards 1");
    // As a capture's state forks: the cluster alone, its inputs measured or assumed.
    let mut point = tl.fork_point().unwrap();
    point.sim = shardtop::sim::Simulator::over(point.sim.cluster.clone());
    point.from = shardtop::sim::whatif::assumptions::ForkedFrom::Capture;
    let mut fork = Fork::new(point, "--add-shards 1", 0).unwrap();
    feed(&tl, Some(&mut fork), &mut app);
    let first = screen(&app);
    assert!(first.contains(" assumed: migrationRate: "), "{first}");
    assert!(!first.contains("measured · "), "{first}");
    app.update(Action::ToggleExplain);
    feed(&tl, Some(&mut fork), &mut app);
    let text = screen(&app);
    for what in [
        "assumed · migrationRate: the simulator's cost model",
        "assumed · writes: none",
        "measured · chunkSizes: each chunk's size read",
        "measured · keyDistribution: the documents' keys as the source keeps them",
        "what if: +1 shard",
    ] {
        assert!(text.contains(what), "{what}:\n{text}");
    }
    assert_snapshot!("whatif_inputs_120x40", text);
    app.update(Action::ToggleExplain);
    assert!(screen(&app).contains(" assumed: migrationRate: "));
    app.update(Action::ToggleExplain);
    app.update(Action::ToggleWhatIf);
    assert!(!app.whatif.inputs, "leaving the screen forgets the list");
}

#[test]
fn the_fork_plays_beside_now_at_80x24_and_leaves_with_w() {
    let (mut app, text) = what_if_screen((80, 24));
    assert!(text.contains("added01"), "{text}");
    assert_snapshot!("whatif_ascending_80x24", text);
    app.update(Action::ToggleHelp);
    let help = screen(&app);
    assert!(help.contains("Keys of the what-if screen"), "{help}");
    assert!(help.contains("the fork is dropped"), "{help}");
    app.update(Action::ToggleHelp);
    let left = app.update(Action::ToggleWhatIf);
    assert_eq!(app.screen, Screen::Main);
    assert_eq!(left.controls[0], SourceControl::WhatIf(None));
}

#[test]
fn a_bad_change_is_said_in_the_prompt_which_stays_open_and_esc_cancels() {
    let (_, mut app, none) = prompted(10_000, (120, 24), "--drain shard9");
    assert!(none.is_empty());
    assert_eq!(app.input, InputMode::WhatIf);
    let text = screen(&app);
    assert!(
        text.contains("what if: --drain shard9") && text.contains("--drain shard9: no such shard"),
        "{text}"
    );
    app.update(Action::Escape);
    assert_eq!((app.input, app.screen), (InputMode::Commands, Screen::Main));
}

#[test]
fn while_the_fork_is_made_the_screen_says_how_far_it_got_and_esc_leaves() {
    let (tl, mut app, _) = prompted(10_000, (120, 24), "--add-shards 9997");
    assert_eq!(app.screen, Screen::WhatIf);
    let mut v = tl.view(&app.request(), clock(&tl), None);
    v.forking = Some("4312 of 9997 shards added".into());
    app.apply(SourceEvent::View(Box::new(v)));
    let text = screen(&app);
    assert!(
        text.contains("forking +9997 shards at 10.0s… 4312 of 9997 shards added (Esc leaves)"),
        "{text}"
    );
    let left = app.update(Action::Escape).controls;
    assert_eq!(left[0], SourceControl::WhatIf(None));
    assert_eq!(app.screen, Screen::Main);
}
