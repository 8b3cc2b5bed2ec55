/* evidence.c: constants and domain membership, and evidence atoms:
 * buffered, checked for contradictions and inserted in key order into the
 * ev_ tables (or, while the evidence is replaced, handed to replace.c);
 * read back as domains, atoms and a fingerprint.  Statements come from
 * sql/evidence.sql, per-predicate ones are built here. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

#define PEND_CHUNK 65536  /* atoms sorted and inserted at once */

int
evidence_dom_mark(struct store *s, int t, int64_t cid)
{
	if (cid < 0 || cid > INT32_MAX)
		return -2;  /* no constant has it */
	return idset_add(&s->dom_set.v[t], cid);
}

void
store_set_limits(struct store *s, int64_t max_constants, int64_t max_domain)
{
	s->max_constants = max_constants;
	s->max_domain = max_domain;
}

int
store_in_domain(const struct store *s, int t, int64_t cid)
{
	return t >= 0 && (size_t)t < s->dom_set.n &&
	    idset_has(&s->dom_set.v[t], cid);
}

/* const_put and domain_put, prepared on first use (by a load). */
static int
const_stmts(struct store *s, struct err *e)
{
	int rc;

	if (!s->const_put && (rc = db_prep(s, sql_const_put, &s->const_put, e)))
		return rc;
	if (!s->domain_put &&
	    (rc = db_prep(s, sql_domain_put, &s->domain_put, e)))
		return rc;
	return 0;
}

int
evidence_const_add(struct store *s, int t, const char *name, size_t len,
    int64_t *id, struct err *e)
{
	int cid, r;

	if ((r = store_consts_load(s, e)) || (r = const_stmts(s, e)))
		return r;
	if ((cid = smap_getn(&s->consts, name, len)) < 0) {
		if (s->max_constants > 0 && (int64_t)s->consts.n >= s->max_constants)
			return err_set(e, SQLIFT_EINPUT, "more than %lld constants "
			    "(raise the limit with --max-constants)",
			    (long long)s->max_constants);
		sqlite3_bind_text(s->const_put, 1, name, (int)len, SQLITE_STATIC);
		r = sqlite3_step(s->const_put);
		sqlite3_reset(s->const_put);
		if (r != SQLITE_DONE)
			return db_err(s, e, "constants");
		if (sqlite3_last_insert_rowid(s->db) > INT32_MAX)
			return err_set(e, SQLIFT_EDB, "%s: corrupt database: a "
			    "constant id past %d", s->path, INT32_MAX);
		cid = (int)sqlite3_last_insert_rowid(s->db);
		if (smap_putn(&s->consts, name, len, cid) < 0)
			return err_oom(e);
	}
	*id = cid;
	if (t < 0)
		return 0;
	if ((r = evidence_dom_mark(s, t, cid)) < 0)
		return r == -2 ? err_set(e, SQLIFT_EDB, "%s: corrupt database: "
		    "constant id %lld", s->path, (long long)cid) : err_oom(e);
	if (r == 1 && s->max_domain > 0 &&
	    (int64_t)s->dom_set.v[t].n > s->max_domain)
		return err_set(e, SQLIFT_EINPUT, "the domain of %s has more than "
		    "%lld constants (raise the limit with --max-domain)",
		    s->type_names.v[t], (long long)s->max_domain);
	if (r == 1) {
		sqlite3_bind_int64(s->domain_put, 1, s->type_ids.v[t]);
		sqlite3_bind_int64(s->domain_put, 2, cid);
		r = sqlite3_step(s->domain_put);
		sqlite3_reset(s->domain_put);
		if (r != SQLITE_DONE)
			return db_err(s, e, "domains");
	}
	return 0;
}

void
evidence_free(struct store *s)
{
	free(s->pend);
	s->pend = NULL;
	s->npend = 0;
	replace_free(s);
}

static struct pend_atom *
pend_at(const struct store *s, size_t i)
{
	return (struct pend_atom *)(void *)(s->pend + i * s->pend_size);
}

