/* pool.c - max pooling (max_pool2d/3d_with_indices) and average pooling (avg_pool2d/3d) with
 * their backward operators: argument checks with torch's messages, output sizes, layouts,
 * outputs, and the split of the loops (cpu/nn_pool_kernels.c) across threads; and what the other
 * pooling fronts share (pool.h).
 *
 * The output size along a dim is floor((in + 2 pad - dilation (k - 1) - 1 [+ stride - 1 with
 * ceil_mode]) / stride) + 1, less one when ceil_mode makes the last window start past the input
 * and its right padding, as torch's pooling_output_shape. A tensor laid out channels-last (dense
 * NHWC / NDHWC and not also dense planar) is pooled in that layout and gives results in it, as
 * torch keeps the suggested memory format; any other input is made planar-contiguous first.
 * Planar work is split over the N * C planes, channels-last forward work over output rows and
 * its backward over batch elements (whose windows are disjoint), above PT_GRAIN elements of work.
 */
#include <stdio.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "pool.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(nn_pool, pt_pool_table, "max, average and adaptive pooling loops (float32, float64)")

/* ---------------------------------------------------------------- shared helpers */

const char *pt_pool_sizes_str(char *buf, size_t cap, int32_t ndim, const int64_t *sizes)
{
    size_t at = 0;
    at += (size_t)snprintf(buf + at, cap - at, "[");
    for (int32_t i = 0; i < ndim && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, i ? ", %lld" : "%lld", (long long)sizes[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}

static int32_t layout_format(int32_t spatial)
{
    return spatial == 3 ? PT_MEMORY_FORMAT_CHANNELS_LAST_3D : PT_MEMORY_FORMAT_CHANNELS_LAST;
}

bool pt_pool_is_channels_last(const pt_tensor *t, int32_t spatial)
{
    if (t->ndim != spatial + 2) return false;
    return pt_tensor_is_contiguous(t, layout_format(spatial)) &&
           !pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS);
}

pt_status pt_pool_dense(const pt_tensor *t, bool channels_last, int32_t spatial, pt_tensor **out)
{
    const int32_t fmt = channels_last ? layout_format(spatial) : PT_MEMORY_FORMAT_CONTIGUOUS;
    if (pt_tensor_is_contiguous(t, fmt)) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    return pt_tensor_clone(t, fmt, out);
}

pt_status pt_pool_empty(int32_t ndim, const int64_t *sizes, bool channels_last, int32_t dtype,
                        pt_device device, pt_tensor **out)
{
    if (!channels_last) return pt_tensor_empty(ndim, sizes, dtype, device, out);
    /* N, C, spatial...: C fastest, then the spatial dims in order, then N */
    int64_t strides[5];
    int64_t st = sizes[1] > 1 ? sizes[1] : 1;
    strides[1] = 1;
    for (int32_t d = ndim - 1; d >= 2; d--) {
        strides[d] = st;
        st *= sizes[d] > 1 ? sizes[d] : 1;
    }
    strides[0] = st;
    return pt_tensor_empty_strided(ndim, sizes, strides, dtype, device, out);
}

int32_t pt_pool_compute_dtype(const char *name, int32_t dtype, unsigned accept)
{
    if (dtype == PT_FLOAT32 || dtype == PT_FLOAT64) return dtype;
    if ((accept & PT_POOL_ACCEPT_HALF) && (dtype == PT_BFLOAT16 || dtype == PT_FLOAT16))
        return PT_FLOAT32;
    if ((accept & PT_POOL_ACCEPT_INT) && pt_is_integral(dtype, false)) return dtype;
    if ((accept & PT_POOL_ACCEPT_LONG) && dtype == PT_INT64) return dtype;
    PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
             pt_iter_type_name(dtype));
    return -1;
}

static const pt_pool_table *table(void) { return PT_CPU_KERNELS(nn_pool, pt_pool_table); }

