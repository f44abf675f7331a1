/*
 * output.c - output files opened first and closed with their errors
 * checked (output.h).
 *
 * stdio buffers what it writes, so a full disk usually shows only at the
 * flush in fclose(): that is where an unchecked close loses it.  Each
 * close here flushes, looks at the stream's error flag (a failed earlier
 * write), then closes, and the first failure is reported with its errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/hipsim/output.h"

int hs_output_open(struct hs_output *o, const char *cmd, const char *what, const char *path,
		   bool allow_stdout, bool keep_until_written)
{
	struct stat sb;
	int fd, flags = O_WRONLY | O_CREAT | O_CLOEXEC;

	*o = (struct hs_output){ .path = path, .cmd = cmd };
	if (allow_stdout && strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->created = stat(path, &sb) != 0;
	if (!o->created && S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "hipsim %s: %s: cannot write '%s': Is a directory\n", cmd, what, path);
		return -1;
	}
	o->replace = keep_until_written && (o->created || S_ISREG(sb.st_mode));
	if (!o->replace)
		flags |= O_TRUNC;
	fd = open(path, flags, 0666);
	if (fd < 0) {
		fprintf(stderr, "hipsim %s: %s: cannot write '%s': %s\n", cmd, what, path,
			strerror(errno));
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		fprintf(stderr, "hipsim %s: %s: cannot write '%s': %s\n", cmd, what, path,
			strerror(errno));
		close(fd);
		if (o->created)
			unlink(path);
		return -1;
	}
	return 0;
}

int hs_output_begin(struct hs_output *o)
{
	if (!o->replace)
		return 0;
	if (ftruncate(fileno(o->f), 0) != 0) {
		fprintf(stderr, "hipsim %s: writing '%s' failed: %s\n", o->cmd, o->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Flushes @f and says whether every write to it succeeded: 0, or an errno
 * (EIO when only the error flag says so, its errno long gone). */
static int flush_error(FILE *f)
{
	if (fflush(f) != 0)
		return errno ? errno : EIO;
	return ferror(f) ? EIO : 0;
}

int hs_output_close(struct hs_output *o)
{
	int err;

	if (!o->f)
		return 0;
	err = flush_error(o->f);
	if (o->f == stdout) {
		o->f = NULL;
		if (!err)
			return 0;
		fprintf(stderr, "hipsim %s: writing standard output failed: %s\n", o->cmd,
			strerror(err));
		return -1;
	}
	if (fclose(o->f) != 0 && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err)
		return 0;
	fprintf(stderr, "hipsim %s: writing '%s' failed: %s\n", o->cmd, o->path, strerror(err));
	return -1;
}

void hs_output_abort(struct hs_output *o)
{
	if (!o->f)
		return;
	if (o->f != stdout) {
		fclose(o->f);
		if (o->created)
			unlink(o->path);
	}
	o->f = NULL;
}

int hs_close_stdout(void)
{
	bool pending = __fpending(stdout) != 0, failed = ferror(stdout) != 0;
	int err = 0;

	errno = 0;
	if (fflush(stdout) != 0)
		err = errno ? errno : EIO;
	else if (failed)
		err = EIO;
	if (fclose(stdout) != 0 && !err && (pending || errno != EBADF))
		err = errno ? errno : EIO;
	if (!err)
		return 0;
	fprintf(stderr, "hipsim: write error on standard output: %s\n", strerror(err));
	return -1;
}