/* Orders by predicate, arguments, then line. */
static int
pend_cmp(const void *x, const void *y, void *arg)
{
	const struct pend_atom *a = x, *b = y;
	const struct store *s = arg;

	if (a->pred != b->pred)
		return a->pred < b->pred ? -1 : 1;
	for (int i = 0; i < s->preds.v[a->pred].arity; i++)
		if (a->args[i] != b->args[i])
			return a->args[i] < b->args[i] ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

static int
same_atom(const struct store *s, const struct pend_atom *a,
    const struct pend_atom *b)
{
	if (a->pred != b->pred)
		return 0;
	for (int i = 0; i < s->preds.v[a->pred].arity; i++)
		if (a->args[i] != b->args[i])
			return 0;
	return 1;
}

/* The message for atom a whose truth contradicts earlier evidence. */
static int
contradiction(struct store *s, const struct pend_atom *a, struct err *e)
{
	const struct store_pred *p = &s->preds.v[a->pred];
	sqlite3_stmt *st = NULL;
	struct buf b;
	int rc;

	buf_init(&b);
	if (sqlite3_prepare_v2(s->db, sql_const_name, -1, &st, NULL) == SQLITE_OK)
		for (int i = 0; i < p->arity; i++) {
			sqlite3_bind_int64(st, 1, a->args[i]);
			buf_puts(&b, i ? "," : "");
			if (sqlite3_step(st) == SQLITE_ROW)
				buf_puts(&b, (const char *)sqlite3_column_text(st, 0));
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	rc = err_set(e, SQLIFT_EINPUT, "%s:%d: contradictory evidence: %s(%s) is "
	    "%s here and %s before", a->file, a->line, p->name, b.s ? b.s : "",
	    a->truth ? "true" : "false", a->truth ? "false" : "true");
	buf_free(&b);
	return rc;
}

/* Sorts the buffered atoms and inserts them: in key order the B-tree
 * stays warm in a small page cache, so memory does not grow with the
 * file.  Repeats are skipped; a contradiction is an error. */
int
evidence_flush(struct store *s, struct err *e)
{
	size_t n = s->npend;
	int rc = 0;

	s->npend = 0;
	if (n == 0)
		return 0;
	qsort_r(s->pend, n, s->pend_size, pend_cmp, s);
	for (size_t i = 0; i < n; i++) {
		struct pend_atom *a = pend_at(s, i);
		struct store_pred *p = &s->preds.v[a->pred];
		sqlite3_stmt *ins, *get;
		int r, old;

		if ((r = model_pred_stmts(s, (size_t)a->pred, e)))
			return r;
		ins = s->pstmt.v[a->pred].ins;
		get = s->pstmt.v[a->pred].get;

		if (i > 0 && same_atom(s, pend_at(s, i - 1), a)) {
			if (pend_at(s, i - 1)->truth != a->truth)
				return contradiction(s, a, e);
			continue;
		}
		if (s->rep) {
			if ((r = replace_atom(s, a, e)) < 0)
				return contradiction(s, a, e);
			if (r > 0)
				return r;
			continue;
		}
		for (int k = 0; k < p->arity; k++)
			sqlite3_bind_int64(ins, k + 1, a->args[k]);
		sqlite3_bind_int(ins, p->arity + 1, a->truth);
		r = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (r != SQLITE_DONE)
			return db_err(s, e, p->table);
		if (sqlite3_changes(s->db) > 0)
			continue;
		/* stored before: the same truth is a harmless repeat */
		for (int k = 0; k < p->arity; k++)
			sqlite3_bind_int64(get, k + 1, a->args[k]);
		r = sqlite3_step(get);
		old = r == SQLITE_ROW ? sqlite3_column_int(get, 0) : a->truth;
		sqlite3_reset(get);
		if (r != SQLITE_ROW && r != SQLITE_DONE)
			return db_err(s, e, p->table);
		if (old != a->truth)
			return contradiction(s, a, e);
	}
	return rc;
}

int
store_atom_add(struct store *s, int pi, const char *const *args,
    const size_t *lens, int truth, const char *file, int line, struct err *e)
{
	struct store_pred *p = &s->preds.v[pi];
	struct pend_atom *a;
	int rc;

	if (!s->pend && !(s->pend = xmalloc(PEND_CHUNK * s->pend_size)))
		return err_oom(e);
	if (s->npend == PEND_CHUNK && (rc = evidence_flush(s, e)))
		return rc;
	a = pend_at(s, s->npend);
	for (int i = 0; i < p->arity; i++)
		if ((rc = evidence_const_add(s, model_type_index(s, p->types[i]), args[i],
		    lens[i], &a->args[i], e))) {
			if (rc == SQLIFT_EINPUT) {
				char msg[ERR_MAX];
				snprintf(msg, sizeof msg, "%s", e->msg);
				err_set(e, rc, "%s:%d: %s", file, line, msg);
			}
			return rc;
		}
	a->pred = pi;
	a->truth = truth;
	a->line = line;
	a->file = file;
	s->npend++;
	return 0;
}

int
store_evfile_add(struct store *s, const char *path, int64_t atoms,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = evidence_flush(s, e)))
		return rc;
	if (s->rep)
		return replace_file(s, path, atoms, e);
	if ((rc = db_prep(s, sql_evfile_put, &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, atoms);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "evidence_files");
}

static int names_get(struct store *s, char ***out, int64_t *nid,
    int *owned, struct err *e);
static uint64_t key_row(uint64_t h, sqlite3_stmt *st, int ncol);
static void key_add(uint64_t key[2], uint64_t h);

/* the cubes key's tag of a domains row ("dom") */
#define KEY_DOM_TAG 0x646f6dULL

void
store_domains_free(struct mln_domain *dom, int n)
{
	if (!dom)
		return;
	for (int t = 0; t < n; t++) {
		if (dom[t].pool)
			free(dom[t].pool);
		else
			for (int i = 0; i < dom[t].n; i++)
				free(dom[t].names[i]);
		free(dom[t].names);
		free(dom[t].ids);
	}
	free(dom);
}

/* A name's first 8 bytes as a big-endian number (NUL-padded): numbers
 * compare as the names' prefixes do under strcmp. */
static uint64_t
prefix8(const char *s)
{
	uint64_t k = 0;

	for (int i = 0; i < 8; i++) {
		k = k << 8 | (unsigned char)*s;
		s += *s != '\0';
	}
	return k;
}

struct skey {
	uint64_t pre;
	uint32_t at;           /* index into the arrays sorted */
};

/* a before b: by prefix, then name, then index */
static int
skey_before(const struct skey *a, const struct skey *b, char *const *names)
{
	int c;

	if (a->pre != b->pre)
		return a->pre < b->pre;
	if ((c = strcmp(names[a->at], names[b->at])))
		return c < 0;
	return a->at < b->at;
}

/* Merge sort of k[0 .. n) by skey_before, tmp as room (the runs of equal
 * prefixes, which are rare and short unless names share 8 bytes). */
static void
skey_sort(struct skey *k, struct skey *tmp, size_t n, char *const *names)
{
	size_t h = n / 2, i = 0, j = h, o = 0;

	if (n < 2)
		return;
	skey_sort(k, tmp, h, names);
	skey_sort(k + h, tmp, n - h, names);
	while (i < h && j < n)
		tmp[o++] = skey_before(&k[j], &k[i], names) ? k[j++] : k[i++];
	while (i < h)
		tmp[o++] = k[i++];
	memcpy(k, tmp, o * sizeof *k);
}

/* Sorts names (and ids with them) by strcmp of the names, which is
 * SQLite's BINARY order of text without NUL bytes, ties in the order
 * given: a radix sort of the 8-byte prefixes (byte by byte from the
 * last, skipping a byte all share), then the runs of equal prefixes by
 * skey_sort.  -1 on out of memory (nothing moved). */
static int
sort_by_name(char **names, int64_t *ids, size_t n)
{
	struct skey *k, *tmp;
	void *old;

	if (n > UINT32_MAX)
		return -1;
	if (n == 0)
		return 0;  /* names may be NULL */
	k = xmalloc((n + 1) * sizeof *k);
	tmp = xmalloc((n + 1) * sizeof *tmp);
	if (!k || !tmp) {
		free(k);
		free(tmp);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (struct skey){ prefix8(names[i]), (uint32_t)i };
	for (int shift = 0; n && shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		struct skey *x;
		for (size_t i = 0; i < n; i++)
			count[((k[i].pre >> shift) & 255) + 1]++;
		if (count[((k[0].pre >> shift) & 255) + 1] == n)
			continue;  /* a byte all share */
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			tmp[count[(k[i].pre >> shift) & 255]++] = k[i];
		x = k, k = tmp, tmp = x;
	}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && k[j].pre == k[i].pre; j++)
			;
		if (j - i > 1)
			skey_sort(k + i, tmp, j - i, names);
	}
	/* the permutation, applied through tmp's room (16 bytes a key: a
	 * name pointer, then an id) */
	old = tmp;
	{
		char **nn = old;
		for (size_t i = 0; i < n; i++)
			nn[i] = names[k[i].at];
		memcpy(names, nn, n * sizeof *names);
		if (ids) {
			int64_t *ii = old;
			for (size_t i = 0; i < n; i++)
				ii[i] = ids[k[i].at];
			memcpy(ids, ii, n * sizeof *ids);
		}
	}
	free(k);
	free(tmp);
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every constant the model gives type t is in dom (sorted by name): the
 * lifted search indexes blocks by their position there.  The model's
 * names, sorted the same way, are merged with dom's; when one is missing
 * the first in the model's order is named. */
static int
domain_check(struct store *s, const struct mln_model *m, size_t t,
    const struct mln_domain *dom, struct err *e)
{
	const struct mln_type *ty = &m->types.v[t];
	size_t n = ty->consts.n, k = 0;
	char **names = xmalloc((n + 1) * sizeof *names);
	int64_t *idx = xmalloc((n + 1) * sizeof *idx);
	int ok = 0;

	if (names && idx) {
		for (size_t i = 0; i < n; i++) {
			names[i] = m->consts.v[ty->consts.v[i]];
			idx[i] = (int64_t)i;
		}
		if (sort_by_name(names, idx, n) == 0) {
			int c = 1;
			for (int i = 0; k < n && i < dom->n; i++)
				if (!(c = strcmp(dom->names[i], names[k])))
					k++;
				else if (c > 0)
					break;  /* names[k] is not in dom */
			ok = k == n;
		}
	}
	free(names);
	free(idx);
	for (k = 0; !ok && k < n; k++) {
		const char *name = m->consts.v[ty->consts.v[k]];
		if (!dom->n || !bsearch(&name, dom->names, (size_t)dom->n,
		    sizeof *dom->names, cmp_name))
			return err_set(e, SQLIFT_EDB, "%s: corrupt database: "
			    "constant %s of type %s is missing from domains",
			    s->path, name, ty->name);
	}
	return 0;
}

/* dom[t] from ids (taken: ids[0 .. n) ascending) and the names byid
 * gives them, copied into one block, sorted by name.  -1 if out of
 * memory (ids freed, dom[t] untouched). */
static int
domain_fill(struct mln_domain *d, int64_t *ids, size_t n, char *const *byid)
{
	size_t len = 0, at = 0;
	char **names, *pool;

	if (n == 0) {
		free(ids);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		len += strlen(byid[ids[i]]) + 1;
	names = xmalloc(n * sizeof *names);
	pool = xmalloc(len);
	if (!names || !pool) {
		free(names);
		free(pool);
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(byid[ids[i]]) + 1;
		names[i] = memcpy(pool + at, byid[ids[i]], l);
		at += l;
	}
	d->n = (int)n;
	d->names = names;
	d->ids = ids;
	d->pool = pool;
	return sort_by_name(names, ids, n);
}

/* The domains of m's types (dom, zeroed) from one scan of every domains
 * row, in a snapshot whose constants' names are by id (byid, nid): each
 * type's ids ascending, those a constants row names, as sql_domain_ids
 * gives them.  The scan also sums the cubes key's share of the domains
 * rows into s->dom_key, as key_catalogue's own scan would.  *done 0 (dom
 * left zeroed): a row that is not two integers, which only the per-type
 * statements read as before. */
static int
domains_scan(struct store *s, const struct mln_model *m, char *const *byid,
    int64_t nid, struct mln_domain *dom, int *done, struct err *e)
{
	sqlite3_stmt *st;
	VEC(int64_t) *ids;
	int64_t *tid;          /* per model type: its store id (if have) */
	unsigned char *have;
	uint64_t k[2] = { 0, 0 };
	size_t nt = m->types.n;
	int rc, mixed = 0;

	*done = 0;
	ids = xcalloc(nt + 1, sizeof *ids);
	tid = xcalloc(nt + 1, sizeof *tid);
	have = xcalloc(nt + 1, 1);
	if (!ids || !tid || !have) {
		rc = err_oom(e);
		goto out;
	}
	for (size_t t = 0; t < nt; t++)
		for (size_t j = 0; j < s->type_names.n; j++)
			if (!strcmp(s->type_names.v[j], m->types.v[t].name)) {
				tid[t] = s->type_ids.v[j];
				have[t] = 1;
			}
	if ((rc = db_prep(s, sql_domains_by_type, &st, e)))
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ty, id;
		key_add(k, key_row(hash_mix(FNV_INIT, KEY_DOM_TAG), st, 2));
		if (mixed || (mixed = sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 1) != SQLITE_INTEGER))
			continue;
		ty = sqlite3_column_int64(st, 0);
		id = sqlite3_column_int64(st, 1);
		if (id < 0 || id >= nid || !byid[id])
			continue;  /* no constants row: not in the join */
		for (size_t t = 0; t < nt; t++)
			if (have[t] && tid[t] == ty && VEC_PUSH(ids[t], id) < 0) {
				sqlite3_finalize(st);
				rc = err_oom(e);
				goto out;
			}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rc = db_err(s, e, "domains");
		goto out;
	}
	rc = 0;
	s->dom_key[0] = k[0];
	s->dom_key[1] = k[1];
	s->dom_key_ok = 1;
	for (size_t t = 0; !mixed && t < nt; t++) {
		if (domain_fill(&dom[t], ids[t].v, ids[t].n, byid) < 0) {
			rc = err_oom(e);
			ids[t].v = NULL;
			break;
		}
		ids[t].v = NULL;  /* dom[t]'s now */
	}
	*done = !mixed && !rc;
out:
	for (size_t t = 0; ids && t < nt; t++)
		free(ids[t].v);
	free(ids);
	free(tid);
	free(have);
	return rc;
}

