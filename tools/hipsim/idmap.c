/*
 * idmap.c - open-addressing uint64 -> uint64 map (see idmap.h; insert and
 * take are inline there).
 *
 * Empty slots hold the key HS_IDMAP_EMPTY; that key itself lives in has_max
 * and max_value, outside the table.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/idmap.h"

void hs_idmap_init(struct hs_idmap *m)
{
	m->slots = NULL;
	m->mask = 0;
	m->count = 0;
	m->has_max = false;
	m->max_value = 0;
}

void hs_idmap_free(struct hs_idmap *m)
{
	free(m->slots);
	hs_idmap_init(m);
}

static inline struct hs_idmap_slot *find(const struct hs_idmap *m, uint64_t key)
{
	size_t i;

	if (!m->slots)
		return NULL;
	for (i = hs_idmap_hash(key) & m->mask; m->slots[i].key != HS_IDMAP_EMPTY; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return &m->slots[i];
	return NULL;
}

bool hs_idmap_get(const struct hs_idmap *m, uint64_t key, uint64_t *value)
{
	const struct hs_idmap_slot *s;

	if (key == HS_IDMAP_EMPTY) {
		if (m->has_max)
			*value = m->max_value;
		return m->has_max;
	}
	s = find(m, key);
	if (!s)
		return false;
	*value = s->value;
	return true;
}

static void place(struct hs_idmap_slot *slots, size_t mask, uint64_t key, uint64_t value)
{
	size_t i = hs_idmap_hash(key) & mask;

	while (slots[i].key != HS_IDMAP_EMPTY)
		i = (i + 1) & mask;
	slots[i].key = key;
	slots[i].value = value;
}

int hs_idmap_grow(struct hs_idmap *m)
{
	size_t cap = m->slots ? (m->mask + 1) * 2 : 64;
	struct hs_idmap_slot *n = malloc(cap * sizeof(*n));

	if (!n)
		return -1;
	memset(n, 0xff, cap * sizeof(*n)); /* every key HS_IDMAP_EMPTY */
	if (m->slots) {
		for (size_t i = 0; i <= m->mask; i++)
			if (m->slots[i].key != HS_IDMAP_EMPTY)
				place(n, cap - 1, m->slots[i].key, m->slots[i].value);
		free(m->slots);
	}
	m->slots = n;
	m->mask = cap - 1;
	return 0;
}

int hs_idmap_put(struct hs_idmap *m, uint64_t key, uint64_t value)
{
	struct hs_idmap_slot *s;

	if (key == HS_IDMAP_EMPTY) {
		m->count += !m->has_max;
		m->has_max = true;
		m->max_value = value;
		return 0;
	}
	s = find(m, key);
	if (s) {
		s->value = value;
		return 0;
	}
	if (hs_idmap_full(m) && hs_idmap_grow(m) != 0)
		return -1;
	place(m->slots, m->mask, key, value);
	m->count++;
	return 0;
}

int hs_idmap_insert_max(struct hs_idmap *m, uint64_t value, uint64_t *old)
{
	if (m->has_max) {
		if (old)
			*old = m->max_value;
		return 0;
	}
	m->has_max = true;
	m->max_value = value;
	m->count++;
	return 1;
}

bool hs_idmap_take_max(struct hs_idmap *m, uint64_t *value)
{
	if (!m->has_max)
		return false;
	if (value)
		*value = m->max_value;
	m->has_max = false;
	m->count--;
	return true;
}

size_t hs_idmap_bytes(const struct hs_idmap *m)
{
	return m->slots ? (m->mask + 1) * sizeof(*m->slots) : 0;
}
