/* pool_adaptive.c - adaptive average pooling (_adaptive_avg_pool2d/3d and their backward),
 * adaptive max pooling (adaptive_max_pool2d/3d and their backward) and max unpooling
 * (max_unpool2d/3d):
 * torch's checks and messages, outputs in the input's layout (pool.h), the loops of
 * cpu/nn_pool_kernels.c split across threads.
 *
 * An adaptive pool's output o along a dim of input size I and output size O reads the window
 * [floor(o I / O), ceil((o + 1) I / O)), so windows cover the input and overlap by at most one
 * element. Max unpooling writes each input element to the flat index (within its plane) that its
 * index names in a zeroed output, copying elements by their size. An index outside
 * the output plane fails with torch's message (the first one met, threads racing to report it).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "iter.h"
#include "pool.h"
#include "pt_ops_internal.h"

/* ---------------------------------------------------------------- adaptive pooling */

typedef struct adaptive {
    const char *name;      /* "adaptive_avg_pool2d" */
    int32_t nd;
    bool max;
} adaptive;

static const adaptive AAVG2 = {"adaptive_avg_pool2d", 2, false};
static const adaptive AAVG3 = {"adaptive_avg_pool3d", 3, false};
static const adaptive AMAX2 = {"adaptive_max_pool2d", 2, true};
static const adaptive AMAX3 = {"adaptive_max_pool3d", 3, true};

static pt_status adaptive_check(const adaptive *ad, const pt_tensor *self, int32_t n)
{
    char buf[256];
    const int32_t nd = ad->nd, ndim = self->ndim;
    if (n != nd) {
        if (ad->max)
            return PT_ERROR(PT_ERR_RUNTIME, "%s(): internal error: output_size.size() must be %d",
                            ad->name, nd);
        return PT_ERROR(PT_ERR_RUNTIME, "%s: output_size must be %d", ad->name, nd);
    }
    if (ndim != nd + 1 && ndim != nd + 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): Expected %s tensor, but got%s %s", ad->name,
                        nd == 2 ? "3D or 4D" : "4D or 5D", ad->max ? ":" : "",
                        pt_pool_sizes_str(buf, sizeof buf, ndim, self->sizes));
    for (int32_t i = 1; i < ndim; i++)
        if (self->sizes[i] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "%s(): Expected input to have non-zero size for "
                            "non-batch dimensions, but input has sizes %s with dimension %d being "
                            "empty", ad->name, pt_pool_sizes_str(buf, sizeof buf, ndim,
                                                                  self->sizes), i);
    return PT_OK;
}

/* Geometry and output sizes of an adaptive pool of self to out_size (nd values). */
static pt_status adaptive_geom(const adaptive *ad, const pt_tensor *self, const int64_t *out_size,
                               pt_pool_geom *g, int64_t sizes[5])
{
    const int32_t nd = ad->nd, ndim = self->ndim;
    memset(g, 0, sizeof *g);
    g->batch = ndim == nd + 2 ? self->sizes[0] : 1;
    g->channels = self->sizes[ndim - nd - 1];
    g->in[0] = g->out[0] = 1;
    for (int32_t i = 0; i < ndim - nd; i++) sizes[i] = self->sizes[i];
    for (int32_t i = 0; i < nd; i++) {
        g->in[3 - nd + i] = self->sizes[ndim - nd + i];
        g->out[3 - nd + i] = sizes[ndim - nd + i] = out_size[i];
    }
    for (int32_t i = 0; i < nd; i++) {
        if (out_size[i] < 0) {
            char buf[256];
            return PT_ERROR(PT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: "
                            "%s", (long long)out_size[i],
                            pt_pool_sizes_str(buf, sizeof buf, ndim, sizes));
        }
    }
    return PT_OK;
}

/* The layout of the results: the input's in 2-d, planar in 3-d, whose results torch makes
 * planar-contiguous. */
static bool adaptive_cl(const adaptive *ad, const pt_tensor *self)
{
    return ad->nd == 2 && pt_pool_is_channels_last(self, ad->nd);
}

/* torch's kernel name in a refusal: per layout in 2-d, one name in 3-d. */
static const char *kernel_name(char *buf, size_t cap, const adaptive *ad, bool cl)
{
    if (ad->nd == 3) snprintf(buf, cap, "%s_cpu", ad->name);
    else snprintf(buf, cap, "%s%s", ad->name, cl ? "_channels_last" : "");
    return buf;
}

