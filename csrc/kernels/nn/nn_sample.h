/* nn_sample.h - what the sampling fronts (csrc/kernels/nn/upsample.c and grid.c: shapes, checks,
 * index tables, outputs, threads) share with their inner loops in cpu/nn_sample_kernels.c (compiled
 * once per CPU capability). Every stride is in elements; tensors are float32 or float64 and the
 * arithmetic runs in that dtype, as torch's CPU kernels do (float16 and bfloat16 in float32:
 * Note [reduced precision sampling]). */
#ifndef PT_KERNELS_NN_SAMPLE_H
#define PT_KERNELS_NN_SAMPLE_H

#include "internal.h"

enum { PT_SAMPLE_MAX_DIMS = 3 };

/* One spatial dim of an upsampling: output index o reads the input indices idx[o * k + j] with
 * the weights w[o * k + j] (j < k; float or double as the tensors). */
typedef struct pt_sample_dim {
    const int64_t *idx;
    const void *w;
    int32_t k;
    int64_t in_size, out_size;
} pt_sample_dim;

/* An upsampling of (N, C, spatial...) tensors. Forward: src is the input, dst the output.
 * Backward: src is grad_output, dst grad_input, which the kernel zeroes first (its own planes, or
 * its own batches when channels_last) and then accumulates into. Work units: planes (n, c) in the
 * contiguous layout; (n, first output spatial index) forward and batches backward when
 * channels_last (C innermost in both tensors). */
typedef struct pt_upsample_args {
    const char *src;
    char *dst;
    int64_t n, c;
    int64_t src_s[2 + PT_SAMPLE_MAX_DIMS], dst_s[2 + PT_SAMPLE_MAX_DIMS];
    pt_sample_dim dim[PT_SAMPLE_MAX_DIMS];
    int32_t nd, channels_last;
} pt_upsample_args;

/* A grid sampling: input (N, C, in...), grid (N, out..., nd), output (N, C, out...). The forward
 * runs over points (n, out...) flattened; the backward over batches (grad_input accumulates
 * across a batch's points: the kernel zeroes the batches it owns). grad_input or grad_grid is
 * NULL when not wanted. mode: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros, 1 border,
 * 2 reflection (torch's enums). */
typedef struct pt_grid_args {
    const char *input, *grid, *grad_output;
    char *output, *grad_input, *grad_grid;
    int64_t n, c, in_size[PT_SAMPLE_MAX_DIMS], out_size[PT_SAMPLE_MAX_DIMS];
    int64_t in_s[2 + PT_SAMPLE_MAX_DIMS], grid_s[2 + PT_SAMPLE_MAX_DIMS];
    int64_t out_s[2 + PT_SAMPLE_MAX_DIMS], gout_s[2 + PT_SAMPLE_MAX_DIMS];
    int64_t gin_s[2 + PT_SAMPLE_MAX_DIMS], ggrid_s[2 + PT_SAMPLE_MAX_DIMS];
    int32_t nd, mode, padding, align_corners;
} pt_grid_args;

/* ---------------------------------------------------------------- shared by the fronts (pad.c) */

/* "[2, 3, 4]": sizes as torch prints them in messages. */
void pt_sample_format_sizes(char *buf, size_t cap, int32_t ndim, const int64_t *sizes);
/* torch's suggest_memory_format: channels_last (4-d) or channels_last_3d (5-d) for tensors laid
 * out that way and not also contiguous, else contiguous. */
int32_t pt_sample_memory_format(const pt_tensor *t);
/* An uninitialized tensor laid out in memory_format (as pt_sample_memory_format returns). */
pt_status pt_sample_empty(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device device,
                          int32_t memory_format, pt_tensor **out);

/* Note [reduced precision sampling]
 * float16 and bfloat16 tensors are sampled as torch's CPU kernels do, in float32 arithmetic with
 * the results rounded once to the input's dtype: the fronts convert the operands to float32,
 * run the float32 kernels and convert the results back (pt_sample_upcast / pt_sample_downcast). */
bool pt_sample_is_half(int32_t dtype);
/* t as float32 (a new reference or a converted copy, strides kept). */
pt_status pt_sample_upcast(const pt_tensor *t, pt_tensor **out);
/* The float32 result r of a call that returned st, converted to dtype (strides kept) into *out;
 * r is released. st is returned when it is not PT_OK. */
pt_status pt_sample_downcast(pt_status st, pt_tensor *r, int32_t dtype, pt_tensor **out);

/* [0] float32, [1] float64; each runs the work units [begin, end). */
typedef struct pt_nn_sample_table {
    void (*upsample_fwd[2])(const pt_upsample_args *a, int64_t begin, int64_t end);
    void (*upsample_bwd[2])(const pt_upsample_args *a, int64_t begin, int64_t end);
    void (*grid_fwd[2])(const pt_grid_args *a, int64_t begin, int64_t end);
    void (*grid_bwd[2])(const pt_grid_args *a, int64_t begin, int64_t end);
} pt_nn_sample_table;

#endif
