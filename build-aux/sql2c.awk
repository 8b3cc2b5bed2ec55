# sql2c.awk: turns a .sql file into C string constants, one per "-- name: X"
# section, so that the queries live in readable SQL and are compiled in.
# A file without name markers becomes one constant named after the file.
BEGIN { cur = ""; }
/^-- name: / {
	if (cur != "") print ";";
	cur = $3; printf "static const char sql_%s[] =\n", cur; next;
}
/^--/ { next; }
{
	if ($0 ~ /^[ \t\r]*$/) next;
	if (cur == "") { cur = fallback; printf "static const char sql_%s[] =\n", cur; }
	line = $0; gsub(/\\/, "\\\\", line); gsub(/"/, "\\\"", line); gsub(/\r/, "", line);
	printf "\t\"%s\\n\"\n", line;
}
END { if (cur != "") print ";"; }
