//! The log reader: a MongoDB log's slow-query lines as mongod and mongos write them (a write's
//! statement and command lines counted once), other lines and namespaces skipped, failed and
//! truncated operations skipped, a file that is not a log refused.

use bson::doc;
use shardtop::analyze::operation::{Command, Operation};
use shardtop::lab::input::traffic;

use super::traffic::{log, op};

/// A line as mongod 7.0 writes it, `attr` given.
fn line(c: &str, ctx: &str, attr: &str) -> String {
    format!(
        r#"{{"t":{{"$date":"2026-05-01T10:00:00.000+00:00"}},"s":"I",  "c":"{c}", "id":51803,   "ctx":"{ctx}","msg":"Slow query","attr":{attr}}}"#
    )
}

const LSID: &str = r#""lsid":{"id":{"$uuid":"b0c6e2a4-8f1e-4d0e-9f5e-2b9c3a1d7e60"}},"$clusterTime":{"clusterTime":{"$timestamp":{"t":1777629600,"i":1}},"signature":{"hash":{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAAAAAAA=","subType":"0"}},"keyId":0}}"#;

#[test]
fn a_logs_slow_queries_on_the_namespace() {
    let find = line(
        "COMMAND",
        "conn12",
        &format!(
            r#"{{"type":"command","ns":"shop.orders","appName":"app","command":{{"find":"orders","filter":{{"customerId":4242,"placedAt":{{"$gte":{{"$date":"2026-06-01T00:00:00.000Z"}}}}}},{LSID},"$db":"shop"}},"planSummary":"IXSCAN {{ customerId: 1 }}","keysExamined":3,"docsExamined":3,"cursorExhausted":true,"numYields":0,"nreturned":3,"queryHash":"1A2B3C4D","reslen":512,"locks":{{}},"protocol":"op_msg","durationMillis":120}}"#
        ),
    );
    let aggregate = line(
        "COMMAND",
        "conn13",
        r#"{"type":"command","ns":"shop.orders","command":{"aggregate":"orders","pipeline":[{"$match":{"city":"Pune"}},{"$group":{"_id":"$customerId"}}],"cursor":{},"$db":"shop"},"durationMillis":300}"#,
    );
    let other_ns = line(
        "COMMAND",
        "conn12",
        r#"{"type":"command","ns":"shop.customers","command":{"find":"customers","filter":{"_id":1},"$db":"shop"},"durationMillis":150}"#,
    );
    let get_more = line(
        "COMMAND",
        "conn12",
        r#"{"type":"command","ns":"shop.orders","command":{"getMore":{"$numberLong":"123"},"collection":"orders","$db":"shop"},"originatingCommand":{"find":"orders","filter":{}},"durationMillis":150}"#,
    );
    let count = line(
        "COMMAND",
        "conn14",
        r#"{"type":"command","ns":"shop.orders","command":{"count":"orders","query":{"city":"Kochi"},"$db":"shop"},"durationMillis":150}"#,
    );
    let distinct = line(
        "COMMAND",
        "conn14",
        r#"{"type":"command","ns":"shop.orders","command":{"distinct":"orders","key":"city","query":{"items":{"$gt":2}},"$db":"shop"},"durationMillis":150}"#,
    );
    let fam = line(
        "COMMAND",
        "conn14",
        r#"{"type":"command","ns":"shop.orders","command":{"findandmodify":"orders","query":{"_id":7},"update":{"$inc":{"n":1}},"upsert":true,"$db":"shop"},"durationMillis":150}"#,
    );
    // The log cut the command (`maxLogSizeKB`): its filter may lack conditions.
    let truncated = r#"{"t":{"$date":"2026-05-01T10:00:00.000+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn15","msg":"Slow query","attr":{"type":"command","ns":"shop.orders","command":{"find":"orders","filter":{"_id":{"$in":[1,2]}}},"durationMillis":150},"truncated":{"command":{"truncated":{"filter":{"type":"object","size":20000}}}},"size":{"command":20480}}"#;
    let ops = log(&[
        r#"{"t":{"$date":"2026-05-01T09:59:00.000+00:00"},"s":"I",  "c":"NETWORK",  "id":22943,   "ctx":"listener","msg":"Connection accepted","attr":{"remote":"127.0.0.1:50000","connectionCount":1}}"#,
        "not json at all",
        &find,
        &aggregate,
        &other_ns,
        &get_more,
        "{\"half a line",
        &count,
        &distinct,
        &fam,
        truncated,
    ])
    .unwrap();
    let want = vec![
        op(
            Command::Find,
            doc! {"customerId": 4242, "placedAt": {"$gte": bson::DateTime::from_millis(1_780_272_000_000)}},
            3,
        ),
        op(Command::Aggregate, doc! {"city": "Pune"}, 4),
        op(Command::Count, doc! {"city": "Kochi"}, 8),
        op(Command::Distinct, doc! {"items": {"$gt": 2}}, 9),
        Operation {
            update: Some(doc! {"$inc": {"n": 1}}),
            upsert: true,
            ..op(Command::FindAndModify, doc! {"_id": 7}, 10)
        },
    ];
    assert_eq!(ops, want);
}

