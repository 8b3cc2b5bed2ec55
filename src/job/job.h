/* job.h: INI job files (see sqlift.ini(5)), read with inih. */
#ifndef SQLIFT_JOB_H
#define SQLIFT_JOB_H

#include "sqlift.h"
#include "util/util.h"

struct job {
	char *database;
	char *model;
	VEC(char *) evidence;
	int replace;
	int has_infer;
	char *method, *queries, *query_file, *open_world, *closed_world;
	char *result;
	uint64_t seed;
	int verbose;
	char *order, *constraints;
	int64_t max_nodes;
	double max_seconds;
	int64_t samples, threads, exact_budget;   /* lis; exact_budget -1: unset */
	int64_t particles;
	char *proposal, *marginals;
};

/* Reads path into j; relative paths are taken from the job file's folder.
 * Caller frees with job_free().  Messages name path:line. */
int job_read(const char *path, struct job *j, struct err *e) WUR;
void job_free(struct job *j);

#endif
