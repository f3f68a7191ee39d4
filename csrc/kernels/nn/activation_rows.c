/* activation_rows.c - the activations that see more than one element at a time: glu (the two
 * halves of a dim), prelu's kernel (a weight broadcast over self) and the softmax backward
 * operators (one row along a dim), with their backward kernels.
 *
 * glu runs the iterator over the two halves of self, narrowed views, so that its loop reads
 * a and b elementwise and strided views cost nothing but strides; glu_backward writes the two
 * halves of one gradient tensor the same way. _prelu_kernel is a broadcasting binary operation.
 * The softmax backward operators walk rows along `dim` as softmax.c does: a row contiguous in
 * float32 or float64 in all three tensors goes to the row kernel directly, any other row is
 * gathered into buffers in the compute dtype and written back, rounded once; rows are split across
 * threads above the grain.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "nn/activation.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "unary.h"

static pt_status called(pt_tensor *t, pt_tensor **out)
{
    if (!t) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *out = t;
    return PT_OK;
}

/* Runs op over outs (given, or NULL for one allocated output) and ins, promoting the inputs. */
static pt_status run(const char *name, const char *kname, int32_t op, int nout, pt_tensor **outs,
                     int nin, const pt_tensor *const *ins, const char *const *names,
                     pt_tensor **out)
{
    for (int k = 0; k < nin; k++) PT_TRY(pt_iter_check_operand(ins[k], name, names[k]));
    pt_iter it;
    pt_iter_init(&it, name, PT_ITER_PROMOTE);
    for (int k = 0; k < nout; k++) pt_iter_add_output(&it, outs ? outs[k] : NULL, "out");
    for (int k = 0; k < nin; k++) pt_iter_add_input(&it, ins[k], names[k]);
    PT_TRY(pt_iter_build(&it));
    if (!pt_is_floating(it.common)) {
        const int32_t dt = it.common;
        pt_iter_cleanup(&it);
        return pt_unary_not_implemented(kname, dt);
    }
    pt_iter_run(&it, pt_act_kernels()->fn[op][it.common == PT_FLOAT64], NULL);
    if (out) return pt_iter_finish(&it, out);
    pt_iter_cleanup(&it);
    return PT_OK;
}

/* ---------------------------------------------------------------- glu */

/* The halves of self along dim (new references), after torch's checks. */
static pt_status halves(const pt_tensor *self, int64_t dim, int32_t *d, pt_tensor **a,
                        pt_tensor **b)
{
    PT_TRY(pt_iter_check_operand(self, "glu", "self"));
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "glu does not support scalars because halving size must "
                        "be even");
    PT_TRY(pt_wrap_dim(dim, self->ndim, d));
    const int64_t n = self->sizes[*d];
    if (n % 2 != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Halving dimension must be even, but dimension %d is size "
                        "%lld", (int)*d, (long long)n);
    PT_TRY(called(pt_call_narrow(self, *d, 0, n / 2), a));
    const pt_status st = called(pt_call_narrow(self, *d, n / 2, n / 2), b);
    if (st != PT_OK) pt_tensor_release(*a);
    return st;
}

static pt_status glu(const pt_tensor *self, int64_t dim, pt_tensor *out_arg, pt_tensor **out)
{
    int32_t d;
    pt_tensor *a = NULL, *b = NULL;
    PT_TRY(halves(self, dim, &d, &a, &b));
    const pt_tensor *ins[2] = {a, b};
    static const char *const names[2] = {"self", "self"};
    pt_tensor *outs[1] = {out_arg};
    const pt_status st = run("glu", "glu_cpu", PT_ACT_GLU, 1, outs, 2, ins, names, out);
    pt_tensor_release(a);
    pt_tensor_release(b);
    return st;
}

pt_status pt_kernel_glu(const pt_tensor *self, int64_t dim, pt_tensor **out)
{
    return glu(self, dim, NULL, out);
}

pt_status pt_kernel_glu_out(const pt_tensor *self, int64_t dim, pt_tensor *out_arg,
                            pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(out_arg, "glu", "out"));
    return glu(self, dim, out_arg, out);
}

