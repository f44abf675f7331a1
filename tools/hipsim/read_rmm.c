/*
 * read_rmm.c - RMM memory-event CSV reader (format in read_rmm.h).
 *
 * Built for speed, since replay's target is millions of events a second:
 * one 1 MiB read buffer refilled 64 KiB at a time through zlib's gzread()
 * (so the bytes parsed are still in cache), with a newline kept after its
 * data; a line's
 * end and its commas found in one pass, 32 bytes at a time (SSE2),
 * up to the last column the header needs (the buffer has padding, so a
 * word may run past a field's end); numbers parsed by hand, the forms
 * traces write first many digits at a time (0x pointers sixteen, sizes,
 * HH:MM:SS and fractions eight); fields trimmed only when they do not
 * parse as they stand; no allocation per line.  The map of live pointers
 * is an open-addressing hash (idmap.c); streams are few and are looked up
 * through a one-entry cache, then (up to RMM_SCAN_STREAMS of
 * them) by comparing each (names of up to 8 bytes as one word), before
 * their hash.  Times in the plain forms are parsed in one pass.
 *
 * Input: one file descriptor, read once from its first byte through zlib
 * (gzdopen), which decompresses gzip and passes anything else through as it
 * is, so a file, a .gz and a pipe are read alike and nothing is reopened: the
 * header the format check reads is the one the reader keeps.  zlib reads
 * requests of 16 KiB and more straight into the buffer when the input is
 * not compressed.
 *
 * A free of a pointer that is not live and an allocation of one that is are
 * not errors (a log that begins mid-run has both): the first becomes a free
 * of buffer 0, which is never live, the second an allocation of the live
 * pointer's buffer id again; the replay engine counts both (replay.c).
 *
 * Memory: the read buffer, the live pointers and the distinct streams.
 * Nothing else grows with the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "tools/hipsim/idmap.h"
#include "tools/hipsim/read_rmm.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define RMM_BUF_SIZE (1u << 20) /* the longest line */
/* Bytes after the buffer, so that a line can be read 32 bytes (a field
 * sixteen or eight) at a time up to its end without a byte-by-byte tail,
 * and its first 64 bytes at once (plain_line); the first may hold the
 * sentinel newline (scan_line). */
#define RMM_BUF_PAD 64
/* Bytes read at a time: the unread tail moves to the front before each
 * read, so parsing stays within the first RMM_READ_CHUNK bytes of the
 * buffer (cache-warm) unless a line is longer. */
#define RMM_READ_CHUNK (64u << 10)
#define RMM_MAX_COLS 64
#define RMM_SCAN_STREAMS 8 /* streams compared one by one before hashing */
#define RMM_WORD_SLOTS 16  /* rmm_reader.by_word */
#define NS_PER_S 1000000000ull
#define NS_PER_DAY (86400ull * NS_PER_S)

enum rmm_col { COL_IGNORE = 0, COL_THREAD, COL_TIME, COL_ACTION, COL_POINTER, COL_SIZE, COL_STREAM, COL_COUNT };

static const char *const col_names[COL_COUNT] = {
	[COL_THREAD] = "Thread", [COL_TIME] = "Time",	  [COL_ACTION] = "Action",
	[COL_POINTER] = "Pointer", [COL_SIZE] = "Size", [COL_STREAM] = "Stream",
};

struct rmm_stream {
	char *text;
	size_t len;
	uint64_t id;
	uint64_t word; /* len <= 8: the text as a zero-padded word (same_field) */
};

/* The last "HH:MM:SS" parse_time() took apart: a trace logs many events a
 * second, so most lines repeat the clock of the line before. */
struct clock_cache {
	uint64_t word; /* the eight bytes as read; 0: none (a clock has colons) */
	uint64_t ns;   /* their time of day */
};

struct rmm_reader {
	struct hs_trace base; /* first: the generic reader */
	char *path;
	gzFile gz;
	bool gzip; /* the input is gzip data (known after the first read) */
	char *buf;
	size_t start, end;
	int eof;
	uint64_t lineno;

	uint8_t role[RMM_MAX_COLS];
	unsigned ncols; /* columns to split: the last needed one + 1 */
	bool plain_header; /* Thread,Time,Action,Pointer,Size,Stream: role[c] = c + 1 */

	struct hs_idmap ptrs; /* live pointer -> buffer id */
	uint64_t next_buffer;
	/* Ids of freed buffers, reused last-freed first, so ids stay below the
	 * peak count of live buffers (the engine indexes an array by them). */
	uint64_t *free_ids;
	size_t nfree, capfree;

	struct hs_idmap stream_by_hash; /* FNV-1a of the text -> index */
	struct rmm_stream *streams;
	uint32_t nstreams, capstreams;
	uint32_t last_stream; /* cache: index of the last stream seen */
	/* Cache of streams named in up to 8 bytes, by a hash of that word
	 * (word_slot): index + 1, 0 when none.  A trace that cycles through a
	 * few streams finds each with one probe, where the last-stream cache
	 * misses at every change. */
	uint32_t by_word[RMM_WORD_SLOTS];

	uint64_t day_offset, last_time;
	struct clock_cache clock;

	int have_pending;
	struct hs_rev pending;
};

struct field {
	const char *p;
	size_t n;
};

static int fail(struct rmm_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct rmm_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->base.error, sizeof(r->base.error), "%s:%" PRIu64 ": %s", r->path, r->lineno, msg);
	return -1;
}

/* --- numbers ------------------------------------------------------------ */

enum { NUM_OK = 0, NUM_BAD = -1, NUM_OVERFLOW = -2, NUM_NEGATIVE = -3 };

static inline int parse_dec(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return NUM_BAD;
	if (s[0] == '-')
		return n > 1 ? NUM_NEGATIVE : NUM_BAD;
	if (s[0] == '+' && n > 1)
		s++, n--;
	if (n <= 19) { /* 19 digits cannot overflow: no check per digit */
		for (size_t i = 0; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';

			if (d > 9)
				return NUM_BAD;
			v = v * 10 + d;
		}
		*out = v;
		return NUM_OK;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9)
			return NUM_BAD;
		if (v > (UINT64_MAX - d) / 10)
			return NUM_OVERFLOW;
		v = v * 10 + d;
	}
	*out = v;
	return NUM_OK;
}

