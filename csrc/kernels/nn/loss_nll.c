/* loss_nll.c - the negative log likelihood: nll_loss_forward / nll_loss_backward (input [C] or
 * [N, C], target [] or [N]) and nll_loss2d_forward / nll_loss2d_backward (input [N, C, H, W],
 * target [N, H, W]), as torch's CPU kernels compute them.
 *
 * Both forms are one computation over an input seen as [N, C, S] (S = 1, or H * W) and a target
 * seen as [N, S]: the loss of position (n, s) is -weight[t] * input[n, t, s] with t its target
 * class, 0 where t is ignore_index. total_weight (the second output) sums weight[t] over the
 * positions not ignored (0 without reduction, as torch leaves it); 'mean' divides the summed loss
 * by it, so a batch where every target is ignored gives nan, as torch's. Every target is checked
 * before anything is computed: a class outside [0, C) is torch's IndexError "Target 5 is out of
 * bounds.", never a read outside the input. The backward writes -weight[t] * grad at (n, t, s)
 * of a zero tensor shaped as the input (grad / total_weight for 'mean').
 *
 * Sums accumulate in double; without reduction the positions are split across OpenMP threads
 * above PT_GRAIN. float32 and float64, and float16 and bfloat16 as torch's kernels take them:
 * those are widened to float32 for the computation and the results rounded back once. Targets
 * are int64 or uint8, as torch's.
 */
#include <math.h>
#include <string.h>

#include "iter.h"
#include "nn/loss.h"
#include "pt_ops_internal.h"

typedef struct nll {
    const char *kname, *bkname; /* torch's kernel names in "not implemented for" messages */
    int64_t n, c, s;
    int64_t reduction, ignore_index;
    int32_t out_nd; /* the unreduced loss's shape */
    int64_t out_sizes[PT_MAX_DIMS];
} nll;

static const char *fmt_sizes(char *buf, size_t cap, const pt_tensor *t)
{
    return pt_format_ints(buf, cap, t->ndim, t->sizes);
}

static pt_status check_common(const nll *p, const pt_tensor *self, const pt_tensor *target,
                              const pt_tensor *weight)
{
    PT_TRY(pt_iter_check_operand(self, "nll_loss", "self"));
    PT_TRY(pt_iter_check_operand(target, "nll_loss", "target"));
    if (weight) PT_TRY(pt_iter_check_operand(weight, "nll_loss", "weight"));
    if (target->dtype != PT_INT64 && target->dtype != PT_UINT8)
        return PT_ERROR(PT_ERR_RUNTIME, "expected target dtype to be Long or Byte, but got %s",
                        pt_iter_type_name(target->dtype));
    if (weight && pt_tensor_numel(weight) != p->c) {
        char buf[128];
        return PT_ERROR(PT_ERR_RUNTIME, "weight tensor should be defined either for all %lld "
                        "classes or no classes but got weight tensor of shape: %s",
                        (long long)p->c, fmt_sizes(buf, sizeof buf, weight));
    }
    if (p->reduction < PT_LOSS_NONE || p->reduction > PT_LOSS_SUM)
        return PT_ERROR(PT_ERR_VALUE, "%lld is not a valid value for reduction",
                        (long long)p->reduction);
    return PT_OK;
}

/* nll_loss's shapes: input [C] with target [] (or one element), input [N, C] with target [N]. */
static pt_status plan_1d(nll *p, const pt_tensor *self, const pt_tensor *target)
{
    if (self->ndim < 1 || self->ndim > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "input tensor should be 1D or 2D");
    if (target->ndim > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not "
                        "supported");
    const bool single = self->ndim == 1;
    const int64_t n = single ? 1 : self->sizes[0];
    if ((single && pt_tensor_numel(target) != 1) || (!single && (target->ndim != 1 ||
                                                                 target->sizes[0] != n))) {
        char a[128], b[128];
        return PT_ERROR(PT_ERR_RUNTIME, "size mismatch (got input: %s, target: %s)",
                        fmt_sizes(a, sizeof a, self), fmt_sizes(b, sizeof b, target));
    }
    p->n = n;
    p->c = self->sizes[self->ndim - 1];
    p->s = 1;
    p->out_nd = single ? 0 : 1;
    p->out_sizes[0] = n;
    return PT_OK;
}

