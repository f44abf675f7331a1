/*
 * record.h - `hipsim record`: record a command's hipcore:* events with
 * LTTng (record.c).
 */
#ifndef HIPSIM_RECORD_H
#define HIPSIM_RECORD_H

/* Exit codes besides the command's own status. */
#define HIPSIM_RECORD_EXIT_USAGE 2	/* bad arguments, no command */
#define HIPSIM_RECORD_EXIT_SETUP 1	/* output dir, lttng missing or failing */
#define HIPSIM_RECORD_EXIT_NOTFOUND 127	/* the command does not exist */
#define HIPSIM_RECORD_EXIT_EMPTY 3	/* the command succeeded, nothing was recorded */

/**
 * hipsim_record_main() - `hipsim record -o DIR [--snapshot] [--provider SO] -- CMD...`
 * @argc: argument count, argv[0] being "record".
 * @argv: the arguments.
 *
 * DIR is created if missing and must be an empty writable directory.
 * --provider SO sets HIPCORE_LTTNG=SO (absolute) in CMD's environment only.
 * Starts lttng-sessiond when none runs (and stops only that one), records
 * hipcore:* for CMD and every process it starts (each one that loads the
 * probe module is tracked before its first event; see record.c) into DIR,
 * until CMD and all those processes have exited, and reports the event and
 * discarded-event counts on stderr.  CMD's stdin, stdout and stderr are
 * left untouched.
 *
 * Context: process-level: installs SIGINT/SIGTERM/SIGHUP/SIGCHLD handlers
 * and is the subreaper of CMD's processes for its duration, forks; call
 * from main().
 * Return: CMD's exit status (128 + signal when it was killed);
 * HIPSIM_RECORD_EXIT_EMPTY when CMD succeeded but no event was recorded
 * (the likely cause on stderr); or one of the other HIPSIM_RECORD_EXIT_*
 * codes with a message on stderr.
 */
int hipsim_record_main(int argc, char **argv);

#endif /* HIPSIM_RECORD_H */
