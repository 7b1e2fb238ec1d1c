//! What the shards pane and the key space say about recent writes: growth (`--heat size`) is
//! called growth and never HOT, a quiet window says so, a hotspot is marked.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::source::SourceEvent;
use shardtop::ui::App;
use shardtop::view::{ClusterView, CollectionView, HotChunk, ShardRow};

fn screen(v: ClusterView) -> String {
    let mut app = App::new((100, 30), false, 1.0, true);
    app.apply(SourceEvent::View(Box::new(v)));
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
    format!("{}", terminal.backend())
}

fn view(heat: Option<&'static str>, shares: [f64; 3], hot: Option<usize>) -> ClusterView {
    ClusterView {
        heat,
        shards: (0..3)
            .map(|i| ShardRow {
                id: format!("shard000{i}"),
                chunks: 2,
                write_share: shares[i],
                hot: hot == Some(i),
                ..ShardRow::default()
            })
            .collect(),
        collection: Some(CollectionView {
            ns: "app.c".into(),
            chunks: 6,
            ..CollectionView::default()
        }),
        ..ClusterView::default()
    }
}

#[test]
fn growth_is_called_growth_and_never_hot() {
    // A drain's recipient: all the growth, no insert.
    let text = screen(view(Some("size"), [0.0, 1.0, 0.0], None));
    assert!(text.contains("growth"), "{text}");
    assert!(!text.contains("HOT"), "{text}");
    assert!(!text.contains("no writes in the last"), "{text}");
    assert!(
        text.contains("writes per chunk unknown (--heat size)"),
        "{text}"
    );
}

#[test]
fn a_quiet_window_says_so_and_a_hotspot_is_marked() {
    let text = screen(view(None, [0.0; 3], None));
    assert!(text.contains("no writes in the last 60 s"), "{text}");
    assert!(!text.contains("HOT"), "{text}");
    let text = screen(view(Some("sampled"), [0.0; 3], None));
    assert!(
        text.contains("no sampled queries in the last 60 s"),
        "{text}"
    );
    let mut v = view(None, [0.1, 0.8, 0.1], Some(1));
    if let Some(c) = v.collection.as_mut() {
        c.recent_writes = 1_000;
        c.hot = Some(HotChunk {
            ordinal: 3,
            shard: "shard0001".into(),
            share: 0.8,
            range: "[{x: 1}, {x: 2})".into(),
            hot: true,
        });
    }
    let text = screen(v.clone());
    assert!(
        text.contains("◀ HOT") && text.contains("▲ hottest chunk"),
        "{text}"
    );
    assert!(!text.contains("no writes in the last"), "{text}");
    // The most written, not a hotspot: named, not marked.
    if let Some(h) = v.collection.as_mut().and_then(|c| c.hot.as_mut()) {
        h.hot = false;
    }
    v.shards[1].hot = false;
    let text = screen(v);
    assert!(!text.contains("HOT") && !text.contains('▲'), "{text}");
    assert!(text.contains("most-written chunk"), "{text}");
}

/// A live view whose polls fail: the last poll's hotspot is not claimed as current, in any heat
/// mode; the shards pane and the key space say the writes are unknown since the disconnection.
#[test]
fn a_disconnected_live_view_claims_no_current_hotspot() {
    for heat in [Some("changestream"), Some("sampled"), Some("size")] {
        let mut v = view(heat, [0.1, 0.8, 0.1], Some(1));
        if let Some(c) = v.collection.as_mut() {
            c.recent_writes = 1_000;
            c.hot = Some(HotChunk {
                ordinal: 3,
                shard: "shard0001".into(),
                share: 0.8,
                range: "[{x: 1}, {x: 2})".into(),
                hot: true,
            });
        }
        let connected = screen(v.clone());
        if heat != Some("size") {
            assert!(connected.contains("◀ HOT"), "{connected}");
        }
        // 03:00:05 UTC.
        v.disconnected(Some(3 * 3_600_000 + 5_000));
        let text = screen(v);
        assert!(!text.contains("HOT") && !text.contains('▲'), "{text}");
        assert!(!text.contains("80%"), "{text}");
        assert!(!text.contains("no writes in the last"), "{text}");
        let word = if heat == Some("size") {
            "growth"
        } else {
            "writes"
        };
        assert!(
            text.contains(&format!(
                "{word} unknown since the disconnection at 03:00:05 UTC"
            )),
            "{text}"
        );
        assert!(text.contains("disconnected since 03:00:05 UTC"), "{text}");
    }
}
