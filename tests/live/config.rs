#![allow(clippy::unwrap_used)]
//! Real `config.*` documents from clusters 4.4 to 8.0 (tests/fixtures/config, converted to
//! Extended JSON from published samples; see its README) parse into the model: chunks by `ns`
//! (4.4) or `uuid` (5.0+), `onCurrentShardSince` (7.0), `jumbo`, hashed bounds, embedded-document
//! bounds, `dropped` / `timestamp` / `unsplittable` collections, settings.

use bson::{Bson, Document};
use shardtop::live::config::{ChunkDoc, ChunkOwner, CollectionDoc, SettingsDocs, ShardDoc, TagDoc};
use shardtop::model::{ChunkVersion, KeyPattern};

fn fixture(version: &str) -> Document {
    let path = format!(
        "{}/tests/fixtures/config/{version}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    match Bson::try_from(value).unwrap() {
        Bson::Document(d) => d,
        other => panic!("{other:?}"),
    }
}

fn docs(f: &Document, key: &str) -> Vec<Document> {
    f.get_array(key)
        .map(|a| a.iter().map(|d| d.as_document().unwrap().clone()).collect())
        .unwrap_or_default()
}

/// The range pattern of a chunk's bound fields (hashed values are stored as they are).
fn pattern_of_bound(chunk: &Document) -> KeyPattern {
    let mut p = Document::new();
    for k in chunk.get_document("min").unwrap().keys() {
        p.insert(k.clone(), 1);
    }
    KeyPattern::parse(&p).unwrap()
}

fn chunks(f: &Document) -> Vec<ChunkDoc> {
    docs(f, "chunks")
        .iter()
        .map(|d| ChunkDoc::parse(d, &pattern_of_bound(d)).unwrap())
        .collect()
}

#[test]
fn four_four_chunks_name_their_collection_by_namespace() {
    let f = fixture("4.4");
    let shards: Vec<ShardDoc> = docs(&f, "shards")
        .iter()
        .map(|d| ShardDoc::parse(d).unwrap())
        .collect();
    assert_eq!(shards.len(), 3);
    let colls: Vec<CollectionDoc> = docs(&f, "collections")
        .iter()
        .map(|d| CollectionDoc::parse(d).unwrap())
        .collect();
    assert_eq!(colls[0].ns, "config.system.sessions");
    assert!(!colls[0].dropped && colls[0].is_sharded());
    assert_eq!(
        colls[0].chunk_owner(),
        ChunkOwner::Ns("config.system.sessions".into())
    );
    let chunks = chunks(&f);
    assert_eq!(chunks.len(), 5);
    assert!(
        chunks
            .iter()
            .all(|c| c.owner == ChunkOwner::Ns("config.system.sessions".into()))
    );
    // The js-bson Timestamp order of the published dump is undone: versions 2|0, 3|0, …
    assert_eq!(chunks[0].version, ChunkVersion::new(2, 0));
    // Bounds are embedded documents ({_id: {id: UUID}}); the first starts at MinKey.
    assert_eq!(
        chunks[0].min,
        KeyPattern::parse(&bson::doc! {"_id": 1})
            .unwrap()
            .global_min()
    );
    assert!(chunks[0].max > chunks[0].min);
    for t in docs(&f, "tags") {
        TagDoc::parse(&t).unwrap();
    }
    let settings = SettingsDocs::parse(&docs(&f, "settings")).unwrap();
    assert!(
        settings.chunk_size_mb.is_some()
            || settings.balancer_mode != shardtop::cluster::balancer::BalancerMode::Full
            || settings.active_window.is_some()
    );
}

#[test]
fn five_oh_jumbo_chunk_by_uuid_with_hashed_bounds() {
    let f = fixture("5.0");
    let c = &chunks(&f)[0];
    assert!(matches!(c.owner, ChunkOwner::Uuid(_)));
    assert!(c.jumbo);
    assert_eq!(
        c.min.values().next(),
        Some(&shardtop::model::KeyValue::Int64(
            -3_006_967_400_825_036_684
        ))
    );
}

#[test]
fn six_oh_and_seven_oh_shapes() {
    let f = fixture("6.0");
    let colls: Vec<CollectionDoc> = docs(&f, "collections")
        .iter()
        .map(|d| CollectionDoc::parse(d).unwrap())
        .collect();
    assert!(colls[0].incarnation.timestamp.is_some());
    assert!(
        matches!(colls[0].chunk_owner(), ChunkOwner::Uuid(_)),
        "5.0+ shapes: chunks by uuid"
    );
    for d in docs(&f, "shards") {
        ShardDoc::parse(&d).unwrap();
    }
    SettingsDocs::parse(&docs(&f, "settings")).unwrap();
    assert_eq!(chunks(&f).len(), 1);
    let f = fixture("7.0");
    let c = chunks(&f);
    assert!(
        c.iter().all(|c| c.since.is_some()),
        "7.0 chunks carry onCurrentShardSince"
    );
}

#[test]
fn eight_oh_unsplittable_collections_are_not_sharded_and_trimmed_chunks_say_what_is_missing() {
    let f = fixture("8.0");
    let colls: Vec<CollectionDoc> = docs(&f, "collections")
        .iter()
        .map(|d| CollectionDoc::parse(d).unwrap())
        .collect();
    let logs = colls.iter().find(|c| c.ns == "shop.logs").unwrap();
    assert!(logs.unsplittable && !logs.is_sharded());
    let orders = colls.iter().find(|c| c.ns == "shop.orders").unwrap();
    assert!(orders.is_sharded());
    assert_eq!(
        SettingsDocs::parse(&docs(&f, "settings")).unwrap(),
        SettingsDocs::default()
    );
    // The published 8.0 chunks were printed through a projection without uuid: the error names
    // the collection and the missing field.
    let d = &docs(&f, "chunks")[0];
    let err = ChunkDoc::parse(d, &pattern_of_bound(d)).unwrap_err();
    assert!(
        err.to_string().contains("config.chunks") && err.to_string().contains("`uuid`"),
        "{err}"
    );
}

#[test]
fn raw_chunk_documents_parse_as_their_document_form() {
    use shardtop::live::config::ChunkRow;
    use shardtop::model::ShardIdx;
    let mut seen = 0;
    for version in ["4.4", "5.0", "6.0", "7.0", "8.0"] {
        let f = fixture(version);
        for d in docs(&f, "chunks") {
            let pattern = pattern_of_bound(&d);
            let raw = bson::RawDocumentBuf::from_document(&d).unwrap();
            let shards = [
                "shard0000",
                "shard0001",
                "shard0002",
                "shard01",
                "shard02",
                "shard03",
            ];
            let mut index =
                |s: &str| ShardIdx(shards.iter().position(|x| *x == s).unwrap_or(99) as u32);
            let from_raw = ChunkRow::parse_raw(&raw, &pattern, &mut index);
            let from_doc = ChunkRow::parse(&d, &pattern, &mut index);
            assert_eq!(from_raw, from_doc, "{version}: {d}");
            seen += 1;
        }
    }
    assert!(seen >= 10, "{seen} fixture chunks");
    // A malformed one gives the document form's error.
    let d = bson::doc! {"_id": "x", "min": {"a": 1}, "max": {"a": 2}, "shard": "s", "lastmod": 5};
    let pattern = KeyPattern::parse(&bson::doc! {"a": 1}).unwrap();
    let raw = bson::RawDocumentBuf::from_document(&d).unwrap();
    let err = ChunkRow::parse_raw(&raw, &pattern, &mut |_| ShardIdx(0)).unwrap_err();
    assert!(err.to_string().contains("`lastmod`"), "{err}");
}
