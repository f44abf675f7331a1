/*
 * hipcore_track.h - the handshake between `hipsim record` and the probe
 * module (trace/hipcore_track.c in libhipcore-lttng.so,
 * tools/hipsim/record.c in hipsim).
 *
 * hipsim record puts HIPCORE_LTTNG_TRACK=SOCKET in its command's
 * environment.  Every process that loads the probe module with that
 * variable set connects to SOCKET (a Unix stream socket), writes its pid as
 * it sees it (the vpid LTTng tracks) in decimal and a newline, and waits
 * for one byte: hipsim sends it once that vpid is in the session's process
 * tracker, or when it cannot track it.  Then both sides close.
 */
#ifndef HIPCORE_TRACK_H
#define HIPCORE_TRACK_H

#define HIPCORE_LTTNG_TRACK_ENV "HIPCORE_LTTNG_TRACK"

/* How long a process waits for hipsim's answer before it goes on
 * untracked (hipsim tracks one process at a time, ~10 ms each). */
#define HIPCORE_LTTNG_TRACK_WAIT_MS 30000

/* The answer byte: tracked, or hipsim could not track the process. */
#define HIPCORE_LTTNG_TRACK_OK 'y'
#define HIPCORE_LTTNG_TRACK_FAILED 'n'

#endif /* HIPCORE_TRACK_H */
