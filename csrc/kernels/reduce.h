/* reduce.h - the reduction family: what the engine (reduce.c: dims, output shapes, out= checks,
 * the walk over kept and reduced dimensions, threads), the operators' fronts (reduce_ops.c,
 * reduce_stats.c) and the loops (cpu/reduce_kernels.c, compiled once per CPU capability) share.
 *
 * Every loop works in one element type, the accumulation type: the fronts cast inputs to it
 * first (integers and bool to int64 for sum and prod, float16/bfloat16 to float32), so that the
 * loops exist for few types and the engine never mixes types.
 */
#ifndef PT_KERNELS_REDUCE_H
#define PT_KERNELS_REDUCE_H

#include "internal.h"

enum {
    PT_RED_SUM = 0,
    PT_RED_PROD = 1,
    PT_RED_MAX = 2, /* NaN propagates */
    PT_RED_MIN = 3,
    PT_RED_OP_COUNT = 4
};

/* Folds n elements of x (byte stride) into the accumulator *acc (one element of the type). */
typedef void (*pt_red_inner_fn)(const char *x, int64_t n, int64_t stride, void *acc);
/* acc[j] = acc[j] (op) x[j * stride] for j < k: one row of an outer reduction, across the kept
 * dimension (acc is contiguous). */
typedef void (*pt_red_outer_fn)(void *acc, const char *x, int64_t k, int64_t stride);
/* out[r * ostride] = the sum of the n contiguous elements at x + r * xstride, for r < rows (bytes
 * for both strides): many short inner reductions in one call (Note [rows back to back] in
 * reduce.c), added as inner would add each. */
typedef void (*pt_red_rows_fn)(const char *x, int64_t rows, int64_t n, int64_t xstride, char *out,
                               int64_t ostride);
/* acc[j] = acc[j] (op) other[j] for j < k, both contiguous. */
typedef void (*pt_red_combine_fn)(void *acc, const void *other, int64_t k);
/* The index of the first maximum (ARG_MAX) or minimum of n elements, a NaN counting as the
 * extreme (its first occurrence wins). n >= 1. */
typedef int64_t (*pt_red_arg_fn)(const char *x, int64_t n, int64_t stride);
/* Inclusive scan: out[i] = x[0] (op) ... (op) x[i], byte strides. */
typedef void (*pt_red_scan_fn)(char *out, int64_t out_stride, const char *x, int64_t x_stride,
                               int64_t n);
/* Elementwise maps over contiguous arrays from a floating or complex type to its real type. */
typedef void (*pt_red_map_fn)(void *out, const void *x, int64_t n, double p);

enum { PT_RED_ARG_MAX = 0, PT_RED_ARG_MIN = 1 };
enum { PT_RED_SCAN_SUM = 0, PT_RED_SCAN_PROD = 1 };
enum {
    PT_RED_MAP_ABS = 0,    /* |x| */
    PT_RED_MAP_ABS2 = 1,   /* |x|^2 (re^2 + im^2 for complex) */
    PT_RED_MAP_POWABS = 2, /* |x|^p */
    PT_RED_MAP_NONZERO = 3, /* x != 0 as 0 or 1 */
    PT_RED_MAP_EXP = 4,    /* exp(x), real types only */
    PT_RED_MAP_LOG = 5,    /* log(x), real types only */
    PT_RED_MAP_POW = 6,    /* x^p, real types only */
    PT_RED_MAP_SQRT = 7,   /* sqrt(x), real types only */
    PT_RED_MAP_COUNT = 8
};

/* By op and element type. sum/prod: int64, float32, float64, complex64, complex128; max/min:
 * bool, the integers, float32, float64. NULL where the type has no loop. */
