//! `--example orders`: seed 003's `shop.orders` — 200,000 orders from 20,000 customers in eight
//! cities, inserted in time order (`placedAt` through 2026, `_id` an ObjectId of that time),
//! `orderNo` counting each customer's orders (so `{customerId: 1, orderNo: 1}` is unique) — and
//! its traffic: exactly the explain filters of seed 003, with weights. Deterministic: the same
//! orders on every machine.

use bson::{Document, doc, oid::ObjectId};

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

/// 2026-01-01T00:00:00Z and the year the orders span, in milliseconds.
const START_MS: i64 = 1_767_225_600_000;
const YEAR_MS: i64 = 365 * 86_400_000;

/// The orders, in insertion order.
pub fn orders(seed: u64) -> impl Iterator<Item = Document> {
    let mut rng = Rng::new(seed);
    let mut placed = vec![0i32; CUSTOMERS as usize + 1];
    (0..ORDERS).map(move |i| {
        let customer = rng.range_i64(1, CUSTOMERS);
        let slot = &mut placed[customer as usize];
        *slot += 1;
        let at = START_MS + (i as i64 * YEAR_MS) / ORDERS as i64;
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
