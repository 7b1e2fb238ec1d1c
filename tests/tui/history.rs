#![allow(clippy::unwrap_used)]
//! The history view (`H`): per shard, data, chunks and write share over time; a drain's
//! progress with an estimated end from the observed rate; a resharding's progress; the time
//! zoom; snapshots at 100×30 (drain) and 120×40 (reshard); Esc goes back.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::ui::Action;
use shardtop::ui::screen::Screen;
use shardtop::view::history::HistoryView;

fn shown(name: &str, t_ms: u64, size: (u16, u16)) -> Fixture {
    let mut f = Fixture::new(name, t_ms, size);
    f.keys(&[Action::ToggleHistory]);
    f
}

fn history(f: &Fixture) -> HistoryView {
    f.app.view.as_ref().unwrap().history.clone().unwrap()
}

#[test]
fn a_drain_shows_its_progress_and_an_estimated_end_from_the_observed_rate() {
    let f = shown("drain", 40_000, (100, 30));
    let h = history(&f);
    let drain = h
        .progress
        .iter()
        .find(|p| p.what == "draining shard0003")
        .unwrap();
    assert!(drain.done > 0.0 && drain.done < 1.0, "{drain:?}");
    // The estimate is the diagnosis's, word for word, as the balancer pane says it.
    let v = f.app.view.as_ref().unwrap();
    let estimate = v.drain_estimates.first().unwrap();
    let eta = estimate.split(" left · ").nth(1).unwrap();
    assert!(
        drain
            .detail
            .contains("chunks/min over the last minute · drained at")
            && drain.detail.ends_with(eta),
        "{} / {estimate}",
        drain.detail
    );
    // Done never goes down while the shard drains.
    let trend: Vec<f64> = drain.trend.iter().flatten().copied().collect();
    assert!(trend.windows(2).all(|w| w[0] <= w[1]), "{trend:?}");
    assert!(trend.first() < trend.last(), "{trend:?}");
    // The draining shard's chunks fall; another's rise.
    let chunks = |id: &str| -> Vec<u64> {
        let s = h.shards.iter().find(|s| s.id == id).unwrap();
        s.chunks.iter().flatten().copied().collect()
    };
    let (d, other) = (chunks("shard0003"), chunks("shard0000"));
    assert!(d.first() > d.last(), "{d:?}");
    assert!(other.first() < other.last(), "{other:?}");
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("draining shard0003"), "{text}");
    assert!(text.contains("data per shard"), "{text}");
    assert_snapshot!("history_drain_100x30", text);
}

#[test]
fn a_drain_held_by_a_jumbo_chunk_is_blocked_and_ends_when_the_simulator_ends_it() {
    // The drain scenario's last chunk is jumbo: it stays until the scenario forces it off, and
    // the simulator, playing the state forward with its schedule, says when.
    let f = shown("drain", 160_000, (100, 30));
    let v = f.app.view.as_ref().unwrap();
    let d = v.diagnosis.as_ref().unwrap();
    assert_eq!((d.status, d.rule_name), ("blocked", "jumbo"), "{d:?}");
    let h = history(&f);
    let drain = h
        .progress
        .iter()
        .find(|p| p.what.starts_with("draining"))
        .unwrap();
    // When the simulator itself drains the shard.
    let sc = shardtop::sim::scenario::built_in("drain").unwrap().unwrap();
    let mut sim = shardtop::sim::Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(160_000);
    let shard = sim.cluster.shard_index("shard0003").unwrap();
    while sim.owned_chunks(shard).0 > 0 {
        sim.step();
    }
    let at = shardtop::units::clock_time(sim.now_ms(), false);
    assert!(
        drain.detail.contains(&format!("drained at {at} (")) && drain.detail.contains("simulated"),
        "{} (the simulator drained it at {at})",
        drain.detail
    );
}

#[test]
fn a_resharding_shows_the_clone_progress_over_time() {
    let f = shown("reshard", 200_000, (120, 40));
    let h = history(&f);
    let r = h
        .progress
        .iter()
        .find(|p| p.what == "reshardCollection shop.orders")
        .unwrap();
    assert!(r.done > 0.0 && r.done < 1.0, "{r:?}");
    assert!(r.detail.contains("to the critical section"), "{}", r.detail);
    let trend: Vec<f64> = r.trend.iter().flatten().copied().collect();
    assert!(
        trend.len() > 10 && trend.windows(2).all(|w| w[0] <= w[1]),
        "{trend:?}"
    );
    // Every shard takes writes: the shares of a column sum to one.
    let now = h.now_col;
    let total: f64 = h.shards.iter().filter_map(|s| s.shares[now - 1]).sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    assert_snapshot!("history_reshard_120x40", format!("{}", f.draw().backend()));
}

#[test]
fn time_zoom_widens_the_columns_and_esc_goes_back() {
    let mut f = shown("ascending", 90_000, (100, 30));
    assert_eq!(history(&f).secs_per_col, 1);
    f.keys(&[Action::TimeZoom(false), Action::TimeZoom(false)]);
    let h = history(&f);
    assert_eq!(h.secs_per_col, 4);
    assert_eq!(h.to_ms - h.from_ms, 4_000 * h.shards[0].bytes.len() as u64);
    f.keys(&[Action::ZoomReset]);
    assert_eq!(history(&f).secs_per_col, 1);
    f.keys(&[Action::Escape]);
    assert_eq!(f.app.screen, Screen::Main);
    assert!(f.app.view.as_ref().unwrap().history.is_none());
    f.keys(&[Action::ToggleHistory, Action::ToggleHistory]);
    assert_eq!(f.app.screen, Screen::Main, "H again goes back");
}

#[test]
fn the_history_keeps_only_the_length_asked_for() {
    use shardtop::source::Timeline;
    let sc = shardtop::sim::scenario::built_in("ascending")
        .unwrap()
        .unwrap();
    let mut t = shardtop::source::sim::SimTimeline::new(&sc, sc.seed, None).unwrap();
    t.keep_past(120);
    t.advance_to(200_000, &mut Vec::new()).unwrap();
    let req = shardtop::view::ViewRequest {
        history: Some(shardtop::view::history::HistoryRequest {
            cols: 300,
            secs_per_col: 1,
        }),
        ..Default::default()
    };
    let v = t.view(&req, shardtop::view::ClockView::default(), None);
    let h = v.history.unwrap();
    let first = h.shards[0].bytes.iter().position(Option::is_some).unwrap();
    let last = h.shards[0].bytes.iter().rposition(Option::is_some).unwrap();
    assert!((119..=121).contains(&(last - first + 1)), "{first}..{last}");
    assert!(h.from_ms + first as u64 * 1000 >= 79_000, "{first}");
}
