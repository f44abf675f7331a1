# An H100 80GB HBM3 machine of the device tool as `hipsim calibrate
# --backend hip --passes 5` measured it on 2026-12-05 18:47 UTC (thirteenth
# session; the tool lent no H200), with the cold-call keys (sim/sim_cold.c)
# and host_copy_call from a 256-byte copy.  In the same call
# `tests/gpu/fidelity.sh` replayed the built-in workloads with it: memory
# figures identical, time +1.3 / +2.0 / -7.1 / +4.0 % (service / training /
# inference / loader), and a second calibration predicted them within
# 0.29-1.93 % of this one.  The next call on that machine gave -3.8 /
# -12.8 / -2.3 / +6.3 % and 2.2-4.2 % (BENCHMARKS.md, "Simulator
# fidelity").  A figure of that host, not of the H200: use it with
# `--profile profiles/h100-calibrated.profile`.
# Calibrated by hipsim (hipcore 0.1.0).
# device: NVIDIA H100 80GB HBM3
# date: 2026-12-05T18:47:24Z
# runtime: hip backend
# command: hipsim calibrate --backend hip --passes 5 -o /tmp/o/fid/profile1
# repeats: 11 per figure (median); passes: 5 (each key their median)
# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.
name = "NVIDIA H100 80GB HBM3"
total_memory = 85017493504 B
alignment = 512 B
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 55020721909 B/s
h2d_pageable_bw = 10484171270 B/s
d2h_pinned_bw = 55217660955 B/s
d2h_pageable_bw = 10095224384 B/s
d2d_bw = 1635097471110 B/s
h2d_pinned_latency = 5928 ns
h2d_pageable_latency = 4633 ns
d2h_pinned_latency = 4797 ns
d2h_pageable_latency = 6814 ns
d2d_latency = 7835 ns
copy_call = 2867 ns
host_copy_call = 55 ns
host_copy_bw = 9078580087 B/s
host_copy_split_call = 11700 ns
host_copy_split_wake = 13310 ns
host_copy_spin = 50000 ns
host_copy_max_bw = 74980228392 B/s

# Kernels (kernel_default is not measured: from the base profile).
launch_call = 4379 ns
launch_overhead = 1911 ns
launch_latency = 4150 ns
launch_lib = 535 ns
write_lib = 977 ns
kernel_default = 500 ns

# Allocation: base + per MiB beyond the first.
dev_alloc = 52880 ns
dev_alloc_per_mib = 139 ns
dev_free = 42886 ns
dev_free_per_mib = 719 ns
host_alloc = 545142 ns
host_alloc_per_mib = 59277 ns
host_free = 73833 ns
host_free_per_mib = 22518 ns

# Streams and events (host costs).
event_record = 852 ns
event_query = 456 ns
event_wait = 429 ns
event_sync = 682 ns
event_destroy = 381 ns
stream_create = 3088 ns
stream_destroy = 2580 ns
stream_sync = 807 ns

# Graphs (host costs).
capture_begin = 721 ns
capture_node = 595 ns
graph_instantiate = 4512 ns
graph_instantiate_node = 1585 ns
graph_launch = 3955 ns

# Calls after host copies: a call costs a share of its cold_ figure more,
# by the bytes host-copied since its kind last ran: none below
# host_cold_bytes / 16, a quarter per doubling, all from host_cold_bytes
# (0: never).
host_cold_bytes = 8388608 B
cold_copy = 7524 ns
cold_launch = 6891 ns
cold_event_record = 5118 ns
cold_event_query = 4058 ns
cold_event_wait = 2805 ns
cold_event_sync = 4201 ns
cold_event_destroy = 2649 ns
cold_stream_sync = 4797 ns
cold_dev_alloc = 53098 ns
cold_dev_free = 52571 ns

jitter_ppm = 0
