#![allow(clippy::unwrap_used)]
use super::*;
use bson::doc;

const MIB: u64 = 1 << 20;

/// The changelog of `tests/fixtures/clusters/8.0.32-realrock.json` (a real 8.0.32 cluster's): a
/// `moveChunk.commit` of `[MinKey, 3784)` and the donor's `moveChunk.from` of `[37840, 41624)`.
fn real_changelog() -> Vec<Document> {
    let text = include_str!("../../../tests/fixtures/clusters/8.0.32-realrock.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    (v["config"]["changelog"].as_array().unwrap().iter())
        .map(|d| match Bson::try_from(d.clone()).unwrap() {
            Bson::Document(d) => d,
            other => panic!("{other}"),
        })
        .collect()
}

fn find<'a>(log: &'a [Document], what: &str) -> &'a Document {
    log.iter().find(|d| d.get_str("what") == Ok(what)).unwrap()
}

/// `d` at `time` + `dt` ms, its bounds `min`/`max` of `[lo, hi)` (`customerId`).
fn moved(d: &Document, dt: i64, lo: i32, hi: i32) -> Document {
    let mut e = d.clone();
    let mut det = d.get_document("details").unwrap().clone();
    det.insert("min", doc! {"customerId": lo});
    det.insert("max", doc! {"customerId": hi});
    e.insert("details", det);
    let t = d.get_datetime("time").unwrap().timestamp_millis() + dt;
    e.insert("time", bson::DateTime::from_millis(t));
    e
}

#[test]
fn the_real_changelog_holds_a_commit_and_a_donor_entry_of_different_migrations() {
    let log = real_changelog();
    let m = migrations(&log);
    assert_eq!((m.commits, m.timed), (1, 1));
    assert!(m.samples.is_empty(), "{m:?}");
    assert_eq!(fit(&m.samples, 32 * MIB), None);
}

#[test]
fn a_donor_entry_of_the_same_migration_pairs_with_its_commit() {
    let log = real_changelog();
    let (commit, from) = (find(&log, "moveChunk.commit"), find(&log, "moveChunk.from"));
    let cd = commit.get_document("details").unwrap();
    // The real donor's steps (0 + 2 + 9 + 104 + 15 + 54 ms), logged 300 ms after the real
    // commit with its bounds.
    let mut donor = from.clone();
    let mut det = from.get_document("details").unwrap().clone();
    det.insert("min", cd.get("min").unwrap().clone());
    det.insert("max", cd.get("max").unwrap().clone());
    donor.insert("details", det);
    let t = commit.get_datetime("time").unwrap().timestamp_millis() + 300;
    donor.insert("time", bson::DateTime::from_millis(t));
    let m = migrations([commit, &donor]);
    assert_eq!(
        m.samples,
        [Sample {
            donor: "sh1".into(),
            bytes: 1_050_063,
            ms: 184
        }]
    );
    // Another range, another donor, or a commit long before the steps: not paired.
    let other = moved(&donor, 0, 1, 2);
    let mut elsewhere = donor.clone();
    let mut det = donor.get_document("details").unwrap().clone();
    det.insert("from", "sh3");
    elsewhere.insert("details", det);
    let mut late = donor.clone();
    late.insert("time", bson::DateTime::from_millis(t + 60_000));
    for d in [other, elsewhere, late] {
        let m = migrations([commit, &d]);
        assert_eq!((m.commits, m.timed, m.samples.len()), (1, 1, 0), "{d}");
    }
    // An aborted donor entry is no measure of a migration.
    let mut aborted = donor.clone();
    let mut det = donor.get_document("details").unwrap().clone();
    det.insert("note", "aborted");
    aborted.insert("details", det);
    assert_eq!(migrations([commit, &aborted]).timed, 0);
}

