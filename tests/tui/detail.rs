//! The detail view (`Enter`): on an event of the events pane, the whole of it — the line, the
//! error whole with what it means, the documents laid out — and on the balancer pane, the why
//! line whole; `y` copies it, ↑/↓ and PgUp/PgDn scroll it, Esc closes it. Snapshots at 80×24 and
//! 120×40 of the `manual` demo's failed move back onto a shard still holding the range's orphans.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::ui::app::Focus;
use shardtop::ui::{Action, App};
use shardtop::view::LogKind;

/// The `manual` demo at 80 s (a move back onto shard0001 failed at 74.2 s), the events pane
/// focused and its cursor on the newest error.
fn on_the_error(size: (u16, u16)) -> Fixture {
    let mut f = Fixture::new("manual", 80_000, size);
    f.keys(&[Action::FocusPrev]);
    assert_eq!(f.app.focus, Focus::Events);
    for _ in 0..200 {
        let here = shardtop::ui::panes::events::selected(&f.app).unwrap();
        if here.kind == LogKind::Error && here.text.starts_with("moveChunk ") {
            return f;
        }
        f.keys(&[Action::Up]);
    }
    panic!("no failed migration in the log:\n{}", f.draw().backend());
}

/// The text of the screen, its rows joined with their line breaks removed (a wrapped word is
/// found across rows).
fn flat(app: &App) -> String {
    let (w, h) = app.size;
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| shardtop::ui::render(f, app)).unwrap();
    let buffer = t.backend().buffer().clone();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_matches(|c| c == '│' || c == ' ')
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn enter_on_a_failed_migration_shows_the_error_whole_and_what_it_means() {
    for size in [(120, 40), (80, 24)] {
        let mut f = on_the_error(size);
        let cursor = format!("{}", f.draw().backend());
        assert!(cursor.contains('▶'), "the cursor is drawn:\n{cursor}");
        f.keys(&[Action::Open]);
        let d = f.app.detail.as_ref().expect("Enter opens the detail");
        let text = d.lines.join("\n");
        let errmsg = "Command request failed on source shard. :: caused by :: Data transfer \
            error: migrate failed: ExceededTimeLimit: Migration failed because the orphans \
            cleanup routine didn't clear yet a portion of the range being migrated that was \
            previously owned by the recipient shard.";
        assert!(text.contains(errmsg), "the error whole:\n{text}");
        assert!(text.contains("code     OperationFailed (96)"), "{text}");
        assert!(
            text.contains("what it means: orphans of the range are still on the recipient"),
            "{text}"
        );
        assert!(text.contains("migration_destination_manager.cpp"), "{text}");
        // The start and the error the line joins, each in the trace codec's JSON.
        assert!(text.contains("simulator event (1 of 2)"), "{text}");
        assert!(text.contains("\"what\": \"moveChunk.start\""), "{text}");
        assert!(text.contains("\"what\": \"moveChunk.error\""), "{text}");
        let (w, h) = size;
        assert_snapshot!(
            format!("detail_failed_migration_{w}x{h}"),
            format!("{}", f.draw().backend())
        );
        // Nothing cut: the message is on the screen whole once scrolled to it.
        let mut seen = flat(&f.app);
        for _ in 0..60 {
            f.keys(&[Action::Down]);
            seen.push_str(&flat(&f.app));
        }
        let words: Vec<&str> = errmsg.split(' ').collect();
        for w in &words {
            assert!(seen.contains(w), "{w:?} not shown");
        }
        assert!(!seen.contains('…'), "nothing is cut with …");
    }
}

