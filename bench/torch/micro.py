"""micro.py - torch.empty then del, at 4 KiB, 1 MiB and 64 MiB, on one
allocator: the per-pair cost as a Python program pays it (the interpreter
and PyTorch's tensor machinery included, as in any model), median of
several timed loops after a warm-up.

    python3 micro.py --allocator native|hipcore [--out FILE]
"""
import argparse
import statistics
import time

import common

SIZES = {"4KiB": 4096, "1MiB": 1 << 20, "64MiB": 64 << 20}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--allocator", required=True)
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--loops", type=int, default=7)
    ap.add_argument("--out")
    a = ap.parse_args()
    torch = common.setup(a.allocator)
    res = {}
    for name, size in SIZES.items():
        for _ in range(1000):  # warm-up: the pool holds the block after this
            t = torch.empty(size, dtype=torch.uint8, device="cuda")
            del t
        per = []
        for _ in range(a.loops):
            t0 = time.perf_counter()
            for _ in range(a.pairs):
                t = torch.empty(size, dtype=torch.uint8, device="cuda")
                del t
            per.append((time.perf_counter() - t0) * 1e9 / a.pairs)
        res[name] = {"median_ns": statistics.median(per), "min_ns": min(per), "max_ns": max(per)}
    torch.cuda.synchronize()
    common.emit({"kind": "micro", "allocator": a.allocator, "pairs": a.pairs, "loops": a.loops,
                 "per_pair": res, "device": torch.cuda.get_device_name(0)}, a.out)


if __name__ == "__main__":
    main()
