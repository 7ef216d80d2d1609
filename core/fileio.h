/*
 * fileio — reading whole files and writing them atomically.
 *
 * Invariant: pl_file_write_atomic() never leaves a partial file at `path`:
 * it writes a temporary file in the directory of the file it replaces (a
 * symbolic link's last target: the links stay), fsyncs it and renames it
 * over that file, so a crash leaves either the old or the new content,
 * and a signal that ends the process removes the temporary file.  What
 * is not a regular file (/dev/null, a terminal, a FIFO) is written in
 * place, never replaced; so is a file this process holds open for
 * writing and names as /dev/stdout, /dev/stderr or /dev/fd/N (the
 * shell's ">" or ">>"), at the descriptor's offset, after what the shell
 * wrote there before (written again, the output replaces its earlier
 * copy there).
 */
#ifndef PL_FILEIO_H
#define PL_FILEIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The most an input may hold: far above any input (the largest sample
 * graph is a few tens of MiB), far below what would exhaust memory on an
 * endless file such as /dev/zero. */
#define PL_FILE_READ_MAX ((size_t)1 << 30)
/* Read a whole file (NUL-terminated, *len without the NUL), of at most
 * PL_FILE_READ_MAX (or max) bytes.  NULL + *cause. */
char *pl_file_read(const char *path, size_t *len, char **cause);
char *pl_file_read_max(const char *path, size_t max, size_t *len, char **cause);
/* Check before a long run that path can be written later: 0, or -1 +
 * *cause (an empty name, a directory, or no new file can be made next to
 * it). */
int pl_file_check_writable(const char *path, char **cause);
/* Whether path names a stream (a pipe, a terminal, a socket, a device):
 * what is written there follows what was written before, so a file
 * written there twice holds both copies (write it once). */
int pl_file_is_stream(const char *path);
/* How a message names path: "standard output" for /dev/stdout (what
 * "-" stands for), "standard error" for /dev/stderr, else path. */
const char *pl_file_shown(const char *path);
/* Write data atomically (through a symbolic link, or a chain of them, to
 * its last target; links that loop are refused, "Too many levels of
 * symbolic links", as the shell's ">" does).  An existing file keeps its
 * permissions, and its owner and group where this process may set them
 * (root may; another user may keep the group when a member of it); when
 * neither can be kept the file is still replaced atomically (its content
 * is never at risk), owned by this user, its group's permissions narrowed
 * to those of others so that no one may read it who could not before.
 * One the caller may not write is refused, not replaced.  0, or -1 +
 * *cause (naming path as given, "PATH (a link to TARGET)" for a link). */
int pl_file_write_atomic(const char *path, const void *data, size_t len, char **cause);
/* Write data to path as a new file, never over one that exists (nor
 * through a link): whole or not at all, as pl_file_write_atomic() does,
 * but claimed with link(2), which fails when the name is taken (two
 * processes writing one name: one gets it).  0; -1 with errno EEXIST
 * when the name is taken, or + *cause otherwise. */
int pl_file_write_new(const char *path, const void *data, size_t len, char **cause);
/* The file a write to path replaces: the file a symbolic link points to,
 * through a chain of links to the last (the links stay links; a link to
 * a file not made yet makes it), else path itself (also when the links
 * loop: a write there is refused).  Caller frees. */
char *pl_file_write_target(const char *path);
/*
 * Temporary files and fatal signals: a temporary file this module makes
 * is removed by a signal that ends the process (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) as well as on an error.  While one exists, those of the four
 * whose action is the default are caught (the file removed, then the
 * process dies of the signal as before); a command that catches them
 * itself calls pl_file_remove_temps() before dying of one.
 */
/* Remove every temporary file this process holds open: async-signal-safe,
 * for a handler about to end the process. */
void pl_file_remove_temps(void);
/* From a signal handler: the temporary files removed, sig back to its
 * default action and raised (in a handler it comes when the handler
 * returns, unless the handler blocks nothing: then at once). */
void pl_file_die_of(int sig);
/* mkstemps() (the XXXXXX before suffixlen bytes of tmpl replaced), the
 * file noted as held until pl_file_temp_remove() or pl_file_temp_done():
 * for another module's temporary file (the timeline's SVG). */