/* Hex digit values with bit 4 set; 0 for every other byte. */
#define HX(c, v) [c] = 0x10 | (v)
static const uint8_t hex_digit[256] = {
	HX('0', 0),  HX('1', 1),  HX('2', 2),  HX('3', 3),  HX('4', 4),  HX('5', 5),
	HX('6', 6),  HX('7', 7),  HX('8', 8),  HX('9', 9),  HX('a', 10), HX('b', 11),
	HX('c', 12), HX('d', 13), HX('e', 14), HX('f', 15), HX('A', 10), HX('B', 11),
	HX('C', 12), HX('D', 13), HX('E', 14), HX('F', 15),
};
#undef HX

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ONES 0x0101010101010101ull
#if !(defined(__SSE2__) && defined(__x86_64__)) /* else hex16() */
/*
 * Eight hex digits at once, first character in the low byte (little
 * endian): *@out their value.  Per byte, for ASCII b (bit 7 clear, so no
 * sum below carries out of its byte): b + 0x50 has bit 7 set iff b >= '0',
 * b + 0x46 iff b > '9'; c = b | 0x20 folds 'A'-'F' onto 'a'-'f' (and no
 * other byte onto them), c + 0x1f has bit 7 iff c >= 'a', c + 0x19 iff
 * c > 'f'.  A digit's value is its low nibble, plus 9 for a letter (bit 6).
 * Return: false when a byte is not a hex digit.
 */
static inline bool hex8(uint64_t w, uint64_t *out)
{
	uint64_t c = w | 0x20 * ONES, ok, x;

	ok = ((w + 0x50 * ONES) & ~(w + 0x46 * ONES)) | ((c + 0x1f * ONES) & ~(c + 0x19 * ONES));
	if (((ok & ~w) & 0x80 * ONES) != 0x80 * ONES)
		return false;
	x = (w & 0x0f * ONES) + ((w >> 6) & ONES) * 9;
	x = __builtin_bswap64(x); /* the first digit highest */
	x = (x | (x >> 4)) & 0x00ff00ff00ff00ffull;
	x = (x | (x >> 8)) & 0x0000ffff0000ffffull;
	*out = (x | (x >> 16)) & 0xffffffffull;
	return true;
}
#endif

/* @n (1..8) characters at @p as eight digits with '0's before them (the
 * same value, hex or decimal); bytes past them may be read (RMM_BUF_PAD). */
static inline uint64_t hex_word(const char *p, size_t n)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return n == 8 ? w : w << (64 - 8 * n) | 0x30 * ONES >> 8 * n;
}
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Eight decimal digits at once, first character in the low byte: a byte is
 * a digit iff its high nibble is 3 and adding 6 keeps it 3; the value by
 * pairs, then fours, then the whole (the known multiply-shift sequence).
 * Return: false when a byte is not a digit.
 */
static inline bool digits8(uint64_t w, uint64_t *out)
{
	if (((w & 0xf0 * ONES) | (((w + 0x06 * ONES) & 0xf0 * ONES) >> 4)) != 0x33 * ONES)
		return false;
	w -= 0x30 * ONES;
	w = w * 10 + (w >> 8);
	w = ((w & 0x000000ff000000ffull) * (100 + (1000000ull << 32)) +
	     ((w >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32))) >> 32;
	*out = w;
	return true;
}

/*
 * "HH:MM:SS" (colons already checked) as its three numbers: with the
 * colons made '0' every byte must be a digit (digits8's test); then, with
 * each byte's digit value d[i] (at most 9, so nothing carries), w * 10 +
 * (w >> 8) holds 10 * d[i] + d[i + 1] in byte i: the hours in byte 0, the
 * minutes in byte 3, the seconds in byte 6.  Return: false when a byte is
 * not a digit.
 */
static inline bool clock8(uint64_t w, uint64_t *h, uint64_t *m, uint64_t *sec)
{
	w ^= 0x00000a00000a0000ull; /* ':' (0x3a) -> '0' */
	if (((w & 0xf0 * ONES) | (((w + 0x06 * ONES) & 0xf0 * ONES) >> 4)) != 0x33 * ONES)
		return false;
	w -= 0x30 * ONES;
	w = w * 10 + (w >> 8);
	*h = w & 0xff;
	*m = (w >> 24) & 0xff;
	*sec = (w >> 48) & 0xff;
	return true;
}

/* parse_dec(), with 1 to 8 plain digits (sizes, mostly) eight at a time:
 * right-aligned after zeros, as hex_word() puts hex digits. */
static inline int parse_size(const char *s, size_t n, uint64_t *out)
{
	uint64_t v;

	if (n - 1 < 8 && digits8(hex_word(s, n), &v)) {
		*out = v;
		return NUM_OK;
	}
	return parse_dec(s, n, out);
}

/* The @n (1..8) digits of a fraction at @p with zeros after them, as eight
 * (their value times 10^(8 - n)); bytes past them may be read. */
static inline uint64_t fraction_word(const char *p, size_t n)
{
	uint64_t w, keep;

	memcpy(&w, p, 8);
	if (n == 8)
		return w;
	keep = (1ull << 8 * n) - 1;
	return (w & keep) | (0x30 * ONES & ~keep);
}
#else
static inline int parse_size(const char *s, size_t n, uint64_t *out)
{
	return parse_dec(s, n, out);
}
#endif

/* One table load per digit, no branch: whether every byte was a digit is
 * known at the end (the AND of the bits 4). */
static inline int parse_hex(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned all = 0x10;

	if (n == 0 || n > 16)
		return n ? NUM_OVERFLOW : NUM_BAD;
	for (size_t i = 0; i < n; i++) {
		unsigned d = hex_digit[(unsigned char)s[i]];

		all &= d;
		v = v << 4 | (d & 15);
	}
	if (!all)
		return NUM_BAD;
	*out = v;
	return NUM_OK;
}

static int parse_ptr_general(const char *s, size_t n, uint64_t *out)
{
	if (n == 0 || (n == 5 && memcmp(s, "(nil)", 5) == 0) || (n == 7 && memcmp(s, "nullptr", 7) == 0)) {
		*out = 0;
		return NUM_OK;
	}
	if (n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x') {
		/* leading zeros do not overflow */
		s += 2, n -= 2;
		while (n > 1 && s[0] == '0')
			s++, n--;
		return parse_hex(s, n, out);
	}
	return parse_dec(s, n, out);
}

