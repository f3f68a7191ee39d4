/* loss_composite.c - the losses and distances that PyTorch writes as compositions of other
 * operators (CompositeImplicitAutograd): nll_loss, nll_loss2d, nll_loss_nd, cross_entropy_loss,
 * l1_loss, multilabel_margin_loss, kl_div, hinge_embedding_loss, margin_ranking_loss,
 * cosine_embedding_loss, poisson_nll_loss, triplet_margin_loss, cosine_similarity and
 * pairwise_distance.
 *
 * Each is the sequence of operator calls torch's composite makes, through the dispatcher, so that
 * a call that records history holds torch's nodes (NllLossBackward0 after LogSoftmaxBackward0 for
 * cross_entropy, MeanBackward0 over AbsBackward0 for l1_loss, NormBackward1 for
 * pairwise_distance, ...) and every piece differentiates twice where its operator does. Argument
 * checks and their messages are torch's.
 *
 * Temporaries live in an arena released at the end: CALL(expr) evaluates expr only while every
 * earlier step succeeded, so a chain reads as torch's code does and stops at the first error.
 */
#include <math.h>
#include <string.h>

#include "autograd.h"
#include "iter.h"
#include "nn/loss.h"
#include "native.h"

enum { ARENA_MAX = 48 };

typedef struct arena {
    pt_tensor *t[ARENA_MAX];
    int n;
    bool failed;
} arena;

static pt_tensor *keep(arena *a, pt_tensor *t)
{
    if (!t) {
        a->failed = true;
        return NULL;
    }
    if (a->n == ARENA_MAX) { /* a programming error: the chains below are short */
        pt_tensor_release(t);
        PT_ERROR(PT_ERR_RUNTIME, "loss composite: too many temporaries");
        a->failed = true;
        return NULL;
    }
    a->t[a->n++] = t;
    return t;
}

#define CALL(expr) (A.failed ? NULL : keep(&A, (expr)))

