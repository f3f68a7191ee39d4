/* ctc.c - the connectionist temporal classification loss: _ctc_loss (the negative log likelihood
 * of each sample and the log_alpha table its backward reads) and _ctc_loss_backward, each with
 * lengths given as int lists or as tensors, as torch's CPU kernels compute them.
 *
 * log_probs is [T, N, C] (time, batch, classes); the targets of sample b are either row b of a
 * padded [N, S] tensor or the b-th run of a 1-D tensor holding all targets end to end. A target
 * sequence l of length L is extended with blanks, l' = (blank, l1, blank, l2, ..., lL, blank),
 * 2L + 1 symbols. The forward (alpha) recursion, in log space:
 *     alpha[0][0] = lp[0][blank], alpha[0][1] = lp[0][l1], alpha[0][s > 1] = -inf
 *     alpha[t][s] = logsumexp(alpha[t-1][s], alpha[t-1][s-1], alpha[t-1][s-2] if l'[s] differs
 *                   from l'[s-2]) + lp[t][l'[s]]
 * and the loss is -logsumexp(alpha[T_b-1][2L], alpha[T_b-1][2L-1]) (T_b the sample's input
 * length; +inf when no alignment fits, e.g. a target longer than its input). The backward runs
 * the mirrored beta recursion from T_b - 1 down, gathers for each (t, class c) the log of the
 * sum of alpha[t][s] * beta[t][s] over the positions s with l'[s] = c, and writes
 *     grad[t][b][c] = (exp(lp) - exp(gathered + nll - lp)) * grad_out[b]
 * for t < T_b and 0 past it; zero_infinity gives a sample whose loss is inf a zero gradient.
 *
 * Samples are independent: the batch is split across OpenMP threads, whole samples per chunk,
 * above CTC_GRAIN cells of the recursion. The recursions run in the input's dtype (float32 or
 * float64, as torch's: it has no reduced-precision CPU kernel), one time step at a time through
 * the vectorized step of cpu/nn_ctc_kernels.c; beta runs over the labels in reverse order (so
 * that it is the same step) and keeps two rows per sample in scratch allocated before the
 * parallel region. The gather of alpha * beta into the classes stays here, scalar. Every check
 * and its message is torch's (ctc_loss_allocate_outputs), in torch's order; a target outside
 * [0, C), which torch's kernel reads past log_probs for, is refused here.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "nn/ctc.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(nn_ctc, pt_ctc_table, "ctc loss recursion steps and gradient (float32, float64)")

/* Note [ctc grain]
 * One cell of either recursion costs three exps and a log (~20-40 ns), so a chunk of 4096 cells
 * is ~100 us: below that a parallel region's wake-up cost is a large share of the work. */
enum { CTC_GRAIN = 4096 };

static const char *const CHECKED = "ctc_loss_allocate_outputs";

typedef struct ctc {
    int64_t T, N, C, blank, max_tl;
    const int64_t *il, *tl; /* N each */
    int64_t *tg_off;        /* offset of sample b's first target in tg (malloc'ed, N) */
    const int64_t *tg;      /* the targets, contiguous int64 */
    pt_tensor *lp, *tgt;    /* contiguous copies (owned) */
    int64_t cells;          /* the recursion's cells over the batch, for the grain */
} ctc;

static void ctc_release(ctc *p)
{
    free(p->tg_off);
    if (p->lp) pt_tensor_release(p->lp);
    if (p->tgt) pt_tensor_release(p->tgt);
}

static const char *legacy_name(int32_t dtype)
{
    switch (dtype) {
    case PT_UINT8: return "Byte";
    case PT_INT8: return "Char";
    case PT_INT16: return "Short";
    case PT_INT32: return "Int";
    case PT_INT64: return "Long";
    case PT_FLOAT16: return "Half";
    case PT_FLOAT32: return "Float";
    case PT_FLOAT64: return "Double";
    case PT_BOOL: return "Bool";
    case PT_BFLOAT16: return "BFloat16";
    case PT_COMPLEX64: return "ComplexFloat";
    case PT_COMPLEX128: return "ComplexDouble";
    default: return pt_iter_type_name(dtype);
    }
}

