//! The TUI against every cluster of `tests/fixtures/clusters`: one poll through
//! [`super::real_mongos`] in process, at a fixed wall-clock time, drawn as `watch` draws its main
//! screen (shards, balancer, key space) on a 120x40 test backend — an insta snapshot per cluster
//! — and checked against the documents: the chunks each shard holds, the balancer's mode, an
//! inconsistent collection marked INCONSISTENT.

use std::collections::BTreeMap;
use std::time::Duration;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;
use shardtop::source::SourceEvent;
use shardtop::source::heat::SizeHeat;
use shardtop::source::live::HeatMode;
use shardtop::ui::App;
use shardtop::view::ClockView;

use super::real_clusters::{clusters, expected};
use super::real_mongos::{self, ClusterFile};

/// The poll's wall clock: 2026-12-03 09:00:00 UTC, after every document of the files.
const NOW_MS: u64 = 1_796_288_400_000;
const SIZE: (u16, u16) = (120, 40);

/// The collection shown: the first inconsistent one, else a user's (as `watch` opens), else the
/// first.
fn shown(state: &shardtop::cluster::Cluster) -> usize {
    (state.collections.iter())
        .position(|c| !c.inconsistencies.is_empty())
        .or_else(|| (state.collections.iter()).position(|c| !c.ns.starts_with("config.")))
        .unwrap_or(0)
}

/// The main screen after one poll of `file`, as `watch` (heat by growth, the default when the
/// cluster samples no queries) draws it, and the collection shown.
async fn screen(file: &ClusterFile) -> (String, String, Vec<String>, Vec<String>) {
    let mongos = real_mongos::start(file.clone()).await;
    let client = LiveClient::connect(&mongos.uri, Duration::from_secs(10))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    let log = poller.poll(NOW_MS).await.unwrap().log;
    let events: Vec<String> = (log.iter())
        .flat_map(|l| {
            let error = l.detail.as_ref().and_then(|d| d.error.as_ref());
            [Some(l.text.clone()), error.map(|e| e.errmsg.clone())]
        })
        .flatten()
        .collect();
    let state = poller.state();
    // Every chunk's bounds as the key space and `explain` write them (at most 50 a collection).
    let bounds = (state.collections.iter())
        .flat_map(|c| (c.table.iter().take(50)).map(|ch| state.bound_text(&c.ns, ch.min)));
    let events: Vec<String> = events.into_iter().chain(bounds).collect();
    let mut app = App::new(SIZE, true, 1.0, false);
    app.collection = shown(state);
    app.apply(SourceEvent::Log {
        reset: true,
        lines: log,
    });
    let clock = ClockView {
        time_ms: state.now_ms,
        paused: false,
        speed: 1.0,
        end_ms: None,
        virtual_time: false,
        wall_start_ms: None,
    };
    // The label is the mongos's address; the test's port changes at every run.
    let mut v = shardtop::view::build(state, &app.request(), "mongos.example.net:27017", clock);
    v.heat = Some(HeatMode::Size.label());
    v.refused = poller.refused().to_vec();
    let mut heat = SizeHeat::default();
    heat.observe(state);
    let ns = v
        .collection
        .as_ref()
        .map(|c| c.ns.clone())
        .unwrap_or_default();
    heat.fill(&ns, &mut v.shards);
    let ids: Vec<String> = v.shards.iter().map(|r| r.id.clone()).collect();
    app.apply(SourceEvent::View(Box::new(v)));
    let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).unwrap();
    terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
    let unknown = mongos.unknown.lock().unwrap().clone();
    assert!(unknown.is_empty(), "{}: {unknown:#?}", file.name);
    (format!("{}", terminal.backend()), ns, ids, events)
}

/// balancerStatus's `mode` as the balancer pane words it.
fn balancer_words(file: &ClusterFile) -> &'static str {
    let status = file.replies.get_document("balancerStatus").unwrap();
    match status.get_str("mode").unwrap() {
        "full" => "mode on (full)",
        "autoSplitOnly" => "mode autoSplitOnly: never migrates",
        "off" => "mode STOPPED (off)",
        other => panic!("{}: balancerStatus mode {other}", file.name),
    }
}

