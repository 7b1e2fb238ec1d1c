#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/seeds/TARGET/.

    python3 fuzz/seeds/make_seeds.py [path/to/shardtop]

Needs pymongo's `bson`. The trace seeds are recorded with a shardtop binary (default
target/release/shardtop, else target/debug/shardtop) from a few built-in scenarios, then thinned
(cut to their first 32 KB, later keyframes left out) so each stays small; without a binary they
are cut from tests/fixtures/traces/. Output is deterministic for a given binary.
"""

import datetime
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile

import bson
from bson import SON, Int64, MaxKey, MinKey, ObjectId, Timestamp

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def out(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def enc(doc):
    return bson.encode(SON(doc))


# --------------------------------------------------------------------------- commands

SESSIONS = {
    "shard-insert-find": [
        [("shardCollection", "test.c"), ("key", SON([("x", 1)])), ("$db", "admin")],
        [("insert", "c"), ("documents", [SON([("_id", 1), ("x", 5)]), SON([("_id", 2), ("x", -3)])]), ("$db", "test")],
        [("find", "c"), ("filter", SON([("x", SON([("$gt", 0)]))])), ("batchSize", 1), ("$db", "test")],
        [("getMore", Int64(1)), ("collection", "c"), ("$db", "test")],
    ],
    "split-move": [
        [("shardCollection", "test.c"), ("key", SON([("x", 1)])), ("$db", "admin")],
        [("split", "test.c"), ("middle", SON([("x", 0)])), ("$db", "admin")],
        [("moveChunk", "test.c"), ("find", SON([("x", 10)])), ("to", "shard0001"), ("$db", "admin")],
        [("mergeChunks", "test.c"), ("bounds", [SON([("x", MinKey())]), SON([("x", MaxKey())])]), ("$db", "admin")],
    ],
    "update-delete": [
        [("insert", "u"), ("documents", [SON([("_id", 1), ("a", [1, 2, 3]), ("s", "x")])]), ("$db", "test")],
        [("update", "u"), ("updates", [SON([("q", SON([("_id", 1)])), ("u", SON([("$push", SON([("a", 4)])), ("$inc", SON([("n", 1)]))])), ("upsert", True)])]), ("$db", "test")],
        [("findAndModify", "u"), ("query", SON([("_id", 1)])), ("update", SON([("$set", SON([("s", "y")]))])), ("new", True), ("$db", "test")],
        [("delete", "u"), ("deletes", [SON([("q", SON([("a", 2)])), ("limit", 0)])]), ("$db", "test")],
    ],
    "aggregate": [
        [("insert", "g"), ("documents", [SON([("_id", i), ("k", i % 3), ("v", i * 1.5)]) for i in range(5)]), ("$db", "test")],
        [("aggregate", "g"), ("pipeline", [SON([("$match", SON([("k", SON([("$in", [0, 1])]))]))]), SON([("$group", SON([("_id", "$k"), ("n", SON([("$sum", 1)]))]))]), SON([("$sort", SON([("_id", 1)]))])]), ("cursor", SON()), ("$db", "test")],
        [("aggregate", "chunks"), ("pipeline", [SON([("$match", SON())]), SON([("$count", "n")])]), ("cursor", SON()), ("$db", "config")],
        [("count", "g"), ("query", SON([("v", SON([("$gte", 3)]))])), ("$db", "test")],
        [("distinct", "g"), ("key", "k"), ("$db", "test")],
    ],
    "zones-reshard": [
        [("shardCollection", "test.z"), ("key", SON([("r", 1), ("_id", 1)])), ("$db", "admin")],
        [("addShardToZone", "shard0000"), ("zone", "EU"), ("$db", "admin")],
        [("updateZoneKeyRange", "test.z"), ("min", SON([("r", "eu"), ("_id", MinKey())])), ("max", SON([("r", "ev"), ("_id", MinKey())])), ("zone", "EU"), ("$db", "admin")],
        [("createIndexes", "z"), ("indexes", [SON([("key", SON([("u", 1)])), ("name", "u_1")])]), ("$db", "test")],
        [("reshardCollection", "test.z"), ("key", SON([("u", 1)])), ("$db", "admin")],
        [("refineCollectionShardKey", "test.z"), ("key", SON([("r", 1), ("_id", 1), ("u", 1)])), ("$db", "admin")],
    ],
    "handshake": [
        [("hello", 1), ("client", SON([("driver", SON([("name", "fuzz"), ("version", "0")]))])), ("$db", "admin")],
        [("listDatabases", 1), ("$db", "admin")],
        [("find", "chunks"), ("filter", SON()), ("$db", "config")],
        [("serverStatus", 1), ("$db", "admin")],
        [("balancerStatus", 1), ("$db", "admin")],
    ],
    "hashed-drain": [
        [("shardCollection", "test.h"), ("key", SON([("h", "hashed")])), ("numInitialChunks", 6), ("$db", "admin")],
        [("insert", "h"), ("documents", [SON([("_id", ObjectId(b"fuzzfuzzfuzz")), ("h", "k"), ("t", Timestamp(1, 2))])]), ("$db", "test")],
        [("removeShard", "shard0002"), ("$db", "admin")],
        [("movePrimary", "test"), ("to", "shard0001"), ("$db", "admin")],
        [("configureCollectionBalancing", "test.h"), ("chunkSize", 1), ("defragmentCollection", True), ("$db", "admin")],
    ],
}


def commands_seeds():
    for name, cmds in SESSIONS.items():
        out("commands", name + ".bson", b"".join(enc(c) for c in cmds))


# Names in the order of COMMANDS in fuzz_targets/commands_structured.rs.
STRUCTURED = [
    "find", "insert", "update", "delete", "aggregate", "shardCollection", "split", "moveChunk",
    "moveRange", "mergeChunks", "createIndexes", "dropIndexes", "getMore", "killCursors", "count",
    "distinct", "findAndModify", "updateZoneKeyRange", "addShardToZone", "removeShardFromZone",
    "reshardCollection", "refineCollectionShardKey", "explain", "listIndexes", "listCollections",
    "clearJumboFlag", "configureCollectionBalancing", "balancerCollectionStatus", "removeShard",
    "movePrimary", "moveCollection", "unshardCollection", "checkMetadataConsistency",
    "enableSharding", "setParameter", "getParameter", "addShard", "abortReshardCollection",
    "commitReshardCollection", "setAllowMigrations", "commitTransaction", "abortTransaction",
    "hello", "serverStatus", "listDatabases", "balancerStart", "balancerStop", "balancerStatus",
    "startShardDraining", "stopShardDraining", "commitShardRemoval", "shardDrainingStatus",
    "configureQueryAnalyzer", "getLog", "listShards",
]


def rec(name, target, args):
    """One record: name selector, target selector (coll c, db test, shard0000 = 0), arguments."""
    return bytes([STRUCTURED.index(name), target]) + enc(args)


def structured_seeds():
    c, h = 0, 1  # collection c / h of db test
    s1 = 1 << 4  # shard0001
    seeds = {
        "reads": (1, [
            rec("find", c, [("filter", SON([("x", SON([("$gte", 0)]))])), ("batchSize", 1)]),
            rec("getMore", c, [("batchSize", 1)]),
            rec("killCursors", c, []),
            rec("count", c, [("query", SON([("a.b", "s")]))]),
            rec("distinct", c, [("key", "a.b")]),
            rec("aggregate", c, [("pipeline", [SON([("$unwind", "$a")]), SON([("$project", SON([("a", 1)]))])]), ("cursor", SON())]),
        ]),
        "writes": (1, [
            rec("insert", c, [("documents", [SON([("_id", 9), ("x", 3.5)])])]),
            rec("update", c, [("updates", [SON([("q", SON([("x", 3.5)])), ("u", SON([("$set", SON([("x", 100)]))]))])])]),
            rec("findAndModify", h, [("query", SON([("h", 7)])), ("remove", True)]),
            rec("delete", c, [("deletes", [SON([("q", SON()), ("limit", 1)])])]),
        ]),
        "chunks": (1, [
            rec("split", c, [("middle", SON([("x", 50)]))]),
            rec("moveChunk", c | s1, [("find", SON([("x", 60)])), ("to", "shard0001")]),
            rec("moveRange", c, [("min", SON([("x", 0)])), ("toShard", "shard0002")]),
            rec("mergeChunks", c, [("bounds", [SON([("x", 0)]), SON([("x", MaxKey())])])]),
            rec("clearJumboFlag", c, [("find", SON([("x", 1)]))]),
        ]),
        "zones": (1, [
            rec("addShardToZone", s1, [("zone", "z")]),
            rec("updateZoneKeyRange", c, [("min", SON([("x", 0)])), ("max", SON([("x", 10)])), ("zone", "z")]),
            rec("balancerStart", 0, []),
            rec("removeShardFromZone", s1, [("zone", "z")]),
        ]),
        "reshard": (1, [
            rec("createIndexes", c, [("indexes", [SON([("key", SON([("x", 1), ("y", 1)])), ("name", "x_1_y_1")])])]),
            rec("refineCollectionShardKey", c, [("key", SON([("x", 1), ("y", 1)]))]),
            rec("reshardCollection", c, [("key", SON([("_id", 1)]))]),
            rec("commitReshardCollection", c, []),
            rec("dropIndexes", c, [("index", "x_1_y_1")]),
        ]),
        "cluster": (0, [
            rec("shardCollection", 2, [("key", SON([("k", 1)]))]),
            rec("removeShard", 2 << 4, []),
            rec("movePrimary", 0, [("to", "shard0002")]),
            rec("configureCollectionBalancing", 2, [("chunkSize", 1)]),
            rec("balancerCollectionStatus", 2, []),
            rec("explain", 0, [("verbosity", "queryPlanner")]),
        ]),
    }
    for name, (flags, records) in seeds.items():
        out("commands_structured", name + ".bin", bytes([flags]) + b"".join(records))


# --------------------------------------------------------------------------- filters, updates


def pair(a, b):
    """query_filter / update_doc layout: split byte, doc padded to 16 * split, second doc."""
    ea = enc(a)
    n = (len(ea) + 15) // 16
    return bytes([n]) + ea + b"\0" * (16 * n - len(ea)) + enc(b)


def filter_seeds():
    doc = [("_id", 1), ("x", 5), ("s", "abc"), ("a", [1, SON([("b", 2)]), [3]]), ("d", SON([("e", None), ("f", 2.5)]))]
    filters = {
        "cmp": [("x", SON([("$gt", 1), ("$lte", Int64(5))]))],
        "and-or": [("$or", [SON([("s", SON([("$regex", "^a"), ("$options", "i")]))]), SON([("x", SON([("$in", [1, 2])]))])]), ("$and", [SON([("d.e", None)])])],
        "elem": [("a", SON([("$elemMatch", SON([("b", SON([("$exists", True)]))]))])), ("a.1.b", 2)],
        "type-size-mod": [("a", SON([("$size", 3)])), ("x", SON([("$mod", [2, 1]), ("$type", "number")])), ("s", SON([("$not", SON([("$eq", "x")]))]))],
        "all-nin-expr": [("a", SON([("$all", [1])])), ("x", SON([("$nin", [MinKey(), MaxKey()])])), ("$expr", SON([("$gt", ["$x", 1])]))],
    }
    for name, f in filters.items():
        out("query_filter", name + ".bin", pair(doc, f))
    updates = {
        "set-inc": [("$set", SON([("d.f", 3), ("n.m", "new")])), ("$inc", SON([("x", 1)])), ("$unset", SON([("s", "")]))],
        "push-pull": [("$push", SON([("a", SON([("$each", [4, 5]), ("$slice", -3), ("$position", 0)]))])), ("$pull", SON([("a", SON([("$gt", 3)]))]))],
        "positional": [("$set", SON([("a.$[].b", 1), ("a.1.b", 9)])), ("$min", SON([("x", 2)])), ("$max", SON([("y", 7)]))],
        "rename-addtoset": [("$rename", SON([("s", "t")])), ("$addToSet", SON([("a", 1)])), ("$pop", SON([("a", 1)])), ("$currentDate", SON([("c", True)]))],
        "replace": [("_id", 1), ("z", "replaced")],
        "mul-bit": [("$mul", SON([("x", 2.5)])), ("$bit", SON([("x", SON([("and", 3)]))])), ("$setOnInsert", SON([("q", 1)]))],
    }
    for name, u in updates.items():
        out("update_doc", name + ".bin", pair(doc, u))


# --------------------------------------------------------------------------- wire


def op_msg(doc, flags=0, seqs=(), checksum=False, request_id=7):
    body = struct.pack("<I", flags | (1 if checksum else 0)) + b"\0" + enc(doc)
    for ident, docs in seqs:
        payload = ident.encode() + b"\0" + b"".join(enc(d) for d in docs)
        body += b"\1" + struct.pack("<i", 4 + len(payload)) + payload
    if checksum:
        body += b"\0\0\0\0"
    return struct.pack("<iiii", 16 + len(body), request_id, 0, 2013) + body


def op_query(ns, doc, request_id=3):
    body = struct.pack("<i", 0) + ns.encode() + b"\0" + struct.pack("<ii", 0, -1) + enc(doc)
    return struct.pack("<iiii", 16 + len(body), request_id, 0, 2004) + body


def wire_seeds():
    out("wire_message", "hello.bin", op_msg([("hello", 1), ("$db", "admin")]))
    out("wire_message", "insert-seq.bin", op_msg([("insert", "c"), ("$db", "test")], seqs=[("documents", [SON([("_id", 1)]), SON([("_id", 2), ("a", [1, 2])])])]))
    out("wire_message", "checksum-moretocome.bin", op_msg([("ping", 1), ("$db", "admin")], flags=2, checksum=True))
    out("wire_message", "legacy-ismaster.bin", op_query("admin.$cmd", [("isMaster", 1), ("client", SON([("application", SON([("name", "x")]))]))]))


# --------------------------------------------------------------------------- extjson

EXTJSON = {
    "int": '42',
    "long": '{"$numberLong": "-9223372036854775808"}',
    "double": '{"$numberDouble": "-Infinity"}',
    "decimal": '{"$numberDecimal": "1.2345E-6143"}',
    "oid": '{"$oid": "6955b900c2c636f1a3e23b58"}',
    "date": '{"$date": {"$numberLong": "-62135596800000"}}',
    "date-iso": '{"$date": "2024-02-29T23:59:59.999Z"}',
    "binary": '{"$binary": {"base64": "AAEC/w==", "subType": "04"}}',
    "uuid": '{"$uuid": "00112233-4455-6677-8899-aabbccddeeff"}',
    "regex": '{"$regularExpression": {"pattern": "^a.*", "options": "imx"}}',
    "timestamp": '{"$timestamp": {"t": 4294967295, "i": 1}}',
    "keys": '[{"$minKey": 1}, {"$maxKey": 1}, null, true, {"$undefined": true}]',
    "code": '{"$code": "function(){}", "$scope": {"a": {"$symbol": "s"}}}',
    "dbpointer": '{"$dbPointer": {"$ref": "db.c", "$id": {"$oid": "000000000000000000000000"}}}',
    "doc": '{"a": {"b": [1, 2.5, "x", {"$numberInt": "7"}]}, "": {}, "$x": 1}',
}


def extjson_seeds():
    for name, text in EXTJSON.items():
        out("extjson", name + ".json", text)


# --------------------------------------------------------------------------- lab inputs

LAB_DOCS = [
    SON([("_id", ObjectId("65f0a1b2c3d4e5f601234567")), ("customerId", 4242), ("city", "Pune"),
         ("items", [SON([("sku", "a]b"), ("n", Int64(2))])]), ("note", 'say "hi" {then}\\')]),
    SON([("_id", 2), ("placedAt", datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc)),
         ("total", 10.5)]),
]

LAB_JSON_LINES = "\n".join([
    '{"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}, "customerId": 4242, "city": "Pune"}',
    "",
    '{"_id": 2, "placedAt": {"$date": "2026-06-01T00:00:00Z"}, "n": {"$numberLong": "5"}, "d": {"$numberDecimal": "1.50"}}',
]) + "\n"

LAB_JSON_ARRAY = """[
  {"_id": 1, "s": "a]b}c\\"d\\\\", "n": [[1, 2], [3, [4]]]},
  {"_id": {"$numberLong": "2"}, "at": {"$date": {"$numberLong": "1780272000000"}}}
]
"""

LAB_WORKLOAD = """// a workload
{"find": {"customerId": 4242}, "weight": 40}
{"count": {"city": "Pune"}}
{"distinct": "city", "query": {"customerId": {"$gte": 100}}}
{"aggregate": [{"$match": {"placedAt": {"$gte": {"$date": "2026-09-01T00:00:00Z"}}}}, {"$group": {"_id": "$city"}}]}
{"update": {"_id": 1}, "u": {"$set": {"a": 1}}, "multi": false, "upsert": true}
{"update": {"city": "Pune"}, "u": [{"$set": {"seen": true}}], "multi": true}
{"delete": {"customerId": 7}, "multi": true}
{"findAndModify": {"customerId": 1}, "update": {"$inc": {"orderNo": 1}}}
{"findAndModify": {"customerId": 2}, "remove": true}
"""

LAB_LOG = "\n".join([
    '{"t":{"$date":"2026-05-01T09:59:00.000+00:00"},"s":"I",  "c":"NETWORK",  "id":22943,   "ctx":"listener","msg":"Connection accepted","attr":{"remote":"127.0.0.1:50000"}}',
    '{"t":{"$date":"2026-05-01T10:00:00.000+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn12","msg":"Slow query","attr":{"type":"command","ns":"db.c","command":{"find":"c","filter":{"a":1},"lsid":{"id":{"$uuid":"b0c6e2a4-8f1e-4d0e-9f5e-2b9c3a1d7e60"}},"$db":"db"},"durationMillis":120}}',
    '{"t":{"$date":"2026-05-01T10:00:01.000+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn13","msg":"Slow query","attr":{"type":"command","ns":"db.c","command":{"aggregate":"c","pipeline":[{"$match":{"b":{"$gte":2}}}],"cursor":{},"$db":"db"},"durationMillis":300}}',
    '{"t":{"$date":"2026-05-01T10:00:02.000+00:00"},"s":"I",  "c":"WRITE",    "id":51803,   "ctx":"conn20","msg":"Slow query","attr":{"type":"update","ns":"db.c","command":{"q":{"_id":1},"u":{"$set":{"a":1}},"multi":false,"upsert":true},"durationMillis":200}}',
    '{"t":{"$date":"2026-05-01T10:00:02.001+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn20","msg":"Slow query","attr":{"type":"command","ns":"db.$cmd","command":{"update":"c","ordered":true,"$db":"db","updates":[{"q":{"_id":1},"u":{"$set":{"a":1}},"upsert":true}]},"durationMillis":201}}',
    '{"t":{"$date":"2026-05-01T10:00:03.000+00:00"},"s":"I",  "c":"WRITE",    "id":51803,   "ctx":"conn21","msg":"Slow query","attr":{"type":"remove","ns":"db.c","command":{"q":{"c":"x"},"limit":0},"durationMillis":150}}',
    '{"t":{"$date":"2026-05-01T10:00:03.001+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn21","msg":"Slow query","attr":{"type":"command","ns":"db.$cmd","command":{"delete":"c","ordered":true,"$db":"db","deletes":2},"durationMillis":400}}',
    'not json',
]) + "\n"


def lab_seeds():
    out("lab_inputs", "lines.json", LAB_JSON_LINES)
    out("lab_inputs", "array.json", LAB_JSON_ARRAY)
    out("lab_inputs", "orders.bson", b"".join(enc(d) for d in LAB_DOCS))
    out("lab_inputs", "workload.jsonl", LAB_WORKLOAD)
    out("lab_inputs", "mongod.log", LAB_LOG)


# --------------------------------------------------------------------------- scenarios


def scenario_seeds():
    d = os.path.join(REPO, "assets", "scenarios")
    for name in sorted(os.listdir(d)):
        if name.endswith(".json"):
            with open(os.path.join(d, name), "rb") as f:
                out("scenario", name, f.read())


# --------------------------------------------------------------------------- traces

TRACE_SCENARIOS = ["ascending", "low-cardinality", "manual", "zones-ip", "reshard", "drain", "auto-merge", "defragment"]
TRACE_MAX_BYTES = 32_000


def thin(lines):
    """The trace's first TRACE_MAX_BYTES on a line boundary (every event kept, so the
    statistics stay consistent; keyframes after the second left out), then the end marker."""
    end = lines[-1] if lines and lines[-1].startswith('{"end"') else None
    text, size, keyframes = [], 0, 0
    for line in lines:
        if '"keyframe":' in line:
            keyframes += 1
            if keyframes > 2:
                continue
        if size + len(line) + 1 > TRACE_MAX_BYTES - 40:
            break
        text.append(line)
        size += len(line) + 1
    if end and text[-1] != end:
        text.append(end)
    return "\n".join(text) + "\n"


def trace_seeds(binary):
    if binary and os.path.exists(binary):
        with tempfile.TemporaryDirectory() as tmp:
            for sc in TRACE_SCENARIOS:
                path = os.path.join(tmp, sc + ".ndjson")
                r = subprocess.run([binary, "sim", sc, "--until", "120", "--record", path], capture_output=True)
                if r.returncode != 0 or not os.path.exists(path):
                    print(f"skipped trace of {sc}: {r.stderr.decode()[:200]}", file=sys.stderr)
                    continue
                with open(path) as f:
                    lines = f.read().splitlines()
                out("trace_lines", sc + ".ndjson", thin(lines))
                if sc == "ascending":
                    # A short one: set-up, the first keyframe, two writes, the end.
                    first = next(i for i, l in enumerate(lines) if '"keyframe":' in l)
                    out("trace_lines", "short.ndjson", "\n".join(lines[: first + 3] + lines[-1:]) + "\n")
        return
    fixtures = os.path.join(REPO, "tests", "fixtures", "traces")
    for name in sorted(os.listdir(fixtures)):
        path = os.path.join(fixtures, name)
        if name.endswith(".gz"):
            with gzip.open(path, "rt") as f:
                text = f.read()
        elif name.endswith(".zst"):
            text = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout.decode()
        else:
            continue
        out("trace_lines", name.split(".")[0] + ".ndjson", thin(text.splitlines()))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else None
    if binary is None:
        for cand in ("target/release/shardtop", "target/debug/shardtop"):
            p = os.path.join(REPO, cand)
            if os.path.exists(p):
                binary = p
                break
    commands_seeds()
    structured_seeds()
    filter_seeds()
    wire_seeds()
    extjson_seeds()
    lab_seeds()
    scenario_seeds()
    trace_seeds(binary)


if __name__ == "__main__":
    main()