#if defined(__SSE2__) && defined(__x86_64__)
/*
 * The @k (1..16) hex digits at @d, all sixteen bytes at once (SSE2): a
 * byte's value is its low nibble, plus 9 for a letter ('a'-'f' and 'A'-'F'
 * end in 1..6); each 16-bit lane's two values join into one byte, the
 * eight bytes pack into a word whose byte swap puts the first digit
 * highest, and the 16 - @k digits read past the field (RMM_BUF_PAD) are
 * shifted out at the bottom.  Return: false when one of the @k bytes is
 * not a hex digit.
 */
static inline bool hex16(const char *d, size_t k, uint64_t *out)
{
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)d);
	__m128i c = _mm_or_si128(b, _mm_set1_epi8(0x20)); /* 'A'-'F' as 'a'-'f' */
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)),
				      _mm_cmplt_epi8(b, _mm_set1_epi8('9' + 1)));
	__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('a' - 1)),
				       _mm_cmplt_epi8(c, _mm_set1_epi8('f' + 1)));
	uint32_t want = (1u << k) - 1;
	__m128i v, pair;

	if (((uint32_t)_mm_movemask_epi8(_mm_or_si128(digit, letter)) & want) != want)
		return false;
	v = _mm_add_epi8(_mm_and_si128(b, _mm_set1_epi8(0x0f)), _mm_and_si128(letter, _mm_set1_epi8(9)));
	/* Lane: first | second << 8 -> first << 4 | second (every value < 16). */
	pair = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)), _mm_set1_epi16(0xff));
	*out = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair))) >> (4 * (16 - k));
	return true;
}
#endif

/* parse_ptr_general(), with the form traces write first, inline: 0x and 1
 * to 16 hex digits, the first not 0, sixteen (or eight) at a time. */
static inline __attribute__((always_inline)) int parse_ptr(const char *s, size_t n, uint64_t *out)
{
#if defined(__SSE2__) && defined(__x86_64__)
	if (n - 3 < 16 && s[0] == '0' && (s[1] | 0x20) == 'x' && s[2] != '0' && hex16(s + 2, n - 2, out))
		return NUM_OK;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n - 3 < 16 && s[0] == '0' && (s[1] | 0x20) == 'x' && s[2] != '0') {
		const char *d = s + 2;
		size_t k = n - 2;
		uint64_t hi = 0, lo;

		if (k > 8 ? hex8(hex_word(d, k - 8), &hi) && hex8(hex_word(d + k - 8, 8), &lo)
			  : hex8(hex_word(d, k), &lo)) {
			*out = hi << 32 | lo;
			return NUM_OK;
		}
	}
#endif
	return parse_ptr_general(s, n, out);
}

/* Up to 9 digits of a fraction, as nanoseconds; later digits are dropped. */
static int parse_frac_ns(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9)
			return NUM_BAD;
		if (i < 9)
			v = v * 10 + d;
	}
	for (; i < 9; i++)
		v *= 10;
	*out = v;
	return NUM_OK;
}

static int mul_add(uint64_t a, uint64_t m, uint64_t b, uint64_t *out)
{
	if (a > (UINT64_MAX - b) / m)
		return NUM_OVERFLOW;
	*out = a * m + b;
	return NUM_OK;
}

/* Time: HH:MM:SS[.f], S[.f] (seconds) or N (nanoseconds); *tod set for HH:MM:SS. */
static int parse_time_general(const char *s, size_t n, uint64_t *out, int *tod)
{
	const char *dot = memchr(s, '.', n), *colon = memchr(s, ':', n);
	size_t ni = dot ? (size_t)(dot - s) : n;
	uint64_t whole = 0, frac = 0;
	int rc;

	*tod = 0;
	if (n == 0) {
		*out = 0;
		return NUM_OK;
	}
	if (dot && (rc = parse_frac_ns(dot + 1, n - ni - 1, &frac)) != NUM_OK)
		return rc;
	if (colon) {
		uint64_t h, m, sec;
		const char *c2 = memchr(colon + 1, ':', (size_t)(s + ni - colon - 1));

		if (!c2 || parse_dec(s, (size_t)(colon - s), &h) || parse_dec(colon + 1, (size_t)(c2 - colon - 1), &m) ||
		    parse_dec(c2 + 1, (size_t)(s + ni - c2 - 1), &sec) || h > 99 || m > 59 || sec > 60)
			return NUM_BAD;
		whole = (h * 60 + m) * 60 + sec;
		*tod = 1;
	} else if (!dot) {
		return parse_dec(s, n, out); /* nanoseconds */
	} else if ((rc = parse_dec(s, ni, &whole)) != NUM_OK) {
		return rc;
	}
	return mul_add(whole, NS_PER_S, frac, out);
}

/*
 * parse_time_general() in one pass over the bytes, for the plain forms
 * (digits only, with two colons and/or one dot, every group of digits
 * non-empty and at most 18 long, clock fields in range); anything else goes
 * to parse_time_general(), so results and errors are the same.
 */
static int parse_time_plain(const char *s, size_t n, uint64_t *out, int *tod)
{
	uint64_t g[3] = { 0, 0, 0 }, frac = 0;
	unsigned ng = 0, glen = 0, fdig = 0;
	size_t i = 0;

	for (; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d <= 9) {
			if (++glen > 18)
				goto general;
			g[ng] = g[ng] * 10 + d;
		} else if (s[i] == ':' && glen && ng < 2) {
			ng++;
			glen = 0;
		} else if (s[i] == '.' && glen) {
			break;
		} else {
			goto general;
		}
	}
	if (!glen || ng == 1)
		goto general;
	if (i < n) { /* the fraction */
		for (i++; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';

			if (d > 9)
				goto general;
			if (fdig < 9)
				frac = frac * 10 + d, fdig++;
		}
		for (; fdig < 9; fdig++)
			frac *= 10;
	} else if (ng == 0) {
		*tod = 0;
		*out = g[0]; /* nanoseconds */
		return NUM_OK;
	}
	if (ng == 2) {
		if (g[0] > 99 || g[1] > 59 || g[2] > 60)
			goto general;
		*tod = 1;
		return mul_add((g[0] * 60 + g[1]) * 60 + g[2], NS_PER_S, frac, out);
	}
	*tod = 0;
	return mul_add(g[0], NS_PER_S, frac, out);

general:
	return parse_time_general(s, n, out, tod);
}

/*
 * parse_time_plain(), with the forms traces write first, inline:
 * nanoseconds (what the loop gives for up to 18 digits) and HH:MM:SS.f
 * with 1 to 8 digits of fraction and the clock fields in range (the same
 * sum as the loop's); the clock's value comes from @cache when its bytes
 * are those of the last one.
 */
