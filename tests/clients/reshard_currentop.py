"""Seed 003 (lesson "04 · Choosing & Changing a Shard Key", MongoDB 9.0.2, three shards): resharding
shop.orders from {customerId: "hashed"} to {customerId: 1, placedAt: 1}, watched through $currentOp
while it runs — "While it ran, $currentOp showed each shard both donating and cloning:

    shB cloning elapsed Long('183') remaining est Long('166') copied Long('69752')
    shB donating-initial-data elapsed Long('183') ...
    minimum duration ms: 300000"

mongosh has no threads, so this one is PyMongo: a thread runs reshardCollection while the main
thread polls $currentOp (allUsers, localOps: false) for the operations whose originatingCommand is
that reshardCollection, until it has seen recipient entries (recipientState, documentsCopied and
remainingOperationTimeEstimatedSecs as int64) and donor entries (donorState). The minimum duration
is cut to 5 s with setParameter. Then a second reshardCollection is ended by
abortReshardCollection: it fails with ReshardCollectionAborted (341) and the key stays. 4,010
orders (as 003_orders.js) instead of 200,000. Run with the URI as argv[1], against
--server-version 9.0.
"""

import sys
import threading
import time
from datetime import datetime, timedelta, timezone

from bson.int64 import Int64
from pymongo import MongoClient
from pymongo.errors import OperationFailure, PyMongoError

from clientlib import Checks, error_text

t = Checks("reshard_currentop")
client = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000)
admin = client.admin
shop = client.shop
ns = "shop.orders"
shards = ["shard0000", "shard0001", "shard0002"]

t.step("enableSharding shop", lambda: admin.command("enableSharding", "shop"))
r = t.step("shardCollection", lambda: admin.command("shardCollection", ns, key={"customerId": "hashed"}))
t.eq("shardCollection ok", r and r.get("ok"), 1.0)
jan1 = datetime(2026, 1, 1, tzinfo=timezone.utc)
docs = [{"customerId": (i * 5) % 20000, "orderNo": i + 1, "placedAt": jan1 + timedelta(days=(i * 7919) % 365),
         "total": (i * 31) % 500} for i in range(4000)]
docs += [{"customerId": 4242, "orderNo": 100001 + k, "placedAt": jan1 + timedelta(days=30 * k), "total": 42}
         for k in range(10)]
ins = t.step("insert_many", lambda: shop.orders.insert_many(docs))
t.eq("4010 orders inserted", ins and len(ins.inserted_ids), 4010)

# "minimum duration ms: 300000" — cut to 5 s.
got = t.step("getParameter", lambda: admin.command(
    {"getParameter": 1, "reshardingMinimumOperationDurationMillis": 1}))
t.eq("minimum duration ms: 300000", got and got.get("reshardingMinimumOperationDurationMillis"), 300000)
got = t.step("setParameter", lambda: admin.command(
    {"setParameter": 1, "reshardingMinimumOperationDurationMillis": 5000}))
t.eq("setParameter: ok, was 300000", got and (got.get("ok"), got.get("was")), (1.0, 300000))

PIPELINE = [{"$currentOp": {"allUsers": True, "localOps": False}},
            {"$match": {"type": "op", "originatingCommand.reshardCollection": ns}}]


def current_ops():
    return list(admin.aggregate(PIPELINE))


class Reshard(threading.Thread):
    """reshardCollection in the background: its reply or error, and how long it took."""

    def __init__(self, key):
        super().__init__(daemon=True)
        self.key = key
        self.reply = None
        self.error = None
        self.seconds = None

    def run(self):
        t0 = time.monotonic()
        try:
            self.reply = admin.command("reshardCollection", ns, key=self.key)
        except PyMongoError as e:  # noqa: BLE001 - reported by the main thread
            self.error = e
        self.seconds = time.monotonic() - t0


def settled_ops(seconds=10):
    """$currentOp's resharding entries once they are gone (a few seconds for the cleanup), or the last."""
    end = time.monotonic() + seconds
    while True:
        ops = current_ops()
        if not ops or time.monotonic() > end:
            return ops
        time.sleep(0.2)


def fmt(op):
    """One entry as the seed prints it: shard, state, elapsed, remaining, copied."""
    state = op.get("recipientState") or op.get("donorState") or op.get("coordinatorState")
    return (f"{op.get('shard', '?')} {state} elapsed {op.get('totalOperationTimeElapsedSecs')!r} "
            f"remaining est {op.get('remainingOperationTimeEstimatedSecs')!r} "
            f"copied {op.get('documentsCopied')!r}")


# --- The first resharding, watched.
new_key = {"customerId": 1, "placedAt": 1}
job = Reshard(new_key)
job.start()
recipients, donors, good_recipients = {}, {}, {}
recipient_states, donor_states = set(), set()
last_recipients = {}  # the latest poll's recipient entries, by shard
elapsed_types = set()
polls = 0
deadline = time.monotonic() + 60
# Polled until the resharding ends: the seed's entries, then what the copy came to.
while job.is_alive() and time.monotonic() < deadline:
    try:
        ops = current_ops()
    except PyMongoError as e:
        t.fail("$currentOp while resharding", f"raised {error_text(e)}")
        break
    polls += 1
    now_recipients = {}
    for op in ops:
        shard = op.get("shard")
        if "recipientState" in op:
            recipients[shard] = op
            now_recipients[shard] = op
            recipient_states.add(op["recipientState"])
            if (isinstance(op.get("documentsCopied"), Int64)
                    and isinstance(op.get("remainingOperationTimeEstimatedSecs"), Int64)):
                good_recipients.setdefault(shard, op)
        if "donorState" in op:
            donors.setdefault(shard, op)
            donor_states.add(op["donorState"])
        if "recipientState" in op or "donorState" in op:
            elapsed_types.add(type(op.get("totalOperationTimeElapsedSecs")).__name__)
    if now_recipients:
        last_recipients = now_recipients
    time.sleep(0.1)