pt_pool_fwd_fn pt_pool_fwd_loop(int kind, int32_t compute, bool cl)
{
    if (compute == PT_FLOAT32 || compute == PT_FLOAT64) {
        const pt_pool_loops *L = &table()->by_dtype[compute == PT_FLOAT64];
        switch (kind) {
        case PT_POOL_MAX: return L->max_fwd[cl];
        case PT_POOL_AVG: return L->avg_fwd[cl];
        case PT_POOL_ADAPTIVE_AVG: return L->adaptive_avg_fwd[cl];
        default: return L->adaptive_max_fwd[cl];
        }
    }
    if (kind == PT_POOL_AVG) return table()->avg_int64[cl];
    switch (compute) {
    case PT_UINT8: return table()->max_int[0][cl];
    case PT_INT8: return table()->max_int[1][cl];
    case PT_INT16: return table()->max_int[2][cl];
    case PT_INT32: return table()->max_int[3][cl];
    default: return table()->max_int[4][cl];
    }
}

pt_pool_bwd_fn pt_pool_bwd_loop(int kind, int32_t compute, bool cl)
{
    const pt_pool_loops *L = &table()->by_dtype[compute == PT_FLOAT64];
    switch (kind) {
    case PT_POOL_AVG: return L->avg_bwd[cl];
    case PT_POOL_ADAPTIVE_AVG: return L->adaptive_avg_bwd[cl];
    default: return L->max_bwd[cl]; /* max and adaptive max: by index */
    }
}

/* A new reference to t in dtype (t itself when it has it). */
static pt_status as_dtype(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    if (t->dtype == dtype) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    return pt_tensor_to(t, dtype, t->device, 0, out);
}

/* r (computed in another dtype) rounded into a new tensor of dtype in the same layout. */
static pt_status round_to(pt_tensor **r, int32_t dtype, bool cl)
{
    if ((*r)->dtype == dtype) return PT_OK;
    pt_tensor *o = NULL;
    PT_TRY(pt_pool_empty((*r)->ndim, (*r)->sizes, cl, dtype, (*r)->device, &o));
    const pt_status st = pt_tensor_copy_(o, *r);
    pt_tensor_release(*r);
    *r = o;
    if (st != PT_OK) {
        pt_tensor_release(o);
        *r = NULL;
    }
    return st;
}

typedef struct run_ctx {
    pt_pool_fwd_fn fwd;
    pt_pool_bwd_fn bwd;
    const pt_pool_geom *g;
    void *out;
    int64_t *idx;
    const int64_t *cidx;
    const void *in;
} run_ctx;

static void run_fwd(int64_t begin, int64_t end, void *arg)
{
    run_ctx *r = arg;
    r->fwd(r->g, r->out, r->idx, r->in, begin, end);
}

static void run_bwd(int64_t begin, int64_t end, void *arg)
{
    run_ctx *r = arg;
    r->bwd(r->g, r->out, r->cidx, r->in, begin, end);
}

static int64_t grain_for(int64_t work) { return work > 0 ? (PT_GRAIN + work - 1) / work : 1; }

void pt_pool_run_fwd(pt_pool_fwd_fn fn, const pt_pool_geom *g, void *out, int64_t *idx,
                     const void *in, int64_t n, int64_t work)
{
    run_ctx r = {fn, NULL, g, out, idx, NULL, in};
    pt_parallel_for(n, grain_for(work), run_fwd, &r);
}

void pt_pool_run_bwd(pt_pool_bwd_fn fn, const pt_pool_geom *g, void *gin, const int64_t *idx,
                     const void *gout, int64_t n, int64_t work)
{
    run_ctx r = {NULL, fn, g, gin, NULL, idx, gout};
    pt_parallel_for(n, grain_for(work), run_bwd, &r);
}

/* ---------------------------------------------------------------- arguments */

typedef struct spec {
    const char *name; /* "max_pool2d", "avg_pool3d", ... */
    int32_t nd;       /* spatial dims: 2 or 3 */
    bool avg;
} spec;

/* One int-list argument: one value (repeated) or nd values, into the last nd slots of v[3]. An
 * empty list takes `fallback` (stride's default: the kernel size) when given. */