static pt_status plan_2d(nll *p, const pt_tensor *self, const pt_tensor *target)
{
    if (target->ndim != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "only batches of spatial targets supported (3D tensors) "
                        "but got targets of dimension: %d", (int)target->ndim);
    if (self->ndim != 4)
        return PT_ERROR(PT_ERR_RUNTIME, "only batches of spatial inputs supported (4D tensors), "
                        "but got input of dimension: %d", (int)self->ndim);
    if (self->sizes[0] != target->sizes[0] || self->sizes[2] != target->sizes[1] ||
        self->sizes[3] != target->sizes[2]) {
        char a[128], b[128];
        return PT_ERROR(PT_ERR_RUNTIME, "size mismatch (got input: %s , target: %s",
                        fmt_sizes(a, sizeof a, self), fmt_sizes(b, sizeof b, target));
    }
    p->n = self->sizes[0];
    p->c = self->sizes[1];
    p->s = self->sizes[2] * self->sizes[3];
    p->out_nd = 3;
    p->out_sizes[0] = self->sizes[0];
    p->out_sizes[1] = self->sizes[2];
    p->out_sizes[2] = self->sizes[3];
    return PT_OK;
}

static pt_status check_float(const char *kname, int32_t dtype)
{
    if (pt_is_floating(dtype)) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kname,
                    pt_iter_type_name(dtype));
}

/* The dtype the loops run in: float16 and bfloat16 are computed in float32. */
static int32_t compute_dtype(int32_t dtype)
{
    return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16 ? PT_FLOAT32 : dtype;
}

/* *t (owned) rounded to dtype when the loops ran in a wider one. */
static pt_status narrow_to(pt_tensor **t, int32_t dtype)
{
    if ((*t)->dtype == dtype) return PT_OK;
    pt_tensor *r = NULL;
    PT_TRY(pt_tensor_to(*t, dtype, (*t)->device, 0, &r));
    pt_tensor_release(*t);
    *t = r;
    return PT_OK;
}

/* The operands as contiguous tensors: input (and weight) in the compute dtype, target in int64.
 * Every target is checked against [0, C) unless it is ignore_index. */
typedef struct operands {
    pt_tensor *x, *t, *w;
} operands;

static void operands_release(operands *o)
{
    if (o->x) pt_tensor_release(o->x);
    if (o->t) pt_tensor_release(o->t);
    if (o->w) pt_tensor_release(o->w);
}

static pt_status operands_make(const nll *p, const pt_tensor *self, const pt_tensor *target,
                               const pt_tensor *weight, operands *o)
{
    memset(o, 0, sizeof *o);
    pt_tensor *tmp = NULL;
    const int32_t dtype = compute_dtype(self->dtype);
    pt_status st = pt_tensor_to(self, dtype, self->device, 0, &tmp);
    if (st == PT_OK) st = pt_tensor_contiguous(tmp, &o->x);
    if (tmp) pt_tensor_release(tmp);
    tmp = NULL;
    if (st == PT_OK) st = pt_tensor_to(target, PT_INT64, target->device, 0, &tmp);
    if (st == PT_OK) st = pt_tensor_contiguous(tmp, &o->t);
    if (tmp) pt_tensor_release(tmp);
    tmp = NULL;
    if (st == PT_OK && weight) st = pt_tensor_to(weight, dtype, weight->device, 0, &tmp);
    if (st == PT_OK && weight) st = pt_tensor_contiguous(tmp, &o->w);
    if (tmp) pt_tensor_release(tmp);
    if (st == PT_OK) {
        const int64_t *t = pt_tensor_data(o->t), m = p->n * p->s;
        for (int64_t i = 0; i < m; i++) {
            if (t[i] == p->ignore_index || (t[i] >= 0 && t[i] < p->c)) continue;
            st = PT_ERROR(PT_ERR_INDEX, "Target %lld is out of bounds.", (long long)t[i]);
            break;
        }
    }
    if (st != PT_OK) operands_release(o);
    return st;
}

