/*
 * fuzz_rmm.c - libFuzzer target for hipsim's RMM memory-event CSV reader.
 *
 * The input becomes the contents of a memfd, opened by path
 * (/proc/self/fd/N) as hipsim would open a file, and read to its end (at most
 * 100000 events).  Checked: no crash or sanitizer report, no leak (LSan);
 * hs_trace_next returns only -1, 0 or 1; an error message begins with the
 * path; every event has a known kind, at most HS_REV_MAX_BINDINGS bindings,
 * and a line number that never goes backwards.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tools/hipsim/read_rmm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char path[64], err[640];
	uint64_t last_line = 0;
	int fd, rc;

	fd = memfd_create("fuzz_rmm", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (hs_rmm_open(path, &t, err, sizeof(err)) != 0) {
		if (t != NULL || strncmp(err, path, strlen(path)) != 0)
			__builtin_trap();
		close(fd);
		return 0;
	}
	for (int n = 0; n < 100000; n++) {
		rc = hs_trace_next(t, &ev);
		if (rc == 0)
			break;
		if (rc < 0) {
			if (strncmp(hs_trace_error(t), path, strlen(path)) != 0)
				__builtin_trap();
			break;
		}
		if (rc != 1 || ev.kind >= HS_REV_KIND_COUNT || ev.n_bindings > HS_REV_MAX_BINDINGS)
			__builtin_trap();
		if (ev.line < last_line)
			__builtin_trap();
		last_line = ev.line;
	}
	hs_trace_close(t);
	close(fd);
	return 0;
}
