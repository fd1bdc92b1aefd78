// SPDX-License-Identifier: GPL-2.0
/*
 * perf event names, as `perf stat -e` spells them, into perf_event_attr.
 *
 * Named events come from the tables of pmu_names.c; everything else is
 * looked up where the kernel describes it (pmu_sysfs.c): a PMU's type,
 * format fields and event aliases under sysfs, a tracepoint's id under
 * tracefs. A parse that fails leaves the caller's list as it was (its n).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include "pmu_int.h"
#include "strdist.h"
#include "tpglob.h"

/*
 * perf's modifier letters. P (highest precision) and S (sample read)
 * change nothing perf stat opens: they are perf record's. W (weak group)
 * and b (BPF counters) are perf's own machinery, refused with the reason.
 */
#define MOD_LETTERS	"ukhGHIpPSDe"
#define MOD_ALL		MOD_LETTERS "Wb"
#define MOD_MAX		15	/* perf's: "ukhGHpppPSDIWeb" */

/* Whether s is written as modifiers (then mods_check says if right) */
static bool mods_like(const char *s)
{
	return *s && strspn(s, MOD_ALL) == strlen(s);
}

/* As perf checks them: NULL if fine, else why not, into buf */
static const char *mods_check(const char *s, char *buf, size_t len)
{
	const char *c;
	int p = 0;

	if (!*s)
		return "missing modifier after ':'";
	if (strlen(s) > MOD_MAX)
		return "too many modifiers";
	for (c = s; *c; c++) {
		if (*c == 'W' || *c == 'b') {
			snprintf(buf, len, "modifier '%c' (%s) is not supported", *c,
				 *c == 'W' ? "weak group" : "BPF counter");
			return buf;
		}
		if (!strchr(MOD_LETTERS, *c)) {
			snprintf(buf, len, "unknown modifier '%c'", *c);
			return buf;
		}
		if (*c == 'p')
			p++;
		else if (strchr(c + 1, *c)) {
			snprintf(buf, len, "modifier '%c' given twice", *c);
			return buf;
		}
	}
	return p > 3 ? "at most 3 p (ppp)" : NULL;
}

static int bad_mods(struct parse *p, const char *mods, const char *what)
{
	char buf[96];

	const char *why = mods_check(mods, buf, sizeof(buf));

	return fail(p, "%s in '%s'%s", why, what, strncmp(why, "unknown", 7) ? "" :
		    " (u, k, h, G, H, I, p, P, S, D, e)");
}

/*
 * perf's meaning of the letters s on e. An event's own modifiers start
 * from nothing: any modifier clears perf's default exclude_guest unless
 * u, p or H sets it again. A group's start from what each member has.
 * A letter naming privilege levels (u, k, h) or G/H excludes the others
 * of its kind. D and e are the group leader's only.
 */
static void mods_apply(struct kfit_pmu_event *e, const char *s, bool group, bool leader)
{
	struct perf_event_attr *a = &e->attr;
	bool eu = false, ek = false, eh = false, eH = false, eG = false;
	bool eI = false, pinned = false, excl = false, gh = false, lvl;
	int precise = 0;

	if (group) {
		eu = a->exclude_user;
		ek = a->exclude_kernel;
		eh = a->exclude_hv;
		eH = a->exclude_host;
		eG = a->exclude_guest;
		eI = a->exclude_idle;
		precise = a->precise_ip;
		pinned = a->pinned;
		excl = a->exclusive;
		gh = e->gh;
	}
	lvl = eu || ek || eh;
	for (; *s; s++) {
		if (strchr("ukh", *s) && !lvl)
			lvl = eu = ek = eh = true;
		if (strchr("GH", *s) && !gh)
			gh = eG = eH = true;
		switch (*s) {
		case 'u':
			eu = false;
			eG = eG || !gh;
			break;
		case 'k':
			ek = false;
			break;
		case 'h':
			eh = false;
			break;
		case 'G':
			eG = false;
			break;
		case 'H':
			eH = false;
			break;
		case 'I':
			eI = true;
			break;
		case 'p':
			precise++;
			eG = eG || !gh;
			break;
		case 'D':
			pinned = true;
			break;
		case 'e':
			excl = true;
			break;
		}
	}
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_host = eH;
	a->exclude_guest = eG;
	a->exclude_idle = eI;
	a->precise_ip = precise;
	e->gh = gh;
	if (leader) {
		a->pinned = pinned;
		a->exclusive = excl;
	}
}

