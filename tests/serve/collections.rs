//! Collection DDL through the real driver, as a mongos answers it: `create` (idempotent with the
//! same options, NamespaceExists 48 with others, capped options normalized, a validator kept and
//! checked on writes (121), what is not simulated refused with 115), `drop` (ok when missing, `info` from 5.0 when the database is missing; a
//! sharded collection leaves `config.collections` and `config.chunks`), `dropDatabase`,
//! `renameCollection` (4.4 refuses a sharded one, 13138), and the change events of each (`drop`,
//! `rename`, `dropDatabase`, then `invalidate`, which closes the stream).
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Bson, Document, doc};
use common::{admin, code_of, find_all, first_batch, serve_empty};

async fn run(client: &mongodb::Client, cmd: Document) -> mongodb::error::Result<Document> {
    client.database("app").run_command(cmd).await
}

async fn options_of(client: &mongodb::Client, coll: &str) -> Document {
    let reply = run(
        client,
        doc! {"listCollections": 1, "filter": {"name": coll}},
    )
    .await
    .unwrap();
    let list = first_batch(&reply);
    list[0].get_document("options").unwrap().clone()
}

#[tokio::test]
async fn create_is_idempotent_with_the_same_options_and_48_with_others() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let reply = run(&client, doc! {"create": "c"}).await.unwrap();
    assert_eq!(reply.get_f64("ok"), Ok(1.0), "{reply}");
    run(&client, doc! {"create": "c"}).await.unwrap();
    let err = run(&client, doc! {"create": "c", "capped": true, "size": 4096})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 48, "{err}");
    let text = err.to_string();
    assert!(
        text.contains(
            "namespace app.c already exists, but with different options: { uuid: UUID(\""
        ),
        "{text}"
    );

    run(
        &client,
        doc! {"create": "capped", "capped": true, "size": 1000, "max": 5},
    )
    .await
    .unwrap();
    let options = options_of(&client, "capped").await;
    assert_eq!(
        options,
        doc! {"capped": true, "size": 1024_i32, "max": 5_i32},
        "size rounded up to 256 bytes, int32"
    );
    run(
        &client,
        doc! {"create": "capped", "capped": true, "size": 1000, "max": 5},
    )
    .await
    .unwrap();
    let capped = client.database("app").collection::<Document>("capped");
    capped
        .insert_many((0..8).map(|i| doc! {"_id": i}))
        .await
        .unwrap();
    let ids: Vec<i32> = find_all(&client, "app", "capped", doc! {})
        .await
        .iter()
        .map(|d| d.get_i32("_id").unwrap())
        .collect();
    assert_eq!(ids, [3, 4, 5, 6, 7], "the newest `max` are kept");
    let err = run(&client, doc! {"create": "nosize", "capped": true})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 72, "InvalidOptions: {err}");
    assert!(
        err.to_string()
            .contains("specify size:<n> when capped is true")
    );
    let err = run(&client, doc! {"create": "v", "validator": {"$foo": 1}})
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err),
        2,
        "a bad validator is refused as the server parses it: {err}"
    );
    for cmd in [
        doc! {"create": "v", "validator": {"$jsonSchema": {"required": ["a"]}}},
        doc! {"create": "t", "timeseries": {"timeField": "t"}},
        doc! {"create": "w", "collation": {"locale": "fr"}},
    ] {
        let err = run(&client, cmd.clone()).await.unwrap_err();
        assert_eq!(code_of(&err), 115, "{cmd}: {err}");
    }
    let err = run(&client, doc! {"create": "x", "bogus": 1})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 40415, "{err}");
    let names: Vec<String> = client
        .database("app")
        .list_collection_names()
        .await
        .unwrap();
    assert_eq!(names, ["c", "capped"]);
}

#[tokio::test]
async fn drop_and_drop_database_answer_as_a_mongos_per_release_line() {
    for (version, info) in [("4.4", false), ("8.0", true)] {
        let (_server, client, _) = serve_empty(version, true).await;
        let reply = client
            .database("nodb")
            .run_command(doc! {"drop": "c"})
            .await
            .unwrap();
        assert_eq!(reply.contains_key("info"), info, "{version}: {reply}");
        run(&client, doc! {"create": "c"}).await.unwrap();
        run(&client, doc! {"drop": "missing"}).await.unwrap();
        let err = client
            .database("config")
            .run_command(doc! {"drop": "chunks"})
            .await
            .unwrap_err();
        assert_eq!(code_of(&err), 20, "{err}");
        let reply = run(&client, doc! {"dropDatabase": 1}).await.unwrap();
        assert_eq!(reply.get_str("dropped"), Ok("app"), "{reply}");
        let reply = run(&client, doc! {"dropDatabase": 1}).await.unwrap();
        assert_eq!(
            reply.get_str("info"),
            Ok("database does not exist"),
            "{reply}"
        );
    }
}