/* torch's checks of ctc_loss_allocate_outputs, in its order, then ours of the target values. */
static pt_status plan(ctc *p, const char *kname, const pt_tensor *log_probs,
                      const pt_tensor *targets, int32_t il_len, const int64_t *il, int32_t tl_len,
                      const int64_t *tl, int64_t blank)
{
    memset(p, 0, sizeof *p);
    PT_TRY(pt_iter_check_operand(log_probs, "ctc_loss", "log_probs"));
    PT_TRY(pt_iter_check_operand(targets, "ctc_loss", "targets"));
    if (log_probs->dtype != PT_FLOAT32 && log_probs->dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kname,
                        pt_iter_type_name(log_probs->dtype));
    if (pt_tensor_numel(log_probs) == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "log_probs tensor must not be empty");
    if (targets->dtype != PT_INT64 && targets->dtype != PT_INT32)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor for argument #2 'targets' to have scalar "
                        "type Int; but got torch.%sTensor instead (while checking arguments for "
                        "%s)", legacy_name(targets->dtype), CHECKED);
    if (log_probs->ndim != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected 3-dimensional tensor, but got %d-dimensional "
                        "tensor for argument #1 'log_probs' (while checking arguments for %s)",
                        (int)log_probs->ndim, CHECKED);
    if (targets->ndim < 1 || targets->ndim > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected 1 to 2 dimensions, but got %d-dimensional "
                        "tensor for argument #2 'targets' (while checking arguments for %s)",
                        (int)targets->ndim, CHECKED);
    p->T = log_probs->sizes[0];
    p->N = log_probs->sizes[1];
    p->C = log_probs->sizes[2];
    p->blank = blank;
    p->il = il;
    p->tl = tl;
    if (blank < 0 || blank >= p->C)
        return PT_ERROR(PT_ERR_RUNTIME, "blank must be in label range");
    if (il_len != p->N) return PT_ERROR(PT_ERR_RUNTIME, "input_lengths must be of size batch_size");
    if (tl_len != p->N)
        return PT_ERROR(PT_ERR_RUNTIME, "target_lengths must be of size batch_size");
    p->tg_off = malloc(sizeof(int64_t) * (size_t)(p->N > 0 ? p->N : 1));
    if (!p->tg_off) return PT_ERROR(PT_ERR_MEMORY, "ctc_loss: out of memory");
    const bool concatenated = targets->ndim == 1;
    int64_t pos = 0;
    for (int64_t b = 0; b < p->N; b++) {
        if (tl[b] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Expected target_lengths to have value at least 0, "
                            "but got value %lld (while checking arguments for %s)",
                            (long long)tl[b], CHECKED);
        p->tg_off[b] = concatenated ? pos : b * (targets->ndim == 2 ? targets->sizes[1] : 0);
        pos += tl[b];
        if (tl[b] > p->max_tl) p->max_tl = tl[b];
    }
    const int64_t want = concatenated ? pos : p->N;
    if (targets->sizes[0] != want)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor to have size %lld at dimension 0, but got "
                        "size %lld for argument #2 'targets' (while checking arguments for %s)",
                        (long long)want, (long long)targets->sizes[0], CHECKED);
    if (!concatenated && targets->sizes[1] < p->max_tl)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor to have size at least %lld at dimension "
                        "1, but got size %lld for argument #2 'targets' (while checking arguments "
                        "for %s)", (long long)p->max_tl, (long long)targets->sizes[1], CHECKED);
    for (int64_t b = 0; b < p->N; b++) {
        if (il[b] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Expected input_lengths to have value at least 0, but "
                            "got value %lld (while checking arguments for %s)", (long long)il[b],
                            CHECKED);
        if (il[b] > p->T)
            return PT_ERROR(PT_ERR_RUNTIME, "Expected input_lengths to have value at most %lld, "
                            "but got value %lld (while checking arguments for %s)",
                            (long long)p->T, (long long)il[b], CHECKED);
        p->cells += il[b] * (2 * tl[b] + 1);
    }
    pt_tensor *tmp = NULL;
    pt_status st = pt_tensor_contiguous(log_probs, &p->lp);
    if (st == PT_OK) st = pt_tensor_to(targets, PT_INT64, targets->device, 0, &tmp);
    if (st == PT_OK) st = pt_tensor_contiguous(tmp, &p->tgt);
    if (tmp) pt_tensor_release(tmp);
    if (st != PT_OK) return st;
    p->tg = pt_tensor_data(p->tgt);
    for (int64_t b = 0; b < p->N; b++)
        for (int64_t i = 0; i < tl[b]; i++) {
            const int64_t c = p->tg[p->tg_off[b] + i];
            if (c < 0 || c >= p->C)
                return PT_ERROR(PT_ERR_RUNTIME, "Expected targets to have values in [0, %lld), but "
                                "got value %lld (while checking arguments for %s)",
                                (long long)p->C, (long long)c, CHECKED);
        }
    return PT_OK;
}