static int raw_config(const char *s, __u64 *config)
{
	size_t n;

	if (s[0] != 'r')
		return -1;
	n = strspn(s + 1, "0123456789abcdefABCDEF");
	if (!n || n > 16 || s[1 + n])
		return -1;
	*config = strtoull(s + 1, NULL, 16);
	return 0;
}

/* The row of words whose member s begins with, followed by '-' or the end */
static int spelling(const char *s, const char *const (*words)[MAX_SPELLINGS],
		    int rows, size_t *len)
{
	size_t n, best = 0;
	int i, j, row = -1;

	for (i = 0; i < rows; i++)
		for (j = 0; j < MAX_SPELLINGS && words[i][j]; j++) {
			n = strlen(words[i][j]);
			if (n > best && !strncmp(s, words[i][j], n) &&
			    (s[n] == '-' || !s[n])) {
				best = n;
				row = i;
			}
		}
	*len = best;
	return row;
}

/*
 * CACHE[-OP][-RESULT] as perf reads it: two words at most after the
 * cache, in either order, each an operation or a result; a second of the
 * same kind is let pass, as perf does. The operation defaults to read,
 * the result to access. 1 if s is no cache event, -1 with why set if the
 * cache lacks that operation.
 */
static int lookup_cache(const char *s, struct perf_event_attr *a, const char **why)
{
	int cache, op = -1, result = -1, w, r, i;
	size_t n;

	cache = spelling(s, pmu_names_caches, NR_CACHES, &n);
	if (cache < 0)
		return 1;
	for (i = 0, s += n; *s == '-' && i < 2; i++, s += n) {
		s++;
		w = spelling(s, pmu_names_cache_ops, NR_CACHE_OPS, &n);
		if (w >= 0) {
			op = op < 0 ? w : op;
			continue;
		}
		r = spelling(s, pmu_names_cache_results, NR_CACHE_RESULTS, &n);
		if (r < 0)
			return 1;
		result = result < 0 ? r : result;
	}
	if (*s)
		return 1;
	if (op >= 0 && !(pmu_names_cache_has_op[cache] & 1 << op)) {
		*why = "that cache has no such operation";
		return -1;
	}
	a->type = PERF_TYPE_HW_CACHE;
	a->config = cache | (op < 0 ? 0 : op) << 8 | (result < 0 ? 0 : result) << 16;
	return 0;
}

/*
 * A hardware, cache, software or raw event by name: 0, 1 if none, -1
 * (why set) for a cache operation the cache lacks
 */
static int lookup_named(const char *s, struct perf_event_attr *a, const char **why)
{
	int i;

	for (i = 0; i < NR_NAMED; i++) {
		if (strcasecmp(s, pmu_names_named[i].name))
			continue;
		a->type = pmu_names_named[i].type;
		a->config = pmu_names_named[i].config;
		return 0;
	}
	i = lookup_cache(s, a, why);
	if (i <= 0)
		return i;
	if (raw_config(s, &a->config))
		return 1;
	a->type = PERF_TYPE_RAW;
	return 0;
}

/* "TYPE:CONFIG", both numbers (perf's 1:1): 0, or 1 if s is not that */
static int lookup_numeric(const char *s, struct perf_event_attr *a)
{
	const char *colon = strchr(s, ':');
	char type[24];
	__u64 t, c;

	if (!colon || colon - s >= (int)sizeof(type) || strchr(colon + 1, ':'))
		return 1;
	snprintf(type, sizeof(type), "%.*s", (int)(colon - s), s);
	if (parse_u64(type, &t) || t > UINT32_MAX || parse_u64(colon + 1, &c))
		return 1;
	a->type = t;
	a->config = c;
	return 0;
}

/* A named or numeric event (what may carry /terms/): 0, 1 if s is neither, -1 */
static int event_base(struct parse *p, struct kfit_pmu_event *e, const char *s)
{
	const char *why = NULL;
	int r = lookup_named(s, &e->attr, &why);

	if (r < 0)
		return fail(p, "'%s': %s", s, why);
	if (r && lookup_numeric(s, &e->attr))
		return 1;
	pmu_sysfs_pmu_of_type(p, e);
	return 0;
}

