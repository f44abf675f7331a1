/*
 * main.c - hipsim: what-if analysis of libhipcore pool layouts and policies.
 *
 * Subcommands live in their own files; this one only dispatches, then
 * checks that what the subcommand printed reached standard output (a full
 * disk or a closed pipe is an error, exit 2, not a silent success).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/output.h"

static const struct subcommand {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{ "run", hipsim_run_main, "run a built-in workload through libhipcore and report" },
	{ "record", hipsim_record_main, "record a command's libhipcore calls with LTTng" },
	{ "replay", hipsim_replay_main, "replay a CTF or RMM CSV trace through libhipcore" },
	{ "compare", hipsim_compare_main, "compare two JSON reports key by key" },
	{ "calibrate", hipsim_calibrate_main, "measure a backend, write a simulator profile" },
	{ "validate", hipsim_validate_main, "compare the simulator's predictions with a GPU" },
	{ "plan", hipsim_plan_main, "search the pool layout with the lowest peak reserved memory" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: hipsim [--help] [--version] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n`hipsim COMMAND --help` describes each command.\n");
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return HIPSIM_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("hipsim (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "hipsim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return HIPSIM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int status = dispatch(argc, argv);

	if (hs_close_stdout() != 0)
		return HIPSIM_EXIT_USAGE;
	return status;
}
