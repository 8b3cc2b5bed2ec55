/* lis.h: lifted importance sampling (placeholder, filled in by issue 5). */
#ifndef SQLIFT_LIS_H
#define SQLIFT_LIS_H
#endif