#[tokio::test]
async fn dropping_a_sharded_collection_removes_its_catalog_chunks_and_documents() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"shardCollection": "app.s", "key": {"k": 1}})
        .await
        .unwrap();
    let s = client.database("app").collection::<Document>("s");
    s.insert_many((0..5).map(|k| doc! {"k": k})).await.unwrap();
    assert_eq!(
        find_all(&client, "config", "collections", doc! {"_id": "app.s"})
            .await
            .len(),
        1
    );
    run(&client, doc! {"drop": "s"}).await.unwrap();
    assert!(
        find_all(&client, "config", "collections", doc! {"_id": "app.s"})
            .await
            .is_empty()
    );
    assert!(
        find_all(&client, "config", "chunks", doc! {})
            .await
            .iter()
            .all(|c| { c.get_str("ns") != Ok("app.s") })
    );
    assert_eq!(s.count_documents(doc! {}).await.unwrap(), 0);
    // Created again, it is a new, empty collection.
    s.insert_one(doc! {"k": 1}).await.unwrap();
    assert_eq!(s.count_documents(doc! {}).await.unwrap(), 1);
}

#[tokio::test]
async fn rename_moves_an_unsharded_collection_and_refuses_what_a_mongos_refuses() {
    for version in ["4.4", "8.0"] {
        let (_server, client, _) = serve_empty(version, true).await;
        let a = client.database("app").collection::<Document>("a");
        a.insert_many([doc! {"_id": 1}, doc! {"_id": 2}])
            .await
            .unwrap();
        admin(&client, doc! {"renameCollection": "app.a", "to": "app.b"})
            .await
            .unwrap();
        let b = client.database("app").collection::<Document>("b");
        assert_eq!(b.count_documents(doc! {}).await.unwrap(), 2);
        assert_eq!(a.count_documents(doc! {}).await.unwrap(), 0);
        run(&client, doc! {"create": "c"}).await.unwrap();
        let err = admin(&client, doc! {"renameCollection": "app.b", "to": "app.c"})
            .await
            .unwrap_err();
        assert_eq!(code_of(&err), 48, "{err}");
        admin(
            &client,
            doc! {"renameCollection": "app.b", "to": "app.c", "dropTarget": true},
        )
        .await
        .unwrap();
        let err = admin(
            &client,
            doc! {"renameCollection": "app.none", "to": "app.d"},
        )
        .await
        .unwrap_err();
        assert_eq!(code_of(&err), 26, "{err}");
        let err = run(&client, doc! {"renameCollection": "app.c", "to": "app.d"})
            .await
            .unwrap_err();
        assert_eq!(code_of(&err), 13, "admin only: {err}");
        admin(&client, doc! {"shardCollection": "app.s", "key": {"k": 1}})
            .await
            .unwrap();
        let err = admin(&client, doc! {"renameCollection": "app.s", "to": "app.t"})
            .await
            .unwrap_err();
        let want = if version == "4.4" { 13138 } else { 115 };
        assert_eq!(code_of(&err), want, "{version}: {err}");
    }
}

/// Opens a change stream on `db` (`coll`: a collection's, else the database's).
async fn open(client: &mongodb::Client, db: &str, coll: Option<&str>) -> i64 {
    let target = coll.map_or(Bson::Int32(1), |c| Bson::String(c.into()));
    let reply = client
        .database(db)
        .run_command(doc! {"aggregate": target, "pipeline": [{"$changeStream": {}}], "cursor": {}})
        .await
        .unwrap();
    reply.get_document("cursor").unwrap().get_i64("id").unwrap()
}