for op in list(good_recipients.values()) + list(donors.values()):
    print(fmt(op), flush=True)
print(f"{polls} polls; recipient states {sorted(recipient_states)}, donor states {sorted(donor_states)}",
      flush=True)
t.check("$currentOp showed recipient entries (recipientState)", recipients, f"none in {polls} polls")
t.check("a recipient entry with documentsCopied and remainingOperationTimeEstimatedSecs as int64",
        good_recipients,
        "recipient entries seen: " + "; ".join(
            f"{s}: documentsCopied {type(o.get('documentsCopied')).__name__} "
            f"{o.get('documentsCopied')!r}, remainingOperationTimeEstimatedSecs "
            f"{type(o.get('remainingOperationTimeEstimatedSecs')).__name__} "
            f"{o.get('remainingOperationTimeEstimatedSecs')!r}" for s, o in recipients.items()))
t.check("$currentOp showed donor entries (donorState)", donors, f"none in {polls} polls")
t.eq("each shard both donating and receiving (donor and recipient entries)",
     (sorted(donors), sorted(good_recipients)), (shards, shards))
# The seed caught "cloning" and "donating-initial-data" on 200,000 documents; on 4,010 the copy may be
# over before the first poll, so only the names are checked: the server's state enums.
t.check("recipientState values are the server's",
        recipient_states <= {"awaiting-fetch-timestamp", "creating-collection", "cloning", "applying",
                             "strict-consistency", "done", "error"}, sorted(recipient_states))
t.check("donorState values are the server's",
        donor_states <= {"preparing-to-donate", "donating-initial-data", "donating-oplog-entries",
                         "preparing-to-block-writes", "blocking-writes", "done", "error"}, sorted(donor_states))
t.eq("totalOperationTimeElapsedSecs of donors and recipients: int64", sorted(elapsed_types), ["Int64"])
for shard, op in sorted(good_recipients.items()):
    t.check(f"{shard} recipient: documentsCopied between 0 and 4010", 0 <= op["documentsCopied"] <= 4010,
            repr(op["documentsCopied"]))
    t.check(f"{shard} recipient: remainingOperationTimeEstimatedSecs >= 0",
            op["remainingOperationTimeEstimatedSecs"] >= 0, repr(op["remainingOperationTimeEstimatedSecs"]))
copied = {s: op.get("documentsCopied") for s, op in sorted(last_recipients.items())}
print(f"last recipient entries: documentsCopied {copied}", flush=True)
t.eq("by the end the recipients had copied all 4010 documents",
     sum(int(v or 0) for v in copied.values()), 4010)

job.join(120)
t.check("reshardCollection finished", not job.is_alive(), "still running after 120 s more")
if job.error is not None:
    t.fail("reshardCollection", f"raised {error_text(job.error)}")
print(f"reshard ok: {job.reply and job.reply.get('ok')} in {job.seconds and round(job.seconds * 1000)} ms",
      flush=True)
t.eq("reshard ok: 1", job.reply and job.reply.get("ok"), 1.0)
t.check("resharding took at least the 5 s minimum", job.seconds is not None and job.seconds >= 5.0,
        repr(job.seconds))
t.eq("new key", (client.config.collections.find_one({"_id": ns}) or {}).get("key"), new_key)
t.eq("count: 4010", shop.orders.count_documents({}), 4010)
t.eq("$currentOp shows no resharding once it is done", t.step("currentOp after", settled_ops), [])

# --- A second resharding, aborted by the user.
job2 = Reshard({"orderNo": 1})
job2.start()
seen = False
deadline = time.monotonic() + 30
while job2.is_alive() and time.monotonic() < deadline:
    if t.step("$currentOp during the second resharding", current_ops):
        seen = True
        break
    time.sleep(0.05)
t.check("the second resharding shows in $currentOp", seen, "never seen before it ended")
a = t.step("abortReshardCollection", lambda: admin.command("abortReshardCollection", ns))
t.eq("abortReshardCollection ok", a and a.get("ok"), 1.0)
job2.join(60)
t.check("the aborted reshardCollection returned", not job2.is_alive(), "still running after 60 s")
if isinstance(job2.error, OperationFailure):
    print(f"aborted: {job2.error.code} {job2.error.details.get('codeName')} - "
          f"{job2.error.details.get('errmsg')}", flush=True)
    t.eq("the aborted reshardCollection: ReshardCollectionAborted (341)",
         (job2.error.code, job2.error.details.get("codeName")), (341, "ReshardCollectionAborted"))
elif job2.error is not None:
    t.fail("the aborted reshardCollection", f"raised {error_text(job2.error)}, want OperationFailure 341")
else:
    t.fail("the aborted reshardCollection", f"no error; answered {job2.reply!r}")
t.eq("the key stays {customerId: 1, placedAt: 1}",
     (client.config.collections.find_one({"_id": ns}) or {}).get("key"), new_key)
t.eq("$currentOp shows no resharding after the abort", t.step("currentOp after abort", settled_ops), [])
t.eq("count still 4010", shop.orders.count_documents({}), 4010)

t.finish()
