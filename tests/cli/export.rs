#![allow(clippy::unwrap_used)]
//! Exports of the TUI's screen as the binary writes them, each parsed back: text with the hot
//! shard, SVG as XML with the shard names, PNG decoded at its size, an asciicast's header and
//! frames; a replay's screen at a time; `s` in the TUI (tmux) saving the screen, never over an
//! earlier save.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::tmux::{BIN, START, Tmux};

fn export(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_screen_exports_as_text_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let (code, said, err) = export(&[
        "sim",
        "ascending",
        "--until",
        "60",
        "--export",
        &path("s.txt"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("the screen at 60.0 s, 120×40"), "{said}");
    let text = std::fs::read_to_string(path("s.txt")).unwrap();
    assert!(
        text.contains("◀ HOT") && text.contains("1m00s / 5m00s"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 40);

    let (code, _, err) = export(&[
        "sim",
        "ascending",
        "--export",
        &path("s.svg"),
        "--size",
        "100x30",
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(path("s.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("840"));
    let words: String = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for shard in ["shard0000", "shard0001", "shard0002"] {
        assert!(words.contains(shard), "{shard} not in the SVG");
    }

    let (code, _, err) = export(&[
        "sim",
        "hashed",
        "--export",
        &path("s.png"),
        "--size",
        "80x24",
    ]);
    assert_eq!(code, 0, "{err}");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path("s.png")).unwrap(),
    ));
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!(
        (info.width, info.height),
        (1344, 816),
        "80×24 cells of 8.4×17, at 2×"
    );
}

#[test]
fn a_run_exports_as_an_asciicast_and_a_replay_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let cast = dir.path().join("run.cast").display().to_string();
    let (code, said, err) = export(&[
        "sim", "hashed", "--until", "20", "--export", &cast, "--size", "80x24",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("frames"), "{said}");
    let text = std::fs::read_to_string(&cast).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!(
        (header["width"].as_u64(), header["height"].as_u64()),
        (Some(80), Some(24))
    );
    let frames: Vec<serde_json::Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(frames.len() >= 10, "{} frames", frames.len());
    let times: Vec<f64> = frames.iter().map(|f| f[0].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    assert!(
        (times.last().unwrap() - 5.0).abs() < 1e-9,
        "20 s at ×4: {times:?}"
    );
    assert!(frames.iter().all(|f| f[1] == "o"));
    assert!(frames[0][2].as_str().unwrap().starts_with("\u{1b}[H"));

    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/traces/ascending.ndjson.zst"
    );
    let txt = dir.path().join("at.txt").display().to_string();
    let (code, said, err) = export(&["replay", trace, "--export", &txt, "--at", "30"]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("the screen at 30.0 s"), "{said}");
    assert!(std::fs::read_to_string(&txt).unwrap().contains("30.0s"));
}

#[test]
fn bad_exports_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let jpg = dir.path().join("s.jpg").display().to_string();
    let (code, _, err) = export(&["sim", "ascending", "--export", &jpg]);
    assert_eq!(code, 2);
    assert!(
        err.contains("name a .txt, .ansi, .svg, .png or .cast file"),
        "{err}"
    );
    let svg = dir.path().join("s.svg").display().to_string();
    let (code, _, err) = export(&["sim", "ascending", "--export", &svg, "--size", "20x5"]);
    assert_eq!(code, 2);
    assert!(err.contains("--size \"20x5\": give COLSxROWS"), "{err}");
    let png = dir.path().join("s.png").display().to_string();
    let (code, _, err) = export(&["sim", "ascending", "--export", &png, "--size", "1000x500"]);
    assert_eq!(code, 2);
    assert!(err.contains("a PNG is at most 300x100 cells"), "{err}");
    let (code, _, _) = export(&["sim", "ascending", "--size", "80x24"]);
    assert_eq!(code, 2, "--size needs --export");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn s_in_the_tui_saves_the_screen_here_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tmux::start_in(dir.path(), "demo --paused", 100, 30);
    t.wait_for("shard0000", START);
    t.keys("s");
    let screen = t.wait_for("screen saved: shardtop-", Duration::from_secs(5));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let ext = |n: &String, e: &str| std::path::Path::new(n).extension() == Some(e.as_ref());
    let txt = names.iter().find(|n| ext(n, "txt")).unwrap();
    assert!(names.iter().any(|n| ext(n, "svg")), "{names:?}");
    assert!(
        screen.contains(txt.as_str()),
        "the notice names the file:\n{screen}"
    );
    let saved = std::fs::read_to_string(dir.path().join(txt)).unwrap();
    assert!(
        saved.contains("shard0000") && saved.contains("Balancer"),
        "{saved}"
    );
    // Two more presses within a second: each saves its own files, none overwritten.
    t.keys("s");
    t.keys("s");
    let count = || std::fs::read_dir(dir.path()).unwrap().count();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while count() < 6 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(count(), 6, "three saves, six files");
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(10));
}

#[test]
fn the_key_visualizer_and_the_history_export_as_screens() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let (code, _, err) = export(&[
        "sim",
        "ascending",
        "--until",
        "90",
        "--export",
        &path("k.txt"),
        "--view",
        "heatmap",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(path("k.txt")).unwrap();
    assert!(
        text.contains("Key visualizer · app.events") && text.contains("█"),
        "{text}"
    );
    let (code, _, err) = export(&[
        "sim",
        "drain",
        "--until",
        "40",
        "--export",
        &path("h.svg"),
        "--view",
        "history",
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(path("h.svg")).unwrap();
    assert!(
        svg.contains("History") && svg.contains("draining shard0003"),
        "{svg}"
    );
    let (code, _, err) = export(&[
        "sim",
        "ascending",
        "--export",
        &path("x.txt"),
        "--view",
        "chart",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("possible values: main, heatmap, history"),
        "{err}"
    );
    let (code, _, _) = export(&["sim", "ascending", "--view", "history"]);
    assert_eq!(code, 2, "--view needs --export");
}

#[test]
fn the_history_length_comes_from_the_configuration_and_a_bad_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("c.toml");
    let out = dir.path().join("h.txt").display().to_string();
    std::fs::write(&conf, "\nhistory = \"10s\"\n").unwrap();
    let c = conf.display().to_string();
    let (code, _, err) = export(&[
        "--config",
        &c,
        "sim",
        "ascending",
        "--export",
        &out,
        "--view",
        "history",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("line 2, key `history`: \"10s\" is outside 1m to 24h"),
        "{err}"
    );
    // Past a year too, the history's own limit is said, not a year's.
    std::fs::write(&conf, "\nhistory = \"100000h\"\n").unwrap();
    let (code, _, err) = export(&[
        "--config",
        &c,
        "sim",
        "ascending",
        "--export",
        &out,
        "--view",
        "history",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("line 2, key `history`: \"100000h\" is outside 1m to 24h")
            && !err.contains("year"),
        "{err}"
    );
    std::fs::write(&conf, "history = \"2m\"\n").unwrap();
    let (code, _, err) = export(&[
        "--config",
        &c,
        "sim",
        "ascending",
        "--until",
        "200",
        "--export",
        &out,
        "--view",
        "history",
        "--size",
        "300x30",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("History · app.events")
    );
}

#[test]
fn a_trace_whose_end_marker_says_30_days_exports_a_bounded_asciicast_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.ndjson");
    let t = trace.display().to_string();
    let (code, _, err) = export(&["sim", "ascending", "--until", "10", "--record", &t]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let text = text.replace("{\"end\":10.0}", "{\"end\":2592000.0}");
    std::fs::write(&trace, text).unwrap();
    let cast = dir.path().join("long.cast").display().to_string();
    let began = std::time::Instant::now();
    let (code, said, err) = export(&["replay", &t, "--export", &cast, "--size", "60x16"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        said.contains("one frame per 2160 s: the run is longer than 1200 s"),
        "{said}"
    );
    let frames = std::fs::read_to_string(&cast).unwrap().lines().count() - 1;
    assert!((1..=1_201).contains(&frames), "{frames} frames");
    eprintln!("30 days as .cast: {frames} frames in {:?}", began.elapsed());
}
