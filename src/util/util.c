/* util.c: allocation with fault injection, buffers, arrays, the string map,
 * hashing and log-space helpers shared by all modules. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>

#include "sqlift.h"
#include "util/util.h"

int
err_set(struct err *e, int status, const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	for (char *p = e->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return status;
}

int
err_oom(struct err *e)
{
	return err_set(e, SQLIFT_ENOMEM, "out of memory");
}

void
err_clear(struct err *e)
{
	e->status = 0;
	e->msg[0] = '\0';
}

/* Allocations left before the one that fails (0: off); the sampling
 * threads allocate too, so it is counted down atomically. */
static atomic_long fail_countdown;

void
util_fail_alloc_after(long k)
{
	atomic_store(&fail_countdown, k);
}

long
util_fail_alloc_left(void)
{
	return atomic_load(&fail_countdown);
}

/* 1 for exactly the k-th allocation after util_fail_alloc_after(k). */
static int
alloc_fails(void)
{
	long c = atomic_load_explicit(&fail_countdown, memory_order_relaxed);

	while (c > 0)
		if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1))
			return c == 1;
	return 0;
}

void *
xmalloc(size_t n)
{
	return alloc_fails() ? NULL : malloc(n ? n : 1);
}

void *
xcalloc(size_t n, size_t sz)
{
	return alloc_fails() ? NULL : calloc(n ? n : 1, sz ? sz : 1);
}

void *
xrealloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : realloc(p, n ? n : 1);
}