static inline __attribute__((always_inline)) int parse_time(const char *s, size_t n, uint64_t *out, int *tod,
							     struct clock_cache *cache)
{
	uint64_t v = 0;
	size_t i = 0;

	if (n - 1 >= 18)
		return parse_time_plain(s, n, out, tod);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n >= 10 && n <= 17) {
		uint64_t w, h, m, sec, frac;

		memcpy(&w, s, 8);
		if ((w & 0x0000ff0000ff0000ull) == 0x00003a00003a0000ull && s[8] == '.' &&
		    digits8(fraction_word(s + 9, n - 9), &frac)) {
			if (w == cache->word) {
				*tod = 1;
				*out = cache->ns + frac * 10;
				return NUM_OK;
			}
			if (clock8(w, &h, &m, &sec) && m <= 59 && sec <= 60) {
				cache->word = w;
				cache->ns = ((h * 60 + m) * 60 + sec) * NS_PER_S;
				*tod = 1;
				*out = cache->ns + frac * 10;
				return NUM_OK;
			}
		}
	}
#endif
	for (; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9)
			break;
		v = v * 10 + d;
	}
	if (i == n) {
		*tod = 0;
		*out = v;
		return NUM_OK;
	}
	return parse_time_plain(s, n, out, tod);
}

#if defined(__SSE2__) && defined(__x86_64__)
/*
 * digits8() of @a and @b at once (SSE2, the two words in one register):
 * every byte less '0' is at most 9 (unsigned); then byte pairs, 16-bit
 * pairs and 32-bit pairs join as first * 10 + second, * 100 + and
 * * 10000 + (pmullw, pmaddwd, pmuludq), the first digit being the low
 * byte.  Return: false when a byte of either is not a digit.
 */
static inline bool digits8x2(uint64_t a, uint64_t b, uint64_t *va, uint64_t *vb)
{
	__m128i d = _mm_sub_epi8(_mm_set_epi64x((long long)b, (long long)a), _mm_set1_epi8('0'));
	__m128i nine = _mm_set1_epi8(9), p, q, v;

	if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(d, nine), nine)) != 0xffff)
		return false;
	p = _mm_add_epi16(_mm_mullo_epi16(_mm_and_si128(d, _mm_set1_epi16(0xff)), _mm_set1_epi16(10)),
			  _mm_srli_epi16(d, 8));
	q = _mm_madd_epi16(p, _mm_set1_epi32(100 | 1 << 16));
	v = _mm_add_epi64(_mm_mul_epu32(q, _mm_set1_epi64x(10000)), _mm_srli_epi64(q, 32));
	*va = (uint64_t)_mm_cvtsi128_si64(v);
	*vb = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
	return true;
}

/*
 * The size and the time as traces write them, both in one digits8x2():
 * 1 to 8 digits of size; HH:MM:SS. and 1 to 8 digits of fraction (a time
 * of day).  The same values parse_size() and parse_time() give, the clock
 * through the same @cache.  Return: false, @cache unchanged, when either
 * is in another form: those two then parse them (and say what is wrong).
 */
static inline __attribute__((always_inline)) bool size_time_plain(struct field fs, struct field ft,
								   struct clock_cache *cache, uint64_t *size,
								   uint64_t *tm)
{
	uint64_t w, sz, frac, h, m, sec;

	if (fs.n - 1 >= 8 || ft.n - 10 >= 8)
		return false;
	memcpy(&w, ft.p, 8);
	if ((w & 0x0000ff0000ff0000ull) != 0x00003a00003a0000ull || ft.p[8] != '.' ||
	    !digits8x2(hex_word(fs.p, fs.n), fraction_word(ft.p + 9, ft.n - 9), &sz, &frac))
		return false;
	if (w != cache->word) {
		if (!clock8(w, &h, &m, &sec) || m > 59 || sec > 60)
			return false;
		cache->word = w;
		cache->ns = ((h * 60 + m) * 60 + sec) * NS_PER_S;
	}
	*size = sz;
	*tm = cache->ns + frac * 10;
	return true;
}
#endif

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* @n bytes of @a and @b are equal; short texts, no library call. */
static inline bool same_text(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Low @n (1..8) bytes of the word at @p; bytes past a field's end may be
 * read (RMM_BUF_PAD). */
static inline uint64_t low_bytes(const char *p, size_t n)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return n >= 8 ? w : w & ((1ull << (n * 8)) - 1);
}

/* Field @f names stream @s: one word compare for names of up to 8 bytes
 * (@w: the field's low_bytes() then). */
static inline bool same_field(const struct rmm_stream *s, struct field f, uint64_t w)
{
	if (s->len != f.n)
		return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (f.n <= 8)
		return w == s->word;
#endif
	return same_text(s->text, f.p, f.n);
}

static void trim(struct field *f)
{
	while (f->n && (f->p[0] == ' ' || f->p[0] == '\t'))
		f->p++, f->n--;
	while (f->n && (f->p[f->n - 1] == ' ' || f->p[f->n - 1] == '\t' || f->p[f->n - 1] == '\r'))
		f->n--;
}

/* --- header ------------------------------------------------------------- */

/*
 * Maps the header's columns to roles.  Return: a bit mask of the roles found
 * (bit i for role i); @role and @ncols are filled.
 */
static unsigned parse_header(const char *line, size_t len, uint8_t *role, unsigned *ncols)
{
	unsigned found = 0, col = 0, last = 0;
	size_t i = 0;

	memset(role, 0, RMM_MAX_COLS);
	while (col < RMM_MAX_COLS) {
		size_t j = i;
		struct field f;

		while (j < len && line[j] != ',')
			j++;
		f.p = line + i;
		f.n = j - i;
		trim(&f);
		for (int c = 1; c < COL_COUNT; c++)
			if (!(found & (1u << c)) && strlen(col_names[c]) == f.n &&
			    strncasecmp(f.p, col_names[c], f.n) == 0) {
				role[col] = (uint8_t)c;
				found |= 1u << c;
				last = col;
			}
		col++;
		if (j >= len)
			break;
		i = j + 1;
	}
	*ncols = last + 1;
	return found;
}

#define ALL_COLS (((1u << COL_COUNT) - 1) & ~1u)

/* --- lines -------------------------------------------------------------- */

/* Whether zlib holds an error after a read: a gzip stream cut short reads
 * as the end of the data with Z_BUF_ERROR set. */
