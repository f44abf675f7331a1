/*
 * via_trace.c - `hipsim validate --via-trace`: predict a GPU run the way a
 * user predicts their own program, from an LTTng recording of it.
 *
 * For one workload: `hipsim record` runs `hipsim run --backend B
 * --model-kernels --json` (B the measured backend; no made-up duration
 * hints, as validate's own runs) with HIPCORE_TIME_KERNELS=1, so that the HIP
 * backend brackets every launch with timing events and the trace carries
 * hipcore:kernel_time; then `hipsim replay TRACE --profile P --json`
 * replays it on the simulator, each launch taking its measured duration
 * (read_ctf.c), and a launch without a measurement the simulator's kernel
 * model.  Both get validate's --pools and policy options: a trace records
 * that hc_install_memory_pools and hc_device_set_policy were called, not
 * the pools and limits, and replay takes them from its command line.
 * Both are this hipsim binary run again (/proc/self/exe),
 * each in its own process with its output in a file, each bounded by a
 * timeout (SIGTERM, which record forwards to its command and cleans up
 * after, then SIGKILL).  The two JSON reports give the figures: the traced
 * run's (measured, with tracing and kernel timing on) and the replay's
 * (predicted).  validate.c sets them beside its untraced measured runs.
 *
 * Traces go to a temporary directory removed afterwards, or under
 * --keep-traces DIR (as DIR/trace-WORKLOAD, with the two reports).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/hipsim/via_trace.h"

extern char **environ;

/* Runs argv with stdout to @out_path, the environment plus @env_add (or
 * NULL), for at most @timeout_s.  Return: the exit status, 128 + signal,
 * or -1 (could not start, or timed out: @why says which). */
