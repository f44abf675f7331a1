/*
 * read_isolated.c - a trace reader in a child process (read_isolated.h).
 *
 * The child opens the trace with the real reader and writes records to a
 * pipe; the parent's reader parses them back.  Both ends are the same
 * binary (a fork, no exec), so records carry native integers:
 *
 *   'O' i32 rc, str text        the open's result: the error when rc != 0,
 *                               else the warning so far (first record)
 *   'E' u64 source_events, 16 u64 event fields, then 4 u64 for each
 *       of its bindings         one event
 *   'W' str warning             the reader's warning changed
 *   'Z' i32 rc, u64 source_events, u64 cpu_ns, u8 partial, str error,
 *       str warning             the end (rc 0) or a read error (rc -1)
 *
 * str is a u16 length and that many bytes.  A pipe that ends before 'Z'
 * means the child died or decode_guard.c stopped it; wait4() and the guard
 * say how, and that becomes the error.  The parent waits for records only
 * through the guard (hs_guard_wait), which bounds the child.  The child
 * leaves with _exit() so that it never flushes the parent's stdio buffers
 * or runs its atexit handlers a second time.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/hipsim/decode_guard.h"
#include "tools/hipsim/read_isolated.h"

#define PIPE_BUF_SIZE (64u * 1024u)

struct iso_reader {
	struct hs_trace t; /* first: callers see only this */
	int fd;
	pid_t pid; /* 0 once reaped */
	bool ended;
	int end_rc;
	char *path;
	struct hs_guard guard;
	uint64_t *progress; /* shared with the child */
	size_t pos, len;
	unsigned char buf[PIPE_BUF_SIZE];
};

/* --- the child ----------------------------------------------------------- */

struct wbuf {
	int fd;
	size_t n;
	unsigned char b[PIPE_BUF_SIZE];
};

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	/* The thread's clock (the child decodes on one thread): the process's
	 * is sampled at scheduler ticks once RLIMIT_CPU arms its timer. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes @n bytes; async-signal-safe (crash_flush uses it too).
 * Return: 0, or -1 when the parent has gone (it closed its end). */
static int write_all(int fd, const unsigned char *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t k = write(fd, p + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

static int wflush(struct wbuf *w)
{
	if (write_all(w->fd, w->b, w->n) != 0)
		return -1;
	w->n = 0;
	return 0;
}

static int wput(struct wbuf *w, const void *p, size_t n)
{
	if (w->n + n > sizeof(w->b) && wflush(w) != 0)
		return -1;
	memcpy(w->b + w->n, p, n);
	w->n += n;
	return 0;
}

static int wput_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);
	uint16_t n16 = (uint16_t)(n > 4096 ? 4096 : n);

	return wput(w, &n16, sizeof(n16)) || wput(w, s, n16) ? -1 : 0;
}

/* An event as plain numbers: struct hs_rev has padding, which is not data. */
#define EV_WORDS 16
#define BIND_WORDS 4

static int wput_event(struct wbuf *w, const struct hs_trace *t, const struct hs_rev *ev)
{
	uint32_t i, nb = ev->n_bindings <= HS_REV_MAX_BINDINGS ? ev->n_bindings : HS_REV_MAX_BINDINGS;
	uint64_t v[1 + EV_WORDS] = {
		t->source_events, ev->kind,	   ev->stream,	    ev->stream_id, ev->buffer, ev->offset,
		ev->size,	  ev->property,	   ev->time_ns,	    ev->duration_ns, ev->graph,
		ev->info_words,	  ev->info_cache,  ev->info_key,    ev->line,	   ev->index, nb,
	};
	size_t need = 1 + sizeof(v) + nb * BIND_WORDS * sizeof(uint64_t);
	unsigned char *p;

	/* The record goes straight into the buffer (it always fits in an
	 * empty one), not through wput() field by field. */
	if (w->n + need > sizeof(w->b) && wflush(w) != 0)
		return -1;
	p = w->b + w->n;
	*p++ = 'E';
	memcpy(p, v, sizeof(v));
	p += sizeof(v);
	for (i = 0; i < nb; i++) {
		const struct hs_rev_binding *b = &ev->bindings[i];
		uint64_t bv[BIND_WORDS] = { b->buffer, b->offset, b->size, b->access };

		memcpy(p, bv, sizeof(bv));
		p += sizeof(bv);
	}
	w->n += need;
	return 0;
}

/* The child's buffer, for crash_flush(). */
static struct wbuf *child_w;

/*
 * A decoder that crashes still delivers the events it decoded before:
 * the buffered records go out (write(2) is async-signal-safe), then the
 * signal takes its default course, so the parent names it.  A record cut
 * short by the signal reads as the end of the pipe.
 */
