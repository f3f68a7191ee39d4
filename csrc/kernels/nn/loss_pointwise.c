/* loss_pointwise.c - the losses that are one value per element, reduced or not: mse_loss,
 * smooth_l1_loss, huber_loss, soft_margin_loss, binary_cross_entropy and
 * binary_cross_entropy_with_logits, and the backward kernels of the first five.
 *
 * The operands (input, target, and the weights or the incoming gradient where the operator has
 * them) are broadcast to one shape and made contiguous in the compute dtype (a no-op for
 * contiguous operands of that dtype and shape, which is the common case); the loop of
 * cpu/nn_loss_kernels.c then runs over blocks of BLOCK elements. Without reduction a block is
 * written to the result; with one, each block is summed (in double) into its own slot and the
 * slots are added in order, so the reduced loss has the same bits whatever the thread count.
 * Blocks go to OpenMP threads above PT_GRAIN elements (Note [elementwise grain] in iter.h).
 *
 * Dtypes: float32 and float64, and float16 and bfloat16 as torch's CPU kernels take them: their
 * operands are widened to float32, the loss computed (and summed, in double) there, and the
 * result rounded back to the reduced dtype once. Other dtypes get the message torch gives for
 * the types it refuses. The result dtype is
 * torch's: the promoted type of input and target for mse_loss and smooth_l1_loss (their kernels
 * run on a TensorIterator), the input's for the others; binary_cross_entropy requires a target
 * and weight of the input's dtype. A mean over no elements is nan, as torch's. The backward
 * kernels compute in the promoted type of the gradient, input and target, and divide a mean by
 * the input's number of elements, as torch's (their gradient may be a broadcast tensor: the
 * double backward of a reduced loss passes one).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "nn/loss.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(nn_loss, pt_loss_table, "pointwise losses and their sums (float32, float64)")

/* Elements per block: 16 KiB of float32 on the stack of a reducing thread. */
enum { BLOCK = 4096 };

typedef struct spec {
    int32_t op;
    const char *name;  /* torch's operator name, for messages */
    const char *kname; /* torch's kernel name in "not implemented for" messages */
    bool promote;      /* result dtype: promoted input and target (else the input's) */
} spec;

static const spec specs[PT_LOSS_POINTWISE_COUNT] = {
    [PT_LOSS_MSE] = {PT_LOSS_MSE, "mse_loss", "mse_cpu", true},
    [PT_LOSS_SMOOTH_L1] = {PT_LOSS_SMOOTH_L1, "smooth_l1_loss", "smooth_l1_cpu", true},
    [PT_LOSS_HUBER] = {PT_LOSS_HUBER, "huber_loss", "huber_cpu", false},
    [PT_LOSS_SOFT_MARGIN] = {PT_LOSS_SOFT_MARGIN, "soft_margin_loss", "soft_margin_loss",
                             false},
    [PT_LOSS_BCE] = {PT_LOSS_BCE, "binary_cross_entropy", "binary_cross_entropy", false},
    [PT_LOSS_BCE_LOGITS] = {PT_LOSS_BCE_LOGITS, "binary_cross_entropy_with_logits",
                            "binary_cross_entropy_with_logits", false},
};

typedef struct job {
    pt_loss_fn fn;
    double (*sum)(const void *v, int64_t n);
    pt_loss_operands a;
    int64_t n, itemsize;
    char *out;       /* no reduction: the result's data */
    double *partial; /* reduction: one sum per block */
} job;

static void run_blocks(int64_t begin, int64_t end, void *ctx)
{
    const job *j = ctx;
    _Alignas(64) char buf[BLOCK * sizeof(double)];
    for (int64_t blk = begin; blk < end; blk++) {
        const int64_t b = blk * BLOCK, e = b + BLOCK < j->n ? b + BLOCK : j->n;
        if (!j->partial) {
            j->fn(j->out + b * j->itemsize, &j->a, b, e);
            continue;
        }
        j->fn(buf, &j->a, b, e);
        j->partial[blk] = j->sum(buf, e - b);
    }
}

/* t (NULL stays NULL) as a contiguous tensor of `dtype` and the shape (nd, shape). */
static pt_status dense(const pt_tensor *t, int32_t dtype, int32_t nd, const int64_t *shape,
                       pt_tensor **out)
{
    *out = NULL;
    if (!t) return PT_OK;
    pt_tensor *c = NULL, *e = NULL;
    PT_TRY(pt_tensor_to(t, dtype, t->device, 0, &c));
    pt_status st = pt_tensor_expand(c, nd, shape, &e);
    pt_tensor_release(c);
    if (st != PT_OK) return st;
    st = pt_tensor_contiguous(e, out);
    pt_tensor_release(e);
    return st;
}

