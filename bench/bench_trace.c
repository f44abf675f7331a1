/*
 * bench_trace.c - cost of a hipcore tracepoint per call.
 *
 * Each figure is the best of 5 timed loops of ITERS calls to a noinline
 * function, so call overhead is part of every figure:
 *
 *   compiled_out_ns  the function without a tracepoint (what a
 *                    --without-lttng build leaves at a call site)
 *   idle_ns          with HC_TRACE(alloc, ...), probe module not loaded
 *                    (HIPCORE_LTTNG=0)
 *   idle_loaded_ns   with the module loaded, no session recording
 *   idle_timed_ns    a timed call site (HC_TRACE_T0 + HC_TRACE with
 *                    hc_trace_since_ns), module loaded, no session
 *   recording_ns     extra ns per recorded event over compiled_out_ns,
 *                    while `hipsim record` records this process (only when
 *                    lttng-sessiond is installed; needs the probe module)
 *
 * The parent re-executes itself once per case (`bench_trace --child
 * CASE`), since whether the module is loaded is decided at process start.
 * The peers are LTTng-UST's own costs measured on the same machine (a
 * tracepoint without a session, an event recorded: doc/trace-events.md,
 * "Cost").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/timing.h"
#include "trace/hipcore_trace.h"
#ifdef HIPCORE_WITH_LTTNG
#include "trace/hipcore_trace_load.h"
#endif
#ifdef HC_BENCH_WITH_RECORD
#include "tools/hipsim/record.h"
#endif

#ifndef HC_BENCH_MODULE
#define HC_BENCH_MODULE ".libs/libhipcore-lttng.so"
#endif

#define ITERS 2000000ul
#define REC_ITERS 300000ul
#define REPEATS 5

__attribute__((noinline)) static void site_none(uint64_t i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
}

__attribute__((noinline)) static void site_trace(uint64_t i)
{
	HC_TRACE(alloc, 7, i, 4096, 0, 0);
	__asm__ volatile("" : : "r"(i) : "memory");
}

/* A timed public call: HC_TRACE_T0 at entry, host_ns at the event. */
__attribute__((noinline)) static void site_timed(uint64_t i)
{
	uint64_t t0 = HC_TRACE_T0(alloc);

	__asm__ volatile("" : : "r"(i) : "memory");
	HC_TRACE(alloc, 7, i, 4096, 0, hc_trace_since_ns(t0));
}

static double best_ns(void (*fn)(uint64_t), unsigned long iters)
{
	double best = 1e30;
	int r;

	for (r = 0; r < REPEATS; r++) {
		double t = bench_now_s();
		unsigned long i;

		for (i = 0; i < iters; i++)
			fn(i);
		t = (bench_now_s() - t) * 1e9 / (double)iters;
		if (t < best)
			best = t;
	}
	return best;
}

/* Child: prints "none trace timed" ns per call for its case. */
static int child(const char *which)
{
	unsigned long iters = strcmp(which, "record") == 0 ? REC_ITERS : ITERS;
	double none = best_ns(site_none, iters);
	double tp = best_ns(site_trace, iters);
	double timed = strcmp(which, "record") == 0 ? 0 : best_ns(site_timed, iters);

#ifdef HIPCORE_WITH_LTTNG
	if (strcmp(which, "unloaded") != 0 && !hc_trace_provider_loaded()) {
		fprintf(stderr, "bench_trace: probe module %s did not load\n", HC_BENCH_MODULE);
		return 3;
	}
#endif
	printf("%.3f %.3f %.3f\n", none, tp, timed);
	return 0;
}

/* Runs `self --child CASE` (under hipsim record for "record"); parses its output. */
static int run_case(const char *self, const char *which, double *none, double *tp,
		    double *timed)
{
	int fds[2], status;
	char buf[128] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		setenv("HIPCORE_LTTNG", strcmp(which, "unloaded") == 0 ? "0" : HC_BENCH_MODULE, 1);
		if (strcmp(which, "record") == 0) {
#ifdef HC_BENCH_WITH_RECORD
			char dir[] = "/tmp/hc-bench-trace-XXXXXX";
			char *argv[] = { "record", "-o", dir, "--", (char *)self, "--child",
					 "record", NULL };
			int rc;

			if (!mkdtemp(dir))
				_exit(1);
			rc = hipsim_record_main(7, argv);
			{
				char *rm[] = { "rm", "-rf", dir, NULL };
				pid_t p = fork();

				if (p == 0) {
					execv("/bin/rm", rm);
					_exit(127);
				}
				waitpid(p, NULL, 0);
			}
			_exit(rc);
#else
			_exit(77);
#endif
		}
		execl(self, self, "--child", which, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%lf %lf %lf", none, tp, timed) == 3 ? 0 : -1;
}

static void emit(const char *metric, double v, const char *peer, double peer_v)
{
	printf("{\"bench\":\"trace\",\"metric\":\"%s\",\"value\":%.2f,\"unit\":\"ns\","
	       "\"peer\":\"%s\",\"peer_value\":%.2f}\n", metric, v, peer, peer_v);
}

int main(int argc, char **argv)
{
	double none, tp, timed, none2, tp2, timed2;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(argv[2]);
	if (run_case(argv[0], "unloaded", &none, &tp, &timed)) {
		fprintf(stderr, "bench_trace: the idle case failed\n");
		return 1;
	}
	emit("compiled_out_ns", none, "lttng-notes compiled out", 1.5);
	emit("idle_ns", tp, "lttng-notes no session", 2.1);
#ifdef HIPCORE_WITH_LTTNG
	if (run_case(argv[0], "loaded", &none2, &tp2, &timed2) == 0) {
		emit("idle_loaded_ns", tp2, "lttng-notes no session", 2.1);
		emit("idle_timed_ns", timed2, "lttng-notes no session", 2.1);
	} else
		fprintf(stderr, "bench_trace: provider-loaded case failed (module %s)\n",
			HC_BENCH_MODULE);
	if (access("/usr/bin/lttng-sessiond", X_OK) == 0 &&
	    run_case(argv[0], "record", &none2, &tp2, &timed2) == 0)
		emit("recording_ns", tp2 - none2, "lttng-notes recording", 90.0);
	else
		fprintf(stderr, "bench_trace: recording case skipped or failed\n");
#else
	(void)none2;
	(void)tp2;
	(void)timed2;
	fprintf(stderr, "bench_trace: built --without-lttng; only the idle figures\n");
#endif
	return 0;
}