int pl_file_mkstemps(char *tmpl, int suffixlen);
/* Remove a temporary file made so, and forget it (errno kept). */
void pl_file_temp_remove(const char *name);
/* Forget a temporary file made so, renamed or removed already. */
void pl_file_temp_done(const char *name);
/*
 * A file that grows while a run goes (a CSV row per episode), which must
 * not cost the user an existing file when the run fails: over an existing
 * file (a symbolic link's target) it is written into a temporary file next
 * to it, and the first pl_grow_commit() renames that over it (with the old
 * file's permissions, owner and group as pl_file_write_atomic() keeps
 * them); a new file, a device or FIFO, or a file the shell
 * holds open for this process (/dev/stdout after ">"), is written in
 * place from the start.
 */
struct pl_grow {
	FILE *f;	/* append here */
	char *tmp;	/* the temporary file until the first commit, else NULL */
	char *target;	/* the file written (a link's target) */
	char *shown;	/* how messages name it (pl_file_shown()) */
	int mode;	/* the permissions the temporary file gets */
	uid_t uid;	/* the owner and group it keeps where it may */
	gid_t gid;	/* (see pl_file_write_atomic()) */
};
/* Open path so.  0, or -1 + *cause. */
int pl_grow_open(struct pl_grow *g, const char *path, char **cause);
/* Make what was written so far the file's content: flushed (a write that
 * failed earlier fails this), and on the first call over an existing file
 * synced to disk and renamed over it.  0, or -1 + *cause (then nothing is
 * renamed). */
int pl_grow_commit(struct pl_grow *g, char **cause);
/* Close; committed first when commit is set, else a temporary file never
 * committed is removed (the old file stays).  0, or -1 + *cause. */
int pl_grow_close(struct pl_grow *g, int commit, char **cause);
/* The kind of placelab document the regular file path holds: the tag of
 * its "format" member ("placelab-placement/1", ...) when that is among
 * its first 4 KiB, as every placelab writer puts it first;
 * "placelab-beta/1" for a Beta parameter file (that header line, after
 * any comment lines and byte order mark; "placelab-beta/2" and so on for
 * a version placelab does not read);
 * "PLWEIGHT" for a policy's weights.  Into buf; 0 when it is none of these
 * (or does not exist), 1 when it is. */
int pl_file_kind(const char *path, char *buf, size_t n);
/* The same for text already read (its first 4 KiB are looked at). */
int pl_text_kind(const char *text, size_t len, char *buf, size_t n);
/* NULL, or (caller frees) "NAME: holds a trained policy (PLWEIGHT), not
 * EXPECTED" when text is a placelab document that is not JSON (a policy's
 * weights, Beta parameters): what a JSON or DOT loader says instead of a
 * syntax error. */
char *pl_text_foreign(const char *text, size_t len, const char *name,
    const char *expected);
/* What a kind tag names, for a message: "a placement", "a comparison
 * table", ...; "a placelab file" for a tag it does not know. */
const char *pl_file_kind_name(const char *tag);
/* Before writing a file of kind writes (a tag as pl_file_kind() gives, or
 * NULL for any other file) to path: NULL, or why not (caller frees) when
 * path holds a placelab document of another kind (whatever the versions),
 * which the write would lose (a comparison table written over a saved
 * placement, say). */
char *pl_file_kind_clash(const char *path, const char *writes);
/* Whether paths a and b name one file (the same inode when both exist;
 * when neither does, e.g. two outputs, the same absolute name of the file
 * a write would make: through symbolic links to their last target). */
int pl_file_same(const char *a, const char *b);
/* The offset of the first byte of text[0..len) that is not well-formed
 * UTF-8 (a stray or missing continuation byte, an overlong form, a
 * surrogate, above U+10FFFF), or len when all of it is. */
size_t pl_utf8_check(const char *text, size_t len);
/* NULL when text[0..len) is UTF-8, else the error to give for file name:
 * "NAME:LINE:COL: byte 0xFF is not UTF-8 (...)". */
char *pl_utf8_error(const char *name, const char *text, size_t len);
/* The same for a text file, which holds no NUL byte either:
 * "NAME:LINE:COL: a NUL byte (expected text)". */
char *pl_text_error(const char *name, const char *text, size_t len);
/* Line and column (1-based) of byte offset off in text. */
void pl_text_position(const char *text, size_t off, int *line, int *col);

#endif
