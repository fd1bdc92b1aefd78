// SPDX-License-Identifier: GPL-2.0
/*
 * Durations: parsing "1.5ms" exactly (integer arithmetic, no floating
 * point rounding) and formatting with three significant digits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "duration.h"

typedef unsigned __int128 u128;

struct unit {
	const char *name;
	__u64 ns;
};

/* "m" is minutes; the longest names come first so "ms" never reads as "m" */
static const struct unit units[] = {
	{ "ns", KFIT_NSEC },
	{ "us", KFIT_USEC },
	{ "ms", KFIT_MSEC },
	{ "s", KFIT_SEC },
	{ "m", 60 * KFIT_SEC },
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The unit named exactly s, or 0 */
static __u64 unit_ns(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].name))
			return units[i].ns;
	return 0;
}

/*
 * The fraction digits [s, s + n) times unit, exactly. Trailing zeros do
 * not count; what is left must come out as whole nanoseconds.
 */
static int frac_ns(const char *s, size_t n, __u64 unit, __u64 *ns)
{
	__u64 f = 0, pow = 1;
	u128 v;
	size_t i;

	while (n > 0 && s[n - 1] == '0')
		n--;
	/* 10^19 is the largest power of ten in a u64 */
	if (n > 19)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		f = f * 10 + (s[i] - '0');
		pow *= 10;
	}
	v = (u128)f * unit;
	if (v % pow)
		return -EINVAL;	/* finer than a nanosecond */
	*ns = v / pow;
	return 0;
}

int kfit_duration_parse(const char *s, __u64 def_unit, __u64 *ns)
{
	const char *frac = NULL, *p;
	u128 ip = 0, v;
	size_t nfrac = 0;
	__u64 unit, f;
	int err;

	if (!s || !is_digit(*s))
		return -EINVAL;	/* also "", "-1", "+1", " 1", ".5" */
	for (p = s; is_digit(*p); p++) {
		ip = ip * 10 + (*p - '0');
		if (ip > UINT64_MAX)
			return -ERANGE;
	}
	if (*p == '.') {
		frac = ++p;
		while (is_digit(*p))
			p++;
		nfrac = p - frac;
		if (!nfrac)
			return -EINVAL;
	}
	/* zero is zero in every unit: "--min 0" needs none */
	if (!*p && !frac && !ip && !def_unit) {
		*ns = 0;
		return 0;
	}
	unit = *p ? unit_ns(p) : def_unit;
	if (!unit)
		return -EINVAL;
	err = frac_ns(frac, nfrac, unit, &f);
	if (err)
		return err;
	v = ip * unit + f;
	if (v > UINT64_MAX)
		return -ERANGE;
	*ns = v;
	return 0;
}

size_t kfit_u64_str_pad(__u64 v, size_t width, char *buf)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v || (n < width && n < sizeof(tmp)));
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

size_t kfit_u64_str(__u64 v, char *buf)
{
	return kfit_u64_str_pad(v, 1, buf);
}

/* tmp (n bytes) into buf of len bytes, as snprintf("%s") would */
static void put_out(char *buf, size_t len, const char *tmp, size_t n)
{
	if (!len)
		return;
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
}

/*
 * r / 10^dec with dec decimals, then unit; r already rounded. 1234 with 2
 * decimals is "12.34". By hand: kd's tree formats millions of them.
 */
static void fmt_fixed(char *buf, size_t len, __u64 r, int dec, const char *unit)
{
	__u64 scale = dec == 2 ? 100 : dec == 1 ? 10 : 1;
	char tmp[48];
	size_t n = kfit_u64_str(r / scale, tmp), u = strlen(unit);

	if (dec) {
		tmp[n++] = '.';
		n += kfit_u64_str_pad(r % scale, dec, tmp + n);
	}
	memcpy(tmp + n, unit, u);
	put_out(buf, len, tmp, n + u);
}

char *kfit_duration_fmt(__u64 ns, char *buf, size_t len)
{
	static const struct unit scaled[] = {
		{ "us", KFIT_USEC }, { "ms", KFIT_MSEC }, { "s", KFIT_SEC },
	};
	size_t i;
	int dec;
	u128 r;

	if (ns < KFIT_USEC) {
		fmt_fixed(buf, len, ns, 0, "ns");
		return buf;
	}
	for (i = 0; i < sizeof(scaled) / sizeof(scaled[0]); i++) {
		__u64 u = scaled[i].ns, x = ns / u;
		__u64 scale;

		dec = x < 10 ? 2 : x < 100 ? 1 : 0;
		/*
		 * Rounding may carry into a fourth digit (9.995us): then
		 * drop a decimal, or move up a unit (999.9us is 1.00ms).
		 */
		for (; dec >= 0; dec--) {
			scale = dec == 2 ? 100 : dec == 1 ? 10 : 1;
			r = ((u128)ns * scale + u / 2) / u;
			if (r < 1000)
				break;
		}
		if (dec >= 0) {
			fmt_fixed(buf, len, r, dec, scaled[i].name);
			return buf;
		}
	}
	/* 1000 s and more: whole seconds */
	fmt_fixed(buf, len, (__u64)(((u128)ns + KFIT_SEC / 2) / KFIT_SEC), 0, "s");
	return buf;
}

char *kfit_duration_fmt_thousands(__u64 n, char *buf, size_t len)
{
	char digits[32], out[48];
	int nd, i, k = 0;

	nd = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	for (i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
	snprintf(buf, len, "%s", out);
	return buf;
}
