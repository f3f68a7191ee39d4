/* loss_margin.c - the multi-class margin losses, as torch's CPU kernels compute them:
 * multi_margin_loss (one target class per sample) and multilabel_margin_loss_forward (a list of
 * target classes per sample, ended by the first -1), with their backward kernels.
 *
 * Input [C] or [N, C] (a 0-d input is one sample of one class); a sample's loss is
 *   multi_margin:    sum over d != y of w[y] * max(0, margin - x[y] + x[d])^p / C   (p = 1, 2)
 *   multilabel:      sum over targets t, non-targets d of max(0, 1 - x[t] + x[d]) / C
 * and 'mean' averages the samples (nan for none). multilabel_margin_loss_forward's second output
 * is_target marks each sample's target classes with 1 (in the input's dtype), which the backward
 * reads back. Targets are checked before anything is computed (torch's "target out of range"),
 * and samples are split across OpenMP threads when there are many. Sums accumulate in double;
 * float32 and float64.
 */
#include <math.h>
#include <string.h>

#include "iter.h"
#include "nn/loss.h"
#include "pt_ops_internal.h"

typedef struct margin {
    int64_t n, c;
    int64_t reduction;
    int32_t out_nd; /* 0 or 1: the unreduced loss is [N] or one value */
    int p;          /* multi_margin: 1 or 2 */
    double margin;
    bool f8;
    const void *x, *w, *g; /* contiguous input, weight (or NULL), per-sample grad (or NULL) */
    const int64_t *t;
    double gs;      /* backward: the reduced loss's gradient */
    void *is_target; /* multilabel */
    void *out;
} margin;

static pt_status check_reduction(int64_t reduction)
{
    if (reduction < PT_LOSS_NONE || reduction > PT_LOSS_SUM)
        return PT_ERROR(PT_ERR_VALUE, "%lld is not a valid value for reduction",
                        (long long)reduction);
    return PT_OK;
}

static pt_status check_float(const char *kname, int32_t dtype)
{
    if (dtype == PT_FLOAT32 || dtype == PT_FLOAT64) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kname,
                    pt_iter_type_name(dtype));
}

static pt_status check_long(const pt_tensor *target)
{
    if (target->dtype == PT_INT64) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type Long but found %s",
                    pt_iter_type_name(target->dtype));
}

static pt_status check_input_shape(const pt_tensor *self, margin *m)
{
    const int32_t nd = self->ndim;
    if (!((nd == 2 && self->sizes[1] != 0) || (nd == 1 && self->sizes[0] != 0) || nd == 0)) {
        char a[128];
        return PT_ERROR(PT_ERR_RUNTIME, "Expected non-empty vector or matrix with optional 0-dim "
                        "batch size, but got: %s", pt_format_ints(a, sizeof a, nd, self->sizes));
    }
    m->n = nd <= 1 ? 1 : self->sizes[0];
    m->c = nd == 0 ? 1 : self->sizes[nd - 1];
    return PT_OK;
}

static pt_status contiguous_as(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    *out = NULL;
    if (!t) return PT_OK;
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_to(t, dtype, t->device, 0, &c));
    const pt_status st = pt_tensor_contiguous(c, out);
    pt_tensor_release(c);
    return st;
}

static void store(pt_tensor *t, double v)
{
    if (t->dtype == PT_FLOAT32) *(float *)pt_tensor_data(t) = (float)v;
    else *(double *)pt_tensor_data(t) = v;
}

static void zero(pt_tensor *t)
{
    memset(pt_tensor_data(t), 0, (size_t)(pt_tensor_numel(t) * pt_dtype_itemsize(t->dtype)));
}

/* ---------------------------------------------------------------- the loops */

