// SPDX-License-Identifier: GPL-2.0
/*
 * "Did you mean": edit distances from a mistyped name to every known one.
 * Over 100k kernel functions the bound on the distance does the work:
 * names whose length is too different are never compared, and a
 * comparison stops at the first row whose best cell is over the bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "strdist.h"

#define MAX_LEN		256	/* longer names are compared by their first 256 characters */
#define MAX_BEST	8

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int kfit_strdist(const char *a, const char *b, int max)
{
	/* Three rows: the one before the previous is needed for swaps */
	int rows[3][MAX_LEN + 1], *pp, *p, *c, *t;
	int la = strnlen(a, MAX_LEN), lb = strnlen(b, MAX_LEN);
	int i, j, best;

	if (abs(la - lb) > max)
		return max + 1;
	pp = rows[0];
	p = rows[1];
	c = rows[2];
	for (j = 0; j <= lb; j++)
		p[j] = j;
	for (i = 1; i <= la; i++) {
		c[0] = best = i;
		for (j = 1; j <= lb; j++) {
			c[j] = min3(p[j] + 1, c[j - 1] + 1,
				    p[j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < c[j])
				c[j] = pp[j - 2] + 1;
			if (c[j] < best)
				best = c[j];
		}
		/* Every later row is at least this row's minimum */
		if (best > max)
			return max + 1;
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb] > max ? max + 1 : p[lb];
}

struct cand {
	const char *name;
	int dist;
	int dlen;
};

static int cand_cmp(const struct cand *x, const struct cand *y)
{
	if (x->dist != y->dist)
		return x->dist - y->dist;
	if (x->dlen != y->dlen)
		return x->dlen - y->dlen;
	return strcmp(x->name, y->name);
}

/* Insert c into the sorted best[0..*n), keeping at most nbest */
static void keep(struct cand *best, int *n, int nbest, const struct cand *c)
{
	int i = *n;

	if (i == nbest && cand_cmp(c, &best[i - 1]) >= 0)
		return;
	if (i == nbest)
		i--;
	else
		(*n)++;
	for (; i > 0 && cand_cmp(c, &best[i - 1]) < 0; i--)
		best[i] = best[i - 1];
	best[i] = *c;
}

int kfit_strdist_closest(const char *word, const char *const *names, int n, int nbest,
		 char *buf, size_t len)
{
	struct cand best[MAX_BEST], c;
	int wlen = strlen(word), max = 2 + wlen / 4, nb = 0, i;
	size_t off = 0;

	if (nbest > MAX_BEST)
		nbest = MAX_BEST;
	if (len)
		buf[0] = '\0';
	for (i = 0; i < n && nbest > 0; i++) {
		/* Once nbest are found, only better ones matter */
		c.dist = kfit_strdist(word, names[i], nb == nbest ? best[nb - 1].dist : max);
		if (c.dist > max)
			continue;
		c.name = names[i];
		c.dlen = abs((int)strlen(names[i]) - wlen);
		keep(best, &nb, nbest, &c);
	}
	for (i = 0; i < nb && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				best[i].name);
	return nb;
}
