/* conv.h - what the convolution front (conv.c: checks, shapes, results, the choice of path), its two
 * paths (conv_gemm.c: im2col + GEMM; onednn.c: oneDNN's primitives) and unfold/fold (im2col.c)
 * share.
 *
 * Every problem is described as a plain (not transposed) convolution y = conv(x, w) over three
 * spatial dimensions: 1-D and 2-D problems lead with spatial sizes of 1. A transposed convolution
 * is the backward-data pass of the plain convolution whose output is its input (Note [transposed
 * as backward] in conv.c), so the paths implement three passes of one plain convolution:
 *   forward         y[N, Cout, out] = conv(x[N, Cin, in], w[Cout, Cin/G, k])
 *   backward data   gx = conv's gradient with respect to x, from gy
 *   backward weight gw = conv's gradient with respect to w, from x and gy
 * Buffers are contiguous (N, C, D, H, W) in the problem's dtype (float32 or float64), or all
 * channels-last (N, D, H, W, C; weights (Cout, kd, kh, kw, Cin/G)) when g->cl says so, which only
 * the paths that pt_conv_path_takes_cl names are given.
 */
#ifndef PT_KERNELS_NN_CONV_H
#define PT_KERNELS_NN_CONV_H

#include "internal.h"

typedef struct pt_conv_geom {
    int32_t dtype;  /* PT_FLOAT32 or PT_FLOAT64 */
    int32_t dims;   /* the caller's spatial dimensions (1-3); the arrays below always hold 3 */
    int64_t n, groups;
    int64_t cin, cout; /* of the plain convolution */
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
    /* the buffers are channels-last: x (N, in, Cin), y (N, out, Cout), w (Cout, k, Cin/G) */
    bool cl;
} pt_conv_geom;

enum {
    PT_CONV_PATH_NONE = 0,
    PT_CONV_PATH_GEMM = 1,
    PT_CONV_PATH_ONEDNN = 2,
    PT_CONV_PATH_DEPTHWISE = 3
};
enum { PT_CONV_FORWARD = 0, PT_CONV_BACKWARD_DATA = 1, PT_CONV_BACKWARD_WEIGHT = 2 };

/* The products a pass of g costs, in multiply-adds (the same for the three passes). */
static inline int64_t pt_conv_macs(const pt_conv_geom *g)
{
    return g->n * g->cout * (g->cin / g->groups) * g->k[0] * g->k[1] * g->k[2] * g->out[0] *
           g->out[1] * g->out[2];
}

/* The plain problem of a convolution (conv.c; Note [transposed as backward]): input and weight
 * sizes, dtype (float16/bfloat16 compute in float32) and parameters of `dims` values each. */
void pt_conv_geom_of(const int64_t *in_sizes, const int64_t *w_sizes, int32_t dtype, int32_t dims,
                     const int64_t *stride, const int64_t *padding, const int64_t *dilation,
                     bool transposed, const int64_t *output_padding, int64_t groups,
                     pt_conv_geom *g);
/* The path (PT_CONV_PATH_*) pass `pass` of g takes. */
int32_t pt_conv_path(const pt_conv_geom *g, int pass);
/* Whether that path runs on channels-last buffers (else they are converted for it). */
bool pt_conv_path_takes_cl(const pt_conv_geom *g, int pass);
/* Whether a convolution of input and weight gives channels-last results (torch's rule: either
 * is channels-last and not plainly contiguous as well). */
bool pt_conv_wants_cl(const pt_tensor *input, const pt_tensor *weight);

/* ---------------------------------------------------------------- unfolding (im2col.c) */
/* One image's channels c0..c0+nc of x (C x in[0] x in[1] x in[2], contiguous) as the columns
 * matrix (nc * k0 * k1 * k2) x (out0 * out1 * out2); padding reads as zeros. */
void pt_conv_vol2col(const pt_conv_geom *g, const void *x, int64_t nc, void *col);
/* The inverse scatter: each column element is added into its x element (x is not cleared). */
void pt_conv_col2vol(const pt_conv_geom *g, const void *col, int64_t nc, void *x);

/* The same for channels-last buffers: x is the group's first channel of one image (pixels g->cin
 * apart) and col is (out positions) x (nc * k0 * k1 * k2), channel fastest (Note [channels-last
 * columns] in im2col.c). */
void pt_conv_vol2col_cl(const pt_conv_geom *g, const void *x, int64_t nc, void *col);
void pt_conv_col2vol_cl(const pt_conv_geom *g, const void *col, int64_t nc, void *x);

/* ---------------------------------------------------------------- im2col + GEMM (conv_gemm.c) */
pt_status pt_conv_gemm_forward(const pt_conv_geom *g, const void *x, const void *w, void *y);
pt_status pt_conv_gemm_backward_data(const pt_conv_geom *g, const void *gy, const void *w,
                                     void *gx);
pt_status pt_conv_gemm_backward_weight(const pt_conv_geom *g, const void *x, const void *gy,
                                       void *gw);

/* ---------------------------------------------------------------- depthwise (conv_depthwise.c) */
/* One pass's loop over [begin, end): planes of the result for forward and backward data, output
 * channels for backward weight (csrc/kernels/cpu/nn_conv_kernels.c). Index 0 float32, 1 float64. */
typedef void (*pt_conv_dw_fn)(const pt_conv_geom *g, const void *a, const void *b, void *out,
                              int64_t begin, int64_t end);
typedef struct pt_conv_dw_table {
    pt_conv_dw_fn forward[2], backward_data[2], backward_weight[2];
    /* channels-last, multiplier 1: rows of y, rows of gx, taps of the (tap, C) weight */
    pt_conv_dw_fn forward_cl[2], backward_data_cl[2], backward_weight_cl[2];
} pt_conv_dw_table;

/* Whether g is depthwise (groups == cin, cout a multiple of it) over at most two dimensions. */
bool pt_conv_is_depthwise(const pt_conv_geom *g);
/* Whether the loops take g's channels-last buffers (a multiplier of 1). */
bool pt_conv_depthwise_takes_cl(const pt_conv_geom *g);
/* Pass `pass` of a depthwise g, with conv.h's operands. */
pt_status pt_conv_depthwise(const pt_conv_geom *g, int pass, const void *a, const void *b,
                            void *out);

/* ---------------------------------------------------------------- oneDNN (onednn.c) */
/* Whether the build has oneDNN, and the switch pytensor.backends.onednn.enabled sets. */
bool pt_onednn_built(void);
/* Whether oneDNN serves pass `pass` of g (built, enabled, dtype, and the shapes it is faster on:
 * Note [convolution paths] in conv.c). */
bool pt_onednn_serves(const pt_conv_geom *g, int pass);
pt_status pt_onednn_conv(const pt_conv_geom *g, int pass, const void *a, const void *b, void *out);

#endif
