"""common.py - what every PyTorch client script here shares: picking the
allocator before the first CUDA tensor, and reading its memory figures.

    --allocator native    PyTorch's own caching allocator
    --allocator hipcore   libhipcore through libhipcore-torch.so
                          (hipcore_torch.py found on PYTHONPATH)
"""
import json
import os
import sys


def setup(allocator):
    """Installs the allocator; call before any CUDA tensor exists."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch
    if allocator == "hipcore":
        import hipcore_torch
        hipcore_torch.enable()
    elif allocator != "native":
        sys.exit("unknown allocator %r (native, hipcore)" % allocator)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    return torch


def reset_peaks(allocator):
    import torch
    if allocator == "hipcore":
        import hipcore_torch
        hipcore_torch.reset_peak_memory_stats()
    else:
        torch.cuda.reset_peak_memory_stats()


def memory(allocator):
    """Peak in use and reserved bytes, and device allocations, of device 0."""
    import torch
    if allocator == "hipcore":
        import hipcore_torch
        s = hipcore_torch.stats(0)
        return {"peak_in_use_bytes": s["peak_in_use"], "peak_reserved_bytes": s["peak_reserved"],
                "device_allocs": s["device_allocs"], "allocs": s["allocs"],
                "failed_allocs": s["failed_allocs"], "frees_unknown": s["frees_unknown"],
                "streams": s["streams"]}
    st = torch.cuda.memory_stats(0)
    return {"peak_in_use_bytes": st.get("allocated_bytes.all.peak", 0),
            "peak_reserved_bytes": st.get("reserved_bytes.all.peak", 0),
            "device_allocs": st.get("segment.all.allocated", 0),
            "allocs": st.get("allocation.all.allocated", 0)}


def emit(obj, path=None):
    """One JSON line on stdout, and to @path when given."""
    line = json.dumps(obj, sort_keys=True)
    print(line, flush=True)
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")
