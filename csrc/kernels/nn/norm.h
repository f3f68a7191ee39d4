/* norm.h - what the normalization fronts (norm_batch.c, norm_layer.c: shapes, dtypes, outputs,
 * threads) and their loops (cpu/nn_norm_kernels.c, compiled once per CPU capability) share.
 *
 * Statistics accumulate in double for both float32 and float64 data (Note [norm accumulation] in
 * cpu/nn_norm_kernels.c); elementwise results compute in the data's type. "Row" loops take one
 * contiguous run of n elements and scalar coefficients; "column" loops take one row of n channels
 * (channels-last data, or layer norm's weight gradient) and per-channel arrays. */
#ifndef PT_KERNELS_NN_NORM_H
#define PT_KERNELS_NN_NORM_H

#include "internal.h"

#define PT_NORM_LOOPS(T)                                                                           \
    struct {                                                                                       \
        /* sum of x */                                                                             \
        double (*sum)(const T *x, int64_t n);                                                      \
        /* sum of (x - mean)^2 */                                                                  \
        double (*sqdev)(const T *x, int64_t n, double mean);                                      \
        /* one pass: out[0] = sum of (x - k), out[1] = sum of (x - k)^2 */                         \
        void (*sum_sq)(const T *x, int64_t n, double k, double out[2]);                           \
        /* out[0] = sum of g, out[1] = sum of g * (x - mean), g = dy * w (w NULL: dy) */          \
        void (*sum_dot)(const T *dy, const T *w, const T *x, int64_t n, double mean,               \
                        double out[2]);                                                            \
        /* y = x * scale + shift */                                                                \
        void (*affine)(T *y, const T *x, int64_t n, T scale, T shift);                            \
        /* y = (x - mean) * rstd * w + b (w, b NULL: 1, 0) */                                      \
        void (*norm_row)(T *y, const T *x, const T *w, const T *b, int64_t n, T mean, T rstd);    \
        /* dx = a * w * dy + b * x + c (w NULL: 1) */                                              \
        void (*lin3)(T *dx, const T *dy, const T *w, const T *x, int64_t n, T a, T b, T c);       \
        /* acc[j] += x[j] */                                                                       \
        void (*col_sum)(double *acc, const T *x, int64_t n);                                       \
        /* s[j] += x[j] - k[j]; q[j] += (x[j] - k[j])^2 */                                         \
        void (*col_sum_sq)(double *s, double *q, const T *x, int64_t n, const double *k);        \
        /* acc[j] += (x[j] - mean[j])^2 */                                                         \
        void (*col_sqdev)(double *acc, const T *x, int64_t n, const double *mean);                 \
        /* s[j] += dy[j]; d[j] += dy[j] * (x[j] - mean[j]) */                                      \
        void (*col_sum_dot)(double *s, double *d, const T *dy, const T *x, int64_t n,              \
                            const double *mean);                                                   \
        /* dg[j] += dy[j] * (x[j] - mean) * rstd; db[j] += dy[j] (either may be NULL) */          \
        void (*col_gamma_beta)(double *dg, double *db, const T *dy, const T *x, int64_t n,        \
                               double mean, double rstd);                                          \
        /* y[j] = x[j] * scale[j] + shift[j] */                                                    \
        void (*affine_col)(T *y, const T *x, int64_t n, const T *scale, const T *shift);          \
        /* dx[j] = a[j] * dy[j] + b[j] * x[j] + c[j] */                                            \
        void (*lin3_col)(T *dx, const T *dy, const T *x, int64_t n, const T *a, const T *b,       \
                         const T *c);                                                              \
    }

typedef struct pt_norm_table {
    PT_NORM_LOOPS(float) f32;
    PT_NORM_LOOPS(double) f64;
} pt_norm_table;

/* ---------------------------------------------------------------- shared by the fronts
 * (norm_common.c) */

/* The loops of the CPU capability in use. */
const pt_norm_table *pt_norm_loops(void);
/* "[4, 3, 5]" into buf. */
void pt_norm_format_sizes(char *buf, size_t cap, int32_t n, const int64_t *s);
/* The parameter p's dtype against the input's (torch's "mixed dtype (CPU)" messages); NULL is
 * fine. */
pt_status pt_norm_check_param(const pt_tensor *input, const pt_tensor *p);
/* The dtype the loops compute in: float64 for float64, float32 for the other floating types. */
int32_t pt_norm_compute_dtype(int32_t dtype);
/* t as a contiguous tensor of dtype (a new reference; t itself when it already is one). NULL in,
 * NULL out. */
pt_status pt_norm_contig(const pt_tensor *t, int32_t dtype, pt_tensor **out);
/* Rows [begin, end) of n split into at most pt_get_num_threads() chunks of >= grain rows: the
 * number of chunks (>= 1); chunk k covers [n * k / chunks, n * (k + 1) / chunks). */
int64_t pt_norm_chunks(int64_t n, int64_t grain);
/* fn(k, ctx) for k in [0, chunks), in parallel when chunks > 1. */
void pt_norm_run_chunks(int64_t chunks, void (*fn)(int64_t k, void *ctx), void *ctx);
/* The floating dtypes the kernels take; else torch's "\"<name>\" not implemented for '<T>'". */
pt_status pt_norm_check_dtype(const pt_tensor *t, const char *kernel);
/* A result of dtype `dtype` from the compute tensor r (released): r itself when the dtypes agree. */
pt_status pt_norm_result(pt_tensor *r, int32_t dtype, pt_tensor **out);

/* The gradients a backward operator's output mask did not ask for: empty (0-element) tensors of
 * like's dtype where t[i] is NULL (the Python binding has no undefined tensor to return). */
pt_status pt_norm_placeholders(pt_tensor **t, int n, const pt_tensor *like);

#endif