/* Samples per chunk: enough that a chunk holds CTC_GRAIN cells on average. */
static int64_t sample_grain(const ctc *p)
{
    const int64_t per = p->N > 0 ? p->cells / p->N + 1 : 1;
    const int64_t g = CTC_GRAIN / per;
    return g < 1 ? 1 : g;
}

/* ---------------------------------------------------------------- the recursions */

/* Per-sample scratch, allocated once before the parallel region: the extended labels, their skip
 * flags forwards and in reverse order, one row of gathered log_probs and two rows of beta. */
typedef struct scratch {
    int64_t *ext;
    uint8_t *skip, *skip_r;
    char *emit, *beta;
    int64_t W, itemsize;
} scratch;

static void scratch_free(scratch *w)
{
    free(w->ext);
    free(w->skip);
    free(w->skip_r);
    free(w->emit);
    free(w->beta);
}

static pt_status scratch_alloc(scratch *w, int64_t N, int64_t W, int64_t itemsize, bool backward)
{
    memset(w, 0, sizeof *w);
    w->W = W;
    w->itemsize = itemsize;
    const size_t n = (size_t)(N > 0 ? N : 1) * (size_t)W;
    w->ext = malloc(n * sizeof(int64_t));
    w->skip = malloc(n);
    w->emit = malloc(n * (size_t)itemsize);
    if (backward) {
        w->skip_r = malloc(n);
        w->beta = malloc(2 * n * (size_t)itemsize);
    }
    if (!w->ext || !w->skip || !w->emit || (backward && (!w->skip_r || !w->beta))) {
        scratch_free(w);
        return PT_ERROR(PT_ERR_MEMORY, "ctc_loss: out of memory");
    }
    return PT_OK;
}

/* Sample b's extended labels (2 tl + 1 of them) and skip flags: s may be reached from s - 2
 * when l'[s] differs from l'[s - 2] (in reverse order: from r - 2 over the reversed labels). */
static void labels(const ctc *p, const scratch *w, int64_t b, int64_t **ext, uint8_t **skip,
                   uint8_t **skip_r)
{
    const int64_t S = 2 * p->tl[b] + 1;
    *ext = w->ext + b * w->W;
    *skip = w->skip + b * w->W;
    for (int64_t s = 0; s < S; s++) {
        (*ext)[s] = (s & 1) ? p->tg[p->tg_off[b] + s / 2] : p->blank;
        (*skip)[s] = s > 1 && (*ext)[s] != (*ext)[s - 2];
    }
    if (!skip_r) return;
    *skip_r = w->skip_r + b * w->W;
    for (int64_t r = 0; r < S; r++)
        (*skip_r)[r] = r > 1 && (*ext)[S - 1 - r] != (*ext)[S + 1 - r];
}

typedef struct job {
    const ctc *p;
    const scratch *w;
    const pt_ctc_table *k;
    void *nll, *alpha;   /* forward: [N], [N, T, W] */
    const void *g;       /* backward: grad_out [N] */
    const void *nll_in, *alpha_in;
    void *grad;          /* backward: [T, N, C] */
    int64_t W;           /* log_alpha's last size, >= 2 * max_tl + 1 */
    bool zero_infinity;
} job;