pt_status pt_kernel_glu_backward(const pt_tensor *grad_output, const pt_tensor *self, int64_t dim,
                                 pt_tensor **out)
{
    int32_t d;
    pt_tensor *a = NULL, *b = NULL, *gi = NULL, *ga = NULL, *gb = NULL;
    PT_TRY(halves(self, dim, &d, &a, &b));
    PT_TRY(pt_iter_check_operand(grad_output, "glu_backward", "grad_output"));
    pt_status st = pt_is_floating(self->dtype)
                       ? pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &gi)
                       : pt_unary_not_implemented("glu_backward_cpu", self->dtype);
    const int64_t h = self->sizes[d] / 2;
    if (st == PT_OK) st = called(pt_call_narrow(gi, d, 0, h), &ga);
    if (st == PT_OK) st = called(pt_call_narrow(gi, d, h, h), &gb);
    if (st == PT_OK && (grad_output->ndim != a->ndim ||
                        memcmp(grad_output->sizes, a->sizes, sizeof(int64_t) * (size_t)a->ndim)))
        st = PT_ERROR(PT_ERR_RUNTIME, "glu_backward: grad_output must have the shape of glu's "
                      "result");
    if (st == PT_OK) {
        pt_tensor *outs[2] = {ga, gb};
        const pt_tensor *ins[3] = {grad_output, a, b};
        static const char *const names[3] = {"grad_output", "self", "self"};
        st = run("glu_backward", "glu_backward_cpu", PT_ACT_GLU_BW, 2, outs, 3, ins, names, NULL);
    }
    if (ga) pt_tensor_release(ga);
    if (gb) pt_tensor_release(gb);
    pt_tensor_release(a);
    pt_tensor_release(b);
    if (st != PT_OK) {
        if (gi) pt_tensor_release(gi);
        return st;
    }
    *out = gi;
    return PT_OK;
}

/* ---------------------------------------------------------------- prelu */

pt_status pt_kernel__prelu_kernel(const pt_tensor *self, const pt_tensor *weight, pt_tensor **out)
{
    const pt_tensor *ins[2] = {self, weight};
    static const char *const names[2] = {"self", "weight"};
    return run("_prelu_kernel", "prelu_cpu", PT_ACT_PRELU, 1, NULL, 2, ins, names, out);
}

pt_status pt_kernel__prelu_kernel_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                           const pt_tensor *weight, pt_tensor **ret0,
                                           pt_tensor **ret1)
{
    const pt_tensor *ins[3] = {grad_output, self, weight};
    static const char *const names[3] = {"grad_output", "self", "weight"};
    for (int k = 0; k < 3; k++) PT_TRY(pt_iter_check_operand(ins[k], "_prelu_kernel_backward",
                                                             names[k]));
    pt_iter it;
    pt_iter_init(&it, "_prelu_kernel_backward", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, NULL, "out");
    pt_iter_add_output(&it, NULL, "out");
    for (int k = 0; k < 3; k++) pt_iter_add_input(&it, ins[k], names[k]);
    PT_TRY(pt_iter_build(&it));
    if (!pt_is_floating(it.common)) {
        const int32_t dt = it.common;
        pt_iter_cleanup(&it);
        return pt_unary_not_implemented("prelu_backward_cpu", dt);
    }
    pt_iter_run(&it, pt_act_kernels()->fn[PT_ACT_PRELU_BW][it.common == PT_FLOAT64], NULL);
    *ret1 = pt_iter_output(&it, 1);
    return pt_iter_finish(&it, ret0);
}

/* ---------------------------------------------------------------- softmax backward */

typedef struct job {
    const pt_tensor *g, *y;
    pt_tensor *gi;
    int32_t dim, log, compute;
    int64_t size;
    _Atomic int failed;
} job;

static int64_t row_offset(const pt_tensor *t, int32_t dim, int64_t r)
{
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (d == dim) continue;
        off += (r % t->sizes[d]) * t->strides[d];
        r /= t->sizes[d];
    }
    return off;
}