static pt_status pick(const spec *sp, const char *forms, int32_t len,
                      const int64_t *vals, const int64_t *fallback, int64_t v[3])
{
    const int32_t nd = sp->nd;
    if (len == 0 && fallback) {
        memcpy(v, fallback, sizeof(int64_t) * 3);
        return PT_OK;
    }
    if (len != 1 && len != nd)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: %s, or a tuple of %s ints", sp->name, forms,
                        nd == 2 ? "two" : "three");
    for (int32_t i = 0; i < nd; i++) v[3 - nd + i] = vals[len == 1 ? 0 : i];
    return PT_OK;
}

static pt_status out_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t dil, bool ceil,
                          int64_t *out)
{
    if (s == 0) return PT_ERROR(PT_ERR_RUNTIME, "stride should not be zero");
    if (pad < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "pad must be non-negative, but got pad: %lld",
                        (long long)pad);
    if (pad > ((k - 1) * dil + 1) / 2)
        return PT_ERROR(PT_ERR_RUNTIME, "pad should be at most half of effective kernel size, but "
                        "got pad=%lld, kernel_size=%lld and dilation=%lld", (long long)pad,
                        (long long)k, (long long)dil);
    const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t q = num / s;
    if ((num % s != 0) && ((num < 0) != (s < 0))) q--;
    q += 1;
    if (ceil && (q - 1) * s >= in + pad) q--;
    *out = q;
    return PT_OK;
}

typedef struct pool_call {
    pt_pool_geom g;
    bool cl;
    int32_t ndim;
    int64_t out_sizes[5];
} pool_call;

static pt_status check_dims_2d(const pt_tensor *t)
{
    const int64_t *s = t->sizes;
    const bool ok = (t->ndim == 3 && s[0] && s[1] && s[2]) || (t->ndim == 4 && s[1] && s[2] && s[3]);
    if (ok) return PT_OK;
    char buf[256];
    return PT_ERROR(PT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with optional 0 dim "
                    "batch size for input, but got:%s",
                    pt_pool_sizes_str(buf, sizeof buf, t->ndim, t->sizes));
}

static pt_status check_dims_3d(const spec *sp, const pt_tensor *t)
{
    char buf[256];
    for (int32_t i = 0; i < t->ndim; i++) {
        if (t->ndim == 5 && i == 0) continue;
        if (t->sizes[i] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected input's non-batch dimensions to have "
                            "positive length, but input has a shape of %s and non-batch dimension "
                            "%lld has length zero!", sp->name,
                            pt_pool_sizes_str(buf, sizeof buf, t->ndim, t->sizes),
                            (long long)t->sizes[i]);
    }
    return PT_OK;
}