#define CTC_LOOPS(SUF, T_, K, EXP, LOG)                                                            \
    static void forward_##SUF(int64_t begin, int64_t end, void *ctx)                               \
    {                                                                                              \
        const job *j = ctx;                                                                        \
        const ctc *p = j->p;                                                                       \
        const T_ ninf = -(T_)INFINITY;                                                             \
        const T_ *lp = pt_tensor_data(p->lp);                                                      \
        for (int64_t b = begin; b < end; b++) {                                                    \
            const int64_t il = p->il[b], tl = p->tl[b], S = 2 * tl + 1;                            \
            T_ *la = (T_ *)j->alpha + b * p->T * j->W;                                             \
            T_ *nll = (T_ *)j->nll + b;                                                            \
            T_ *emit = (T_ *)j->w->emit + b * j->w->W;                                             \
            int64_t *ext;                                                                          \
            uint8_t *skip;                                                                         \
            labels(p, j->w, b, &ext, &skip, NULL);                                                 \
            for (int64_t i = 0; i < p->T * j->W; i++) la[i] = ninf;                                \
            if (il == 0) {                                                                         \
                *nll = tl == 0 ? -(T_)0 : (T_)INFINITY;                                            \
                continue;                                                                          \
            }                                                                                      \
            const T_ *row = lp + b * p->C;                                                         \
            la[0] = row[p->blank];                                                                 \
            if (tl > 0) la[1] = row[ext[1]];                                                       \
            for (int64_t t = 1; t < il; t++) {                                                     \
                row = lp + (t * p->N + b) * p->C;                                                  \
                for (int64_t s = 0; s < S; s++) emit[s] = row[ext[s]];                             \
                j->k->step[K](la + t * j->W, la + (t - 1) * j->W, emit, skip, S);                  \
            }                                                                                      \
            const T_ *last = la + (il - 1) * j->W;                                                 \
            const T_ l1 = last[2 * tl], l2 = tl > 0 ? last[2 * tl - 1] : ninf;                     \
            T_ m = l1 > l2 ? l1 : l2;                                                              \
            m = m == ninf ? 0 : m;                                                                 \
            *nll = -(LOG(EXP(l1 - m) + EXP(l2 - m)) + m);                                          \
        }                                                                                          \
    }                                                                                              \
    /* log(exp(acc) + exp(v)) where acc may be -inf (an empty sum) */                              \
    static inline T_ logadd_##SUF(T_ acc, T_ v)                                                    \
    {                                                                                              \
        if (acc == -(T_)INFINITY) return v;                                                        \
        const T_ m = acc > v ? acc : v;                                                            \
        return LOG(EXP(acc - m) + EXP(v - m)) + m;                                                 \
    }                                                                                              \
    static void backward_##SUF(int64_t begin, int64_t end, void *ctx)                              \
    {                                                                                              \
        const job *j = ctx;                                                                        \
        const ctc *p = j->p;                                                                       \
        const T_ ninf = -(T_)INFINITY;                                                             \
        const T_ *lp = pt_tensor_data(p->lp);                                                      \
        const int64_t W = j->W, C = p->C, N = p->N, SW = j->w->W;                                  \
        T_ *grad = j->grad;                                                                        \
        for (int64_t b = begin; b < end; b++) {                                                    \
            const int64_t il = p->il[b], tl = p->tl[b], S = 2 * tl + 1;                            \
            const T_ nll = ((const T_ *)j->nll_in)[b];                                             \
            const T_ gr = ((const T_ *)j->g)[b];                                                   \
            const T_ *la = (const T_ *)j->alpha_in + b * p->T * W;                                 \
            /* beta over the reversed labels: beta_r[r] is beta[S - 1 - r] */                      \
            T_ *rows = (T_ *)j->w->beta + b * 2 * SW;                                              \
            T_ *emit = (T_ *)j->w->emit + b * SW;                                                  \
            int64_t *ext;                                                                          \
            uint8_t *skip, *skip_r;                                                                \
            labels(p, j->w, b, &ext, &skip, &skip_r);                                              \
            const bool zero = j->zero_infinity && nll == (T_)INFINITY;                             \
            /* the gathered log sums live in grad's rows until the last pass turns them into */    \
            /* the gradient */                                                                     \
            for (int64_t t = 0; t < il && !zero; t++)                                              \
                for (int64_t c = 0; c < C; c++) grad[(t * N + b) * C + c] = ninf;                  \
            if (il > 0 && !zero) {                                                                 \
                const int64_t t = il - 1;                                                          \
                T_ *cur = rows + (t & 1) * SW;                                                     \
                T_ *g = grad + (t * N + b) * C;                                                    \
                const T_ *row = lp + (t * N + b) * C;                                              \
                for (int64_t r = 0; r < S; r++) cur[r] = ninf;                                     \
                cur[0] = row[p->blank];                                                            \
                g[p->blank] = la[t * W + 2 * tl] + cur[0];                                         \
                if (tl > 0) {                                                                      \
                    const int64_t c = ext[2 * tl - 1];                                             \
                    cur[1] = row[c];                                                               \
                    g[c] = la[t * W + 2 * tl - 1] + cur[1];                                        \
                }                                                                                  \
            }                                                                                      \
            for (int64_t t = il - 2; t >= 0 && !zero; t--) {                                       \
                T_ *cur = rows + (t & 1) * SW;                                                     \
                T_ *g = grad + (t * N + b) * C;                                                    \
                const T_ *row = lp + (t * N + b) * C;                                              \
                for (int64_t r = 0; r < S; r++) emit[r] = row[ext[S - 1 - r]];                     \
                j->k->step[K](cur, rows + ((t + 1) & 1) * SW, emit, skip_r, S);                    \
                const T_ *a = la + t * W;                                                          \
                for (int64_t s = S - 1; s >= 0; s--)                                               \
                    g[ext[s]] = logadd_##SUF(g[ext[s]], a[s] + cur[S - 1 - s]);                    \
            }                                                                                      \
            for (int64_t t = 0; t < p->T; t++) {                                                   \
                T_ *g = grad + (t * N + b) * C;                                                    \
                if (t >= il || zero) {                                                             \
                    for (int64_t c = 0; c < C; c++) g[c] = 0;                                      \
                    continue;                                                                      \
                }                                                                                  \
                j->k->finish[K](g, g, lp + (t * N + b) * C, (double)nll, (double)gr, C);           \
            }                                                                                      \
        }                                                                                          \
    }

