"""analyzeShardKey (7.0+) through PyMongo: shop.orders (unsharded), 2,000 orders of 1,000
customers in eight cities with an ascending orderNo, index {customerId: 1}; configureQueryAnalyzer
samples 25 reads (20 by customer, 5 by city) and 10 updates by customer, then
db.command("analyzeShardKey", ...) returns its fields with the server's number types: the counts
are NumberLong (bson.int64.Int64 in Python), the percentages and the correlation coefficient
doubles (float), isUnique a bool. Run with the URI as argv[1], against --server-version 8.0.
"""

import sys

from bson.int64 import Int64
from pymongo import MongoClient
from pymongo.errors import OperationFailure

from clientlib import Checks, error_text

t = Checks("analyze_shard_key")
client = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000)
shop = client.shop
cities = ["Lyon", "Oslo", "Pune", "Lima", "Kobe", "Graz", "Cork", "Bari"]
docs = [{"_id": i, "orderNo": i + 1, "customerId": (i * 7) % 1000, "city": cities[i % 8]}
        for i in range(2000)]
ins = t.step("insert_many", lambda: shop.orders.insert_many(docs))
t.eq("2000 orders inserted", ins and len(ins.inserted_ids), 2000)
t.step("create_index customerId", lambda: shop.orders.create_index("customerId"))

qa = t.step("configureQueryAnalyzer", lambda: client.admin.command(
    "configureQueryAnalyzer", "shop.orders", mode="full", samplesPerSecond=50))
t.eq("new configuration", qa and qa["newConfiguration"], {"mode": "full", "samplesPerSecond": 50.0})
for c in range(20):
    shop.orders.find_one({"customerId": c * 3})
for city in cities[:5]:
    shop.orders.find_one({"city": city})
for c in range(10):
    shop.orders.update_one({"customerId": c}, {"$inc": {"n": 1}})

r = t.step("analyzeShardKey {customerId: 1}", lambda: client.admin.command(
    "analyzeShardKey", "shop.orders", key={"customerId": 1})) or {}
kc = r.get("keyCharacteristics", {})
for field in ["numDocsTotal", "avgDocSizeBytes", "numDocsSampled", "numDistinctValues"]:
    t.check(f"keyCharacteristics.{field} is a NumberLong", type(kc.get(field)) is Int64,
            f"got {type(kc.get(field)).__name__} {kc.get(field)!r}")
t.eq("numDocsTotal", kc.get("numDocsTotal"), 2000)
t.eq("numDistinctValues", kc.get("numDistinctValues"), 1000)
t.check("isUnique is a bool", kc.get("isUnique") is False, f"got {kc.get('isUnique')!r}")
common = kc.get("mostCommonValues", [])
t.eq("most common values", [(c["value"]["customerId"], c["frequency"]) for c in common],
     [(0, 2), (7, 2), (14, 2), (21, 2), (28, 2)])
t.check("frequency is a NumberLong", all(type(c["frequency"]) is Int64 for c in common), repr(common))
mono = kc.get("monotonicity", {})
t.eq("monotonicity type", mono.get("type"), "not monotonic")
t.check("recordIdCorrelationCoefficient is a double",
        type(mono.get("recordIdCorrelationCoefficient")) is float, repr(mono))

rd = r.get("readDistribution", {})
size = rd.get("sampleSize", {})
t.eq("read sample size", size, {"total": 25, "find": 25, "aggregate": 0, "count": 0, "distinct": 0})
t.check("read sample sizes are NumberLong", all(type(v) is Int64 for v in size.values()), repr(size))
t.eq("percentageOfSingleShardReads", rd.get("percentageOfSingleShardReads"), 80.0)
t.check("percentages are doubles", type(rd.get("percentageOfMultiShardReads")) is float, repr(rd))
by_range = rd.get("numReadsByRange", [])
t.eq("numReadsByRange: 100 ranges", len(by_range), 100)
t.eq("numReadsByRange: 20 single reads and 5 that ask every range", sum(by_range), 20 + 5 * 100)
wd = r.get("writeDistribution", {})
t.eq("write sample size", wd.get("sampleSize"),
     {"total": 10, "update": 10, "delete": 0, "findAndModify": 0})
t.eq("percentageOfSingleShardWrites", wd.get("percentageOfSingleShardWrites"), 100.0)
t.eq("percentageOfShardKeyUpdates", wd.get("percentageOfShardKeyUpdates"), 0.0)

try:
    client.admin.command("analyzeShardKey", "shop.orders", key={"orderNo": 1},
                         readWriteDistribution=False)
    t.fail("no supporting index", "answered")
except OperationFailure as e:
    t.eq("no supporting index: code", e.code, 20)
    t.eq("no supporting index: message", e.details.get("errmsg"),
         "Cannot analyze the characteristics of a shard key that does not have a supporting index")
except Exception as e:  # noqa: BLE001 - any other error is a failed check
    t.fail("no supporting index", error_text(e))
t.finish()