static void crash_flush(int sig)
{
	if (child_w)
		(void)write_all(child_w->fd, child_w->b, child_w->n);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_crash_flush(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGXCPU };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_flush;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void child_main(int fd, const char *path, hs_trace_open_fn open_fn, const struct hs_read_options *o)
{
	struct wbuf *w = malloc(sizeof(*w));
	struct hs_rev *ev = malloc(sizeof(*ev));
	char err[sizeof(((struct hs_trace *)0)->error)] = "", sent[sizeof(((struct hs_trace *)0)->warning)];
	struct hs_trace *t = NULL;
	uint64_t cpu0;
	int32_t rc;

	if (!w || !ev)
		_exit(3);
	w->fd = fd;
	w->n = 0;
	child_w = w;
	on_crash_flush();
	rc = open_fn(path, o, &t, err, sizeof(err)) == 0 ? 0 : -1;
	if (wput(w, "O", 1) || wput(w, &rc, 4) || wput_str(w, rc ? err : t->warning) || wflush(w) || rc)
		goto out;
	snprintf(sent, sizeof(sent), "%s", t->warning);
	cpu0 = cpu_now_ns();
	while ((rc = hs_trace_next(t, ev)) == 1) {
		if (wput_event(w, t, ev) != 0)
			goto out;
		if (t->warning[0] && strcmp(t->warning, sent) != 0) {
			snprintf(sent, sizeof(sent), "%s", t->warning);
			if (wput(w, "W", 1) || wput_str(w, sent))
				goto out;
		}
	}
	{
		uint64_t cpu = cpu_now_ns() - cpu0;
		uint8_t partial = t->partial;

		rc = rc < 0 ? -1 : 0;
		if (wput(w, "Z", 1) || wput(w, &rc, 4) || wput(w, &t->source_events, 8) ||
		    wput(w, &cpu, 8) || wput(w, &partial, 1) || wput_str(w, rc ? hs_trace_error(t) : "") ||
		    wput_str(w, t->warning) || wflush(w))
			goto out;
	}
out:
	close(fd);
	hs_trace_close(t);
	free(ev);
	free(w);
	_exit(0);
}

/* --- the parent ---------------------------------------------------------- */

/* Makes @n bytes available at r->buf + r->pos.  Return: -1 at the end of
 * the pipe (the child is gone or was stopped) or on a read error. */
static int fill(struct iso_reader *r, size_t n)
{
	if (r->len - r->pos >= n)
		return 0;
	if (n > sizeof(r->buf))
		return -1;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	while (r->len < n) {
		ssize_t k;

		if (hs_guard_wait(&r->guard, r->fd) != 0)
			return -1;
		k = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);

		if (k > 0)
			r->len += (size_t)k;
		else if (!(k < 0 && errno == EINTR))
			return -1;
	}
	return 0;
}

static int take(struct iso_reader *r, void *dst, size_t n)
{
	if (fill(r, n) != 0)
		return -1;
	memcpy(dst, r->buf + r->pos, n);
	r->pos += n;
	return 0;
}

/* Reads a str record field into @dst (cut to @cap - 1 bytes). */
static int take_str(struct iso_reader *r, char *dst, size_t cap)
{
	uint16_t n;

	if (take(r, &n, sizeof(n)) != 0 || fill(r, n) != 0)
		return -1;
	snprintf(dst, cap, "%.*s", (int)n, (const char *)r->buf + r->pos);
	r->pos += n;
	return 0;
}

/* Waits for the child; its wait status and usage, or 0 when it was reaped before. */
static int reap(struct iso_reader *r, struct rusage *ru)
{
	int status = 0;

	memset(ru, 0, sizeof(*ru));
	if (r->pid <= 0)
		return 0;
	while (wait4(r->pid, &status, 0, ru) < 0 && errno == EINTR)
		;
	r->pid = 0;
	r->guard.pid = 0;
	return status;
}

/* The pipe ended early: says how the child ended, as a read error. */
static void died(struct iso_reader *r, char *msg, size_t len)
{
	char how[600];
	struct rusage ru;
	int status = reap(r, &ru);

	hs_guard_explain(&r->guard, status, &ru, how, sizeof(how));
	snprintf(msg, len, "%s: event %" PRIu64 ": the %s reader (run in a child process) %s", r->path,
		 r->t.events, r->t.format, how);
}

static int finish(struct iso_reader *r, int rc)
{
	r->ended = true;
	r->end_rc = rc;
	return rc;
}

