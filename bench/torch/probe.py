"""probe.py - what PyTorch does with libhipcore as its pluggable allocator,
call by call, each in a fresh process (a failure in one cannot poison the
next): the memory calls PyTorch does not pass to a pluggable allocator,
with hipcore_torch's patches and without them, an allocation the plug-in
refuses, and CUDA graph capture.  Prints one JSON line per case:
{"case", "patched", "ok", "result" or "error"}.

    python3 probe.py [--out FILE]
"""
import json
import subprocess
import sys

PRELUDE = """
import json, os, sys
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch, hipcore_torch
hipcore_torch.enable(patch=%(patch)s)
x = torch.ones(1 << 20, device="cuda")
def done(result): print("RESULT " + json.dumps(result)); sys.exit(0)
"""

CASES = {
    "memory_stats": """
st = torch.cuda.memory_stats()
done({"keys": len(st), "max_memory_reserved": torch.cuda.max_memory_reserved(),
      "memory_allocated": torch.cuda.memory_allocated()})
""",
    "empty_cache": """
y = torch.empty(256 << 20, dtype=torch.uint8, device="cuda"); del y
before = hipcore_torch.stats()["bytes_reserved"]
torch.cuda.empty_cache()
done({"reserved_before": before, "reserved_after": hipcore_torch.stats()["bytes_reserved"]})
""",
    "record_stream": """
s = torch.cuda.Stream()
y = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
with torch.cuda.stream(s):
    z = y.float().sum()
y.record_stream(s)
del y
st = hipcore_torch.stats()
s.synchronize()
done({"streams": st["streams"], "in_use_after_free": st["bytes_in_use"], "z": float(z)})
""",
    "memory_fraction": """
torch.cuda.set_per_process_memory_fraction(0.01)
try:
    y = torch.empty(8 << 30, dtype=torch.uint8, device="cuda")
    done({"allocated": True, "ptr": y.data_ptr()})
except Exception as e:
    done({"allocated": False, "exception": type(e).__name__, "message": str(e)[:300],
          "plugin": hipcore_torch.last_error()})
""",
    "refused_alloc": """
try:
    y = torch.empty(1 << 46, dtype=torch.uint8, device="cuda")
    done({"allocated": True, "ptr": y.data_ptr()})
except Exception as e:
    done({"allocated": False, "exception": type(e).__name__, "message": str(e)[:300],
          "plugin": hipcore_torch.last_error()})
""",
    "graph_capture": """
s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    w = x * 2
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        y = x * 3 + 1
    g.replay(); torch.cuda.synchronize()
    done({"captured": True, "value": float(y[0])})
except Exception as e:
    done({"captured": False, "exception": type(e).__name__, "message": str(e)[:400],
          "plugin": hipcore_torch.last_error()})
""",
    "reset_peak": """
y = torch.empty(512 << 20, dtype=torch.uint8, device="cuda"); del y
before = torch.cuda.max_memory_allocated()
torch.cuda.reset_peak_memory_stats()
done({"peak_before": before, "peak_after": torch.cuda.max_memory_allocated()})
""",
}


def run(case, patch):
    code = PRELUDE % {"patch": patch} + CASES[case]
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    rec = {"case": case, "patched": patch, "returncode": p.returncode}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            rec["ok"] = True
            rec["result"] = json.loads(line[7:])
    if "result" not in rec:
        rec["ok"] = False
        rec["error"] = (p.stderr.strip().splitlines() or ["(no output)"])[-1][:400]
    return rec


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    for case in CASES:
        for patch in (True, False):
            rec = run(case, patch)
            line = json.dumps(rec, sort_keys=True)
            print(line, flush=True)
            if out:
                with open(out, "a") as f:
                    f.write(line + "\n")


if __name__ == "__main__":
    main()
