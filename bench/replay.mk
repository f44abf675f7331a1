# bench/replay.mk: hipsim replay speed: the RMM reader alone, the full replay
# through the library on sim (CSV), and a CTF trace recorded here.
hc_benches += bench/bench_replay
bench_bench_replay_SOURCES = bench/bench_replay.c tools/hipsim/replay.h \
	tools/hipsim/replay.c tools/hipsim/driver.h tools/hipsim/driver.c tools/hipsim/report.c \
	tools/hipsim/options.c tools/hipsim/output.c tools/hipsim/plot.c tools/hipsim/svg.c \
	tools/hipsim/layout_file.h tools/hipsim/layout_file.c
bench_bench_replay_CFLAGS = $(AM_CFLAGS) -O2 $(JANSSON_CFLAGS) $(BABELTRACE2_CFLAGS)
bench_bench_replay_LDADD = tools/hipsim/libhipsim-read.la libhipcore-internal.la $(JANSSON_LIBS) \
	$(BABELTRACE2_LIBS)
