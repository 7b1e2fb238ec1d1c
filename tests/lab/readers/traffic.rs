//! The workload reader: every form of a workload line, its weights and its errors with their
//! line; the bound; the fuzz seeds.

use bson::{Bson, Document, doc};
use shardtop::analyze::operation::{Command, Operation};
use shardtop::lab::input::traffic;

fn workload(text: &str) -> Result<Vec<Operation>, String> {
    traffic::parse_workload(text.as_bytes(), "work.jsonl").map_err(|e| e.to_string())
}

pub(crate) fn log(lines: &[&str]) -> Result<Vec<Operation>, String> {
    let text = lines.join("\n");
    traffic::parse_log(text.as_bytes(), "mongod.log", "shop.orders").map_err(|e| e.to_string())
}

pub(crate) fn op(command: Command, filter: Document, line: u64) -> Operation {
    Operation {
        command,
        filter,
        update: None,
        pipeline_update: false,
        multi: false,
        upsert: false,
        weight: 1,
        line,
    }
}

#[test]
fn every_operation_of_a_workload() {
    let text = r#"// shop.orders, a day of it
{"find": {"customerId": 4242}, "weight": 40}

{"count": {"city": "Pune"}}
{"distinct": "city", "query": {"customerId": {"$gte": 100}}, "weight": 2}
{"distinct": "city"}
{"aggregate": [{"$match": {"placedAt": {"$gte": {"$date": "2026-09-01T00:00:00Z"}}}}, {"$group": {"_id": "$city"}}]}
{"aggregate": [{"$sort": {"_id": 1}}, {"$match": {"a": 1}}]}
   // an indented comment
{"update": {"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}}, "u": {"$set": {"total": 10.5}}, "multi": false, "upsert": true}
{"update": {"city": "Pune"}, "u": [{"$set": {"seen": true}}], "multi": true}
{"delete": {"customerId": {"$numberLong": "7"}}, "multi": true}
{"findAndModify": {"customerId": 1}, "update": {"$inc": {"orderNo": 1}}, "upsert": true, "weight": {"$numberLong": "3"}}
{"findAndModify": {"customerId": 2}, "remove": true}
"#;
    let ops = workload(text).unwrap();
    let want = vec![
        Operation {
            weight: 40,
            ..op(Command::Find, doc! {"customerId": 4242}, 2)
        },
        op(Command::Count, doc! {"city": "Pune"}, 4),
        Operation {
            weight: 2,
            ..op(Command::Distinct, doc! {"customerId": {"$gte": 100}}, 5)
        },
        op(Command::Distinct, doc! {}, 6),
        op(
            Command::Aggregate,
            doc! {"placedAt": {"$gte": bson::DateTime::from_millis(1_788_220_800_000)}},
            7,
        ),
        op(Command::Aggregate, doc! {}, 8),
        Operation {
            update: Some(doc! {"$set": {"total": 10.5}}),
            upsert: true,
            ..op(
                Command::Update,
                doc! {"_id": bson::oid::ObjectId::parse_str("65f0a1b2c3d4e5f601234567").unwrap()},
                10,
            )
        },
        Operation {
            pipeline_update: true,
            multi: true,
            ..op(Command::Update, doc! {"city": "Pune"}, 11)
        },
        Operation {
            multi: true,
            ..op(Command::Delete, doc! {"customerId": Bson::Int64(7)}, 12)
        },
        Operation {
            update: Some(doc! {"$inc": {"orderNo": 1}}),
            upsert: true,
            weight: 3,
            ..op(Command::FindAndModify, doc! {"customerId": 1}, 13)
        },
        op(Command::FindAndModify, doc! {"customerId": 2}, 14),
    ];
    assert_eq!(ops, want);
    let reads: Vec<bool> = Command::ALL.iter().map(|c| c.is_read()).collect();
    assert_eq!(reads, [true, true, true, true, false, false, false]);
    let names: Vec<&str> = Command::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        names,
        [
            "find",
            "aggregate",
            "count",
            "distinct",
            "update",
            "delete",
            "findAndModify"
        ]
    );
}

#[test]
fn workload_errors_name_the_file_and_line() {
    let bad_weight = "work.jsonl, line 2: \"weight\" must be a positive integer";
    let cases: &[(&str, &str)] = &[
        ("{\"find\": {}}\n{\"find\": {}, \"weight\": 0}", bad_weight),
        ("{\"find\": {}}\n{\"find\": {}, \"weight\": -1}", bad_weight),
        (
            "{\"find\": {}}\n{\"find\": {}, \"weight\": 1.5}",
            bad_weight,
        ),
        (
            "{\"find\": {}}\n{\"find\": {}, \"weight\": \"x\"}",
            bad_weight,
        ),
        (
            "{\"find\": {}}\n{\"find\": {}, \"weight\": 1000000001}",
            "work.jsonl, line 2: \"weight\" must be at most 1,000,000,000",
        ),
        (
            "\n// c\n\n{\"fnd\": {}}",
            "work.jsonl, line 4: unknown operation \"fnd\" (expected find, aggregate, count, distinct, update, delete or findAndModify)",
        ),
        (
            "{\"find\": {}}\n{\"update\": {\"a\": 1}, \"multi\": true}",
            "work.jsonl, line 2: \"update\" needs \"u\"",
        ),
        (
            "{\"find\": {}, \"limit\": 1}",
            "work.jsonl, line 1: unknown field \"limit\" in a find (expected \"weight\")",
        ),
        ("{\"find\": {},}", "work.jsonl, line 1: not valid JSON: "),
        (
            "{\"find\": {\"a\": {\"$date\": \"never\"}}}",
            "work.jsonl, line 1: not valid Extended JSON: ",
        ),
        (
            "{\"find\": \"orders\"}",
            "work.jsonl, line 1: \"find\" must be a document, found a string",
        ),
        (
            "{\"aggregate\": {\"$match\": {}}}",
            "work.jsonl, line 1: \"aggregate\" must be a pipeline (an array of stages), found a document",
        ),
        (
            "{\"distinct\": {\"a\": 1}}",
            "work.jsonl, line 1: \"distinct\" needs a field name, found a document",
        ),
        (
            "{\"delete\": {}, \"multi\": 1}",
            "work.jsonl, line 1: \"multi\" must be true or false",
        ),
        (
            "{\"findAndModify\": {}}",
            "work.jsonl, line 1: \"findAndModify\" needs \"update\" or \"remove\": true",
        ),
        (
            "{\"findAndModify\": {}, \"update\": {}, \"remove\": true}",
            "work.jsonl, line 1: \"findAndModify\" takes \"update\" or \"remove\": true, not both",
        ),
        (
            "[1]",
            "work.jsonl, line 1: expected an operation, found an array",
        ),
        ("{}", "work.jsonl, line 1: no operation (expected find, "),
    ];
    for (text, want) in cases {
        let got = workload(text).unwrap_err();
        assert!(got.starts_with(want), "{text:?}: {got}");
    }
    let missing = std::path::Path::new("/nonexistent/work.jsonl");
    let got = traffic::read_workload(missing).unwrap_err().to_string();
    assert_eq!(
        got,
        "/nonexistent/work.jsonl: No such file or directory (os error 2)"
    );
}

#[test]
fn more_than_a_million_operations_is_an_error() {
    let text = "{\"find\": {}}\n".repeat(traffic::MAX_OPERATIONS as usize + 1);
    let got = workload(&text).unwrap_err();
    assert_eq!(
        got,
        "work.jsonl: more than 1,000,000 operations (the lab reads at most 1,000,000)"
    );
}

/// The fuzz target's seeds are the inputs they stand for.
#[test]
fn the_fuzz_seeds_read_as_what_they_are() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/lab_inputs");
    for name in ["lines.json", "array.json", "orders.bson"] {
        let documents: Vec<_> = shardtop::lab::input::data::open(&dir.join(name))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(documents.len(), 2, "{name}");
    }
    let ops = traffic::read_workload(&dir.join("workload.jsonl")).unwrap();
    assert_eq!(ops.len(), 9);
    let ops = traffic::read_log(&dir.join("mongod.log"), "db.c").unwrap();
    let commands: Vec<Command> = ops.iter().map(|o| o.command).collect();
    assert_eq!(
        commands,
        [
            Command::Find,
            Command::Aggregate,
            Command::Update,
            Command::Delete
        ]
    );
    assert_eq!(ops[2].filter, doc! {"_id": 1});
    assert!(ops[3].multi);
}