typedef struct pt_reduce_table {
    pt_red_inner_fn inner[PT_RED_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_red_outer_fn outer[PT_RED_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_red_combine_fn combine[PT_RED_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_red_arg_fn arg[2][PT_DTYPE_BUILTIN_COUNT];    /* int64, float32, float64 */
    pt_red_scan_fn scan[2][PT_DTYPE_BUILTIN_COUNT];  /* the sum/prod types */
    pt_red_map_fn map[PT_RED_MAP_COUNT][PT_DTYPE_BUILTIN_COUNT]; /* float32 .. complex128 */
    pt_red_rows_fn sum_rows[PT_DTYPE_BUILTIN_COUNT];              /* float32, float64 */
} pt_reduce_table;

/* The table serving now (the capability start-up picked). */
const pt_reduce_table *pt_reduce_kernels(void);

/* ---------------------------------------------------------------- the engine (reduce.c) */

/* The dims a reduction runs over: mask[d] for each of self's dims. `n` < 0 (None) or 0 (an empty
 * list, as torch reads it) means every dim. IndexError for a dim out of range, RuntimeError for a
 * repeated one, both with torch's messages. */
pt_status pt_reduce_dims(const pt_tensor *self, int32_t n, const int64_t *dims, bool *mask);

/* The kept shape: self's sizes with 1 at the reduced dims (keepdim), or without them. */
int32_t pt_reduce_shape(const pt_tensor *self, const bool *mask, bool keepdim, int64_t *sizes);

/* out (kept shape with size 1 at the reduced dims, any strides, dtype = x's) = the reduction op
 * of x over the dims in mask. x and out are CPU tensors of one dtype with a loop for op.
 * Reductions over no elements write the identity (0, 1, -inf/+inf or the type's extremes).
 * Note [reduction order] in reduce.c says in what order float sums are added. */
pt_status pt_reduce_run(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor *out);

/* As pt_reduce_run, of map(x - shift) (a PT_RED_MAP_* with its p) without a temporary of x's size
 * (Note [mapped reductions] in reduce.c): x and out float32 or float64 of one dtype, shift NULL or
 * a tensor of out's shape, strides and dtype (one value subtracted per output). */
pt_status pt_reduce_run_mapped(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor *out,
                               int32_t map, double p, const pt_tensor *shift);

/* values/indices (kept shape with size 1 at dim) = the first extreme along dim (PT_RED_ARG_*);
 * values may be NULL. x's dtype has an arg loop and the dim is not empty. */
pt_status pt_reduce_arg_run(int32_t which, const pt_tensor *x, int32_t dim, pt_tensor *values,
                            pt_tensor *indices);

/* out (x's shape and dtype) = the inclusive scan of x along dim. */
pt_status pt_reduce_scan_run(int32_t which, const pt_tensor *x, int32_t dim, pt_tensor *out);

/* out = map(x) for a contiguous x and out of x's real type (or x's when real). */
void pt_reduce_map(int32_t map, const pt_tensor *x, pt_tensor *out, double p);

/* Hands `result` (a contiguous tensor of the kept shape with keepdim, in its computed dtype) to
 * the caller: the reduced dims dropped unless keepdim, cast to `dtype`, or copied into out_arg
 * after torch's out= checks (resized when it holds no elements). Consumes result. */
pt_status pt_reduce_finish(const char *name, pt_tensor *result, const pt_tensor *self,
                           const bool *mask, bool keepdim, int32_t dtype, pt_tensor *out_arg,
                           pt_tensor **out);

/* ---------------------------------------------------------------- steps the fronts share
 * (reduce_ops.c) */

/* t in dtype (and contiguous when asked): t itself (a new reference) when it already is. */
pt_status pt_reduce_cast(const pt_tensor *t, int32_t dtype, bool contiguous, pt_tensor **out);
/* An empty tensor of self's kept shape (keepdim) in dtype on self's device. */
pt_status pt_reduce_kept(const pt_tensor *self, const bool *mask, int32_t dtype, pt_tensor **out);
/* A new kept-shape tensor of x's dtype holding the reduction op of x (nothing computed on meta). */
pt_status pt_reduce_into(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor **out);
/* The same of map(x - shift) (pt_reduce_run_mapped; shift NULL or made by pt_reduce_into or
 * pt_reduce_kept from x with the same mask, hence out's layout). */
pt_status pt_reduce_into_mapped(int32_t op, const pt_tensor *x, const bool *mask, int32_t map,
                                double p, const pt_tensor *shift, pt_tensor **out);
/* The number of elements each output reduces. */
int64_t pt_reduce_count(const pt_tensor *self, const bool *mask);
/* self (and out_arg when given) are strided CPU or meta tensors of a builtin dtype. */
pt_status pt_reduce_check(const pt_tensor *self, const char *name, pt_tensor *out_arg);
/* torch's zero_numel_check_dims for reductions without an identity (ndims <= 0: all dims);
 * `arg` picks argmax's shorter message. */
pt_status pt_reduce_check_nonempty(const char *name, const pt_tensor *self, int32_t ndims,
                                   const bool *mask, bool arg);
/* t /= n elementwise (contiguous float32/64, complex64/128; nothing on meta). */
void pt_reduce_divide(pt_tensor *t, double n);

#endif