static int parse_named(struct parse *p, struct kfit_pmu_event *e, const char *s)
{
	struct all_names all;
	char best[64];
	int r = event_base(p, e, s);

	if (r <= 0)
		return r;
	pmu_names_all(&all);
	if (kfit_strdist_closest(s, all.v, NR_ALL, 1, best, sizeof(best)))
		return fail(p, "unknown event '%s' (did you mean '%s'?)", s, best);
	return fail(p, "unknown event '%s' (pmcstat --list shows them)", s);
}

/*
 * Takes the modifiers off s ("cycles:u", "msr/tsc/:u", perf's "msr/tsc/u")
 * and points *mods at them (NULL if none). A ':' followed by other than
 * modifier letters is a tracepoint's or TYPE:CONFIG's, unless before it
 * is a known event, a PMU's "pmu/.../" or a tracepoint already: then
 * those letters are bad modifiers.
 */
static int split_mods(struct parse *p, char *s, char **mods)
{
	char *slash = strrchr(s, '/'), *colon = strrchr(s, ':');
	struct perf_event_attr a;
	const char *why;
	char buf[96];
	bool must;

	*mods = NULL;
	if (slash && (!colon || colon < slash)) {
		if (!mods_like(slash + 1) || slash == strchr(s, '/'))
			return 0;
		if (mods_check(slash + 1, buf, sizeof(buf)))
			return bad_mods(p, slash + 1, s);
		*mods = strdup(slash + 1);
		slash[1] = '\0';
		return *mods ? 0 : fail(p, "out of memory");
	}
	if (!colon)
		return 0;
	if (mods_like(colon + 1)) {
		if (mods_check(colon + 1, buf, sizeof(buf)))
			return bad_mods(p, colon + 1, s);
		*mods = strdup(colon + 1);
		*colon = '\0';
		return *mods ? 0 : fail(p, "out of memory");
	}
	*colon = '\0';
	must = slash || strchr(s, ':') || lookup_named(s, &a, &why) <= 0;
	*colon = ':';
	return must ? bad_mods(p, colon + 1, s) : 0;
}

/* The next event of the list, zeroed but for perf's defaults; NULL if none can be */
static struct kfit_pmu_event *new_event(struct parse *p, int leader)
{
	struct kfit_pmu_event_list *l = p->l;
	struct kfit_pmu_event *e;
	int cap;

	if (l->n >= KFIT_PMU_MAX_EVENTS) {
		fail(p, "too many events: %d (at most %d)", l->n + 1, KFIT_PMU_MAX_EVENTS);
		return NULL;
	}
	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		e = realloc(l->ev, (size_t)cap * sizeof(*e));
		if (!e) {
			fail(p, "out of memory");
			return NULL;
		}
		l->ev = e;
		l->cap = cap;
	}
	e = &l->ev[l->n];
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	/* perf's default for every event it makes (perf without --guest) */
	e->attr.exclude_guest = 1;
	e->scale = 1.0;
	e->leader = leader < 0 ? l->n : leader;
	e->grouped = leader >= 0;
	l->n++;
	return e;
}

/* A number of mem:ADDR/LEN:TYPE, up to the next '/' or ':' */
static int bp_number(struct parse *p, char **c, __u64 *v, const char *what,
		     const char *s)
{
	size_t n = strcspn(*c, "/:");
	char num[24];

	if (!n || n >= sizeof(num))
		return fail(p, "bad %s in '%s' (mem:ADDR[/LEN][:rwx], e.g. mem:0x1000/8:w)",
			    what, s);
	snprintf(num, sizeof(num), "%.*s", (int)n, *c);
	if (parse_u64(num, v))
		return fail(p, "bad %s '%s' in '%s' (decimal or 0x hex)", what, num, s);
	*c += n;
	return 0;
}

/*
 * "mem:ADDR[/LEN][:rwx][:mods]": a hardware breakpoint, as perf makes
 * it: r and w by default, 4 bytes long (x: a long's size).
 */
