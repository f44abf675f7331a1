/*
 * hipcore/torch.h - libhipcore as PyTorch's GPU allocator.
 *
 * libhipcore-torch.so (installed in $(pkglibdir)) exports the two functions
 * PyTorch's pluggable allocator takes,
 *
 *	torch.cuda.memory.CUDAPluggableAllocator(path, "hipcore_torch_alloc",
 *						  "hipcore_torch_free")
 *
 * and the calls below, which hipcore_torch.py (installed beside it) reaches
 * through ctypes.  It needs no PyTorch header: a stream is the runtime's
 * opaque handle.  doc/torch.md says what PyTorch does with the plug-in and
 * which of its memory calls reach it.
 *
 * Model: device ordinal N is one hc_device opened on first use (the backend
 * named by HIPCORE_TORCH_BACKEND, "hip" by default, which binds the runtime
 * PyTorch already loaded).  Each stream PyTorch allocates on is adopted
 * (hc_stream_adopt) on first use and kept for the process's life, so each
 * has its own pools, as PyTorch's caching allocator keeps a pool per stream.
 * A free returns the block to its stream's pools at once: PyTorch frees in
 * stream order.  A free on another stream, and each stream named by
 * hipcore_torch_record_stream, holds the block (hc_buffer_hold) until that
 * stream's work queued up to the free is done.
 *
 * Every function may be called from any thread, except
 * hipcore_torch_shutdown, which no other call may overlap.  Allocations and
 * frees of one device run one at a time (a per-device lock, as PyTorch's
 * own allocator takes), so a recorded trace gives them in the order they
 * ran; streams are looked up under a second per-device lock, taken only
 * for a stream the calling thread did not use last.  Statuses are
 * hc_status values (0 is HC_OK); hipcore_torch_last_error says what went
 * wrong in the calling thread.
 */
#ifndef HIPCORE_TORCH_H
#define HIPCORE_TORCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HIPCORE_TORCH_API __attribute__((visibility("default")))
#else
#define HIPCORE_TORCH_API
#endif

/*
 * hipcore_torch_alloc - @size bytes of device memory of @device, ordered on
 * @stream, aligned to 512 bytes (as PyTorch's own allocator aligns).
 * Return: the address, or NULL for @size 0 and on failure (out of memory
 * after cleanup and retry, over the memory fraction, no device), unless
 * hipcore_torch_set_raise turned on exceptions.
 * Context: any thread; the device's first call opens it and a stream's
 * first use adopts it (hc_stream_adopt).  Serialised with the device's
 * other allocs and frees; blocks as hc_alloc may on a pool miss.
 */
HIPCORE_TORCH_API void *hipcore_torch_alloc(ssize_t size, int device, void *stream);

/*
 * hipcore_torch_set_raise - how a refused allocation is reported: @on 0
 * (the default) returns NULL, the C convention; @on 1 throws a C++
 * std::runtime_error carrying the message, which PyTorch, whose allocator
 * interface is C++, turns into a Python RuntimeError.  PyTorch 2.11 takes a
 * NULL from a pluggable allocator as a tensor at address 0, so
 * hipcore_torch.enable() turns this on.  Only a C++ caller may use it.
 * Context: any thread; one atomic store, for every thread.
 */
HIPCORE_TORCH_API int hipcore_torch_set_raise(int on);

/*
 * hipcore_torch_free - give back what hipcore_torch_alloc returned.  @size
 * and @device are checked against the allocation; @stream is the stream the
 * free is ordered on (PyTorch passes the allocating one).  NULL is ignored;
 * a pointer not allocated here is counted (frees_unknown) and ignored.
 * Context: any thread; serialised with the device's other allocs and
 * frees.  Holds for each recorded stream (hc_buffer_hold), which may wait
 * for the fence of that stream's previous drop-queue flush.
 */
HIPCORE_TORCH_API void hipcore_torch_free(void *ptr, size_t size, int device, void *stream);

