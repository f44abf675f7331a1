/*
 * env.c - reading the environment variables of util/env.h's table.
 *
 * The only place in libhipcore, its PyTorch plug-in and its probe module
 * that calls getenv: a variable is known by its row, so a reader cannot
 * misspell a name or read one the table and the documents lack.
 */
#include <stdlib.h>
#include <string.h>

#include "util/env.h"

static const struct hc_env_desc table[HC_ENV_COUNT] = {
#define HC_ENV_ROW_(id, name, kind, flag_default, default_text, reader, user_doc, effect) \
	[id] = { name, kind, flag_default, default_text, reader, user_doc, effect },
	HC_ENV_LIST(HC_ENV_ROW_)
#undef HC_ENV_ROW_
};

const struct hc_env_desc *hc_env_table(void)
{
	return table;
}

const char *hc_env_get(enum hc_env_var var)
{
	if ((unsigned)var >= HC_ENV_COUNT)
		return NULL;
	return secure_getenv(table[var].name);
}

bool hc_env_flag(enum hc_env_var var)
{
	const char *v;

	if ((unsigned)var >= HC_ENV_COUNT || table[var].kind != HC_ENV_FLAG)
		return false;
	v = secure_getenv(table[var].name);
	if (table[var].flag_default)
		return !(v && strcmp(v, "0") == 0);
	return v && strcmp(v, "1") == 0;
}