static int parse_bp(struct parse *p, struct kfit_pmu_event *e, char *s, char **mods)
{
	char *c = s + 4;
	__u64 addr, len = 0;
	size_t n;

	*mods = NULL;
	if (bp_number(p, &c, &addr, "address", s))
		return -1;
	if (*c == '/') {
		c++;
		if (bp_number(p, &c, &len, "length", s))
			return -1;
	}
	e->attr.bp_type = 0;
	n = *c == ':' ? strcspn(c + 1, ":") : 0;
	if (n && n <= 3 && strspn(c + 1, "rwx") == n) {
		for (c++; n--; c++) {
			int bit = *c == 'r' ? HW_BREAKPOINT_R :
				  *c == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;

			if (e->attr.bp_type & bit)
				return fail(p, "'%c' given twice in '%s'", *c, s);
			e->attr.bp_type |= bit;
		}
	}
	if (*c == ':') {
		if (!mods_like(c + 1) || strchr(c + 1, ':'))
			return fail(p, "bad breakpoint '%s' (mem:ADDR[/LEN][:rwx][:modifiers])", s);
		*mods = c + 1;
		c += strlen(c);
	}
	if (*c)
		return fail(p, "unexpected '%s' in '%s' (mem:ADDR[/LEN][:rwx][:modifiers])",
			    c, s);
	if (!e->attr.bp_type)
		e->attr.bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (!len)
		len = e->attr.bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	e->attr.type = PERF_TYPE_BREAKPOINT;
	e->attr.bp_addr = addr;
	e->attr.bp_len = len;
	strcpy(e->pmu, "breakpoint");
	return 0;
}

/*
 * The terms perf takes on an event that is not a PMU's ("cycles/name=x/"):
 * config*, name=, and period= and metric-id=, which change nothing perf
 * stat counts.
 */
static int event_term(struct parse *p, struct kfit_pmu_event *e, const char *t,
		      const char *v, const char *what)
{
	__u64 *dst = NULL, val;

	if (!strcmp(t, "name"))
		return pmu_sysfs_set_name(p, e, v, what);
	if (!strcmp(t, "config"))
		dst = &e->attr.config;
	else if (!strcmp(t, "config1"))
		dst = &e->attr.config1;
	else if (!strcmp(t, "config2"))
		dst = &e->attr.config2;
	else if (!strcmp(t, "metric-id"))
		return v && *v ? 0 : fail(p, "empty metric-id= in '%s'", what);
	else if (strcmp(t, "period"))
		return fail(p, "unknown term '%s' in '%s' (config, config1, config2, name, period, metric-id)",
			    t, what);
	if (!v)
		v = "1";
	if (parse_u64(v, &val))
		return fail(p, "bad value '%s' for '%s' in '%s' (decimal or 0x hex)",
			    v, t, what);
	if (dst)
		*dst = val;
	return 0;
}

/* "EVENT/terms/", EVENT a named or numeric one: 0, 1 if EVENT is not, -1 */
static int parse_event_terms(struct parse *p, struct kfit_pmu_event *e, char *s)
{
	char *open = strchr(s, '/'), *close = strrchr(s, '/'), *terms, *t, *v;
	int r;

	*open = '\0';
	r = event_base(p, e, s);
	*open = '/';
	if (r)
		return r;
	if (open == close)
		return fail(p, "missing closing '/' in '%s'", s);
	if (close[1])
		return fail(p, "unexpected '%s' after the closing '/' in '%s'", close + 1, s);
	*close = '\0';
	terms = open + 1;
	/* "cycles//" has none */
	while (terms != close && (t = strsep(&terms, ",")) != NULL) {
		v = strchr(t, '=');
		if (v)
			*v++ = '\0';
		if (!*t)
			r = fail(p, "empty term in '%s'", e->name);
		else
			r = event_term(p, e, t, v, e->name);
		if (r)
			break;
	}
	*close = '/';
	return r;
}

/* One event, its modifiers taken off already, into e */
static int resolve(struct parse *p, struct kfit_pmu_event *e, char *s)
{
	char *brace = strpbrk(s, "{}");
	int r;

	if (brace)
		return fail(p, "unexpected '%c' in '%s'", *brace, s);
	if (!*s)
		return fail(p, "missing event name in '%s'", e->name);
	if (strchr(s, '/')) {
		r = parse_event_terms(p, e, s);
		return r <= 0 ? r : pmu_sysfs_parse_pmu_event(p, e, s);
	}
	if (strchr(s, ':') && !lookup_numeric(s, &e->attr)) {
		pmu_sysfs_pmu_of_type(p, e);
		return 0;
	}
	if (strchr(s, ':'))
		return pmu_sysfs_parse_tracepoint(p, e, s);
	return parse_named(p, e, s);
}