static pt_status adaptive_forward(const adaptive *ad, const pt_tensor *self, int32_t n,
                                  const int64_t *out_size, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(adaptive_check(ad, self, n));
    char name[64];
    const bool cl = adaptive_cl(ad, self);
    const int32_t compute = pt_pool_compute_dtype(kernel_name(name, sizeof name, ad, cl),
                                                  self->dtype, PT_POOL_ACCEPT_HALF);
    if (compute < 0) return PT_ERR_NOT_IMPLEMENTED;
    pt_pool_geom g;
    int64_t sizes[5];
    PT_TRY(adaptive_geom(ad, self, out_size, &g, sizes));
    /* each output reads about in/out of the input along every dim */
    const int64_t iplane = g.in[0] * g.in[1] * g.in[2];
    const int64_t oplane = g.out[0] * g.out[1] * g.out[2];
    const int64_t rows = g.out[0] * g.out[1] > 0 ? g.out[0] * g.out[1] : 1;
    const int64_t nitems = cl ? g.batch * g.out[0] * g.out[1] : g.batch * g.channels;
    const int64_t work = cl ? (iplane / rows + g.out[2]) * g.channels : iplane + oplane;
    const int kind = ad->max ? PT_POOL_ADAPTIVE_MAX : PT_POOL_ADAPTIVE_AVG;
    return pt_pool_forward_run(pt_pool_fwd_loop(kind, compute, cl), compute, &g, cl, ad->nd, self,
                               sizes, nitems, work, ret0, ad->max ? ret1 : NULL);
}

static pt_status adaptive_backward(const adaptive *ad, const pt_tensor *grad_output,
                                   const pt_tensor *self, const pt_tensor *indices, pt_tensor **ret)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s_backward", ad->max ? "" : "_", ad->name);
    PT_TRY(adaptive_check(ad, self, ad->nd));
    if (grad_output->ndim != self->ndim) {
        char a[256], b[256];
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected grad_output of %d dims for self of sizes %s, "
                        "but got %s", name, self->ndim,
                        pt_pool_sizes_str(a, sizeof a, self->ndim, self->sizes),
                        pt_pool_sizes_str(b, sizeof b, grad_output->ndim, grad_output->sizes));
    }
    for (int32_t i = 0; i < self->ndim - ad->nd; i++)
        if (grad_output->sizes[i] != self->sizes[i]) {
            char a[256], b[256];
            return PT_ERROR(PT_ERR_RUNTIME, "%s: grad_output of sizes %s does not match self of "
                            "sizes %s", name,
                            pt_pool_sizes_str(a, sizeof a, grad_output->ndim, grad_output->sizes),
                            pt_pool_sizes_str(b, sizeof b, self->ndim, self->sizes));
        }
    if (indices && (indices->ndim != grad_output->ndim ||
                    memcmp(indices->sizes, grad_output->sizes,
                           sizeof(int64_t) * (size_t)grad_output->ndim) != 0))
        return PT_ERROR(PT_ERR_RUNTIME, "%s: indices and grad_output differ in shape", name);
    pt_pool_geom g;
    int64_t sizes[5];
    PT_TRY(adaptive_geom(ad, self, grad_output->sizes + self->ndim - ad->nd, &g, sizes));
    return pt_pool_backward_run(name, ad->nd, ad->max ? PT_POOL_ADAPTIVE_MAX : PT_POOL_ADAPTIVE_AVG,
                                &g, adaptive_cl(ad, self), grad_output, self, indices, ret);
}

pt_status pt_kernel__adaptive_avg_pool2d(const pt_tensor *self, int32_t output_size_len,
                                         const int64_t *output_size, pt_tensor **ret)
{
    return adaptive_forward(&AAVG2, self, output_size_len, output_size, ret, NULL);
}

pt_status pt_kernel__adaptive_avg_pool3d(const pt_tensor *self, int32_t output_size_len,
                                         const int64_t *output_size, pt_tensor **ret)
{
    return adaptive_forward(&AAVG3, self, output_size_len, output_size, ret, NULL);
}

pt_status pt_kernel_adaptive_max_pool2d(const pt_tensor *self, int32_t output_size_len,
                                        const int64_t *output_size, pt_tensor **ret0,
                                        pt_tensor **ret1)
{
    return adaptive_forward(&AMAX2, self, output_size_len, output_size, ret0, ret1);
}

pt_status pt_kernel_adaptive_max_pool3d(const pt_tensor *self, int32_t output_size_len,
                                        const int64_t *output_size, pt_tensor **ret0,
                                        pt_tensor **ret1)
{
    return adaptive_forward(&AMAX3, self, output_size_len, output_size, ret0, ret1);
}