/// A migration's entry of `d.c` `[{k: lo}, {k: lo + 10})` from `a` to `b`, at `t` ms.
fn entry(what: &str, t: i64, lo: i32, more: Document) -> Document {
    let mut details = doc! {"min": {"k": lo}, "max": {"k": lo + 10}, "from": "a", "to": "b"};
    details.extend(more);
    doc! {"what": what, "ns": "d.c", "time": bson::DateTime::from_millis(t), "details": details}
}

#[test]
fn the_same_range_moved_twice_pairs_each_commit_with_its_own_donor_entry() {
    let commit = |t, bytes: i64| {
        entry(
            "moveChunk.commit",
            t,
            0,
            doc! {"counts": {"cloned": 1_i64, "clonedBytes": bytes}},
        )
    };
    let from = |t, ms: i32| {
        entry(
            "moveChunk.from",
            t,
            0,
            doc! {"step 1 of 2": 1, "step 2 of 2": ms - 1, "note": "success"},
        )
    };
    let log = [
        from(120_600, 500),
        commit(0, 1_000_000),
        commit(120_000, 2_000_000),
        from(500, 400),
        // Another migration's donor entry, of another range.
        entry(
            "moveChunk.from",
            700,
            20,
            doc! {"step 1 of 1": 9, "note": "success"},
        ),
    ];
    let m = migrations(&log);
    assert_eq!((m.commits, m.timed), (2, 3));
    let got: Vec<(u64, u64)> = m.samples.iter().map(|s| (s.bytes, s.ms)).collect();
    assert_eq!(got, [(1_000_000, 400), (2_000_000, 500)]);
}

#[test]
fn a_fit_finds_the_cost_model_the_samples_were_made_with() {
    // 800 ms + bytes at 41 MiB/s, sizes from 64 KiB to 128 MiB.
    let rate = 41 * MIB;
    let samples: Vec<Sample> = (0..12u64)
        .map(|i| {
            let bytes = (64 << 10) << i;
            Sample {
                donor: "a".into(),
                bytes,
                ms: 800 + bytes * 1000 / rate,
            }
        })
        .collect();
    let f = fit(&samples, 32 * MIB).unwrap();
    assert!(f.rate_measured);
    assert!(f.overhead_ms.abs_diff(800) <= 1, "{f:?}");
    assert!(f.bytes_per_sec.abs_diff(rate) < rate / 1000, "{f:?}");
    let mut ms: Vec<u64> = samples.iter().map(|s| s.ms).collect();
    ms.sort_unstable();
    assert_eq!(f.median_ms, ms[6]);
    assert_eq!(
        fit(&samples[..2], 32 * MIB),
        None,
        "two samples are too few"
    );
}

#[test]
fn a_fit_with_no_fixed_cost_goes_through_zero_and_alike_sizes_keep_the_rate() {
    // Time proportional to bytes, with noise that would give a negative fixed cost.
    let samples = [
        (1_000_000, 5),
        (2_000_000, 20),
        (3_000_000, 30),
        (4_000_000, 40),
    ]
    .map(|(bytes, ms)| Sample {
        donor: "a".into(),
        bytes,
        ms,
    });
    let f = fit(&samples, 32 * MIB).unwrap();
    assert_eq!(f.overhead_ms, 0);
    assert!(f.rate_measured);
    // Least squares gives 11.5 µs per byte and -5 ms; through zero, Σbt ÷ Σb² =
    // 2.95e8 ÷ 3.0e13 ms per byte: 101.7 MB/s.
    assert!(f.bytes_per_sec.abs_diff(101_694_915) < 1_000, "{f:?}");
    // The same size each time: the rate is the model's, the fixed cost the median's rest.
    let alike = [900, 1_100, 1_000].map(|ms| Sample {
        donor: "a".into(),
        bytes: 32 * MIB,
        ms: ms + 1_000,
    });
    let f = fit(&alike, 32 * MIB).unwrap();
    assert!(!f.rate_measured);
    assert_eq!(
        (f.bytes_per_sec, f.overhead_ms, f.median_ms),
        (32 * MIB, 1_000, 2_000)
    );
}