int
store_domains(struct store *s, const struct mln_model *m,
    struct mln_domain **out, struct err *e)
{
	struct mln_domain *dom;
	sqlite3_stmt *st = NULL;
	char **byid = NULL;
	int64_t nid = 0;
	int rc = 0, owned = 1, scanned = 0;

	*out = NULL;
	if (!(dom = xcalloc(m->types.n, sizeof *dom)))
		return err_oom(e);
	/* in a snapshot, the names by id (which the fingerprint reads too)
	 * and the domains' ids; else, or with ids too sparse, the join */
	if (s->shadow && (rc = names_get(s, &byid, &nid, &owned, e)))
		goto fail;
	if (byid && s->shadow && (rc = domains_scan(s, m, byid, nid, dom,
	    &scanned, e)))
		goto fail;
	for (size_t t = 0; scanned && t < m->types.n; t++)
		if ((rc = domain_check(s, m, t, &dom[t], e)))
			goto fail;
	if (!scanned &&
	    (rc = db_prep(s, byid ? sql_domain_ids : sql_domain_of, &st, e)))
		goto fail;
	for (size_t t = 0; !scanned && t < m->types.n; t++) {
		int ti = -1;
		VEC(int64_t) ids = { 0 };
		VEC(char *) names = { 0 };
		for (size_t k = 0; k < s->type_names.n; k++)
			if (!strcmp(s->type_names.v[k], m->types.v[t].name))
				ti = (int)k;
		if (ti >= 0) {
			int step;
			sqlite3_bind_int64(st, 1, s->type_ids.v[ti]);
			while ((step = sqlite3_step(st)) == SQLITE_ROW) {
				int64_t id = sqlite3_column_int64(st, 0);
				char *n;
				if (byid && (id < 0 || id >= nid || !byid[id]))
					continue;  /* no constants row: not in the join */
				n = byid ? xstrdup(byid[id]) : db_text(st, 1);
				if (n && VEC_PUSH(names, n) < 0) {
					free(n);
					n = NULL;
				}
				if (!n || VEC_PUSH(ids, id) < 0) {
					rc = err_oom(e);
					break;
				}
			}
			sqlite3_reset(st);
			if (!rc && step != SQLITE_DONE)
				rc = db_err(s, e, "domains");
			if (names.n > ids.n)  /* keep the pair of arrays in step */
				free(names.v[--names.n]);
			if (!rc && sort_by_name(names.v, ids.v, names.n) < 0)
				rc = err_oom(e);
		}
		dom[t].n = (int)names.n;
		dom[t].names = names.v;
		dom[t].ids = ids.v;
		if (rc || (rc = domain_check(s, m, t, &dom[t], e)))
			goto fail;
	}
	sqlite3_finalize(st);
	if (!owned)
		byid = NULL;  /* s keeps it */
	free(byid);
	*out = dom;
	return 0;
fail:
	sqlite3_finalize(st);
	if (!owned)
		byid = NULL;
	free(byid);
	store_domains_free(dom, (int)m->types.n);
	return rc;
}