static pt_status check_reduction(int64_t reduction)
{
    if (reduction < PT_LOSS_NONE || reduction > PT_LOSS_SUM)
        return PT_ERROR(PT_ERR_VALUE, "%lld is not a valid value for reduction",
                        (long long)reduction);
    return PT_OK;
}

static pt_status check_dtype(const spec *s, int32_t dtype)
{
    if (pt_is_floating(dtype)) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", s->kname,
                    pt_iter_type_name(dtype));
}

/* binary_cross_entropy's rule: target and weight of the input's dtype. */
static pt_status check_same_dtype(const pt_tensor *self, const pt_tensor *t)
{
    if (!t || t->dtype == self->dtype) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Found dtype %s but expected %s", pt_iter_type_name(t->dtype),
                    pt_iter_type_name(self->dtype));
}

/* The operands that take part: [0] x, [1] y, [2] weight, [3] pos_weight, [4] grad. */
enum { NOPS = 5 };

typedef struct call {
    const spec *s;
    int64_t reduction;
    double param;
    bool backward;
    const pt_tensor *ops[NOPS];
} call;

/* The broadcast shape of the operands present, and the compute dtype. */
static pt_status plan(const call *c, int32_t *nd, int64_t *shape, int32_t *dtype)
{
    const pt_tensor *x = c->ops[0], *y = c->ops[1];
    if (c->s->promote || c->backward) {
        pt_tensor *both[3] = {(pt_tensor *)x, (pt_tensor *)y, (pt_tensor *)c->ops[4]};
        PT_TRY(pt_result_type(c->ops[4] ? 3 : 2, both, dtype));
    } else {
        *dtype = x->dtype;
    }
    PT_TRY(check_dtype(c->s, *dtype));
    *nd = x->ndim;
    memcpy(shape, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    for (int i = 1; i < NOPS; i++) {
        const pt_tensor *t = c->ops[i];
        if (!t) continue;
        PT_TRY(pt_broadcast_sizes(*nd, shape, t->ndim, t->sizes, nd, shape));
    }
    return PT_OK;
}

/* The dtype the kernels run in: float16 and bfloat16 are computed in float32. */
static int32_t compute_dtype(int32_t dtype)
{
    return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16 ? PT_FLOAT32 : dtype;
}

/* r (owned) rounded to dtype when the kernels ran in a wider one. */
static pt_status narrow_result(pt_tensor *r, int32_t dtype, pt_tensor **out)
{
    if (r->dtype == dtype) {
        *out = r;
        return PT_OK;
    }
    const pt_status st = pt_tensor_to(r, dtype, r->device, 0, out);
    pt_tensor_release(r);
    return st;
}

static pt_status scalar_grad(const pt_tensor *g, double *out)
{
    pt_scalar v;
    PT_TRY(pt_tensor_item(g, &v));
    *out = v.kind == PT_SCALAR_FLOAT ? v.re : (double)v.i;
    return PT_OK;
}

static pt_status run(const call *c, pt_tensor **out)
{
    const pt_tensor *x = c->ops[0];
    for (int i = 0; i < NOPS; i++)
        if (c->ops[i]) PT_TRY(pt_iter_check_operand(c->ops[i], c->s->name, "operand"));
    PT_TRY(check_reduction(c->reduction));
    /* The operands share self's device (torch's message); on meta only the shape is computed. */
    for (int i = 1; i < NOPS; i++)
        if (c->ops[i] && c->ops[i]->device.type != x->device.type)
            return PT_ERROR(PT_ERR_RUNTIME, "Tensor on device %s is not on the expected device %s!",
                            pt_device_type_name(x->device.type),
                            pt_device_type_name(c->ops[i]->device.type));
    int32_t nd, result_dtype;
    int64_t shape[PT_MAX_DIMS];
    PT_TRY(plan(c, &nd, shape, &result_dtype));
    const int32_t dtype = compute_dtype(result_dtype);
    const bool reduce = c->reduction != PT_LOSS_NONE && !c->backward;
    int64_t n = 1;
    for (int32_t d = 0; d < nd; d++) n *= shape[d];

    pt_tensor *d[NOPS] = {0}, *r = NULL;
    double *partial = NULL;
    pt_status st = PT_OK;
    job j = {0};
    j.a.param = c->param;
    /* torch divides by the input's elements for a mean (the gradient may broadcast it) */
    j.a.scale = c->backward && c->reduction == PT_LOSS_MEAN ? 1.0 / (double)pt_tensor_numel(x)
                                                            : 1.0;
    j.a.gs = 1.0;
    /* a one-element gradient (a reduced loss's) is read as a scalar, not broadcast */
    const bool grad_scalar = c->backward && pt_tensor_numel(c->ops[4]) == 1;
    if (grad_scalar && (st = scalar_grad(c->ops[4], &j.a.gs)) != PT_OK) goto done;
    for (int i = 0; i < NOPS; i++) {
        if (i == 4 && grad_scalar) continue;
        if ((st = dense(c->ops[i], dtype, nd, shape, &d[i])) != PT_OK) goto done;
    }
    if ((st = pt_tensor_empty(reduce ? 0 : nd, shape, dtype, x->device, &r)) != PT_OK) goto done;
    if (x->device.type == PT_DEV_META) goto done;
    const pt_loss_table *tab = PT_CPU_KERNELS(nn_loss, pt_loss_table);
    const int k = dtype == PT_FLOAT64;
    j.fn = c->backward ? tab->backward[k][c->s->op] : tab->forward[k][c->s->op];
    j.sum = tab->sum[k];
    j.n = n;
    j.itemsize = pt_dtype_itemsize(dtype);
    j.a.x = pt_tensor_data(d[0]);
    j.a.y = pt_tensor_data(d[1]);
    j.a.w = d[2] ? pt_tensor_data(d[2]) : NULL;
    j.a.pw = d[3] ? pt_tensor_data(d[3]) : NULL;
    j.a.g = d[4] ? pt_tensor_data(d[4]) : NULL;
    const int64_t blocks = (n + BLOCK - 1) / BLOCK;
    if (reduce) {
        if (!(partial = calloc((size_t)(blocks ? blocks : 1), sizeof *partial))) {
            st = PT_ERROR(PT_ERR_MEMORY, "%s: out of memory", c->s->name);
            goto done;
        }
        j.partial = partial;
    } else {
        j.out = pt_tensor_data(r);
    }
    pt_parallel_for(blocks, PT_GRAIN / BLOCK, run_blocks, &j);
    if (reduce) {
        double total = 0;
        for (int64_t b = 0; b < blocks; b++) total += partial[b];
        if (c->reduction == PT_LOSS_MEAN) total /= (double)n;
        if (dtype == PT_FLOAT32) *(float *)pt_tensor_data(r) = (float)total;
        else *(double *)pt_tensor_data(r) = total;
    }
done:
    free(partial);
    for (int i = 0; i < NOPS; i++)
        if (d[i]) pt_tensor_release(d[i]);
    if (st != PT_OK) {
        if (r) pt_tensor_release(r);
        return st;
    }
    return narrow_result(r, result_dtype, out);
}

static pt_status forward(int32_t op, const pt_tensor *self, const pt_tensor *target,
                         const pt_tensor *weight, const pt_tensor *pos_weight, int64_t reduction,
                         double param, pt_tensor **out)
{
    const call c = {&specs[op], reduction, param, false, {self, target, weight, pos_weight, NULL}};
    return run(&c, out);
}

static pt_status backward(int32_t op, const pt_tensor *grad, const pt_tensor *self,
                          const pt_tensor *target, const pt_tensor *weight, int64_t reduction,
                          double param, pt_tensor **out)
{
    const call c = {&specs[op], reduction, param, true, {self, target, weight, NULL, grad}};
    return run(&c, out);
}

/* ---------------------------------------------------------------- entry points */

pt_status pt_kernel_mse_loss(const pt_tensor *self, const pt_tensor *target, int64_t reduction,
                             pt_tensor **ret)
{
    return forward(PT_LOSS_MSE, self, target, NULL, NULL, reduction, 0, ret);
}

pt_status pt_kernel_mse_loss_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                      const pt_tensor *target, int64_t reduction, pt_tensor **ret)
{
    return backward(PT_LOSS_MSE, grad_output, self, target, NULL, reduction, 0, ret);
}