/* ---------------------------------------------------------------- forward */

typedef struct fjob {
    const nll *p;
    const operands *o;
    void *out;
} fjob;

#define NLL_LOOPS(SUF, T)                                                                          \
    static void unreduced_##SUF(int64_t begin, int64_t end, void *ctx)                            \
    {                                                                                              \
        const fjob *j = ctx;                                                                       \
        const nll *p = j->p;                                                                       \
        const T *x = pt_tensor_data(j->o->x);                                                      \
        const T *w = j->o->w ? pt_tensor_data(j->o->w) : NULL;                                     \
        const int64_t *t = pt_tensor_data(j->o->t);                                                \
        T *out = j->out;                                                                           \
        for (int64_t i = begin; i < end; i++) {                                                    \
            const int64_t n = i / p->s, s = i % p->s, c = t[i];                                    \
            if (c == p->ignore_index) {                                                            \
                out[i] = 0;                                                                        \
                continue;                                                                          \
            }                                                                                      \
            out[i] = -x[(n * p->c + c) * p->s + s] * (w ? w[c] : (T)1);                            \
        }                                                                                          \
    }                                                                                              \
    static void reduced_##SUF(const nll *p, const operands *o, double *sum, double *total)        \
    {                                                                                              \
        const T *x = pt_tensor_data(o->x);                                                         \
        const T *w = o->w ? pt_tensor_data(o->w) : NULL;                                           \
        const int64_t *t = pt_tensor_data(o->t);                                                   \
        double acc = 0, tw = 0;                                                                    \
        for (int64_t i = 0; i < p->n * p->s; i++) {                                                \
            const int64_t n = i / p->s, s = i % p->s, c = t[i];                                    \
            if (c == p->ignore_index) continue;                                                    \
            const double wc = w ? (double)w[c] : 1.0;                                              \
            acc -= (double)x[(n * p->c + c) * p->s + s] * wc;                                      \
            tw += wc;                                                                              \
        }                                                                                          \
        *sum = acc;                                                                                \
        *total = tw;                                                                               \
    }

NLL_LOOPS(f4, float)
NLL_LOOPS(f8, double)

static void store(pt_tensor *t, double v)
{
    if (t->dtype == PT_FLOAT32) *(float *)pt_tensor_data(t) = (float)v;
    else *(double *)pt_tensor_data(t) = v;
}

static pt_status forward(nll *p, const pt_tensor *self, const pt_tensor *target,
                         const pt_tensor *weight, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(check_common(p, self, target, weight));
    PT_TRY(check_float(p->kname, self->dtype));
    operands o;
    PT_TRY(operands_make(p, self, target, weight, &o));
    pt_tensor *out = NULL, *total = NULL;
    const int32_t dtype = compute_dtype(self->dtype);
    const bool f8 = dtype == PT_FLOAT64;
    pt_status st = pt_tensor_empty(0, NULL, dtype, self->device, &total);
    if (st != PT_OK) goto fail;
    if (p->reduction == PT_LOSS_NONE) {
        st = pt_tensor_empty(p->out_nd, p->out_sizes, dtype, self->device, &out);
        if (st != PT_OK) goto fail;
        fjob j = {p, &o, pt_tensor_data(out)};
        pt_parallel_for(p->n * p->s, PT_GRAIN, f8 ? unreduced_f8 : unreduced_f4, &j);
        store(total, 0);
    } else {
        st = pt_tensor_empty(0, NULL, dtype, self->device, &out);
        if (st != PT_OK) goto fail;
        double sum, tw;
        if (f8) reduced_f8(p, &o, &sum, &tw);
        else reduced_f4(p, &o, &sum, &tw);
        store(out, p->reduction == PT_LOSS_MEAN ? sum / tw : sum);
        store(total, tw);
    }
    if ((st = narrow_to(&out, self->dtype)) != PT_OK) goto fail;
    if ((st = narrow_to(&total, self->dtype)) != PT_OK) goto fail;
    operands_release(&o);
    *ret0 = out;
    *ret1 = total;
    return PT_OK;
fail:
    operands_release(&o);
    if (out) pt_tensor_release(out);
    if (total) pt_tensor_release(total);
    return st;
}