static int run_bounded(char *const argv[], const char *out_path, const char *env_add,
		       unsigned timeout_s, char *why, size_t len)
{
	posix_spawn_file_actions_t fa;
	char **envp = environ, **own = NULL;
	size_t n = 0;
	pid_t pid;
	int fd, rc, ws = 0;
	struct timespec t0, now, nap = { 0, 20 * 1000 * 1000 };
	bool termed = false;

	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", out_path, strerror(errno));
		return -1;
	}
	if (env_add) {
		while (environ[n])
			n++;
		own = calloc(n + 2, sizeof(*own));
		if (!own) {
			close(fd);
			snprintf(why, len, "no host memory");
			return -1;
		}
		memcpy(own, environ, n * sizeof(*own));
		own[n] = (char *)env_add;
		envp = own;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	free(own);
	if (rc != 0) {
		snprintf(why, len, "cannot run %s: %s", argv[0], strerror(rc));
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t w = waitpid(pid, &ws, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(why, len, "waitpid: %s", strerror(errno));
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!termed && now.tv_sec - t0.tv_sec >= (time_t)timeout_s) {
			kill(pid, SIGTERM); /* record forwards it and cleans up */
			termed = true;
			t0 = now;
			timeout_s = 10;
		} else if (termed && now.tv_sec - t0.tv_sec >= (time_t)timeout_s) {
			kill(pid, SIGKILL);
		}
		nanosleep(&nap, NULL);
	}
	if (termed) {
		snprintf(why, len, "%s %s ran past its time limit and was stopped", argv[0], argv[1]);
		return -1;
	}
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static uint64_t num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

/* The figures of a hipsim JSON report at @path.  0, or -1 (@why). */
static int read_report(const char *path, struct hs_vt_figures *f, char *why, size_t len)
{
	json_error_t e;
	json_t *o = json_load_file(path, 0, &e);

	if (!json_is_object(o)) {
		snprintf(why, len, "%s: not a report (%s)", path, o ? "not an object" : e.text);
		json_decref(o);
		return -1;
	}
	f->device_ns = json_object_get(o, "device_time_ns") ? num(o, "device_time_ns")
							    : num(o, "predicted_ns");
	f->peak_in_use = num(o, "peak_in_use_bytes");
	f->peak_reserved = num(o, "peak_reserved_bytes");
	f->device_allocs = num(o, "device_allocs");
	f->bytes_copied = num(o, "bytes_h2d") + num(o, "bytes_d2h");
	f->launches = num(o, "launches");
	f->events = num(o, "events");
	f->failures = num(o, "failures");
	json_decref(o);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

/* Appends @v's options (those not at their defaults) to @argv at *@n;
 * the numbers are written into @num. */
static void variant_args(const struct hs_variant *v, char **argv, int *n, char num[3][24])
{
	static const char *const opt[3] = { "--flush-count", "--flush-bytes", "--stage-max" };
	uint64_t val[3];

	if (!v)
		return;
	val[0] = v->policy.dq_max_count;
	val[1] = v->policy.dq_max_bytes;
	val[2] = v->policy.stage_max_bytes;
	if (v->pools)
		argv[(*n)++] = "--pools", argv[(*n)++] = (char *)v->pools;
	for (int i = 0; i < 3; i++) {
		if (!val[i])
			continue;
		snprintf(num[i], sizeof(num[i]), "%llu", (unsigned long long)val[i]);
		argv[(*n)++] = (char *)opt[i], argv[(*n)++] = num[i];
	}
}

static int mkdir_p(const char *path)
{
	return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int hs_via_trace(const struct hs_vt_args *a, const char *workload,
		 const struct workload_params *wp, struct hs_vt_result *out)
{
	char base[4096], tdir[4200], runj[4200], repj[4200], steps[24], streams[24], seed[24];
	char tmpl[] = "/tmp/hipsim-vt.XXXXXX";
	const char *self = "/proc/self/exe";
	char *rec[40], *rep[24], vnum[3][24];
	int n = 0, rc, status = -1;

	memset(out, 0, sizeof(*out));
	if (a->keep_dir) {
		if (mkdir_p(a->keep_dir) != 0) {
			snprintf(out->why, sizeof(out->why), "%s: %s", a->keep_dir, strerror(errno));
			return -1;
		}
		snprintf(base, sizeof(base), "%s", a->keep_dir);
	} else if (mkdtemp(tmpl)) {
		snprintf(base, sizeof(base), "%s", tmpl);
	} else {
		snprintf(out->why, sizeof(out->why), "mkdtemp: %s", strerror(errno));
		return -1;
	}
	snprintf(tdir, sizeof(tdir), "%s/trace-%s", base, workload);
	snprintf(runj, sizeof(runj), "%s/%s-recorded.json", base, workload);
	snprintf(repj, sizeof(repj), "%s/%s-replayed.json", base, workload);
	snprintf(steps, sizeof(steps), "%llu", (unsigned long long)wp->steps);
	snprintf(streams, sizeof(streams), "%u", wp->streams);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)wp->seed);

	rec[n++] = (char *)self, rec[n++] = "record", rec[n++] = "-o", rec[n++] = tdir;
	if (a->provider)
		rec[n++] = "--provider", rec[n++] = (char *)a->provider;
	rec[n++] = "--", rec[n++] = (char *)self, rec[n++] = "run";
	rec[n++] = "--backend", rec[n++] = (char *)a->measured;
	rec[n++] = "--workload", rec[n++] = (char *)workload, rec[n++] = "--steps", rec[n++] = steps;
	rec[n++] = "--streams", rec[n++] = streams, rec[n++] = "--seed", rec[n++] = seed;
	variant_args(a->variant, rec, &n, vnum);
	rec[n++] = "--model-kernels", rec[n++] = "--json", rec[n] = NULL;
	rc = run_bounded(rec, runj, "HIPCORE_TIME_KERNELS=1", a->timeout_s, out->why,
			 sizeof(out->why));
	if (rc < 0)
		goto out;
	if (rc != 0 && rc != 1) { /* 1: the run's events failed, its report says which */
		snprintf(out->why, sizeof(out->why),
			 "hipsim record of the %s run exited %d (its messages are above)", workload, rc);
		goto out;
	}
	if (read_report(runj, &out->recorded, out->why, sizeof(out->why)) != 0)
		goto out;
	n = 0;
	rep[n++] = (char *)self, rep[n++] = "replay", rep[n++] = tdir;
	if (a->profile)
		rep[n++] = "--profile", rep[n++] = (char *)a->profile;
	variant_args(a->variant, rep, &n, vnum);
	rep[n++] = "--seed", rep[n++] = seed, rep[n++] = "--json", rep[n] = NULL;
	rc = run_bounded(rep, repj, NULL, a->timeout_s, out->why, sizeof(out->why));
	if (rc < 0)
		goto out;
	if (rc != 0 && rc != 1) {
		snprintf(out->why, sizeof(out->why), "hipsim replay of the %s trace exited %d",
			 workload, rc);
		goto out;
	}
	if (read_report(repj, &out->replayed, out->why, sizeof(out->why)) != 0)
		goto out;
	status = 0;
out:
	if (!a->keep_dir && nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "hipsim validate: could not remove %s: %s\n", base, strerror(errno));
	return status;
}
