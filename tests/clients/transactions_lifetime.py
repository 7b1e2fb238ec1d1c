"""Transactions over time, through PyMongo (issues 33, 36), against --server-version 8.0:

- a write outside a transaction to a document an open transaction holds waits for the
  transaction to end and then applies: mongod retries a WriteConflict outside a multi-document
  transaction until it succeeds or the operation is interrupted (`writeConflictRetry`,
  src/mongo/db/concurrency/exception_util.h); with `maxTimeMS` it fails MaxTimeMSExpired (50)
  there, without the TransientTransactionError label, and changes nothing;
- a transaction open longer than `transactionLifetimeLimitSeconds` (default 60, at least 1:
  src/mongo/db/transaction/transaction_participant.idl) is aborted by the server
  (`abortArbitraryTransactionIfExpired`, src/mongo/db/transaction/transaction_participant.cpp,
  run by src/mongo/db/periodic_runner_job_abort_expired_transactions.cpp): its writes are undone and
  its next command gets NoSuchTransaction (251) labelled TransientTransactionError.

Run with the URI as argv[1].
"""

import sys
import threading
import time

from pymongo import MongoClient
from pymongo.errors import OperationFailure, PyMongoError

from clientlib import Checks, error_text

t = Checks("transactions_lifetime")
uri = sys.argv[1]
client = MongoClient(uri, serverSelectionTimeoutMS=10000)
other = MongoClient(uri, serverSelectionTimeoutMS=10000)
shop = client.shop
admin = client.admin

t.step("shardCollection shop.accounts {_id: hashed}", lambda: admin.command(
    "shardCollection", "shop.accounts", key={"_id": "hashed"}))
t.step("insert 10 accounts", lambda: shop.accounts.insert_many(
    [{"_id": i, "balance": 100} for i in range(10)]))

got = t.step("getParameter transactionLifetimeLimitSeconds",
             lambda: admin.command("getParameter", 1, transactionLifetimeLimitSeconds=1))
t.eq("transactionLifetimeLimitSeconds is 60 by default", got and got.get("transactionLifetimeLimitSeconds"), 60)
try:
    admin.command("setParameter", 1, transactionLifetimeLimitSeconds=0)
    t.fail("transactionLifetimeLimitSeconds 0", "accepted")
except OperationFailure as e:
    t.eq("transactionLifetimeLimitSeconds 0 is BadValue (validator gte 1)", e.code, 2)

# 1. A write outside waits for the transaction, then applies on its committed version.
done = {}


def outside_update():
    started = time.monotonic()
    try:
        r = other.shop.accounts.update_one({"_id": 1}, {"$inc": {"balance": 1}})
        done["modified"] = r.modified_count
    except PyMongoError as e:  # noqa: BLE001
        done["error"] = error_text(e)
    done["waited"] = time.monotonic() - started


with client.start_session() as s:
    s.start_transaction()
    shop.accounts.update_one({"_id": 1}, {"$set": {"balance": 50}}, session=s)
    th = threading.Thread(target=outside_update)
    th.start()
    time.sleep(0.5)
    t.check("the outside write waits while the transaction is open", th.is_alive())
    t.eq("others are answered meanwhile", other.shop.accounts.find_one({"_id": 2}), {"_id": 2, "balance": 100})
    s.commit_transaction()
    th.join(10)
t.eq("the outside write applied once the transaction ended", done.get("modified"), 1)
t.check("it waited for the commit", done.get("waited", 0) >= 0.5, f"waited {done.get('waited')}")
t.eq("applied on the committed version", other.shop.accounts.find_one({"_id": 1}), {"_id": 1, "balance": 51})

# 2. With maxTimeMS it fails MaxTimeMSExpired at the limit and changes nothing.
with client.start_session() as s:
    s.start_transaction()
    shop.accounts.update_one({"_id": 3}, {"$set": {"balance": 0}}, session=s)
    started = time.monotonic()
    try:
        other.shop.command({"update": "accounts", "updates": [{"q": {"_id": 3}, "u": {"$inc": {"balance": 1}}}],
                            "maxTimeMS": 300})
        t.fail("maxTimeMS 300 behind an open transaction", "answered")
    except OperationFailure as e:
        t.eq("MaxTimeMSExpired", e.code, 50)
        t.check("no TransientTransactionError label outside a transaction",
                not e.has_error_label("TransientTransactionError"))
    waited = time.monotonic() - started
    t.check("it waited its maxTimeMS", 0.3 <= waited < 5, f"waited {waited:.2f} s")
    s.abort_transaction()
t.eq("nothing changed", other.shop.accounts.find_one({"_id": 3}), {"_id": 3, "balance": 100})

# 3. A transaction past transactionLifetimeLimitSeconds is aborted.
t.step("setParameter transactionLifetimeLimitSeconds 1",
       lambda: admin.command("setParameter", 1, transactionLifetimeLimitSeconds=1))
with client.start_session() as s:
    s.start_transaction()
    shop.accounts.update_one({"_id": 4}, {"$set": {"balance": 0}}, session=s)
    time.sleep(2)
    t.eq("after the lifetime the transaction's write is undone",
         other.shop.accounts.find_one({"_id": 4}), {"_id": 4, "balance": 100})
    try:
        shop.accounts.update_one({"_id": 5}, {"$set": {"balance": 0}}, session=s)
        t.fail("a command in the expired transaction", "answered")
    except OperationFailure as e:
        t.eq("NoSuchTransaction", e.code, 251)
        t.check("labelled TransientTransactionError", e.has_error_label("TransientTransactionError"))
    try:
        s.abort_transaction()
    except PyMongoError:
        pass
t.eq("account 5 unchanged", other.shop.accounts.find_one({"_id": 5}), {"_id": 5, "balance": 100})

t.finish()