CTC_LOOPS(f4, float, 0, expf, logf)
CTC_LOOPS(f8, double, 1, exp, log)

/* ---------------------------------------------------------------- forward */

static pt_status ctc_forward(const pt_tensor *log_probs, const pt_tensor *targets, int32_t il_len,
                             const int64_t *il, int32_t tl_len, const int64_t *tl, int64_t blank,
                             pt_tensor **ret0, pt_tensor **ret1)
{
    ctc p;
    scratch w = {0};
    pt_status st = plan(&p, "ctc_loss_cpu", log_probs, targets, il_len, il, tl_len, tl, blank);
    pt_tensor *nll = NULL, *alpha = NULL;
    const int64_t W = 2 * p.max_tl + 1;
    if (st == PT_OK)
        st = scratch_alloc(&w, p.N, W, pt_dtype_itemsize(log_probs->dtype), false);
    if (st == PT_OK) st = pt_tensor_empty(1, &p.N, log_probs->dtype, log_probs->device, &nll);
    if (st == PT_OK) {
        const int64_t sizes[3] = {p.N, p.T, W};
        st = pt_tensor_empty(3, sizes, log_probs->dtype, log_probs->device, &alpha);
    }
    if (st == PT_OK) {
        job j = {&p, &w, PT_CPU_KERNELS(nn_ctc, pt_ctc_table), pt_tensor_data(nll),
                 pt_tensor_data(alpha), NULL, NULL, NULL, NULL, W, false};
        pt_parallel_for(p.N, sample_grain(&p),
                        log_probs->dtype == PT_FLOAT64 ? forward_f8 : forward_f4, &j);
    }
    scratch_free(&w);
    ctc_release(&p);
    if (st != PT_OK) {
        if (nll) pt_tensor_release(nll);
        if (alpha) pt_tensor_release(alpha);
        return st;
    }
    *ret0 = nll;
    *ret1 = alpha;
    return PT_OK;
}