static bool read_error(struct rmm_reader *r)
{
	int e = Z_OK;

	gzerror(r->gz, &e);
	return e != Z_OK;
}

/* fail() with what zlib says went wrong in the read. */
static int fail_read(struct rmm_reader *r)
{
	int e = Z_OK;
	const char *m = gzerror(r->gz, &e);

	if (e == Z_ERRNO)
		return fail(r, "read error: %s", strerror(errno));
	if (e == Z_BUF_ERROR)
		return fail(r, "the gzip data ends early (a truncated file?)");
	return fail(r, "%s: %s", r->gzip ? "the gzip data is corrupt" : "read error", m);
}

/* get_line() when the buffer holds no whole line.  Return: as get_line. */
static int get_line_refill(struct rmm_reader *r, const char **line, size_t *len)
{
	for (;;) {
		char *p = memchr(r->buf + r->start, '\n', r->end - r->start);
		ssize_t got;

		if (p) {
			*line = r->buf + r->start;
			*len = (size_t)(p - *line);
			r->start = (size_t)(p - r->buf) + 1;
			r->lineno++;
			return 1;
		}
		if (r->eof) {
			if (r->start == r->end)
				return 0;
			*line = r->buf + r->start; /* last line, no newline */
			*len = r->end - r->start;
			r->start = r->end;
			r->lineno++;
			return 1;
		}
		if (r->start) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		if (r->end == RMM_BUF_SIZE) {
			r->lineno++;
			return fail(r, "line longer than %u bytes", RMM_BUF_SIZE);
		}
		got = gzread(r->gz, r->buf + r->end,
			     RMM_BUF_SIZE - r->end < RMM_READ_CHUNK ? RMM_BUF_SIZE - r->end : RMM_READ_CHUNK);
		if (r->end == 0 && r->lineno == 0)
			r->gzip = gzdirect(r->gz) == 0;
		if (got < 0 || (got == 0 && read_error(r))) {
			r->lineno++;
			return fail_read(r);
		}
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
		r->buf[r->end] = '\n'; /* the sentinel: scan_line stops here */
	}
}

/*
 * The line at @p: its length (the offset of its first '\n') and the offsets
 * of its first commas (at least @ncols of them when it has that many; up to
 * 31 more may be written) in @cut, *@ncut of them, in one pass: 32 bytes at
 * a time, the commas and the newline each as a bit mask (SSE2, part of
 * every x86-64), the commas walked lowest first.  A line costs one pass
 * instead of memchr's for the newline and then another for the commas.  A
 * '\n' must follow: the buffer keeps one after its data (the sentinel,
 * get_line_refill), so the loop needs no bound; bytes up to 31 past that
 * newline are read (RMM_BUF_PAD) and ignored.
 */
static inline size_t scan_line(const char *p, unsigned ncols, uint32_t *cut, unsigned *ncut)
{
	unsigned k = 0;

#ifdef __SSE2__
	const __m128i comma = _mm_set1_epi8(','), newline = _mm_set1_epi8('\n');

	for (size_t base = 0;; base += 32) {
		__m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(p + base));
		__m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(p + base + 16));
		uint32_t c = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, comma)) |
			     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, comma)) << 16;
		uint32_t e = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, newline)) |
			     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, newline)) << 16;

		if (e)
			c &= (e & -e) - 1; /* the commas before the newline */
		if (k < ncols)
			for (; c; c &= c - 1)
				cut[k++] = (uint32_t)(base + (size_t)__builtin_ctz(c));
		if (e) {
			*ncut = k;
			return base + (size_t)__builtin_ctz(e);
		}
	}
#else
	for (size_t i = 0;; i++) {
		if (p[i] == '\n') {
			*ncut = k;
			return i;
		}
		if (p[i] == ',' && k < ncols)
			cut[k++] = (uint32_t)i;
	}
#endif
}

/*
 * The fields of the columns up to r->ncols, from the line's @ncut comma
 * offsets @cut: column c runs from after comma c - 1 (or the line's start)
 * to comma c (or the line's end, @len).  Columns past r->ncols are not
 * split off (a last needed column runs to the next comma).
 * Return: the columns split (fewer than r->ncols when the line is short).
 */
static inline __attribute__((always_inline)) unsigned cut_fields(const struct rmm_reader *r, const char *line,
								  size_t len, const uint32_t *cut, unsigned ncut,
								  struct field *f, bool plain)
{
	unsigned ncols = plain ? COL_COUNT - 1 : r->ncols;
	unsigned n = ncut < ncols ? ncut + 1 : ncols;
	size_t start = 0;

	if (plain && ncut >= ncols - 1) {
		/* The usual line, every column there: the loop below written
		 * out (column c has role c + 1), less the thread's column,
		 * which is not used. */
		size_t c0 = cut[0], c1 = cut[1], c2 = cut[2], c3 = cut[3], c4 = cut[4];

		f[COL_TIME] = (struct field){ line + c0 + 1, c1 - c0 - 1 };
		f[COL_ACTION] = (struct field){ line + c1 + 1, c2 - c1 - 1 };
		f[COL_POINTER] = (struct field){ line + c2 + 1, c3 - c2 - 1 };
		f[COL_SIZE] = (struct field){ line + c3 + 1, c4 - c3 - 1 };
		f[COL_STREAM] = (struct field){ line + c4 + 1, (ncut > 5 ? cut[5] : len) - c4 - 1 };
		return ncols;
	}
	for (unsigned c = 0; c < n; c++) {
		size_t end = c < ncut ? cut[c] : len;

		/* Column c has role c + 1 under the usual header; f[0] takes
		 * the columns not needed. */
		f[plain ? c + 1 : r->role[c]] = (struct field){ line + start, end - start };
		start = end + 1;
	}
	return n;
}

#if defined(__SSE2__) && defined(__x86_64__)
/* Bit i set when byte i of the 64 at @p is @c. */
static inline uint64_t mask64(const char *p, __m128i c)
{
	uint64_t m0 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), c));
	uint64_t m1 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), c));
	uint64_t m2 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), c));
	uint64_t m3 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), c));

	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

/*
 * The usual line under the usual header in one step, without next_line's
 * loop and comma array: the 64 bytes at the read position hold the line's
 * newline (not the sentinel) and at least five commas before it.  The
 * commas are taken from the mask in straight-line code, and @f gets the
 * fields cut_fields() gives the same line.  Return: false, with nothing
 * consumed, when the line is not that (longer, fewer commas, not whole in
 * the buffer): next_line() then reads it.  Bytes up to 64 past the read
 * position are read (RMM_BUF_PAD).
 */
