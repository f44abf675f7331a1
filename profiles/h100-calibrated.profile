# An H100 80GB HBM3 machine of the device tool as `hipsim calibrate
# --backend hip --passes 5` measured it on 2026-12-05 18:43 UTC (thirteenth
# session; the tool lent no H200), with the cold-call keys (sim/sim_cold.c).
# In the same call `tests/gpu/fidelity.sh` replayed the built-in workloads
# with it: memory figures identical, time +4.5 / +10.0 / +2.9 / +8.2 %
# (service / training / inference / loader), and a second calibration
# predicted them within 0.01-1.09 % of this one (BENCHMARKS.md, "Simulator
# fidelity").  A figure of that host, not of the H200: use it with
# `--profile profiles/h100-calibrated.profile`.
# Calibrated by hipsim (hipcore 0.1.0).
# device: NVIDIA H100 80GB HBM3
# date: 2026-12-05T18:43:45Z
# runtime: hip backend
# command: hipsim calibrate --backend hip --passes 5 -o /tmp/o/fid/profile1
# repeats: 11 per figure (median); passes: 5 (each key their median)
# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.
name = "NVIDIA H100 80GB HBM3"
total_memory = 85017493504 B
alignment = 512 B
integrated = 0

# Copies: latency + size / bandwidth.
h2d_pinned_bw = 55145138836 B/s
h2d_pageable_bw = 15460835004 B/s
d2h_pinned_bw = 55375791230 B/s
d2h_pageable_bw = 16828518216 B/s
d2d_bw = 1688325730988 B/s
h2d_pinned_latency = 5339 ns
h2d_pageable_latency = 4839 ns
d2h_pinned_latency = 4486 ns
d2h_pageable_latency = 5811 ns
d2d_latency = 6758 ns
copy_call = 1683 ns
host_copy_call = 665 ns
host_copy_bw = 13990713561 B/s
host_copy_split_call = 11555 ns
host_copy_split_wake = 9971 ns
host_copy_spin = 50000 ns
host_copy_max_bw = 188745567456 B/s

# Kernels (kernel_default is not measured: from the base profile).
launch_call = 2792 ns
launch_overhead = 1950 ns
launch_latency = 3267 ns
launch_lib = 195 ns
write_lib = 535 ns
kernel_default = 500 ns

# Allocation: base + per MiB beyond the first.
dev_alloc = 27404 ns
dev_alloc_per_mib = 71 ns
dev_free = 23756 ns
dev_free_per_mib = 216 ns
host_alloc = 275736 ns
host_alloc_per_mib = 48707 ns
host_free = 43142 ns
host_free_per_mib = 12665 ns

# Streams and events (host costs).
event_record = 313 ns
event_query = 213 ns
event_wait = 185 ns
event_sync = 283 ns
event_destroy = 141 ns
stream_create = 2007 ns
stream_destroy = 1230 ns
stream_sync = 313 ns

# Graphs (host costs).
capture_begin = 350 ns
capture_node = 240 ns
graph_instantiate = 1835 ns
graph_instantiate_node = 627 ns
graph_launch = 2199 ns

# Calls after host copies: a call costs a share of its cold_ figure more,
# by the bytes host-copied since its kind last ran: none below
# host_cold_bytes / 16, a quarter per doubling, all from host_cold_bytes
# (0: never).
host_cold_bytes = 8388608 B
cold_copy = 3689 ns
cold_launch = 3086 ns
cold_event_record = 3027 ns
cold_event_query = 2416 ns
cold_event_wait = 1779 ns
cold_event_sync = 2558 ns
cold_event_destroy = 1877 ns
cold_stream_sync = 2884 ns
cold_dev_alloc = 25646 ns
cold_dev_free = 23682 ns

jitter_ppm = 0