/* torch's pool2d_shape_check / pool3d_shape_check, after the output sizes. */
static pt_status shape_check(const spec *sp, const pt_tensor *self, const pt_pool_geom *g)
{
    const int64_t *k = g->k, *s = g->s, *d = g->d, *p = g->p;
    const int64_t C = g->channels;
    if (sp->nd == 2) {
        if (k[1] <= 0 || k[2] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "kernel size should be greater than zero, but got kH: "
                            "%lld kW: %lld", (long long)k[1], (long long)k[2]);
        if (s[1] <= 0 || s[2] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "stride should be greater than zero, but got dH: %lld "
                            "dW: %lld", (long long)s[1], (long long)s[2]);
        if (d[1] <= 0 || d[2] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "dilation should be greater than zero, but got "
                            "dilationH: %lld dilationW: %lld", (long long)d[1], (long long)d[2]);
        PT_TRY(check_dims_2d(self));
        if (k[2] / 2 < p[2] || k[1] / 2 < p[1])
            return PT_ERROR(PT_ERR_RUNTIME, "pad should be smaller than or equal to half of kernel "
                            "size, but got padW = %lld, padH = %lld, kW = %lld, kH = %lld",
                            (long long)p[2], (long long)p[1], (long long)k[2], (long long)k[1]);
        if (g->out[1] < 1 || g->out[2] < 1)
            return PT_ERROR(PT_ERR_RUNTIME, "Given input size: (%lldx%lldx%lld). Calculated "
                            "output size: (%lldx%lldx%lld). Output size is too small",
                            (long long)C, (long long)g->in[1], (long long)g->in[2], (long long)C,
                            (long long)g->out[1], (long long)g->out[2]);
        return PT_OK;
    }
    if (k[0] <= 0 || k[1] <= 0 || k[2] <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "kernel size should be greater than zero, but got kT: %lld "
                        "kH: %lld kW: %lld", (long long)k[0], (long long)k[1], (long long)k[2]);
    if (s[0] <= 0 || s[1] <= 0 || s[2] <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "stride should be greater than zero, but got dT: %lld dH: "
                        "%lld dW: %lld", (long long)s[0], (long long)s[1], (long long)s[2]);
    if (d[0] <= 0 || d[1] <= 0 || d[2] <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "dilation should be greater than zero, but got dilationT: "
                        "%lld dilationH: %lld dilationW: %lld", (long long)d[0], (long long)d[1],
                        (long long)d[2]);
    PT_TRY(check_dims_3d(sp, self));
    if (sp->avg && (g->in[0] < k[0] || g->in[1] < k[1] || g->in[2] < k[2]))
        return PT_ERROR(PT_ERR_RUNTIME, "input image (T: %lld H: %lld W: %lld) smaller than kernel "
                        "size (kT: %lld kH: %lld kW: %lld)", (long long)g->in[0],
                        (long long)g->in[1], (long long)g->in[2], (long long)k[0], (long long)k[1],
                        (long long)k[2]);
    if (k[0] / 2 < p[0] || k[2] / 2 < p[2] || k[1] / 2 < p[1])
        return PT_ERROR(PT_ERR_RUNTIME, "pad should be smaller than or equal to half of kernel "
                        "size, but got kT: %lld kW: %lld kH: %lld padT: %lld padW: %lld padH: %lld",
                        (long long)k[0], (long long)k[2], (long long)k[1], (long long)p[0],
                        (long long)p[2], (long long)p[1]);
    if (g->out[0] < 1 || g->out[1] < 1 || g->out[2] < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Given input size: (%lldx%lldx%lldx%lld). Calculated "
                        "output size: (%lldx%lldx%lldx%lld). Output size is too small",
                        (long long)C, (long long)g->in[0], (long long)g->in[1],
                        (long long)g->in[2], (long long)C, (long long)g->out[0],
                        (long long)g->out[1], (long long)g->out[2]);
    return PT_OK;
}

static pt_status setup(const spec *sp, const pt_tensor *self, int32_t k_len, const int64_t *k,
                       int32_t s_len, const int64_t *s, int32_t p_len, const int64_t *p,
                       int32_t d_len, const int64_t *d, bool ceil, bool count_include_pad,
                       const int64_t *divisor, pool_call *pc)
{
    memset(pc, 0, sizeof *pc);
    pt_pool_geom *g = &pc->g;
    const int64_t ones[3] = {1, 1, 1};
    const bool avg3 = sp->avg && sp->nd == 3;
    const char *kf = avg3 ? "kernel_size must be a single int" : "kernel_size must either be a "
                                                                 "single int";
    const char *sf = avg3 ? "stride must be omitted, a single int" : "stride must either be "
                                                                      "omitted, a single int";
    const char *pf = avg3 ? "padding must be a single int" : "padding must either be a single int";
    memcpy(g->k, ones, sizeof ones);
    memcpy(g->s, ones, sizeof ones);
    memcpy(g->d, ones, sizeof ones);
    PT_TRY(pick(sp, kf, k_len, k, NULL, g->k));
    PT_TRY(pick(sp, sf, s_len, s, g->k, g->s));
    PT_TRY(pick(sp, pf, p_len, p, NULL, g->p));
    if (!sp->avg) PT_TRY(pick(sp, "dilation must be either a single int", d_len, d, NULL, g->d));
    if (sp->avg && divisor && *divisor == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "divisor must be not zero");
    const int32_t nd = sp->nd, ndim = self->ndim;
    if (sp->avg && nd == 2 && ndim < 3) {
        int32_t w;
        PT_TRY(pt_wrap_dim(-3, ndim, &w));
    }
    if ((!sp->avg || nd == 3) && ndim != nd + 1 && ndim != nd + 2)
        return PT_ERROR(PT_ERR_RUNTIME, "non-empty %s tensor expected for input",
                        nd == 2 ? "3D or 4D (batch mode)" : "4D or 5D (batch mode)");
    const bool batched = ndim == nd + 2 || (sp->avg && ndim > nd + 2);
    g->batch = batched ? self->sizes[ndim - nd - 2] : 1;
    g->channels = self->sizes[ndim - nd - 1];
    g->in[0] = g->out[0] = 1;
    for (int32_t i = 0; i < nd; i++) g->in[3 - nd + i] = self->sizes[ndim - nd + i];
    for (int32_t i = 3 - nd; i < 3; i++)
        PT_TRY(out_size(g->in[i], g->k[i], g->p[i], g->s[i], g->d[i], ceil, &g->out[i]));
    PT_TRY(shape_check(sp, self, g));
    g->count_include_pad = count_include_pad;
    g->divisor = divisor ? *divisor : 0;
    pc->ndim = ndim;
    /* torch's avg_pool3d has no channels-last kernel: its results are planar-contiguous */
    pc->cl = pt_pool_is_channels_last(self, nd) && !(sp->avg && nd == 3);
    for (int32_t i = 0; i < ndim - nd; i++) pc->out_sizes[i] = self->sizes[i];
    for (int32_t i = 0; i < nd; i++) pc->out_sizes[ndim - nd + i] = g->out[3 - nd + i];
    return PT_OK;
}

