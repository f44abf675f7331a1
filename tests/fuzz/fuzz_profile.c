/*
 * fuzz_profile.c - libFuzzer target for the simulator's profile parser.
 *
 * The input, NUL-terminated, is handed to hc_sim_profile_parse().  Checked:
 * no crash or sanitizer report; the status is HC_OK or HC_ERR_PARSE (never
 * anything else for non-NULL arguments); on HC_OK the profile is one the
 * simulator can run (a power-of-two alignment, non-zero memory), so that a
 * successful parse never hands sim_device a profile that divides by zero;
 * on failure the thread's message is set and names "<fuzz>:".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hc_sim_profile p;
	hc_error_info e;
	char *text = malloc(size + 1);
	hc_status rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&p, 0xa5, sizeof(p));
	rc = hc_sim_profile_parse(text, "<fuzz>", &p);
	if (rc == HC_OK) {
		if (p.alignment == 0 || (p.alignment & (p.alignment - 1)) != 0)
			__builtin_trap();
		if (p.total_memory == 0)
			__builtin_trap();
		if (memchr(p.name, '\0', sizeof(p.name)) == NULL)
			__builtin_trap();
	} else {
		if (rc != HC_ERR_PARSE)
			__builtin_trap();
		if (hc_last_error(&e) != HC_OK || e.status != HC_ERR_PARSE ||
		    strncmp(e.message, "<fuzz>:", 7) != 0)
			__builtin_trap();
	}
	free(text);
	return 0;
}
