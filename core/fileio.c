/*
 * fileio — whole-file reads and atomic writes (temp file + fsync + rename),
 * and whether two paths name one file.
 *
 * Invariant: every temporary file this process has open is noted in
 * temp_name[] from its creation until it is renamed or removed, so that a
 * signal that ends the process (temp_on_signal(), or a command's handler
 * through pl_file_remove_temps()) leaves none behind.
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

/* Read all of path, up to max bytes. */
char *
pl_file_read_max(const char *path, size_t max, size_t *len, char **cause)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		*cause = pl_xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	/* a regular file's size says at once; a device or pipe is read up to
	 * one byte past max */
	struct stat st;
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
		goto too_big;
	buf = pl_xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {	/* (room for one byte past the most) */
			cap = cap < max ? 2 * cap : max + 2;
			buf = pl_xreallocarray(buf, cap, 1);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
		if (n > max)
			goto too_big;
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
too_big:
	*cause = pl_xasprintf("%s: more than %zu MiB (too large for an input file)", path, max >> 20);
	fclose(f);
	free(buf);
	return NULL;
}

/* Read all of path, up to PL_FILE_READ_MAX. */
char *
pl_file_read(const char *path, size_t *len, char **cause)
{
	return pl_file_read_max(path, PL_FILE_READ_MAX, len, cause);
}

/* The folder of a path: "." without a slash, "/" for a file at the
 * root.  Caller frees. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash == NULL ? pl_xstrdup(".") :
	    slash == path ? pl_xstrdup("/") : pl_xstrndup(path, (size_t)(slash - path));
}

/*
 * The temporary files this process has open (their names, in fixed
 * buffers a signal handler may read), so that a signal that ends it
 * removes them (pl_file_remove_temps()).  A slot is FREE, USED (its name
 * written before the mark) or DYING (a handler took it: it is removed,
 * and kept so, as the process ends); it is marked free only after its
 * file was renamed or removed, and only from USED, so a handler and a
 * writer never both own one.  A name may outlive its file for a moment,
 * and unlinking a name no longer there does nothing.  Slots are taken
 * and freed under temp_lock (the explorer writes from several threads;
 * the handler takes no lock, it swaps the atomic marks), and a file made
 * after a handler began (temps_dying) is removed by its maker; beyond
 * TEMP_SLOTS
 * at once (never, in practice) a temporary file is not removed on a
 * signal.  While any is held, the fatal signals whose action is the
 * default get temp_on_signal(), which removes them and dies of the signal
 * as the default action would.
 */
#define TEMP_SLOTS 16
enum { TEMP_FREE, TEMP_USED, TEMP_DYING };
static char temp_name[TEMP_SLOTS][PATH_MAX];
static atomic_int temp_used[TEMP_SLOTS];
static atomic_int temps_dying;		/* a handler removes them: the end */
static int temps_held;
static pthread_mutex_t temp_lock = PTHREAD_MUTEX_INITIALIZER;
static const int temp_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define TEMP_SIGS ((int)(sizeof temp_sigs / sizeof temp_sigs[0]))
static unsigned char temp_sig_ours[TEMP_SIGS];

/* Remove every temporary file held (see fileio.h): async-signal-safe. */
void
pl_file_remove_temps(void)
{
	int saved = errno;
	atomic_store(&temps_dying, 1);
	for (int i = 0; i < TEMP_SLOTS; i++) {
		int used = TEMP_USED;
		if (atomic_compare_exchange_strong(&temp_used[i], &used, TEMP_DYING))
			unlink(temp_name[i]);
	}
	errno = saved;
}

/* Die of sig (see fileio.h): async-signal-safe. */
void
pl_file_die_of(int sig)
{
	pl_file_remove_temps();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);
}

/* A fatal signal while temporary files are held: remove them, then die
 * of the signal (it is blocked here, so it comes when this returns, with
 * its default action). */
static void
temp_on_signal(int sig)
{
	pl_file_die_of(sig);
}

