# bench/replay.mk: hipsim replay speed: the RMM reader alone, the full replay
# through the library on sim (CSV), and a CTF trace recorded here.
hc_benches += bench/bench_replay
bench_bench_replay_SOURCES = bench/bench_replay.c
bench_bench_replay_CFLAGS = $(AM_CFLAGS) -O2 $(JANSSON_CFLAGS) $(BABELTRACE2_CFLAGS)
bench_bench_replay_LDADD = tools/hipsim/libhipsim-engine.la tools/hipsim/libhipsim-read.la libhipcore-internal.la $(JANSSON_LIBS) \
	$(BABELTRACE2_LIBS)