#[test]
fn a_write_on_a_statement_line_and_its_command_line_counts_once() {
    // mongod: each statement on its own WRITE line, then the command on `db.$cmd`: with its one
    // statement, or with the count of them.
    let update = line(
        "WRITE",
        "conn20",
        r#"{"type":"update","ns":"shop.orders","command":{"q":{"_id":1},"u":{"$set":{"a":1}},"multi":false,"upsert":true},"planSummary":"IDHACK","nMatched":1,"durationMillis":200}"#,
    );
    let update_command = line(
        "COMMAND",
        "conn20",
        r#"{"type":"command","ns":"shop.$cmd","command":{"update":"orders","ordered":true,"$db":"shop","updates":[{"q":{"_id":1},"u":{"$set":{"a":1}},"upsert":true}]},"durationMillis":201}"#,
    );
    let remove_1 = line(
        "WRITE",
        "conn21",
        r#"{"type":"remove","ns":"shop.orders","command":{"q":{"city":"Pune"},"limit":0},"ndeleted":9,"durationMillis":150}"#,
    );
    let remove_2 = line(
        "WRITE",
        "conn21",
        r#"{"type":"remove","ns":"shop.orders","command":{"q":{"_id":3},"limit":1},"durationMillis":150}"#,
    );
    let delete_command = line(
        "COMMAND",
        "conn21",
        r#"{"type":"command","ns":"shop.$cmd","command":{"delete":"orders","ordered":true,"$db":"shop","deletes":3},"durationMillis":400}"#,
    );
    // The statement's command was not logged (sampled out): the next command stands for it.
    let lone = line(
        "WRITE",
        "conn22",
        r#"{"type":"update","ns":"shop.orders","command":{"q":{"_id":5},"u":[{"$set":{"b":1}}],"multi":true,"upsert":false},"durationMillis":150}"#,
    );
    let next = line(
        "COMMAND",
        "conn22",
        r#"{"type":"command","ns":"shop.other","command":{"find":"other","filter":{},"$db":"shop"},"durationMillis":150}"#,
    );
    // mongos: one command line with the statements, on the collection.
    let mongos = line(
        "COMMAND",
        "conn30",
        r#"{"type":"command","ns":"shop.orders","command":{"update":"orders","updates":[{"q":{"c":1},"u":{"c":2}},{"q":{"c":3},"u":{"$unset":{"d":""}},"multi":true}],"ordered":true,"$db":"shop"},"nShards":2,"durationMillis":150}"#,
    );
    let held = line(
        "WRITE",
        "conn40",
        r#"{"type":"remove","ns":"shop.orders","command":{"q":{"_id":9},"limit":1},"durationMillis":150}"#,
    );
    let ops = log(&[
        &update,
        &update_command,
        &remove_1,
        &held,
        &remove_2,
        &delete_command,
        &lone,
        &next,
        &mongos,
    ])
    .unwrap();
    let want = vec![
        Operation {
            update: Some(doc! {"$set": {"a": 1}}),
            upsert: true,
            ..op(Command::Update, doc! {"_id": 1}, 2)
        },
        Operation {
            multi: true,
            ..op(Command::Delete, doc! {"city": "Pune"}, 3)
        },
        op(Command::Delete, doc! {"_id": 9}, 4),
        op(Command::Delete, doc! {"_id": 3}, 5),
        Operation {
            pipeline_update: true,
            multi: true,
            ..op(Command::Update, doc! {"_id": 5}, 7)
        },
        Operation {
            update: Some(doc! {"c": 2}),
            ..op(Command::Update, doc! {"c": 1}, 9)
        },
        Operation {
            update: Some(doc! {"$unset": {"d": ""}}),
            multi: true,
            ..op(Command::Update, doc! {"c": 3}, 9)
        },
    ];
    assert_eq!(ops, want);
}