static inline __attribute__((always_inline)) bool plain_line(struct rmm_reader *r, struct field *f)
{
	const char *p = r->buf + r->start;
	uint64_t e = mask64(p, _mm_set1_epi8('\n')), c, m1, m2, m3, m4, m5;
	size_t len, c0, c1, c2, c3, c4;

	if (!e)
		return false;
	len = (size_t)__builtin_ctzll(e);
	if (r->start + len >= r->end)
		return false; /* the sentinel: the line goes on past the data */
	c = mask64(p, _mm_set1_epi8(',')) & ((e & -e) - 1);
	m1 = c & (c - 1);
	m2 = m1 & (m1 - 1);
	m3 = m2 & (m2 - 1);
	m4 = m3 & (m3 - 1);
	if (!m4)
		return false; /* fewer than five commas */
	m5 = m4 & (m4 - 1);
	c0 = (size_t)__builtin_ctzll(c);
	c1 = (size_t)__builtin_ctzll(m1);
	c2 = (size_t)__builtin_ctzll(m2);
	c3 = (size_t)__builtin_ctzll(m3);
	c4 = (size_t)__builtin_ctzll(m4);
	f[COL_TIME] = (struct field){ p + c0 + 1, c1 - c0 - 1 };
	f[COL_ACTION] = (struct field){ p + c1 + 1, c2 - c1 - 1 };
	f[COL_POINTER] = (struct field){ p + c2 + 1, c3 - c2 - 1 };
	f[COL_SIZE] = (struct field){ p + c3 + 1, c4 - c3 - 1 };
	f[COL_STREAM] = (struct field){ p + c4 + 1, (m5 ? (size_t)__builtin_ctzll(m5) : len) - c4 - 1 };
	r->start += len + 1;
	r->lineno++;
	return true;
}
#endif

/* Return: 1 a line, 0 end of file, -1 error. */
static int get_line(struct rmm_reader *r, const char **line, size_t *len)
{
	char *p = memchr(r->buf + r->start, '\n', r->end - r->start);

	if (!p)
		return get_line_refill(r, line, len);
	*line = r->buf + r->start;
	*len = (size_t)(p - *line);
	r->start = (size_t)(p - r->buf) + 1;
	r->lineno++;
	return 1;
}

/*
 * get_line(), and the offsets of the line's commas (scan_line) in @cut
 * (RMM_MAX_COLS + 32 of them).  Inline: the common case is one scan_line
 * over the buffer, whose newline is not the sentinel; a line the buffer
 * does not hold whole goes through get_line_refill() and is then scanned.
 */
static inline int next_line(struct rmm_reader *r, const char **line, size_t *len, uint32_t *cut, unsigned *ncut)
{
	const char *p = r->buf + r->start;
	int rc;

	*len = scan_line(p, r->ncols, cut, ncut);
	if (r->start + *len < r->end) {
		*line = p;
		r->start += *len + 1;
		r->lineno++;
		return 1;
	}
	rc = get_line_refill(r, line, len);
	if (rc > 0)
		(void)scan_line(*line, r->ncols, cut, ncut); /* ends at *len: a newline or the sentinel */
	return rc;
}

/* Trims @f as the format says: when it ends with CR or a space or begins
 * with a space.  Return: whether that applied. */
static inline bool retrim(struct field *f)
{
	if (!f->n || (f->p[f->n - 1] != '\r' && f->p[0] != ' ' && f->p[f->n - 1] != ' '))
		return false;
	trim(f);
	return true;
}

/* The event kind that action @f names.  Return: false when none. */
static inline bool action_kind(struct field f, enum hs_rev_kind *kind)
{
	switch (f.n) {
	case 8:
		*kind = HS_REV_ALLOC;
		return memcmp(f.p, "allocate", 8) == 0;
	case 4:
		*kind = HS_REV_FREE;
		return memcmp(f.p, "free", 4) == 0;
	case 10:
		*kind = HS_REV_FREE;
		return memcmp(f.p, "deallocate", 10) == 0;
	case 16:
		*kind = HS_REV_ALLOC_FAILURE;
		return memcmp(f.p, "allocate failure", 16) == 0;
	default:
		return false;
	}
}

/* rmm_reader.by_word's slot for a name's word: its top bits after a
 * multiply that mixes every byte into them. */
static inline unsigned word_slot(uint64_t w)
{
	return (unsigned)((w * 0x9e3779b97f4a7c15ull) >> 60);
}

/* Stream @i was named by @f (word @w): remembered in the caches. */
static inline uint32_t stream_seen(struct rmm_reader *r, struct field f, uint64_t w, uint32_t i)
{
	r->last_stream = i;
	if (f.n <= 8)
		r->by_word[word_slot(w)] = i + 1;
	return i;
}

/* The stream named by @f: its index, creating it (and reporting so) if new. */
static int lookup_stream(struct rmm_reader *r, struct field f, uint32_t *index, int *created)
{
	struct rmm_stream *s;
	uint64_t h, v, w = 0;

	*created = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (f.n <= 8) {
		uint32_t i;

		w = low_bytes(f.p, f.n); /* once, not once per stream compared */
		i = r->by_word[word_slot(w)];
		if (i && same_field(&r->streams[i - 1], f, w)) {
			*index = i - 1;
			return 0;
		}
	}
#endif
	if (r->nstreams) {
		s = &r->streams[r->last_stream];
		if (same_field(s, f, w)) {
			*index = stream_seen(r, f, w, r->last_stream);
			return 0;
		}
	}
	/* Traces name few streams and often alternate between them: a short
	 * scan beats hashing the text. */
	if (r->nstreams <= RMM_SCAN_STREAMS)
		for (uint32_t i = 0; i < r->nstreams; i++) {
			s = &r->streams[i];
			if (same_field(s, f, w)) {
				*index = stream_seen(r, f, w, i);
				return 0;
			}
		}
	h = fnv1a(f.p, f.n);
	if (hs_idmap_get(&r->stream_by_hash, h, &v)) {
		s = &r->streams[v];
		if (s->len != f.n || memcmp(s->text, f.p, f.n) != 0)
			return fail(r, "two stream names with one hash: '%.*s'", (int)f.n, f.p);
		*index = stream_seen(r, f, w, (uint32_t)v);
		return 0;
	}
	if (r->nstreams == HS_REV_MAX_STREAMS)
		return fail(r, "stream '%.*s' is the trace's %uth: hipsim replays at most %u streams "
			    "(libhipcore opens at most %u per device)",
			    (int)(f.n > 64 ? 64 : f.n), f.p, HS_REV_MAX_STREAMS + 1, HS_REV_MAX_STREAMS,
			    HS_REV_MAX_STREAMS);
	if (r->nstreams == r->capstreams) {
		uint32_t cap = r->capstreams ? r->capstreams * 2 : 8;
		struct rmm_stream *n = realloc(r->streams, cap * sizeof(*n));

		if (!n)
			return fail(r, "out of memory");
		r->streams = n;
		r->capstreams = cap;
	}
	s = &r->streams[r->nstreams];
	s->text = malloc(f.n + 1);
	if (!s->text)
		return fail(r, "out of memory");
	memcpy(s->text, f.p, f.n);
	s->text[f.n] = 0;
	s->len = f.n;
	s->word = 0;
	memcpy(&s->word, s->text, f.n < 8 ? f.n : 8);
	if (parse_ptr(f.p, f.n, &s->id) != NUM_OK || f.n == 0)
		s->id = h;
	if (hs_idmap_put(&r->stream_by_hash, h, r->nstreams) != 0) {
		free(s->text);
		return fail(r, "out of memory");
	}
	*index = stream_seen(r, f, w, r->nstreams++);
	*created = 1;
	return 0;
}