#[test]
fn y_copies_it_arrows_scroll_it_esc_closes_it() {
    let mut f = on_the_error((80, 24));
    f.keys(&[Action::Open]);
    let effects = f.app.update(Action::Copy);
    let copied = effects.clipboard.expect("y copies");
    assert_eq!(copied, f.app.detail.as_ref().unwrap().lines.join("\n"));
    assert!(f.app.notice.as_deref().unwrap_or("").contains("OSC 52"));
    f.keys(&[Action::Page(false)]);
    let paged = f.app.detail.as_ref().unwrap().scroll;
    assert!(paged > 1, "PgDn scrolls a page: {paged}");
    f.keys(&[Action::Up]);
    assert_eq!(f.app.detail.as_ref().unwrap().scroll, paged - 1);
    for _ in 0..500 {
        f.keys(&[Action::Down]);
    }
    let (rows, page) = shardtop::ui::panes::detail::extent(&f.app);
    assert_eq!(
        f.app.detail.as_ref().unwrap().scroll,
        rows - page,
        "it stops at the end"
    );
    // Other keys do nothing while it is open; Esc closes it and the screen is back.
    f.keys(&[Action::ToggleMetric, Action::FocusNext]);
    assert_eq!(f.app.focus, Focus::Events);
    f.keys(&[Action::Escape]);
    assert!(f.app.detail.is_none());
    assert!(format!("{}", f.draw().backend()).contains("Events"));
}

#[test]
fn enter_on_the_balancer_pane_shows_the_why_whole() {
    let mut f = Fixture::new("zones-ip", 60_000, (80, 24));
    f.keys(&[Action::FocusNext]);
    assert_eq!(f.app.focus, Focus::Balancer);
    f.keys(&[Action::Open]);
    let d = f.app.detail.as_ref().expect("Enter opens the why");
    assert_eq!(d.title.trim(), "Balancer · why");
    let why = shardtop::ui::panes::balancer::why_text(f.app.view.as_ref().unwrap());
    assert_eq!(d.lines[0], format!("why: {why}"));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("Balancer · why"), "{text}");
    f.keys(&[Action::Open]);
    assert!(f.app.detail.is_none(), "Enter closes it too");
}

#[test]
fn enter_elsewhere_still_zooms_the_key_space() {
    let mut f = Fixture::new("ascending", 60_000, (100, 30));
    f.keys(&[Action::FocusNext, Action::FocusNext]);
    assert_eq!(f.app.focus, Focus::KeySpace);
    let span = f.app.span;
    f.keys(&[Action::Open]);
    assert!(f.app.detail.is_none());
    assert!(f.app.span < span, "Enter zooms in, as i does");
}

/// The lines of `manual` up to 80 s from the simulator and from its recorded trace: a failed
/// migration's line carries the same error and the same JSON documents from both, named after
/// their source.
#[test]
fn a_replay_shows_the_same_event_whole_as_the_simulator() {
    use shardtop::sim::{Simulator, scenario};
    use shardtop::source::Timeline;
    use shardtop::source::record::{record_sim, sim_header};
    use shardtop::source::replay::ReplayTimeline;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manual.ndjson");
    let sc = scenario::built_in("manual").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let header = sim_header(&sim, "sim:manual", "manual", sc.seed);
    record_sim(&mut sim, 80_000, &path, &header, |_, _| {}).unwrap();
    let mut replay = ReplayTimeline::open(&path).unwrap();
    let mut replayed = Vec::new();
    replay.advance_to(80_000, &mut replayed).unwrap();
    let f = Fixture::new("manual", 80_000, (120, 40));
    let failed = |lines: &mut dyn Iterator<Item = &shardtop::view::LogLine>| {
        let mut log = std::collections::VecDeque::new();
        for l in lines {
            shardtop::view::append_log(&mut log, l.clone());
        }
        log.into_iter()
            .rfind(|l| l.kind == LogKind::Error && l.text.starts_with("moveChunk "))
            .unwrap()
    };
    let from_sim = failed(&mut f.app.log.iter());
    let from_trace = failed(&mut replayed.iter());
    assert_eq!(from_sim.text, from_trace.text);
    let (a, b) = (
        from_sim.detail.as_ref().unwrap(),
        from_trace.detail.as_ref().unwrap(),
    );
    assert_eq!(a.error, b.error);
    assert!(b.error.as_ref().unwrap().cause().is_some());
    let json = |d: &shardtop::view::EventDetail| -> Vec<String> {
        d.documents.iter().map(|x| x.json.clone()).collect()
    };
    assert_eq!(json(a), json(b), "the trace codec's JSON, from both");
    assert_eq!(a.documents[0].origin, "simulator event");
    assert_eq!(b.documents[0].origin, "trace event");
}