/// The next batch of stream `id`: the operation types and the cursor id after it.
async fn next(client: &mongodb::Client, db: &str, coll: &str, id: i64) -> (Vec<String>, i64) {
    let reply = client
        .database(db)
        .run_command(doc! {"getMore": id, "collection": coll, "maxTimeMS": 50})
        .await
        .unwrap();
    let cursor = reply.get_document("cursor").unwrap();
    let ops = cursor
        .get_array("nextBatch")
        .unwrap()
        .iter()
        .map(|e| {
            e.as_document()
                .unwrap()
                .get_str("operationType")
                .unwrap()
                .to_string()
        })
        .collect();
    (ops, cursor.get_i64("id").unwrap())
}

#[tokio::test]
async fn drop_rename_and_drop_database_end_the_streams_on_what_they_removed() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    run(&client, doc! {"create": "c"}).await.unwrap();
    run(&client, doc! {"create": "r"}).await.unwrap();
    let on_c = open(&client, "app", Some("c")).await;
    let on_r = open(&client, "app", Some("r")).await;
    let on_db = open(&client, "app", None).await;
    let on_all = client
        .database("admin")
        .run_command(doc! {"aggregate": 1, "pipeline": [{"$changeStream": {"allChangesForCluster": true}}], "cursor": {}})
        .await
        .unwrap()
        .get_document("cursor")
        .unwrap()
        .get_i64("id")
        .unwrap();
    client
        .database("app")
        .collection::<Document>("c")
        .insert_one(doc! {"x": 1})
        .await
        .unwrap();
    run(&client, doc! {"drop": "c"}).await.unwrap();
    admin(&client, doc! {"renameCollection": "app.r", "to": "app.r2"})
        .await
        .unwrap();
    run(&client, doc! {"dropDatabase": 1}).await.unwrap();
    assert_eq!(
        next(&client, "app", "c", on_c).await,
        (vec!["insert".into(), "drop".into(), "invalidate".into()], 0)
    );
    assert_eq!(
        next(&client, "app", "r", on_r).await,
        (vec!["rename".into(), "invalidate".into()], 0)
    );
    assert_eq!(
        next(&client, "app", "$cmd.aggregate", on_db).await,
        (
            vec![
                "insert".into(),
                "drop".into(),
                "rename".into(),
                "drop".into(),
                "dropDatabase".into(),
                "invalidate".into()
            ],
            0
        )
    );
    let (ops, id) = next(&client, "admin", "$cmd.aggregate", on_all).await;
    assert_eq!(ops, ["insert", "drop", "rename", "drop", "dropDatabase"]);
    assert_ne!(id, 0, "a cluster-wide stream is never invalidated");
}

#[tokio::test]
async fn a_validator_is_kept_and_checked_on_every_write() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    run(
        &client,
        doc! {"create": "v", "validator": {"qty": {"$gte": 0}, "sku": {"$exists": true}}},
    )
    .await
    .unwrap();
    let options = options_of(&client, "v").await;
    assert_eq!(
        options.get_document("validator"),
        Ok(&doc! {"qty": {"$gte": 0}, "sku": {"$exists": true}})
    );
    run(
        &client,
        doc! {"insert": "v", "documents": [{"_id": 1, "qty": 2, "sku": "a"}]},
    )
    .await
    .unwrap();
    let reply = run(
        &client,
        doc! {"insert": "v", "documents": [{"_id": 2, "qty": -1, "sku": "b"}]},
    )
    .await
    .unwrap();
    let error = reply.get_array("writeErrors").unwrap()[0]
        .as_document()
        .unwrap()
        .clone();
    assert_eq!(error.get_i32("code"), Ok(121), "{error}");
    assert_eq!(error.get_str("errmsg"), Ok("Document failed validation"));
    assert_eq!(
        error
            .get_document("errInfo")
            .unwrap()
            .get_i32("failingDocumentId"),
        Ok(2)
    );
    let reply = run(
        &client,
        doc! {"update": "v", "updates": [{"q": {"_id": 1}, "u": {"$unset": {"sku": ""}}}]},
    )
    .await
    .unwrap();
    assert!(
        reply.contains_key("writeErrors"),
        "an update is checked too: {reply}"
    );
    run(
        &client,
        doc! {"create": "w", "validator": {"qty": {"$gte": 0}}, "validationAction": "warn"},
    )
    .await
    .unwrap();
    let reply = run(&client, doc! {"insert": "w", "documents": [{"qty": -5}]})
        .await
        .unwrap();
    assert_eq!(reply.get_i32("n"), Ok(1), "warn lets it through: {reply}");
    let err = run(
        &client,
        doc! {"create": "x", "validator": {"a": 1}, "validationLevel": "loose"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 2, "{err}");
}
