/*
 * ctf_array_guard.h - a bound on CTF dynamic-array lengths, checked before
 * libbabeltrace2 allocates for them.
 *
 * libbabeltrace2 2.0's CTF decoder gives a dynamic array the length its
 * length field says (bt_field_array_dynamic_set_length()), which makes one
 * element field per claimed element, some 100 bytes each, before it reads
 * one: a corrupt u32 length claims up to 2^32 elements (issue 28: 20 M
 * claimed elements cost 2 GB; a byte set to 0x08 in a hipcore:launch
 * binding-array length grew the decoder by 1 GB/s).  The ctf plugin, a
 * shared object libbabeltrace2 loads, calls that function through its
 * procedure linkage table, where a definition in the program comes first:
 * ctf_array_guard.c defines it, refuses a length no event of the trace
 * could hold, and passes every other call on to libbabeltrace2's own.
 *
 * A length is refused when its elements, at their least size in bits
 * (an integer its width, a string one byte, a structure its members' sum,
 * a static array its length times its element's), would not fit in the
 * trace's largest packet, or when it is above HS_CTF_ARRAY_MAX (4 Mi: an
 * event of `hipsim record`'s 4 MiB sub-buffers holds no more, and at about
 * 100 bytes an element that is 400 MiB).  The refusal is an error cause on
 * the thread ("a dynamic array of the trace claims N elements ..."), which
 * libbabeltrace2 passes up as a read error.
 */
#ifndef HIPSIM_CTF_ARRAY_GUARD_H
#define HIPSIM_CTF_ARRAY_GUARD_H

#include <stdint.h>

#define HS_CTF_ARRAY_MAX (1ull << 22)

/**
 * hs_ctf_array_guard_packet_bytes() - the largest packet of the trace about
 * to be decoded (0: not known; then HS_CTF_ARRAY_MAX alone bounds).
 * Context: before libbabeltrace2 decodes the trace; the bound is the
 * process's, so it serves one trace at a time (the one opened last).
 */
void hs_ctf_array_guard_packet_bytes(uint64_t bytes);

/* Lengths refused so far (for tests). */
uint64_t hs_ctf_array_guard_refused(void);

#endif /* HIPSIM_CTF_ARRAY_GUARD_H */