/* ---------------------------------------------------------------- backward */

static pt_status same_float(const pt_tensor *t, const char *what, int32_t dtype)
{
    PT_TRY(pt_iter_check_operand(t, "_ctc_loss_backward", what));
    if (t->dtype != dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(dtype), pt_iter_type_name(t->dtype));
    return PT_OK;
}

static pt_status check_saved(const ctc *p, const pt_tensor *grad, const pt_tensor *nll,
                             const pt_tensor *log_alpha, int32_t dtype)
{
    PT_TRY(same_float(grad, "grad", dtype));
    PT_TRY(same_float(nll, "neg_log_likelihood", dtype));
    PT_TRY(same_float(log_alpha, "log_alpha", dtype));
    char a[128];
    if (grad->ndim != 1 || grad->sizes[0] != p->N)
        return PT_ERROR(PT_ERR_RUNTIME, "_ctc_loss_backward: expected grad of shape [%lld], got %s",
                        (long long)p->N, pt_format_ints(a, sizeof a, grad->ndim, grad->sizes));
    if (nll->ndim != 1 || nll->sizes[0] != p->N)
        return PT_ERROR(PT_ERR_RUNTIME, "_ctc_loss_backward: expected neg_log_likelihood of shape "
                        "[%lld], got %s", (long long)p->N,
                        pt_format_ints(a, sizeof a, nll->ndim, nll->sizes));
    const int64_t want[3] = {p->N, p->T, 2 * p->max_tl + 1};
    if (log_alpha->ndim != 3 || log_alpha->sizes[0] != want[0] || log_alpha->sizes[1] != want[1] ||
        log_alpha->sizes[2] < want[2])
        return PT_ERROR(PT_ERR_RUNTIME, "_ctc_loss_backward: expected log_alpha of shape [%lld, "
                        "%lld, %lld], got %s", (long long)want[0], (long long)want[1],
                        (long long)want[2],
                        pt_format_ints(a, sizeof a, log_alpha->ndim, log_alpha->sizes));
    return PT_OK;
}

static pt_status ctc_backward(const pt_tensor *grad, const pt_tensor *log_probs,
                              const pt_tensor *targets, int32_t il_len, const int64_t *il,
                              int32_t tl_len, const int64_t *tl, const pt_tensor *nll,
                              const pt_tensor *log_alpha, int64_t blank, bool zero_infinity,
                              pt_tensor **ret)
{
    ctc p;
    scratch w = {0};
    pt_tensor *g = NULL, *n = NULL, *la = NULL, *out = NULL;
    pt_status st = plan(&p, "ctc_loss_backward_cpu", log_probs, targets, il_len, il, tl_len, tl,
                        blank);
    if (st == PT_OK) st = check_saved(&p, grad, nll, log_alpha, log_probs->dtype);
    if (st == PT_OK)
        st = scratch_alloc(&w, p.N, 2 * p.max_tl + 1, pt_dtype_itemsize(log_probs->dtype), true);
    if (st == PT_OK) st = pt_tensor_contiguous(grad, &g);
    if (st == PT_OK) st = pt_tensor_contiguous(nll, &n);
    if (st == PT_OK) st = pt_tensor_contiguous(log_alpha, &la);
    if (st == PT_OK) st = pt_tensor_empty(3, log_probs->sizes, log_probs->dtype,
                                          log_probs->device, &out);
    if (st == PT_OK) {
        job j = {&p, &w, PT_CPU_KERNELS(nn_ctc, pt_ctc_table), NULL, NULL, pt_tensor_data(g),
                 pt_tensor_data(n), pt_tensor_data(la), pt_tensor_data(out), la->sizes[2],
                 zero_infinity};
        pt_parallel_for(p.N, sample_grain(&p),
                        log_probs->dtype == PT_FLOAT64 ? backward_f8 : backward_f4, &j);
    }
    scratch_free(&w);
    ctc_release(&p);
    if (g) pt_tensor_release(g);
    if (n) pt_tensor_release(n);
    if (la) pt_tensor_release(la);
    if (st != PT_OK) {
        if (out) pt_tensor_release(out);
        return st;
    }
    *ret = out;
    return PT_OK;
}

