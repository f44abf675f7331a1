/*
 * output.h - hipsim's output files and standard output: opened before the
 * work starts, and every failure to write them reported.
 *
 * A run or a calibration can take minutes on a GPU: an output that cannot
 * be created (a missing directory, no permission) is found out before it
 * starts, not after.  A write that fails (a full disk, /dev/full, a file
 * of /proc) is reported with the file's name and the reason, and makes the
 * command exit 2, instead of being lost in an unchecked fclose().
 */
#ifndef HIPSIM_OUTPUT_H
#define HIPSIM_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct hs_output {
	FILE *f;
	const char *path; /* as the user gave it, for messages */
	const char *cmd;  /* "run", "replay", "calibrate" */
	bool created;     /* the file did not exist before hs_output_open */
	bool replace;     /* opened without truncating: see hs_output_begin */
};

/**
 * hs_output_open() - open an output file for writing, before the work.
 * @o: receives the open output.
 * @cmd: the subcommand, for messages.
 * @what: the option that named the file ("--svg"), for messages.
 * @path: the file; "-" is standard output when @allow_stdout.
 * @allow_stdout: whether "-" means standard output.
 * @keep_until_written: when true the file is created if missing but not
 *       truncated: what it holds stays until hs_output_begin(), so a
 *       command that fails before writing leaves an existing file as it
 *       was (calibrate's profile).  When false it is truncated now.
 *
 * Context: one thread.
 * Return: 0, or -1 after printing "hipsim CMD: WHAT: cannot write 'PATH':
 * REASON".
 */
int hs_output_open(struct hs_output *o, const char *cmd, const char *what, const char *path,
		   bool allow_stdout, bool keep_until_written);

/* Empties a file opened with @keep_until_written, to write it.  Return: 0,
 * or -1 after a message. */
int hs_output_begin(struct hs_output *o);

/**
 * hs_output_close() - flush and close, reporting any write that failed.
 * Context: one thread.
 * Return: 0, or -1 after printing "hipsim CMD: writing 'PATH' failed:
 * REASON".  Standard output is flushed and checked but left open.
 */
int hs_output_close(struct hs_output *o);

/* Closes without writing: a file hs_output_open created is removed, an
 * existing one is left (emptied unless opened with keep_until_written). */
void hs_output_abort(struct hs_output *o);

/**
 * hs_close_stdout() - at exit, whether everything written to standard
 * output got there (gnulib's close_stdout): flushes and closes it.
 * Context: main(), once, as the last thing.
 * Return: 0, or -1 after printing "hipsim: write error on standard output:
 * REASON".  A standard output that was closed before hipsim started and
 * never written is not an error.
 */
int hs_close_stdout(void);

#endif /* HIPSIM_OUTPUT_H */
