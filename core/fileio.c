/*
 * fileio — whole-file reads and atomic writes (temp file + fsync + rename).
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

/* Read all of path. */
char *
pl_file_read(const char *path, size_t *len, char **cause)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		*cause = pl_xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = pl_xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = pl_xreallocarray(buf, cap, 1);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		*cause = pl_xasprintf("%s: read error: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

/* Create the temporary file that will replace path (its name in *tmp);
 * the descriptor, or -1 + *cause. */
static int
open_temp(const char *path, char **tmp, char **cause)
{
	*tmp = pl_xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		*cause = pl_xasprintf("%s: cannot create a temporary file: %s", path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

/* Check that path can be written atomically: not a directory, and its
 * directory takes a new file (one is created and removed). */
int
pl_file_check_writable(const char *path, char **cause)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		*cause = pl_xasprintf("%s: is a directory (expected a file name)", path);
		return -1;
	}
	char *tmp;
	int fd = open_temp(path, &tmp, cause);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

/* Write data to path through a temporary file and rename. */
int
pl_file_write_atomic(const char *path, const void *data, size_t len, char **cause)
{
	char *tmp;
	int fd = open_temp(path, &tmp, cause);
	if (fd < 0)
		return -1;
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) != 0 || fchmod(fd, 0644) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	*cause = pl_xasprintf("%s: write failed: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

/* 1-based line and column of a byte offset. */
void
pl_text_position(const char *text, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}
