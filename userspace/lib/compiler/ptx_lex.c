// SPDX-License-Identifier: MIT
/*
 * ptx_lex.c - the PTX lexer: source text into tokens, and the token helpers of the parser.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

/* Copies @src into @dst of @n bytes, truncating. */
void ptx_scopy(char *dst, size_t n, const char *src)
{
	size_t l = strlen(src);

	if (l >= n)
		l = n - 1;
	memcpy(dst, src, l);
	dst[l] = 0;
}

static bool wordc(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

void ptx_lex(struct parser *P, const char *src, size_t len)
{
	struct compiler *cc = P->cc;
	size_t i = 0;
	int line = 1;

	while (1) {
		struct tok t = { .line = line };

		while (i < len) {
			char c = src[i];

			if (c == '\n') {
				line++;
				i++;
			} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
				i++;
			} else if (c == '/' && i + 1 < len && src[i + 1] == '/') {
				while (i < len && src[i] != '\n')
					i++;
			} else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
				int l0 = line;

				i += 2;
				while (i + 1 < len && !(src[i] == '*' && src[i + 1] == '/')) {
					if (src[i] == '\n')
						line++;
					i++;
				}
				if (i + 1 >= len)
					cc_error(cc, l0, "unterminated comment");
				i += 2;
			} else {
				break;
			}
		}
		t.line = line;
		if (i >= len) {
			t.t = T_EOF;
		} else if (src[i] == '\0') {
			cc_error(cc, line, "NUL byte in source");
		} else if (wordc((unsigned char)src[i])) {
			size_t s = i;
			bool num = isdigit((unsigned char)src[i]);

			while (i < len) {
				unsigned char c = src[i];

				if (wordc(c)) {
					i++;
				} else if (c == ':' && i + 1 < len && src[i + 1] == ':' &&
					   i + 2 < len && wordc((unsigned char)src[i + 2])) {
					i += 2;
				} else if (num && (c == '+' || c == '-') &&
					   (src[i - 1] == 'e' || src[i - 1] == 'E') &&
					   memchr(src + s, '.', i - s) &&
					   !(i - s > 1 && (src[s + 1] == 'x' || src[s + 1] == 'X' ||
							   src[s + 1] == 'f' || src[s + 1] == 'F' ||
							   src[s + 1] == 'd' || src[s + 1] == 'D'))) {
					i++;
				} else {
					break;
				}
			}
			t.t = T_WORD;
			t.s = src + s;
			t.len = i - s;
		} else if (src[i] == '"') {
			size_t s = ++i;

			while (i < len && src[i] != '"' && src[i] != '\n')
				i++;
			if (i >= len || src[i] != '"')
				cc_error(cc, line, "unterminated string");
			t.t = T_STR;
			t.s = src + s;
			t.len = i - s;
			i++;
		} else if (strchr(",;:[]{}()+-|!@<>=*", src[i])) {
			t.t = T_PUNCT;
			t.ch = src[i];
			t.s = src + i;
			t.len = 1;
			i++;
		} else {
			cc_error(cc, line, "unexpected character '%c'", src[i]);
		}
		P->toks = cc_grow(cc, P->toks, &P->tcap, P->ntoks + 1, sizeof(*P->toks));
		P->toks[P->ntoks++] = t;
		if (t.t == T_EOF)
			break;
	}
}

void ptx_tokstr(const struct tok *t, char *buf, size_t n)
{
	size_t l;

	if (t->t == T_EOF) {
		snprintf(buf, n, "end of file");
		return;
	}
	l = t->len < n - 1 ? t->len : n - 1;
	memcpy(buf, t->s, l);
	buf[l] = 0;
}

_Noreturn void ptx_unexpected(struct parser *P, const struct tok *t, const char *what)
{
	char b[64];

	ptx_tokstr(t, b, sizeof(b));
	cc_error(P->cc, t->line, "expected %s, found '%s'", what, b);
}

void ptx_expect(struct parser *P, char c)
{
	struct tok *t = next(P);

	if (!is_p(t, c)) {
		char w[4] = { '\'', c, '\'', 0 };

		ptx_unexpected(P, t, w);
	}
}

void ptx_name_of(struct parser *P, const struct tok *t, char *buf, size_t n)
{
	if (t->t != T_WORD)
		ptx_unexpected(P, t, "a name");
	if (t->len >= n)
		cc_error(P->cc, t->line, "name too long");
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
}

bool ptx_parse_uint(const struct tok *t, uint64_t *v)
{
	char b[64], *end;

	if (t->t != T_WORD || !isdigit((unsigned char)t->s[0]) || t->len >= sizeof(b))
		return false;
	memcpy(b, t->s, t->len);
	b[t->len] = 0;
	if (t->len > 1 && (b[t->len - 1] == 'U' || b[t->len - 1] == 'u'))
		b[t->len - 1] = 0;
	errno = 0;
	if (b[0] == '0' && (b[1] == 'x' || b[1] == 'X'))
		*v = strtoull(b + 2, &end, 16);
	else if (b[0] == '0' && (b[1] == 'b' || b[1] == 'B'))
		*v = strtoull(b + 2, &end, 2);
	else if (b[0] == '0' && b[1])
		*v = strtoull(b + 1, &end, 8);
	else
		*v = strtoull(b, &end, 10);
	return !errno && *end == 0;
}

uint64_t ptx_expect_uint(struct parser *P)
{
	struct tok *t = next(P);
	uint64_t v;

	if (!ptx_parse_uint(t, &v))
		ptx_unexpected(P, t, "a number");
	return v;
}

/* Skips the rest of the source line of token @t. */
void ptx_skip_line(struct parser *P, int line)
{
	while (peek(P)->t != T_EOF && peek(P)->line == line)
		next(P);
}
