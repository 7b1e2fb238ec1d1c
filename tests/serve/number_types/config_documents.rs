//! config.shards, config.databases, config.collections, config.chunks, `sh.status()`'s chunk counts, config.version and config.mongos, in the types real servers send.

use super::*;

// ---------------------------------------------------------------------------------------------
// config.shards: `sh.status()` prints the documents as they are (`shards.find().sort({_id: 1})`).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_shards() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        // The shards section of each version's real sample.
        let (fx, section) = match v {
            "6.0" => (
                &SH_STATUS_60,
                SH_STATUS_60.section("---\nshards\n[", "]\n---"),
            ),
            "7.0" => (
                &SH_STATUS_70,
                SH_STATUS_70.section("---\nshards\n[", "]\n---"),
            ),
            _ => (&SHARDS_80, SHARDS_80.section("shards.find()", "\n]")),
        };
        let anchor = if v == "8.0" {
            "shards.find()"
        } else {
            "---\nshards\n["
        };
        let cite = fx.at(anchor);
        let docs = config_docs(&client, "shards", doc! {}).await;
        assert!(!docs.is_empty(), "{v}: no shards");
        for d in &docs {
            let what = format!("{v} config.shards {}", d.get_str("_id").unwrap_or("?"));
            for field in ["state", "topologyTime", "replSetConfigVersion"] {
                match value_of(&section, field) {
                    Some(p) => m.kind(&what, d, field, printed_kind(&p), &cite),
                    None => m.absent(&what, d, field, &cite),
                }
            }
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.databases: `sh.status()` prints each document as `database: {…}`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_databases() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        // 6.0.3 and 7.0.24: a user database in real sh.status(); 8.0: the 8.0 reference page
        // (no `partitioned`).
        let (fx, anchor, section) = match v {
            "6.0" => (
                &SH_STATUS_60,
                "_id: 'ourBase'",
                SH_STATUS_60.section("_id: 'ourBase'", "collections:"),
            ),
            "7.0" => (
                &SH_STATUS_70,
                "_id: 'ecommerce'",
                SH_STATUS_70.section("_id: 'ecommerce'", "collections:"),
            ),
            _ => (
                &CONFIG_DOCS,
                "# ---- config.databases (8.0 page",
                CONFIG_DOCS.section("# ---- config.databases (8.0 page", "# ----"),
            ),
        };
        let cite = fx.at(anchor);
        let docs = config_docs(&client, "databases", doc! {"_id": "shop"}).await;
        assert_eq!(docs.len(), 1, "{v}: config.databases shop");
        let what = format!("{v} config.databases shop");
        for (path, field) in [
            ("version.lastMod", "lastMod"),
            ("version.timestamp", "timestamp"),
            ("version.uuid", "uuid"),
            ("partitioned", "partitioned"),
        ] {
            match value_of(&section, field) {
                Some(p) => m.kind(&what, &docs[0], path, printed_kind(&p), &cite),
                None => m.absent(&what, &docs[0], path, &cite),
            }
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.collections: `sh.status()` reads `key`, `unique`, `noBalance`; mongosh picks the chunk
// query by `timestamp`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_collections() {
    let docs_anchor = "# ---- config.collections";
    // (The document printed after the prompt, not the prompt's projection.)
    let real_anchor = "_id: 'shop.orders',";
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        // The collection-balancing settings: `maxChunkSizeBytes` (no fixture shows it; the
        // server's `type_collection.idl` declares it `safeInt64`, an int64).
        common::admin(
            &client,
            doc! {"configureCollectionBalancing": "shop.users", "chunkSize": 64},
        )
        .await
        .unwrap();
        let orders = common::config_collection(&client, "shop.orders")
            .await
            .unwrap();
        let users = common::config_collection(&client, "shop.users")
            .await
            .unwrap();
        let what = format!("{v} config.collections shop.orders");
        // 6.0 and 8.0 reference pages (identical): lastmod ISODate, timestamp Timestamp …
        let cite = CONFIG_DOCS.at(docs_anchor);
        for field in ["lastmod", "timestamp", "unique", "lastmodEpoch", "uuid"] {
            m.kind(
                &what,
                &orders,
                field,
                CONFIG_DOCS.kind(docs_anchor, field),
                &cite,
            );
        }
        // Real 8.0.32 config.collections: timestamp, uuid, key {customerId: 1}, unique.
        let cite80 = SHARDS_80.at(real_anchor);
        for field in ["timestamp", "uuid", "unique"] {
            m.kind(
                &what,
                &orders,
                field,
                SHARDS_80.kind(real_anchor, field),
                &cite80,
            );
        }
        m.kind(
            &what,
            &orders,
            "key.customerId",
            SHARDS_80.kind(real_anchor, "customerId"),
            &cite80,
        );
        // A hashed key prints as { a: 'hashed' } (real 6.0.3 sh.status()).
        let hashed = "'ourBase.col_hash': {";
        m.kind(
            &format!("{v} config.collections shop.users"),
            &users,
            "key.userId",
            SH_STATUS_60.kind(hashed, "a"),
            &SH_STATUS_60.at(hashed),
        );
        // noBalance: a bool when written (mongosh `typeof coll.noBalance !== 'boolean'` shows
        // anything else as odd); the reference page's example has none.
        m.kind_if_present(
            &what,
            &orders,
            "noBalance",
            Kind::Bool,
            "type_collection.idl (bool)",
        );
        m.kind(
            &format!("{v} config.collections shop.users"),
            &users,
            "maxChunkSizeBytes",
            Kind::Int64,
            "mongodb/mongo src/mongo/s/catalog/type_collection.idl (maxChunkSizeBytes: safeInt64; no fixture)",
        );
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.chunks: `sh.status()` prints min, max, shard, lastmod of each chunk.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_chunks() {
    let docs_anchor = "# ---- config.chunks";
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let orders = chunk_docs(&client, "shop.orders").await;
        let users = chunk_docs(&client, "shop.users").await;
        assert_eq!(orders.len(), 3, "{v}: shop.orders chunks");
        let cite = CONFIG_DOCS.at(docs_anchor);
        for (i, c) in orders.iter().chain(users.iter()).enumerate() {
            let what = format!("{v} config.chunks #{i}");
            for field in ["_id", "uuid", "shard", "lastmod"] {
                m.kind(&what, c, field, CONFIG_DOCS.kind(docs_anchor, field), &cite);
            }
            m.kind(&what, c, "history", Kind::Array, &cite);
            m.kind(
                &what,
                c,
                "history.0.validAfter",
                CONFIG_DOCS.kind(docs_anchor, "validAfter"),
                &cite,
            );
            m.kind(
                &what,
                c,
                "history.0.shard",
                CONFIG_DOCS.kind("validAfter", "shard"),
                &cite,
            );
            // onCurrentShardSince: 6.3+ (7.0 docs sample); not in the 6.0 page's example.
            if v == "6.0" {
                m.absent(&what, c, "onCurrentShardSince", &cite);
            } else {
                let a = "chunkA:";
                m.kind(
                    &what,
                    c,
                    "onCurrentShardSince",
                    METADATA_70.kind(a, "onCurrentShardSince"),
                    &METADATA_70.at(a),
                );
            }
        }
        // Range bounds keep the type they were given (int32 here): real 8.0.32 prints
        // `max: { customerId: 3784 }` after splits/moveRange (the server stores the values as
        // given, in every version).
        let a = "max: { customerId: 3784 }";
        m.kind(
            &format!("{v} config.chunks shop.orders [100, 150)"),
            &orders[1],
            "min.customerId",
            CHUNKS_80.kind(a, "customerId"),
            &CHUNKS_80.at(a),
        );
        // Hashed bounds are int64: Long("-6148914691236517204") in 6.0.3, Long('0') in 8.0.32.
        let (fx, a) = if v == "6.0" {
            (&SH_STATUS_60, "min: { a: Long(\"-6148914691236517204\") }")
        } else {
            (&CHUNKS_80, "max: { userId: Long('0') }")
        };
        let field = if v == "6.0" { "a" } else { "userId" };
        let want = fx.kind(a, field);
        for (i, c) in users.iter().enumerate() {
            let what = format!("{v} config.chunks shop.users #{i}");
            for bound in ["min.userId", "max.userId"] {
                let b = at(c, bound).map(kind_of);
                if b != Some(Kind::MinKey) && b != Some(Kind::MaxKey) {
                    m.kind(&what, c, bound, want, &fx.at(a));
                }
            }
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// sh.status()'s chunk counts and getShardDistribution()'s `countDocuments`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sh_status_chunk_counts() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let (fx, a) = match v {
            "6.0" => (&SH_STATUS_60, "'ourBase.col': {"),
            _ => (&SH_STATUS_70, "'ecommerce.orders': {"),
        };
        let want = fx.kind(a, "nChunks");
        for ns in ["shop.orders", "shop.users"] {
            let uuid = common::config_collection(&client, ns)
                .await
                .unwrap()
                .get("uuid")
                .unwrap()
                .clone();
            // mongosh helpers.ts getPrintableShardStatus, verbatim.
            let rows = aggregate(
                &client,
                "config",
                "chunks",
                vec![
                    doc! {"$match": {"uuid": uuid.clone()}},
                    doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
                    doc! {"$project": {"_id": 0, "shard": "$_id", "nChunks": "$cnt"}},
                    doc! {"$sort": {"shard": 1}},
                ],
            )
            .await;
            assert!(!rows.is_empty(), "{v} {ns}: no chunk counts");
            for r in &rows {
                let what = format!("{v} sh.status chunkMetadata {ns}");
                m.kind(&what, r, "nChunks", want, &fx.at(a));
                m.kind(&what, r, "shard", fx.kind(a, "shard"), &fx.at(a));
            }
            // countDocuments (getShardDistribution's chunk count per shard) is the driver's
            // `$group: {_id: 1, n: {$sum: 1}}`: the same $sum of int32 1s as nChunks.
            let rows = aggregate(
                &client,
                "config",
                "chunks",
                vec![
                    doc! {"$match": {"uuid": uuid}},
                    doc! {"$group": {"_id": 1, "n": {"$sum": 1}}},
                ],
            )
            .await;
            m.kind(
                &format!("{v} config.chunks countDocuments {ns}"),
                &rows[0],
                "n",
                want,
                &fx.at(a),
            );
        }
        // The 8.0.32 sample's own $group {chunks: {$sum: 1}} prints bare integers too.
        let a80 = "[ { _id: 'sh1', chunks:";
        assert_eq!(CHUNKS_80.kind(a80, "chunks"), Kind::Int32);
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.version (`shardingVersion`), config.mongos (`active mongoses`).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_version_and_mongos() {
    let mut m = Mismatches::default();
    let mongos_anchor = "# ---- config.mongos";
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let version = config_docs(&client, "version", doc! {}).await;
        assert_eq!(version.len(), 1, "{v}: config.version");
        let what = format!("{v} config.version");
        let fx = if v == "6.0" {
            &SH_STATUS_60
        } else {
            &SH_STATUS_70
        };
        let a = "shardingVersion";
        for field in ["_id", "clusterId"] {
            m.kind(&what, &version[0], field, fx.kind(a, field), &fx.at(a));
        }
        // 6.0.3 (mongosh 1.x, which printed the whole document) has minCompatibleVersion: 5,
        // currentVersion: 6. mongosh 2.x projects minCompatibleVersion away and deletes
        // currentVersion before printing, so the 7.0 samples cannot tell about them.
        if v == "6.0" {
            for field in ["minCompatibleVersion", "currentVersion"] {
                m.kind(
                    &what,
                    &version[0],
                    field,
                    SH_STATUS_60.kind(a, field),
                    &SH_STATUS_60.at(a),
                );
            }
        }

        let mongos = config_docs(&client, "mongos", doc! {}).await;
        assert!(!mongos.is_empty(), "{v}: config.mongos");
        let what = format!("{v} config.mongos");
        let cite = CONFIG_DOCS.at(mongos_anchor);
        for field in [
            "advisoryHostFQDNs",
            "created",
            "mongoVersion",
            "ping",
            "up",
            "waiting",
        ] {
            m.kind(
                &what,
                &mongos[0],
                field,
                CONFIG_DOCS.kind(mongos_anchor, field),
                &cite,
            );
        }
        server.shutdown().await;
    }
    m.assert_none();
}