/*
 * hipcore_torch_record_stream - @stream uses the allocation at @ptr
 * (torch.Tensor.record_stream): when it is freed, its memory waits for the
 * work queued on @stream up to the free.
 * Context: any thread; takes a process-wide lock over recorded streams
 * and may adopt @stream; never waits on the device.
 * Return: HC_ERR_INVALID when @ptr is not a live allocation of this plug-in.
 */
HIPCORE_TORCH_API int hipcore_torch_record_stream(void *ptr, void *stream);

/*
 * hipcore_torch_empty_cache - give every page that holds no live allocation
 * back to the runtime (torch.cuda.empty_cache): hc_memory_cleanup on every
 * adopted stream of every open device, then the devices' idle memory.
 * Context: any thread; holds each device's stream-table lock while it
 * cleans (a first alloc on a new stream waits), not the alloc/free lock.
 * Blocks: fence waits and device frees, which may synchronise the device.
 */
HIPCORE_TORCH_API int hipcore_torch_empty_cache(void);

/*
 * hipcore_torch_set_memory_fraction - cap @device's memory at @fraction of
 * its total (torch.cuda.set_per_process_memory_fraction): an allocation
 * that would take the device memory libhipcore holds past the cap, after
 * cleanup, fails.  @fraction 0 or >= 1 removes the cap.
 * Context: any thread; opens @device on first use; otherwise an atomic
 * store that the next device allocation sees.
 */
HIPCORE_TORCH_API int hipcore_torch_set_memory_fraction(double fraction, int device);

/* Figures of one device since it was opened (peak_in_use: since the last
 * reset_peaks). */
struct hipcore_torch_stats {
	uint32_t struct_size;    /* set by the caller: sizeof(struct hipcore_torch_stats) */
	uint64_t allocs, frees;  /* successful calls */
	uint64_t failed_allocs;  /* hipcore_torch_alloc calls that returned NULL */
	uint64_t frees_unknown;  /* frees of pointers this plug-in did not hand out */
	uint64_t bytes_in_use;   /* bytes asked for, of live allocations */
	uint64_t peak_in_use;
	uint64_t bytes_reserved; /* device memory libhipcore holds (pools and idle) */
	uint64_t peak_reserved;
	uint64_t device_allocs, device_frees; /* runtime allocations and frees */
	uint64_t streams;        /* streams adopted */
	uint64_t total_memory;   /* the device's */
	uint64_t memory_limit;   /* the memory fraction's cap in bytes, 0: none */
};

/* Return: HC_ERR_STATE when @device was never used, HC_ERR_INVALID for a
 * bad @out or struct_size.
 * Context: any thread; device-wide (hc_device_memory_usage locks each of
 * the device's streams in turn); never waits on the device.  The figures
 * are read one by one, not as one snapshot. */
HIPCORE_TORCH_API int hipcore_torch_stats(int device, struct hipcore_torch_stats *out);

/* Resets peak_in_use to the bytes in use now
 * (torch.cuda.reset_peak_memory_stats).  peak_reserved is the backend's
 * device peak since the device was opened and is not reset.
 * Context: any thread; atomics, no lock. */
HIPCORE_TORCH_API int hipcore_torch_reset_peaks(int device);

/* The libhipcore device behind @device, for the hc_* API.
 * Context: any thread; opens @device on first use. */
HIPCORE_TORCH_API int hipcore_torch_device(int device, uint64_t *hc_device_id);

/* This thread's last error message into @buf (always NUL-terminated).
 * Context: any thread (the message is the caller's own). */
HIPCORE_TORCH_API int hipcore_torch_last_error(char *buf, size_t len);

/*
 * hipcore_torch_shutdown - close every device (their memory goes back to
 * the runtime; pointers still live become invalid).  For tests and for
 * programs that outlive their use of PyTorch; a later alloc opens anew.
 * Context: no other call of this plug-in, in any thread, may overlap it
 * (it closes devices that alloc and free reach without a lock).  Blocks as
 * hc_device_close does.
 */
HIPCORE_TORCH_API int hipcore_torch_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif /* HIPCORE_TORCH_H */
