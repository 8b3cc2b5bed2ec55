/* lis.c: lifted importance sampling (placeholder). */
#include "infer/lis.h"
typedef int lis_placeholder;