/* The fatal signals blocked in this thread (their old mask in *old). */
static void
temp_block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (int i = 0; i < TEMP_SIGS; i++)
		sigaddset(&set, temp_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Note temporary file name as held (signals blocked by the caller); the
 * first one held installs temp_on_signal() where the action is the
 * default. */
static void
temp_note(const char *name)
{
	size_t n = strlen(name);
	pthread_mutex_lock(&temp_lock);
	for (int i = 0; i < TEMP_SLOTS && n < PATH_MAX; i++)
		if (atomic_load(&temp_used[i]) == TEMP_FREE) {
			memcpy(temp_name[i], name, n + 1);
			atomic_store(&temp_used[i], TEMP_USED);
			break;
		}
	if (atomic_load(&temps_dying))	/* made after a handler's sweep */
		unlink(name);
	if (temps_held++ > 0) {
		pthread_mutex_unlock(&temp_lock);
		return;
	}
	for (int i = 0; i < TEMP_SIGS; i++) {
		struct sigaction old, sa;
		if (sigaction(temp_sigs[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = temp_on_signal;
		sigemptyset(&sa.sa_mask);
		for (int k = 0; k < TEMP_SIGS; k++)
			sigaddset(&sa.sa_mask, temp_sigs[k]);
		temp_sig_ours[i] = sigaction(temp_sigs[i], &sa, NULL) == 0;
	}
	pthread_mutex_unlock(&temp_lock);
}

/* Create a temporary file from tmpl and note it as held (see fileio.h). */
int
pl_file_mkstemps(char *tmpl, int suffixlen)
{
	sigset_t old;
	temp_block(&old);
	int fd = mkstemps(tmpl, suffixlen);
	int err = errno;
	if (fd >= 0)
		temp_note(tmpl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return fd;
}

/* Forget temporary file name (renamed or removed); the last one held
 * gives the signals temp_note() caught their default action back. */
void
pl_file_temp_done(const char *name)
{
	sigset_t old;
	temp_block(&old);
	pthread_mutex_lock(&temp_lock);
	int found = 0;
	for (int i = 0; i < TEMP_SLOTS && !found; i++)
		if (atomic_load(&temp_used[i]) == TEMP_USED && strcmp(temp_name[i], name) == 0) {
			int used = TEMP_USED;	/* (a handler may have it now) */
			atomic_compare_exchange_strong(&temp_used[i], &used, TEMP_FREE);
			found = 1;
		}
	if (temps_held > 0 && --temps_held == 0)
		for (int i = 0; i < TEMP_SIGS; i++) {
			struct sigaction cur, sa;
			if (!temp_sig_ours[i])
				continue;
			temp_sig_ours[i] = 0;
			if (sigaction(temp_sigs[i], NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
			    cur.sa_handler != temp_on_signal)
				continue;	/* another handler since: left alone */
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = SIG_DFL;
			sigemptyset(&sa.sa_mask);
			sigaction(temp_sigs[i], &sa, NULL);
		}
	pthread_mutex_unlock(&temp_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Remove temporary file name and forget it (see fileio.h). */
void
pl_file_temp_remove(const char *name)
{
	int saved = errno;
	unlink(name);
	pl_file_temp_done(name);
	errno = saved;
}

/* Rename temporary file tmp over target and forget it: rename()'s
 * result, errno kept. */
static int
temp_rename(const char *tmp, const char *target)
{
	int rc = rename(tmp, target), saved = errno;
	if (rc == 0)
		pl_file_temp_done(tmp);
	errno = saved;
	return rc;
}

/* How a message names the file a write to path replaces: path (as
 * pl_file_shown() says it), and when path is a symbolic link,
 * "PATH (a link to TARGET)".  Caller frees. */
static char *
named(const char *path, const char *target)
{
	struct stat st;
	if (strcmp(path, target) != 0 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return pl_xasprintf("%s (a link to %s)", pl_file_shown(path), target);
	return pl_xstrdup(pl_file_shown(path));
}

/* Create the temporary file that will replace target, the file a write
 * to path replaces (its name in *tmp): in target's folder, named after
 * it, the name shortened to fit the longest name a folder takes; the
 * descriptor, or -1 + *cause (naming path as given, and the folder when
 * it is missing or not a folder). */
static int
open_temp(const char *path, const char *target, char **tmp, char **cause)
{
	static const char suffix[] = ".tmp.XXXXXX";
	const char *slash = strrchr(target, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash + 1 - target) : 0;
	size_t base = strlen(target) - dirlen, keep = base;
	if (keep > NAME_MAX - (sizeof suffix - 1)) {
		/* a long name: its start, cut before a UTF-8 character */
		keep = NAME_MAX - (sizeof suffix - 1);
		while (keep > 0 && ((unsigned char)target[dirlen + keep] & 0xC0) == 0x80)
			keep--;
	}
	*tmp = pl_xasprintf("%.*s%s", (int)(dirlen + keep), target, suffix);
	int fd = pl_file_mkstemps(*tmp, 0);
	if (fd < 0) {
		int err = errno;
		struct stat ls;
		int link = strcmp(path, target) != 0 && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode);
		char *d = dir_of(target), *shown_d = link ? pl_xstrdup(d) : dir_of(path);
		char *name = named(path, target);
		struct stat ds;
		int exists = stat(d, &ds) == 0, isdir = exists && S_ISDIR(ds.st_mode);
		if (err == ENOENT && !exists)	/* say which folder */
			*cause = pl_xasprintf("%s: cannot create it: the folder %s does not exist", name,
			    shown_d);
		else if (err == ENOTDIR && !isdir)
			*cause = pl_xasprintf("%s: cannot create it: %s is not a folder", name, shown_d);
		else
			*cause = pl_xasprintf("%s: cannot create a file in %s: %s", name, shown_d,
			    strerror(err));
		free(name);
		free(d);
		free(shown_d);
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

/* Most symbolic links followed in turn, as the kernel's limit. */
#define LINK_HOPS 40

/* The file a write to path replaces (see pl_file_write_target()), or NULL
 * with *cause when links loop (or are too many in a chain).  Each link
 * that names a file not made yet is followed in turn, a relative one from
 * the folder of the link that holds it, to the last name in the chain. */
static char *
resolve_target(const char *path, char **cause)
{
	char *cur = pl_xstrdup(path);
	for (int hops = 0;; hops++) {
		char *r = realpath(cur, NULL);
		if (r != NULL) {
			free(cur);
			return r;
		}
		int err = errno;
		struct stat st;
		char buf[PATH_MAX];
		ssize_t n;
		if (err != ELOOP && (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)))
			return cur;	/* not made yet (or not to be reached: said on writing) */
		if (err == ELOOP || hops >= LINK_HOPS) {
			/* what the shell's ">" says; a loop in a folder of the
			 * path as well */
			if (cause != NULL)
				*cause = pl_xasprintf("%s: cannot write to it: %s", pl_file_shown(path),
				    strerror(ELOOP));
			free(cur);
			return NULL;
		}
		if ((n = readlink(cur, buf, sizeof buf - 1)) <= 0)
			return cur;
		buf[n] = '\0';
		const char *slash = strrchr(cur, '/');
		char *next = buf[0] == '/' || slash == NULL ? pl_xstrdup(buf) :
		    pl_xasprintf("%.*s/%s", (int)(slash - cur), cur, buf);	/* relative to the link */
		free(cur);
		cur = next;
	}
}

/* The file a write to path replaces (see fileio.h). */
char *
pl_file_write_target(const char *path)
{
	char *t = resolve_target(path, NULL);
	return t != NULL ? t : pl_xstrdup(path);
}

/* Whether path names something that exists and is not a regular file or
 * a directory (a device such as /dev/null or /dev/stdout, a FIFO, a
 * socket): written in place, never replaced. */
static int
is_special(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Whether path is a stream (see fileio.h). */
int
pl_file_is_stream(const char *path)
{
	return is_special(path);
}

/* How messages name path (see fileio.h). */
const char *
pl_file_shown(const char *path)
{
	if (strcmp(path, "/dev/stdout") == 0)
		return "standard output";
	if (strcmp(path, "/dev/stderr") == 0)
		return "standard error";
	return path;
}

/* The descriptor of this process that path names (/dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1. */
static int
own_fd(const char *path)
{
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	const char *n = strncmp(path, "/dev/fd/", 8) == 0 ? path + 8 :
	    strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14 : NULL;
	if (n == NULL || *n < '0' || *n > '9')
		return -1;
	char *end;
	long fd = strtol(n, &end, 10);
	return *end == '\0' && fd <= INT_MAX ? (int)fd : -1;
}

/* The descriptor path names when it is one of this process's, open for
 * writing on a regular file for appending (the shell's ">>") or at the
 * file's end (">", after what a shell group wrote there), else -1: such a
 * file is written through it, never replaced by a rename (which would
 * drop what the shell wrote there before and after).  One open at
 * another offset ("3<>saved.json") is not: writing there would overwrite
 * what the file holds. */
static int
held_fd(const char *path)
{
	int fd = own_fd(path);
	struct stat st;
	int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY ||
	    fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	if (!(fl & O_APPEND) && lseek(fd, 0, SEEK_CUR) != st.st_size)
		return -1;
	return fd;
}

/* Where this process's output began in each held descriptor's file (its
 * offset at the first write: the file's size when appending), so that
 * writing the output again (a checkpoint, then the final file) replaces
 * it instead of following it, as a rename would.  Commands write their
 * outputs from one thread. */
#define HELD_FDS 64
static struct {
	dev_t dev;	/* the file, so that a descriptor number reused */
	ino_t ino;	/* for another starts afresh */
	off_t start;
	unsigned char seen;
} held_at[HELD_FDS];

/* Write all of data to fd (a write cut by a signal goes on); 0, or -1
 * with errno set. */
static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Write data through held descriptor fd, in place of what this process
 * wrote to its file before (held_at); stdio's buffers first.  0, or -1
 * with errno set. */
static int
write_held(int fd, const void *data, size_t len)
{
	fflush(NULL);
	struct stat st;
	if (fd < HELD_FDS && fstat(fd, &st) == 0) {
		if (held_at[fd].seen && held_at[fd].dev == st.st_dev &&
		    held_at[fd].ino == st.st_ino) {
			if (ftruncate(fd, held_at[fd].start) != 0 ||
			    lseek(fd, held_at[fd].start, SEEK_SET) < 0)
				return -1;
		} else {
			off_t at = (fcntl(fd, F_GETFL) & O_APPEND) ? st.st_size :
			    lseek(fd, 0, SEEK_CUR);
			if (at < 0)
				return -1;
			held_at[fd].dev = st.st_dev;
			held_at[fd].ino = st.st_ino;
			held_at[fd].start = at;
			held_at[fd].seen = 1;
		}
	}
	return write_all(fd, data, len);
}

/* Write data into special file path in place.  0, or -1 + *cause. */
static int
write_special(const char *path, const void *data, size_t len, char **cause)
{
	int fd = open(path, O_WRONLY | O_NOCTTY);
	if (fd < 0) {
		*cause = pl_xasprintf("%s: cannot open it for writing: %s", pl_file_shown(path),
		    strerror(errno));
		return -1;
	}
	if (write_all(fd, data, len) != 0) {
		*cause = pl_xasprintf("%s: write failed: %s", pl_file_shown(path), strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) != 0) {
		*cause = pl_xasprintf("%s: write failed: %s", pl_file_shown(path), strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether the file that target names exists and may not be written (a
 * read-only file): a write through a temporary file and a rename would
 * replace it all the same, where the shell's ">" is refused.  Says so in
 * *cause, naming path. */
static int
read_only(const char *target, const char *path, char **cause)
{
	if (access(target, F_OK) != 0 || access(target, W_OK) == 0)
		return 0;
	*cause = pl_xasprintf("%s: cannot write to it: %s (it is not replaced)", pl_file_shown(path),
	    strerror(errno));
	return 1;
}

/* Check that path can be written: not a directory, and its directory
 * takes a new file (one is created and removed); a device or FIFO only
 * needs write permission. */
int
pl_file_check_writable(const char *path, char **cause)
{
	struct stat st;
	if (*path == '\0') {
		*cause = pl_xstrdup("\"\": an empty file name (expected the name of a file to write)");
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		*cause = pl_xasprintf("%s: is a directory (expected a file name)", pl_file_shown(path));
		return -1;
	}
	if (held_fd(path) >= 0)
		return 0;
	if (is_special(path)) {
		if (access(path, W_OK) == 0)
			return 0;
		*cause = pl_xasprintf("%s: cannot write to it: %s", pl_file_shown(path), strerror(errno));
		return -1;
	}
	char *target = resolve_target(path, cause), *tmp;
	if (target == NULL)
		return -1;
	if (read_only(target, path, cause)) {
		free(target);
		return -1;
	}
	int fd = open_temp(path, target, &tmp, cause);
	free(target);
	if (fd < 0)
		return -1;
	close(fd);
	pl_file_temp_remove(tmp);
	free(tmp);
	return 0;
}

/* The mode fopen() gives a new file: 0666 less the umask, read from
 * /proc without changing it where it can be (umask() sets it, which
 * another thread creating a file at that moment would see). */
static mode_t
new_file_mode(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (f != NULL) {
		char line[256];
		unsigned m;
		while (fgets(line, sizeof line, f) != NULL)
			if (sscanf(line, "Umask: %o", &m) == 1) {
				fclose(f);
				return 0666 & ~(mode_t)m;
			}
		fclose(f);
	}
	mode_t old = umask(022);
	umask(old);
	return 0666 & ~old;
}

/* Give the temporary file fd, about to replace a file of status st, that
 * file's owner and group where this process may (root may; others may
 * set a group they are in), and its permissions: when neither owner nor
 * group can be kept, the group's permissions are narrowed to those of
 * others, so that no one reads the file who could not before (see
 * fileio.h).  0, or -1 with errno set. */
static int
keep_owner(int fd, const struct stat *st)
{
	mode_t mode = st->st_mode & 07777;
	struct stat now;
	if (fstat(fd, &now) != 0)
		return -1;
	if ((now.st_uid != st->st_uid || now.st_gid != st->st_gid) &&
	    fchown(fd, st->st_uid, st->st_gid) != 0 &&
	    (now.st_gid == st->st_gid || fchown(fd, (uid_t)-1, st->st_gid) != 0)) {
		if (now.st_gid != st->st_gid)
			mode &= ~(mode_t)(070 & ~((mode & 07) << 3));
	}
	return fchmod(fd, mode);	/* after fchown, which clears set-id bits */
}

/* Write data to path through a temporary file and rename; a file that
 * exists keeps its permissions, a new one gets what fopen() would give it
 * (0666 less the umask); a device or FIFO is written in place, and a file
 * this process holds open for writing (/dev/stdout after ">" or ">>")
 * through its descriptor. */
int
pl_file_write_atomic(const char *path, const void *data, size_t len, char **cause)
{
	if (*path == '\0')
		return pl_file_check_writable(path, cause);	/* says why */
	int fd0 = held_fd(path);
	if (fd0 >= 0 && write_held(fd0, data, len) != 0) {
		*cause = pl_xasprintf("%s: write failed: %s", pl_file_shown(path), strerror(errno));
		return -1;
	}
	if (fd0 >= 0)
		return 0;
	if (is_special(path))
		return write_special(path, data, len, cause);
	char *target = resolve_target(path, cause), *tmp;
	if (target == NULL)
		return -1;
	if (read_only(target, path, cause)) {
		free(target);
		return -1;
	}
	struct stat st;
	int exists = stat(target, &st) == 0;
	int fd = open_temp(path, target, &tmp, cause);
	if (fd < 0) {
		free(target);
		return -1;
	}
	if (write_all(fd, data, len) != 0)
		goto fail;
	if (fsync(fd) != 0 || (exists ? keep_owner(fd, &st) : fchmod(fd, new_file_mode())) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (temp_rename(tmp, target) != 0)
		goto fail;
	free(tmp);
	free(target);
	return 0;
fail:
	*cause = pl_xasprintf("%s: write failed: %s", pl_file_shown(path), strerror(errno));
	if (fd >= 0)
		close(fd);
	pl_file_temp_remove(tmp);
	free(tmp);
	free(target);
	return -1;
}

/* Write data to a new file at path (see fileio.h). */
int
pl_file_write_new(const char *path, const void *data, size_t len, char **cause)
{
	char *tmp;
	int fd = open_temp(path, path, &tmp, cause);
	if (fd < 0)
		return -1;
	int rc = -1, err;
	if (write_all(fd, data, len) != 0 || fsync(fd) != 0 || fchmod(fd, new_file_mode()) != 0) {
		err = errno;
		close(fd);
	} else if (close(fd) != 0)
		err = errno;
	else if (link(tmp, path) != 0)
		err = errno;
	else
		rc = err = 0;
	pl_file_temp_remove(tmp);
	free(tmp);
	errno = err;
	if (rc != 0 && err != EEXIST)
		*cause = pl_xasprintf("%s: write failed: %s", pl_file_shown(path), strerror(err));
	return rc;
}

/* Open a growing file (see fileio.h). */
int
pl_grow_open(struct pl_grow *g, const char *path, char **cause)
{
	memset(g, 0, sizeof *g);
	struct stat st;
	int held = held_fd(path), fd2;
	if (held >= 0) {
		/* the shell's file: written at the descriptor's offset (a
		 * copy of it shares that offset), nothing replaced */
		fflush(NULL);
		if ((fd2 = dup(held)) < 0 || (g->f = fdopen(fd2, "w")) == NULL) {
			*cause = pl_xasprintf("%s: cannot write to it: %s", pl_file_shown(path),
			    strerror(errno));
			if (fd2 >= 0)
				close(fd2);
			return -1;
		}
		g->target = pl_xstrdup(path);
		g->shown = pl_xstrdup(pl_file_shown(path));
		return 0;
	}
	char *target = resolve_target(path, cause);
	if (target == NULL)
		return -1;
	if (is_special(path) || stat(target, &st) != 0) {
		/* a device, or a new file: nothing to keep, written in place
		 * (a new file as fopen makes it, under the umask) */
		if ((g->f = fopen(path, "w")) == NULL) {
			*cause = pl_xasprintf("%s: cannot open it for writing: %s", pl_file_shown(path),
			    strerror(errno));
			free(target);
			return -1;
		}
		g->target = target;
		g->shown = pl_xstrdup(pl_file_shown(path));
		return 0;
	}
	if (read_only(target, path, cause)) {
		free(target);
		return -1;
	}
	g->target = target;
	g->shown = pl_xstrdup(pl_file_shown(path));
	g->mode = (int)(st.st_mode & 07777);
	g->uid = st.st_uid;
	g->gid = st.st_gid;
	int fd = open_temp(path, g->target, &g->tmp, cause);
	if (fd < 0 || (g->f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0) {
			*cause = pl_xasprintf("%s: %s", pl_file_shown(path), strerror(errno));
			close(fd);
			pl_file_temp_remove(g->tmp);
		}
		free(g->tmp);
		free(g->target);
		free(g->shown);
		memset(g, 0, sizeof *g);
		return -1;
	}
	return 0;
}

/* Flush (an earlier failed write counts), then, the first time, sync
 * and rename the temporary file over the target. */
int
pl_grow_commit(struct pl_grow *g, char **cause)
{
	if (fflush(g->f) != 0 || ferror(g->f)) {
		if (errno == 0)
			errno = EIO;
		goto fail;
	}
	if (g->tmp == NULL)
		return 0;
	struct stat old;
	memset(&old, 0, sizeof old);
	old.st_mode = (mode_t)g->mode;
	old.st_uid = g->uid;
	old.st_gid = g->gid;
	if (keep_owner(fileno(g->f), &old) != 0 || fsync(fileno(g->f)) != 0 ||
	    temp_rename(g->tmp, g->target) != 0)
		goto fail;
	free(g->tmp);
	g->tmp = NULL;
	return 0;
fail:
	*cause = pl_xasprintf("%s: write failed: %s", g->shown, strerror(errno));
	return -1;
}

/* Close a growing file: commit it, or drop what was never committed. */
int
pl_grow_close(struct pl_grow *g, int commit, char **cause)
{
	if (g->f == NULL)
		return 0;
	int rc = 0;
	char *why = NULL;
	if (commit && pl_grow_commit(g, &why) != 0)
		rc = -1;
	if (fclose(g->f) != 0 && rc == 0 && commit) {
		why = pl_xasprintf("%s: write failed: %s", g->shown,
		    strerror(errno));
		rc = -1;
	}
	if (g->tmp != NULL)
		pl_file_temp_remove(g->tmp);
	free(g->tmp);
	free(g->target);
	free(g->shown);
	memset(g, 0, sizeof *g);
	if (cause != NULL)
		*cause = why;
	else
		free(why);
	return rc;
}

/* The absolute name of a file that need not exist: its directory
 * resolved, then its base name (path as given when the directory does
 * not resolve).  Caller frees. */
static char *
absolute_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = dir_of(path);
	char *rd = realpath(dir, NULL);
	free(dir);
	if (rd == NULL)
		return pl_xstrdup(path);
	char *abs = pl_xasprintf("%s/%s", strcmp(rd, "/") == 0 ? "" : rd, slash != NULL ? slash + 1 : path);
	free(rd);
	return abs;
}

/* Whether a and b name one file: the same inode when both exist, the same
 * absolute name of the file a write would make when neither does. */
int
pl_file_same(const char *a, const char *b)
{
	struct stat sa, sb;
	int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea || eb)
		return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	/* the files a write would make: a symbolic link's last target */
	char *ta = pl_file_write_target(a), *tb = pl_file_write_target(b);
	char *na = absolute_name(ta), *nb = absolute_name(tb);
	int same = strcmp(na, nb) == 0;
	free(ta);
	free(tb);
	free(na);
	free(nb);
	return same;
}

/* The first byte that is not well-formed UTF-8 (Unicode's table 3-7). */
size_t
pl_utf8_check(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		if (c < 0x80) {
			/* ASCII, most of any file: 8 bytes at a time */
			uint64_t w;
			while (len - i >= 8 && (memcpy(&w, s + i, 8), (w & 0x8080808080808080ULL) == 0))
				i += 8;
			if (i < len && s[i] < 0x80)
				i++;
			continue;
		}
		int n;			/* continuation bytes */
		unsigned lo = 0x80, hi = 0xBF;	/* the range of the first one */
		if (c >= 0xC2 && c <= 0xDF)
			n = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			if (c == 0xE0)
				lo = 0xA0;	/* no overlong forms */
			else if (c == 0xED)
				hi = 0x9F;	/* no surrogates */
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			if (c == 0xF0)
				lo = 0x90;
			else if (c == 0xF4)
				hi = 0x8F;	/* nothing above U+10FFFF */
		} else
			return i;
		if (len - i <= (size_t)n || s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (int k = 2; k <= n; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xBF)
				return i;
		i += (size_t)n + 1;
	}
	return len;
}

/* The error for a file that is not UTF-8, or NULL. */
char *
pl_utf8_error(const char *name, const char *text, size_t len)
{
	size_t bad = pl_utf8_check(text, len);
	if (bad == len)
		return NULL;
	int line, col;
	pl_text_position(text, bad, &line, &col);
	return pl_xasprintf("%s:%d:%d: byte 0x%02X is not UTF-8 (expected UTF-8 text; "
	    "a file in another encoding can be converted with iconv)", name, line, col,
	    (unsigned char)text[bad]);
}

/* The error for a text file holding a NUL byte or bytes that are not
 * UTF-8, or NULL. */
char *
pl_text_error(const char *name, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	if (nul == NULL)
		return pl_utf8_error(name, text, len);
	char *err = pl_utf8_error(name, text, (size_t)(nul - text));
	if (err != NULL)
		return err;
	int line, col;
	pl_text_position(text, (size_t)(nul - text), &line, &col);
	return pl_xasprintf("%s:%d:%d: a NUL byte (expected text)", name, line, col);
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

/* s past JSON's white space, up to end. */
static const char *
skip_json_space(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
		s++;
	return s;
}

/* The tag of a "format" member at text[0..n): its string value when it
 * begins with "placelab-" (into buf), else 0. */
static int
format_tag(const char *text, size_t n, char *buf, size_t bn)
{
	static const char key[] = "\"format\"";
	const char *end = text + n, *s = text;
	while ((s = memmem(s, (size_t)(end - s), key, sizeof key - 1)) != NULL) {
		s = skip_json_space(s + sizeof key - 1, end);
		if (s >= end || *s != ':')
			continue;
		s = skip_json_space(s + 1, end);
		if (s >= end || *s != '"' || (size_t)(end - s) < 10 || memcmp(s + 1, "placelab-", 9) != 0)
			return 0;
		const char *q = memchr(s + 1, '"', (size_t)(end - s - 1));
		if (q == NULL || (size_t)(q - s - 1) >= bn)
			return 0;
		memcpy(buf, s + 1, (size_t)(q - s - 1));
		buf[q - s - 1] = '\0';
		return 1;
	}
	return 0;
}

/* Where the first line of text that is not blank or a comment starts
 * (after a UTF-8 byte order mark): a Beta file's header; len when there
 * is none. */
static size_t
after_comments(const char *text, size_t len)
{
	size_t i = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	while (i < len && (text[i] == '#' || text[i] == '\n' || text[i] == ' ' || text[i] == '\t' ||
	    text[i] == '\r')) {
		if (text[i] == '#')	/* a comment line */
			while (i < len && text[i] != '\n')
				i++;
		else
			i++;
	}
	return i;
}

/* What kind of placelab document path holds (see fileio.h). */
int
pl_file_kind(const char *path, char *buf, size_t n)
{
	struct stat st;
	if (n < 16 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	char head[4096];
	size_t len = fread(head, 1, sizeof head, f);
	fclose(f);
	if (len == sizeof head && len - after_comments(head, len) < 64) {
		/* comments up to the head's end: a Beta file's header may
		 * follow, or be cut there */
		char *cause = NULL, *all = pl_file_read(path, &len, &cause);
		free(cause);
		int kind = all != NULL && pl_text_kind(all, len, buf, n);
		free(all);
		return kind;
	}
	return pl_text_kind(head, len, buf, n);
}

/* What kind of placelab document text holds (see fileio.h). */
int
pl_text_kind(const char *head, size_t len, char *buf, size_t n)
{
	if (len >= 8 && memcmp(head, "PLWEIGHT", 8) == 0) {
		snprintf(buf, n, "PLWEIGHT");
		return 1;
	}
	static const char beta[] = "placelab-beta/";
	size_t i = after_comments(head, len), e = i;
	if (len - i >= sizeof beta - 1 && memcmp(head + i, beta, sizeof beta - 1) == 0) {
		/* the header's word, whatever its version (placelab-beta/2
		 * is a Beta file its parser refuses by name) */
		while (e < len && e - i < n - 1 && head[e] != '\n' && head[e] != '\r' &&
		    head[e] != ' ' && head[e] != '\t' && head[e] != '#')
			e++;
		snprintf(buf, n, "%.*s", (int)(e - i), head + i);
		return 1;
	}
	return format_tag(head, len > 4096 ? 4096 : len, buf, n);	/* the tag is at the start */
}

/* See fileio.h. */
char *
pl_text_foreign(const char *text, size_t len, const char *name, const char *expected)
{
	char kind[64];
	if (!pl_text_kind(text, len, kind, sizeof kind) ||
	    (strcmp(kind, "PLWEIGHT") != 0 && strncmp(kind, "placelab-beta/", 14) != 0))
		return NULL;
	return pl_xasprintf("%s: holds %s (%s), not %s", name, pl_file_kind_name(kind),
	    kind, expected);
}

/* What a file of placelab's kind tag is, for a message. */
const char *
pl_file_kind_name(const char *tag)
{
	static const struct { const char *prefix, *name; } names[] = {
		{ "placelab-graph/", "a graph" }, { "placelab-cluster/", "a cluster" },
		{ "placelab-placement/", "a placement" },
		{ "placelab-result/", "a simulation result" },
		{ "placelab-compare/", "a comparison table" },
		{ "placelab-info/", "a graph's summary" },
		{ "placelab-beta/", "BRKGA's Beta parameters" },
		{ "PLWEIGHT", "a trained policy" },
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strncmp(tag, names[i].prefix, strlen(names[i].prefix)) == 0)
			return names[i].name;
	return "a placelab file";
}

/* Whether writing a file of kind writes over path loses a document of
 * another kind (see fileio.h). */
char *
pl_file_kind_clash(const char *path, const char *writes)
{
	char kind[64];
	if (held_fd(path) >= 0)	/* written through the shell's descriptor: nothing is replaced */
		return NULL;
	if (!pl_file_kind(path, kind, sizeof kind))
		return NULL;
	/* the same kind in another version ("placelab-placement/2") is
	 * the same kind */
	size_t kl = strcspn(kind, "/");
	if (writes != NULL && strncmp(kind, writes, kl) == 0 && strcspn(writes, "/") == kl)
		return NULL;
	return pl_xasprintf("%s: holds %s (%s), which this would replace with %s: "
	    "give another name, or remove it first", path, pl_file_kind_name(kind), kind,
	    writes != NULL ? pl_file_kind_name(writes) : "another kind of file");
}
