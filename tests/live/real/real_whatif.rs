//! `shardtop whatif` of the real-document mongos over `tests/fixtures/clusters/8.0.32-realrock.json`:
//! its `migrationRate` is what the real changelog gives. The file holds one `moveChunk.commit`
//! and one donor `moveChunk.from`, of different migrations: nothing pairs, so the rate stays the
//! simulator's, said as assumed with the counts. Given more migrations made from those entries
//! (the real commit's `counts` and the real donor's step times, scaled 1× to 4×, each at bounds of
//! its own), the rate is measured and its numbers said — of the mongos, of a capture of it and
//! of a recording of it. Only allowlisted commands are sent.

use bson::{Bson, Document, doc};
use serde_json::Value;

use super::helpers::shardtop;
use super::real_mongos::{self, ClusterFile};

fn fixture() -> ClusterFile {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clusters/8.0.32-realrock.json");
    ClusterFile::load(&path)
}

/// The `migrationRate`, `keyDistribution` and `writes` assumptions of a what-if of `source`:
/// how and note.
async fn assumed(source: &str) -> [(String, String); 3] {
    let out = shardtop(
        [
            "whatif",
            source,
            "--ns",
            "shop.orders",
            "--until",
            "1h",
            "--json",
        ]
        .map(String::from)
        .to_vec(),
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    ["migrationRate", "keyDistribution", "writes"].map(|what| {
        let a = (v["assumptions"].as_array().unwrap().iter())
            .find(|a| a["what"] == what)
            .unwrap();
        (
            a["how"].as_str().unwrap().to_string(),
            a["note"].as_str().unwrap().to_string(),
        )
    })
}

/// Every command the mongos received is an allowlisted read (or the driver's own).
fn read_only(mongos: &real_mongos::RealMongos) {
    let driver_own = ["isMaster", "ismaster", "hello", "endSessions", "ping"];
    for cmd in mongos.received.lock().unwrap().iter() {
        assert!(
            shardtop::live::client::ALLOWED.contains(&cmd.as_str())
                || driver_own.contains(&cmd.as_str()),
            "the what-if sent {cmd}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_changelog_pairs_no_migration_so_the_rate_is_assumed() {
    let mongos = real_mongos::start(fixture()).await;
    let [(how, note), keys, writes] = assumed(&mongos.uri).await;
    read_only(&mongos);
    // `customerId` bounds are Int32: the documents are spread over each chunk's range.
    assert_eq!(keys.0, "assumed");
    assert!(
        keys.1.starts_with("each chunk's documents spread evenly"),
        "{}",
        keys.1
    );
    // One poll: no growth to measure writes from.
    assert_eq!(writes.0, "assumed");
    assert!(writes.1.contains("a poll is one instant"), "{}", writes.1);
    assert_eq!(how, "assumed", "{note}");
    assert!(
        note.ends_with(
            "the changelog read holds 0 timed migrations (1 moveChunk.commit, 1 moveChunk.from \
             with step times), fewer than 3 to measure from"
        ),
        "{note}"
    );
}

/// `d` at `time` + `dt_ms`, its details changed by `edit`, its `_id` made its own.
fn made_from(d: &Document, k: i32, dt_ms: i64, edit: impl FnOnce(&mut Document)) -> Document {
    let mut e = d.clone();
    let mut det = d.get_document("details").unwrap().clone();
    det.insert("min", doc! {"customerId": 100_000 * k});
    det.insert("max", doc! {"customerId": 100_000 * k + 3784});
    edit(&mut det);
    e.insert("details", det);
    let t = d.get_datetime("time").unwrap().timestamp_millis() + dt_ms;
    e.insert("time", bson::DateTime::from_millis(t));
    let id = d.get_str("_id").unwrap_or("entry");
    e.insert("_id", format!("{id}-made-{k}"));
    e
}

fn scaled(v: &Bson, k: i32) -> Bson {
    match v {
        Bson::Int32(n) => Bson::Int32(n * k),
        Bson::Int64(n) => Bson::Int64(n * i64::from(k)),
        other => other.clone(),
    }
}

/// The real file with four migrations more, made from its real entries (the commit's bytes
/// and the donor's step times scaled 1× to 4×): 1,050,063 bytes per 184 ms of steps.
pub(super) fn four_migrations() -> ClusterFile {
    let mut file = fixture();
    let real = file.docs("changelog").to_vec();
    let find = |what: &str| {
        real.iter()
            .find(|d| d.get_str("what") == Ok(what))
            .unwrap()
            .clone()
    };
    let (commit, from) = (find("moveChunk.commit"), find("moveChunk.from"));
    let mut changelog = real.clone();
    for k in 1..=4 {
        let at = i64::from(k) * 60_000;
        changelog.push(made_from(&commit, k, at, |d| {
            let counts = d.get_document_mut("counts").unwrap();
            let bytes = counts.get("clonedBytes").unwrap().clone();
            counts.insert("clonedBytes", scaled(&bytes, k));
        }));
        let donor_at = commit.get_datetime("time").unwrap().timestamp_millis() + at + 300;
        let shift = donor_at - from.get_datetime("time").unwrap().timestamp_millis();
        changelog.push(made_from(&from, k, shift, |d| {
            for (field, v) in d.iter_mut() {
                if field.starts_with("step ") {
                    *v = scaled(v, k);
                }
            }
        }));
    }
    file.config.insert("changelog".into(), changelog);
    file
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_migrations_made_from_the_real_entries_give_a_measured_rate() {
    let mongos = real_mongos::start(four_migrations()).await;
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("realrock.capture").display().to_string();
    let out = shardtop(
        ["capture", &mongos.uri, "-o", &capture]
            .map(String::from)
            .to_vec(),
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    let trace = dir.path().join("realrock.trace");
    let out = super::helpers::record_2s(&mongos.uri, &trace).await;
    assert!(out.status.success(), "{out:?}");
    let trace = trace.display().to_string();
    for source in [mongos.uri.as_str(), &capture, &trace] {
        let [(how, note), _, _] = assumed(source).await;
        assert_eq!(how, "measured", "{source}: {note}");
        // 1,050,063 bytes per 184 ms of steps (0 + 2 + 9 + 104 + 15 + 54), times 1 to 4: no
        // fixed cost, 5,706,864 bytes/s; the median (upper) of 184, 368, 552, 736 ms.
        assert!(
            note.starts_with(
                "4 migrations in the changelog (a moveChunk.commit's clonedBytes paired with \
                 its donor's moveChunk.from step times), median 0.6 s, 5.4 MiB/s + 0.0 s each; \
                 cluster-wide"
            ),
            "{source}: {note}"
        );
    }
    read_only(&mongos);
}