/* ---------------------------------------------------------------- forward and backward */

pt_status pt_pool_forward_run(pt_pool_fwd_fn fn, int32_t compute, const pt_pool_geom *g, bool cl,
                              int32_t nd, const pt_tensor *self, const int64_t *out_sizes,
                              int64_t n, int64_t work, pt_tensor **ret0, pt_tensor **ret1)
{
    pt_tensor *out = NULL, *idx = NULL, *conv = NULL, *in = NULL;
    const int32_t ndim = self->ndim;
    pt_status st = pt_pool_empty(ndim, out_sizes, cl, compute, self->device, &out);
    if (st == PT_OK && ret1) st = pt_pool_empty(ndim, out_sizes, cl, PT_INT64, self->device, &idx);
    if (st == PT_OK && self->device.type == PT_DEV_CPU && out->numel > 0) {
        st = as_dtype(self, compute, &conv);
        if (st == PT_OK) st = pt_pool_dense(conv, cl, nd, &in);
        if (st == PT_OK)
            pt_pool_run_fwd(fn, g, pt_tensor_data(out), idx ? pt_tensor_data(idx) : NULL,
                            pt_tensor_data(in), n, work);
    }
    if (st == PT_OK) st = round_to(&out, self->dtype, cl);
    if (conv) pt_tensor_release(conv);
    if (in) pt_tensor_release(in);
    if (st != PT_OK) {
        if (out) pt_tensor_release(out);
        if (idx) pt_tensor_release(idx);
        return st;
    }
    *ret0 = out;
    if (ret1) *ret1 = idx;
    return PT_OK;
}

static const char *cl_name(char *buf, size_t cap, const char *name, bool cl)
{
    snprintf(buf, cap, "%s%s", name, cl ? "_channels_last" : "");
    return buf;
}

static pt_status pool_forward(const spec *sp, const pool_call *pc, const pt_tensor *self,
                              pt_tensor **ret0, pt_tensor **ret1)
{
    char name[64];
    const bool avg3 = sp->avg && sp->nd == 3;
    const unsigned accept = avg3 ? PT_POOL_ACCEPT_LONG
                          : sp->avg ? PT_POOL_ACCEPT_HALF | PT_POOL_ACCEPT_LONG
                                    : PT_POOL_ACCEPT_HALF | PT_POOL_ACCEPT_INT;
    const int32_t compute = pt_pool_compute_dtype(
        avg3 ? "avg_pool3d_out_frame" : cl_name(name, sizeof name, sp->name, pc->cl), self->dtype,
        accept);
    if (compute < 0) return PT_ERR_NOT_IMPLEMENTED;
    const pt_pool_geom *g = &pc->g;
    const int64_t kvol = g->k[0] * g->k[1] * g->k[2];
    const int64_t n = pc->cl ? g->batch * g->out[0] * g->out[1] : g->batch * g->channels;
    const int64_t work = pc->cl ? g->out[2] * g->channels * kvol
                                : g->out[0] * g->out[1] * g->out[2] * kvol;
    return pt_pool_forward_run(pt_pool_fwd_loop(sp->avg ? PT_POOL_AVG : PT_POOL_MAX, compute,
                                                pc->cl),
                               compute, g, pc->cl, sp->nd, self, pc->out_sizes, n, work, ret0,
                               sp->avg ? NULL : ret1);
}