static int64_t dim_stride(const pt_tensor *t, int32_t dim)
{
    return t->ndim ? t->strides[dim] : 1;
}

static void run_row(const pt_act_table *tab, const job *j, void *gi, const void *g, const void *y)
{
    if (j->compute == PT_FLOAT32) tab->softmax_bw_f32[j->log](gi, g, y, j->size);
    else tab->softmax_bw_f64[j->log](gi, g, y, j->size);
}

static void run_rows(int64_t begin, int64_t end, void *arg)
{
    job *j = arg;
    const pt_act_table *tab = pt_act_kernels();
    const int32_t dt = j->y->dtype, csz = pt_dtype_itemsize(j->compute);
    const int64_t isz = pt_dtype_itemsize(dt);
    const int64_t gs = dim_stride(j->g, j->dim), ys = dim_stride(j->y, j->dim);
    const int64_t os = dim_stride(j->gi, j->dim);
    const bool direct = dt == j->compute && gs == 1 && ys == 1 && os == 1;
    char *buf = NULL;
    if (!direct && !(buf = malloc((size_t)(3 * j->size * csz)))) {
        atomic_store(&j->failed, 1);
        return;
    }
    char *bg = buf, *by = buf ? buf + j->size * csz : NULL, *bo = buf ? by + j->size * csz : NULL;
    pt_cast_fn to = pt_iter_cast_fn(dt, j->compute), from = pt_iter_cast_fn(j->compute, dt);
    char *gb = (char *)pt_tensor_data(j->g), *yb = (char *)pt_tensor_data(j->y);
    char *ob = pt_tensor_data(j->gi);
    for (int64_t r = begin; r < end; r++) {
        char *gp = gb + row_offset(j->g, j->dim, r) * isz;
        char *yp = yb + row_offset(j->y, j->dim, r) * isz;
        char *op = ob + row_offset(j->gi, j->dim, r) * isz;
        if (direct) {
            run_row(tab, j, op, gp, yp);
            continue;
        }
        to(bg, csz, gp, gs * isz, j->size);
        to(by, csz, yp, ys * isz, j->size);
        run_row(tab, j, bo, bg, by);
        from(op, os * isz, bo, csz, j->size);
    }
    free(buf);
}

/* softmax.h's Note [softmax across columns]: contiguous operands along a dim that is not the
 * last, in tasks of up to PT_SOFTMAX_COLS neighbouring columns of one outer index. */
typedef struct col_job {
    const job *j;
    int64_t inner, blocks;
} col_job;

static void run_cols(int64_t begin, int64_t end, void *arg)
{
    const col_job *cj = arg;
    const job *j = cj->j;
    const pt_act_table *tab = pt_act_kernels();
    const int64_t n = j->size, inner = cj->inner;
    for (int64_t t = begin; t < end; t++) {
        const int64_t o = t / cj->blocks, c0 = (t - o * cj->blocks) * PT_SOFTMAX_COLS;
        const int64_t w = inner - c0 < PT_SOFTMAX_COLS ? inner - c0 : PT_SOFTMAX_COLS;
        const int64_t off = o * n * inner + c0;
        if (j->compute == PT_FLOAT32)
            tab->softmax_bw_cols_f32[j->log]((float *)pt_tensor_data(j->gi) + off,
                                             (const float *)pt_tensor_data(j->g) + off,
                                             (const float *)pt_tensor_data(j->y) + off, n, inner,
                                             w);
        else
            tab->softmax_bw_cols_f64[j->log]((double *)pt_tensor_data(j->gi) + off,
                                             (const double *)pt_tensor_data(j->g) + off,
                                             (const double *)pt_tensor_data(j->y) + off, n, inner,
                                             w);
    }
}

static bool by_columns(const job *j, int64_t *inner)
{
    *inner = 1;
    for (int32_t d = j->dim + 1; d < j->y->ndim; d++) *inner *= j->y->sizes[d];
    return *inner > 1 && j->size > 1 && j->y->dtype == j->compute &&
           pt_tensor_is_contiguous(j->g, PT_MEMORY_FORMAT_CONTIGUOUS) &&
           pt_tensor_is_contiguous(j->y, PT_MEMORY_FORMAT_CONTIGUOUS) &&
           pt_tensor_is_contiguous(j->gi, PT_MEMORY_FORMAT_CONTIGUOUS);
}

