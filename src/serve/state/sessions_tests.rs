//! Tests of `sessions`: what open transactions cost a write, their expiry, and a write outside a
//! transaction that meets a held document.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use bson::{Bson, Document, doc};

use super::*;

fn txn_cmd(session: i32, start: bool) -> Document {
    let mut d =
        doc! {"find": "c", "lsid": {"id": session}, "txnNumber": 1_i64, "autocommit": false};
    if start {
        d.insert("startTransaction", true);
    }
    d
}

fn outside(s: &mut Sessions) {
    s.begin_command("update", &doc! {"update": "c"}, true)
        .unwrap();
}

fn old(i: i32) -> Document {
    doc! {"_id": i, "pad": "x".repeat(1500)}
}

#[test]
fn two_hundred_open_transactions_keep_one_version_per_document_written() {
    let mut s = Sessions::default();
    for t in 0..200 {
        s.begin_command("find", &txn_cmd(t, true), true).unwrap();
    }
    for i in 0..2000 {
        outside(&mut s);
        s.may_write("db.c", &Bson::Int32(i)).unwrap();
        s.wrote("db.c", &Bson::Int32(i), Some(&old(i)));
        // A second write of the same document keeps nothing more.
        s.wrote("db.c", &Bson::Int32(i), Some(&doc! {"_id": i}));
    }
    // Was one copy per open transaction: 400,000 (about 700 MB of these documents).
    assert_eq!(s.versions.kept(), 2000);
    // Every transaction reads each document as it was when it began.
    for t in [0, 199] {
        s.begin_command("find", &txn_cmd(t, false), true).unwrap();
        let view = s.view("db.c").unwrap();
        assert_eq!(view.len(), 2000);
        assert_eq!(
            view.get(&crate::model::KeyValue::Int32(7)),
            Some(&Some(old(7)))
        );
        // And writing one of them is a conflict.
        assert_eq!(s.may_write("db.c", &Bson::Int32(7)).unwrap_err().code, 112);
    }
    for t in 0..200 {
        let lsid = session_id(&txn_cmd(t, false)).unwrap();
        s.finish(&lsid, t % 2 == 0);
    }
    assert_eq!(
        s.versions.kept(),
        0,
        "forgotten once no open transaction reads them"
    );
}

#[test]
fn a_transaction_expires_after_its_lifetime() {
    let mut s = Sessions::default();
    assert_eq!(s.lifetime_secs, 60);
    s.begin_command("find", &txn_cmd(1, true), true).unwrap();
    let lsid = session_id(&txn_cmd(1, false)).unwrap();
    let now = Instant::now();
    assert!(s.expired(now).is_empty());
    assert_eq!(s.expired(now + Duration::from_secs(61)), vec![lsid.clone()]);
    s.lifetime_secs = 1;
    assert_eq!(s.expired(now + Duration::from_secs(2)), vec![lsid.clone()]);
    s.finish(&lsid, false);
    assert!(s.expired(now + Duration::from_secs(2)).is_empty());
    // Its next command: NoSuchTransaction.
    let e = s
        .begin_command("find", &txn_cmd(1, false), true)
        .unwrap_err();
    assert_eq!(e.code, 251);
}

#[test]
fn a_write_outside_that_meets_a_held_document_before_writing_waits() {
    let mut s = Sessions::default();
    s.begin_command("update", &txn_cmd(1, true), true).unwrap();
    s.may_write("db.c", &Bson::Int32(1)).unwrap();
    s.wrote("db.c", &Bson::Int32(1), Some(&old(1)));
    let lsid = session_id(&txn_cmd(1, false)).unwrap();
    // Nothing written yet: the command waits for transaction 1 of session 1.
    outside(&mut s);
    assert_eq!(s.may_write("db.c", &Bson::Int32(1)).unwrap_err().code, 112);
    assert_eq!(s.take_blocked(), Some((lsid.clone(), 1)));
    assert!(s.is_open(&lsid, 1));
    // After writing another document first: the statement fails, the command does not wait.
    outside(&mut s);
    s.may_write("db.c", &Bson::Int32(2)).unwrap();
    s.wrote("db.c", &Bson::Int32(2), Some(&old(2)));
    assert!(s.may_write("db.c", &Bson::Int32(1)).is_err());
    assert_eq!(s.take_blocked(), None);
    s.finish(&lsid, true);
    assert!(!s.is_open(&lsid, 1));
}