static pt_status check_like(const char *name, const char *what, const pt_tensor *t,
                            int32_t ndim, const int64_t *sizes)
{
    if (t->ndim == ndim && memcmp(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim) == 0)
        return PT_OK;
    char a[256], b[256];
    return PT_ERROR(PT_ERR_RUNTIME, "%s: expected %s of sizes %s, but got %s", name, what,
                    pt_pool_sizes_str(a, sizeof a, ndim, sizes),
                    pt_pool_sizes_str(b, sizeof b, t->ndim, t->sizes));
}

pt_status pt_pool_backward_run(const char *name, int32_t nd, int kind, const pt_pool_geom *g,
                               bool cl, const pt_tensor *grad_output, const pt_tensor *self,
                               const pt_tensor *indices, pt_tensor **out)
{
    const unsigned accept = kind == PT_POOL_AVG && nd == 3 ? 0 : PT_POOL_ACCEPT_HALF;
    const int32_t compute = pt_pool_compute_dtype(name, self->dtype, accept);
    if (compute < 0) return PT_ERR_NOT_IMPLEMENTED;
    if (grad_output->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected grad_output of dtype %s, but got %s", name,
                        pt_dtype_info_of(self->dtype)->name,
                        pt_dtype_info_of(grad_output->dtype)->name);
    if (indices && indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected indices of dtype int64, but got %s", name,
                        pt_dtype_info_of(indices->dtype)->name);
    pt_tensor *gin = NULL, *conv = NULL, *go = NULL, *ix = NULL;
    pt_status st = pt_pool_empty(self->ndim, self->sizes, cl, compute, self->device, &gin);
    if (st != PT_OK) return st;
    if (self->device.type == PT_DEV_CPU && gin->numel > 0) {
        st = as_dtype(grad_output, compute, &conv);
        if (st == PT_OK) st = pt_pool_dense(conv, cl, nd, &go);
        if (st == PT_OK && indices) st = pt_pool_dense(indices, cl, nd, &ix);
        if (st == PT_OK) {
            const int64_t iplane = g->in[0] * g->in[1] * g->in[2];
            const int64_t oplane = g->out[0] * g->out[1] * g->out[2];
            const int64_t kvol = indices ? 1 : g->k[0] * g->k[1] * g->k[2];
            const int64_t n = cl ? g->batch : g->batch * g->channels;
            const int64_t work = (iplane + oplane * kvol) * (cl ? g->channels : 1);
            pt_pool_run_bwd(pt_pool_bwd_loop(kind, compute, cl), g, pt_tensor_data(gin),
                            ix ? (const int64_t *)pt_tensor_data(ix) : NULL, pt_tensor_data(go),
                            n, work);
        }
    }
    if (st == PT_OK) st = round_to(&gin, self->dtype, cl);
    if (conv) pt_tensor_release(conv);
    if (go) pt_tensor_release(go);
    if (ix) pt_tensor_release(ix);
    if (st != PT_OK) {
        if (gin) pt_tensor_release(gin);
        return st;
    }
    *out = gin;
    return PT_OK;
}

static pt_status pool_backward(const spec *sp, const pool_call *pc, const pt_tensor *grad_output,
                               const pt_tensor *self, const pt_tensor *indices, pt_tensor **out)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s_backward", sp->name, sp->avg ? "" : "_with_indices");
    PT_TRY(check_like(name, "grad_output", grad_output, pc->ndim, pc->out_sizes));
    if (indices) PT_TRY(check_like(name, "indices", indices, pc->ndim, pc->out_sizes));
    return pt_pool_backward_run(name, sp->nd, sp->avg ? PT_POOL_AVG : PT_POOL_MAX, &pc->g, pc->cl,
                                grad_output, self, indices, out);
}