pt_status pt_kernel_smooth_l1_loss(const pt_tensor *self, const pt_tensor *target,
                                   int64_t reduction, double beta, pt_tensor **ret)
{
    if (beta < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "smooth_l1_loss does not support negative values for "
                        "beta.");
    return forward(PT_LOSS_SMOOTH_L1, self, target, NULL, NULL, reduction, beta, ret);
}

pt_status pt_kernel_smooth_l1_loss_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                            const pt_tensor *target, int64_t reduction,
                                            double beta, pt_tensor **ret)
{
    return backward(PT_LOSS_SMOOTH_L1, grad_output, self, target, NULL, reduction, beta, ret);
}

pt_status pt_kernel_huber_loss(const pt_tensor *self, const pt_tensor *target, int64_t reduction,
                               double delta, pt_tensor **ret)
{
    if (!(delta > 0))
        return PT_ERROR(PT_ERR_RUNTIME, "huber_loss does not support non-positive values for "
                        "delta.");
    return forward(PT_LOSS_HUBER, self, target, NULL, NULL, reduction, delta, ret);
}

pt_status pt_kernel_huber_loss_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                        const pt_tensor *target, int64_t reduction, double delta,
                                        pt_tensor **ret)
{
    return backward(PT_LOSS_HUBER, grad_output, self, target, NULL, reduction, delta, ret);
}