/* The result r (owned by the arena) as a new reference in *ret; releases the arena. */
static pt_status finish(arena *a, pt_tensor *r, pt_tensor **ret)
{
    const bool ok = !a->failed && r;
    if (ok) pt_tensor_retain(r);
    for (int i = 0; i < a->n; i++) pt_tensor_release(a->t[i]);
    if (!ok) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* A failure of our own inside a chain: records the error, stops the chain. */
static void fail(arena *a) { a->failed = true; }

static const pt_scalar *dbl(pt_scalar *s, double v)
{
    *s = (pt_scalar){PT_SCALAR_FLOAT, 0, v, 0.0};
    return s;
}

static const pt_scalar *lng(pt_scalar *s, int64_t v)
{
    *s = (pt_scalar){PT_SCALAR_INT, v, 0.0, 0.0};
    return s;
}

static const pt_scalar ONE = {PT_SCALAR_INT, 1, 0.0, 0.0};

static pt_tensor *zeros_like(const pt_tensor *t)
{
    return pt_call_zeros_like(t, -1, -1, NULL, -1, -1);
}

static pt_status check_reduction(int64_t reduction)
{
    if (reduction < PT_LOSS_NONE || reduction > PT_LOSS_SUM)
        return PT_ERROR(PT_ERR_VALUE, "%lld is not a valid value for reduction",
                        (long long)reduction);
    return PT_OK;
}

/* torch's apply_loss_reduction: mean(), sum() or the loss itself (a new reference). */
static pt_tensor *apply_reduction(const pt_tensor *loss, int64_t reduction)
{
    if (reduction == PT_LOSS_MEAN) return pt_call_mean(loss, -1);
    if (reduction == PT_LOSS_SUM) return pt_call_sum(loss, -1);
    pt_tensor_retain((pt_tensor *)loss);
    return (pt_tensor *)loss;
}

static const char *fmt(char *buf, size_t cap, const pt_tensor *t)
{
    return pt_format_ints(buf, cap, t->ndim, t->sizes);
}

/* ---------------------------------------------------------------- nll_loss, cross_entropy */

static pt_status first_of_two(pt_status st, pt_tensor *r0, pt_tensor *r1, pt_tensor **ret)
{
    if (st != PT_OK) return st;
    pt_tensor_release(r1);
    *ret = r0;
    return PT_OK;
}

pt_status pt_native_nll_loss(const pt_tensor *self, const pt_tensor *target,
                             const pt_tensor *weight, int64_t reduction, int64_t ignore_index,
                             pt_tensor **ret)
{
    pt_tensor *r0 = NULL, *r1 = NULL;
    const pt_status st = pt_call_nll_loss_forward(self, target, weight, reduction, ignore_index,
                                                  &r0, &r1);
    return first_of_two(st, r0, r1, ret);
}

pt_status pt_native_nll_loss2d(const pt_tensor *self, const pt_tensor *target,
                               const pt_tensor *weight, int64_t reduction, int64_t ignore_index,
                               pt_tensor **ret)
{
    pt_tensor *r0 = NULL, *r1 = NULL;
    const pt_status st = pt_call_nll_loss2d_forward(self, target, weight, reduction, ignore_index,
                                                    &r0, &r1);
    return first_of_two(st, r0, r1, ret);
}

/* Inputs of 3 or more than 4 dims are viewed as [N, C, 1, rest] for nll_loss2d and the
 * unreduced loss viewed back as [N, d1, ..., dk], as torch's nll_loss_nd does. */
pt_status pt_native_nll_loss_nd(const pt_tensor *self, const pt_tensor *target,
                                const pt_tensor *weight, int64_t reduction, int64_t ignore_index,
                                pt_tensor **ret)
{
    if (self->ndim < 1)
        return PT_ERROR(PT_ERR_VALUE, "Expected 1 or more dimensions (got %d)", (int)self->ndim);
    if (self->ndim != 1 && target->ndim < 1)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    if (self->ndim != 1 && self->sizes[0] != target->sizes[0])
        return PT_ERROR(PT_ERR_VALUE, "Expected input batch_size (%lld) to match target "
                        "batch_size (%lld).", (long long)self->sizes[0],
                        (long long)target->sizes[0]);
    if (self->ndim <= 2) return pt_native_nll_loss(self, target, weight, reduction, ignore_index,
                                                   ret);
    if (self->ndim == 4) return pt_native_nll_loss2d(self, target, weight, reduction,
                                                     ignore_index, ret);
    const int64_t n = self->sizes[0], c = self->sizes[1];
    int64_t out_sizes[PT_MAX_DIMS];
    out_sizes[0] = n;
    for (int32_t d = 2; d < self->ndim; d++) out_sizes[d - 1] = self->sizes[d];
    const int32_t out_nd = self->ndim - 1;
    const bool same = target->ndim == out_nd &&
                      memcmp(target->sizes + 1, out_sizes + 1,
                             sizeof(int64_t) * (size_t)(out_nd - 1)) == 0;
    if (!same) {
        char a[160], b[160];
        return PT_ERROR(PT_ERR_RUNTIME, "Expected target size %s, got %s",
                        pt_format_ints(a, sizeof a, out_nd, out_sizes), fmt(b, sizeof b, target));
    }
    arena A = {0};
    const bool empty = pt_tensor_numel(self) == 0;
    const int64_t in_view[4] = {n, c, empty ? 0 : 1, empty ? 0 : -1};
    const int64_t t_view[3] = {n, empty ? 0 : 1, empty ? 0 : -1};
    pt_tensor *in = CALL(pt_call_contiguous(self, -1));
    pt_tensor *tg = CALL(pt_call_contiguous(target, -1));
    in = CALL(pt_call_view(in, 4, in_view));
    tg = CALL(pt_call_view(tg, 3, t_view));
    pt_tensor *r = CALL(pt_call_nll_loss2d(in, tg, weight, reduction, ignore_index));
    if (reduction == PT_LOSS_NONE) r = CALL(pt_call_view(r, out_nd, out_sizes));
    return finish(&A, r, ret);
}

/* weight viewed as [1, C, 1, ...] against an input of nd dims (class dim 1). */
static pt_tensor *weight_view(const pt_tensor *weight, int32_t nd, int32_t class_dim)
{
    int64_t shape[PT_MAX_DIMS];
    for (int32_t d = 0; d < nd; d++) shape[d] = 1;
    shape[class_dim] = weight->sizes[0];
    return pt_call_view(weight, nd, shape);
}

static pt_status check_class_weight(const pt_tensor *weight, int64_t n_classes)
{
    if (!weight || (weight->ndim == 1 && weight->sizes[0] == n_classes)) return PT_OK;
    char a[128];
    return PT_ERROR(PT_ERR_RUNTIME, "cross_entropy: weight tensor should be defined either for all "
                    "%lld classes or no classes but got weight tensor of shape: %s",
                    (long long)n_classes, fmt(a, sizeof a, weight));
}

/* Probabilities as targets: -(log_softmax(x) * target [* weight]) summed over classes. */
static pt_status ce_prob_target(const pt_tensor *self, const pt_tensor *target,
                                const pt_tensor *weight, int64_t reduction,
                                double label_smoothing, pt_tensor **ret)
{
    const int32_t class_dim = self->ndim == 1 ? 0 : 1;
    const int64_t n_classes = self->sizes[class_dim];
    PT_TRY(check_class_weight(weight, n_classes));
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *input = CALL(pt_call_log_softmax_int(self, class_dim, self->dtype));
    const pt_tensor *tgt = target;
    if (label_smoothing > 0.0) {
        pt_tensor *scaled = CALL(pt_call_mul_Scalar(target, dbl(&s1, 1 - label_smoothing)));
        tgt = CALL(pt_call_add_Scalar(scaled, dbl(&s2, label_smoothing / (double)n_classes),
                                      &ONE));
    }
    pt_tensor *prod = CALL(pt_call_mul_Tensor(input, tgt));
    if (weight) {
        pt_tensor *w = input && input->ndim > 1 ? CALL(weight_view(weight, input->ndim, 1))
                                                : (pt_tensor *)weight;
        prod = CALL(pt_call_mul_Tensor(prod, w));
    }
    pt_tensor *r = NULL;
    if (reduction == PT_LOSS_NONE) {
        const int64_t dim = class_dim;
        r = CALL(pt_call_sum_dim_IntList(prod, 1, &dim, 0, -1));
        r = CALL(pt_call_neg(r));
    } else {
        r = CALL(pt_call_sum(prod, -1));
        r = CALL(pt_call_neg(r));
        if (reduction == PT_LOSS_MEAN && !A.failed) {
            const int64_t numel = pt_tensor_numel(input);
            if (numel == 0) {
                r = CALL(pt_call_fill__Scalar(r, dbl(&s1, NAN)));
            } else {
                r = CALL(pt_call_div_Scalar(r, lng(&s1, numel / n_classes)));
            }
        }
    }
    return finish(&A, r, ret);
}

/* Class targets with label smoothing: (1 - ls) * nll + ls / C * the smoothing loss. */
static pt_status ce_label_smoothing(const pt_tensor *self, const pt_tensor *target,
                                    const pt_tensor *weight, int64_t reduction,
                                    int64_t ignore_index, double label_smoothing,
                                    pt_tensor **ret)
{
    const int32_t class_dim = self->ndim == 1 ? 0 : 1;
    const int64_t n_classes = self->sizes[class_dim], cd = class_dim;
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *input = CALL(pt_call_log_softmax_int(self, class_dim, self->dtype));
    pt_tensor *nll = CALL(pt_call_nll_loss_nd(input, target, weight, reduction, ignore_index));
    pt_tensor *smooth;
    if (weight) {
        pt_tensor *w = CALL(weight_view(weight, self->ndim, class_dim));
        pt_tensor *prod = CALL(pt_call_mul_Tensor(input, w));
        smooth = CALL(pt_call_sum_dim_IntList(prod, 1, &cd, 0, -1));
    } else {
        smooth = CALL(pt_call_sum_dim_IntList(input, 1, &cd, 0, -1));
    }
    smooth = CALL(pt_call_neg(smooth));
    pt_tensor *mask = CALL(pt_call_eq_Scalar(target, lng(&s1, ignore_index)));
    smooth = CALL(pt_call_masked_fill__Scalar(smooth, mask, dbl(&s1, 0.0)));
    pt_tensor *r = smooth;
    if (reduction == PT_LOSS_MEAN) {
        pt_tensor *total = CALL(pt_call_sum(smooth, -1));
        pt_tensor *keep_mask = CALL(pt_call_logical_not(mask));
        pt_tensor *den;
        if (weight) {
            pt_tensor *kept = CALL(pt_call_masked_select(target, keep_mask));
            kept = CALL(pt_call_flatten_using_ints(kept, 0, -1));
            pt_tensor *wt = CALL(pt_call_gather(weight, 0, kept, 0));
            den = CALL(pt_call_sum(wt, -1));
        } else {
            den = CALL(pt_call_sum(keep_mask, -1));
        }
        r = CALL(pt_call_div_Tensor(total, den));
    } else if (reduction == PT_LOSS_SUM) {
        r = CALL(pt_call_sum(smooth, -1));
    }
    pt_tensor *a = CALL(pt_call_mul_Scalar(nll, dbl(&s1, 1 - label_smoothing)));
    pt_tensor *b = CALL(pt_call_mul_Scalar(r, dbl(&s2, label_smoothing / (double)n_classes)));
    pt_tensor *sum = CALL(pt_call_add_Tensor(a, b, &ONE));
    return finish(&A, sum, ret);
}

pt_status pt_native_cross_entropy_loss(const pt_tensor *self, const pt_tensor *target,
                                       const pt_tensor *weight, int64_t reduction,
                                       int64_t ignore_index, double label_smoothing,
                                       pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    const bool same = self->ndim == target->ndim &&
                      memcmp(self->sizes, target->sizes, sizeof(int64_t) * (size_t)self->ndim) == 0;
    if (same) {
        if (!pt_is_floating(target->dtype))
            return PT_ERROR(PT_ERR_RUNTIME, "Expected floating point type for target with class "
                            "probabilities, got %s", pt_iter_type_name(target->dtype));
        if (ignore_index >= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "ignore_index is not supported for floating point "
                            "target");
    }
    if (label_smoothing < 0.0 || label_smoothing > 1.0)
        return PT_ERROR(PT_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: %g",
                        label_smoothing);
    if (self->ndim < 1)
        return PT_ERROR(PT_ERR_VALUE, "Expected 1 or more dimensions (got %d)", (int)self->ndim);
    if (same) return ce_prob_target(self, target, weight, reduction, label_smoothing, ret);
    if (label_smoothing > 0.0)
        return ce_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing,
                                  ret);
    arena A = {0};
    const int32_t class_dim = self->ndim == 1 ? 0 : 1;
    pt_tensor *input = CALL(pt_call_log_softmax_int(self, class_dim, self->dtype));
    pt_tensor *r = CALL(pt_call_nll_loss_nd(input, target, weight, reduction, ignore_index));
    return finish(&A, r, ret);
}