pt_status pt_kernel__adaptive_avg_pool2d_backward(const pt_tensor *grad_output,
                                                  const pt_tensor *self, pt_tensor **ret)
{
    return adaptive_backward(&AAVG2, grad_output, self, NULL, ret);
}

pt_status pt_kernel__adaptive_avg_pool3d_backward(const pt_tensor *grad_output,
                                                  const pt_tensor *self, pt_tensor **ret)
{
    return adaptive_backward(&AAVG3, grad_output, self, NULL, ret);
}

pt_status pt_kernel_adaptive_max_pool2d_backward(const pt_tensor *grad_output,
                                                 const pt_tensor *self, const pt_tensor *indices,
                                                 pt_tensor **ret)
{
    if (indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "adaptive_max_pool2d_backward: expected indices of dtype "
                        "int64, but got %s", pt_dtype_info_of(indices->dtype)->name);
    return adaptive_backward(&AMAX2, grad_output, self, indices, ret);
}

pt_status pt_kernel_adaptive_max_pool3d_backward(const pt_tensor *grad_output,
                                                 const pt_tensor *self, const pt_tensor *indices,
                                                 pt_tensor **ret)
{
    if (indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        pt_iter_type_name(indices->dtype));
    if (grad_output->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected dtype %s for `gradOutput` but got dtype %s",
                        pt_dtype_info_of(self->dtype)->name,
                        pt_dtype_info_of(grad_output->dtype)->name);
    return adaptive_backward(&AMAX3, grad_output, self, indices, ret);
}

/* ---------------------------------------------------------------- max unpooling */

typedef struct unpool_job {
    const char *in;
    const int64_t *idx;
    char *out;
    int64_t channels, iplane, oplane;
    int64_t item;
    bool cl;
    _Atomic int64_t bad; /* the first invalid index met, or INT64_MIN */
} unpool_job;