/* ---------------------------------------------------------------- entry points */

static const spec MAX2 = {"max_pool2d", 2, false}, MAX3 = {"max_pool3d", 3, false};
static const spec AVG2 = {"avg_pool2d", 2, true}, AVG3 = {"avg_pool3d", 3, true};

#define MAX_ARGS                                                                                   \
    int32_t kernel_size_len, const int64_t *kernel_size, int32_t stride_len,                      \
        const int64_t *stride, int32_t padding_len, const int64_t *padding, int32_t dilation_len, \
        const int64_t *dilation, int32_t ceil_mode
#define MAX_PASS                                                                                   \
    kernel_size_len, kernel_size, stride_len, stride, padding_len, padding, dilation_len,         \
        dilation, ceil_mode != 0, true, NULL
#define AVG_ARGS                                                                                   \
    int32_t kernel_size_len, const int64_t *kernel_size, int32_t stride_len,                      \
        const int64_t *stride, int32_t padding_len, const int64_t *padding, int32_t ceil_mode,    \
        int32_t count_include_pad, const int64_t *divisor_override
#define AVG_PASS                                                                                   \
    kernel_size_len, kernel_size, stride_len, stride, padding_len, padding, 0, NULL,              \
        ceil_mode != 0, count_include_pad != 0, divisor_override

pt_status pt_kernel_max_pool2d_with_indices(const pt_tensor *self, MAX_ARGS, pt_tensor **ret0,
                                            pt_tensor **ret1)
{
    pool_call pc;
    PT_TRY(setup(&MAX2, self, MAX_PASS, &pc));
    return pool_forward(&MAX2, &pc, self, ret0, ret1);
}

pt_status pt_kernel_max_pool3d_with_indices(const pt_tensor *self, MAX_ARGS, pt_tensor **ret0,
                                            pt_tensor **ret1)
{
    pool_call pc;
    PT_TRY(setup(&MAX3, self, MAX_PASS, &pc));
    return pool_forward(&MAX3, &pc, self, ret0, ret1);
}

pt_status pt_kernel_max_pool2d_with_indices_backward(const pt_tensor *grad_output,
                                                     const pt_tensor *self, MAX_ARGS,
                                                     const pt_tensor *indices, pt_tensor **ret)
{
    pool_call pc;
    PT_TRY(setup(&MAX2, self, MAX_PASS, &pc));
    return pool_backward(&MAX2, &pc, grad_output, self, indices, ret);
}

pt_status pt_kernel_max_pool3d_with_indices_backward(const pt_tensor *grad_output,
                                                     const pt_tensor *self, MAX_ARGS,
                                                     const pt_tensor *indices, pt_tensor **ret)
{
    pool_call pc;
    PT_TRY(setup(&MAX3, self, MAX_PASS, &pc));
    return pool_backward(&MAX3, &pc, grad_output, self, indices, ret);
}

pt_status pt_kernel_avg_pool2d(const pt_tensor *self, AVG_ARGS, pt_tensor **ret)
{
    pool_call pc;
    PT_TRY(setup(&AVG2, self, AVG_PASS, &pc));
    return pool_forward(&AVG2, &pc, self, ret, NULL);
}

pt_status pt_kernel_avg_pool3d(const pt_tensor *self, AVG_ARGS, pt_tensor **ret)
{
    pool_call pc;
    PT_TRY(setup(&AVG3, self, AVG_PASS, &pc));
    return pool_forward(&AVG3, &pc, self, ret, NULL);
}

pt_status pt_kernel_avg_pool2d_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                        AVG_ARGS, pt_tensor **ret)
{
    pool_call pc;
    PT_TRY(setup(&AVG2, self, AVG_PASS, &pc));
    return pool_backward(&AVG2, &pc, grad_output, self, NULL, ret);
}

pt_status pt_kernel_avg_pool3d_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                        AVG_ARGS, pt_tensor **ret)
{
    pool_call pc;
    PT_TRY(setup(&AVG3, self, AVG_PASS, &pc));
    return pool_backward(&AVG3, &pc, grad_output, self, NULL, ret);
}
