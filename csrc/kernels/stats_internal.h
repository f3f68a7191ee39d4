/* stats_internal.h - what the composite statistics (stats_quantile.c, stats_calc.c) share: a
 * list of the temporaries one composite call makes through the dispatcher, released together
 * when it ends, and STEP, which records a step's result (or its failure) and leaves for the
 * function's `done` label on failure. Hidden like the rest of the core.
 */
#ifndef PT_STATS_INTERNAL_H
#define PT_STATS_INTERNAL_H

#include "internal.h"

enum { PT_STATS_MAX_TEMPS = 48 }; /* the longest composite (cov with both weights) holds ~30 */

typedef struct pt_stats_temps {
    pt_tensor *t[PT_STATS_MAX_TEMPS];
    int n;
    pt_status st;
} pt_stats_temps;

/* Keeps r (a new reference, or NULL after a failed call, whose status is kept). */
static inline pt_tensor *pt_stats_hold(pt_stats_temps *T, pt_tensor *r)
{
    if (!r) {
        if (T->st == PT_OK) T->st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        return NULL;
    }
    if (T->n == PT_STATS_MAX_TEMPS) { /* a bound the composites stay well inside */
        pt_tensor_release(r);
        T->st = PT_ERROR(PT_ERR_RUNTIME, "statistics composite: too many temporaries");
        return NULL;
    }
    T->t[T->n++] = r;
    return r;
}

static inline void pt_stats_release(pt_stats_temps *T)
{
    for (int i = 0; i < T->n; i++) pt_tensor_release(T->t[i]);
    T->n = 0;
}

/* The result kept by the caller: a new reference to r, which the release then leaves alive. */
static inline pt_status pt_stats_result(pt_stats_temps *T, pt_tensor *r, pt_tensor **ret)
{
    if (T->st == PT_OK) {
        pt_tensor_retain(r);
        *ret = r;
    }
    const pt_status st = T->st;
    pt_stats_release(T);
    return st;
}

#define PT_STATS_STEP(T, var, expr)                                                                \
    do {                                                                                           \
        (var) = pt_stats_hold(&(T), (expr));                                                       \
        if (!(var)) goto done;                                                                     \
    } while (0)

#endif
