// SPDX-License-Identifier: GPL-2.0
/*
 * pngstat FILE [X Y]: what a screenshot shows, for the SVG render test.
 * Decodes an 8-bit RGB or RGBA PNG (what Chromium writes) with zlib.
 *   pngstat FILE       "WIDTH HEIGHT COLOURS WARM": distinct colours, and
 *                      warm pixels (flame-graph reds, oranges, yellows)
 *                      per thousand
 *   pngstat FILE X Y   "R G B" of the pixel at X, Y
 * Exit 0; 1 when the file is not such a PNG; 2 usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct png {
	uint32_t w, h;
	int bpp;		/* bytes per pixel: 3 or 4 */
	unsigned char *px;	/* h rows of w * bpp bytes, unfiltered */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static unsigned char *read_file(const char *path, size_t *len)
{
	unsigned char *buf = NULL, *p;
	size_t cap = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			p = realloc(buf, cap);
			if (!p)
				break;
			buf = p;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (!n)
			break;
		*len += n;
	}
	fclose(f);
	return buf;
}

/* The IDAT chunks, joined; the header read into png */
static unsigned char *idat(const unsigned char *b, size_t len, struct png *png,
			   size_t *zlen)
{
	static const unsigned char sig[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
	unsigned char *z = NULL, *p;
	size_t off = 8;
	uint32_t clen;

	*zlen = 0;
	if (len < 8 || memcmp(b, sig, 8))
		return NULL;
	while (off + 12 <= len) {
		clen = be32(b + off);
		if (clen > len - off - 12)
			break;
		if (!memcmp(b + off + 4, "IHDR", 4) && clen >= 13) {
			png->w = be32(b + off + 8);
			png->h = be32(b + off + 12);
			/* 8 bits, RGB (2) or RGBA (6), no interlace */
			if (b[off + 16] != 8 || (b[off + 17] != 2 && b[off + 17] != 6) ||
			    b[off + 20] != 0)
				break;
			png->bpp = b[off + 17] == 6 ? 4 : 3;
		} else if (!memcmp(b + off + 4, "IDAT", 4)) {
			p = realloc(z, *zlen + clen);
			if (!p)
				break;
			z = p;
			memcpy(z + *zlen, b + off + 8, clen);
			*zlen += clen;
		} else if (!memcmp(b + off + 4, "IEND", 4)) {
			if (png->bpp && *zlen)
				return z;
			break;
		}
		off += 12 + clen;
	}
	free(z);
	return NULL;
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	if (pa <= pb && pa <= pc)
		return a;
	return pb <= pc ? b : c;
}

/* Undo the per-row filters of raw (each row: a filter byte, then pixels) */
static int unfilter(struct png *png, const unsigned char *raw)
{
	size_t stride = (size_t)png->w * png->bpp, x, y;
	unsigned char *row, *up;
	int a, c;

	for (y = 0; y < png->h; y++) {
		const unsigned char *in = raw + y * (stride + 1) + 1;
		int ft = raw[y * (stride + 1)];

		row = png->px + y * stride;
		up = y ? row - stride : NULL;
		for (x = 0; x < stride; x++) {
			a = x >= (size_t)png->bpp ? row[x - png->bpp] : 0;
			c = up && x >= (size_t)png->bpp ? up[x - png->bpp] : 0;
			switch (ft) {
			case 0: row[x] = in[x]; break;
			case 1: row[x] = in[x] + a; break;
			case 2: row[x] = in[x] + (up ? up[x] : 0); break;
			case 3: row[x] = in[x] + (a + (up ? up[x] : 0)) / 2; break;
			case 4: row[x] = in[x] + paeth(a, up ? up[x] : 0, c); break;
			default: return -1;
			}
		}
	}
	return 0;
}

static int decode(const char *path, struct png *png)
{
	unsigned char *file, *z, *raw = NULL;
	size_t len, zlen;
	uLongf rawlen;
	int err = -1;

	memset(png, 0, sizeof(*png));
	file = read_file(path, &len);
	if (!file)
		return -1;
	z = idat(file, len, png, &zlen);
	if (z && png->w && png->h && png->w < 65536 && png->h < 65536) {
		rawlen = (uLongf)png->h * (png->w * png->bpp + 1);
		raw = malloc(rawlen);
		png->px = malloc((size_t)png->h * png->w * png->bpp);
		if (raw && png->px &&
		    uncompress(raw, &rawlen, z, zlen) == Z_OK &&
		    rawlen == (uLongf)png->h * (png->w * png->bpp + 1))
			err = unfilter(png, raw);
	}
	free(raw);
	free(z);
	free(file);
	return err;
}

static void stats(const struct png *png)
{
	unsigned char *seen = calloc(1 << 21, 1);	/* a bit per 24-bit colour */
	size_t i, n = (size_t)png->w * png->h, colours = 0, warm = 0;
	const unsigned char *p;
	uint32_t rgb;

	if (!seen) {
		perror("pngstat");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		p = png->px + i * png->bpp;
		rgb = p[0] << 16 | p[1] << 8 | p[2];
		if (!(seen[rgb >> 3] & (1 << (rgb & 7)))) {
			seen[rgb >> 3] |= 1 << (rgb & 7);
			colours++;
		}
		/* red to yellow: strong red, little blue */
		if (p[0] >= 175 && p[2] <= 90 && p[0] - p[2] >= 100)
			warm++;
	}
	printf("%u %u %zu %zu\n", png->w, png->h, colours, warm * 1000 / n);
	free(seen);
}

int main(int argc, char **argv)
{
	struct png png;
	unsigned long x, y;
	unsigned char *p;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: pngstat FILE [X Y]\n");
		return 2;
	}
	if (decode(argv[1], &png)) {
		fprintf(stderr, "pngstat: %s: not an 8-bit RGB(A) PNG, or damaged\n", argv[1]);
		return 1;
	}
	if (argc == 2) {
		stats(&png);
		return 0;
	}
	x = strtoul(argv[2], NULL, 10);
	y = strtoul(argv[3], NULL, 10);
	if (x >= png.w || y >= png.h) {
		fprintf(stderr, "pngstat: %lu,%lu is outside %ux%u\n", x, y, png.w, png.h);
		return 2;
	}
	p = png.px + (y * png.w + x) * png.bpp;
	printf("%u %u %u\n", p[0], p[1], p[2]);
	return 0;
}
