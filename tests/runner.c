/*
 * runner.c - main() for every Check program of tests/ (see runner.h).
 *
 * The exit status is what Automake's test driver reads: 0 when every case
 * passed, 1 when one failed, or the before hook's own status (77 for a
 * program that cannot run here).
 */
#include <stdlib.h>

#include "tests/runner.h"

int main(int argc, char **argv)
{
	const struct hc_test_program *p = &hc_test_program;
	SRunner *sr;
	int failed;

	if (p->before) {
		int rc = p->before(argc, argv);

		if (rc != 0)
			return rc;
	}
	sr = srunner_create(NULL);
	for (const hc_suite_maker *make = p->suites; *make; make++)
		srunner_add_suite(sr, (*make)());
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (p->after)
		p->after();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
