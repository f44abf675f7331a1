/*
 * ctf_files.c - checks of a CTF trace directory's files (ctf_files.h).
 *
 * Formats read, as LTTng 2.x writes them:
 *  - packetized metadata: packets that each begin with a 37-byte header,
 *    magic 0x75D11D57 (its byte order is the trace's), 16 bytes of UUID, a
 *    checksum, then the content and packet sizes in bits (u32 each), then
 *    five bytes of schemes and version.  Metadata in plain text (CTF 1.8's
 *    other form) has no packets and nothing to check here.
 *  - the packet index index/NAME.idx: a 16-byte header (magic 0xC1F1DCC1,
 *    major, minor, the size of one entry; big-endian u32s), then one entry
 *    per packet of NAME beginning with its offset in bytes and its size in
 *    bits (big-endian u64s).
 * Only sizes are read; a file this code cannot read is left to
 * libbabeltrace2, which has the final word on everything else.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/hipsim/ctf_files.h"

#define META_MAGIC 0x75D11D57u
#define META_HEADER 37
#define INDEX_MAGIC 0xC1F1DCC1u
#define INDEX_HEADER 16
#define INDEX_ENTRY_MIN 16 /* offset and packet size are all this reads */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Reads @n bytes at @off.  Return: whether all were there. */
static bool read_at(int fd, uint64_t off, void *buf, size_t n)
{
	ssize_t got;

	do
		got = pread(fd, buf, n, (off_t)off);
	while (got < 0 && errno == EINTR);
	return got == (ssize_t)n;
}

/* Walks the metadata's packets.  Return: 0, or -1 with @err set. */
static int check_metadata(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	unsigned char h[META_HEADER];
	struct stat st;
	uint64_t off = 0, size;
	uint32_t (*u32)(const unsigned char *);
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return 0; /* libbabeltrace2 says what is wrong with it */
	}
	size = (uint64_t)st.st_size;
	if (size < 4 || !read_at(fd, 0, h, 4) || (be32(h) != META_MAGIC && le32(h) != META_MAGIC))
		goto out; /* plain-text metadata */
	u32 = be32(h) == META_MAGIC ? be32 : le32;
	while (off < size) {
		uint64_t content, packet;

		if (size - off < META_HEADER || !read_at(fd, off, h, sizeof(h))) {
			snprintf(err, errlen, "%s: cut short: %" PRIu64 " bytes at byte %" PRIu64
				 ", less than a packet header (a truncated file)", path, size - off, off);
			goto bad;
		}
		if (u32(h) != META_MAGIC) {
			snprintf(err, errlen, "%s: no packet magic at byte %" PRIu64 " (the packet before it is "
				 "damaged, or the file was cut and joined)", path, off);
			goto bad;
		}
		content = u32(h + 24) / 8;
		packet = u32(h + 28) / 8;
		if (content < META_HEADER || packet < content) {
			snprintf(err, errlen, "%s: the packet at byte %" PRIu64 " claims %" PRIu64
				 " bytes of content in %" PRIu64 " (impossible: damaged)", path, off, content, packet);
			goto bad;
		}
		if (content > size - off) {
			snprintf(err, errlen, "%s: cut short: the packet at byte %" PRIu64 " holds %" PRIu64
				 " bytes, the file has %" PRIu64 " after it (a truncated file)", path, off, content,
				 size - off);
			goto bad;
		}
		off += packet;
	}
	goto out;
bad:
	rc = -1;
out:
	close(fd);
	return rc;
}

/* Counts a lost stream file; the first one's @what is kept. */
static void note_damage(struct hs_ctf_files *f, const char *what)
{
	if (!f->damaged++)
		snprintf(f->damage, sizeof(f->damage), "%s", what);
}

/* index/@idx of stream @name: missing or cut-short stream files, and the
 * largest packet.  Return: 0, or -1 with @err set (cut short). */
static int check_index(const char *dir, const char *idx, struct hs_ctf_files *f, char *err, size_t errlen)
{
	char path[4096], name[256];
	unsigned char h[INDEX_HEADER], e[INDEX_ENTRY_MIN];
	uint64_t end = 0, n, entry;
	struct stat st, ss;
	size_t len = strlen(idx);
	int fd, rc = 0;

	if (len <= 4 || strcmp(idx + len - 4, ".idx") != 0 || len - 4 >= sizeof(name))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)(len - 4), idx);
	snprintf(path, sizeof(path), "%s/index/%s", dir, idx);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !read_at(fd, 0, h, sizeof(h)) || be32(h) != INDEX_MAGIC ||
	    be32(h + 12) < INDEX_ENTRY_MIN)
		goto out; /* not an index this code knows: libbabeltrace2's to judge */
	entry = be32(h + 12);
	n = ((uint64_t)st.st_size - INDEX_HEADER) / entry;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t bytes;

		if (!read_at(fd, INDEX_HEADER + i * entry, e, sizeof(e)))
			break;
		bytes = be64(e + 8) / 8;
		if (bytes > f->max_packet_bytes)
			f->max_packet_bytes = bytes;
		if (be64(e) + bytes > end)
			end = be64(e) + bytes;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &ss) != 0) {
		char what[sizeof(f->damage)];

		snprintf(what, sizeof(what), "%.300s is missing (index/%s lists its packets): its events are lost",
			 path, idx);
		note_damage(f, what);
		goto out;
	}
	if ((uint64_t)ss.st_size < end && ss.st_size > 0) {
		snprintf(err, errlen, "%s: cut short: %" PRIu64 " bytes, its index (index/%s) lists packets up to "
			 "byte %" PRIu64 " (a truncated file)", path, (uint64_t)ss.st_size, idx, end);
		rc = -1;
	}
out:
	close(fd);
	return rc;
}

int hs_ctf_check_dir(const char *dir, struct hs_ctf_files *f, char *err, size_t errlen)
{
	char path[4096];
	struct dirent *e;
	DIR *d;

	if (check_metadata(dir, err, errlen) != 0)
		return -1;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st, is;
		uint64_t size;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "metadata") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		size = (uint64_t)st.st_size;
		if (size == 0) {
			char what[sizeof(f->damage)];

			snprintf(what, sizeof(what), "%.300s is empty (0 bytes): its events are lost", path);
			note_damage(f, what);
		}
		/* Without an index, the file's size bounds its packets. */
		snprintf(path, sizeof(path), "%s/index/%s.idx", dir, e->d_name);
		if (stat(path, &is) != 0 && size > f->max_packet_bytes)
			f->max_packet_bytes = size;
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/index", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && check_index(dir, e->d_name, f, err, errlen) != 0) {
			closedir(d);
			return -1;
		}
	closedir(d);
	return 0;
}
