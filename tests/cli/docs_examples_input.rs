//! The files the docs' commands read, made in each document's folder before its commands run:
//! `orders.json` and `traffic.jsonl` (the lab's documents and traffic, small), the same orders
//! as a mongodump would write them (`dump/shop/orders.bson.gz`), and `cluster.capture.zst` (a
//! capture of the `serve` the docs' URIs stand for).

use std::io::Write;
use std::path::Path;
use std::process::Command;

use super::BIN;

/// Orders of 200 customers in 8 cities.
fn orders() -> Vec<bson::Document> {
    (0..2_000_i64)
        .map(|i| {
            bson::doc! {
                "_id": i,
                "customerId": i % 200,
                "orderNo": i / 200,
                "city": format!("city{}", i % 8),
                "placedAt": bson::DateTime::from_millis(1_767_225_600_000 + i * 60_000),
                "total": (i % 97) as f64 * 1.5,
            }
        })
        .collect()
}

pub fn prepare(dir: &Path, uri: &str) {
    let docs = orders();
    let mut json = String::new();
    for d in &docs {
        let v = bson::Bson::Document(d.clone()).into_relaxed_extjson();
        json.push_str(&v.to_string());
        json.push('\n');
    }
    std::fs::write(dir.join("orders.json"), json).unwrap();
    let traffic = [
        r#"{"find": {"customerId": 7}, "weight": 5}"#,
        r#"{"find": {"customerId": {"$gte": 10, "$lt": 20}}, "weight": 2}"#,
        r#"{"update": {"_id": 5}, "u": {"$set": {"total": 1.0}}, "weight": 1}"#,
    ];
    std::fs::write(dir.join("traffic.jsonl"), traffic.join("\n") + "\n").unwrap();
    std::fs::create_dir_all(dir.join("dump/shop")).unwrap();
    let file = std::fs::File::create(dir.join("dump/shop/orders.bson.gz")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    for d in &docs {
        gz.write_all(&bson::to_vec(d).unwrap()).unwrap();
    }
    gz.finish().unwrap();
    let o = Command::new(BIN)
        .args(["capture", uri, "-o", "cluster.capture.zst"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