static int iso_next(struct hs_trace *t, struct hs_rev *ev)
{
	struct iso_reader *r = (struct iso_reader *)t;
	unsigned char tag;

	while (!r->ended) {
		if (take(r, &tag, 1) != 0)
			goto dead;
		switch (tag) {
		case 'E': {
			uint64_t v[1 + EV_WORDS], bv[BIND_WORDS];
			uint32_t i;

			if (take(r, v, sizeof(v)) != 0)
				goto dead;
			if (v[16] > HS_REV_MAX_BINDINGS || v[1] >= HS_REV_KIND_COUNT)
				goto garbled;
			t->source_events = v[0];
			ev->kind = (enum hs_rev_kind)v[1];
			ev->stream = (uint32_t)v[2];
			ev->stream_id = v[3];
			ev->buffer = v[4];
			ev->offset = v[5];
			ev->size = v[6];
			ev->property = (uint32_t)v[7];
			ev->time_ns = v[8];
			ev->duration_ns = v[9];
			ev->graph = v[10];
			ev->info_words = (uint32_t)v[11];
			ev->info_cache = (uint32_t)v[12];
			ev->info_key = v[13];
			ev->line = v[14];
			ev->index = v[15];
			ev->n_bindings = (uint32_t)v[16];
			/* All the bindings at once (at most 2 KiB: the buffer holds them). */
			if (fill(r, ev->n_bindings * sizeof(bv)) != 0)
				goto dead;
			for (i = 0; i < ev->n_bindings; i++) {
				memcpy(bv, r->buf + r->pos, sizeof(bv));
				r->pos += sizeof(bv);
				ev->bindings[i] = (struct hs_rev_binding){ bv[0], bv[1], bv[2], (uint32_t)bv[3] };
			}
			t->events++;
			return 1;
		}
		case 'W':
			if (take_str(r, t->warning, sizeof(t->warning)) != 0)
				goto dead;
			break;
		case 'Z': {
			char note[96];
			uint8_t partial;
			int32_t rc;

			if (take(r, &rc, 4) != 0 || take(r, &t->source_events, 8) != 0 ||
			    take(r, &t->helper_cpu_ns, 8) != 0 || take(r, &partial, 1) != 0 ||
			    take_str(r, t->error, sizeof(t->error)) != 0 ||
			    take_str(r, t->warning, sizeof(t->warning)) != 0)
				goto dead;
			t->partial = partial != 0;
			if (rc < 0) {
				const char *m = hs_guard_memory_note(&r->guard, t->error, note, sizeof(note));
				size_t n = strlen(t->error);

				snprintf(t->error + n, sizeof(t->error) - n, "%s", m);
			}
			return finish(r, rc < 0 ? -1 : 0);
		}
		default:
			goto garbled;
		}
	}
	return r->end_rc;
dead:
	died(r, t->error, sizeof(t->error));
	return finish(r, -1);
garbled:
	snprintf(t->error, sizeof(t->error), "%s: event %" PRIu64 ": garbled record 0x%02x from the reader process",
		 r->path, t->events, tag);
	return finish(r, -1);
}

static void iso_close(struct hs_trace *t)
{
	struct iso_reader *r = (struct iso_reader *)t;
	struct rusage ru;

	/* Before the end the child may be blocked writing or deep in a long
	 * decode: stop it rather than wait for it. */
	if (r->pid > 0 && !r->ended)
		kill(r->pid, SIGKILL);
	if (r->fd >= 0)
		close(r->fd);
	reap(r, &ru);
	hs_guard_stop(&r->guard);
	hs_guard_progress_unmap(r->progress);
	free(r->path);
	free(r);
}

/* A pipe with both ends close-on-exec.  Return: 0, or -1 (errno set). */
static int cloexec_pipe(int fds[2])
{
	if (pipe(fds) != 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	return 0;
}

int hs_isolated_open(const char *path, const char *format, hs_trace_open_fn open_fn,
		     const struct hs_read_options *o, struct hs_trace **out, char *err, size_t errlen)
{
	struct iso_reader *r = calloc(1, sizeof(*r));
	struct hs_read_options defaults;
	int fds[2], efds[2];
	int32_t rc;
	unsigned char tag;

	*out = NULL;
	if (!r || !(r->path = strdup(path))) {
		free(r);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (!o) {
		if (hs_read_options_init(&defaults, err, errlen) != 0) {
			free(r->path);
			free(r);
			return -1;
		}
		o = &defaults;
	}
	r->fd = -1;
	r->guard.err_fd = -1;
	r->t.next = iso_next;
	r->t.close = iso_close;
	r->t.path = r->path;
	r->t.format = format;
	if (cloexec_pipe(fds) != 0) {
		snprintf(err, errlen, "%s: pipe: %s", path, strerror(errno));
		goto fail;
	}
	if (cloexec_pipe(efds) != 0) {
		snprintf(err, errlen, "%s: pipe: %s", path, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto fail;
	}
	r->progress = hs_guard_progress_map();
	r->pid = fork();
	if (r->pid < 0) {
		snprintf(err, errlen, "%s: fork: %s", path, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(efds[0]);
		close(efds[1]);
		goto fail;
	}
	if (r->pid == 0) {
		close(fds[0]);
		close(efds[0]);
		hs_guard_child_setup(&o->limits, efds[1], r->progress);
		child_main(fds[1], path, open_fn, o);
	}
	close(fds[1]);
	close(efds[1]);
	r->fd = fds[0];
	hs_guard_start(&r->guard, r->pid, efds[0], r->progress, &o->limits, o->verbose);
	if (take(r, &tag, 1) != 0 || tag != 'O' || take(r, &rc, 4) != 0 ||
	    take_str(r, rc ? r->t.error : r->t.warning, rc ? sizeof(r->t.error) : sizeof(r->t.warning)) != 0) {
		died(r, err, errlen);
		goto fail;
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s", r->t.error);
		r->t.error[0] = '\0';
		goto fail;
	}
	*out = &r->t;
	return 0;
fail:
	iso_close(&r->t);
	return -1;
}
