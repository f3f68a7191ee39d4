/* ctc_composite.c - ctc_loss, the composition torch writes over _ctc_loss
 * (CompositeImplicitAutograd), for lengths given as int lists or as tensors.
 *
 * A [T, C] input (one unbatched sample) is viewed as [T, 1, C]; the per-sample losses of
 * _ctc_loss are, with zero_infinity, passed through where(loss == inf, 0, loss); 'mean' divides
 * each by its target length clamped to 1 and averages, 'sum' sums, and otherwise (any other
 * reduction value, as torch) the losses are returned, squeezed back for an unbatched input. The
 * steps are operator calls through the dispatcher, so that a recorded graph holds torch's nodes:
 * MeanBackward0 over DivBackward0 (over WhereBackward0) over CtcLossBackward0. Tensor lengths are
 * read into int lists first, so both overloads record the IntList form's node, as torch's do.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "iter.h"
#include "native.h"

enum { CTC_MEAN = 1, CTC_SUM = 2 };

/* A tensor result of an operator call as a status: NULL means the call failed. */
static pt_status got(pt_tensor *t, pt_tensor **out)
{
    *out = t;
    if (t) return PT_OK;
    return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
}

static void drop(pt_tensor **t)
{
    if (*t) pt_tensor_release(*t);
    *t = NULL;
}

/* loss / max(target_length, 1), averaged. */
static pt_status mean_over_lengths(pt_tensor *loss, int32_t n, const int64_t *tl, pt_tensor **ret)
{
    pt_tensor *lengths = NULL, *q = NULL;
    const int64_t size = n;
    PT_TRY(pt_tensor_empty(1, &size, loss->dtype, loss->device, &lengths));
    for (int32_t i = 0; i < n; i++) {
        const double v = tl[i] > 1 ? (double)tl[i] : 1.0;
        if (loss->dtype == PT_FLOAT64) ((double *)pt_tensor_data(lengths))[i] = v;
        else ((float *)pt_tensor_data(lengths))[i] = (float)v;
    }
    pt_status st = got(pt_call_div_Tensor(loss, lengths), &q);
    if (st == PT_OK) st = got(pt_call_mean(q, -1), ret);
    drop(&lengths);
    drop(&q);
    return st;
}

static pt_status zero_infinite(pt_tensor **loss)
{
    const pt_scalar inf = {PT_SCALAR_FLOAT, 0, INFINITY, 0.0};
    pt_tensor *mask = NULL, *zero = NULL, *r = NULL;
    pt_status st = got(pt_call_eq_Scalar(*loss, &inf), &mask);
    if (st == PT_OK)
        st = got(pt_call_zeros(0, NULL, (*loss)->dtype, -1, &(*loss)->device, -1), &zero);
    if (st == PT_OK) st = got(pt_call_where_self(mask, zero, *loss), &r);
    drop(&mask);
    drop(&zero);
    if (st != PT_OK) return st;
    drop(loss);
    *loss = r;
    return PT_OK;
}

pt_status pt_native_ctc_loss(const pt_tensor *log_probs, const pt_tensor *targets,
                             int32_t il_len, const int64_t *il, int32_t tl_len, const int64_t *tl,
                             int64_t blank, int64_t reduction, int32_t zero_infinity,
                             pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(log_probs, "ctc_loss", "log_probs"));
    PT_TRY(pt_iter_check_operand(targets, "ctc_loss", "targets"));
    const bool batched = log_probs->ndim == 3;
    pt_tensor *lp = NULL, *tg = NULL, *loss = NULL, *alpha = NULL;
    pt_status st;
    if (batched) {
        pt_tensor_retain((pt_tensor *)log_probs);
        lp = (pt_tensor *)log_probs;
        st = PT_OK;
    } else {
        st = got(pt_call_unsqueeze(log_probs, 1), &lp);
    }
    if (st == PT_OK) st = got(pt_call_to_dtype(targets, PT_INT64, 0, 0, -1), &tg);
    if (st == PT_OK)
        st = pt_call__ctc_loss(lp, tg, il_len, il, tl_len, tl, blank, zero_infinity, &loss,
                               &alpha);
    drop(&lp);
    drop(&tg);
    drop(&alpha);
    if (st == PT_OK && zero_infinity) st = zero_infinite(&loss);
    if (st != PT_OK) {
        drop(&loss);
        return st;
    }
    if (reduction == CTC_MEAN) {
        st = mean_over_lengths(loss, tl_len, tl, ret);
    } else if (reduction == CTC_SUM) {
        st = got(pt_call_sum(loss, -1), ret);
    } else if (!batched) {
        st = got(pt_call_squeeze_dim(loss, 0), ret);
    } else {
        pt_tensor_retain(loss);
        *ret = loss;
    }
    drop(&loss);
    return st;
}

static pt_status read_lengths(const pt_tensor *t, const char *name, pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(t, "ctc_loss", name));
    if (!pt_is_integral(t->dtype, false))
        return PT_ERROR(PT_ERR_RUNTIME, "%s must be integral", name);
    pt_tensor *tmp = NULL;
    PT_TRY(pt_tensor_to(t, PT_INT64, t->device, 0, &tmp));
    const pt_status st = pt_tensor_contiguous(tmp, out);
    pt_tensor_release(tmp);
    if (st == PT_OK && pt_tensor_numel(*out) > INT32_MAX) {
        drop(out);
        return PT_ERROR(PT_ERR_RUNTIME, "ctc_loss: %s has too many elements", name);
    }
    return st;
}

pt_status pt_native_ctc_loss_tensor(const pt_tensor *log_probs, const pt_tensor *targets,
                                    const pt_tensor *input_lengths, const pt_tensor *target_lengths,
                                    int64_t blank, int64_t reduction, int32_t zero_infinity,
                                    pt_tensor **ret)
{
    pt_tensor *il = NULL, *tl = NULL;
    pt_status st = read_lengths(input_lengths, "input_lengths", &il);
    if (st == PT_OK) st = read_lengths(target_lengths, "target_lengths", &tl);
    if (st == PT_OK)
        st = pt_native_ctc_loss(log_probs, targets, (int32_t)pt_tensor_numel(il),
                                pt_tensor_data(il), (int32_t)pt_tensor_numel(tl),
                                pt_tensor_data(tl), blank, reduction, zero_infinity, ret);
    drop(&il);
    drop(&tl);
    return st;
}
