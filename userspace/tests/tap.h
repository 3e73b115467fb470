/* SPDX-License-Identifier: MIT */
/*
 * tap.h - what the host test programs share: "ok - NAME" / "not ok - NAME"
 * lines, a closing "N passed, N failed", and finding the repository's
 * source files (PTX) from wherever the test runs.
 */
#ifndef VGPU_TEST_TAP_H
#define VGPU_TEST_TAP_H

#include <stddef.h>
#include <stdio.h>

/* Fails the enclosing test function (returns -1) with a message. */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			printf("#   %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
			return -1; \
		} \
	} while (0)

/* CHECK that jumps to the test's "out:" label, which frees what it holds. */
#define MCHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			printf("#   %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
			goto out; \
		} \
	} while (0)

/* Prints the test's line; @r is its result (0 passed). */
void report(const char *name, int r);
/* Prints "N passed, N failed"; returns the exit status. */
int test_summary(void);

/*
 * Opens @rel (a path from the repository root): from the current directory
 * or its parents, from $VGPU_SRCDIR, or from the executable's location
 * (build/host/ in the tree).
 */
FILE *open_src(const char *rel);
/* The whole file, NUL-terminated (malloc'd), or NULL. */
char *read_src(const char *rel, size_t *len);

#endif /* VGPU_TEST_TAP_H */