#define UNPOOL_COPY(T)                                                                             \
    do {                                                                                           \
        const T *src = (const T *)j->in;                                                           \
        T *dst = (T *)j->out;                                                                      \
        for (int64_t b = begin; b < end; b++) {                                                    \
            for (int64_t i = 0; i < per; i++) {                                                    \
                const int64_t at = b * per + i, x = j->idx[at];                                    \
                if (x < 0 || x >= j->oplane) {                                                     \
                    int64_t none = INT64_MIN;                                                      \
                    atomic_compare_exchange_strong(&j->bad, &none, x);                             \
                    return;                                                                        \
                }                                                                                  \
                if (j->cl) {                                                                       \
                    const int64_t n = at / per_batch, c = at % C;                                  \
                    dst[(n * j->oplane + x) * C + c] = src[at];                                    \
                } else {                                                                           \
                    dst[b * j->oplane + x] = src[at];                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* begin/end: planes (planar) or batch elements (channels-last). */
static void unpool_range(int64_t begin, int64_t end, void *arg)
{
    unpool_job *j = arg;
    const int64_t C = j->channels;
    const int64_t per = j->cl ? j->iplane * C : j->iplane, per_batch = j->iplane * C;
    switch (j->item) {
    case 1: UNPOOL_COPY(uint8_t); break;
    case 2: UNPOOL_COPY(uint16_t); break;
    case 4: UNPOOL_COPY(uint32_t); break;
    default: UNPOOL_COPY(uint64_t); break;
    }
}

static pt_status unpool(int32_t nd, const pt_tensor *self, const pt_tensor *indices,
                        const int64_t *out_size, const int64_t *stride, pt_tensor **ret)
{
    char a[256], b[256];
    const int32_t ndim = self->ndim;
    if (self->ndim != indices->ndim ||
        memcmp(self->sizes, indices->sizes, sizeof(int64_t) * (size_t)ndim) != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected shape of indices to be same as that of the input "
                        "tensor (%s) but got indices tensor with shape: %s",
                        pt_pool_sizes_str(a, sizeof a, ndim, self->sizes),
                        pt_pool_sizes_str(b, sizeof b, indices->ndim, indices->sizes));
    for (int32_t i = 1; i < ndim; i++)
        if (self->sizes[i] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "max_unpooling%dd_forward_out_cpu(): Expected input to "
                            "have non-zero size for non-batch dimensions, but got %s with "
                            "dimension %d being empty.", nd,
                            pt_pool_sizes_str(a, sizeof a, ndim, self->sizes), i);
    if (stride && (stride[0] <= 0 || stride[1] <= 0 || stride[2] <= 0))
        return PT_ERROR(PT_ERR_RUNTIME, "strides should be greater than zero, but got stride: %s",
                        pt_pool_sizes_str(a, sizeof a, 3, stride));
    /* torch's max_unpool3d has no channels-last kernel: its results are planar-contiguous */
    const bool cl = nd == 2 && pt_pool_is_channels_last(self, nd);
    char name[64];
    snprintf(name, sizeof name, "max_unpool%dd%s", nd, cl ? "_channels_last" : "");
    if (pt_pool_compute_dtype(name, self->dtype, PT_POOL_ACCEPT_HALF) < 0)
        return PT_ERR_NOT_IMPLEMENTED;
    int64_t sizes[5], oplane = 1, iplane = 1;
    for (int32_t i = 0; i < ndim - nd; i++) sizes[i] = self->sizes[i];
    for (int32_t i = 0; i < nd; i++) {
        sizes[ndim - nd + i] = out_size[i];
        oplane *= out_size[i];
        iplane *= self->sizes[ndim - nd + i];
    }
    pt_tensor *out = NULL, *in = NULL, *ix = NULL;
    PT_TRY(pt_pool_empty(ndim, sizes, cl, self->dtype, self->device, &out));
    const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    pt_status st = pt_tensor_fill_(out, &zero);
    if (st != PT_OK || self->device.type != PT_DEV_CPU || self->numel == 0) goto done;
    st = pt_pool_dense(self, cl, nd, &in);
    if (st == PT_OK) st = pt_pool_dense(indices, cl, nd, &ix);
    if (st != PT_OK) goto done;
    const int64_t C = self->sizes[ndim - nd - 1], N = ndim == nd + 2 ? self->sizes[0] : 1;
    unpool_job j = {pt_tensor_data(in), pt_tensor_data(ix), pt_tensor_data(out), C, iplane,
                    oplane, pt_dtype_info_of(self->dtype)->itemsize, cl, INT64_MIN};
    const int64_t items = cl ? N : N * C, work = cl ? iplane * C : iplane;
    pt_parallel_for(items, (PT_GRAIN + work - 1) / (work ? work : 1), unpool_range, &j);
    const int64_t bad = atomic_load(&j.bad);
    if (bad != INT64_MIN) {
        if (nd == 2)
            st = PT_ERROR(PT_ERR_RUNTIME, "Found an invalid max index: %lld (output volumes are of "
                          "size %lldx%lld)", (long long)bad, (long long)out_size[0],
                          (long long)out_size[1]);
        else
            st = PT_ERROR(PT_ERR_RUNTIME, "Found an invalid max index: %lld (output volumes are of "
                          "size %lldx%lldx%lld)", (long long)bad, (long long)out_size[0],
                          (long long)out_size[1], (long long)out_size[2]);
    }
done:
    if (in) pt_tensor_release(in);
    if (ix) pt_tensor_release(ix);
    if (st != PT_OK) {
        pt_tensor_release(out);
        return st;
    }
    *ret = out;
    return PT_OK;
}

pt_status pt_kernel_max_unpool2d(const pt_tensor *self, const pt_tensor *indices,
                                 int32_t output_size_len, const int64_t *output_size,
                                 pt_tensor **ret)
{
    if (indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "elements in indices should be type int64 but got: %s",
                        pt_iter_type_name(indices->dtype));
    if (output_size_len != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "There should be exactly two elements (height, width) in "
                        "output_size, but got %d elements.", output_size_len);
    if (self->ndim != 3 && self->ndim != 4)
        return PT_ERROR(PT_ERR_RUNTIME, "Input to max_unpooling2d should be a 3d or 4d Tensor, but "
                        "got a tensor with %d dimensions.", self->ndim);
    return unpool(2, self, indices, output_size, NULL, ret);
}

pt_status pt_kernel_max_unpool3d(const pt_tensor *self, const pt_tensor *indices,
                                 int32_t output_size_len, const int64_t *output_size,
                                 int32_t stride_len, const int64_t *stride, int32_t padding_len,
                                 const int64_t *padding, pt_tensor **ret)
{
    (void)padding;
    if (indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "elements in indices should be type int64");
    if (self->ndim != 4 && self->ndim != 5)
        return PT_ERROR(PT_ERR_RUNTIME, "Input to max_unpooling3d should be a 4d or 5d Tensor, but "
                        "got a tensor with %d dimensions.", self->ndim);
    const char *what[3] = {"output_size", "stride", "padding"};
    const int32_t lens[3] = {output_size_len, stride_len, padding_len};
    for (int i = 0; i < 3; i++)
        if (lens[i] != 3)
            return PT_ERROR(PT_ERR_RUNTIME, "There should be exactly three elements (depth, height, "
                            "width) in %s, but got: %d elements.", what[i], lens[i]);
    return unpool(3, self, indices, output_size, stride, ret);
}