#define MARGIN_LOOPS(SUF, T)                                                                       \
    static double multi_sample_##SUF(const margin *m, int64_t i)                                   \
    {                                                                                              \
        const T *x = (const T *)m->x + i * m->c;                                                   \
        const int64_t y = m->t[i];                                                                 \
        const double wy = m->w ? (double)((const T *)m->w)[y] : 1.0;                               \
        double sum = 0;                                                                            \
        for (int64_t d = 0; d < m->c; d++) {                                                       \
            if (d == y) continue;                                                                  \
            const double z = m->margin - (double)x[y] + (double)x[d];                              \
            if (z > 0) sum += (m->p == 1 ? z : z * z) * wy;                                        \
        }                                                                                          \
        return sum / (double)m->c;                                                                 \
    }                                                                                              \
    static void multi_rows_##SUF(int64_t b, int64_t e, void *ctx)                                 \
    {                                                                                              \
        const margin *m = ctx;                                                                     \
        for (int64_t i = b; i < e; i++) ((T *)m->out)[i] = (T)multi_sample_##SUF(m, i);            \
    }                                                                                              \
    static void multi_grad_rows_##SUF(int64_t b, int64_t e, void *ctx)                            \
    {                                                                                              \
        const margin *m = ctx;                                                                     \
        for (int64_t i = b; i < e; i++) {                                                          \
            const T *x = (const T *)m->x + i * m->c;                                               \
            T *gi = (T *)m->out + i * m->c;                                                        \
            const int64_t y = m->t[i];                                                             \
            const double wy = m->w ? (double)((const T *)m->w)[y] : 1.0;                           \
            const double g = (m->g ? (double)((const T *)m->g)[i] : m->gs) / (double)m->c;        \
            double gy = 0;                                                                         \
            for (int64_t d = 0; d < m->c; d++) {                                                   \
                if (d == y) continue;                                                              \
                const double z = m->margin - (double)x[y] + (double)x[d];                          \
                const double h = z > 0 ? (m->p == 1 ? 1.0 : 2 * z) * wy * g : 0.0;                 \
                gi[d] = (T)h;                                                                      \
                gy -= h;                                                                           \
            }                                                                                      \
            gi[y] = (T)gy;                                                                         \
        }                                                                                          \
    }                                                                                              \
    static double multilabel_sample_##SUF(const margin *m, int64_t i)                              \
    {                                                                                              \
        const T *x = (const T *)m->x + i * m->c;                                                   \
        const int64_t *t = m->t + i * m->c;                                                        \
        T *is = (T *)m->is_target + i * m->c;                                                      \
        for (int64_t k = 0; k < m->c && t[k] >= 0; k++) is[t[k]] = 1;                             \
        double sum = 0;                                                                            \
        for (int64_t k = 0; k < m->c && t[k] >= 0; k++) {                                         \
            const double xt = (double)x[t[k]];                                                     \
            for (int64_t d = 0; d < m->c; d++) {                                                   \
                if (is[d] != 0) continue;                                                          \
                const double z = 1 - xt + (double)x[d];                                            \
                if (z > 0) sum += z;                                                               \
            }                                                                                      \
        }                                                                                          \
        return sum / (double)m->c;                                                                 \
    }                                                                                              \
    static void multilabel_rows_##SUF(int64_t b, int64_t e, void *ctx)                            \
    {                                                                                              \
        const margin *m = ctx;                                                                     \
        for (int64_t i = b; i < e; i++) {                                                          \
            const double v = multilabel_sample_##SUF(m, i);                                        \
            if (m->out) ((T *)m->out)[i] = (T)v;                                                   \
        }                                                                                          \
    }                                                                                              \
    static void multilabel_grad_rows_##SUF(int64_t b, int64_t e, void *ctx)                       \
    {                                                                                              \
        const margin *m = ctx;                                                                     \
        for (int64_t i = b; i < e; i++) {                                                          \
            const T *x = (const T *)m->x + i * m->c;                                               \
            const T *is = (const T *)m->is_target + i * m->c;                                      \
            const int64_t *t = m->t + i * m->c;                                                    \
            T *gi = (T *)m->out + i * m->c;                                                        \
            const double g = (m->g ? (double)((const T *)m->g)[i] : m->gs) / (double)m->c;        \
            for (int64_t k = 0; k < m->c && t[k] >= 0; k++) {                                     \
                const double xt = (double)x[t[k]];                                                 \
                for (int64_t d = 0; d < m->c; d++) {                                               \
                    if (is[d] != 0) continue;                                                      \
                    if (1 - xt + (double)x[d] > 0) {                                               \
                        gi[t[k]] = (T)((double)gi[t[k]] - g);                                      \
                        gi[d] = (T)((double)gi[d] + g);                                            \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

MARGIN_LOOPS(f4, float)
MARGIN_LOOPS(f8, double)

/* Rows per thread chunk: a sample costs about C (multi) or C * targets (multilabel) steps. */
static int64_t row_grain(int64_t c)
{
    return (PT_GRAIN + c - 1) / (c > 0 ? c : 1);
}

/* The reduced loss from the per-sample values in `vals` (n of them, dtype of r). */
static void reduce_into(pt_tensor *r, const pt_tensor *vals, int64_t n, int64_t reduction)
{
    double s = 0;
    if (vals->dtype == PT_FLOAT32)
        for (int64_t i = 0; i < n; i++) s += ((const float *)pt_tensor_data(vals))[i];
    else
        for (int64_t i = 0; i < n; i++) s += ((const double *)pt_tensor_data(vals))[i];
    store(r, reduction == PT_LOSS_MEAN ? s / (double)n : s);
}

/* grad_output: the unreduced shape, or one value read into m->gs. */
static pt_status grad_operand(margin *m, const pt_tensor *grad_output, int32_t dtype,
                              pt_tensor **g)
{
    *g = NULL;
    PT_TRY(pt_iter_check_operand(grad_output, "loss_backward", "grad_output"));
    if (m->reduction == PT_LOSS_NONE) {
        if (pt_tensor_numel(grad_output) != (m->out_nd ? m->n : 1))
            return PT_ERROR(PT_ERR_RUNTIME, "grad_output must have the unreduced loss's %lld "
                            "elements, got %lld", (long long)m->n,
                            (long long)pt_tensor_numel(grad_output));
        PT_TRY(contiguous_as(grad_output, dtype, g));
        m->g = pt_tensor_data(*g);
        return PT_OK;
    }
    if (pt_tensor_numel(grad_output) != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "grad_output of a reduced loss must have one element");
    pt_scalar s;
    PT_TRY(pt_tensor_item(grad_output, &s));
    m->gs = s.kind == PT_SCALAR_FLOAT ? s.re : (double)s.i;
    if (m->reduction == PT_LOSS_MEAN) m->gs /= (double)m->n;
    return PT_OK;
}

/* ---------------------------------------------------------------- multi_margin_loss */

static pt_status multi_plan(margin *m, const pt_tensor *self, const pt_tensor *target,
                            const pt_scalar *p, const pt_scalar *mg, const pt_tensor *weight,
                            int64_t reduction)
{
    PT_TRY(pt_iter_check_operand(self, "multi_margin_loss", "self"));
    PT_TRY(pt_iter_check_operand(target, "multi_margin_loss", "target"));
    PT_TRY(check_reduction(reduction));
    const double pv = p->kind == PT_SCALAR_FLOAT ? p->re : (double)p->i;
    if (pv != 1 && pv != 2) return PT_ERROR(PT_ERR_RUNTIME, "only p == 1 and p == 2 supported");
    PT_TRY(check_input_shape(self, m));
    char a[128], b[128];
    if (target->ndim > 1 || pt_tensor_numel(target) != m->n)
        return PT_ERROR(PT_ERR_RUNTIME, "multi_margin_loss: target tensor should be 1-D with size "
                        "equal to the number of input samples (batch size). Expected target size "
                        "[%lld], but got %s. Input has shape %s.", (long long)m->n,
                        pt_format_ints(a, sizeof a, target->ndim, target->sizes),
                        pt_format_ints(b, sizeof b, self->ndim, self->sizes));
    if (weight && (weight->ndim > 1 || pt_tensor_numel(weight) != m->c))
        return PT_ERROR(PT_ERR_RUNTIME, "inconsistent weight size, expected %lld but got %s",
                        (long long)m->c, pt_format_ints(a, sizeof a, weight->ndim, weight->sizes));
    PT_TRY(check_long(target));
    m->reduction = reduction;
    m->p = (int)pv;
    m->margin = mg->kind == PT_SCALAR_FLOAT ? mg->re : (double)mg->i;
    m->out_nd = reduction == PT_LOSS_NONE && target->ndim > 0 ? 1 : 0;
    return PT_OK;
}

typedef struct held {
    pt_tensor *x, *t, *w, *g, *tmp;
} held;

static void held_release(held *h)
{
    pt_tensor *all[5] = {h->x, h->t, h->w, h->g, h->tmp};
    for (int i = 0; i < 5; i++)
        if (all[i]) pt_tensor_release(all[i]);
}

static pt_status hold(margin *m, const pt_tensor *self, const pt_tensor *target,
                      const pt_tensor *weight, held *h)
{
    memset(h, 0, sizeof *h);
    m->f8 = self->dtype == PT_FLOAT64;
    PT_TRY(contiguous_as(self, self->dtype, &h->x));
    PT_TRY(contiguous_as(target, PT_INT64, &h->t));
    PT_TRY(contiguous_as(weight, self->dtype, &h->w));
    m->x = pt_tensor_data(h->x);
    m->t = pt_tensor_data(h->t);
    m->w = h->w ? pt_tensor_data(h->w) : NULL;
    return PT_OK;
}

static pt_status check_multi_targets(const margin *m)
{
    for (int64_t i = 0; i < m->n; i++)
        if (m->t[i] < 0 || m->t[i] >= m->c)
            return PT_ERROR(PT_ERR_RUNTIME, "target out of range");
    return PT_OK;
}

pt_status pt_kernel_multi_margin_loss(const pt_tensor *self, const pt_tensor *target,
                                      const pt_scalar *p, const pt_scalar *margin_,
                                      const pt_tensor *weight, int64_t reduction, pt_tensor **ret)
{
    margin m = {0};
    PT_TRY(multi_plan(&m, self, target, p, margin_, weight, reduction));
    PT_TRY(check_float("multi_margin_loss_cpu_kernel", self->dtype));
    held h;
    pt_tensor *r = NULL;
    pt_status st = hold(&m, self, target, weight, &h);
    if (st == PT_OK) st = check_multi_targets(&m);
    /* one value per sample, reduced after: [N] unless the result is the unreduced 0-d one */
    const int64_t osz = m.n;
    const int32_t tmp_nd = reduction == PT_LOSS_NONE ? m.out_nd : 1;
    if (st == PT_OK) st = pt_tensor_empty(tmp_nd, &osz, self->dtype, self->device, &h.tmp);
    if (st == PT_OK) {
        m.out = pt_tensor_data(h.tmp);
        pt_parallel_for(m.n, row_grain(m.c), m.f8 ? multi_rows_f8 : multi_rows_f4, &m);
        if (reduction == PT_LOSS_NONE) {
            r = h.tmp;
            h.tmp = NULL;
        } else if ((st = pt_tensor_empty(0, NULL, self->dtype, self->device, &r)) == PT_OK) {
            reduce_into(r, h.tmp, m.n, reduction);
        }
    }
    held_release(&h);
    if (st == PT_OK) *ret = r;
    return st;
}

pt_status pt_kernel_multi_margin_loss_backward(const pt_tensor *grad_output,
                                               const pt_tensor *self, const pt_tensor *target,
                                               const pt_scalar *p, const pt_scalar *margin_,
                                               const pt_tensor *weight, int64_t reduction,
                                               pt_tensor **ret)
{
    margin m = {0};
    PT_TRY(multi_plan(&m, self, target, p, margin_, weight, reduction));
    PT_TRY(check_float("multi_margin_loss_backward_cpu_kernel", self->dtype));
    held h;
    pt_tensor *r = NULL;
    pt_status st = hold(&m, self, target, weight, &h);
    if (st == PT_OK) st = check_multi_targets(&m);
    if (st == PT_OK) st = grad_operand(&m, grad_output, self->dtype, &h.g);
    if (st == PT_OK) st = pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &r);
    if (st == PT_OK) {
        m.out = pt_tensor_data(r);
        pt_parallel_for(m.n, row_grain(m.c), m.f8 ? multi_grad_rows_f8 : multi_grad_rows_f4, &m);
    }
    held_release(&h);
    if (st == PT_OK) *ret = r;
    return st;
}

/* ---------------------------------------------------------------- multilabel_margin_loss */

static pt_status multilabel_plan(margin *m, const pt_tensor *self, const pt_tensor *target,
                                 int64_t reduction)
{
    PT_TRY(pt_iter_check_operand(self, "multilabel_margin_loss", "self"));
    PT_TRY(pt_iter_check_operand(target, "multilabel_margin_loss", "target"));
    PT_TRY(check_reduction(reduction));
    PT_TRY(check_input_shape(self, m));
    const bool ok = self->ndim <= 1
                        ? target->ndim <= 1 && pt_tensor_numel(target) == m->c
                        : target->ndim == 2 && target->sizes[0] == m->n &&
                              target->sizes[1] == m->c;
    if (!ok) {
        char a[128], b[128];
        return PT_ERROR(PT_ERR_RUNTIME, "inconsistent target size: %s for input of size: %s",
                        pt_format_ints(a, sizeof a, target->ndim, target->sizes),
                        pt_format_ints(b, sizeof b, self->ndim, self->sizes));
    }
    PT_TRY(check_long(target));
    m->reduction = reduction;
    m->out_nd = reduction == PT_LOSS_NONE && self->ndim == 2 ? 1 : 0;
    return PT_OK;
}

static pt_status check_multilabel_targets(const margin *m)
{
    for (int64_t i = 0; i < m->n * m->c; i++)
        if (m->t[i] < -1 || m->t[i] >= m->c)
            return PT_ERROR(PT_ERR_RUNTIME, "argument #2 'target' is out of range");
    return PT_OK;
}

pt_status pt_kernel_multilabel_margin_loss_forward(const pt_tensor *self, const pt_tensor *target,
                                                   int64_t reduction, pt_tensor **ret0,
                                                   pt_tensor **ret1)
{
    margin m = {0};
    PT_TRY(multilabel_plan(&m, self, target, reduction));
    PT_TRY(check_float("multilabel_margin_loss_forward_out_frame", self->dtype));
    held h;
    pt_tensor *r = NULL, *is = NULL;
    pt_status st = hold(&m, self, target, NULL, &h);
    if (st == PT_OK) st = check_multilabel_targets(&m);
    /* one value per sample, reduced after: [N] unless the result is the unreduced 0-d one */
    const int64_t osz = m.n;
    const int32_t tmp_nd = reduction == PT_LOSS_NONE ? m.out_nd : 1;
    if (st == PT_OK) st = pt_tensor_empty(tmp_nd, &osz, self->dtype, self->device, &h.tmp);
    if (st == PT_OK) st = pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &is);
    if (st == PT_OK) {
        zero(is);
        m.is_target = pt_tensor_data(is);
        m.out = pt_tensor_data(h.tmp);
        pt_parallel_for(m.n, row_grain(m.c * 4), m.f8 ? multilabel_rows_f8 : multilabel_rows_f4,
                        &m);
        if (reduction == PT_LOSS_NONE) {
            r = h.tmp;
            h.tmp = NULL;
        } else if ((st = pt_tensor_empty(0, NULL, self->dtype, self->device, &r)) == PT_OK) {
            reduce_into(r, h.tmp, m.n, reduction);
        }
    }
    held_release(&h);
    if (st != PT_OK) {
        if (is) pt_tensor_release(is);
        return st;
    }
    *ret0 = r;
    *ret1 = is;
    return PT_OK;
}

pt_status pt_kernel_multilabel_margin_loss_backward(const pt_tensor *grad_output,
                                                    const pt_tensor *self, const pt_tensor *target,
                                                    int64_t reduction, const pt_tensor *is_target,
                                                    pt_tensor **ret)
{
    margin m = {0};
    PT_TRY(multilabel_plan(&m, self, target, reduction));
    PT_TRY(check_float("multilabel_margin_loss_backward_out_frame", self->dtype));
    PT_TRY(pt_iter_check_operand(is_target, "multilabel_margin_loss_backward", "is_target"));
    if (pt_tensor_numel(is_target) != pt_tensor_numel(self))
        return PT_ERROR(PT_ERR_RUNTIME, "is_target must have the input's shape");
    held h;
    pt_tensor *r = NULL, *is = NULL;
    pt_status st = hold(&m, self, target, NULL, &h);
    if (st == PT_OK) st = check_multilabel_targets(&m);
    if (st == PT_OK) st = grad_operand(&m, grad_output, self->dtype, &h.g);
    if (st == PT_OK) st = contiguous_as(is_target, self->dtype, &is);
    if (st == PT_OK) st = pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &r);
    if (st == PT_OK) {
        zero(r);
        m.is_target = pt_tensor_data(is);
        m.out = pt_tensor_data(r);
        pt_parallel_for(m.n, row_grain(m.c * 4),
                        m.f8 ? multilabel_grad_rows_f8 : multilabel_grad_rows_f4, &m);
    }
    held_release(&h);
    if (is) pt_tensor_release(is);
    if (st == PT_OK) *ret = r;
    return st;
}
