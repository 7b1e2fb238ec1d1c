"""Seed 000 ("Choosing a MongoDB Shard Key: Ascending, Hashed, and Zoned Distributions", after
MongoDB: The Definitive Guide, 3rd ed., ch. "Choosing a Shard Key"): hashed shard keys for GridFS.

    > db.fs.chunks.createIndex({"files_id" : "hashed"})
    > sh.shardCollection("test.fs.chunks", {"files_id" : "hashed"})
    { "collectionsharded" : "test.fs.chunks", "ok" : 1 }

"each file will be randomly distributed across the cluster, and a file will always be contained in
a single chunk ... writes will go to all shards evenly and reading a file's data will only ever
have to hit a single shard." Recipe and claims quoted from that seed. Run with the URI as argv[1],
against --server-version 7.0.
"""

import io
import sys

import gridfs
from bson import ObjectId
from pymongo import MongoClient

from clientlib import Checks, explain_find

t = Checks("000_gridfs")
client = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000)
db = client.test

t.step("enableSharding test", lambda: client.admin.command("enableSharding", "test"))
t.eq("createIndex({files_id: 'hashed'})",
     t.step("createIndex", lambda: db.fs.chunks.create_index([("files_id", "hashed")])),
     "files_id_hashed")
r = t.step("shardCollection", lambda: client.admin.command(
    "shardCollection", "test.fs.chunks", key={"files_id": "hashed"}))
t.eq("shardCollection answers", r and (r.get("collectionsharded"), r.get("ok")),
     ("test.fs.chunks", 1.0))

# Thirty files of 100 KiB in GridFS chunks of 32 KiB (4 GridFS chunks each), with fixed ids.
bucket = gridfs.GridFSBucket(db, chunk_size_bytes=32 * 1024)
files = []
for i in range(30):
    oid = ObjectId("%024x" % (0x650000000000000000000000 + i))
    data = bytes((i * 7 + j) % 251 for j in range(100 * 1024))
    ok = t.step(f"upload file{i:02d}", lambda oid=oid, i=i, data=data: bucket.upload_from_stream_with_id(
        oid, f"file{i:02d}.bin", io.BytesIO(data)) or True)
    if ok:
        files.append((oid, data))
t.eq("30 files uploaded", len(files), 30)

# The driver's own indexes: {files_id: 1, n: 1} unique is allowed (the shard key's field is its
# prefix).
info = t.step("fs.chunks indexes", lambda: db.fs.chunks.index_information()) or {}
t.eq("fs.chunks has the driver's unique {files_id: 1, n: 1}",
     (info.get("files_id_1_n_1") or {}).get("unique"), True)

for oid, data in files:
    got = t.step(f"download {oid}", lambda oid=oid: bucket.open_download_stream(oid).read())
    if got is not None and got != data:
        t.fail(f"download {oid}", f"{len(got)} bytes differ from the {len(data)} uploaded")
t.check("every file reads back as written", all(
    not f.startswith("download") for f in t.failures))

# Reading a file's data hits a single shard, which holds all of its GridFS chunks.
per_shard = {}
for oid, _ in files:
    e = t.step(f"explain find({{files_id: {oid}}})", lambda oid=oid: explain_find(db, "fs.chunks", {"files_id": oid}))
    if e is None:
        continue
    holders = [(s["shard"], s["nReturned"]) for s in e["shards"] if s["nReturned"] > 0]
    t.check(f"file {oid}: SINGLE_SHARD with its 4 GridFS chunks",
            e["stage"] == "SINGLE_SHARD" and len(e["shards"]) == 1 and len(holders) == 1
            and holders[0][1] == 4, repr(e))
    if holders:
        per_shard[holders[0][0]] = per_shard.get(holders[0][0], 0) + 1
t.eq("the files are spread over all three shards", sorted(per_shard),
     ["shard0000", "shard0001", "shard0002"])
print("files per shard:", per_shard, flush=True)

all_chunks = t.step("explain find({})", lambda: explain_find(db, "fs.chunks", {}))
t.eq("fs.chunks holds 120 GridFS chunks", all_chunks and all_chunks["nReturned"], 120)
t.eq("fs.files holds 30 files", t.step("count fs.files", lambda: db.fs.files.count_documents({})), 30)

t.finish()