/* ---------------------------------------------------------------- lengths given as tensors */

typedef struct lengths {
    pt_tensor *il, *tl; /* contiguous int64 */
} lengths;

static void lengths_release(lengths *l)
{
    if (l->il) pt_tensor_release(l->il);
    if (l->tl) pt_tensor_release(l->tl);
}

static pt_status read_one(const pt_tensor *t, const char *name, pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(t, "ctc_loss", name));
    if (!pt_is_integral(t->dtype, false))
        return PT_ERROR(PT_ERR_RUNTIME, "%s must be integral", name);
    pt_tensor *tmp = NULL;
    PT_TRY(pt_tensor_to(t, PT_INT64, t->device, 0, &tmp));
    const pt_status st = pt_tensor_contiguous(tmp, out);
    pt_tensor_release(tmp);
    return st;
}

static pt_status lengths_read(const pt_tensor *il, const pt_tensor *tl, lengths *l)
{
    memset(l, 0, sizeof *l);
    pt_status st = read_one(il, "input_lengths", &l->il);
    if (st == PT_OK) st = read_one(tl, "target_lengths", &l->tl);
    if (st == PT_OK && (pt_tensor_numel(l->il) > INT32_MAX || pt_tensor_numel(l->tl) > INT32_MAX))
        st = PT_ERROR(PT_ERR_RUNTIME, "ctc_loss: too many lengths");
    if (st != PT_OK) lengths_release(l);
    return st;
}

#define LEN(l, f) (int32_t)pt_tensor_numel((l).f), (const int64_t *)pt_tensor_data((l).f)

/* ---------------------------------------------------------------- entry points */

pt_status pt_kernel__ctc_loss(const pt_tensor *log_probs, const pt_tensor *targets,
                              int32_t il_len, const int64_t *il, int32_t tl_len,
                              const int64_t *tl, int64_t blank, int32_t zero_infinity,
                              pt_tensor **ret0, pt_tensor **ret1)
{
    PT_UNUSED(zero_infinity); /* only the backward reads it, as torch's */
    return ctc_forward(log_probs, targets, il_len, il, tl_len, tl, blank, ret0, ret1);
}

pt_status pt_kernel__ctc_loss_tensor(const pt_tensor *log_probs, const pt_tensor *targets,
                                     const pt_tensor *input_lengths,
                                     const pt_tensor *target_lengths, int64_t blank,
                                     int32_t zero_infinity, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_UNUSED(zero_infinity);
    lengths l;
    PT_TRY(lengths_read(input_lengths, target_lengths, &l));
    const pt_status st = ctc_forward(log_probs, targets, LEN(l, il), LEN(l, tl), blank, ret0,
                                     ret1);
    lengths_release(&l);
    return st;
}

pt_status pt_kernel__ctc_loss_backward(const pt_tensor *grad, const pt_tensor *log_probs,
                                       const pt_tensor *targets, int32_t il_len,
                                       const int64_t *il, int32_t tl_len, const int64_t *tl,
                                       const pt_tensor *nll, const pt_tensor *log_alpha,
                                       int64_t blank, int32_t zero_infinity, pt_tensor **ret)
{
    return ctc_backward(grad, log_probs, targets, il_len, il, tl_len, tl, nll, log_alpha, blank,
                        zero_infinity != 0, ret);
}

pt_status pt_kernel__ctc_loss_backward_tensor(const pt_tensor *grad, const pt_tensor *log_probs,
                                              const pt_tensor *targets,
                                              const pt_tensor *input_lengths,
                                              const pt_tensor *target_lengths,
                                              const pt_tensor *nll, const pt_tensor *log_alpha,
                                              int64_t blank, int32_t zero_infinity,
                                              pt_tensor **ret)
{
    lengths l;
    PT_TRY(lengths_read(input_lengths, target_lengths, &l));
    const pt_status st = ctc_backward(grad, log_probs, targets, LEN(l, il), LEN(l, tl), nll,
                                      log_alpha, blank, zero_infinity != 0, ret);
    lengths_release(&l);
    return st;
}