/* ---------------------------------------------------------------- backward */

typedef struct bjob {
    const nll *p;
    const operands *o;
    const void *g; /* per position without reduction, else NULL and gs */
    double gs;
    void *out;
} bjob;

#define NLL_BACKWARD(SUF, T)                                                                       \
    static void backward_##SUF(int64_t begin, int64_t end, void *ctx)                             \
    {                                                                                              \
        const bjob *j = ctx;                                                                       \
        const nll *p = j->p;                                                                       \
        const T *w = j->o->w ? pt_tensor_data(j->o->w) : NULL;                                     \
        const T *g = j->g;                                                                         \
        const int64_t *t = pt_tensor_data(j->o->t);                                                \
        T *out = j->out;                                                                           \
        for (int64_t i = begin; i < end; i++) {                                                    \
            const int64_t n = i / p->s, s = i % p->s, c = t[i];                                    \
            if (c == p->ignore_index) continue;                                                    \
            out[(n * p->c + c) * p->s + s] = -(w ? w[c] : (T)1) * (g ? g[i] : (T)j->gs);           \
        }                                                                                          \
    }

NLL_BACKWARD(f4, float)
NLL_BACKWARD(f8, double)

static pt_status read_scalar(const pt_tensor *t, double *v)
{
    pt_scalar s;
    PT_TRY(pt_tensor_item(t, &s));
    *v = s.kind == PT_SCALAR_FLOAT ? s.re : (double)s.i;
    return PT_OK;
}

static pt_status backward(nll *p, const pt_tensor *grad_output, const pt_tensor *self,
                          const pt_tensor *target, const pt_tensor *weight,
                          const pt_tensor *total_weight, pt_tensor **ret)
{
    PT_TRY(check_common(p, self, target, weight));
    PT_TRY(check_float(p->bkname, self->dtype));
    PT_TRY(pt_iter_check_operand(grad_output, "nll_loss_backward", "grad_output"));
    char a[128];
    if (p->reduction == PT_LOSS_NONE) {
        const bool same = grad_output->ndim == p->out_nd &&
                          memcmp(grad_output->sizes, p->out_sizes,
                                 sizeof(int64_t) * (size_t)p->out_nd) == 0;
        if (!same)
            return PT_ERROR(PT_ERR_RUNTIME, "grad_output must have the unreduced loss's shape, "
                            "got %s", fmt_sizes(a, sizeof a, grad_output));
    } else if (pt_tensor_numel(grad_output) != 1) {
        return PT_ERROR(PT_ERR_RUNTIME, "Expected a single element grad_output tensor, but got: "
                        "%s", fmt_sizes(a, sizeof a, grad_output));
    }
    if (pt_tensor_numel(total_weight) != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "expected total_weight to be a single element tensor, got: "
                        "%s (%lld elements)", fmt_sizes(a, sizeof a, total_weight),
                        (long long)pt_tensor_numel(total_weight));
    operands o;
    PT_TRY(operands_make(p, self, target, weight, &o));
    pt_tensor *out = NULL, *g = NULL;
    bjob j = {p, &o, NULL, 0, NULL};
    const int32_t dtype = compute_dtype(self->dtype);
    pt_status st = pt_tensor_empty(self->ndim, self->sizes, dtype, self->device, &out);
    if (st != PT_OK) goto done;
    memset(pt_tensor_data(out), 0, (size_t)(pt_tensor_numel(out) * pt_dtype_itemsize(out->dtype)));
    j.out = pt_tensor_data(out);
    if (p->reduction == PT_LOSS_NONE) {
        pt_tensor *tmp = NULL;
        st = pt_tensor_to(grad_output, dtype, self->device, 0, &tmp);
        if (st == PT_OK) st = pt_tensor_contiguous(tmp, &g);
        if (tmp) pt_tensor_release(tmp);
        if (st != PT_OK) goto done;
        j.g = pt_tensor_data(g);
    } else {
        double tw = 1;
        if ((st = read_scalar(grad_output, &j.gs)) != PT_OK) goto done;
        if (p->reduction == PT_LOSS_MEAN && (st = read_scalar(total_weight, &tw)) != PT_OK)
            goto done;
        j.gs /= tw;
    }
    pt_parallel_for(p->n * p->s, PT_GRAIN, dtype == PT_FLOAT64 ? backward_f8 : backward_f4, &j);
    st = narrow_to(&out, self->dtype);
done:
    operands_release(&o);
    if (g) pt_tensor_release(g);
    if (st != PT_OK) {
        if (out) pt_tensor_release(out);
        return st;
    }
    *ret = out;
    return PT_OK;
}