int
store_atoms_each(struct store *s, int pi, store_atom_fn fn, void *ctx,
    struct err *e)
{
	struct store_pred *p = &s->preds.v[pi];
	sqlite3_stmt *st;
	int64_t args[64];
	struct buf b;
	int rc;

	if (p->arity > 64)
		return err_set(e, SQLIFT_ELIMIT, "%s: more than 64 arguments",
		    p->name);
	buf_init(&b);
	buf_puts(&b, "SELECT truth");
	for (int i = 0; i < p->arity; i++)
		buf_printf(&b, ", a%d", i);
	buf_printf(&b, " FROM %s", p->table);
	if (b.oom)
		return err_oom(e);
	rc = db_prep(s, b.s, &st, e);
	buf_free(&b);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r;
		for (int i = 0; i < p->arity; i++)
			args[i] = sqlite3_column_int64(st, i + 1);
		if ((r = fn(ctx, args, sqlite3_column_int(st, 0)))) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, p->table);
}

/* The constants' names by id (names[id], NULL for none), into *out;
 * *out NULL when the ids are too sparse for an array. */
static int
names_by_id(struct store *s, char ***out, int64_t *nid, struct err *e)
{
	sqlite3_stmt *st;
	int64_t *at = NULL;    /* offset of each id's name in pool, or -1 */
	char *pool = NULL, **v;
	size_t used = 0, room = 0;
	int64_t cap = 0, n = 0;
	int rc;

	*out = NULL;
	if ((rc = db_prep(s, sql_consts_all, &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *a = (const char *)sqlite3_column_text(st, 1);
		size_t len;
		if (id < 0 || id > 4 * (n + 1024) || !a)
			break;  /* sparse, or a name missing: the SQL way */
		len = (size_t)sqlite3_column_bytes(st, 1);
		if (id >= cap) {
			int64_t c = cap ? cap : 1024, *x;
			while (c <= id)
				c *= 2;
			if (!(x = xrealloc(at, (size_t)c * sizeof *at)))
				break;
			memset(x + cap, -1, (size_t)(c - cap) * sizeof *x);
			at = x;
			cap = c;
		}
		if (used + len + 1 > room) {
			size_t r = room ? room : 65536;
			char *x;
			while (used + len + 1 > r)
				r *= 2;
			if (!(x = xrealloc(pool, r)))
				break;
			pool = x;
			room = r;
		}
		memcpy(pool + used, a, len + 1);
		at[id] = (int64_t)used;
		used += len + 1;
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || !cap ||
	    !(v = xmalloc((size_t)cap * sizeof *v + used + 1))) {
		free(at);
		free(pool);
		return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 :
		    db_err(s, e, "constants");
	}
	/* one block: the pointers, then the names they point at */
	memcpy((char *)(v + cap), pool, used);
	for (int64_t i = 0; i < cap; i++)
		v[i] = at[i] < 0 ? NULL : (char *)(v + cap) + at[i];
	free(at);
	free(pool);
	*out = v;
	*nid = cap;
	return 0;
}

/* names_by_id, kept in s for the rest of a snapshot or shadow
 * transaction (*owned 0), or the caller's to free (*owned 1) */
static int
names_get(struct store *s, char ***out, int64_t *nid, int *owned,
    struct err *e)
{
	int rc;

	*owned = !s->shadow;
	if (*owned)
		return names_by_id(s, out, nid, e);
	if (!s->names_ok) {
		if ((rc = names_by_id(s, &s->names, &s->nnames, e)))
			return rc;
		s->names_ok = 1;
	}
	*out = s->names;
	*nid = s->nnames;
	return 0;
}

/* The cubes key's hash of one row of ids (pred_id/type_id first). */
static uint64_t
key_row(uint64_t h, sqlite3_stmt *st, int ncol)
{
	for (int j = 0; j < ncol; j++)
		h = hash_mix(h, (uint64_t)sqlite3_column_int64(st, j));
	return h;
}

/* Adds row hash h to the cubes key's two order-free sums. */
static void
key_add(uint64_t key[2], uint64_t h)
{
	key[0] += h;
	key[1] += hash_mix(hash_mix(0x2545f4914f6cdd1dULL, h), h >> 17);
}

/* One predicate's share of the fingerprint and of the cubes key:
 * evidence_atoms's rows of it hashed as that view spells them, its atom
 * text from its parts (names NULL: the key only). */
static int
fp_pred(struct store *s, const struct store_pred *p, char **names,
    int64_t nid, uint64_t *sum, uint64_t key[2], struct err *e)
{
	sqlite3_stmt *st;
	struct buf b;
	uint64_t h0 = fnv1a(fnv1a(FNV_INIT, p->name, strlen(p->name)), "(", 1);
	int rc;

	buf_init(&b);
	buf_puts(&b, "SELECT truth");
	for (int j = 0; j < p->arity; j++)
		buf_printf(&b, ", a%d", j);
	buf_printf(&b, " FROM %s", p->table);
	if (b.oom) {
		buf_free(&b);
		return err_oom(e);
	}
	rc = sqlite3_prepare_v2(s->db, b.s, -1, &st, NULL);
	buf_free(&b);
	if (rc != SQLITE_OK)
		return db_err(s, e, p->table);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t h = h0;
		char t = (char)('0' + sqlite3_column_int(st, 0));
		int j;
		key_add(key, key_row(hash_mix(FNV_INIT, (uint64_t)p->id), st,
		    1 + p->arity));
		if (!names)
			continue;
		for (j = 0; j < p->arity; j++) {
			int64_t id = sqlite3_column_int64(st, 1 + j);
			if (sqlite3_column_type(st, 1 + j) == SQLITE_NULL ||
			    id < 0 || id >= nid || !names[id])
				break;  /* no row in the view's join */
			if (j)
				h = fnv1a(h, ",", 1);
			h = fnv1a(h, names[id], strlen(names[id]));
		}
		if (j == p->arity)
			*sum += fnv1a(fnv1a(h, ")", 1), &t, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, p->table);
}

/* The cubes key's share of the catalogue and the domains: what
 * cube_build_all reads besides the ev_ tables. */
static int
key_catalogue(struct store *s, uint64_t key[2], struct err *e)
{
	static const char tag[] = "sqlift cubes 2";  /* the builder's rules */
	uint64_t h = fnv1a(FNV_INIT, tag, sizeof tag - 1);
	sqlite3_stmt *st;
	int rc;

	for (size_t i = 0; i < s->type_ids.n; i++)
		h = hash_mix(h, (uint64_t)s->type_ids.v[i]);
	for (size_t i = 0; i < s->preds.n; i++) {
		const struct store_pred *p = &s->preds.v[i];
		h = hash_mix(hash_mix(h, (uint64_t)p->id), (uint64_t)p->arity);
		for (int j = 0; j < p->arity; j++)
			h = hash_mix(h, (uint64_t)p->types[j]);
		h = fnv1a(h, p->table, strlen(p->table) + 1);
	}
	key_add(key, h);
	if (s->dom_key_ok) {
		/* store_domains's scan of this transaction summed the rows: the
		 * sums are order-free, so adding them is adding row by row */
		key[0] += s->dom_key[0];
		key[1] += s->dom_key[1];
		return 0;
	}
	if ((rc = db_prep(s, sql_domains_all, &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		key_add(key, key_row(hash_mix(FNV_INIT, KEY_DOM_TAG), st, 2));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "domains");
}

/* The sum over evidence_atoms of the hash of atom text and truth digit
 * (order-free); computed per ev_ table from the constants' names, or
 * from the view when the ids do not make an array.  The cubes key comes
 * from the same scans of the ev_ tables, by ids. */
int
store_evidence_fingerprint(struct store *s, char out[17], char key[33],
    struct err *e)
{
	sqlite3_stmt *st;
	uint64_t sum = 0, k[2] = { 0, 0 };
	char **names;
	int64_t nid = 0;
	int rc, named, owned;

	if ((rc = names_get(s, &names, &nid, &owned, e)))
		return rc;
	named = names != NULL;
	for (size_t i = 0; i < s->preds.n && !rc; i++)
		rc = fp_pred(s, &s->preds.v[i], names, nid, &sum, k, e);
	if (owned)
		free(names);  /* one block with the names */
	if (rc || (key && (rc = key_catalogue(s, k, e))))
		return rc;
	if (key)
		snprintf(key, 33, "%016llx%016llx", (unsigned long long)k[0],
		    (unsigned long long)k[1]);
	if (named) {
		snprintf(out, 17, "%016llx", (unsigned long long)sum);
		return 0;
	}
	if ((rc = db_prep(s, sql_evidence_all, &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *a = (const char *)sqlite3_column_text(st, 0);
		char t = (char)('0' + sqlite3_column_int(st, 1));
		sum += fnv1a(fnv1a(FNV_INIT, a, strlen(a)), &t, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, e, "evidence");
	snprintf(out, 17, "%016llx", (unsigned long long)sum);
	return 0;
}

int
store_pred_count(struct store *s, int pi, int64_t *n, struct err *e)
{
	struct buf b;
	int rc;

	buf_init(&b);
	buf_printf(&b, "SELECT count(*) FROM %s", s->preds.v[pi].table);
	rc = b.oom ? err_oom(e) : db_int(s, b.s, n, e);
	buf_free(&b);
	return rc;
}
