/* hello.c: a program built against the installed libsqlift with the
 * flags of `pkg-config --cflags --libs sqlift` (make installcheck). */
#include <stdio.h>
#include <string.h>

#include <sqlift.h>

int
main(void)
{
	sqlift *db;
	int rc;

	/* no such file and no SQLIFT_OPEN_CREATE: refused, with a reason */
	rc = sqlift_open("/nonexistent/sqlift-hello.db", 0, &db);
	printf("sqlift %s: open: %d (%s)\n", sqlift_version(), rc,
	    sqlift_errmsg(db));
	sqlift_close(db);
	return rc != 0 && strlen(sqlift_version()) > 0 ? 0 : 1;
}
