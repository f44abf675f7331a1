"""summarize.py - results.jsonl of run-gpu.sh as the tables of BENCHMARKS.md.

    python3 summarize.py results.jsonl

Training: a model's losses are bit-identical when every run of both
allocators gave the same hex floats at every step; its step time is the
median over runs of each run's median step, steps 11 on (the first ten warm
up kernels and pools); the ratio is hipcore / native.
"""
import json
import statistics
import sys
from collections import defaultdict


def mib(b):
    return "%.1f" % (b / 2**20) if b is not None else "-"


def main():
    recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    device = next((r.get("device") for r in recs if r.get("device")), "?")
    print("Device: %s\n" % device)
    train = defaultdict(lambda: defaultdict(list))
    for r in recs:
        if r.get("kind") == "train":
            train[r["model"]][r["allocator"]].append(r)
    if train:
        print("| model | runs (native/hipcore) | losses bit-identical | step ms native | step ms hipcore"
              " | time ratio | peak reserved MiB native | hipcore | reserved ratio"
              " | peak in use MiB native | hipcore |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for m, by in train.items():
            nat, hip = by.get("native", []), by.get("hipcore", [])
            losses = {tuple(r["losses"]) for r in nat + hip}
            same = "yes" if len(losses) == 1 and nat and hip else "NO (%d distinct)" % len(losses)
            def med(rs):
                v = [statistics.median(r["step_ms"][10:] or r["step_ms"]) for r in rs]
                return statistics.median(v) if v else None
            tn, th = med(nat), med(hip)
            rn = max((r["peak_reserved_bytes"] for r in nat), default=None)
            rh = max((r["peak_reserved_bytes"] for r in hip), default=None)
            un = max((r["peak_in_use_bytes"] for r in nat), default=None)
            uh = max((r["peak_in_use_bytes"] for r in hip), default=None)
            print("| %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                m, len(nat), len(hip), same, "%.2f" % tn if tn else "-", "%.2f" % th if th else "-",
                "%.4f" % (th / tn) if tn and th else "-", mib(rn), mib(rh),
                "%.3f" % (rh / rn) if rn and rh else "-", mib(un), mib(uh)))
        print()
    serve = {r["allocator"]: r for r in recs if r.get("kind") == "serve"}
    if serve:
        n, h = serve.get("native"), serve.get("hipcore")
        print("| server | peak reserved MiB | peak in use MiB | wall s | errors |")
        print("|---|---|---|---|---|")
        for k, r in serve.items():
            print("| %s | %s | %s | %.2f | %d |" % (k, mib(r["peak_reserved_bytes"]),
                                                 mib(r["peak_in_use_bytes"]), r["wall_s"],
                                                 len(r["errors"])))
        if n and h:
            print("\nserver: reserved hipcore/native %.3f; outputs identical: %s\n" % (
                h["peak_reserved_bytes"] / n["peak_reserved_bytes"],
                "yes" if n["checksums"] == h["checksums"] and None not in n["checksums"] else "NO"))
    micro = {r["allocator"]: r for r in recs if r.get("kind") == "micro"}
    if micro:
        print("| torch.empty + del | native ns | hipcore ns | hipcore / native |")
        print("|---|---|---|---|")
        for size in ("4KiB", "1MiB", "64MiB"):
            n = micro.get("native", {}).get("per_pair", {}).get(size, {}).get("median_ns")
            h = micro.get("hipcore", {}).get("per_pair", {}).get(size, {}).get("median_ns")
            print("| %s | %s | %s | %s |" % (size, "%.0f" % n if n else "-", "%.0f" % h if h else "-",
                                             "%.3f" % (h / n) if n and h else "-"))
        print()
    for r in recs:
        if r.get("kind") == "trace":
            print("trace %s: live %s, replay %s, events %s, identical: %s" % (
                r["workload"], r["live"], r["replay"], r.get("events"), r["identical"]))
    probes = [r for r in recs if "case" in r]
    if probes:
        print("\n| probe | patched | ok | result |")
        print("|---|---|---|---|")
        for r in probes:
            print("| %s | %s | %s | %s |" % (r["case"], r["patched"], r["ok"],
                                             json.dumps(r.get("result", r.get("error")))[:200]))


if __name__ == "__main__":
    main()