static int num_error(struct rmm_reader *r, int rc, const char *what, struct field f)
{
	switch (rc) {
	case NUM_OVERFLOW:
		return fail(r, "%s '%.*s' overflows 64 bits", what, (int)f.n, f.p);
	case NUM_NEGATIVE:
		return fail(r, "%s '%.*s' is negative", what, (int)f.n, f.p);
	default:
		return fail(r, "%s '%.*s' is not a number", what, (int)f.n, f.p);
	}
}

/*
 * The next line's fields up to the last needed column in @f (trimmed as
 * rmm_next wants them), blank lines skipped: next_line() and cut_fields().
 * Out of line: rmm_next takes plain_line() first, and this path's comma
 * array and loop would otherwise sit in its frame and registers.
 * Return: 1, 0 at the end of the file, -1 on error.
 */
static __attribute__((noinline)) int split_line(struct rmm_reader *r, struct field *f)
{
	for (;;) {
		uint32_t cut[RMM_MAX_COLS + 32];
		const char *line;
		size_t len;
		unsigned col, ncut;
		int rc = next_line(r, &line, &len, cut, &ncut);

		if (rc <= 0)
			return rc;
		if (len == 0 || (len == 1 && line[0] == '\r'))
			continue;
		/* Split up to the last needed column. */
		col = r->plain_header ? cut_fields(r, line, len, cut, ncut, f, true)
				      : cut_fields(r, line, len, cut, ncut, f, false);
		if (col < r->ncols)
			return fail(r, "truncated line (%u of %u fields)", col, r->ncols);
		/* Fields are trimmed lazily (retrim): a field that parses as it
		 * stands holds no space or CR, so trimming would not change it.
		 * The stream's text is not parsed: trimmed here.  The thread
		 * column is not used. */
		retrim(&f[COL_STREAM]);
		return 1;
	}
}

static int rmm_next(struct hs_trace *t, struct hs_rev *ev)
{
	struct rmm_reader *r = (struct rmm_reader *)t;
	struct field f[COL_COUNT];
	uint64_t ptr, size, tm, id;
	enum hs_rev_kind kind;
	uint32_t stream = 0;
	int rc, tod, created;

	if (r->have_pending) {
		r->have_pending = 0;
		*ev = r->pending;
		ev->index = t->events++;
		return 1;
	}
again:
#if defined(__SSE2__) && defined(__x86_64__)
	if (r->plain_header && plain_line(r, f))
		retrim(&f[COL_STREAM]);
	else
#endif
	if ((rc = split_line(r, f)) <= 0)
		return rc;

	if (!action_kind(f[COL_ACTION], &kind) && (!retrim(&f[COL_ACTION]) || !action_kind(f[COL_ACTION], &kind)))
		goto bad_action;
	if ((rc = parse_ptr(f[COL_POINTER].p, f[COL_POINTER].n, &ptr)) != NUM_OK &&
	    (!retrim(&f[COL_POINTER]) || (rc = parse_ptr(f[COL_POINTER].p, f[COL_POINTER].n, &ptr)) != NUM_OK))
		return num_error(r, rc, "pointer", f[COL_POINTER]);
	size = 0;
#if defined(__SSE2__) && defined(__x86_64__)
	if (size_time_plain(f[COL_SIZE], f[COL_TIME], &r->clock, &size, &tm)) {
		tod = 1;
		goto parsed;
	}
#endif
	if ((f[COL_SIZE].n || kind != HS_REV_FREE) &&
	    (rc = parse_size(f[COL_SIZE].p, f[COL_SIZE].n, &size)) != NUM_OK &&
	    (!retrim(&f[COL_SIZE]) ||
	     ((f[COL_SIZE].n || kind != HS_REV_FREE) &&
	      (rc = parse_dec(f[COL_SIZE].p, f[COL_SIZE].n, &size)) != NUM_OK)))
		return num_error(r, rc, "size", f[COL_SIZE]);
	if ((rc = parse_time(f[COL_TIME].p, f[COL_TIME].n, &tm, &tod, &r->clock)) != NUM_OK &&
	    (!retrim(&f[COL_TIME]) ||
	     (rc = parse_time(f[COL_TIME].p, f[COL_TIME].n, &tm, &tod, &r->clock)) != NUM_OK))
		return num_error(r, rc, "time", f[COL_TIME]);
#if defined(__SSE2__) && defined(__x86_64__)
parsed:
#endif
	if (tod) { /* time of day: carry over midnight */
		tm += r->day_offset;
		if (tm + NS_PER_DAY / 2 < r->last_time) {
			r->day_offset += NS_PER_DAY;
			tm += NS_PER_DAY;
		}
		r->last_time = tm;
	}

	id = 0;
	if (kind == HS_REV_ALLOC) {
		if (ptr == 0)
			goto again; /* allocating nothing: not an event */
		uint64_t want = r->nfree ? r->free_ids[r->nfree - 1] : r->next_buffer + 1;

		rc = hs_idmap_insert(&r->ptrs, ptr, want, &id);
		if (rc < 0)
			return fail(r, "out of memory");
		if (rc > 0) { /* else live already: id is its buffer, allocated again */
			id = want;
			if (r->nfree)
				r->nfree--;
			else
				r->next_buffer++;
		}
	} else if (kind == HS_REV_FREE) {
		if (ptr == 0)
			goto again; /* free(nullptr) */
		if (!hs_idmap_take(&r->ptrs, ptr, &id)) {
			id = 0; /* not live: a free of buffer 0, which never is */
			goto freed;
		}
		if (r->nfree == r->capfree) {
			size_t cap = r->capfree ? r->capfree * 2 : 256;
			uint64_t *n = realloc(r->free_ids, cap * sizeof(*n));

			if (!n)
				return fail(r, "out of memory");
			r->free_ids = n;
			r->capfree = cap;
		}
		r->free_ids[r->nfree++] = id;
	}
freed:
	if (lookup_stream(r, f[COL_STREAM], &stream, &created) != 0)
		return -1;

	ev->kind = kind;
	ev->stream = stream;
	ev->stream_id = r->streams[stream].id;
	ev->buffer = id;
	ev->offset = 0;
	ev->size = size;
	ev->property = 0;
	ev->time_ns = tm;
	ev->duration_ns = 0;
	ev->graph = 0;
	ev->info_words = 0;
	ev->info_cache = 0;
	ev->info_key = 0;
	ev->n_bindings = 0;
	ev->line = r->lineno;
	if (created) { /* announce the stream first */
		r->pending = *ev;
		r->have_pending = 1;
		ev->kind = HS_REV_STREAM_CREATE;
		ev->buffer = 0;
		ev->size = 0;
	}
	ev->index = t->events++;
	return 1;

bad_action:
	return fail(r, "unknown action '%.*s'", (int)f[COL_ACTION].n, f[COL_ACTION].p);
}