/* ---------------------------------------------------------------- entry points */

pt_status pt_kernel_nll_loss_forward(const pt_tensor *self, const pt_tensor *target,
                                     const pt_tensor *weight, int64_t reduction,
                                     int64_t ignore_index, pt_tensor **ret0, pt_tensor **ret1)
{
    nll p = {"nll_loss_out_frame", "nll_loss_backward_out_frame", 0, 0, 0, reduction,
             ignore_index, 0, {0}};
    PT_TRY(pt_iter_check_operand(self, "nll_loss", "self"));
    PT_TRY(plan_1d(&p, self, target));
    return forward(&p, self, target, weight, ret0, ret1);
}

pt_status pt_kernel_nll_loss_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                      const pt_tensor *target, const pt_tensor *weight,
                                      int64_t reduction, int64_t ignore_index,
                                      const pt_tensor *total_weight, pt_tensor **ret)
{
    nll p = {"nll_loss_out_frame", "nll_loss_backward_out_frame", 0, 0, 0, reduction,
             ignore_index, 0, {0}};
    PT_TRY(pt_iter_check_operand(self, "nll_loss_backward", "self"));
    PT_TRY(plan_1d(&p, self, target));
    return backward(&p, grad_output, self, target, weight, total_weight, ret);
}

pt_status pt_kernel_nll_loss2d_forward(const pt_tensor *self, const pt_tensor *target,
                                       const pt_tensor *weight, int64_t reduction,
                                       int64_t ignore_index, pt_tensor **ret0, pt_tensor **ret1)
{
    nll p = {"nll_loss2d_forward_out_frame", "nll_loss2d_backward_out_frame", 0, 0, 0, reduction,
             ignore_index, 0, {0}};
    PT_TRY(pt_iter_check_operand(self, "nll_loss2d", "self"));
    PT_TRY(plan_2d(&p, self, target));
    return forward(&p, self, target, weight, ret0, ret1);
}

pt_status pt_kernel_nll_loss2d_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                        const pt_tensor *target, const pt_tensor *weight,
                                        int64_t reduction, int64_t ignore_index,
                                        const pt_tensor *total_weight, pt_tensor **ret)
{
    nll p = {"nll_loss2d_forward_out_frame", "nll_loss2d_backward_out_frame", 0, 0, 0, reduction,
             ignore_index, 0, {0}};
    PT_TRY(pt_iter_check_operand(self, "nll_loss2d_backward", "self"));
    PT_TRY(plan_2d(&p, self, target));
    return backward(&p, grad_output, self, target, weight, total_weight, ret);
}
