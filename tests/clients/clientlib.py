"""Helpers shared by the PyMongo scripts of tests/clients.

A script makes a Checks(name), runs its recipe through it, and calls finish(): a failed check is
printed ("FAIL label: ...") and recorded and the script goes on, so one run lists every wrong
answer; finish() prints "OK <name>" or exits 1.
"""

import sys
import traceback


class Checks:
    def __init__(self, name):
        self.name = name
        self.failures = []

    def fail(self, label, why):
        self.failures.append(f"{label}: {why}")
        print(f"FAIL {label}: {why}", flush=True)

    def check(self, label, cond, detail="not true"):
        if cond:
            print(f"ok   {label}", flush=True)
        else:
            self.fail(label, detail)
        return bool(cond)

    def eq(self, label, got, want):
        return self.check(label, got == want, f"got {got!r}, want {want!r}")

    def step(self, label, fn):
        """fn()'s value, or None (and a failure) when it raises."""
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - every error is a failed check here
            self.fail(label, f"raised {error_text(e)}")
            return None

    def finish(self):
        if self.failures:
            print(f"{self.name}: {len(self.failures)} check(s) failed:", flush=True)
            for f in self.failures:
                print(f"  {f}", flush=True)
            sys.exit(1)
        print(f"OK {self.name}", flush=True)


def error_text(e):
    code = getattr(e, "code", None)
    details = getattr(e, "details", None)
    if details:
        return f"{type(e).__name__} code {code}: {details}"
    return f"{type(e).__name__}: {e}\n{traceback.format_exc()}"


def explain_find(db, coll, flt):
    """explain("executionStats") of find(flt), summarized like lib.js's explainFind."""
    e = db.command("explain", {"find": coll, "filter": flt}, verbosity="executionStats")
    stages = e["executionStats"]["executionStages"]
    return {
        "stage": e["queryPlanner"]["winningPlan"]["stage"],
        "nReturned": int(e["executionStats"]["nReturned"]),
        "shards": [
            {
                "shard": s["shardName"],
                "nReturned": int(s["nReturned"]),
                "docsExamined": int(s["totalDocsExamined"]),
            }
            for s in stages.get("shards", [])
        ],
    }


def shards_holding(db, coll, flt):
    """The shards holding at least one document matching flt (explain's per-shard nReturned)."""
    return sorted(s["shard"] for s in explain_find(db, coll, flt)["shards"] if s["nReturned"] > 0)
