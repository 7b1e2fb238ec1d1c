//! Benchmarks of the pure model: routing through a 1,000,000-chunk table, the hashed-index hash,
//! and the memory a chunk costs.
//!
//! Targets: routing ≥ 5M keys/s, hash64 ≥ 3M values/s, ≤ 200 bytes per chunk.
//!
//! Run: `cargo bench --bench model`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use shardtop::model::{
    ChunkInfo, ChunkVersion, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey, hash64,
};

const CHUNKS: usize = 1_000_000;
const SHARDS: u32 = 1_000;
const KEYS: usize = 1_000_000;
const HASHED: usize = 100_000;

/// `SplitMix64`: a small deterministic PRNG.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn object_id(&mut self) -> [u8; 12] {
        let hi = self.next().to_be_bytes();
        let lo = self.next().to_be_bytes();
        let mut oid = [0u8; 12];
        oid[..8].copy_from_slice(&hi);
        oid[8..].copy_from_slice(&lo[..4]);
        oid
    }
}

/// The `ObjectId` whose 96 bits, read big-endian, are `x`.
fn object_id_at(x: u128) -> [u8; 12] {
    let bytes = x.to_be_bytes();
    let mut oid = [0u8; 12];
    oid.copy_from_slice(&bytes[4..]);
    oid
}

/// The spacing of chunk bounds: the 96-bit `ObjectId` space cut into `CHUNKS` equal ranges.
const STEP: u128 = (1u128 << 96) / CHUNKS as u128;

/// `{_id: 1}` cut into `CHUNKS` chunks at evenly spaced `ObjectId`s, spread round-robin over
/// `SHARDS` shards.
fn build_table() -> RoutingTable {
    let pattern = KeyPattern::parse_json(r#"{"_id": 1}"#).expect("a valid pattern");
    let mut chunks = Vec::with_capacity(CHUNKS);
    chunks.push((
        pattern.global_min(),
        ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, 0)),
    ));
    for i in 1..CHUNKS {
        let min = ShardKey::single(KeyValue::ObjectId(object_id_at(i as u128 * STEP)));
        let info = ChunkInfo::new(ShardIdx(i as u32 % SHARDS), ChunkVersion::new(1, i as u32));
        chunks.push((min, info));
    }
    RoutingTable::from_chunks(chunks, pattern.global_max()).expect("a valid layout")
}

/// `VmRSS` of this process in bytes, from /proc/self/status.
fn vm_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn routing(c: &mut Criterion) {
    let before = vm_rss();
    let table = build_table();
    let after = vm_rss();
    match (before, after) {
        (Some(b), Some(a)) => eprintln!(
            "memory: {CHUNKS} chunks over ObjectId keys: VmRSS {:.1} MiB -> {:.1} MiB, \
             {:.1} bytes/chunk (target <= 200)",
            b as f64 / 1_048_576.0,
            a as f64 / 1_048_576.0,
            a.saturating_sub(b) as f64 / CHUNKS as f64
        ),
        _ => eprintln!("memory: VmRSS is not available on this system"),
    }
    eprintln!(
        "memory: per chunk by type sizes: ShardKey {} + prefix 16 + ChunkInfo {} = {} bytes",
        size_of::<ShardKey>(),
        size_of::<ChunkInfo>(),
        size_of::<ShardKey>() + 16 + size_of::<ChunkInfo>()
    );

    let mut rng = Rng(0x5EED);
    let keys: Vec<ShardKey> = (0..KEYS)
        .map(|_| ShardKey::single(KeyValue::ObjectId(rng.object_id())))
        .collect();
    // The table is right before it is fast: each key lands in the chunk its value selects.
    for key in keys.iter().take(10_000) {
        let Some(KeyValue::ObjectId(oid)) = key.get(0) else {
            unreachable!("ObjectId keys")
        };
        let mut wide = [0u8; 16];
        wide[4..].copy_from_slice(oid);
        let expected = (u128::from_be_bytes(wide) / STEP).min(CHUNKS as u128 - 1) as usize;
        assert_eq!(table.route(key), expected, "route({key:?})");
    }

    let mut group = c.benchmark_group("route");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(6));
    group.throughput(Throughput::Elements(KEYS as u64));
    group.bench_function("objectid_1M_chunks_1M_random_keys", |b| {
        b.iter(|| {
            let mut sum = 0usize;
            for key in &keys {
                sum = sum.wrapping_add(table.route(black_box(key)));
            }
            sum
        });
    });
    let mut sorted = keys.clone();
    sorted.sort();
    group.bench_function("objectid_1M_chunks_1M_sorted_keys", |b| {
        b.iter(|| {
            let mut sum = 0usize;
            for key in &sorted {
                sum = sum.wrapping_add(table.route(black_box(key)));
            }
            sum
        });
    });
    group.finish();
}

fn hashing(c: &mut Criterion) {
    let mut rng = Rng(0xA5A5);
    let values: Vec<KeyValue> = (0..HASHED)
        .map(|i| match i % 3 {
            0 => {
                let len = 5 + (rng.next() % 26) as usize;
                let s: String = (0..len)
                    .map(|_| char::from(b'a' + (rng.next() % 26) as u8))
                    .collect();
                KeyValue::string(s)
            }
            1 => KeyValue::ObjectId(rng.object_id()),
            _ => KeyValue::Int64(rng.next() as i64),
        })
        .collect();

    let mut group = c.benchmark_group("hash64");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(HASHED as u64));
    group.bench_function("mixed_strings_objectids_ints", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for v in &values {
                acc ^= hash64(black_box(v));
            }
            acc
        });
    });
    group.finish();
}

criterion_group!(benches, routing, hashing);
criterion_main!(benches);
