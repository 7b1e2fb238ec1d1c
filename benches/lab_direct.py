#!/usr/bin/env python3
"""The direct computation `shardtop lab` is compared with (docs/performance.md, issue 47).

    python3 benches/lab_direct.py generate N FILE   # N orders as JSON lines (Extended JSON)
    python3 benches/lab_direct.py FILE KEY...       # the metrics of each KEY over FILE

For each key (JSON, e.g. '{"customerId": 1, "placedAt": 1}'), over every document in file
order (the order stands for the record ids), the key characteristics as analyzeShardKey
defines them and the lab reports them: numDocs, numDistinctValues, the 5 mostCommonValues,
the monotonicity (Pearson's coefficient between the keys' index order and the record ids),
avgDocSizeBytes (BSON bytes, computed here), the documents missing a key field, and the lab's
divisibility counts (values first seen in the last tenth, the most common value's documents
in it). No simulation: what a script would do to answer the same questions without the lab.
Standard library only.
"""

import json
import random
import struct
import sys


def bson_size(v):
    """The bytes of a value's BSON encoding (without its element header)."""
    if isinstance(v, dict):
        if "$oid" in v:
            return 12
        if "$date" in v:
            return 8
        return 5 + sum(1 + len(k.encode()) + 1 + bson_size(x) for k, x in v.items())
    if isinstance(v, list):
        return 5 + sum(1 + len(str(i)) + 1 + bson_size(x) for i, x in enumerate(v))
    if isinstance(v, bool):
        return 1
    if isinstance(v, int):
        return 4 if -(2**31) <= v < 2**31 else 8
    if isinstance(v, float):
        return 8
    if isinstance(v, str):
        return 4 + len(v.encode()) + 1
    return 0


RANK = {type(None): 0, int: 1, float: 1, str: 2, dict: 3, bool: 4}


def sortable(v):
    """A value as the index orders it: by type class, then value."""
    if isinstance(v, dict):
        if "$oid" in v:
            return (5, v["$oid"])
        if "$date" in v:
            return (6, v["$date"])
        return (3, json.dumps(v, sort_keys=True))
    return (RANK.get(type(v), 7), v if v is not None else 0)


def get(doc, path):
    for p in path.split("."):
        if not isinstance(doc, dict) or p not in doc:
            return None, True
        doc = doc[p]
    return doc, False


def characteristics(keys, ids, sizes, missing):
    n = len(keys)
    order = sorted(range(n), key=lambda i: keys[i])
    groups = []  # [count, first_id]
    prev = object()
    for i in order:
        k = keys[i]
        if groups and k == prev:
            groups[-1][0] += 1
        else:
            groups.append([1, ids[i]])
            prev = k
    common = sorted(groups, key=lambda g: (-g[0], g[1]))[:5]
    mean_x = (n + 1) / 2
    mean_y = sum(ids) / n
    sxy = sxx = syy = 0.0
    for pos, i in enumerate(order, 1):
        dx = pos - mean_x
        dy = ids[i] - mean_y
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    coeff = sxy / (sxx * syy) ** 0.5 if sxx and syy else 0.0
    start = n - n // 10
    late = sum(1 for g in groups if g[1] > start)
    top = common[0] if common else None
    recent = 0
    if top is not None:
        recent = sum(1 for i in range(start, n) if keys[i] == keys[top[1] - 1])
    return {
        "numDocs": n,
        "numDistinctValues": len(groups),
        "mostCommonValues": [g[0] for g in common],
        "monotonic": abs(coeff) >= 0.7,
        "coefficient": coeff,
        "avgDocSizeBytes": sum(sizes) // max(n, 1),
        "missing": missing,
        "lateNewValues": late,
        "mostCommonRecent": recent,
    }


def analyze(path, patterns):
    fields = [list(json.loads(p).keys()) for p in patterns]
    keys = [[] for _ in patterns]
    missing = [0] * len(patterns)
    sizes = []
    with open(path) as f:
        for line in f:
            doc = json.loads(line)
            size = bson_size(doc) + (17 if "_id" not in doc else 0)
            sizes.append(size)
            for j, fs in enumerate(fields):
                values = []
                lacks = False
                for p in fs:
                    v, m = get(doc, p)
                    lacks = lacks or m
                    values.append(sortable(v))
                missing[j] += lacks
                keys[j].append(tuple(values))
    ids = list(range(1, len(sizes) + 1))
    for p, k, m in zip(patterns, keys, missing):
        print(p, json.dumps(characteristics(k, ids, sizes, m)))


CITIES = ["Berlin", "Chennai", "Delhi", "Hyderabad", "Jaipur", "Kochi", "Kolkata", "Pune"]


def generate(n, path):
    rng = random.Random(3)
    orders = {}
    t0 = 1767225600000
    with open(path, "w") as f:
        for i in range(n):
            c = int(rng.paretovariate(1.2)) % 20000
            orders[c] = orders.get(c, 0) + 1
            doc = {
                "_id": {"$oid": "%024x" % (i + 1)},
                "customerId": c,
                "orderNo": orders[c],
                "city": CITIES[c % 8],
                "placedAt": {"$date": t0 + i * 90000},
                "total": round(rng.random() * 500, 2),
                "items": [{"sku": "s%d" % rng.randrange(5000), "qty": rng.randrange(1, 4)}],
            }
            f.write(json.dumps(doc) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "generate":
        generate(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) >= 3:
        analyze(sys.argv[1], sys.argv[2:])
    else:
        sys.exit(__doc__)
