/*
 * hipcore_track.c - part of libhipcore-lttng.so: asks `hipsim record` to
 * track this process before its first event (the handshake is described in
 * hipcore_track.h; record.c says why hipsim records a command this way).
 *
 * LTTng records a process only while the session's vpid tracker holds it,
 * and hipsim cannot know the pids a command's descendants will have.  So
 * the process tells it: the variable HIPCORE_LTTNG_TRACK, which hipsim sets
 * for its command, reaches every descendant that keeps its environment.
 * When the module is loaded (by libhipcore's constructor, before any call
 * that emits an event; LTTng-UST has registered the process with the
 * session daemon by then), a constructor here sends the process's pid and
 * waits for hipsim's answer, which comes once `lttng track --vpid` has
 * returned: the session daemon has then given this process the session's
 * channels, so every event the library emits afterwards is recorded.
 *
 * A child forked without exec is another process to LTTng (recorded only
 * with liblttng-ust-fork.so preloaded, as lttng-ust(3) requires for such
 * children), so an atfork handler asks again for it, before LTTng
 * registers it anew; it uses async-signal-safe calls only.  An exec'd image
 * loads the module again and asks again (hipsim answers at once for a pid it
 * already tracks).
 *
 * Without the variable nothing happens.  A failure (no hipsim listening, no
 * answer within HIPCORE_LTTNG_TRACK_WAIT_MS) leaves the process running
 * untracked; the module never prints.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "trace/hipcore_track.h"
#include "util/env.h"

/* Set once by the constructor, read by the atfork handler. */
static struct sockaddr_un track_addr;
static socklen_t track_len;

/* "PID\n" into @buf (at least 24 bytes); returns its length. */
static size_t put_pid(char *buf, long v)
{
	char tmp[24];
	size_t n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0 && n < sizeof(tmp));
	while (n)
		buf[len++] = tmp[--n];
	buf[len++] = '\n';
	return len;
}

/* One handshake.  Async-signal-safe (the atfork handler calls it). */
static void ask(void)
{
	char msg[32], answer;
	size_t len = put_pid(msg, (long)getpid());
	struct pollfd p;
	int fd, rc, saved = errno;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto out;
	if (connect(fd, (const struct sockaddr *)&track_addr, track_len) != 0 ||
	    write(fd, msg, len) != (ssize_t)len)
		goto out_close;
	p.fd = fd;
	p.events = POLLIN;
	do
		rc = poll(&p, 1, HIPCORE_LTTNG_TRACK_WAIT_MS);
	while (rc < 0 && errno == EINTR);
	/* Tracked or not (the answer byte says which), the process goes on. */
	if (rc == 1 && read(fd, &answer, 1) < 0)
		answer = HIPCORE_LTTNG_TRACK_FAILED;
out_close:
	close(fd);
out:
	errno = saved;
}

__attribute__((constructor)) static void hc_track_init(void)
{
	const char *path = hc_env_get(HC_ENV_LTTNG_TRACK);
	size_t n;

	if (!path || !*path)
		return;
	n = strlen(path);
	if (n >= sizeof(track_addr.sun_path))
		return;
	track_addr.sun_family = AF_UNIX;
	memcpy(track_addr.sun_path, path, n + 1);
	track_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	ask();
	pthread_atfork(NULL, NULL, ask);
}
