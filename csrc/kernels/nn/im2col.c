/* im2col.c - unfolding an image into the columns matrix of a convolution (vol2col) and folding it
 * back (col2vol), over three spatial dimensions; and the operators im2col and col2im
 * (torch._C._nn, F.unfold and F.fold), which are the 2-D case over a batch.
 *
 * Row r of the columns matrix is one (channel, kd, kh, kw) tap, column j one output position
 * (od, oh, ow); the element is x[c, od*sd - pd + kd*dd, ...], zero outside the image. A row is
 * written along the output's last dimension, so for stride 1 it is a run of consecutive input
 * elements between two clipped ends (one memcpy-like loop the compiler vectorizes); other strides
 * gather. col2vol walks the same order and adds, so a pixel that several taps read gets the sum
 * of their gradients, in a fixed order (the result does not depend on threads).
 */
#include <string.h>

#include "conv.h"
#include "iter.h"
#include "pt_ops_internal.h"

/* The first and one-past-last output index o in [0, n) whose input index o*s - p + kk*d lies
 * in [0, size). */
static inline void valid_range(int64_t n, int64_t s, int64_t off, int64_t size, int64_t *lo,
                               int64_t *hi)
{
    /* o*s + off >= 0  and  o*s + off < size */
    int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t b = size - off <= 0 ? 0 : (size - off + s - 1) / s;
    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
    if (*hi < *lo) *hi = *lo;
}

