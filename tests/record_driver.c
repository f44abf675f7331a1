/*
 * record_driver.c - runs hipsim_record_main() as a program, until hipsim's
 * own main dispatches to it: `record_driver record -o DIR -- CMD...`.
 */
#include <stdio.h>
#include <string.h>

#include "tools/hipsim/record.h"

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "record") != 0) {
		fprintf(stderr, "usage: record_driver record -o DIR [--snapshot] -- CMD...\n");
		return 2;
	}
	return hipsim_record_main(argc - 1, argv + 1);
}