/// `n` migrations from `donor` of `overhead` ms + bytes at `rate`, 64 KiB doubling.
fn made(donor: &str, n: u64, overhead: u64, rate: u64) -> Vec<Sample> {
    (0..n)
        .map(|i| {
            let bytes = (64 << 10) << i;
            Sample {
                donor: donor.into(),
                bytes,
                ms: overhead + bytes * 1000 / rate,
            }
        })
        .collect()
}

#[test]
fn two_donors_of_different_rates_are_fitted_each_on_its_own() {
    let (slow, fast) = (4 * MIB, 40 * MIB);
    let mut samples = made("shard01", 8, 700, slow);
    samples.extend(made("shard02", 11, 200, fast));
    let f = fits(&samples, 32 * MIB).unwrap();
    assert_eq!(f.all, fit(&samples, 32 * MIB).unwrap(), "all of them");
    let ids: Vec<&str> = f.by_donor.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(ids, ["shard01", "shard02"]);
    for ((_, got), (overhead, rate)) in f.by_donor.iter().zip([(700, slow), (200, fast)]) {
        let got = got.as_ref().unwrap();
        assert!(got.rate_measured, "{got:?}");
        assert!(got.overhead_ms.abs_diff(overhead) <= 1, "{got:?}");
        // Within 1% (the times are whole milliseconds).
        assert!(got.bytes_per_sec.abs_diff(rate) < rate / 100, "{got:?}");
    }
    // The cluster-wide fit of both is neither donor's model.
    for rate in [slow, fast] {
        assert!(
            f.all.bytes_per_sec.abs_diff(rate) > rate / 10,
            "{:?}",
            f.all
        );
    }
}

#[test]
fn a_donor_with_too_few_migrations_falls_back_and_one_donor_has_no_own_fit() {
    let mut samples = made("shard01", 5, 700, 4 * MIB);
    samples.extend(made("shard02", 2, 200, 40 * MIB));
    let f = fits(&samples, 32 * MIB).unwrap();
    assert!(f.by_donor[0].1.is_ok(), "{f:?}");
    assert_eq!(f.by_donor[1], ("shard02".to_string(), Err(2)));
    // One donor: its fit is the cluster-wide one, none per donor.
    let one = made("shard01", 5, 700, 4 * MIB);
    let f = fits(&one, 32 * MIB).unwrap();
    assert!(f.by_donor.is_empty());
    assert_eq!(f.all, fit(&one, 32 * MIB).unwrap());
    // Too few in all: nothing is fitted.
    let mut two = made("shard01", 1, 700, 4 * MIB);
    two.extend(made("shard02", 1, 200, 40 * MIB));
    assert_eq!(fits(&two, 32 * MIB), None);
    // Several donors, none with enough: only the cluster-wide fit, each donor's count said.
    let mut thin = made("shard01", 2, 700, 4 * MIB);
    thin.extend(made("shard02", 2, 200, 40 * MIB));
    let f = fits(&thin, 32 * MIB).unwrap();
    assert_eq!(
        f.by_donor,
        [
            ("shard01".to_string(), Err(2)),
            ("shard02".to_string(), Err(2))
        ]
    );
}

#[test]
fn a_donors_alike_sizes_keep_the_cluster_wide_rate() {
    let mut samples = made("shard01", 6, 700, 4 * MIB);
    samples.extend([900, 1_100, 1_000].map(|ms| Sample {
        donor: "shard02".into(),
        bytes: MIB,
        ms,
    }));
    let f = fits(&samples, 32 * MIB).unwrap();
    let own = f.by_donor[1].1.as_ref().unwrap();
    assert!(!own.rate_measured);
    assert_eq!(own.bytes_per_sec, f.all.bytes_per_sec);
    assert_eq!(own.median_ms, 1_000);
}
