//! What the operators a hostile client leans on cost in `shardtop serve` (issue 20), answered
//! by the server's command path without a socket (`serve::fuzzing::Lab`): a `count` with `$in` of
//! 4,000 values over 100,000 kept documents (quadratic before: about 10 s), `$push` with `$each`
//! of 80,000 values and `$addToSet` of 80,000 (quadratic before: about 26 s).
//!
//! Run: `cargo bench --bench serve_hostile -- --warm-up-time 1 --measurement-time 5`.
#![allow(clippy::unwrap_used, clippy::float_cmp)]

use bson::{Bson, Document, doc};
use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::serve::fuzzing::Lab;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn ok(reply: &[u8]) -> Document {
    let d = Document::from_reader(reply).unwrap();
    assert!(!d.contains_key("writeErrors"), "{d}");
    assert_eq!(d.get_f64("ok").unwrap_or(0.0), 1.0, "{d}");
    d
}

fn filled(n: i32) -> Lab {
    let mut lab = Lab::new().unwrap();
    for start in (0..n).step_by(10_000) {
        let docs: Vec<Document> = (start..(start + 10_000).min(n))
            .map(|i| doc! { "_id": i, "v": i % 1000 })
            .collect();
        ok(&lab.answer(&doc! { "insert": "c", "documents": docs, "$db": "app" }));
    }
    lab
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("serve_hostile");
    group.sample_size(10);
    let mut lab = filled(100_000);
    let list: Vec<Bson> = (0..4000).map(|i| Bson::Int32(i * 2)).collect();
    let count = doc! { "count": "c", "query": { "v": { "$in": list } }, "$db": "app" };
    group.bench_function(
        "count with $in of 4,000 values over 100,000 documents",
        |b| {
            b.iter(|| ok(&lab.answer(&count)));
        },
    );
    let values: Vec<i32> = (0..80_000).collect();
    let mut id = 1_000_000;
    group.bench_function("$push $each of 80,000 values", |b| {
        b.iter(|| {
            id += 1;
            ok(&lab.answer(&doc! { "insert": "p", "documents": [{ "_id": id }], "$db": "app" }));
            ok(&lab.answer(&doc! {
                "update": "p",
                "updates": [{ "q": { "_id": id }, "u": { "$push": { "a": { "$each": values.clone() } } } }],
                "$db": "app",
            }));
        });
    });
    group.bench_function("$addToSet $each of 80,000 values", |b| {
        b.iter(|| {
            id += 1;
            ok(&lab.answer(&doc! { "insert": "p", "documents": [{ "_id": id }], "$db": "app" }));
            ok(&lab.answer(&doc! {
                "update": "p",
                "updates": [{ "q": { "_id": id }, "u": { "$addToSet": { "a": { "$each": values.clone() } } } }],
                "$db": "app",
            }));
        });
    });
    group.finish();
}

criterion_group!(all, benches);
criterion_main!(all);
