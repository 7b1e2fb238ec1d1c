"""Seed 003 (lesson "04 · Choosing & Changing a Shard Key", MongoDB 9.0.2, three shards): a
document's shard key value can change, but "The update had to be a retryable write or run in a
transaction. Through PyMongo with retryWrites=false:

    20 None - Plan executor error during update :: caused by :: Must run update to shard key field in a
    multi-statement transaction or with retryWrites: true.
    inside a transaction: ok, now 4242"

shop.orders on {customerId: "hashed"}; one of customer 4242's orders moves to 4247 as a retryable
write (PyMongo's default), then back to 4242: refused with retryWrites=false, done inside a
transaction. Expected answers quoted from that seed. Run with the URI as argv[1], against
--server-version 9.0.
"""

import sys
from datetime import datetime, timedelta, timezone

from pymongo import MongoClient
from pymongo.errors import PyMongoError, WriteError

from clientlib import Checks, error_text, explain_find, shards_holding

t = Checks("003_shard_key_update")
uri = sys.argv[1]
retrying = MongoClient(uri, serverSelectionTimeoutMS=10000)  # retryWrites=true, the default
plain = MongoClient(uri, serverSelectionTimeoutMS=10000, retryWrites=False)
shop = retrying.shop

t.step("enableSharding shop", lambda: retrying.admin.command("enableSharding", "shop"))
r = t.step("shardCollection", lambda: retrying.admin.command(
    "shardCollection", "shop.orders", key={"customerId": "hashed"}))
t.eq("shardCollection ok", r and r.get("ok"), 1.0)
jan1 = datetime(2026, 1, 1, tzinfo=timezone.utc)
docs = [{"customerId": (i * 5) % 20000, "orderNo": i + 1,
         "placedAt": jan1 + timedelta(days=(i * 7919) % 365)} for i in range(2000)]
docs += [{"customerId": 4242, "orderNo": 100001 + k, "placedAt": jan1 + timedelta(days=30 * k)}
         for k in range(10)]
ins = t.step("insert_many", lambda: shop.orders.insert_many(docs))
t.eq("2010 orders inserted", ins and len(ins.inserted_ids), 2010)

one = shop.orders.find_one({"orderNo": 100001})
oid = one["_id"]
before = t.step("where is 4242", lambda: shards_holding(shop, "orders", {"customerId": 4242}))
print("before: 4242 on", before, flush=True)


def owner_of(customer_id):
    """The shard find({customerId: …}) targets: the owner of that value's chunk."""
    e = explain_find(shop, "orders", {"customerId": customer_id})
    return [s["shard"] for s in e["shards"]] if e["stage"] == "SINGLE_SHARD" else e["shards"]


# As a retryable write the update moves the document.
u = t.step("update_one $set customerId 4247 (retryable)",
           lambda: shop.orders.update_one({"_id": oid}, {"$set": {"customerId": 4247}}))
t.eq("modified: 1", u and u.modified_count, 1)
t.eq("now on the shard owning 4247", t.step("where", lambda: shards_holding(shop, "orders", {"_id": oid})),
     t.step("owner 4247", lambda: owner_of(4247)))

# With retryWrites=false it is refused.
plain_orders = plain.shop.orders
try:
    res = plain_orders.update_one({"_id": oid}, {"$set": {"customerId": 4242}})
    t.fail("retryWrites=false shard-key update", f"no error; answered {res.raw_result}")
except WriteError as e:
    line = f"{e.code} {e.details.get('codeName')} - {e.details.get('errmsg')}"
    print(line, flush=True)
    t.eq("retryWrites=false: the seed's error line", line,
         "20 None - Plan executor error during update :: caused by :: Must run update to shard key "
         "field in a multi-statement transaction or with retryWrites: true.")
except PyMongoError as e:
    t.fail("retryWrites=false shard-key update", f"raised {error_text(e)}, want a WriteError")
t.eq("still 4247 after the refusal",
     (shop.orders.find_one({"_id": oid}) or {}).get("customerId"), 4247)

# Inside a transaction it is done.
try:
    with plain.start_session() as s:
        with s.start_transaction():
            res = plain_orders.update_one({"_id": oid}, {"$set": {"customerId": 4242}}, session=s)
            t.eq("in the transaction: modified 1", res.modified_count, 1)
    now = (shop.orders.find_one({"_id": oid}) or {}).get("customerId")
    print(f"inside a transaction: ok, now {now}", flush=True)
    t.eq("inside a transaction: ok, now 4242", now, 4242)
except PyMongoError as e:
    t.fail("inside a transaction", f"raised {error_text(e)}")
t.eq("back with the other 4242 orders",
     t.step("where back", lambda: shards_holding(shop, "orders", {"_id": oid})), before)
t.eq("customer 4242 has its 10 orders", shop.orders.count_documents({"customerId": 4242}), 10)

# A transaction that is aborted changes nothing.
try:
    with plain.start_session() as s:
        s.start_transaction()
        plain_orders.update_one({"_id": oid}, {"$set": {"customerId": 4247}}, session=s)
        s.abort_transaction()
    t.eq("an aborted transaction leaves 4242",
         (shop.orders.find_one({"_id": oid}) or {}).get("customerId"), 4242)
except PyMongoError as e:
    t.fail("aborted transaction", f"raised {error_text(e)}")

t.finish()
