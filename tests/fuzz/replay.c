/*
 * replay — run every file of the fuzz seed corpora through the loaders
 * (make check), printing TAP.  Under the sanitizers a crash or leak fails.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "tests/fuzz/fuzz-load.h"

/* Names of the files in dir, sorted; returns the count. */
static int
list_dir(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	int n = 0, cap = 16;
	char **names = malloc(sizeof *names * cap);
	if (d == NULL || names == NULL) {
		if (d != NULL)
			closedir(d);
		free(names);
		*out = NULL;
		return -1;
	}
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap *= 2;
			names = realloc(names, sizeof *names * cap);
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	*out = names;
	return n;
}

/* Replay both corpora. */
int
main(void)
{
	const char *sub[2] = { "corpus-json", "corpus-dot" };
	char **names[2];
	int n[2], total = 0;
	for (int k = 0; k < 2; k++) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/%s", PL_CORPUS_DIR, sub[k]);
		n[k] = list_dir(dir, &names[k]);
		if (n[k] < 0) {
			printf("1..1\nnot ok 1 - cannot read %s\n", dir);
			return 1;
		}
		total += n[k];
	}
	printf("1..%d\n", total + 1);
	int t = 0;
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < n[k]; i++) {
			char path[4096], *cause = NULL;
			size_t len;
			snprintf(path, sizeof path, "%s/%s/%s", PL_CORPUS_DIR, sub[k], names[k][i]);
			char *data = pl_file_read(path, &len, &cause);
			if (data == NULL) {
				printf("not ok %d - %s: %s\n", ++t, path, cause);
				free(cause);
			} else {
				if (k == 0)
					pl_fuzz_json((const unsigned char *)data, len);
				else
					pl_fuzz_dot((const unsigned char *)data, len);
				printf("ok %d - %s/%s\n", ++t, sub[k], names[k][i]);
				free(data);
			}
			free(names[k][i]);
		}
		free(names[k]);
	}
	printf("%s %d - corpora are not empty\n", total >= 10 ? "ok" : "not ok", ++t);
	return 0;
}
