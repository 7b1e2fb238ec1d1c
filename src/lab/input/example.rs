//! `--example orders`: seed 003's `shop.orders` — 200,000 orders from 20,000 customers in eight
//! cities, inserted in time order (`placedAt` through 2026, `_id` an ObjectId of that time),
//! `orderNo` counting each customer's orders (so `{customerId: 1, orderNo: 1}` is unique) — and
//! its traffic: exactly the explain filters of seed 003, with weights. Deterministic: the same
//! orders on every machine.

use bson::{Document, doc, oid::ObjectId};

use crate::analyze::operation::{Command, Operation};
use crate::sim::rng::Rng;

/// Orders, customers, and the cities they live in.
pub const ORDERS: u64 = 200_000;
pub const CUSTOMERS: i64 = 20_000;
/// Seed 003's cities (its `lab.bycity` listing); a customer lives in one.
pub const CITIES: [&str; 8] = [
    "Bengaluru",
    "Chennai",
    "Delhi",
    "Hyderabad",
    "Jaipur",
    "Kochi",
    "Kolkata",
    "Pune",
];
/// The namespace, and the unique index seed 003 created.
pub const NS: &str = "shop.orders";
pub const UNIQUE_INDEX: &str = r#"{"customerId": 1, "orderNo": 1}"#;
/// Seed 003's four candidate keys, in its table's order.
pub const CANDIDATES: [&str; 4] = [
    r#"{"_id": 1}"#,
    r#"{"city": 1}"#,
    r#"{"customerId": "hashed"}"#,
    r#"{"customerId": 1, "placedAt": 1}"#,
];
/// The traffic: seed 003's explain filters (relaxed Extended JSON) and their weights.
pub const QUERIES: [(&str, u32); 4] = [
    (r#"{"customerId": 4242}"#, 40),
    (r#"{"customerId": {"$gte": 100, "$lt": 150}}"#, 10),
    (
        r#"{"customerId": 4242, "placedAt": {"$gte": {"$date": "2026-06-01T00:00:00Z"}}}"#,
        40,
    ),
    (
        r#"{"placedAt": {"$gte": {"$date": "2026-09-01T00:00:00Z"}}}"#,
        10,
    ),
];

/// The seed the example's orders are generated from.
pub const SEED: u64 = 3;

/// The writes of the traffic beside the queries: an update by `_id` alone (seed 003's
/// `updateOne({_id: …})`, no shard key) and a change of an order's customer (a shard-key update
/// under the customer keys), with weights.
const WRITES: [(&str, u32); 2] = [
    (
        r#"{"update": {"_id": {"$oid": "695604c27368746f7000007b"}}, "u": {"$set": {"status": "shipped"}}}"#,
        8,
    ),
    (
        r#"{"update": {"customerId": 4242, "orderNo": 3}, "u": {"$set": {"customerId": 4247}}}"#,
        2,
    ),
];

/// The example's traffic: the four queries (as `find`s) and the two writes.
pub fn traffic() -> Vec<Operation> {
    let mut ops: Vec<Operation> = QUERIES
        .iter()
        .zip(1..)
        .map(|((filter, weight), line)| Operation {
            filter: document(filter),
            weight: u64::from(*weight),
            ..Operation::new(Command::Find, line)
        })
        .collect();
    for ((text, weight), line) in WRITES.iter().zip(5..) {
        let op = document(text);
        ops.push(Operation {
            filter: op.get_document("update").cloned().unwrap_or_default(),
            update: op.get_document("u").ok().cloned(),
            weight: u64::from(*weight),
            ..Operation::new(Command::Update, line)
        });
    }
    ops
}

/// One of the example's constant Extended JSON documents.
fn document(text: &str) -> Document {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| bson::Bson::try_from(v).ok())
        .and_then(|b| match b {
            bson::Bson::Document(d) => Some(d),
            _ => None,
        })
        .unwrap_or_default()
}

/// 2026-01-01T00:00:00Z and the year the orders span, in milliseconds.
const START_MS: i64 = 1_767_225_600_000;
const YEAR_MS: i64 = 365 * 86_400_000;

/// The orders, in insertion order.
pub fn orders(seed: u64) -> impl Iterator<Item = Document> {
    orders_n(seed, ORDERS)
}

/// `n` orders of the same shape (for measurements at other sizes), over the same year.
pub fn orders_n(seed: u64, n: u64) -> impl Iterator<Item = Document> {
    let mut rng = Rng::new(seed);
    let mut placed = vec![0i32; CUSTOMERS as usize + 1];
    (0..n).map(move |i| {
        let customer = rng.range_i64(1, CUSTOMERS);
        let slot = &mut placed[customer as usize];
        *slot += 1;
        let at = START_MS + (i as i64 * YEAR_MS) / n.max(1) as i64;
        let mut id = [0u8; 12];
        id[..4].copy_from_slice(&((at / 1000) as u32).to_be_bytes());
        id[4..9].copy_from_slice(b"shtop");
        id[9..].copy_from_slice(&(i as u32).to_be_bytes()[1..]);
        doc! {
            "_id": ObjectId::from_bytes(id),
            "customerId": customer as i32,
            "orderNo": *slot,
            "city": CITIES[(customer % 8) as usize],
            "placedAt": bson::DateTime::from_millis(at),
            "total": (rng.range_i64(500, 50_000) as f64) / 100.0,
            "items": rng.range_i64(1, 9) as i32,
        }
    })
}
