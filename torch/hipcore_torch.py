"""hipcore_torch - run PyTorch's CUDA memory on libhipcore, in one line.

    import hipcore_torch
    hipcore_torch.enable()      # before the first CUDA tensor
    ...
    print(hipcore_torch.stats())

enable() installs libhipcore-torch.so as PyTorch's pluggable allocator
(torch.cuda.memory.CUDAPluggableAllocator) and, unless patch=False, routes
the memory calls PyTorch does not pass to a pluggable allocator to it:
Tensor.record_stream, torch.cuda.empty_cache,
torch.cuda.set_per_process_memory_fraction, torch.cuda.memory_stats (and
with it memory_allocated, max_memory_allocated, memory_reserved,
max_memory_reserved) and reset_peak_memory_stats.  doc/torch.md in
libhipcore's documentation says what each does.

The plug-in is looked for in $HIPCORE_TORCH_LIBRARY, then beside this file
(where `make install` puts both, in $(pkglibdir)), then in .libs/ beside
it (a build tree).
"""
import ctypes
import os

__all__ = ["enable", "enabled", "library_path", "stats", "memory_stats", "empty_cache",
           "set_memory_fraction", "reset_peak_memory_stats", "last_error"]

_LIB_NAME = "libhipcore-torch.so"
_lib = None
_patched = {}


class Stats(ctypes.Structure):
    """struct hipcore_torch_stats of hipcore/torch.h."""
    _fields_ = [("struct_size", ctypes.c_uint32)] + [
        (name, ctypes.c_uint64) for name in (
            "allocs", "frees", "failed_allocs", "frees_unknown", "bytes_in_use", "peak_in_use",
            "bytes_reserved", "peak_reserved", "device_allocs", "device_frees", "streams",
            "total_memory", "memory_limit")]


def library_path():
    """The plug-in's path: $HIPCORE_TORCH_LIBRARY, beside this file, or its .libs/."""
    env = os.environ.get("HIPCORE_TORCH_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, _LIB_NAME), os.path.join(here, ".libs", _LIB_NAME)):
        if os.path.exists(cand):
            return cand
    raise FileNotFoundError("%s is neither beside %s nor in its .libs/; set HIPCORE_TORCH_LIBRARY"
                            % (_LIB_NAME, __file__))


def _load(path=None):
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(path or library_path())
        lib.hipcore_torch_record_stream.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.hipcore_torch_set_memory_fraction.argtypes = [ctypes.c_double, ctypes.c_int]
        lib.hipcore_torch_stats.argtypes = [ctypes.c_int, ctypes.POINTER(Stats)]
        lib.hipcore_torch_reset_peaks.argtypes = [ctypes.c_int]
        lib.hipcore_torch_last_error.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.hipcore_torch_set_raise.argtypes = [ctypes.c_int]
        _lib = lib
    return _lib


def last_error():
    """The plug-in's last error message in this thread ("" when none)."""
    buf = ctypes.create_string_buffer(512)
    _load().hipcore_torch_last_error(buf, len(buf))
    return buf.value.decode(errors="replace")


def _check(rc, what):
    if rc != 0:
        raise RuntimeError("%s: %s (status %d)" % (what, last_error(), rc))


def _device_index(device):
    import torch
    return torch.cuda._get_device_index(device, optional=True)


def stats(device=None):
    """libhipcore's figures of a device as a dict (struct hipcore_torch_stats)."""
    s = Stats()
    s.struct_size = ctypes.sizeof(Stats)
    _check(_load().hipcore_torch_stats(_device_index(device), ctypes.byref(s)),
           "hipcore_torch_stats")
    return {name: getattr(s, name) for name, _ in Stats._fields_[1:]}


def memory_stats(device=None):
    """torch.cuda.memory_stats's keys that libhipcore can fill, from stats()."""
    try:
        s = stats(device)
    except RuntimeError:  # the device was never used
        return {}
    return {
        "allocated_bytes.all.current": s["bytes_in_use"],
        "allocated_bytes.all.peak": s["peak_in_use"],
        "reserved_bytes.all.current": s["bytes_reserved"],
        "reserved_bytes.all.peak": s["peak_reserved"],
        "allocation.all.allocated": s["allocs"],
        "allocation.all.freed": s["frees"],
        "segment.all.allocated": s["device_allocs"],
        "segment.all.freed": s["device_frees"],
        "num_ooms": s["failed_allocs"],
    }


def empty_cache():
    """Gives every page without a live allocation back to the runtime."""
    _check(_load().hipcore_torch_empty_cache(), "hipcore_torch_empty_cache")


def set_memory_fraction(fraction, device=None):
    """Caps the device memory libhipcore holds at fraction x the device's total."""
    _check(_load().hipcore_torch_set_memory_fraction(float(fraction), _device_index(device)),
           "hipcore_torch_set_memory_fraction")


def reset_peak_memory_stats(device=None):
    """Resets the peak of bytes in use (the reserved peak is since the device opened)."""
    _check(_load().hipcore_torch_reset_peaks(_device_index(device)), "hipcore_torch_reset_peaks")


def _record_stream(tensor, stream):
    rc = _load().hipcore_torch_record_stream(tensor.untyped_storage().data_ptr(),
                                             stream.cuda_stream)
    _check(rc, "record_stream")


def enabled():
    """Whether enable() installed the plug-in in this process."""
    return _lib is not None and "allocator" in _patched


def enable(path=None, patch=True):
    """Installs libhipcore as PyTorch's CUDA allocator (before the first CUDA tensor).

    patch: also route record_stream, empty_cache, set_per_process_memory_fraction,
    memory_stats and reset_peak_memory_stats to libhipcore.
    """
    import torch
    if enabled():
        return
    so = path or library_path()
    # A refused allocation raises (RuntimeError with the reason): PyTorch
    # takes a NULL from a pluggable allocator as a tensor at address 0.
    _load(so).hipcore_torch_set_raise(1)
    alloc = torch.cuda.memory.CUDAPluggableAllocator(so, "hipcore_torch_alloc",
                                                     "hipcore_torch_free")
    torch.cuda.memory.change_current_allocator(alloc)
    _patched["allocator"] = alloc
    if not patch:
        return
    _patched["record_stream"] = torch.Tensor.record_stream
    torch.Tensor.record_stream = _record_stream
    for mod in (torch.cuda, torch.cuda.memory):
        mod.empty_cache = empty_cache
        mod.set_per_process_memory_fraction = set_memory_fraction
        mod.memory_stats = memory_stats
        mod.reset_peak_memory_stats = reset_peak_memory_stats
