# The H200 machine as `hipsim calibrate --backend hip` measured it (sixth
# session, registered pinned blocks, host copies through the library,
# kernels split into occupancy and latency).  Calibrations ten seconds
# apart differ by 10-50 % on some keys on that host (BENCHMARKS.md,
# "Simulator fidelity"): this is one of them, not a mean.  Use it with
# `--profile profiles/h200-calibrated.profile`; the built-in profile
# (profiles/h200.profile) stays the probe's figures.
# Calibrated by hipsim (hipcore 0.1.0).
# device: NVIDIA H200
# date: 2026-12-03T14:19:36Z
# runtime: hip backend
# command: hipsim calibrate --backend hip -o /root/out/h200-calibrated.profile
# repeats: 11 per figure (median)
# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.
name = "NVIDIA H200"
total_memory = 150109880320 B
alignment = 512 B
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 55133781297 B/s
h2d_pageable_bw = 11282936218 B/s
d2h_pinned_bw = 55223146463 B/s
d2h_pageable_bw = 13178946375 B/s
d2d_bw = 2249682447330 B/s
h2d_pinned_latency = 5617 ns
h2d_pageable_latency = 4394 ns
d2h_pinned_latency = 4659 ns
d2h_pageable_latency = 7064 ns
d2d_latency = 5915 ns
copy_call = 2858 ns
host_copy_call = 419 ns
host_copy_bw = 9696180620 B/s
host_copy_split_call = 21938 ns
host_copy_max_bw = 41047546721 B/s

# Kernels (kernel_default is not measured: from the base profile).
launch_call = 4802 ns
launch_overhead = 1226 ns
launch_latency = 3174 ns
kernel_default = 500 ns

# Allocation: base + per MiB beyond the first.
dev_alloc = 40237 ns
dev_alloc_per_mib = 80 ns
dev_free = 32721 ns
dev_free_per_mib = 303 ns
host_alloc = 374398 ns
host_alloc_per_mib = 65928 ns
host_free = 54780 ns
host_free_per_mib = 18037 ns

# Streams and events (host costs).
event_record = 1901 ns
event_query = 456 ns
event_wait = 424 ns
event_sync = 625 ns
event_destroy = 339 ns
stream_create = 2662 ns
stream_destroy = 3754 ns
stream_sync = 686 ns

# Graphs (host costs).
capture_begin = 488 ns
capture_node = 326 ns
graph_instantiate = 2392 ns
graph_instantiate_node = 793 ns
graph_launch = 2840 ns

jitter_ppm = 0
