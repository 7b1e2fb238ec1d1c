#!/usr/bin/env python3
"""Issue 36's two serve numbers, against a `shardtop serve` binary (run it on a release build):

1. 200 open transactions, then 2,000 updates outside them (each to another document of about
   1.6 KB): the server's resident memory before and after, and the updates' time.
2. `$group` over 40,000 distinct keys with `maxTimeMS: 1000`: the time until the answer (or
   MaxTimeMSExpired, 50).

Run: `python3 benches/serve_txn_group.py target/release/shardtop` (needs PyMongo).
"""

import subprocess
import sys
import time

from pymongo import MongoClient, UpdateOne
from pymongo.errors import OperationFailure


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    binary = sys.argv[1]
    serve = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--server-version", "8.0"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = serve.stderr.readline()
        addr = next(w for w in line.split() if w.startswith("127.0.0.1:"))
        client = MongoClient(f"mongodb://{addr}/?directConnection=true", maxPoolSize=300)
        client.admin.command({"shardCollection": "shop.orders", "key": {"customerId": "hashed"}})
        orders = client.shop.orders
        pad = "x" * 1500
        for start in range(0, 2000, 500):
            orders.insert_many(
                [{"_id": i, "customerId": i, "n": 0, "pad": pad} for i in range(start, start + 500)]
            )
        client.shop.other.insert_one({"_id": 0})
        base = rss_mb(serve.pid)
        sessions = []
        for _ in range(200):
            s = client.start_session()
            s.start_transaction()
            client.shop.other.find_one({"_id": 0}, session=s)
            sessions.append(s)
        opened = rss_mb(serve.pid)
        started = time.monotonic()
        for i in range(2000):
            orders.update_one({"_id": i, "customerId": i}, {"$inc": {"n": 1}})
        took = time.monotonic() - started
        after = rss_mb(serve.pid)
        print(
            f"200 open transactions + 2,000 updates: RSS {base:.0f} MB before the transactions, "
            f"{opened:.0f} MB with them open, {after:.0f} MB after the updates "
            f"(+{after - opened:.0f} MB); the 2,000 updates took {took:.2f} s"
        )
        for s in sessions:
            s.abort_transaction()
            s.end_session()

        g = client.app.g
        for start in range(0, 40000, 10000):
            g.insert_many([{"_id": i, "v": i % 1000} for i in range(start, start + 10000)])
        started = time.monotonic()
        try:
            reply = client.app.command(
                {
                    "aggregate": "g",
                    "pipeline": [{"$group": {"_id": "$_id", "n": {"$sum": 1}}}, {"$count": "groups"}],
                    "cursor": {},
                    "maxTimeMS": 1000,
                }
            )
            outcome = f"answered {reply['cursor']['firstBatch']}"
        except OperationFailure as e:
            outcome = f"error {e.code} ({e.details.get('codeName')})"
        took = time.monotonic() - started
        print(f"$group over 40,000 keys, maxTimeMS 1000: {took:.2f} s, {outcome}")
    finally:
        serve.kill()
        serve.wait()


if __name__ == "__main__":
    main()
