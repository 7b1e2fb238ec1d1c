//! The lab's verdicts and suggestions on data shaped as the public datasets that misled them
//! (issue 48): a league field whose newest rows carry 2 of its 7 values, a key of N values and
//! its chunks, dated records in a file sorted by something else, `--suggest` on a field of 31
//! values, on a field no query uses, and on a licence number of 3 documents; and the jumbo count
//! against the chunk map's flags. Each expected word is computed here from the data, and every
//! surface (the verdict the text and the JSON carry, the markdown table) is read.

use bson::{Document, doc};
use shardtop::analyze::operation::{Command, Operation};
use shardtop::lab::report::markdown;
use shardtop::lab::report::suggest::{Reservoir, Scale, Suggestion, suggest};
use shardtop::lab::report::{CandidateReport, Report};
use shardtop::lab::trial::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::model::KeyPattern;

const MB: u64 = 1 << 20;

fn key(text: &str) -> KeyPattern {
    KeyPattern::parse_json(text).unwrap()
}

/// The documents laid out (the first half) and inserted (the rest) on `keys`, 3 shards, 1 MB
/// chunks, in the order given.
fn trial(keys: &[&str], docs: &[Document]) -> Report {
    let keys: Vec<KeyPattern> = keys.iter().map(|k| key(k)).collect();
    let arrival = Arrival {
        from_empty: false,
        initial_docs: docs.len() as u64 / 2,
        rate_per_sec: 1000.0,
    };
    let spec = ClusterSpec::new(3, 1, shardtop::cluster::ServerVersion::DEFAULT);
    let mut t = Trial::new(spec, arrival, &keys, &[]).unwrap();
    let mut it = docs.iter().map(|d| {
        let size = bson::to_vec(d).unwrap().len() as u64;
        Ok::<_, ()>((d.clone(), size))
    });
    t.run_to_end(&mut it).unwrap();
    t.finish(&[], &[])
}

/// The verdict as every surface prints it: the report's verdict (the text's line and the JSON's
/// `verdict`) and the markdown row's cells.
fn surfaces(report: &Report, i: usize) -> (String, String, String) {
    let c = &report.candidates[i];
    let json = report.to_json()["candidates"][i]["verdict"]
        .as_str()
        .unwrap()
        .to_string();
    let row = markdown::table(report)
        .lines()
        .nth(2 + i)
        .unwrap()
        .to_string();
    (c.verdict.clone(), json, row)
}

/// `part` (`writes`, `divisibility`) of candidate `i`'s verdict holds `words` on every surface:
/// the verdict line (text and JSON) and its markdown cell.
fn everywhere(report: &Report, i: usize, part: &str, words: &str) {
    let (verdict, json, row) = surfaces(report, i);
    let cell = verdict
        .split("; ")
        .find_map(|p| p.strip_prefix(&format!("{part}: ")))
        .unwrap_or_else(|| panic!("no {part} in {verdict}"));
    assert!(cell.contains(words), "verdict: {verdict}; wanted: {words}");
    assert!(json.contains(words), "json: {json}");
    assert!(row.contains(&format!("| {cell} |")), "markdown: {row}");
    assert!(markdown::text(report).contains(words));
}

/// Batting rows in year order: the early years spread over 7 leagues, the later ones only the
/// two that still play (as Lahman's `lgID`: NA, AA, UA, PL, FL early; AL and NL since 1916).
fn batting(n: usize) -> Vec<Document> {
    const LEAGUES: [&str; 7] = ["NA", "AA", "UA", "PL", "FL", "AL", "NL"];
    let pad = "x".repeat(900);
    (0..n)
        .map(|i| {
            let lg = if i < n * 4 / 10 {
                LEAGUES[i % 7]
            } else {
                LEAGUES[5 + i % 2]
            };
            doc! {"_id": i as i64, "playerID": format!("p{:05}", i * 7919 % 4001), "yearID": 1871 + (i * 150 / n) as i32, "lgID": lg, "AB": (i * 37 % 700) as i32, "pad": &pad}
        })
        .collect()
}

fn distinct_in(docs: &[Document], field: &str) -> usize {
    let mut v: Vec<String> = docs
        .iter()
        .map(|d| d.get(field).unwrap().to_string())
        .collect();
    v.sort();
    v.dedup();
    v.len()
}