/// The balancer pane's count of completed migrations: `moveChunk.commit` entries of
/// `config.changelog`, or the `chunksMoved` of `config.actionlog`'s rounds when more.
fn moved_words(file: &ClusterFile) -> String {
    let commits = (file.docs("changelog").iter())
        .filter(|d| d.get_str("what") == Ok("moveChunk.commit"))
        .count() as i64;
    let rounds: i64 = (file.docs("actionlog").iter())
        .filter(|d| d.get_str("what") == Ok("balancer.round"))
        .filter_map(|d| d.get_document("details").ok())
        .map(|d| match d.get("chunksMoved") {
            Some(bson::Bson::Int32(n)) => i64::from(*n),
            Some(bson::Bson::Int64(n)) => *n,
            _ => 0,
        })
        .sum();
    if rounds > commits {
        format!("moved {rounds} (actionlog)")
    } else {
        format!("moved {commits} (changelog)")
    }
}

/// What the balancer of a server of version string `version` evens, as the balancer pane words
/// it: chunk counts before 6.0.3, data size from 6.0.3 (a vendor suffix like `-22` is ignored).
fn policy_words(version: &str) -> &'static str {
    let numeric = version.split(['-', '+']).next().unwrap();
    let parts: Vec<u32> = numeric.split('.').map(|p| p.parse().unwrap()).collect();
    if parts[..] >= [6, 0, 3][..] {
        "evens data size"
    } else {
        "evens chunk count"
    }
}

/// The chunks of `ns` on each shard, counted from `config.chunks` (by `uuid` when the
/// collection document has a `timestamp`, 5.0+, else by `ns`); an untracked collection (named
/// only by `$listClusterCatalog`) is shown as one range on the shard the stage names.
fn chunks_by_shard(file: &ClusterFile, ns: &str) -> BTreeMap<String, u64> {
    let Some(coll) = (file.docs("collections").iter()).find(|c| c.get_str("_id") == Ok(ns)) else {
        let buckets = ns.replacen('.', ".system.buckets.", 1);
        let entry = (file.replies.get_array("listClusterCatalog").unwrap().iter())
            .filter_map(bson::Bson::as_document)
            .find(|d| [ns, buckets.as_str()].contains(&d.get_str("ns").unwrap()))
            .unwrap();
        let shard = entry.get_array("shards").unwrap()[0].as_str().unwrap();
        return BTreeMap::from([(shard.to_string(), 1)]);
    };
    let by_uuid = coll.get("timestamp").is_some();
    let mut out = BTreeMap::new();
    for c in file.docs("chunks") {
        let mine = if by_uuid {
            c.get("uuid") == coll.get("uuid")
        } else {
            c.get_str("ns") == Ok(ns)
        };
        if mine {
            *out.entry(c.get_str("shard").unwrap().to_string())
                .or_default() += 1;
        }
    }
    out
}

