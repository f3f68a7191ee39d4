/* pool.h - the pooling family's loops (cpu/nn_pool_kernels.c, compiled once per CPU capability)
 * and what the fronts (pool.c, pool_adaptive.c: checks, outputs, threads) hand them.
 *
 * Every pool is seen as 3-d: a 2-d pool has depth 1 (kernel 1, stride 1, no padding). Tensors
 * are dense in one of two layouts: planar (N, C, D, H, W), where the loops run over whole planes
 * of one channel, or channels-last (N, D, H, W, C), where they run over rows of output pixels
 * (forward) or whole batch elements (backward, whose windows overlap across rows) with the C
 * channels of a pixel as the contiguous, vectorized inner loop. Indices are flat within a plane:
 * (d * H + h) * W + w, as torch's. */
#ifndef PT_KERNELS_NN_POOL_H
#define PT_KERNELS_NN_POOL_H

#include "internal.h"

typedef struct pt_pool_geom {
    int64_t batch, channels;
    int64_t in[3], out[3];          /* D, H, W */
    int64_t k[3], s[3], p[3], d[3]; /* kernel, stride, padding, dilation (max pooling) */
    int32_t count_include_pad;
    int64_t divisor;                /* divisor_override, 0 when none */
} pt_pool_geom;

/* begin/end count planes (planar), output rows n*D*H + d*H + h (channels-last forward) or batch
 * elements (channels-last backward). Backward loops zero their part of grad_input first. */
typedef void (*pt_pool_fwd_fn)(const pt_pool_geom *g, void *out, int64_t *idx, const void *in,
                               int64_t begin, int64_t end);
typedef void (*pt_pool_bwd_fn)(const pt_pool_geom *g, void *grad_in, const int64_t *idx,
                               const void *grad_out, int64_t begin, int64_t end);

enum { PT_POOL_PLANAR = 0, PT_POOL_CHANNELS_LAST = 1 };

typedef struct pt_pool_loops {
    pt_pool_fwd_fn max_fwd[2], avg_fwd[2], adaptive_avg_fwd[2], adaptive_max_fwd[2];
    pt_pool_bwd_fn max_bwd[2], avg_bwd[2], adaptive_avg_bwd[2]; /* max_bwd serves adaptive max */
} pt_pool_loops;

/* by_dtype: [0] float32, [1] float64; max_int: uint8, int8, int16, int32, int64. */
typedef struct pt_pool_table {
    pt_pool_loops by_dtype[2];
    pt_pool_fwd_fn max_int[5][2];
    pt_pool_fwd_fn avg_int64[2];
} pt_pool_table;


/* ---------------------------------------------------------------- shared by the fronts (pool.c) */
#ifndef PT_CPU_CAP_SUFFIX
#include "pytensor.h"

/* "[2, 3, 8]": torch's way of printing sizes, into buf (at least 32 * ndim + 3 bytes). */
const char *pt_pool_sizes_str(char *buf, size_t cap, int32_t ndim, const int64_t *sizes);
/* Whether t is laid out channels-last (4-d, or channels_last_3d for 5-d) rather than planar: its
 * suggested memory format when it is dense in one and not the other. */
bool pt_pool_is_channels_last(const pt_tensor *t, int32_t spatial);
/* A new reference to t dense in the layout (planar or channels-last). */
pt_status pt_pool_dense(const pt_tensor *t, bool channels_last, int32_t spatial, pt_tensor **out);
/* A new uninitialized tensor of the sizes in the layout. */
pt_status pt_pool_empty(int32_t ndim, const int64_t *sizes, bool channels_last, int32_t dtype,
                        pt_device device, pt_tensor **out);
/* Which dtypes a pool takes besides float32 and float64: bfloat16 and float16 (computed in
 * float32, rounded once at the end), every integer type, or int64 alone. */
enum { PT_POOL_ACCEPT_HALF = 1, PT_POOL_ACCEPT_INT = 2, PT_POOL_ACCEPT_LONG = 4 };
/* The dtype the loops run in for a tensor of `dtype`, or -1 with torch's "not implemented for"
 * error naming `name`. */
int32_t pt_pool_compute_dtype(const char *name, int32_t dtype, unsigned accept);
enum { PT_POOL_MAX = 0, PT_POOL_AVG = 1, PT_POOL_ADAPTIVE_AVG = 2, PT_POOL_ADAPTIVE_MAX = 3 };
/* The loops of a pool kind for a compute dtype (backward: float32 and float64 only). */
pt_pool_fwd_fn pt_pool_fwd_loop(int kind, int32_t compute, bool cl);
pt_pool_bwd_fn pt_pool_bwd_loop(int kind, int32_t compute, bool cl);
/* A forward pool of self into new results of out_sizes in its layout (values, and indices when
 * asked): self converted to the compute dtype, fn run over n items of `work` elements each
 * across threads, the values rounded back to self's dtype. */
pt_status pt_pool_forward_run(pt_pool_fwd_fn fn, int32_t compute, const pt_pool_geom *g, bool cl,
                              int32_t nd, const pt_tensor *self, const int64_t *out_sizes,
                              int64_t n, int64_t work, pt_tensor **out, pt_tensor **indices);
/* Runs the loop over [0, n) across threads when each of the n items costs `work` elements. */
void pt_pool_run_fwd(pt_pool_fwd_fn fn, const pt_pool_geom *g, void *out, int64_t *idx,
                     const void *in, int64_t n, int64_t work);
void pt_pool_run_bwd(pt_pool_bwd_fn fn, const pt_pool_geom *g, void *gin, const int64_t *idx,
                     const void *gout, int64_t n, int64_t work);
/* grad_input (self's sizes, layout and dtype) of a pool of `kind`: zeroed, then each output's
 * gradient spread over its window or sent to its index (indices for max pooling, else NULL);
 * bfloat16 and float16 computed in float32. */
pt_status pt_pool_backward_run(const char *name, int32_t nd, int kind, const pt_pool_geom *g,
                               bool cl,
                               const pt_tensor *grad_output, const pt_tensor *self,
                               const pt_tensor *indices, pt_tensor **out);
#endif

#endif
