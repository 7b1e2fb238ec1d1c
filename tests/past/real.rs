//! The real published documents (tests/fixtures/clusters/PROVENANCE.md): the 8.0.32 cluster's
//! `moveChunk.commit` and `moveChunk.from` (each step's time), and the 4.4.1 cluster's
//! `multi-split` and `balancer.round` entries, read as the server wrote them.

use shardtop::past::story::Outcome;
use shardtop::past::{Diary, story};

fn logs(file: &str) -> (Vec<bson::Document>, Vec<bson::Document>) {
    let path = format!(
        "{}/tests/fixtures/clusters/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let docs = |k: &str| -> Vec<bson::Document> {
        v["config"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| match bson::Bson::try_from(d.clone()).unwrap() {
                bson::Bson::Document(d) => d,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    (docs("changelog"), docs("actionlog"))
}

#[test]
fn the_8_0_32_migrations_step_times_and_writes_paused() {
    let (changelog, actionlog) = logs("8.0.32-realrock.json");
    let s = story(&Diary::of(&changelog, &actionlog));
    // The commit of [MinKey, 3784) and the donor's entry of [37840, 41624): two migrations.
    assert_eq!(s.migrations.len(), 2);
    let commit = &s.migrations[0];
    assert_eq!(commit.outcome, Outcome::Committed);
    assert_eq!((commit.docs, commit.bytes), (Some(3784), Some(1_050_063)));
    assert_eq!((commit.from.as_str(), commit.to.as_str()), ("sh1", "sh2"));
    let from = &s.migrations[1];
    assert_eq!(from.steps_ms, Some([0, 2, 9, 104, 15, 54]));
    assert_eq!(from.total_ms(), Some(184));
    assert_eq!(from.writes_paused_ms(), Some(69));
    assert_eq!(from.outcome, Outcome::Committed);
}

#[test]
fn the_4_4_1_multi_split_counts_once_and_rounds_read() {
    let (changelog, actionlog) = logs("4.4.1-mongosh.json");
    let d = Diary::of(&changelog, &actionlog);
    assert_eq!(d.unreadable, 0);
    let s = story(&d);
    assert_eq!(s.splits.get("config.system.sessions"), Some(&1));
    assert_eq!(s.rounds.len(), 3);
    assert_eq!(
        s.rounds
            .iter()
            .map(|r| (r.millis, r.candidates, r.moved))
            .collect::<Vec<_>>(),
        vec![(495, 1, 1), (277, 1, 1), (93, 1, 1)]
    );
    assert!(s.rounds.iter().all(|r| r.error.is_none()));
}

/// serve's entries have the real ones' fields in the real order (serve adds `shardtop`, its
/// words), on the release line of the real documents.
#[test]
fn serves_entries_have_the_real_fields() {
    use shardtop::serve::{Diary as Log, diary_entries};
    use shardtop::sim::{Simulator, scenario};
    let keys = |d: &bson::Document| -> Vec<String> {
        d.keys().filter(|k| *k != "shardtop").cloned().collect()
    };
    let mut found = std::collections::BTreeMap::new();
    for (file, version) in [
        ("8.0.32-realrock.json", "8.0"),
        ("4.4.1-mongosh.json", "4.4"),
    ] {
        let (changelog, actionlog) = logs(file);
        let mut ours = Vec::new();
        for name in ["add-shard", "ascending", "manual", "hashed"] {
            let mut sc = scenario::built_in(name).unwrap().unwrap();
            sc.server_version = Some(version.to_string());
            let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
            while sim.now_ms() < 600_000 {
                for e in sim.take_events() {
                    ours.extend(diary_entries(&sim.cluster, 0, &e));
                }
                sim.step();
            }
        }
        for real in changelog.iter().chain(&actionlog) {
            let what = real.get_str("what").unwrap();
            if what == "addShard" {
                continue; // serve's shards are there from the start
            }
            let mine = ours
                .iter()
                .find(|(_, d)| d.get_str("what") == Ok(what))
                .unwrap_or_else(|| panic!("{file}: serve writes no {what}"));
            let real_details = real.get_document("details").unwrap();
            let my_details = mine.1.get_document("details").unwrap();
            // The versions (`lastmod`, `lastmodEpoch`) are not written (docs/fidelity.md).
            let strip = |v: Vec<String>| -> Vec<String> {
                v.into_iter()
                    .filter(|k| !k.starts_with("lastmod"))
                    .collect()
            };
            assert_eq!(
                strip(keys(my_details)),
                strip(keys(real_details)),
                "{file} {what}"
            );
            // The real entries' fields (some projected away by their authors) are serve's,
            // and serve's are those `ShardingLogging` writes (the `_id` is the capped log's).
            for k in real.keys().filter(|k| *k != "_id") {
                assert!(mine.1.contains_key(k), "{file} {what}: {k}");
            }
            let all = [
                "server",
                "shard",
                "clientAddr",
                "time",
                "what",
                "ns",
                "details",
            ];
            assert_eq!(
                keys(&mine.1),
                all.map(String::from).to_vec(),
                "{file} {what}"
            );
            found.insert(format!("{file} {what}"), matches!(mine.0, Log::Changelog));
        }
    }
    assert!(found.len() >= 5, "{found:?}");
}
