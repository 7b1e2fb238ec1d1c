//! `createIndexes` conflicts and duplicate keys through the real driver, as
//! `index_catalog_impl.cpp` and `duplicate_key_error_info.cpp` answer them: the same name with
//! another key is 86, the same key under another name or another TTL is 85, the same index again
//! is ok with "all indexes already exist"; a new index inside a transaction on an existing
//! collection is 263; E11000 carries `keyPattern` and `keyValue` in a write error (and in a
//! command error's reply: `reply::error_info`'s unit test).
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{code_of, serve_empty};

async fn run(client: &mongodb::Client, cmd: Document) -> mongodb::error::Result<Document> {
    client.database("app").run_command(cmd).await
}

fn create(key: Document, name: &str, extra: Document) -> Document {
    let mut spec = doc! {"key": key, "name": name};
    spec.extend(extra);
    doc! {"createIndexes": "c", "indexes": [spec]}
}

#[tokio::test]
async fn conflicting_index_specs_are_refused_with_the_servers_codes() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    run(&client, create(doc! {"a": 1}, "a_1", doc! {}))
        .await
        .unwrap();
    run(
        &client,
        create(doc! {"t": 1}, "ttl", doc! {"expireAfterSeconds": 60}),
    )
    .await
    .unwrap();
    let err = run(&client, create(doc! {"b": 1}, "a_1", doc! {}))
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 86, "{err}");
    assert!(
        err.to_string()
            .contains("An existing index has the same name as the requested index."),
        "{err}"
    );
    let err = run(&client, create(doc! {"a": 1}, "other", doc! {}))
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 85, "{err}");
    assert!(
        err.to_string()
            .contains("Index already exists with a different name: a_1"),
        "{err}"
    );
    let err = run(
        &client,
        create(doc! {"t": 1}, "ttl", doc! {"expireAfterSeconds": 120}),
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 85, "another TTL: {err}");
    assert!(
        err.to_string().contains("same name but different options"),
        "{err}"
    );
    let err = run(&client, create(doc! {"a": 1}, "a_u", doc! {"unique": true}))
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 85, "{err}");
    assert!(
        err.to_string().contains("different name and options"),
        "{err}"
    );
    let reply = run(&client, create(doc! {"a": 1.0}, "a_1", doc! {}))
        .await
        .unwrap();
    assert_eq!(
        reply.get_str("note"),
        Ok("all indexes already exist"),
        "{reply}"
    );
    assert_eq!(
        reply.get_i32("numIndexesBefore"),
        reply.get_i32("numIndexesAfter")
    );
}

#[tokio::test]
async fn a_new_index_in_a_transaction_on_an_existing_collection_is_263() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    run(&client, create(doc! {"a": 1}, "a_1", doc! {}))
        .await
        .unwrap();
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    let db = client.database("app");
    let same = db
        .run_command(create(doc! {"a": 1}, "a_1", doc! {}))
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(same.get_str("note"), Ok("all indexes already exist"));
    let err = db
        .run_command(create(doc! {"b": 1}, "b_1", doc! {}))
        .session(&mut session)
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 263, "{err}");
    assert!(
        err.to_string().contains(
            "Cannot create new indexes on existing collection app.c in a multi-document transaction."
        ),
        "{err}"
    );
}

#[tokio::test]
async fn duplicate_keys_carry_key_pattern_and_key_value() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    run(
        &client,
        create(
            doc! {"email": 1, "org": -1},
            "email_org",
            doc! {"unique": true},
        ),
    )
    .await
    .unwrap();
    run(
        &client,
        doc! {"insert": "c", "documents": [{"_id": 1, "email": "a@x", "org": 7}]},
    )
    .await
    .unwrap();
    let reply = run(
        &client,
        doc! {"insert": "c", "documents": [{"_id": 1}, {"_id": 2, "email": "a@x", "org": 7}], "ordered": false},
    )
    .await
    .unwrap();
    let errors = reply.get_array("writeErrors").unwrap();
    let id = errors[0].as_document().unwrap();
    assert_eq!(id.get_document("keyPattern"), Ok(&doc! {"_id": 1}));
    assert_eq!(id.get_document("keyValue"), Ok(&doc! {"_id": 1}));
    assert_eq!(
        id.get_str("errmsg"),
        Ok("E11000 duplicate key error collection: app.c index: _id_ dup key: { _id: 1 }")
    );
    let unique = errors[1].as_document().unwrap();
    assert_eq!(
        unique.get_document("keyPattern"),
        Ok(&doc! {"email": 1, "org": -1})
    );
    assert_eq!(
        unique.get_document("keyValue"),
        Ok(&doc! {"email": "a@x", "org": 7})
    );
    assert_eq!(
        unique.get_str("errmsg"),
        Ok(
            "E11000 duplicate key error collection: app.c index: email_org dup key: { email: \"a@x\", org: 7 }"
        )
    );
    run(
        &client,
        doc! {"insert": "c", "documents": [{"_id": 3, "email": "b@x", "org": 7}]},
    )
    .await
    .unwrap();
    let err = run(
        &client,
        doc! {"findAndModify": "c", "query": {"_id": 3}, "update": {"$set": {"email": "a@x"}}},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 11000, "{err}");
    let mongodb::error::ErrorKind::Command(c) = &*err.kind else {
        panic!("{err}");
    };
    assert_eq!(c.code_name, "DuplicateKey");
}