/* ---------------------------------------------------------------- pointwise compositions */

pt_status pt_native_l1_loss(const pt_tensor *self, const pt_tensor *target, int64_t reduction,
                            pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    arena A = {0};
    pt_tensor *d = CALL(pt_call_sub_Tensor(self, target, &ONE));
    d = CALL(pt_call_abs(d));
    pt_tensor *r = CALL(apply_reduction(d, reduction));
    return finish(&A, r, ret);
}

pt_status pt_native_multilabel_margin_loss(const pt_tensor *self, const pt_tensor *target,
                                           int64_t reduction, pt_tensor **ret)
{
    pt_tensor *r0 = NULL, *r1 = NULL;
    const pt_status st = pt_call_multilabel_margin_loss_forward(self, target, reduction, &r0, &r1);
    return first_of_two(st, r0, r1, ret);
}

static bool integral(int32_t dtype) { return !pt_is_floating(dtype) && !pt_is_complex(dtype); }

pt_status pt_native_kl_div(const pt_tensor *self, const pt_tensor *target, int64_t reduction,
                           int32_t log_target, pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    if (pt_is_complex(self->dtype) || pt_is_complex(target->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "kl_div: Complex inputs not supported.");
    if (integral(self->dtype) || integral(target->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "kl_div: Integral inputs not supported.");
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *out;
    if (log_target) {
        pt_tensor *e = CALL(pt_call_exp(target));
        pt_tensor *d = CALL(pt_call_sub_Tensor(target, self, &ONE));
        out = CALL(pt_call_mul_Tensor(e, d));
    } else {
        /* xlogy(target, target): 0 where target is 0 (log of 1 there keeps the gradient finite) */
        pt_tensor *zero = CALL(pt_call_eq_Scalar(target, lng(&s1, 0)));
        pt_tensor *safe = CALL(pt_call_masked_fill_Scalar(target, zero, dbl(&s2, 1.0)));
        pt_tensor *lg = CALL(pt_call_log(safe));
        pt_tensor *xl = CALL(pt_call_mul_Tensor(target, lg));
        pt_tensor *ti = CALL(pt_call_mul_Tensor(target, self));
        out = CALL(pt_call_sub_Tensor(xl, ti, &ONE));
    }
    pt_tensor *r = CALL(apply_reduction(out, reduction));
    return finish(&A, r, ret);
}

pt_status pt_native_hinge_embedding_loss(const pt_tensor *self, const pt_tensor *target,
                                         double margin, int64_t reduction, pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *zeros = CALL(zeros_like(self));
    pt_tensor *mc = CALL(pt_call_rsub_Scalar(self, dbl(&s1, margin), &ONE));
    mc = CALL(pt_call_clamp_min_(mc, lng(&s2, 0)));
    pt_tensor *not_pos = CALL(pt_call_ne_Scalar(target, lng(&s1, 1)));
    pt_tensor *om = CALL(pt_call_where_self(not_pos, mc, zeros));
    pt_tensor *not_neg = CALL(pt_call_ne_Scalar(target, lng(&s1, -1)));
    pt_tensor *os = CALL(pt_call_where_self(not_neg, self, zeros));
    pt_tensor *out = CALL(pt_call_add_Tensor(om, os, &ONE));
    pt_tensor *r = CALL(apply_reduction(out, reduction));
    return finish(&A, r, ret);
}

pt_status pt_native_margin_ranking_loss(const pt_tensor *input1, const pt_tensor *input2,
                                        const pt_tensor *target, double margin, int64_t reduction,
                                        pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *nt = CALL(pt_call_neg(target));
    pt_tensor *d = CALL(pt_call_sub_Tensor(input1, input2, &ONE));
    pt_tensor *out = CALL(pt_call_mul_Tensor(nt, d));
    out = CALL(pt_call_add_Scalar(out, dbl(&s1, margin), &ONE));
    out = CALL(pt_call_clamp_min_(out, lng(&s2, 0)));
    pt_tensor *r = CALL(apply_reduction(out, reduction));
    return finish(&A, r, ret);
}

pt_status pt_native_cosine_embedding_loss(const pt_tensor *input1, const pt_tensor *input2,
                                          const pt_tensor *target, double margin,
                                          int64_t reduction, pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    const int32_t td = target->ndim;
    char a[128], b[128];
    if (td != 0 && td != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not "
                        "supported");
    if (td == 1 && (input1->ndim != 2 || input2->ndim != 2))
        return PT_ERROR(PT_ERR_RUNTIME, "1D target tensor expects 2D input tensors, but found "
                        "inputs with sizes %s and %s.", fmt(a, sizeof a, input1),
                        fmt(b, sizeof b, input2));
    if (td == 0 && (input1->ndim != 1 || input2->ndim != 1))
        return PT_ERROR(PT_ERR_RUNTIME, "0D target tensor expects 1D input tensors, but found "
                        "inputs with sizes %s and %s.", fmt(a, sizeof a, input1),
                        fmt(b, sizeof b, input2));
    arena A = {0};
    pt_scalar s1, s2;
    const int64_t dim = td;
    const double eps = 1e-12;
    pt_tensor *p12 = CALL(pt_call_mul_Tensor(input1, input2));
    pt_tensor *prod_sum = CALL(pt_call_sum_dim_IntList(p12, 1, &dim, 0, -1));
    pt_tensor *p11 = CALL(pt_call_mul_Tensor(input1, input1));
    pt_tensor *m1 = CALL(pt_call_sum_dim_IntList(p11, 1, &dim, 0, -1));
    m1 = CALL(pt_call_add_Scalar(m1, dbl(&s1, eps), &ONE));
    pt_tensor *p22 = CALL(pt_call_mul_Tensor(input2, input2));
    pt_tensor *m2 = CALL(pt_call_sum_dim_IntList(p22, 1, &dim, 0, -1));
    m2 = CALL(pt_call_add_Scalar(m2, dbl(&s1, eps), &ONE));
    pt_tensor *den = CALL(pt_call_mul_Tensor(m1, m2));
    den = CALL(pt_call_sqrt_(den));
    pt_tensor *cos = CALL(pt_call_div_Tensor(prod_sum, den));
    pt_tensor *zeros = CALL(zeros_like(cos));
    pt_tensor *pos = CALL(pt_call_rsub_Scalar(cos, lng(&s1, 1), &ONE));
    pt_tensor *neg = CALL(pt_call_sub_Scalar(cos, dbl(&s1, margin), &ONE));
    neg = CALL(pt_call_clamp_min_(neg, lng(&s2, 0)));
    pt_tensor *is_pos = CALL(pt_call_eq_Scalar(target, lng(&s1, 1)));
    pt_tensor *is_neg = CALL(pt_call_eq_Scalar(target, lng(&s2, -1)));
    pt_tensor *op = CALL(pt_call_where_self(is_pos, pos, zeros));
    pt_tensor *on = CALL(pt_call_where_self(is_neg, neg, zeros));
    pt_tensor *out = CALL(pt_call_add_Tensor(op, on, &ONE));
    pt_tensor *r = CALL(apply_reduction(out, reduction));
    return finish(&A, r, ret);
}

pt_status pt_native_poisson_nll_loss(const pt_tensor *input, const pt_tensor *target,
                                     int32_t log_input, int32_t full, double eps,
                                     int64_t reduction, pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *loss;
    if (log_input) {
        pt_tensor *e = CALL(pt_call_exp(input));
        pt_tensor *ti = CALL(pt_call_mul_Tensor(target, input));
        loss = CALL(pt_call_sub_Tensor(e, ti, &ONE));
    } else {
        pt_tensor *ie = CALL(pt_call_add_Scalar(input, dbl(&s1, eps), &ONE));
        pt_tensor *lg = CALL(pt_call_log(ie));
        pt_tensor *tl = CALL(pt_call_mul_Tensor(target, lg));
        loss = CALL(pt_call_sub_Tensor(input, tl, &ONE));
    }
    if (full) {
        /* Stirling: target log(target) - target + 0.5 log(2 pi target), 0 where target <= 1 */
        pt_tensor *lt = CALL(pt_call_log(target));
        pt_tensor *tlt = CALL(pt_call_mul_Tensor(target, lt));
        pt_tensor *st = CALL(pt_call_sub_Tensor(tlt, target, &ONE));
        pt_tensor *tp = CALL(pt_call_mul_Scalar(target, dbl(&s1, 2 * M_PI)));
        pt_tensor *ltp = CALL(pt_call_log(tp));
        pt_tensor *half = CALL(pt_call_mul_Scalar(ltp, dbl(&s2, 0.5)));
        st = CALL(pt_call_add_Tensor(st, half, &ONE));
        pt_tensor *small = CALL(pt_call_le_Scalar(target, lng(&s1, 1)));
        st = CALL(pt_call_masked_fill_Scalar(st, small, lng(&s2, 0)));
        loss = CALL(pt_call_add_Tensor(loss, st, &ONE));
    }
    pt_tensor *r = CALL(apply_reduction(loss, reduction));
    return finish(&A, r, ret);
}

/* ---------------------------------------------------------------- distances */

pt_status pt_native_pairwise_distance(const pt_tensor *x1, const pt_tensor *x2, double p,
                                      double eps, int32_t keepdim, pt_tensor **ret)
{
    const int32_t out_dim = x1->ndim > x2->ndim ? x1->ndim : x2->ndim;
    const int64_t inner = out_dim - 1;
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *d = CALL(pt_call_sub_Tensor(x1, x2, &ONE));
    d = CALL(pt_call_add_Scalar(d, dbl(&s1, eps), &ONE));
    pt_tensor *r = CALL(pt_call_norm_ScalarOpt_dim(d, dbl(&s2, p), 1, &inner, keepdim));
    return finish(&A, r, ret);
}

pt_status pt_native_triplet_margin_loss(const pt_tensor *anchor, const pt_tensor *positive,
                                        const pt_tensor *negative, double margin, double p,
                                        double eps, int32_t swap, int64_t reduction,
                                        pt_tensor **ret)
{
    PT_TRY(check_reduction(reduction));
    if (anchor->ndim != positive->ndim || positive->ndim != negative->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "The anchor, positive, and negative tensors are expected "
                        "to have the same number of dimensions, but got: anchor %dD, positive %dD, "
                        "and negative %dD inputs", (int)anchor->ndim, (int)positive->ndim,
                        (int)negative->ndim);
    arena A = {0};
    pt_scalar s1, s2;
    pt_tensor *dp = CALL(pt_call_pairwise_distance(anchor, positive, p, eps, 0));
    pt_tensor *dn = CALL(pt_call_pairwise_distance(anchor, negative, p, eps, 0));
    if (swap) {
        pt_tensor *ds = CALL(pt_call_pairwise_distance(positive, negative, p, eps, 0));
        dn = CALL(pt_call_min_other(dn, ds));
    }
    pt_tensor *out = CALL(pt_call_add_Scalar(dp, dbl(&s1, margin), &ONE));
    out = CALL(pt_call_sub_Tensor(out, dn, &ONE));
    out = CALL(pt_call_clamp_min(out, lng(&s2, 0)));
    pt_tensor *r = CALL(apply_reduction(out, reduction));
    return finish(&A, r, ret);
}

/* Each input divided by its norm (clamped at eps outside autograd, as torch) before the product,
 * which keeps the result within [-1, 1]. Integer inputs are converted to the common floating
 * dtype; the inputs are broadcast to one shape. */
pt_status pt_native_cosine_similarity(const pt_tensor *x1, const pt_tensor *x2, int64_t dim,
                                      double eps, pt_tensor **ret)
{
    pt_tensor *both[2] = {(pt_tensor *)x1, (pt_tensor *)x2};
    int32_t common;
    PT_TRY(pt_result_type(2, both, &common));
    if (!pt_is_floating(common))
        return PT_ERROR(PT_ERR_RUNTIME, "expected common dtype to be floating point, yet common "
                        "dtype is %s", pt_iter_type_name(common));
    arena A = {0};
    pt_scalar s1;
    const pt_tensor *a = x1, *b = x2;
    if (integral(a->dtype)) a = CALL(pt_call_to_dtype(a, common, 0, 0, -1));
    if (integral(b->dtype)) b = CALL(pt_call_to_dtype(b, common, 0, 0, -1));
    if (A.failed) return finish(&A, NULL, ret);
    int32_t nd;
    int64_t shape[PT_MAX_DIMS];
    if (pt_broadcast_sizes(a->ndim, a->sizes, b->ndim, b->sizes, &nd, shape) != PT_OK) fail(&A);
    if (!A.failed && (a->ndim != nd || memcmp(a->sizes, shape, sizeof(int64_t) * (size_t)nd)))
        a = CALL(pt_call_expand(a, nd, shape, 0));
    if (!A.failed && (b->ndim != nd || memcmp(b->sizes, shape, sizeof(int64_t) * (size_t)nd)))
        b = CALL(pt_call_expand(b, nd, shape, 0));
    pt_tensor *n1 = CALL(pt_call_linalg_vector_norm(a, lng(&s1, 2), 1, &dim, 1, -1));
    n1 = CALL(pt_call_clone(n1, -1));
    pt_tensor *n2 = CALL(pt_call_linalg_vector_norm(b, lng(&s1, 2), 1, &dim, 1, -1));
    n2 = CALL(pt_call_clone(n2, -1));
    if (!A.failed) {
        const int32_t was = pt_autograd_is_grad_enabled();
        pt_autograd_set_grad_enabled(0);
        if (!pt_call_clamp_min_(n1, dbl(&s1, eps)) || !pt_call_clamp_min_(n2, dbl(&s1, eps)))
            fail(&A);
        pt_autograd_set_grad_enabled(was);
    }
    pt_tensor *q1 = CALL(pt_call_div_Tensor(a, n1));
    pt_tensor *q2 = CALL(pt_call_div_Tensor(b, n2));
    pt_tensor *pr = CALL(pt_call_mul_Tensor(q1, q2));
    pt_tensor *r = CALL(pt_call_sum_dim_IntList(pr, 1, &dim, 0, -1));
    return finish(&A, r, ret);
}
