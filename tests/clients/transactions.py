"""Seed 003 (lesson "04 · Choosing & Changing a Shard Key"), exercise 4: "Implement globally unique
orderNo on a collection sharded by customerId, using a second collection sharded on orderNo and a
transaction that inserts into both." The lesson's hint: "a separate small collection sharded on
the unique field as a 'claim' table".

shop.orders on {customerId: 1}; shop.orderNos on {orderNo: 1} with unique: true (the one way a
sharded collection can enforce a unique field cluster-wide). Each collection is split and spread
so that a transaction writes to more than one shard. place_order() claims the orderNo, then
inserts the order, in a with_transaction callback (PyMongo's default retryable writes); a second
order reusing an orderNo fails with DuplicateKey and leaves no order behind; an abort leaves
nothing; a reader outside the transaction does not see its writes before the commit; a commit
retried after it succeeded (commit_transaction twice) is accepted. Run with the URI as argv[1],
against --server-version 8.0.
"""

import sys

from pymongo import MongoClient
from pymongo.errors import DuplicateKeyError, PyMongoError

from clientlib import Checks, error_text, shards_holding

t = Checks("transactions")
uri = sys.argv[1]
client = MongoClient(uri, serverSelectionTimeoutMS=10000)  # retryWrites=true, the default
other = MongoClient(uri, serverSelectionTimeoutMS=10000)  # a second application, outside
shop = client.shop
admin = client.admin

t.step("enableSharding shop", lambda: admin.command("enableSharding", "shop"))
r = t.step("shardCollection shop.orders {customerId: 1}", lambda: admin.command(
    "shardCollection", "shop.orders", key={"customerId": 1}))
t.eq("shop.orders sharded", r and r.get("ok"), 1.0)
r = t.step("shardCollection shop.orderNos {orderNo: 1} unique", lambda: admin.command(
    "shardCollection", "shop.orderNos", key={"orderNo": 1}, unique=True))
t.eq("shop.orderNos sharded", r and r.get("ok"), 1.0)
cfg = client.config.collections.find_one({"_id": "shop.orderNos"}) or {}
t.eq("config.collections: shop.orderNos key {orderNo: 1}, unique", (cfg.get("key"), cfg.get("unique")),
     ({"orderNo": 1}, True))
idx = t.step("index_information", lambda: shop.orderNos.index_information()) or {}
t.eq("shardCollection created the unique index orderNo_1",
     (idx.get("orderNo_1", {}).get("key"), idx.get("orderNo_1", {}).get("unique")), ([("orderNo", 1)], True))

# Spread both collections: orders [1000, MaxKey) and orderNos [500, MaxKey) off the primary shard.
shards = ["shard0000", "shard0001", "shard0002"]
for ns, key, at in (("shop.orders", "customerId", 1000), ("shop.orderNos", "orderNo", 500)):
    t.step(f"split {ns} at {at}", lambda: admin.command("split", ns, middle={key: at}))
for ns, key, at, dest in (("shop.orders", "customerId", 1000, "shard0001"),
                          ("shop.orderNos", "orderNo", 500, "shard0002")):
    owner = (client.config.chunks.find_one({"uuid": (client.config.collections.find_one({"_id": ns}) or {})
                                            .get("uuid"), f"min.{key}": at}) or {}).get("shard")
    if owner == dest:
        dest = next(s for s in shards if s != owner)
    t.step(f"moveChunk {ns} {{{key}: {at}}} to {dest}",
           lambda: admin.command("moveChunk", ns, find={key: at}, to=dest))

# Existing orders: orderNo 1 … 1000 for the even customers 0 … 1998 (the new orders below are
# for odd customers).
seed = [{"customerId": 2 * i, "orderNo": i + 1, "total": (i * 31) % 500} for i in range(1000)]
t.step("insert 1000 orders", lambda: shop.orders.insert_many(seed))
t.step("claim their 1000 orderNos", lambda: shop.orderNos.insert_many(
    [{"orderNo": o["orderNo"], "customerId": o["customerId"]} for o in seed]))
for ns in ("shop.orders", "shop.orderNos"):
    uuid = (client.config.collections.find_one({"_id": ns}) or {}).get("uuid")
    owners = sorted({c["shard"] for c in client.config.chunks.find({"uuid": uuid})})
    t.eq(f"{ns}: two chunks on two shards", len(owners), 2)
    t.eq(f"{ns}: the documents are where the chunks are",
         t.step(f"where {ns}", lambda: shards_holding(shop, ns.split(".")[1], {})), owners)

# A plain insert of a taken orderNo is refused by the unique shard key.
try:
    shop.orderNos.insert_one({"orderNo": 17, "customerId": 1999})
    t.fail("insert a taken orderNo outside a transaction", "no error")
except DuplicateKeyError as e:
    t.eq("insert a taken orderNo outside a transaction: DuplicateKey 11000", e.code, 11000)
except PyMongoError as e:
    t.fail("insert a taken orderNo outside a transaction", f"raised {error_text(e)}, want DuplicateKeyError")


def place_order(order, claim_first=True):
    """Inserts order in one transaction with its orderNo claim (the claim first by default)."""
    def claim(s):
        shop.orderNos.insert_one({"orderNo": order["orderNo"], "customerId": order["customerId"]},
                                 session=s)

    def insert(s):
        shop.orders.insert_one(dict(order), session=s)

    def callback(s):
        for write in ((claim, insert) if claim_first else (insert, claim)):
            write(s)

    with client.start_session() as s:
        s.with_transaction(callback)