pt_status pt_kernel_soft_margin_loss(const pt_tensor *self, const pt_tensor *target,
                                     int64_t reduction, pt_tensor **ret)
{
    return forward(PT_LOSS_SOFT_MARGIN, self, target, NULL, NULL, reduction, 0, ret);
}

pt_status pt_kernel_soft_margin_loss_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                              const pt_tensor *target, int64_t reduction,
                                              pt_tensor **ret)
{
    return backward(PT_LOSS_SOFT_MARGIN, grad_output, self, target, NULL, reduction, 0, ret);
}

/* torch checks the probabilities: a value outside [0, 1] (or nan) is an error, not garbage. */
static pt_status check_probabilities(const pt_tensor *self)
{
    if (!pt_is_floating(self->dtype)) return PT_OK;
    pt_tensor *c = NULL, *w = NULL;
    PT_TRY(pt_tensor_to(self, compute_dtype(self->dtype), self->device, 0, &w));
    const pt_status cst = pt_tensor_contiguous(w, &c);
    pt_tensor_release(w);
    if (cst != PT_OK) return cst;
    const int64_t n = pt_tensor_numel(c);
    bool ok = true;
    if (c->dtype == PT_FLOAT32) {
        const float *v = pt_tensor_data(c);
        for (int64_t i = 0; i < n && ok; i++) ok = v[i] >= 0 && v[i] <= 1;
    } else {
        const double *v = pt_tensor_data(c);
        for (int64_t i = 0; i < n && ok; i++) ok = v[i] >= 0 && v[i] <= 1;
    }
    pt_tensor_release(c);
    if (!ok)
        return PT_ERROR(PT_ERR_RUNTIME, "all elements of input should be between 0 and 1");
    return PT_OK;
}

pt_status pt_kernel_binary_cross_entropy(const pt_tensor *self, const pt_tensor *target,
                                         const pt_tensor *weight, int64_t reduction,
                                         pt_tensor **ret)
{
    PT_TRY(check_same_dtype(self, target));
    PT_TRY(check_same_dtype(self, weight));
    PT_TRY(check_dtype(&specs[PT_LOSS_BCE], self->dtype));
    PT_TRY(check_probabilities(self));
    return forward(PT_LOSS_BCE, self, target, weight, NULL, reduction, 0, ret);
}

pt_status pt_kernel_binary_cross_entropy_backward(const pt_tensor *grad_output,
                                                  const pt_tensor *self, const pt_tensor *target,
                                                  const pt_tensor *weight, int64_t reduction,
                                                  pt_tensor **ret)
{
    PT_TRY(check_same_dtype(self, target));
    PT_TRY(check_same_dtype(self, weight));
    return backward(PT_LOSS_BCE, grad_output, self, target, weight, reduction, 0, ret);
}

pt_status pt_kernel_binary_cross_entropy_with_logits(const pt_tensor *self,
                                                     const pt_tensor *target,
                                                     const pt_tensor *weight,
                                                     const pt_tensor *pos_weight,
                                                     int64_t reduction, pt_tensor **ret)
{
    return forward(PT_LOSS_BCE_LOGITS, self, target, weight, pos_weight, reduction, 0, ret);
}
