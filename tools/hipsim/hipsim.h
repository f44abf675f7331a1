/*
 * hipsim.h - what hipsim's subcommands share.
 *
 * Exit statuses: 0 ok, 1 the work ran but some operation failed (the report
 * names the first), 2 bad input or usage, or an output that could not be
 * written (output.h).
 */
#ifndef HIPSIM_HIPSIM_H
#define HIPSIM_HIPSIM_H

#include <stdio.h>

#include "hipcore/hipcore.h"

#define HIPSIM_EXIT_OK 0
#define HIPSIM_EXIT_FAILED 1
#define HIPSIM_EXIT_USAGE 2
#define HIPSIM_EXIT_SKIP 77 /* validate: no GPU, nothing compared (automake's skip) */

int hipsim_run_main(int argc, char **argv);
int hipsim_record_main(int argc, char **argv);
int hipsim_replay_main(int argc, char **argv);
int hipsim_compare_main(int argc, char **argv);
int hipsim_calibrate_main(int argc, char **argv);
int hipsim_validate_main(int argc, char **argv);
int hipsim_plan_main(int argc, char **argv);
/* layout_print.c: @n pools as layout-file lines (K/M/G sizes, reclaim_at=peak). */
void hs_layout_print(FILE *out, const hc_pool_spec *pools, size_t n);

#endif /* HIPSIM_HIPSIM_H */