static void rmm_close(struct hs_trace *t)
{
	struct rmm_reader *r = (struct rmm_reader *)t;

	if (r->gz)
		gzclose_r(r->gz);
	for (uint32_t i = 0; i < r->nstreams; i++)
		free(r->streams[i].text);
	free(r->streams);
	hs_idmap_free(&r->ptrs);
	free(r->free_ids);
	hs_idmap_free(&r->stream_by_hash);
	free(r->buf);
	free(r->path);
	free(r);
}

size_t hs_rmm_memory_bytes(const struct hs_trace *t)
{
	const struct rmm_reader *r = (const struct rmm_reader *)t;
	size_t n = sizeof(*r) + RMM_BUF_SIZE + RMM_BUF_PAD + r->capfree * sizeof(uint64_t) + hs_idmap_bytes(&r->ptrs) + hs_idmap_bytes(&r->stream_by_hash) +
		   r->capstreams * sizeof(*r->streams);

	for (uint32_t i = 0; i < r->nstreams; i++)
		n += r->streams[i].len + 1;
	return n;
}

/* The first bytes of a line that is not a header, printable, for a message. */
static void excerpt(const char *line, size_t len, char *buf, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < cap && i < 40; i++)
		buf[n++] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
	buf[n] = '\0';
}

/* The header: @r's columns, or -1 with @err set (what @sniff says it means). */
static int read_header(struct rmm_reader *r, bool sniff, char *err, size_t errlen)
{
	const char *name = r->path, *gz = "", *line;
	char seen[48];
	size_t len;
	unsigned found;
	int rc = get_line(r, &line, &len);

	if (r->gzip)
		gz = " (gzip)";
	if (rc < 0 && !(sniff && strstr(r->base.error, "line longer"))) {
		snprintf(err, errlen, "%s", r->base.error);
		return -1;
	}
	if (rc < 0) { /* not lines of text */
		snprintf(err, errlen,
			 "%s%s: unknown trace format: not a directory of CTF traces, and its first %u bytes hold no "
			 "line end (an RMM CSV begins with its header line); try --format",
			 name, gz, RMM_BUF_SIZE);
		return -1;
	}
	if (rc == 0) {
		snprintf(err, errlen, "%s:1: empty file (no header)%s", name,
			 r->gzip ? "; the gzip data decompresses to nothing" : "");
		return -1;
	}
	if (len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) /* a UTF-8 byte-order mark */
		line += 3, len -= 3;
	found = parse_header(line, len, r->role, &r->ncols);
	if (found == ALL_COLS)
		return 0;
	excerpt(line, len, seen, sizeof(seen));
	if (sniff && found == 0) {
		snprintf(err, errlen,
			 "%s%s: unknown trace format: not a directory of CTF traces, and its first line ('%s%s') "
			 "is not an RMM header Thread,Time,Action,Pointer,Size,Stream; try --format",
			 name, r->gzip ? " (gzip, decompressed)" : "", seen, len > 40 ? "..." : "");
		return -1;
	}
	{
		char miss[96] = "";

		for (int c = 1; c < COL_COUNT; c++)
			if (!(found & (1u << c)))
				snprintf(miss + strlen(miss), sizeof(miss) - strlen(miss), "%s%s", *miss ? ", " : "",
					 col_names[c]);
		snprintf(err, errlen, "%s:1: header lacks column(s) %s (want Thread,Time,Action,Pointer,Size,Stream)%s",
			 name, miss, gz);
	}
	return -1;
}

int hs_rmm_open_fd(int fd, const char *name, bool sniff, struct hs_trace **out, char *err, size_t errlen)
{
	struct rmm_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->buf = calloc(1, RMM_BUF_SIZE + RMM_BUF_PAD)) || !(r->path = strdup(name))) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto err;
	}
	r->base.next = rmm_next;
	r->base.close = rmm_close;
	r->base.path = r->path;
	r->base.format = "rmm";
	hs_idmap_init(&r->ptrs);
	hs_idmap_init(&r->stream_by_hash);
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto err;
	}
	fd = -1; /* zlib's now */
	if (read_header(r, sniff, err, errlen) != 0)
		goto err;
	r->plain_header = r->ncols == COL_COUNT - 1;
	for (unsigned c = 0; c < r->ncols; c++)
		r->plain_header &= r->role[c] == c + 1;
	*out = &r->base;
	return 0;

err:
	if (r && r->buf && r->path) {
		rmm_close(&r->base);
	} else if (r) {
		free(r->buf);
		free(r);
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

int hs_rmm_open(const char *path, struct hs_trace **out, char *err, size_t errlen)
{
	int fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return hs_rmm_open_fd(fd, path, false, out, err, errlen);
}
