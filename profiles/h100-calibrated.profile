# An H100 80GB HBM3 machine of the device tool as `hipsim calibrate
# --backend hip` measured it on 2026-12-07 10:40 UTC (the first of three
# consecutive `tests/gpu/fidelity.sh` runs there, through
# tests/gpu/sim-on-device.sh; the real PTX kernels, kernel_per_mib, the
# virtual-memory keys and dev_alloc_small / dev_free_small included).  In
# the same run `hipsim validate` replayed the built-in workloads with it:
# memory figures identical, time -0.7 / +1.6 / +0.1 / -0.7 % (service /
# training / inference / loader), a second calibration within 0.09-1.05 %
# of this one (BENCHMARKS.md, "Calibration and fidelity").  A figure of
# that host, not of the H200: use it with `--profile h100-calibrated`.
# Calibrated by hipsim (hipcore 0.1.0).
# device: NVIDIA H100 80GB HBM3
# date: 2026-12-07T10:40:23Z
# runtime: hip backend
# command: hipsim calibrate --backend hip -o profile1
# repeats: 11 per figure (median); passes: 5 (each key their median)
# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.
name = "NVIDIA H100 80GB HBM3"
total_memory = 85017493504 B
alignment = 512 B
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 54968533533 B/s
h2d_pageable_bw = 10542723850 B/s
d2h_pinned_bw = 55211752835 B/s
d2h_pageable_bw = 10647650841 B/s
d2d_bw = 1625984704988 B/s
h2d_pinned_latency = 5949 ns
h2d_pageable_latency = 4271 ns
d2h_pinned_latency = 4907 ns
d2h_pageable_latency = 6462 ns
d2d_latency = 8283 ns
copy_call = 2934 ns
host_copy_call = 67 ns
host_copy_bw = 9773833936 B/s
host_copy_split_call = 15479 ns
host_copy_split_wake = 14385 ns
host_copy_spin = 50000 ns
host_copy_max_bw = 76592064512 B/s

# Kernels; without a duration hint a built-in kernel takes kernel_default
# + kernel_per_mib for each MiB it reads and writes.
launch_call = 4359 ns
launch_overhead = 1907 ns
launch_latency = 3879 ns
launch_lib = 488 ns
write_lib = 878 ns
kernel_default = 0 ns
kernel_per_mib = 549 ns

# Allocation: base + per MiB beyond the first.
dev_alloc = 51532 ns
dev_alloc_per_mib = 121 ns
dev_free = 41611 ns
dev_free_per_mib = 665 ns
# Below 1 MiB (0: the line above).
dev_alloc_small = 3059 ns
dev_free_small = 3936 ns
host_alloc = 518902 ns
host_alloc_per_mib = 62964 ns
host_free = 71084 ns
host_free_per_mib = 23056 ns

# Virtual memory: the granule (0: none); a map or an unmap costs
# base + per MiB beyond the first, per mapping.
vmm_granularity = 2097152 B
va_reserve = 3018 ns
va_release = 3940 ns
pmem_map = 49136 ns
pmem_map_per_mib = 44 ns
pmem_unmap = 37088 ns
pmem_unmap_per_mib = 600 ns

# Streams and events (host costs).
event_record = 899 ns
event_query = 551 ns
event_wait = 464 ns
event_sync = 750 ns
event_destroy = 385 ns
stream_create = 3453 ns
stream_destroy = 3121 ns
stream_sync = 874 ns

# Graphs (host costs).
capture_begin = 586 ns
capture_node = 362 ns
graph_instantiate = 2959 ns
graph_instantiate_node = 1023 ns
graph_launch = 3755 ns

# Calls after host copies: a call costs a share of its cold_ figure more,
# by the bytes host-copied since its kind last ran: none below
# host_cold_bytes / 16, a quarter per doubling, all from host_cold_bytes
# (0: never).
host_cold_bytes = 8388608 B
cold_copy = 6694 ns
cold_launch = 5977 ns
cold_event_record = 5781 ns
cold_event_query = 3921 ns
cold_event_wait = 2770 ns
cold_event_sync = 4036 ns
cold_event_destroy = 2523 ns
cold_stream_sync = 4635 ns
cold_dev_alloc = 37967 ns
cold_dev_free = 38926 ns

jitter_ppm = 0
