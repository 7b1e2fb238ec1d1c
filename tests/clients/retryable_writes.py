"""Retryable writes and write concern, as an engineer testing a driver's retry logic sends them
(issue 33), through PyMongo against --server-version 8.0.

Retryable writes: a command with the session's `lsid` and an explicit `txnNumber` (no
`autocommit`) is a retryable write; PyMongo's `command(..., session=s)` adds the `lsid` and keeps
the `txnNumber` given, so the very same write can be replayed as a driver does after a network
error. Expected (mongo `src/mongo/db/transaction/transaction_participant.cpp`, `beginOrContinue`
and `_beginOrContinueRetryableWrite`; the Retryable Writes docs, "the server ... returns the
result of the first execution"):
- the same lsid + txnNumber replayed returns the first reply and does not run again (an `$inc`
  applied once; a replayed insert is not E11000);
- an older txnNumber is TransactionTooOld (225): "Retryable write with txnNumber 1 is prohibited
  on session … because a newer retryable write with txnNumber 2 has already started on this
  session." — through a mongos a write error of the batch (`s/write_ops/batch_write_op.cpp`,
  `noteBatchResponse`), the command's error for findAndModify.

Write concern (each `serve` shard is a one-member replica set): `w: "blah"` is
UnknownReplWriteConcern (79), "No write concern mode named 'blah' found in replica set
configuration" (`db/repl/repl_set_config.cpp`); `w: 2` is UnsatisfiableWriteConcern (100), "Not
enough data-bearing nodes"; both beside the applied write (`ok: 1`, `n: 1`: the read-write-concern
specification's example), with " at <shard>" added by the mongos (`batch_write_op.cpp`,
`buildClientResponse`). PyMongo raises WriteConcernError for it after the write.

Run with the URI as argv[1].
"""

import sys

from bson.int64 import Int64
from pymongo import MongoClient
from pymongo.errors import OperationFailure, WriteConcernError
from pymongo.write_concern import WriteConcern

from clientlib import Checks

t = Checks("retryable_writes")
client = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000)
db = client.retry
admin = client.admin

t.step("enableSharding retry", lambda: admin.command("enableSharding", "retry"))
t.step("shardCollection retry.counters {_id: 1}",
       lambda: admin.command("shardCollection", "retry.counters", key={"_id": 1}))
# The counter is inserted through another client: a driver's own retryable insert takes a pooled
# server session with txnNumber 1, and the explicit session below could be that same one (a
# server would then rightly answer txnNumber 1 again with the insert's reply).
setup = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000)
t.step("insert the counter", lambda: setup.retry.counters.insert_one({"_id": "visits", "n": 0}))

with client.start_session() as s:
    inc = {"update": "counters", "updates": [{"q": {"_id": "visits"}, "u": {"$inc": {"n": 1}}}],
           "txnNumber": Int64(1)}
    first = t.step("$inc with txnNumber 1", lambda: db.command(dict(inc), session=s)) or {}
    t.eq("first $inc: n 1, nModified 1", (first.get("n"), first.get("nModified")), (1, 1))
    again = t.step("the same $inc replayed", lambda: db.command(dict(inc), session=s)) or {}
    t.eq("the replay answers the first reply", (again.get("n"), again.get("nModified")), (1, 1))
    t.eq("the counter was incremented once", (db.counters.find_one({"_id": "visits"}) or {}).get("n"), 1)

    ins = {"insert": "counters", "documents": [{"_id": "orders", "n": 0}], "txnNumber": Int64(2)}
    r1 = t.step("insert with txnNumber 2", lambda: db.command(dict(ins), session=s)) or {}
    t.eq("insert: n 1", r1.get("n"), 1)
    r2 = t.step("the same insert replayed", lambda: db.command(dict(ins), session=s)) or {}
    t.eq("the replayed insert is not E11000: n 1, no writeErrors",
         (r2.get("n"), r2.get("writeErrors")), (1, None))

    old = {"update": "counters", "updates": [{"q": {"_id": "visits"}, "u": {"$inc": {"n": 1}}}],
           "txnNumber": Int64(1)}
    r3 = t.step("an older txnNumber (1 after 2)", lambda: db.command(dict(old), session=s)) or {}
    errs = r3.get("writeErrors") or [{}]
    t.eq("older txnNumber: n 0, a write error TransactionTooOld (225)",
         (r3.get("n"), errs[0].get("code")), (0, 225))
    msg = errs[0].get("errmsg", "")
    t.check("its message: Retryable write with txnNumber 1 is prohibited on session … newer "
            "retryable write with txnNumber 2 …",
            msg.startswith("Retryable write with txnNumber 1 is prohibited on session ")
            and msg.endswith("because a newer retryable write with txnNumber 2 has already "
                             "started on this session."), repr(msg))
    t.eq("the counter is still 1", (db.counters.find_one({"_id": "visits"}) or {}).get("n"), 1)

    fam = {"findAndModify": "counters", "query": {"_id": "visits"}, "update": {"$inc": {"n": 10}},
           "new": True, "txnNumber": Int64(3)}
    f1 = t.step("findAndModify with txnNumber 3", lambda: db.command(dict(fam), session=s)) or {}
    t.eq("findAndModify: value.n 11", (f1.get("value") or {}).get("n"), 11)
    f2 = t.step("the same findAndModify replayed", lambda: db.command(dict(fam), session=s)) or {}
    t.eq("the replay answers value.n 11 again", (f2.get("value") or {}).get("n"), 11)
    t.eq("the counter is 11", (db.counters.find_one({"_id": "visits"}) or {}).get("n"), 11)
    try:
        db.command(dict(fam, txnNumber=Int64(2)), session=s)
        t.fail("findAndModify with an older txnNumber", "no error")
    except OperationFailure as e:
        t.eq("findAndModify with an older txnNumber: TransactionTooOld (225)", e.code, 225)

