# The H200 machine as `hipsim calibrate --backend hip` measured it (seventh
# session: five passes, each key the median over them; registered pinned
# blocks, host copies through the library, kernels split into occupancy and
# latency, the library's own work per launch).  Two such calibrations on
# that host predicted the built-in workloads within 3 % of each other in 15
# of 20 cases over five runs (BENCHMARKS.md, "Simulator fidelity").  Use it with
# `--profile profiles/h200-calibrated.profile`; the built-in profile
# (profiles/h200.profile) stays the probe's figures.
# Calibrated by hipsim (hipcore 0.1.0).
# device: NVIDIA H200
# date: 2026-12-03T18:09:56Z
# runtime: hip backend
# command: hipsim calibrate --backend hip -o h200-calibrated.profile
# repeats: 11 per figure (median); passes: 5 (each key their median)
# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.
name = "NVIDIA H200"
total_memory = 150109880320 B
alignment = 512 B
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 55064584355 B/s
h2d_pageable_bw = 11553609381 B/s
d2h_pinned_bw = 55282060987 B/s
d2h_pageable_bw = 13147752816 B/s
d2d_bw = 2265583433979 B/s
h2d_pinned_latency = 5907 ns
h2d_pageable_latency = 4606 ns
d2h_pinned_latency = 4540 ns
d2h_pageable_latency = 6080 ns
d2d_latency = 6717 ns
copy_call = 2563 ns
host_copy_call = 0 ns
host_copy_bw = 9518802016 B/s
host_copy_split_call = 14620 ns
host_copy_split_wake = 24910 ns
host_copy_spin = 50000 ns
host_copy_max_bw = 106913547519 B/s

# Kernels (kernel_default is not measured: from the base profile).
launch_call = 3652 ns
launch_overhead = 1458 ns
launch_latency = 3777 ns
launch_lib = 350 ns
kernel_default = 500 ns

# Allocation: base + per MiB beyond the first.
dev_alloc = 42133 ns
dev_alloc_per_mib = 95 ns
dev_free = 34713 ns
dev_free_per_mib = 415 ns
host_alloc = 446084 ns
host_alloc_per_mib = 56673 ns
host_free = 67910 ns
host_free_per_mib = 20348 ns

# Streams and events (host costs).
event_record = 507 ns
event_query = 334 ns
event_wait = 280 ns
event_sync = 451 ns
event_destroy = 218 ns
stream_create = 2698 ns
stream_destroy = 2825 ns
stream_sync = 653 ns

# Graphs (host costs).
capture_begin = 563 ns
capture_node = 364 ns
graph_instantiate = 2700 ns
graph_instantiate_node = 1088 ns
graph_launch = 3096 ns

jitter_ppm = 0
