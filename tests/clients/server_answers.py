"""What a mongos answers about itself and the fields drivers read (issue 50), through PyMongo
against --server-version 8.0:
- `hello` carries `topologyVersion` {processId: ObjectId, counter: Int64}
  (`s/commands/cluster_hello_cmd.cpp`), and an awaitable hello on it waits `maxAwaitTimeMS`
  (`s/mongos_topology_coordinator.cpp`) while other connections are answered;
- `serverStatus` has `connections` {current, available, totalCreated, active} and `sharding`
  {configsvrConnectionString, lastSeenConfigServerOpTime, maxChunkSizeInBytes};
- `dbStats` has `raw` per shard (`s/commands/cluster_db_stats_cmd.cpp`);
- `estimated_document_count` (a count without a filter) counts orphans (SERVER-33753);
- the client-level `bulk_write` (8.0, `s/commands/cluster_bulk_write_cmd.cpp`);
- `explain` of an aggregate gives `splitPipeline` and `shards`;
- 300 connections at once are all served.

Run with the URI as argv[1].
"""

import socket
import struct
import sys
import threading
import time

import bson
from bson.int64 import Int64
from bson.objectid import ObjectId
from pymongo import InsertOne, MongoClient, UpdateOne
from pymongo.operations import DeleteOne

from clientlib import Checks

uri = sys.argv[1]
c = Checks("server_answers")
client = MongoClient(uri)
admin = client.admin

hello = c.step("hello", lambda: admin.command("hello"))
tv = (hello or {}).get("topologyVersion", {})
c.check("topologyVersion.processId is an ObjectId", isinstance(tv.get("processId"), ObjectId), repr(tv))
c.check("topologyVersion.counter is an Int64 0", type(tv.get("counter")) is Int64 and tv.get("counter") == 0, repr(tv))

# The awaitable hello waits on its own connection; a ping on the pool is answered meanwhile.
waited = {}


def awaitable():
    other = MongoClient(uri, maxPoolSize=1)
    at = time.monotonic()
    other.admin.command({"hello": 1, "topologyVersion": tv, "maxAwaitTimeMS": 800})
    waited["s"] = time.monotonic() - at
    other.close()


t = threading.Thread(target=awaitable)
t.start()
time.sleep(0.2)
at = time.monotonic()
c.step("ping while a hello waits", lambda: admin.command("ping"))
c.check("the ping is not held behind the waiting hello", time.monotonic() - at < 0.5, time.monotonic() - at)
t.join()
c.check("the awaitable hello waited maxAwaitTimeMS", waited.get("s", 0) >= 0.8, waited)

status = c.step("serverStatus", lambda: admin.command("serverStatus")) or {}
conns = status.get("connections", {})
c.eq("connections fields", sorted(conns), ["active", "available", "current", "totalCreated"])
c.check("connections.current >= 1", conns.get("current", 0) >= 1, conns)
sharding = status.get("sharding", {})
c.eq("sharding fields", sorted(sharding),
     ["configsvrConnectionString", "lastSeenConfigServerOpTime", "maxChunkSizeInBytes"])
c.eq("maxChunkSizeInBytes (8.0: 128 MiB)", sharding.get("maxChunkSizeInBytes"), 128 * 1024 * 1024)

# A sharded collection split in two, one half moved: the donor's copy is left as orphans.
c.step("shardCollection", lambda: admin.command("shardCollection", "app.c", key={"k": 1}))
coll = client.app.c
c.step("insert", lambda: coll.insert_many([{"k": i} for i in range(40)]))
c.step("split at k: 20", lambda: admin.command("split", "app.c", middle={"k": 20}))
c.step("moveChunk", lambda: admin.command("moveChunk", "app.c", find={"k": 1}, to="shard0001"))
c.eq("estimated_document_count counts the orphans", c.step("edc", coll.estimated_document_count), 60)
c.eq("count_documents does not", c.step("cd", lambda: coll.count_documents({})), 40)

stats = c.step("dbStats", lambda: client.app.command("dbStats")) or {}
c.eq("dbStats raw has every shard", len(stats.get("raw", {})), 3)
c.eq("dbStats objects (orphans too)", stats.get("objects"), 60)

# Client-level bulkWrite.
res = c.step("bulk_write", lambda: client.bulk_write([
    InsertOne(namespace="app.other", document={"_id": 1, "v": 1}),
    UpdateOne(namespace="app.other", filter={"_id": 1}, update={"$set": {"v": 2}}),
    DeleteOne(namespace="app.c", filter={"k": 5}),
], verbose_results=True))
if res is not None:
    c.eq("bulk_write counts", (res.inserted_count, res.modified_count, res.deleted_count), (1, 1, 1))
c.eq("the update was applied", (client.app.other.find_one({"_id": 1}) or {}).get("v"), 2)

# explain of an aggregate over both shards.
e = c.step("explain aggregate", lambda: client.app.command(
    "explain", {"aggregate": "c", "pipeline": [{"$group": {"_id": None, "n": {"$sum": 1}}}], "cursor": {}},
    verbosity="queryPlanner")) or {}
c.check("splitPipeline", isinstance(e.get("splitPipeline"), dict), repr(e))
c.eq("shards of the explain", sorted(e.get("shards", {})), ["shard0000", "shard0001"])

# 300 connections at once, each answering a ping.
host, port = client.address


def ping(s):
    body = bson.encode({"ping": 1, "$db": "admin"})
    msg = struct.pack("<iiiiI", 16 + 4 + 1 + len(body), 1, 0, 2013, 0) + b"\x00" + body
    s.sendall(msg)
    head = s.recv(4, socket.MSG_WAITALL)
    if len(head) < 4:
        return False
    n = struct.unpack("<i", head)[0]
    rest = s.recv(n - 4, socket.MSG_WAITALL)
    return len(rest) == n - 4


socks = []
served = 0
for _ in range(300):
    s = socket.create_connection((host, port), timeout=10)
    socks.append(s)
    served += ping(s)
served_again = sum(ping(s) for s in socks)
c.eq("300 connections served", served, 300)
c.eq("and all still open", served_again, 300)
for s in socks:
    s.close()

c.finish()