# PyMongo's own retryable writes (retryWrites=true, the default) still run each write once. (A
# second client: the first one's pooled server session carries the numbers given by hand above,
# which its own counter does not know.)
driver = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000).retry
t.step("insert_one with the driver's txnNumber", lambda: driver.counters.insert_one({"_id": "x"}))
t.eq("update_one $inc through the driver", t.step(
    "update_one", lambda: driver.counters.update_one({"_id": "visits"}, {"$inc": {"n": 1}}).modified_count), 1)
t.eq("the counter is 12", (db.counters.find_one({"_id": "visits"}) or {}).get("n"), 12)

# Write concern.
raw = t.step("insert with w: 'blah'", lambda: db.command(
    {"insert": "counters", "documents": [{"_id": "wc1"}], "writeConcern": {"w": "blah"}})) or {}
wce = raw.get("writeConcernError") or {}
t.eq("w: 'blah': the write applied (n 1, ok 1)", (raw.get("n"), raw.get("ok")), (1, 1.0))
t.eq("w: 'blah': writeConcernError UnknownReplWriteConcern (79)",
     (wce.get("code"), wce.get("codeName")), (79, "UnknownReplWriteConcern"))
t.eq("its errmsg, at the shard that holds _id 'wc1'", wce.get("errmsg"),
     "No write concern mode named 'blah' found in replica set configuration at shard0000")
t.check("the document is there", db.counters.find_one({"_id": "wc1"}) is not None)

coll2 = driver.get_collection("counters", write_concern=WriteConcern(w=2))
try:
    coll2.insert_one({"_id": "wc2"})
    t.fail("insert_one with w: 2", "no WriteConcernError")
except WriteConcernError as e:
    t.eq("w: 2: WriteConcernError UnsatisfiableWriteConcern (100)",
         (e.code, (e.details or {}).get("codeName")), (100, "UnsatisfiableWriteConcern"))
    t.eq("its errmsg", (e.details or {}).get("errmsg"), "Not enough data-bearing nodes at shard0000")
t.check("the w: 2 insert applied all the same", db.counters.find_one({"_id": "wc2"}) is not None)

ok_majority = t.step("insert with w: 'majority'", lambda: db.command(
    {"insert": "counters", "documents": [{"_id": "wc3"}], "writeConcern": {"w": "majority"}})) or {}
t.eq("w: 'majority' has no writeConcernError", ok_majority.get("writeConcernError"), None)

dup = t.step("an insert that fails with w: 'blah'", lambda: db.command(
    {"insert": "counters", "documents": [{"_id": "wc1"}], "writeConcern": {"w": "blah"}})) or {}
t.eq("no writeConcernError when every statement failed (buildClientResponse)",
     (len(dup.get("writeErrors") or []), dup.get("writeConcernError")), (1, None))

t.finish()
