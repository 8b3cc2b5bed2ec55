/* job.h: INI job files (see sqlift.ini(5)), read with inih. */
#ifndef SQLIFT_JOB_H
#define SQLIFT_JOB_H

#include "sqlift.h"
#include "infer/options.h"
#include "util/util.h"

struct job {
	char *database;
	char *model;
	VEC(char *) evidence;
	int replace;
	int replace_evidence;
	int csv_header;        /* SQLIFT_LOAD_CSV_* flag, or 0: auto */
	int64_t limit[3];      /* max_constants, max_domain, max_line; 0: default */
	int has_infer;
	struct sqlift_infer_opts *infer;  /* [infer]'s keys; NULL without */
};

/* Reads path into j; relative paths are taken from the job file's folder.
 * Caller frees with job_free().  Messages name path:line. */
int job_read(const char *path, struct job *j, struct err *e) WUR;
void job_free(struct job *j);

#endif
