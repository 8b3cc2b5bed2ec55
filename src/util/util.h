/* util.h: small shared pieces of libsqlift: allocation that reports
 * failure, growable buffers and arrays, a string-to-int hash map, hashing,
 * log-space arithmetic. */
#ifndef SQLIFT_UTIL_H
#define SQLIFT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define WUR __attribute__((warn_unused_result))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Error text of a failed call: a fixed buffer, as curl's error buffer.  */
#define ERR_MAX 512
struct err {
	int status;          /* enum sqlift_status */
	char msg[ERR_MAX];   /* one line, no newline */
};
/* Records status and message; returns status so that callers can write
 * `return err_set(e, SQLIFT_EINPUT, "...")`. */
int err_set(struct err *e, int status, const char *fmt, ...) PRINTF(3, 4);
int err_oom(struct err *e);
/* Forgets what e recorded (a limit a caller takes another way round). */
void err_clear(struct err *e);

/* Fault injection for tests: the k-th allocation from now fails (0: off). */
void util_fail_alloc_after(long k);
/* Allocations left until the one that fails (0: it came, or off). */
long util_fail_alloc_left(void);
void *xmalloc(size_t n);            /* NULL on failure */
void *xcalloc(size_t n, size_t sz); /* NULL on failure */
void *xrealloc(void *p, size_t n);  /* NULL on failure, p untouched */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Growable byte buffer; always NUL-terminated when len > 0.  Caller owns
 * .s and frees it with buf_free(). */
struct buf {
	char *s;
	size_t len, cap;
	int oom;             /* set once an append failed; later appends no-op */
};
void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) PRINTF(2, 3);
void buf_clear(struct buf *b);
/* Takes the string out of the buffer; the caller frees it. NULL on oom. */
char *buf_take(struct buf *b);

/* Growable array of fixed-size items. */
#define VEC(T) struct { T *v; size_t n, cap; }
int vec_grow_(void **v, size_t *cap, size_t need, size_t item) WUR;
#define VEC_PUSH(vec, x) \
	(vec_grow_((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) \
	    ? -1 : ((vec).v[(vec).n++] = (x), 0))

/* Open-addressing map from strings to ints; keys are copied. */
struct smap {
	struct sment {       /* a slot: key NULL when empty */
		char *key;
		uint32_t hash;   /* fnv1a of key, its low 32 bits (the slot's) */
		int val;
	} *v;
	size_t n, cap;       /* cap is a power of two */
	char *chunk;         /* the keys' storage: chunks, each opening with */
	size_t used, room;   /* a pointer to the one before; used of room */
};
void smap_init(struct smap *m);
void smap_free(struct smap *m);
/* Returns the value or -1. */
int smap_get(const struct smap *m, const char *key);
int smap_getn(const struct smap *m, const char *key, size_t len);
/* Inserts or replaces; -1 on out of memory. */
int smap_put(struct smap *m, const char *key, int val) WUR;
int smap_putn(struct smap *m, const char *key, size_t len, int val) WUR;
/* Makes room for n keys in all without a rehash; -1 on out of memory. */
int smap_reserve(struct smap *m, size_t n) WUR;
/* The value of key[0 .. len), or, when it has none, val (>= 0) put for
 * it; *kept: the map's copy of the key (valid until smap_free).  One
 * probe; -1 on out of memory. */
int smap_intern(struct smap *m, const char *key, size_t len, int val,
    const char **kept) WUR;
/* Hints that key[0 .. len) is about to be looked up or interned: its
 * slot is fetched into the cache meanwhile (a large map misses the
 * cache on every key otherwise).  Changes nothing. */
void smap_prefetch(const struct smap *m, const char *key, size_t len);
/* dst (initialised, empty) becomes a copy of src; -1 on out of memory.
 * each(arg, key, val) is called with dst's copy of every key. */
int smap_copy(struct smap *dst, const struct smap *src,
    void (*each)(void *arg, const char *key, int val), void *arg) WUR;

uint64_t fnv1a(uint64_t h, const void *p, size_t n);
#define FNV_INIT 0xcbf29ce484222325ULL

/* One word into hash h: word by word is much faster than fnv1a's bytes
 * (the lifted engine's class index and cache keys, the shattering's
 * supports). */
static inline uint64_t
hash_mix(uint64_t h, uint64_t x)
{
	h ^= x;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* The first index i of the ascending v[0 .. n) with v[i] >= x (n when
 * none): where x is, or would go. */
static inline size_t
i64_lower(const int64_t *v, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Ids (constant ids, which a database may spread far apart) to ints,
 * -1 for an id not in the map.  Dense (val[id - lo]) when the ids span at
 * most a few times their count, else ids ascending with val beside them
 * and a binary search: memory stays a multiple of the count, whatever
 * the largest id is (a crafted database, or years of nightly refreshes). */
struct idmap {
	int64_t lo;          /* dense: id lo + i is val[i], i < n */
	int64_t *ids;        /* sparse: ascending, ids[i]'s value is val[i] */
	int *val;
	size_t n;
};

/* m from the pairs (ids[i], val[i]), i < n, in any order (val NULL: the
 * value of ids[i] is i); a repeated id keeps one of its values.  -1 when
 * out of memory, m then empty. */
int idmap_init(struct idmap *m, const int64_t *ids, const int *val,
    size_t n) WUR;
void idmap_free(struct idmap *m);

static inline int
idmap_get(const struct idmap *m, int64_t id)
{
	size_t i;

	if (!m->ids) {
		/* unsigned: id - lo may pass INT64_MAX */
		uint64_t o = (uint64_t)id - (uint64_t)m->lo;
		return o < m->n ? m->val[o] : -1;
	}
	i = i64_lower(m->ids, m->n, id);
	return i < m->n && m->ids[i] == id ? m->val[i] : -1;
}

/* A growing set of ids >= 0 (a type's domain while it loads): a bitmap
 * while the ids stay within 64 times their count plus 32768, else an
 * open hash table, so that a far id costs no memory. */
struct idset {
	unsigned char *bits;   /* bitmap: id i is bit i % 8 of bits[i / 8] */
	size_t nbytes;
	int64_t *keys;         /* hash table (when not NULL): -1 for empty */
	size_t slots;          /* a power of two, at least twice n */
	size_t n;              /* ids in the set */
};

/* Adds id (>= 0): 1 if it was not in the set, 0 if it was, -1 when out
 * of memory (the set as before). */
int idset_add(struct idset *s, int64_t id) WUR;
int idset_has(const struct idset *s, int64_t id);
void idset_free(struct idset *s);

/* log(exp(a) + exp(b)), exact at -inf. */
double log_add(double a, double b);

/* Seconds on the monotonic clock, for time limits and timings. */
double now_seconds(void);

/* The process's resident memory now (from /proc; without it, its peak
 * so far), and the machine's physical memory, in bytes (0 if unknown). */
double mem_resident(void);
double mem_total(void);

#endif