#[test]
fn hot_spots_count_the_values_the_newest_inserts_carry_and_max_chunks_the_values() {
    let docs = batting(12_000);
    let report = trial(&[r#"{"lgID": 1}"#, r#"{"playerID": "hashed"}"#], &docs);
    let c = &report.candidates[0];
    let all = distinct_in(&docs, "lgID");
    let newest = distinct_in(&docs[docs.len() - docs.len() / 10..], "lgID");
    assert_eq!((all, newest), (7, 2));
    // The data fills more chunks than the key has values: hot spots, as many as the values the
    // last tenth carries.
    assert!(c.needed_chunks > all as u64, "{}", c.needed_chunks);
    everywhere(
        &report,
        0,
        "writes",
        &format!(
            "{newest} hot spots (the last tenth of the documents carry {newest} of its {all} values)"
        ),
    );
    // A chunk cannot be split inside a value, and the chunk below the first value holds none:
    // 7 values, 7 chunks with data at most.
    assert_eq!(c.max_chunks, Some(all as u64));
    everywhere(&report, 0, "divisibility", &format!("{all} chunks max"));
    let with_data = c.chunk_map.iter().filter(|k| k.docs > 0).count();
    assert!(with_data <= all, "{with_data} chunks hold documents");
    jumbo_agrees(c);
    assert!(c.jumbo > 0, "each league's rows are over 1 MB: {c:?}");
    jumbo_agrees(&report.candidates[1]);
}

/// The report's jumbo count is the chunk map's jumbo flags, counted (one predicate).
fn jumbo_agrees(c: &CandidateReport) {
    let flagged = c.chunk_map.iter().filter(|k| k.jumbo).count() as u64;
    assert_eq!(c.jumbo, flagged, "{:?}", c.key);
    // And each flag is a chunk over the size or a chunk the balancer flagged.
    for k in c.chunk_map.iter().filter(|k| k.jumbo) {
        assert!(k.bytes > MB, "{k:?}");
    }
}

/// Parking tickets sorted by plate (as a city's export is), each with its issue date.
fn tickets(n: usize, in_date_order: bool) -> Vec<Document> {
    let day = 86_400_000i64;
    let pad = "y".repeat(300);
    let mut docs: Vec<Document> = (0..n)
        .map(|i| {
            let plate = format!("P{:06}", i * 7 % n);
            let issued = 1_577_836_800_000 + (i as i64) * day / 50;
            doc! {"plate": plate, "issueDate": bson::DateTime::from_millis(issued), "pad": &pad}
        })
        .collect();
    if !in_date_order {
        docs.sort_by(|a, b| a.get_str("plate").unwrap().cmp(b.get_str("plate").unwrap()));
    }
    docs
}

#[test]
fn a_date_key_in_a_file_not_in_date_order_hints_to_order_by_it() {
    let hint = "(but issueDate holds dates and the file is not in their order";
    let order_by = "if documents arrive as they are dated, give --order-by issueDate)";
    let shuffled = trial(
        &[r#"{"issueDate": 1}"#, r#"{"plate": 1}"#],
        &tickets(6_000, false),
    );
    let c = &shuffled.candidates[0];
    assert_ne!(
        c.characteristics.monotonicity,
        shardtop::analyze::characteristics::Monotonicity::Monotonic
    );
    everywhere(&shuffled, 0, "writes", hint);
    everywhere(&shuffled, 0, "writes", order_by);
    // The plate is no date: no hint.
    assert!(!shuffled.candidates[1].verdict.contains("--order-by"));
    // In date order (what --order-by issueDate gives), the key is monotonic: the hotspot shows
    // and the hint is gone.
    let ordered = trial(
        &[r#"{"issueDate": 1}"#, r#"{"plate": 1}"#],
        &tickets(6_000, true),
    );
    everywhere(
        &ordered,
        0,
        "writes",
        "all inserts to one shard (monotonic)",
    );
    assert!(!ordered.candidates[0].verdict.contains("--order-by"));
}

fn sample(docs: &[Document]) -> shardtop::lab::report::suggest::FieldStats {
    let mut r = Reservoir::default();
    for d in docs {
        r.offer(d);
    }
    r.stats()
}

fn find(filter: Document, weight: u64) -> Operation {
    Operation {
        filter,
        ..Operation::new(Command::Find, weight)
    }
}

fn keys(s: &[Suggestion]) -> Vec<&str> {
    s.iter().map(|s| s.key.as_str()).collect()
}

#[test]
fn suggest_does_not_hash_a_field_of_fewer_values_than_chunks() {
    // Readings by day of month (31 values), 40,000 of about 1 KB: 40 MB, 40 chunks of 1 MB.
    let pad = "z".repeat(1000);
    let docs: Vec<Document> = (0..40_000i64)
        .map(|i| doc! {"_id": i, "day": (i % 31) as i32 + 1, "sensor": i % 997, "pad": &pad})
        .collect();
    let traffic = vec![find(doc! {"day": 5}, 10), find(doc! {"sensor": 3}, 1)];
    let scale = Scale {
        documents: docs.len() as u64,
        chunk_size_bytes: MB,
    };
    let s = suggest(&traffic, &sample(&docs), scale);
    assert_eq!(s[0].key, r#"{"day": 1}"#);
    assert!(
        !keys(&s).contains(&r#"{"day": "hashed"}"#),
        "31 values cannot spread 40 chunks: {s:?}"
    );
    assert!(
        s[0].reason.contains("not hashed: day has 31 values"),
        "{}",
        s[0].reason
    );
    // With 1 GB chunks the data fills one chunk: 31 values are plenty, the hashed key is offered.
    let big = Scale {
        chunk_size_bytes: 1024 * MB,
        ..scale
    };
    let s = suggest(&traffic, &sample(&docs), big);
    assert!(keys(&s).contains(&r#"{"day": "hashed"}"#), "{s:?}");
}

#[test]
fn suggest_splits_a_busy_value_by_a_field_the_queries_use() {
    // Batting: a player's rows are queried by player, and by player and year; no query uses AB
    // (at bats), the field of most values.
    let docs = batting(12_000);
    let traffic = vec![
        find(doc! {"playerID": "p00001"}, 10),
        find(doc! {"playerID": "p00001", "yearID": {"$gte": 1990}}, 5),
    ];
    let stats = sample(&docs);
    // A player's rows are a few KB: never over a 1 MB chunk.
    let small = Scale {
        documents: docs.len() as u64,
        chunk_size_bytes: MB,
    };
    let s = suggest(&traffic, &stats, small);
    assert!(s.iter().all(|s| !s.key.contains("AB")), "{s:?}");
    assert!(
        !keys(&s).contains(&r#"{"playerID": 1, "yearID": 1}"#),
        "no player is busy: {s:?}"
    );
    // The same sample standing for 1,000 times the documents: each player's rows pass 1 MB, and
    // the split is by yearID, which the queries name with playerID.
    let large = Scale {
        documents: docs.len() as u64 * 1000,
        chunk_size_bytes: MB,
    };
    let s = suggest(&traffic, &stats, large);
    let split = s
        .iter()
        .find(|s| s.key == r#"{"playerID": 1, "yearID": 1}"#)
        .unwrap_or_else(|| panic!("{s:?}"));
    assert!(
        split.reason.contains("yearID, named with playerID"),
        "{}",
        split.reason
    );
    assert!(s.iter().all(|s| !s.key.contains("AB")), "{s:?}");
}

#[test]
fn suggest_does_not_split_a_licence_of_three_documents() {
    // Inspections by licence number: at most 3 a licence, a date field of many values.
    let docs: Vec<Document> = (0..9_000i64)
        .map(|i| doc! {"_id": i, "licence": format!("L{:05}", i / 3), "inspected": bson::DateTime::from_millis(1_600_000_000_000 + i * 3_600_000), "score": i % 100})
        .collect();
    let traffic = vec![
        find(doc! {"licence": "L00042"}, 10),
        find(
            doc! {"licence": "L00042", "inspected": {"$gte": bson::DateTime::from_millis(0)}},
            2,
        ),
    ];
    let scale = Scale {
        documents: docs.len() as u64,
        chunk_size_bytes: MB,
    };
    let s = suggest(&traffic, &sample(&docs), scale);
    assert_eq!(s[0].key, r#"{"licence": 1}"#);
    assert!(
        s.iter().all(|s| !s.key.contains("inspected")),
        "a licence of 3 documents needs no split: {s:?}"
    );
    assert!(s.iter().all(|s| !s.reason.contains("busy")), "{s:?}");
}