#define UNFOLD(SUF, T)                                                                             \
    static void vol2col_##SUF(const pt_conv_geom *g, const T *x, int64_t nc, T *col)               \
    {                                                                                              \
        const int64_t od = g->out[0], oh = g->out[1], ow = g->out[2];                              \
        const int64_t id = g->in[0], ih = g->in[1], iw = g->in[2];                                 \
        const int64_t sw = g->stride[2];                                                           \
        for (int64_t c = 0; c < nc; c++)                                                           \
            for (int64_t kd = 0; kd < g->k[0]; kd++)                                               \
                for (int64_t kh = 0; kh < g->k[1]; kh++)                                           \
                    for (int64_t kw = 0; kw < g->k[2]; kw++) {                                     \
                        const int64_t offw = kw * g->dil[2] - g->pad[2];                           \
                        int64_t wlo, whi;                                                          \
                        valid_range(ow, sw, offw, iw, &wlo, &whi);                                 \
                        for (int64_t d = 0; d < od; d++) {                                         \
                            const int64_t z = d * g->stride[0] - g->pad[0] + kd * g->dil[0];       \
                            for (int64_t h = 0; h < oh; h++, col += ow) {                          \
                                const int64_t y = h * g->stride[1] - g->pad[1] + kh * g->dil[1];   \
                                if (z < 0 || z >= id || y < 0 || y >= ih) {                        \
                                    memset(col, 0, (size_t)ow * sizeof(T));                        \
                                    continue;                                                      \
                                }                                                                  \
                                const T *row = x + ((c * id + z) * ih + y) * iw + offw;            \
                                for (int64_t o = 0; o < wlo; o++) col[o] = 0;                      \
                                if (sw == 1)                                                       \
                                    for (int64_t o = wlo; o < whi; o++) col[o] = row[o];           \
                                else                                                               \
                                    for (int64_t o = wlo; o < whi; o++) col[o] = row[o * sw];      \
                                for (int64_t o = whi; o < ow; o++) col[o] = 0;                     \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
    }                                                                                              \
    static void col2vol_##SUF(const pt_conv_geom *g, const T *col, int64_t nc, T *x)               \
    {                                                                                              \
        const int64_t od = g->out[0], oh = g->out[1], ow = g->out[2];                              \
        const int64_t id = g->in[0], ih = g->in[1], iw = g->in[2];                                 \
        const int64_t sw = g->stride[2];                                                           \
        for (int64_t c = 0; c < nc; c++)                                                           \
            for (int64_t kd = 0; kd < g->k[0]; kd++)                                               \
                for (int64_t kh = 0; kh < g->k[1]; kh++)                                           \
                    for (int64_t kw = 0; kw < g->k[2]; kw++) {                                     \
                        const int64_t offw = kw * g->dil[2] - g->pad[2];                           \
                        int64_t wlo, whi;                                                          \
                        valid_range(ow, sw, offw, iw, &wlo, &whi);                                 \
                        for (int64_t d = 0; d < od; d++) {                                         \
                            const int64_t z = d * g->stride[0] - g->pad[0] + kd * g->dil[0];       \
                            for (int64_t h = 0; h < oh; h++, col += ow) {                          \
                                const int64_t y = h * g->stride[1] - g->pad[1] + kh * g->dil[1];   \
                                if (z < 0 || z >= id || y < 0 || y >= ih) continue;                \
                                T *row = x + ((c * id + z) * ih + y) * iw + offw;                  \
                                if (sw == 1)                                                       \
                                    for (int64_t o = wlo; o < whi; o++) row[o] += col[o];          \
                                else                                                               \
                                    for (int64_t o = wlo; o < whi; o++) row[o * sw] += col[o];     \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
    }
UNFOLD(f32, float)
UNFOLD(f64, double)

void pt_conv_vol2col(const pt_conv_geom *g, const void *x, int64_t nc, void *col)
{
    if (g->dtype == PT_FLOAT32) vol2col_f32(g, x, nc, col);
    else vol2col_f64(g, x, nc, col);
}

void pt_conv_col2vol(const pt_conv_geom *g, const void *col, int64_t nc, void *x)
{
    if (g->dtype == PT_FLOAT32) col2vol_f32(g, col, nc, x);
    else col2vol_f64(g, col, nc, x);
}

/* Note [channels-last columns]
 * For channels-last buffers (x: in0 x in1 x in2 x C) the columns matrix is transposed: row j is
 * one output position (od, oh, ow), column one (kd, kh, kw, channel) tap, channel fastest, so a
 * tap's nc channels are one run of consecutive input elements (copied whole, or zeros where the
 * tap falls in the padding), and the matrix row matches a channels-last weight's row
 * (Cout, kd, kh, kw, Cin/G). x points at the group's first channel; a pixel's channels are
 * g->cin apart. col2vol_cl walks the same order and adds. */
#define UNFOLD_CL(SUF, T)                                                                          \
    static void vol2col_cl_##SUF(const pt_conv_geom *g, const T *x, int64_t nc, T *col)            \
    {                                                                                              \
        const int64_t id = g->in[0], ih = g->in[1], iw = g->in[2], C = g->cin;                     \
        for (int64_t d = 0; d < g->out[0]; d++)                                                    \
            for (int64_t h = 0; h < g->out[1]; h++)                                                \
                for (int64_t w = 0; w < g->out[2]; w++)                                            \
                    for (int64_t kd = 0; kd < g->k[0]; kd++) {                                     \
                        const int64_t z = d * g->stride[0] - g->pad[0] + kd * g->dil[0];           \
                        for (int64_t kh = 0; kh < g->k[1]; kh++) {                                 \
                            const int64_t y = h * g->stride[1] - g->pad[1] + kh * g->dil[1];       \
                            for (int64_t kw = 0; kw < g->k[2]; kw++, col += nc) {                  \
                                const int64_t v = w * g->stride[2] - g->pad[2] + kw * g->dil[2];   \
                                if (z < 0 || z >= id || y < 0 || y >= ih || v < 0 || v >= iw) {    \
                                    memset(col, 0, (size_t)nc * sizeof(T));                        \
                                    continue;                                                      \
                                }                                                                  \
                                memcpy(col, x + ((z * ih + y) * iw + v) * C,                       \
                                       (size_t)nc * sizeof(T));                                    \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
    }                                                                                              \
    static void col2vol_cl_##SUF(const pt_conv_geom *g, const T *col, int64_t nc, T *x)            \
    {                                                                                              \
        const int64_t id = g->in[0], ih = g->in[1], iw = g->in[2], C = g->cin;                     \
        for (int64_t d = 0; d < g->out[0]; d++)                                                    \
            for (int64_t h = 0; h < g->out[1]; h++)                                                \
                for (int64_t w = 0; w < g->out[2]; w++)                                            \
                    for (int64_t kd = 0; kd < g->k[0]; kd++) {                                     \
                        const int64_t z = d * g->stride[0] - g->pad[0] + kd * g->dil[0];           \
                        for (int64_t kh = 0; kh < g->k[1]; kh++) {                                 \
                            const int64_t y = h * g->stride[1] - g->pad[1] + kh * g->dil[1];       \
                            for (int64_t kw = 0; kw < g->k[2]; kw++, col += nc) {                  \
                                const int64_t v = w * g->stride[2] - g->pad[2] + kw * g->dil[2];   \
                                if (z < 0 || z >= id || y < 0 || y >= ih || v < 0 || v >= iw)      \
                                    continue;                                                      \
                                T *px = x + ((z * ih + y) * iw + v) * C;                           \
                                for (int64_t c = 0; c < nc; c++) px[c] += col[c];                  \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
    }
UNFOLD_CL(f32, float)
UNFOLD_CL(f64, double)

void pt_conv_vol2col_cl(const pt_conv_geom *g, const void *x, int64_t nc, void *col)
{
    if (g->dtype == PT_FLOAT32) vol2col_cl_f32(g, x, nc, col);
    else vol2col_cl_f64(g, x, nc, col);
}

void pt_conv_col2vol_cl(const pt_conv_geom *g, const void *col, int64_t nc, void *x)
{
    if (g->dtype == PT_FLOAT32) col2vol_cl_f32(g, col, nc, x);
    else col2vol_cl_f64(g, col, nc, x);
}

/* ---------------------------------------------------------------- im2col and col2im */

/* torch's checks of the four pairs (im2col_shape_check's wording). */
static pt_status check_pairs(int32_t nk, const int64_t *k, int32_t nd, const int64_t *d,
                             int32_t np, const int64_t *p, int32_t ns, const int64_t *s)
{
    const int32_t lens[4] = {nk, nd, np, ns};
    static const char *const names[4] = {"kernel_size", "dilation", "padding", "stride"};
    for (int i = 0; i < 4; i++)
        if (lens[i] != 2)
            return PT_ERROR(PT_ERR_RUNTIME, "It is expected %s equals to 2, but got size %d",
                            names[i], (int)lens[i]);
    if (k[0] <= 0 || k[1] <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "kernel size should be greater than zero, but got "
                        "kernel_height: %lld kernel_width: %lld", (long long)k[0],
                        (long long)k[1]);
    if (s[0] <= 0 || s[1] <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "stride should be greater than zero, but got "
                        "stride_height: %lld stride_width: %lld", (long long)s[0],
                        (long long)s[1]);
    if (d[0] <= 0 || d[1] <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "dilation should be greater than zero, but got "
                        "dilation_height: %lld dilation_width: %lld", (long long)d[0],
                        (long long)d[1]);
    if (p[0] < 0 || p[1] < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "padding should be non-negative, but got pad_height: "
                        "%lld pad_width: %lld", (long long)p[0], (long long)p[1]);
    return PT_OK;
}

enum { SHAPE_CHARS = 256 };

static const char *shape_text(const pt_tensor *t, char *buf)
{
    return pt_format_ints(buf, SHAPE_CHARS, t->ndim, t->sizes);
}

static pt_status check_dtype(const char *kname, const pt_tensor *t)
{
    if (t->dtype == PT_FLOAT32 || t->dtype == PT_FLOAT64) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kname,
                    pt_iter_type_name(t->dtype));
}

static void geom_2d(pt_conv_geom *g, int32_t dtype, int64_t h, int64_t w, const int64_t *k,
                    const int64_t *d, const int64_t *p, const int64_t *s, int64_t oh, int64_t ow)
{
    memset(g, 0, sizeof *g);
    g->dtype = dtype;
    g->dims = 2;
    g->n = g->groups = 1;
    g->in[0] = g->out[0] = g->k[0] = g->stride[0] = g->dil[0] = 1;
    g->in[1] = h, g->in[2] = w;
    g->out[1] = oh, g->out[2] = ow;
    g->k[1] = k[0], g->k[2] = k[1];
    g->dil[1] = d[0], g->dil[2] = d[1];
    g->pad[1] = p[0], g->pad[2] = p[1];
    g->stride[1] = s[0], g->stride[2] = s[1];
}

typedef struct fold_job {
    const pt_conv_geom *g;
    const char *src;
    char *dst;
    int64_t c, src_step, dst_step;
    bool unfold;
} fold_job;

static void fold_images(int64_t begin, int64_t end, void *ctx)
{
    const fold_job *j = ctx;
    for (int64_t i = begin; i < end; i++) {
        if (j->unfold) pt_conv_vol2col(j->g, j->src + i * j->src_step, j->c, j->dst + i * j->dst_step);
        else pt_conv_col2vol(j->g, j->src + i * j->src_step, j->c, j->dst + i * j->dst_step);
    }
}

/* Runs the batch of images of j over threads, one image per piece of work. */
static void fold_batch(fold_job *j, int64_t n, int64_t per_image)
{
    pt_parallel_for(n, (PT_GRAIN + per_image - 1) / (per_image ? per_image : 1), fold_images, j);
}

pt_status pt_kernel_im2col(const pt_tensor *self, int32_t nk, const int64_t *k, int32_t nd,
                           const int64_t *d, int32_t np, const int64_t *p, int32_t ns,
                           const int64_t *s, pt_tensor **ret)
{
    PT_TRY(check_pairs(nk, k, nd, d, np, p, ns, s));
    char buf[SHAPE_CHARS];
    const bool batched = self->ndim == 4;
    if (!(self->ndim == 3 || batched) || self->sizes[batched] == 0 ||
        self->sizes[self->ndim - 1] == 0 || self->sizes[self->ndim - 2] == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with possibly 0 "
                        "batch size and other non-zero dimensions for input, but got: %s",
                        shape_text(self, buf));
    const int64_t n = batched ? self->sizes[0] : 1, c = self->sizes[batched];
    const int64_t h = self->sizes[batched + 1], w = self->sizes[batched + 2];
    const int64_t oh = (h + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
    const int64_t ow = (w + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
    if (oh < 1 || ow < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Given input with spatial size (%lld, %lld), "
                        "kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), "
                        "calculated shape of the array of sliding blocks as (%lld, %lld), but "
                        "its components must be at least one.", (long long)h, (long long)w,
                        (long long)k[0], (long long)k[1], (long long)d[0], (long long)d[1],
                        (long long)p[0], (long long)p[1], (long long)oh, (long long)ow);
    PT_TRY(check_dtype("im2col_out_cpu", self));
    const int64_t sizes[3] = {n, c * k[0] * k[1], oh * ow};
    pt_tensor *r = NULL;
    PT_TRY(pt_tensor_empty(batched ? 3 : 2, sizes + !batched, self->dtype, self->device, &r));
    if (self->device.type == PT_DEV_META || pt_tensor_numel(r) == 0) {
        *ret = r;
        return PT_OK;
    }
    pt_tensor *x = NULL;
    pt_status st = pt_tensor_contiguous(self, &x);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    pt_conv_geom g;
    geom_2d(&g, self->dtype, h, w, k, d, p, s, oh, ow);
    const int64_t item = pt_dtype_itemsize(self->dtype);
    fold_job j = {&g, pt_tensor_data(x), pt_tensor_data(r), c, c * h * w * item,
                  sizes[1] * sizes[2] * item, true};
    fold_batch(&j, n, sizes[1] * sizes[2]);
    pt_tensor_release(x);
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel_col2im(const pt_tensor *self, int32_t no, const int64_t *o, int32_t nk,
                           const int64_t *k, int32_t nd, const int64_t *d, int32_t np,
                           const int64_t *p, int32_t ns, const int64_t *s, pt_tensor **ret)
{
    if (no != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "It is expected output_size equals to 2, but got size %d",
                        (int)no);
    PT_TRY(check_pairs(nk, k, nd, d, np, p, ns, s));
    char buf[SHAPE_CHARS];
    const bool batched = self->ndim == 3;
    if (!(self->ndim == 2 || batched) || self->sizes[batched] == 0 ||
        self->sizes[batched + 1] == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected 2D or 3D (batch mode) tensor for input with "
                        "possibly 0 batch size and non-zero dimensions for input, but got: %s",
                        shape_text(self, buf));
    const int64_t rows = self->sizes[batched], blocks = self->sizes[batched + 1];
    if (rows % (k[0] * k[1]) != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected size of input's dimension 1 to be divisible by "
                        "the product of kernel_size, but got input.size(1)=%lld and "
                        "kernel_size=(%lld, %lld).", (long long)rows, (long long)k[0],
                        (long long)k[1]);
    const int64_t oh = (o[0] + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
    const int64_t ow = (o[1] + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
    if (oh < 1 || ow < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Given output_size=(%lld, %lld), kernel_size=(%lld, "
                        "%lld), dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), "
                        "calculated shape of the array of sliding blocks as (%lld, %lld), but "
                        "its components must be at least one.", (long long)o[0], (long long)o[1],
                        (long long)k[0], (long long)k[1], (long long)d[0], (long long)d[1],
                        (long long)p[0], (long long)p[1], (long long)s[0], (long long)s[1],
                        (long long)oh, (long long)ow);
    if (oh * ow != blocks)
        return PT_ERROR(PT_ERR_RUNTIME, "Given output_size=(%lld, %lld), kernel_size=(%lld, "
                        "%lld), dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), "
                        "expected size of input's dimension 2 to match the calculated number of "
                        "sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                        (long long)o[0], (long long)o[1], (long long)k[0], (long long)k[1],
                        (long long)d[0], (long long)d[1], (long long)p[0], (long long)p[1],
                        (long long)s[0], (long long)s[1], (long long)oh, (long long)ow,
                        (long long)(oh * ow), (long long)blocks);
    PT_TRY(check_dtype("col2im_out_cpu", self));
    const int64_t n = batched ? self->sizes[0] : 1, c = rows / (k[0] * k[1]);
    const int64_t sizes[4] = {n, c, o[0], o[1]};
    pt_tensor *r = NULL;
    PT_TRY(pt_tensor_empty(batched ? 4 : 3, sizes + !batched, self->dtype, self->device, &r));
    if (self->device.type == PT_DEV_META || pt_tensor_numel(r) == 0) {
        *ret = r;
        return PT_OK;
    }
    const int64_t item = pt_dtype_itemsize(self->dtype);
    memset(pt_tensor_data(r), 0, (size_t)(pt_tensor_numel(r) * item));
    pt_tensor *x = NULL;
    pt_status st = pt_tensor_contiguous(self, &x);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    pt_conv_geom g;
    geom_2d(&g, self->dtype, o[0], o[1], k, d, p, s, oh, ow);
    fold_job j = {&g, pt_tensor_data(x), pt_tensor_data(r), c, rows * blocks * item,
                  c * o[0] * o[1] * item, false};
    fold_batch(&j, n, rows * blocks);
    pt_tensor_release(x);
    *ret = r;
    return PT_OK;
}