#[test]
fn a_file_that_is_not_a_json_log() {
    let got = log(&["2020-01-01T00:00:00.000+0000 I COMMAND [conn1] command shop.orders"]);
    assert_eq!(
        got.unwrap_err(),
        "mongod.log: not a MongoDB JSON log (4.4+)"
    );
    assert_eq!(
        log(&[]).unwrap_err(),
        "mongod.log: not a MongoDB JSON log (4.4+)"
    );
    let bad = line(
        "COMMAND",
        "conn1",
        r#"{"type":"command","ns":"shop.orders","command":{"find":"orders","filter":{"a":{"$date":"never"}}}}"#,
    );
    let failed = line(
        "COMMAND",
        "conn2",
        r#"{"type":"command","ns":"shop.orders","command":{"find":"orders","filter":"oops"},"ok":0,"errMsg":"\"filter\" had the wrong type","errName":"TypeMismatch","errCode":14,"durationMillis":0}"#,
    );
    assert_eq!(log(&[&failed]), Ok(vec![]));
    let got = log(&["{\"msg\":\"x\"}", &bad]).unwrap_err();
    assert!(
        got.starts_with("mongod.log, line 2: not valid Extended JSON"),
        "{got}"
    );
    let missing = std::path::Path::new("/nonexistent/mongod.log");
    let got = traffic::read_log(missing, "a.b").unwrap_err().to_string();
    assert_eq!(
        got,
        "/nonexistent/mongod.log: No such file or directory (os error 2)"
    );
}

/// A slow query whose filter nests deeper than the reader's JSON parser allows (128 levels) is
/// counted and named, not dropped without a word (issue 36).
#[test]
fn a_slow_query_nested_too_deep_is_counted_as_skipped() {
    let mut filter = String::from("1");
    for _ in 0..200 {
        filter = format!(r#"{{"$and":[{{"a":{filter}}}]}}"#);
    }
    let deep = line(
        "COMMAND",
        "conn12",
        &format!(
            r#"{{"type":"command","ns":"shop.orders","command":{{"find":"orders","filter":{filter},"$db":"shop"}},"durationMillis":120}}"#
        ),
    );
    let find = line(
        "COMMAND",
        "conn13",
        r#"{"type":"command","ns":"shop.orders","command":{"find":"orders","filter":{"customerId":1},"$db":"shop"},"durationMillis":120}"#,
    );
    let text = [find.as_str(), deep.as_str(), deep.as_str()].join("\n");
    let (ops, skipped) =
        traffic::parse_log_counted(text.as_bytes(), "mongod.log", "shop.orders").unwrap();
    assert_eq!(ops.len(), 1);
    assert_eq!(skipped.lines, 2);
    // Every one is named, with its line.
    let lines: Vec<u64> = skipped.named.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [2, 3]);
    assert!(
        skipped
            .named
            .iter()
            .all(|(_, why)| why.contains("recursion limit exceeded"))
    );
    let (line_no, why) = skipped.first.unwrap();
    assert_eq!(line_no, 2);
    assert!(why.contains("recursion limit exceeded"), "{why}");
    // A log with nothing skipped says so.
    let (_, none) =
        traffic::parse_log_counted(find.as_bytes(), "mongod.log", "shop.orders").unwrap();
    assert_eq!(none, traffic::Skipped::default());
}
