# NVIDIA H200 (PCIe Gen5 x16), CUDA 13.0, driver 580.159.
# Figures from reference/h200-probe.md; the simulator's built-in profile is
# exactly this file (tests/sim/profile.c checks it).  Format: doc/sim-profile.md.
name = NVIDIA H200 (simulated)
total_memory = 143771 MiB
alignment = 256
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 55 GB/s
h2d_pageable_bw = 8 GB/s
d2h_pinned_bw = 55 GB/s
d2h_pageable_bw = 16 GB/s
d2d_bw = 2000 GB/s
h2d_pinned_latency = 8 us
h2d_pageable_latency = 10 us
d2h_pinned_latency = 8 us
d2h_pageable_latency = 10 us
d2d_latency = 1 us
copy_call = 1090 ns

# The library's own host memcpy (staging): one thread; split over its copy workers.
host_copy_bw = 9 GB/s
host_copy_max_bw = 20 GB/s

# Kernels.
launch_call = 1090 ns
launch_overhead = 500 ns
kernel_default = 500 ns

# Allocation: base + per_mib for each MiB beyond the first.
dev_alloc = 40 us
dev_alloc_per_mib = 600 ns
dev_free = 37 us
dev_free_per_mib = 306 ns
host_alloc = 600 us
host_alloc_per_mib = 400 us
host_free = 50 us
host_free_per_mib = 24800 ns

# Virtual memory: the granule (0: none); a map or an unmap costs
# base + per MiB beyond the first, per mapping.  Public figures for 2 MiB
# pages (A100), not the H200 probe's: doc/sim-profile.md.
vmm_granularity = 2 MiB
va_reserve = 15 us
va_release = 10 us
pmem_map = 30 us
pmem_map_per_mib = 600 ns
pmem_unmap = 25 us
pmem_unmap_per_mib = 306 ns

# Streams and events (host API costs).
event_record = 300 ns
event_query = 160 ns
event_wait = 210 ns
event_sync = 500 ns
event_destroy = 0 ns
stream_create = 2000 ns
stream_destroy = 1300 ns
stream_sync = 500 ns

# Graphs.
capture_begin = 2 us
capture_node = 1480 ns
graph_instantiate = 10 us
graph_instantiate_node = 2430 ns
graph_launch = 5 us

# Calls after host copies: a call costs a share of its cold_ figure more,
# by the bytes host-copied since its kind last ran: none below
# host_cold_bytes / 16, a quarter per doubling, all from host_cold_bytes
# (0: never).
# Off here: the probe behind this profile timed calls hot.
host_cold_bytes = 0 B
cold_copy = 0 ns
cold_launch = 0 ns
cold_event_record = 0 ns
cold_event_query = 0 ns
cold_event_wait = 0 ns
cold_event_sync = 0 ns
cold_event_destroy = 0 ns
cold_stream_sync = 0 ns
cold_dev_alloc = 0 ns
cold_dev_free = 0 ns

jitter_ppm = 0