char *
xstrndup(const char *s, size_t n)
{
	char *r = xmalloc(n + 1);

	if (r) {
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void
buf_init(struct buf *b)
{
	memset(b, 0, sizeof *b);
}

void
buf_free(struct buf *b)
{
	free(b->s);
	buf_init(b);
}

void
buf_clear(struct buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

static int
buf_reserve(struct buf *b, size_t extra)
{
	size_t cap;
	char *s;

	if (b->oom)
		return -1;
	if (b->len + extra + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	if (!(s = xrealloc(b->s, cap))) {
		b->oom = 1;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

void
buf_add(struct buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
buf_take(struct buf *b)
{
	char *s;

	if (b->oom) {
		buf_free(b);
		return NULL;
	}
	s = b->s ? b->s : xstrdup("");
	buf_init(b);
	return s;
}

int
vec_grow_(void **v, size_t *cap, size_t need, size_t item)
{
	size_t c;
	void *p;

	if (need <= *cap)
		return 0;
	c = *cap ? *cap * 2 : 8;
	while (c < need)
		c *= 2;
	if (!(p = xrealloc(*v, c * item)))
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

uint64_t
fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
smap_init(struct smap *m)
{
	memset(m, 0, sizeof *m);
}

void
smap_free(struct smap *m)
{
	while (m->chunk) {
		char *prev;
		memcpy(&prev, m->chunk, sizeof prev);
		free(m->chunk);
		m->chunk = prev;
	}
	free(m->v);
	smap_init(m);
}

/* key's slot, or the empty slot where it goes (h: its hash); keys are
 * compared only where the hashes agree */
static size_t
smap_slot(const struct smap *m, uint64_t h, const char *key, size_t len)
{
	size_t i = (size_t)h & (m->cap - 1);

	while (m->v[i].key && (m->v[i].hash != (uint32_t)h ||
	    strncmp(m->v[i].key, key, len) != 0 || m->v[i].key[len] != '\0'))
		i = (i + 1) & (m->cap - 1);
	return i;
}

int
smap_getn(const struct smap *m, const char *key, size_t len)
{
	size_t i;

	if (m->cap == 0)
		return -1;
	i = smap_slot(m, fnv1a(FNV_INIT, key, len), key, len);
	return m->v[i].key ? m->v[i].val : -1;
}

void
smap_prefetch(const struct smap *m, const char *key, size_t len)
{
	if (m->cap)
		__builtin_prefetch(&m->v[(size_t)fnv1a(FNV_INIT, key, len) &
		    (m->cap - 1)]);
}

int
smap_get(const struct smap *m, const char *key)
{
	return smap_getn(m, key, strlen(key));
}

/* cap slots (a power of two, at least twice m's keys); keys keep
 * their hashes */
static int
smap_resize(struct smap *m, size_t cap)
{
	struct smap n;

	n = *m;
	n.cap = cap;
	n.n = 0;
	if (!(n.v = xcalloc(n.cap, sizeof *n.v)))
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->v[i].key) {
			size_t j = (size_t)m->v[i].hash & (n.cap - 1);
			while (n.v[j].key)
				j = (j + 1) & (n.cap - 1);
			n.v[j] = m->v[i];
			n.n++;
		}
	}
	free(m->v);
	*m = n;
	return 0;
}

/* twice the slots */
static int
smap_rehash(struct smap *m)
{
	return smap_resize(m, m->cap ? m->cap * 2 : 16);
}

int
smap_reserve(struct smap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 16;

	while ((n + 1) * 2 > cap)
		cap *= 2;
	return cap > m->cap ? smap_resize(m, cap) : 0;
}

/* A copy of key[0 .. len) with a NUL, in m's chunks (one allocation
 * for many keys: a map of a domain's constants holds 100,000). */
static char *
smap_keep(struct smap *m, const char *key, size_t len)
{
	char *k;

	if (m->used + len + 1 > m->room) {
		size_t room = sizeof(char *) + len + 1 > 65536 ?
		    sizeof(char *) + len + 1 : 65536;
		char *c = xmalloc(room);
		if (!c)
			return NULL;
		memcpy(c, &m->chunk, sizeof m->chunk);
		m->chunk = c;
		m->used = sizeof(char *);
		m->room = room;
	}
	k = m->chunk + m->used;
	memcpy(k, key, len);
	k[len] = '\0';
	m->used += len + 1;
	return k;
}

/* The slot of key, added (with val) when missing; -1 when out of memory. */
static long
smap_find_add(struct smap *m, const char *key, size_t len, int val)
{
	uint64_t h = fnv1a(FNV_INIT, key, len);
	size_t i;

	if ((m->n + 1) * 2 > m->cap && smap_rehash(m) < 0)
		return -1;
	i = smap_slot(m, h, key, len);
	if (!m->v[i].key) {
		if (!(m->v[i].key = smap_keep(m, key, len)))
			return -1;
		m->v[i].hash = (uint32_t)h;
		m->v[i].val = val;
		m->n++;
	}
	return (long)i;
}

int
smap_putn(struct smap *m, const char *key, size_t len, int val)
{
	long i = smap_find_add(m, key, len, val);

	if (i < 0)
		return -1;
	m->v[i].val = val;
	return 0;
}

int
smap_intern(struct smap *m, const char *key, size_t len, int val,
    const char **kept)
{
	long i = smap_find_add(m, key, len, val);

	if (i < 0)
		return -1;
	*kept = m->v[i].key;
	return m->v[i].val;
}

int
smap_copy(struct smap *dst, const struct smap *src,
    void (*each)(void *arg, const char *key, int val), void *arg)
{
	if (!src->cap)
		return 0;
	/* the same slots, so no key is hashed or compared again */
	if (!(dst->v = xcalloc(src->cap, sizeof *dst->v)))
		return -1;
	dst->cap = src->cap;
	for (size_t i = 0; i < src->cap; i++)
		if (src->v[i].key) {
			dst->v[i] = src->v[i];
			if (!(dst->v[i].key = smap_keep(dst, src->v[i].key,
			    strlen(src->v[i].key))))
				return -1;
			dst->n++;
			if (each)
				each(arg, dst->v[i].key, dst->v[i].val);
		}
	return 0;
}

int
smap_put(struct smap *m, const char *key, int val)
{
	return smap_putn(m, key, strlen(key), val);
}

struct idpair {
	int64_t id;
	int val;
};

static int
idpair_cmp(const void *a, const void *b)
{
	const struct idpair *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Dense when the span is within IDMAP_SPREAD times the count (plus a
 * little, so that small maps are always dense). */
#define IDMAP_SPREAD 4
#define IDMAP_SLACK 4096

int
idmap_init(struct idmap *m, const int64_t *ids, const int *val, size_t n)
{
	struct idpair *p;
	int64_t lo = n ? ids[0] : 0, hi = lo;

	memset(m, 0, sizeof *m);
	for (size_t i = 1; i < n; i++) {
		lo = ids[i] < lo ? ids[i] : lo;
		hi = ids[i] > hi ? ids[i] : hi;
	}
	if ((uint64_t)hi - (uint64_t)lo < IDMAP_SPREAD * (uint64_t)n + IDMAP_SLACK) {
		/* dense: no sort; a repeated id keeps its last value */
		m->n = n ? (size_t)((uint64_t)hi - (uint64_t)lo) + 1 : 0;
		if (!(m->val = xmalloc((m->n + 1) * sizeof *m->val)))
			return -1;
		memset(m->val, -1, (m->n + 1) * sizeof *m->val);
		m->lo = lo;
		for (size_t i = 0; i < n; i++)
			m->val[ids[i] - lo] = val ? val[i] : (int)i;
		return 0;
	}
	if (!(p = xmalloc((n + 1) * sizeof *p)))
		return -1;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct idpair){ ids[i], val ? val[i] : (int)i };
	qsort(p, n, sizeof *p, idpair_cmp);
	if (!(m->ids = xmalloc(n * sizeof *m->ids)) ||
	    !(m->val = xmalloc(n * sizeof *m->val))) {
		free(p);
		idmap_free(m);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		m->ids[i] = p[i].id;
		m->val[i] = p[i].val;
	}
	m->n = n;
	free(p);
	return 0;
}

void
idmap_free(struct idmap *m)
{
	free(m->ids);
	free(m->val);
	memset(m, 0, sizeof *m);
}

static size_t
idset_slot(const struct idset *s, int64_t id)
{
	size_t h = (size_t)hash_mix(FNV_INIT, (uint64_t)id) & (s->slots - 1);

	while (s->keys[h] >= 0 && s->keys[h] != id)
		h = (h + 1) & (s->slots - 1);
	return h;
}

/* The hash table at slots, holding the ids of s (either form). */
static int
idset_rehash(struct idset *s, size_t slots)
{
	struct idset t = { NULL, 0, NULL, slots, 0 };

	if (!(t.keys = xmalloc(slots * sizeof *t.keys)))
		return -1;
	memset(t.keys, -1, slots * sizeof *t.keys);
	for (size_t i = 0; s->keys && i < s->slots; i++)
		if (s->keys[i] >= 0)
			t.keys[idset_slot(&t, s->keys[i])] = s->keys[i];
	for (size_t i = 0; !s->keys && i < s->nbytes * 8; i++)
		if (s->bits[i / 8] & (1u << (i % 8)))
			t.keys[idset_slot(&t, (int64_t)i)] = (int64_t)i;
	t.n = s->n;
	idset_free(s);
	*s = t;
	return 0;
}

int
idset_add(struct idset *s, int64_t id)
{
	size_t need = (size_t)((uint64_t)id / 8) + 1, h;

	if (!s->keys && need > s->nbytes) {
		/* 8 bytes of bitmap per id, and 4 KiB: past that, a table */
		if (need <= 8 * (s->n + 1) + 4096) {
			size_t cap = need * 2 > 8 * (s->n + 1) + 4096 ? need :
			    need * 2;
			unsigned char *b = xrealloc(s->bits, cap);
			if (!b)
				return -1;
			memset(b + s->nbytes, 0, cap - s->nbytes);
			s->bits = b;
			s->nbytes = cap;
		} else {
			/* slots a power of two: idset_slot masks with slots-1 */
			size_t slots = 64;
			while (slots < 4 * s->n)
				slots *= 2;
			if (idset_rehash(s, slots) < 0)
				return -1;
		}
	}
	if (!s->keys) {
		if (s->bits[id / 8] & (1u << (id % 8)))
			return 0;
		s->bits[id / 8] |= (unsigned char)(1u << (id % 8));
		s->n++;
		return 1;
	}
	if (s->keys[h = idset_slot(s, id)] == id)
		return 0;
	if (2 * (s->n + 1) > s->slots) {
		if (idset_rehash(s, s->slots * 2) < 0)
			return -1;
		h = idset_slot(s, id);
	}
	s->keys[h] = id;
	s->n++;
	return 1;
}

int
idset_has(const struct idset *s, int64_t id)
{
	if (id < 0)
		return 0;
	if (s->keys)
		return s->keys[idset_slot(s, id)] == id;
	return (uint64_t)id / 8 < s->nbytes &&
	    (s->bits[id / 8] & (1u << (id % 8)));
}

void
idset_free(struct idset *s)
{
	free(s->bits);
	free(s->keys);
	memset(s, 0, sizeof *s);
}

double
log_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	if (a < b) {
		double t = a;
		a = b;
		b = t;
	}
	return a + log1p(exp(b - a));
}

double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double
mem_resident(void)
{
	char buf[128], *p;
	unsigned long long pages;
	long page = sysconf(_SC_PAGESIZE);
	ssize_t n = -1;
	int fd = open("/proc/self/statm", O_RDONLY);
	struct rusage ru;

	/* statm: total and resident pages, ...; read without allocating,
	 * as this is asked when memory runs short */
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
	}
	if (n > 0 && page > 0) {
		buf[n] = 0;
		strtoull(buf, &p, 10);
		pages = strtoull(p, NULL, 10);
		return (double)pages * (double)page;
	}
	/* no /proc: the peak so far */
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss * 1024;    /* Linux: kilobytes */
}

double
mem_total(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}