static bool is_glob(const char *s)
{
	return !strchr(s, '/') && strchr(s, ':') && strpbrk(s, "*?[");
}

/* "cat:glob": one tracepoint event per match, named after it */
static int parse_tp_glob(struct parse *p, const char *s, const char *mods, int leader)
{
	struct kfit_tpglob tps = { NULL, 0 };
	struct kfit_pmu_event *e;
	char err[512];
	int i, r = 0;

	if (kfit_tpglob_add(&tps, p->tracefs, s, err, sizeof(err))) {
		kfit_tpglob_free(&tps);
		return fail(p, "%s", err);
	}
	if (p->l->n + tps.n > KFIT_PMU_MAX_EVENTS)
		r = fail(p, "too many events: %d (at most %d): '%s' matches %d tracepoints",
			 p->l->n + tps.n, KFIT_PMU_MAX_EVENTS, s, tps.n);
	for (i = 0; !r && i < tps.n; i++) {
		e = new_event(p, leader);
		if (!e || pmu_sysfs_parse_tracepoint(p, e, tps.tp[i].name))
			r = -1;
		else
			snprintf(e->name, sizeof(e->name), "%s%s%s", tps.tp[i].name,
				 mods ? ":" : "", mods ? mods : "");
	}
	kfit_tpglob_free(&tps);
	return r;
}

/* An event's own modifiers, then its group's; its label and group */
static void finish(struct kfit_pmu_event *e, int i, const char *mods,
		   const char *gmods, const char *gname)
{
	size_t n = strlen(e->name);

	if (mods)
		mods_apply(e, mods, false, true);
	if (gmods) {
		snprintf(e->name + n, sizeof(e->name) - n, ":%s", gmods);
		mods_apply(e, gmods, true, i == e->leader);
	}
	if (!*e->label)
		strcpy(e->label, e->name);
	snprintf(e->group, sizeof(e->group), "%s", gname ? gname : "");
}

/*
 * Appends the event text[0..len) (a tracepoint glob: every match); in a
 * group (leader >= 0; gname its name or NULL) with the group's modifiers
 * gmods, applied after the event's own.
 */
static int parse_event(struct parse *p, const char *text, size_t len,
		       const char *gmods, int leader, const char *gname)
{
	char *s, *mods = NULL, *own = NULL, buf[96];
	int first = p->l->n, i, r;
	struct kfit_pmu_event *e = NULL;

	s = strndup(text, len);
	if (!s)
		return fail(p, "out of memory");
	if (strncmp(s, "mem:", 4)) {
		r = split_mods(p, s, &own);
		mods = own;
	} else {
		r = 0;
	}
	if (!r && is_glob(s) && strncmp(s, "mem:", 4)) {
		r = parse_tp_glob(p, s, mods, leader);
	} else if (!r) {
		e = new_event(p, leader);
		if (!e)
			return free(own), free(s), -1;
		snprintf(e->name, sizeof(e->name), "%.*s", (int)len, text);
		if (!strncmp(s, "mem:", 4))
			r = parse_bp(p, e, s, &mods);
		else
			r = resolve(p, e, s);
		if (!r && mods && mods_check(mods, buf, sizeof(buf)))
			r = bad_mods(p, mods, s);
	}
	for (i = first; !r && i < p->l->n; i++)
		finish(&p->l->ev[i], i, mods, gmods, gname);
	free(own);
	free(s);
	return r;
}

/* Whether the '/' at s[i] of the event from s[start] is a terms' (mem:0/8's is not) */
static bool terms_slash(const char *s, size_t start, size_t i)
{
	return strncmp(s + start, "mem:", 4) || memchr(s + start, '/', i - start) ||
	       !isdigit((unsigned char)s[i + 1]);
}

/* Length of the item at s (at most n): up to a ',' outside pmu/.../ and { } */
static size_t item_len(const char *s, size_t n)
{
	bool slash = false;
	size_t i, start = 0;
	int depth = 0;

	for (i = 0; i < n && s[i]; i++) {
		if (s[i] == '/' && (slash || terms_slash(s, start, i)))
			slash = !slash;
		else if (slash)
			continue;
		else if (s[i] == '{' && ++depth)
			start = i + 1;
		else if (s[i] == '}' && depth)
			depth--;
		else if (s[i] == ',' && !depth)
			break;
		else if (s[i] == ',')
			start = i + 1;
	}
	return i;
}

