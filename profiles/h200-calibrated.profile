# The H200 machine as `hipsim calibrate --backend hip` measured it (eighth
# session, 19:49 UTC on that machine's clock: five passes, each key the
# median over them; registered pinned blocks, host copies through the
# library, kernels split into occupancy and latency, the library's own
# work per launch and per write).  Two such calibrations on that host
# predicted the built-in workloads within 3 % of each other in 15 of 20
# cases over five runs of the seventh session (BENCHMARKS.md, "Simulator
# fidelity").  Use it with `--profile profiles/h200-calibrated.profile`;
# the built-in profile (profiles/h200.profile) stays the probe's figures.
# Calibrated by hipsim (hipcore 0.1.0).
# device: NVIDIA H200
# date: 2026-12-03T19:49:03Z
# runtime: hip backend
# command: hipsim calibrate --backend hip -o /root/out/h200.profile
# repeats: 11 per figure (median); passes: 5 (each key their median)
# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.
name = "NVIDIA H200"
total_memory = 150109880320 B
alignment = 512 B
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 55077216396 B/s
h2d_pageable_bw = 13651118230 B/s
d2h_pinned_bw = 55260375139 B/s
d2h_pageable_bw = 14424840631 B/s
d2d_bw = 2246753662878 B/s
h2d_pinned_latency = 5482 ns
h2d_pageable_latency = 4583 ns
d2h_pinned_latency = 4425 ns
d2h_pageable_latency = 6123 ns
d2d_latency = 7062 ns
copy_call = 2159 ns
host_copy_call = 674 ns
host_copy_bw = 12350485739 B/s
host_copy_split_call = 13699 ns
host_copy_split_wake = 13608 ns
host_copy_spin = 50000 ns
host_copy_max_bw = 90227251215 B/s

# Kernels (kernel_default is not measured: from the base profile).
launch_call = 3491 ns
launch_overhead = 1568 ns
launch_latency = 3434 ns
launch_lib = 304 ns
write_lib = 578 ns
kernel_default = 500 ns

# Allocation: base + per MiB beyond the first.
dev_alloc = 33661 ns
dev_alloc_per_mib = 75 ns
dev_free = 28707 ns
dev_free_per_mib = 293 ns
host_alloc = 333008 ns
host_alloc_per_mib = 54710 ns
host_free = 52001 ns
host_free_per_mib = 16785 ns

# Streams and events (host costs).
event_record = 421 ns
event_query = 300 ns
event_wait = 249 ns
event_sync = 383 ns
event_destroy = 189 ns
stream_create = 2654 ns
stream_destroy = 1801 ns
stream_sync = 424 ns

# Graphs (host costs).
capture_begin = 479 ns
capture_node = 320 ns
graph_instantiate = 2527 ns
graph_instantiate_node = 1301 ns
graph_launch = 3036 ns

jitter_ppm = 0