/// The shards pane's rows: `(row number, name as shown, chunks, the row's words)`.
fn shard_rows(text: &str) -> Vec<(usize, String, u64, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim_matches('"');
        if line.starts_with("╭ Shards") {
            inside = true;
            continue;
        }
        if inside && line.starts_with('╰') {
            break;
        }
        // The row cursor's ▶ after the swatch reads as the space it takes.
        let line = line.replacen('▶', " ", 1);
        let left = line
            .split("││")
            .next()
            .unwrap_or("")
            .trim_start_matches('│');
        let mut words = left.split_whitespace();
        let (Some(Ok(i)), Some(name)) = (words.next().map(str::parse::<usize>), words.next())
        else {
            continue;
        };
        let chunks = words
            .find_map(|w| w.trim_end_matches('J').parse::<u64>().ok())
            .unwrap();
        out.push((i, name.to_string(), chunks, left.to_string()));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_main_screen_of_every_real_cluster_says_what_its_documents_say() {
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let (text, ns, ids, _) = screen(&file).await;
        let stem = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('.', "_");
        assert_snapshot!(format!("real_screen_{stem}"), text);
        assert!(text.contains(&format!("Shards · {ns} ")), "{name}:\n{text}");
        // Each shard's chunks of the collection shown, as config.chunks counts them.
        let counted = chunks_by_shard(&file, &ns);
        let rows = shard_rows(&text);
        assert_eq!(rows.len(), ids.len(), "{name}:\n{text}");
        let listed: Vec<&str> = (file.docs("shards").iter())
            .map(|d| d.get_str("_id").unwrap())
            .collect();
        for (i, shown, chunks, words) in &rows {
            let id = &ids[*i];
            assert!(
                id == shown || (shown.contains('…') && shown.chars().count() < id.chars().count()),
                "{name}: row {i} names {shown} for {id}"
            );
            let want = counted.get(id).copied().unwrap_or(0);
            assert_eq!(*chunks, want, "{name}: {ns} chunks on {id}:\n{text}");
            // One poll measures no growth: unknown, never "0%".
            assert!(words.contains("unknown"), "{name}: {id}: {words}");
            // A shard named by chunks but not in config.shards says so.
            assert_eq!(
                words.contains("GHOST"),
                !listed.contains(&id.as_str()),
                "{name}: {id}: {words}"
            );
        }
        for id in counted.keys() {
            assert!(ids.contains(id), "{name}: shard {id} of {ns} not shown");
        }
        // A collection with no chunk is said in the shards pane; the rest is shown.
        let missing = expected(&file).values().any(|e| e.chunks.is_empty());
        assert_eq!(
            text.contains("INCONSISTENT: MissingRoutingTable"),
            missing,
            "{name}:\n{text}"
        );
        // The balancer's mode, as balancerStatus answers it.
        assert!(text.contains(balancer_words(&file)), "{name}:\n{text}");
        // Migrations completed, and the log that says so: the actionlog's rounds when they say
        // more than the changelog's commits (the 4.4.1 file: rounds moved 3, changelog kept 0).
        assert!(text.contains(&moved_words(&file)), "{name}:\n{text}");
        // What the balancer evens, from the full version string: data size from 6.0.3.
        assert!(
            text.contains(policy_words(&file.version)),
            "{name}:\n{text}"
        );
        let kinds = expected(&file)
            .get(&ns)
            .map(|e| e.inconsistencies.clone())
            .unwrap_or_default();
        // An inconsistent collection is marked in its key space's title, in
        // checkMetadataConsistency's words; a consistent one is not.
        let title = (text.lines()).find(|l| l.contains("╭ Key space")).unwrap();
        match kinds.first() {
            Some(kind) => assert!(
                title.contains(&format!("INCONSISTENT: {kind}")),
                "{name}:\n{text}"
            ),
            None => assert!(!title.contains("INCONSISTENT"), "{name}:\n{text}"),
        }
    }
}

/// What a Rust value's debug form or a driver type's own `Display` looks like — never what a
/// user should read: `Some(…)`, `None`, a `bson` variant name, an escaped quote.
const DEBUG_FORMS: [&str; 10] = [
    "Some(",
    "None",
    "Binary(",
    "Int32(",
    "Int64(",
    "Document(",
    "Array(",
    "String(",
    "Timestamp(",
    "\\\"",
];

/// No screen, event line or chunk bound of any real cluster shows debug formatting: values are in
/// mongosh's words (`UUID("…")`, `Timestamp({ t: …, i: … })`), never `Binary(0x4, …)`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_screen_or_event_of_a_real_cluster_shows_debug_formatting() {
    let (mut lines, mut uuids) = (0, 0);
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let (text, _, _, events) = screen(&file).await;
        lines += events.len();
        uuids += (events.iter()).filter(|e| e.contains("UUID(\"")).count();
        for shown in std::iter::once(&text).chain(&events) {
            for form in DEBUG_FORMS {
                assert!(!shown.contains(form), "{}: {form} in\n{shown}", file.name);
            }
        }
    }
    assert!(lines > 10, "{lines} event lines");
    assert!(
        uuids > 0,
        "no bound is a UUID: the 4.4 sessions ranges are not read"
    );
}