static bool same_shape(const pt_tensor *a, const pt_tensor *b)
{
    return a->ndim == b->ndim &&
           (a->ndim == 0 || memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0);
}

static pt_status softmax_backward(int log, const pt_tensor *grad_output, const pt_tensor *output,
                                  int64_t dim, int32_t input_dtype, pt_tensor **out)
{
    const char *name = log ? "_log_softmax_backward_data" : "_softmax_backward_data";
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", name);
    PT_TRY(pt_iter_check_operand(grad_output, name, "grad_output"));
    PT_TRY(pt_iter_check_operand(output, name, "output"));
    PT_TRY(pt_dtype_check(input_dtype, "input_dtype"));
    if (!same_shape(grad_output, output)) {
        char gs[128], os[128];
        pt_format_ints(gs, sizeof gs, grad_output->ndim, grad_output->sizes);
        pt_format_ints(os, sizeof os, output->ndim, output->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor for argument #1 'grad' to have same size "
                        "as tensor for argument #2 'output'; but %s does not equal %s (while "
                        "checking arguments for %s)", gs, os,
                        log ? "log_softmax_backward" : "softmax_backward");
    }
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, output->ndim, &d));
    const int32_t dt = output->dtype;
    if (!pt_is_floating(dt))
        return pt_unary_not_implemented(log ? "log_softmax_backward_lastdim_kernel_impl"
                                            : "softmax_backward_lastdim_kernel_impl", dt);
    pt_tensor *g = (pt_tensor *)grad_output, *gi = NULL;
    if (g->dtype != dt) PT_TRY(pt_tensor_to(grad_output, dt, grad_output->device, 0, &g));
    else pt_tensor_retain(g);
    pt_status st = pt_tensor_empty(output->ndim, output->sizes, dt, output->device, &gi);
    if (st == PT_OK && output->device.type == PT_DEV_CPU && output->numel > 0) {
        job j = {g, output, gi, d, log, dt == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32,
                 output->ndim ? output->sizes[d] : 1, 0};
        int64_t inner;
        if (by_columns(&j, &inner)) {
            col_job cj = {&j, inner, (inner + PT_SOFTMAX_COLS - 1) / PT_SOFTMAX_COLS};
            const int64_t per_task = j.size * PT_SOFTMAX_COLS;
            pt_parallel_for(output->numel / j.size / inner * cj.blocks,
                            (PT_GRAIN + per_task - 1) / per_task, run_cols, &cj);
        } else {
            pt_parallel_for(output->numel / j.size, (PT_GRAIN + j.size - 1) / j.size, run_rows,
                            &j);
        }
        if (atomic_load(&j.failed))
            st = PT_ERROR(PT_ERR_MEMORY, "%s: could not allocate row buffers of %lld elements",
                          name, (long long)j.size);
    }
    pt_tensor_release(g);
    if (st == PT_OK && input_dtype != dt) {
        pt_tensor *conv = NULL;
        st = pt_tensor_to(gi, input_dtype, gi->device, 0, &conv);
        pt_tensor_release(gi);
        gi = conv;
    }
    if (st != PT_OK) {
        if (gi) pt_tensor_release(gi);
        return st;
    }
    *out = gi;
    return PT_OK;
}

pt_status pt_kernel__softmax_backward_data(const pt_tensor *grad_output, const pt_tensor *output,
                                           int64_t dim, int32_t input_dtype, pt_tensor **out)
{
    return softmax_backward(0, grad_output, output, dim, input_dtype, out);
}

pt_status pt_kernel__log_softmax_backward_data(const pt_tensor *grad_output,
                                               const pt_tensor *output, int64_t dim,
                                               int32_t input_dtype, pt_tensor **out)
{
    return softmax_backward(1, grad_output, output, dim, input_dtype, out);
}