def without_id(docs):
    return [{k: v for k, v in d.items() if k != "_id"} for d in docs]


def orders_of(customer_id):
    return without_id(other.shop.orders.find({"customerId": customer_id}))


def claims_of(order_no):
    return without_id(other.shop.orderNos.find({"orderNo": order_no}))


# New orders, each in one transaction over two collections (and shards: orderNos >= 500 are on
# the moved chunk; customer 1743 on the moved orders chunk, 43 on the other).
for order in ({"customerId": 43, "orderNo": 1001, "total": 10},
              {"customerId": 1743, "orderNo": 6001, "total": 20}):
    t.step(f"place_order {order}", lambda: place_order(order))
    t.eq(f"order {order['orderNo']} is stored", orders_of(order["customerId"]), [order])
    t.eq(f"orderNo {order['orderNo']} is claimed by customer {order['customerId']}", claims_of(order["orderNo"]),
         [{"orderNo": order["orderNo"], "customerId": order["customerId"]}])


def second_order(label, order, claim_first):
    try:
        place_order(order, claim_first)
        t.fail(label, "no error")
    except DuplicateKeyError as e:
        t.eq(f"{label}: DuplicateKey 11000", e.code, 11000)
        msg = (e.details or {}).get("errmsg", str(e))
        t.check(f"{label}: the E11000 message names shop.orderNos and the orderNo",
                "E11000 duplicate key error collection: shop.orderNos index: orderNo_1 dup key: { orderNo: "
                f"{order['orderNo']} }}" in msg, msg)
    except PyMongoError as e:
        t.fail(label, f"raised {error_text(e)}, want DuplicateKeyError")
    t.eq(f"{label}: no order document left behind", orders_of(order["customerId"]), [])
    t.eq(f"{label}: the orderNo still belongs to its first order", claims_of(order["orderNo"]),
         [{"orderNo": order["orderNo"], "customerId": 43 if order["orderNo"] == 1001 else 1743}])


# A second order reusing orderNo 1001 (customer 301).
second_order("second order reusing orderNo 1001", {"customerId": 301, "orderNo": 1001, "total": 30}, True)
# The same with the order inserted before the claim: the order's insert succeeded inside the
# transaction, and the failed claim must take it back (atomicity).
second_order("order first, then the claim of a taken orderNo 6001",
             {"customerId": 1901, "orderNo": 6001, "total": 40}, False)
t.eq("orders: 1000 + 2", other.shop.orders.count_documents({}), 1002)
t.eq("orderNos: 1000 + 2", other.shop.orderNos.count_documents({}), 1002)

# An aborted transaction leaves nothing.
try:
    with client.start_session() as s:
        s.start_transaction()
        shop.orderNos.insert_one({"orderNo": 7001, "customerId": 77}, session=s)
        shop.orders.insert_one({"customerId": 77, "orderNo": 7001, "total": 50}, session=s)
        t.eq("inside the transaction it sees its order",
             shop.orders.count_documents({"customerId": 77}, session=s), 1)
        s.abort_transaction()
    t.eq("after abort: no order 7001", orders_of(77), [])
    t.eq("after abort: orderNo 7001 unclaimed", claims_of(7001), [])
except PyMongoError as e:
    t.fail("aborted transaction", f"raised {error_text(e)}")

# A reader outside the transaction does not see its writes before the commit; then it does. The
# commit is sent twice: a retried commitTransaction of a committed transaction succeeds again.
try:
    with client.start_session() as s:
        s.start_transaction()
        shop.orderNos.insert_one({"orderNo": 8001, "customerId": 89}, session=s)
        shop.orders.insert_one({"customerId": 89, "orderNo": 8001, "total": 60}, session=s)
        t.eq("before commit: the outside reader sees no order 8001", orders_of(89), [])
        t.eq("before commit: the outside reader sees no claim 8001", claims_of(8001), [])
        t.eq("before commit: outside count unchanged", other.shop.orders.count_documents({}), 1002)
        s.commit_transaction()
        t.eq("after commit: the order is visible", orders_of(89),
             [{"customerId": 89, "orderNo": 8001, "total": 60}])
        t.eq("after commit: the claim is visible", claims_of(8001), [{"orderNo": 8001, "customerId": 89}])
        t.step("commit_transaction again (a retried commit)", lambda: s.commit_transaction())
        t.eq("after the second commit: still one order 8001", orders_of(89),
             [{"customerId": 89, "orderNo": 8001, "total": 60}])
except PyMongoError as e:
    t.fail("commit twice", f"raised {error_text(e)}")
t.eq("orders: 1003 in all", other.shop.orders.count_documents({}), 1003)
t.eq("orderNos: 1003 in all", other.shop.orderNos.count_documents({}), 1003)
order_nos = sorted(o["orderNo"] for o in other.shop.orders.find({}, {"orderNo": 1}))
claimed = sorted(c["orderNo"] for c in other.shop.orderNos.find({}, {"orderNo": 1}))
t.eq("every order's orderNo is claimed exactly once: orderNos used twice, claimed twice, unclaimed",
     ([n for i, n in enumerate(order_nos) if i and order_nos[i - 1] == n],
      [n for i, n in enumerate(claimed) if i and claimed[i - 1] == n],
      sorted(set(order_nos) - set(claimed))), ([], [], []))

t.finish()