/* The '}' closing the group "{...}...", item at its '{' */
static const char *group_end(struct parse *p, const char *item)
{
	bool slash = false;
	size_t i, start = 1;

	for (i = 1; item[i]; i++) {
		if (item[i] == '/' && (slash || terms_slash(item, start, i))) {
			slash = !slash;
		} else if (slash) {
			continue;
		} else if (item[i] == '{') {
			fail(p, "nested groups are not supported: '%s'", item);
			return NULL;
		} else if (item[i] == '}') {
			return item + i;
		} else if (item[i] == ',') {
			start = i + 1;
		}
	}
	if (slash)
		fail(p, "missing closing '/' in '%s'", item);
	else
		fail(p, "unclosed '{' in '%s'", item);
	return NULL;
}

/* The length of a group's name before its '{' ("g1{a,b}"), or 0 if item is no group */
static size_t group_name_len(const char *item)
{
	size_t n = strspn(item, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	return item[n] == '{' ? n + 1 : 0;
}

/* "{a,b,...}", "name{a,b,...}", either with ":mods" after */
static int parse_group(struct parse *p, const char *item)
{
	size_t n = group_name_len(item) - 1;
	const char *brace = item + n, *end, *mods = NULL, *m;
	int leader = p->l->n;
	char name[32], buf[96];

	if (n >= sizeof(name))
		return fail(p, "group name '%.*s' too long (at most %zu characters)",
			    (int)n, item, sizeof(name) - 1);
	if (n && isdigit((unsigned char)item[0]))
		return fail(p, "bad group name '%.*s' (it starts with a letter)", (int)n, item);
	snprintf(name, sizeof(name), "%.*s", (int)n, item);
	end = group_end(p, brace);
	if (!end)
		return -1;
	if (end[1] && end[1] != ':')
		return fail(p, "unexpected '%s' after the group in '%s'", end + 1, item);
	if (end[1]) {
		mods = end + 2;
		if (mods_check(mods, buf, sizeof(buf)))
			return bad_mods(p, mods, item);
	}
	if (end == brace + 1)
		return fail(p, "empty group in '%s'", item);
	/* Syntax first: "{zz,}" is about the empty event, not the unknown one */
	for (m = brace + 1; m <= end; m += n + 1) {
		n = item_len(m, end - m);
		if (!n)
			return fail(p, "empty event in group '%s'", item);
	}
	for (m = brace + 1; m < end; m += n + 1) {
		n = item_len(m, end - m);
		if (parse_event(p, m, n, mods, leader, name))
			return -1;
	}
	return 0;
}

static int parse_all(struct parse *p, const char *spec)
{
	const char *s;
	char *item;
	size_t n;
	int r;

	for (s = spec;; s += n + 1) {
		n = item_len(s, SIZE_MAX);
		if (!n)
			return fail(p, "empty event in '%s'", spec);
		if (!s[n])
			break;
	}
	for (s = spec;; s += n + 1) {
		n = item_len(s, SIZE_MAX);
		item = strndup(s, n);
		if (!item)
			return fail(p, "out of memory");
		if (group_name_len(item))
			r = parse_group(p, item);
		else
			r = parse_event(p, item, n, NULL, -1, NULL);
		free(item);
		if (r)
			return -1;
		if (!s[n])
			return 0;
	}
}

int kfit_pmu_parse(struct kfit_pmu_event_list *l, const char *spec,
		      const struct kfit_pmu_env *env, char *err, size_t errlen)
{
	struct parse p = {
		.l = l,
		.sysfs = env && env->sysfs ? env->sysfs : SYSFS_PMUS,
		.tracefs = env ? env->tracefs : NULL,
		.err = err,
		.errlen = err ? errlen : 0,
	};
	int n;

	if (p.errlen)
		err[0] = '\0';
	if (!l || l->n < 0 || l->n > l->cap || l->n > KFIT_PMU_MAX_EVENTS ||
	    (l->cap && !l->ev))
		return fail(&p, "bad event list");
	if (!spec || !*spec)
		return fail(&p, "no event given");
	n = l->n;
	if (parse_all(&p, spec)) {
		l->n = n;
		return -1;
	}
	return 0;
}

void kfit_pmu_event_list_free(struct kfit_pmu_event_list *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}
