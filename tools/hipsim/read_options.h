/*
 * read_options.h - how hipsim reads a trace: the format, the bounds on the
 * CTF decoder, its log, and which process of a CTF trace to replay.
 *
 * One struct, made by hs_read_options_init() (defaults, then the
 * HIPSIM_DECODE_* environment) and changed by the command-line options in
 * HS_READ_LONGOPTS, which every command that reads traces accepts the same
 * way.  The limits bound the process that decodes a CTF trace
 * (read_isolated.h); the RMM reader is hipsim's own code, reads in constant
 * memory and needs none.
 */
#ifndef HIPSIM_READ_OPTIONS_H
#define HIPSIM_READ_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on a decoder process; 0 means none.  See decode_guard.h. */
struct hs_decode_limits {
	uint64_t cpu_s;	  /* CPU seconds it may use */
	uint64_t memory;  /* bytes of memory it may add to what it started with */
	uint64_t stall_s; /* seconds it may go without progress */
};

struct hs_read_options {
	const char *format; /* "auto" (or NULL), "rmm", "ctf" */
	bool verbose;	    /* let libbabeltrace2's own log through to stderr */
	bool have_pid;	    /* CTF: replay the events of process @pid alone */
	uint64_t pid;
	/* The CPU limit when cpu_s is not set explicitly: CPU_BASE_S plus one
	 * second per CPU_PER_S_BYTES of trace files (read_trace.c adds them
	 * up), decoding being some 50 times faster than that. */
	bool cpu_explicit;
	struct hs_decode_limits limits;
};

#define HS_DECODE_CPU_BASE_S 60
#define HS_DECODE_CPU_PER_S_BYTES (1ull << 20)
#define HS_DECODE_STALL_S 60
#define HS_DECODE_MEMORY_MAX (4ull << 30)

/* Option codes of HS_READ_LONGOPTS (above any character). */
enum {
	HS_OPT_VERBOSE = 0x1000,
	HS_OPT_PID,
	HS_OPT_DECODE_CPU,
	HS_OPT_DECODE_MEMORY,
	HS_OPT_DECODE_STALL,
};

/* Entries for a getopt_long() table; hs_read_option() handles their codes. */
#define HS_READ_LONGOPTS                                                    \
	{ "verbose", no_argument, 0, HS_OPT_VERBOSE },                      \
	{ "pid", required_argument, 0, HS_OPT_PID },                        \
	{ "decode-cpu", required_argument, 0, HS_OPT_DECODE_CPU },          \
	{ "decode-memory", required_argument, 0, HS_OPT_DECODE_MEMORY },    \
	{ "decode-stall", required_argument, 0, HS_OPT_DECODE_STALL }

/* Their lines of a usage text. */
#define HS_READ_USAGE                                                                         \
	"  --pid PID         CTF: replay the events of process PID (a trace of several)\n"      \
	"  --verbose         show libbabeltrace2's own messages\n"                              \
	"  --decode-cpu S    CPU seconds the CTF decoder may use (0: no limit)\n"               \
	"  --decode-memory B memory the CTF decoder may use (0: no limit)\n"                    \
	"  --decode-stall S  seconds the CTF decoder may go without progress (0: no limit)\n"

/**
 * hs_read_options_init() - the defaults, then the environment.
 * @o: filled.
 * @err, @errlen: the message when a HIPSIM_DECODE_* variable is malformed.
 *
 * Defaults: format auto, no pid, quiet; CPU as HS_DECODE_CPU_* say, memory
 * half the machine's memory but at most HS_DECODE_MEMORY_MAX, stall
 * HS_DECODE_STALL_S.  HIPSIM_DECODE_CPU, HIPSIM_DECODE_MEMORY and
 * HIPSIM_DECODE_STALL replace them (the same forms as the options).
 * Return: 0, or -1 with @err set.
 */
int hs_read_options_init(struct hs_read_options *o, char *err, size_t errlen);

/**
 * hs_read_option() - applies option @code (HS_OPT_*) with argument @arg.
 * Return: 1 when applied, 0 when @code is not one of them, -1 with @err set
 * when @arg is malformed (the message names the option and what it takes).
 */
int hs_read_option(struct hs_read_options *o, int code, const char *arg, char *err, size_t errlen);

#endif /* HIPSIM_READ_OPTIONS_H */
