/* attention.c - fused scaled dot-product attention on the CPU: torch's
 * _scaled_dot_product_flash_attention_for_cpu and its backward.
 *
 * query (B, Hq, L, E), key (B, Hk, S, E) and value (B, Hk, S, E), Hq a multiple of Hk (query head
 * h reads key/value head h / (Hq / Hk), grouped-query attention), an optional additive float or
 * boolean mask broadcastable to (B, Hq, L, S), is_causal (score (i, j) removed when j > i), and
 * a scale (default 1 / sqrt(E)).
 *
 * Note [streaming attention]
 * The L x S score matrix is never formed. Each task takes QB query rows of one (batch, head) and
 * walks the keys in blocks of KB: scores = scale * Q K^T for the block (one product), the mask
 * added, then the streaming softmax (nn/attention.h's online kernel) keeps per row the running
 * maximum m and sum l and rescales the accumulated output by exp(m_old - m_new) before adding
 * P V for the block (a second product). The output is the accumulator over l, and the log-sum-
 * exp m + log(l) is kept for the backward, which recomputes each block's probabilities as
 * exp(scores - lse) instead of storing them: with D = rowsum(dO * O),
 *     dV += P^T dO,  dP = dO V^T,  dS = P * (dP - D),  dQ += scale dS K,  dK += scale dS^T Q.
 * The forward splits (batch, head, query block) across threads; the backward splits (batch, key
 * head), so that the thread that owns a key/value head owns every gradient summed into it.
 * Products of a block run on one thread on the small or medium kernel (BLIS past those). A row
 * that the mask removes entirely gives output 0 and log-sum-exp 0, as torch's kernel does.
 * float16 and bfloat16 compute in float32 (the log-sum-exp stays float32, as torch's).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "gemm_medium.h"
#include "gemm_small.h"
#include "iter.h"
#include "linalg_internal.h"
#include "nn/attention.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(nn_attention, pt_attention_table, "streaming softmax rows of fused attention")

/* 128 query rows by 128 keys: a block of float scores is 64 KiB and the accumulator of 128 rows
 * of E = 64 another 32 KiB, within L2 next to the K and V blocks they are made from. 128 rows
 * rather than 64 halve how often each key block is packed for the product: forward and backward
 * at B=4, H=8, L=S=512, E=64 on one thread took 0.92 of torch's time with 64 rows, 0.85 with 128
 * (the 2-core development machine, busy; the ratio, not the times, is what carried over). */
enum { QB = 128, KB = 128 };

static const char *const FWD = "_scaled_dot_product_flash_attention_for_cpu";
static const char *const BWD = "_scaled_dot_product_flash_attention_for_cpu_backward";

/* ---------------------------------------------------------------- one product on this thread */
static void blas_value(int32_t dt, double v, pt_blas_value *out)
{
    memset(out, 0, sizeof *out);
    if (dt == PT_FLOAT32) {
        float f = (float)v;
        memcpy(out->bytes, &f, sizeof f);
    } else {
        memcpy(out->bytes, &v, sizeof v);
    }
}

/* c = beta * c + alpha * a @ b, (m x k) @ (k x n), element strides. */
static pt_status gemm(int32_t dt, int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                      int64_t rsa, int64_t csa, const void *b, int64_t rsb, int64_t csb,
                      double beta, void *c, int64_t rsc, int64_t csc)
{
    if (m == 0 || n == 0) return PT_OK;
    pt_gemm g = {.dtype = dt, .m = m, .n = n, .k = k, .threads = 1,
                 .alpha_zero = alpha == 0 || k == 0, .beta_zero = beta == 0,
                 .a = a, .rsa = rsa, .csa = csa, .b = b, .rsb = rsb, .csb = csb,
                 .c = c, .rsc = rsc, .csc = csc};
    blas_value(dt, alpha, &g.alpha);
    blas_value(dt, beta, &g.beta);
    if (pt_gemm_small_serves(&g)) return pt_gemm_small(&g);
    if (pt_gemm_medium_serves(&g)) return pt_gemm_medium(&g);
    pt_blas_strides_ok(m, k, &g.rsa, &g.csa);
    pt_blas_strides_ok(k, n, &g.rsb, &g.csb);
    pt_blas_strides_ok(m, n, &g.rsc, &g.csc);
    return pt_blas_gemm(&g);
}

/* ---------------------------------------------------------------- operands */
typedef struct operands {
    int32_t dt; /* the compute dtype: float32 or float64 */
    int64_t b, hq, hk, l, s, e;
    double scale;
    bool causal;
    const char *q, *k, *v;
    int64_t qs[4], ks[4], vs[4]; /* element strides; the last is 1 */
    const char *mask;            /* NULL: none */
    bool mask_bool;
    int64_t ms[4]; /* the mask's strides over (B, Hq, L, S), 0 where it broadcasts */
} operands;

static pt_status check_qkv(const char *op, const pt_tensor *q, const pt_tensor *k,
                           const pt_tensor *v)
{
    const pt_tensor *ts[3] = {q, k, v};
    const char *names[3] = {"query", "key", "value"};
    for (int i = 0; i < 3; i++) {
        if (!ts[i]) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor", op, names[i]);
        if (ts[i]->ndim != 4)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected %s to be a 4-dimensional tensor of "
                            "shape (batch, heads, length, dim), but got %d dimensions", op,
                            names[i], (int)ts[i]->ndim);
        if (ts[i]->device.type != PT_DEV_CPU)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: %s is not a CPU tensor", op, names[i]);
    }
    const int32_t dt = q->dtype;
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64 && dt != PT_FLOAT16 && dt != PT_BFLOAT16)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected query of dtype float, double, half or "
                        "bfloat16, but got %s", op, pt_dtype_info_of(dt)->name);
    if (k->dtype != dt || v->dtype != dt)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected query, key, and value to have the same dtype, "
                        "but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                        pt_linalg_cxx_name(dt), pt_linalg_cxx_name(k->dtype),
                        pt_linalg_cxx_name(v->dtype));
    const int64_t *qz = q->sizes, *kz = k->sizes, *vz = v->sizes;
    if (kz[0] != qz[0] || vz[0] != qz[0] || kz[1] != vz[1] || kz[2] != vz[2])
        return PT_ERROR(PT_ERR_RUNTIME, "%s: query, key and value must agree in batch size, "
                        "key and value in heads and length; got query [%lld, %lld, %lld, %lld], "
                        "key [%lld, %lld, %lld, %lld], value [%lld, %lld, %lld, %lld]", op,
                        (long long)qz[0], (long long)qz[1], (long long)qz[2], (long long)qz[3],
                        (long long)kz[0], (long long)kz[1], (long long)kz[2], (long long)kz[3],
                        (long long)vz[0], (long long)vz[1], (long long)vz[2], (long long)vz[3]);
    if (kz[3] != qz[3] || vz[3] != qz[3])
        return PT_ERROR(PT_ERR_RUNTIME, "%s: query, key and value must have the same last "
                        "dimension, got %lld, %lld and %lld", op, (long long)qz[3],
                        (long long)kz[3], (long long)vz[3]);
    if (kz[1] == 0 || qz[1] % kz[1] != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the number of query heads (%lld) must be a multiple "
                        "of the number of key/value heads (%lld)", op, (long long)qz[1],
                        (long long)kz[1]);
    return PT_OK;
}

/* The mask's strides over (B, Hq, L, S): it broadcasts to that shape, right-aligned. */
static pt_status mask_strides(const char *op, const pt_tensor *mask, const int64_t *target,
                              int64_t *ms)
{
    if (mask->ndim > 4)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: attn_mask of %d dimensions does not broadcast to "
                        "(batch, heads, L, S)", op, (int)mask->ndim);
    for (int32_t d = 0; d < 4; d++) {
        const int32_t md = d - (4 - mask->ndim);
        if (md < 0) {
            ms[d] = 0;
            continue;
        }
        if (mask->sizes[md] != target[d] && mask->sizes[md] != 1)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: attn_mask of size %lld at dimension %d does not "
                            "broadcast to %lld", op, (long long)mask->sizes[md], (int)md,
                            (long long)target[d]);
        ms[d] = mask->sizes[md] == 1 ? 0 : mask->strides[md];
    }
    return PT_OK;
}

/* t in the compute dtype with a last stride of 1: t itself (a new reference) or a copy. */
static pt_status compute_form(const pt_tensor *t, int32_t dt, pt_tensor **out)
{
    pt_tensor *r = NULL;
    if (t->dtype != dt) {
        PT_TRY(pt_tensor_to(t, dt, t->device, 0, &r));
    } else {
        pt_tensor_retain((pt_tensor *)t);
        r = (pt_tensor *)t;
    }
    if (r->ndim && r->strides[r->ndim - 1] != 1 && r->sizes[r->ndim - 1] > 1) {
        pt_tensor *c = NULL;
        const pt_status st = pt_tensor_contiguous(r, &c);
        pt_tensor_release(r);
        PT_TRY(st);
        r = c;
    }
    *out = r;
    return PT_OK;
}

typedef struct held {
    pt_tensor *q, *k, *v, *mask;
} held;

static void held_release(held *h)
{
    pt_tensor_release(h->q);
    pt_tensor_release(h->k);
    pt_tensor_release(h->v);
    pt_tensor_release(h->mask);
}

/* Checks the operands and sets o up over compute-dtype forms of them (kept in h). */
static pt_status prepare(const char *op, const pt_tensor *q, const pt_tensor *k,
                         const pt_tensor *v, const pt_tensor *mask, int32_t causal,
                         const double *scale, operands *o, held *h)
{
    PT_TRY(check_qkv(op, q, k, v));
    memset(o, 0, sizeof *o);
    memset(h, 0, sizeof *h);
    o->dt = q->dtype == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32;
    o->b = q->sizes[0];
    o->hq = q->sizes[1];
    o->hk = k->sizes[1];
    o->l = q->sizes[2];
    o->s = k->sizes[2];
    o->e = q->sizes[3];
    o->causal = causal != 0;
    o->scale = scale ? *scale : 1.0 / sqrt((double)o->e);
    if (mask) {
        if (mask->dtype != PT_BOOL && mask->dtype != q->dtype && mask->dtype != o->dt)
            return PT_ERROR(PT_ERR_RUNTIME, "Expected attn_mask dtype to be bool or float or to "
                            "match query dtype, but got attn_mask.dtype: %s and  query.dtype: %s "
                            "instead.", pt_linalg_cxx_name(mask->dtype),
                            pt_linalg_cxx_name(q->dtype));
    }
    pt_status st = compute_form(q, o->dt, &h->q);
    if (st == PT_OK) st = compute_form(k, o->dt, &h->k);
    if (st == PT_OK) st = compute_form(v, o->dt, &h->v);
    if (st == PT_OK && mask)
        st = compute_form(mask, mask->dtype == PT_BOOL ? PT_BOOL : o->dt, &h->mask);
    if (st != PT_OK) {
        held_release(h);
        return st;
    }
    o->q = pt_tensor_data(h->q);
    o->k = pt_tensor_data(h->k);
    o->v = pt_tensor_data(h->v);
    memcpy(o->qs, h->q->strides, sizeof o->qs);
    memcpy(o->ks, h->k->strides, sizeof o->ks);
    memcpy(o->vs, h->v->strides, sizeof o->vs);
    if (mask) {
        const int64_t target[4] = {o->b, o->hq, o->l, o->s};
        const pt_status ms = mask_strides(op, h->mask, target, o->ms);
        if (ms != PT_OK) {
            held_release(h);
            return ms;
        }
        o->mask = pt_tensor_data(h->mask);
        o->mask_bool = h->mask->dtype == PT_BOOL;
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- the blocks, per dtype */
typedef struct fwd_job {
    const operands *o;
    char *out, *lse; /* out (B, Hq, L, E) and lse (B, Hq, L) with the strides below */
    int64_t os[4], ls[3];
    int64_t qblocks;
    _Atomic pt_status status; /* the first failure of a task; PT_OK while all go well */
} fwd_job;

typedef struct bwd_job {
    const operands *o;
    const char *dout, *out, *lse;
    int64_t dos[4], outs[4], ls[3];
    char *dq, *dk, *dv; /* contiguous, in the compute dtype, zeroed */
    _Atomic pt_status status; /* the first failure of a task; PT_OK while all go well */
} bwd_job;

#define ATTENTION_BLOCKS(SUF, T, ROWS)                                                             \
    /* scores[r][c] of the block: the mask added, causal positions removed. */                    \
    static void mask_block_##SUF(const operands *o, T *sc, int64_t b, int64_t h, int64_t i0,       \
                                 int64_t qn, int64_t j0, int64_t kn)                               \
    {                                                                                              \
        if (o->mask) {                                                                             \
            for (int64_t r = 0; r < qn; r++) {                                                     \
                const int64_t base = b * o->ms[0] + h * o->ms[1] + (i0 + r) * o->ms[2] +           \
                                     j0 * o->ms[3];                                                \
                T *row = sc + r * KB;                                                              \
                if (o->mask_bool) {                                                                \
                    const bool *m = (const bool *)o->mask + base;                                  \
                    for (int64_t c = 0; c < kn; c++)                                               \
                        if (!m[c * o->ms[3]]) row[c] = -(T)INFINITY;                               \
                } else {                                                                           \
                    const T *m = (const T *)o->mask + base;                                        \
                    for (int64_t c = 0; c < kn; c++) row[c] += m[c * o->ms[3]];                    \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (o->causal)                                                                             \
            for (int64_t r = 0; r < qn; r++)                                                       \
                for (int64_t c = i0 + r + 1 - j0 > 0 ? i0 + r + 1 - j0 : 0; c < kn; c++)          \
                    sc[r * KB + c] = -(T)INFINITY;                                                 \
    }                                                                                              \
    /* Keys [0, end) can take part for query rows below i1. */                                     \
    static int64_t key_end_##SUF(const operands *o, int64_t i1)                                    \
    {                                                                                              \
        return o->causal && i1 < o->s ? i1 : o->s;                                                 \
    }                                                                                              \
    static pt_status fwd_task_##SUF(fwd_job *j, int64_t task, T *sc, T *acc, T *m, T *l, T *al)   \
    {                                                                                              \
        const operands *o = j->o;                                                                  \
        const ROWS *k = &PT_CPU_KERNELS(nn_attention, pt_attention_table)->SUF;                    \
        const int64_t qb = task % j->qblocks, bh = task / j->qblocks;                              \
        const int64_t b = bh / o->hq, h = bh % o->hq, hk = h / (o->hq / o->hk), e = o->e;          \
        const int64_t i0 = qb * QB, qn = o->l - i0 < QB ? o->l - i0 : QB;                          \
        const T *q = (const T *)o->q + b * o->qs[0] + h * o->qs[1] + i0 * o->qs[2];                \
        const T *kp = (const T *)o->k + b * o->ks[0] + hk * o->ks[1];                              \
        const T *vp = (const T *)o->v + b * o->vs[0] + hk * o->vs[1];                              \
        for (int64_t r = 0; r < qn; r++) {                                                         \
            m[r] = -(T)INFINITY;                                                                   \
            l[r] = 0;                                                                              \
        }                                                                                          \
        memset(acc, 0, (size_t)(qn * e) * sizeof(T));                                              \
        const int64_t kend = key_end_##SUF(o, i0 + qn);                                            \
        for (int64_t j0 = 0; j0 < kend; j0 += KB) {                                                \
            const int64_t kn = kend - j0 < KB ? kend - j0 : KB;                                    \
            PT_TRY(gemm(o->dt, qn, kn, e, o->scale, q, o->qs[2], 1, kp + j0 * o->ks[2], 1,         \
                        o->ks[2], 0.0, sc, KB, 1));                                                \
            mask_block_##SUF(o, sc, b, h, i0, qn, j0, kn);                                         \
            k->online(sc, qn, kn, KB, m, l, al);                                                   \
            for (int64_t r = 0; r < qn; r++)                                                       \
                if (al[r] != 1)                                                                    \
                    for (int64_t c = 0; c < e; c++) acc[r * e + c] *= al[r];                       \
            PT_TRY(gemm(o->dt, qn, e, kn, 1.0, sc, KB, 1, vp + j0 * o->vs[2], o->vs[2], 1, 1.0,    \
                        acc, e, 1));                                                               \
        }                                                                                          \
        for (int64_t r = 0; r < qn; r++) {                                                         \
            const int64_t i = i0 + r;                                                              \
            T *op = (T *)j->out + b * j->os[0] + h * j->os[1] + i * j->os[2];                      \
            const T inv = l[r] > 0 ? (T)1 / l[r] : 0;                                              \
            for (int64_t c = 0; c < e; c++) op[c] = acc[r * e + c] * inv;                          \
            T *lp = (T *)j->lse + b * j->ls[0] + h * j->ls[1] + i * j->ls[2];                      \
            *lp = l[r] > 0 ? m[r] + (sizeof(T) == 4 ? (T)logf((float)l[r]) : (T)log(l[r])) : 0;    \
        }                                                                                          \
        return PT_OK;                                                                              \
    }                                                                                              \
    static void fwd_range_##SUF(int64_t begin, int64_t end, void *arg)                             \
    {                                                                                              \
        fwd_job *j = arg;                                                                          \
        const int64_t e = j->o->e;                                                                 \
        T *buf = malloc(sizeof(T) * (size_t)(QB * KB + QB * e + 3 * QB));                          \
        if (!buf) {                                                                                \
            atomic_store(&j->status, PT_ERR_MEMORY);                                               \
            return;                                                                                \
        }                                                                                          \
        T *acc = buf + QB * KB, *m = acc + QB * e, *l = m + QB, *al = l + QB;                      \
        for (int64_t t = begin; t < end && atomic_load(&j->status) == PT_OK; t++) {                        \
            const pt_status st = fwd_task_##SUF(j, t, buf, acc, m, l, al);                         \
            if (st != PT_OK) {                                                                     \
                atomic_store(&j->status, st);                                                      \
            }                                                                                      \
        }                                                                                          \
        free(buf);                                                                                 \
    }                                                                                              \
    /* The gradients of one query head h (of key head hk) of batch b. */                           \
    static pt_status bwd_head_##SUF(bwd_job *j, int64_t b, int64_t h, int64_t hk, T *p, T *dp,    \
                                    T *d, T *lse)                                                  \
    {                                                                                              \
        const operands *o = j->o;                                                                  \
        const ROWS *k = &PT_CPU_KERNELS(nn_attention, pt_attention_table)->SUF;                    \
        const int64_t e = o->e, L = o->l, S = o->s;                                                \
        const T *q = (const T *)o->q + b * o->qs[0] + h * o->qs[1];                                \
        const T *kp = (const T *)o->k + b * o->ks[0] + hk * o->ks[1];                              \
        const T *vp = (const T *)o->v + b * o->vs[0] + hk * o->vs[1];                              \
        const T *dout = (const T *)j->dout + b * j->dos[0] + h * j->dos[1];                        \
        const T *out = (const T *)j->out + b * j->outs[0] + h * j->outs[1];                        \
        T *dq = (T *)j->dq + (b * o->hq + h) * L * e;                                              \
        T *dk = (T *)j->dk + (b * o->hk + hk) * S * e;                                             \
        T *dv = (T *)j->dv + (b * o->hk + hk) * S * e;                                             \
        for (int64_t i = 0; i < L; i++) {                                                          \
            const T *g = dout + i * j->dos[2], *y = out + i * j->outs[2];                          \
            T s = 0;                                                                               \
            for (int64_t c = 0; c < e; c++) s += g[c] * y[c];                                      \
            d[i] = s;                                                                              \
            lse[i] = ((const T *)j->lse)[b * j->ls[0] + h * j->ls[1] + i * j->ls[2]];              \
        }                                                                                          \
        for (int64_t i0 = 0; i0 < L; i0 += QB) {                                                   \
            const int64_t qn = L - i0 < QB ? L - i0 : QB, kend = key_end_##SUF(o, i0 + qn);        \
            const T *qi = q + i0 * o->qs[2], *gi = dout + i0 * j->dos[2];                          \
            for (int64_t j0 = 0; j0 < kend; j0 += KB) {                                            \
                const int64_t kn = kend - j0 < KB ? kend - j0 : KB;                                \
                const T *kj = kp + j0 * o->ks[2], *vj = vp + j0 * o->vs[2];                        \
                PT_TRY(gemm(o->dt, qn, kn, e, o->scale, qi, o->qs[2], 1, kj, 1, o->ks[2], 0.0, p,  \
                            KB, 1));                                                               \
                mask_block_##SUF(o, p, b, h, i0, qn, j0, kn);                                      \
                k->probs(p, qn, kn, KB, lse + i0);                                                 \
                PT_TRY(gemm(o->dt, kn, e, qn, 1.0, p, 1, KB, gi, j->dos[2], 1, 1.0, dv + j0 * e,   \
                            e, 1));                                                                \
                PT_TRY(gemm(o->dt, qn, kn, e, 1.0, gi, j->dos[2], 1, vj, 1, o->vs[2], 0.0, dp, KB, \
                            1));                                                                   \
                k->dsoftmax(dp, p, qn, kn, KB, d + i0);                                            \
                PT_TRY(gemm(o->dt, qn, e, kn, o->scale, dp, KB, 1, kj, o->ks[2], 1, 1.0,           \
                            dq + i0 * e, e, 1));                                                   \
                PT_TRY(gemm(o->dt, kn, e, qn, o->scale, dp, 1, KB, qi, o->qs[2], 1, 1.0,           \
                            dk + j0 * e, e, 1));                                                   \
            }                                                                                      \
        }                                                                                          \
        return PT_OK;                                                                              \
    }                                                                                              \
    static void bwd_range_##SUF(int64_t begin, int64_t end, void *arg)                             \
    {                                                                                              \
        bwd_job *j = arg;                                                                          \
        const operands *o = j->o;                                                                  \
        T *buf = malloc(sizeof(T) * (size_t)(2 * QB * KB + 2 * o->l));                             \
        if (!buf) {                                                                                \
            atomic_store(&j->status, PT_ERR_MEMORY);                                               \
            return;                                                                                \
        }                                                                                          \
        T *dp = buf + QB * KB, *d = dp + QB * KB, *lse = d + o->l;                                 \
        const int64_t group = o->hq / o->hk;                                                       \
        for (int64_t t = begin; t < end && atomic_load(&j->status) == PT_OK; t++) {                        \
            const int64_t b = t / o->hk, hk = t % o->hk;                                           \
            for (int64_t h = hk * group; h < (hk + 1) * group; h++) {                              \
                const pt_status st = bwd_head_##SUF(j, b, h, hk, buf, dp, d, lse);                 \
                if (st != PT_OK) {                                                                 \
                    atomic_store(&j->status, st);                                                  \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        free(buf);                                                                                 \
    }

ATTENTION_BLOCKS(f32, float, pt_attention_rows_f32)
ATTENTION_BLOCKS(f64, double, pt_attention_rows_f64)

/* Work per task below which tasks are grouped before they are split across threads (~2 x 64 x
 * 128 x 64 multiply-adds, a few hundred microseconds). */
enum { TASK_GRAIN_WORK = 1 << 20 };

static int64_t task_grain(int64_t work_per_task)
{
    return work_per_task >= TASK_GRAIN_WORK ? 1 : (TASK_GRAIN_WORK + work_per_task - 1) /
                                                      (work_per_task > 0 ? work_per_task : 1);
}

static pt_status job_status(pt_status st, const char *op)
{
    if (st == PT_OK) return PT_OK;
    if (st == PT_ERR_MEMORY)
        return PT_ERROR(PT_ERR_MEMORY, "%s: could not allocate the attention block buffers", op);
    return pt_error_code() != PT_OK ? pt_error_code() : PT_ERROR(st, "%s failed", op);
}

/* ---------------------------------------------------------------- entry points */
pt_status pt_kernel__scaled_dot_product_flash_attention_for_cpu(
    const pt_tensor *query, const pt_tensor *key, const pt_tensor *value, double dropout_p,
    int32_t is_causal, const pt_tensor *attn_mask, const double *scale, pt_tensor **output,
    pt_tensor **logsumexp)
{
    if (dropout_p != 0.0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: dropout is not supported; the math path "
                        "(_scaled_dot_product_attention_math) draws it", FWD);
    operands o;
    held h;
    PT_TRY(prepare(FWD, query, key, value, attn_mask, is_causal, scale, &o, &h));
    const int32_t dt = query->dtype;
    /* torch's layouts: output (B, Hq, L, E) contiguous, lse (B, Hq, L) over memory (B, L, Hq) */
    const int64_t osz[4] = {o.b, o.hq, o.l, o.e};
    const int64_t ost[4] = {o.hq * o.l * o.e, o.l * o.e, o.e, 1};
    const int64_t lsz[3] = {o.b, o.hq, o.l}, lst[3] = {o.l * o.hq, 1, o.hq};
    pt_tensor *out = NULL, *lse = NULL, *out_c = NULL;
    pt_status st = pt_tensor_empty_strided(4, osz, ost, dt, query->device, &out);
    if (st == PT_OK) st = pt_tensor_empty_strided(3, lsz, lst, o.dt, query->device, &lse);
    if (st == PT_OK && dt != o.dt) st = pt_tensor_empty_strided(4, osz, ost, o.dt, query->device,
                                                                &out_c);
    if (st == PT_OK && o.b * o.hq * o.l > 0) {
        fwd_job j = {.o = &o, .out = pt_tensor_data(out_c ? out_c : out),
                     .lse = pt_tensor_data(lse), .qblocks = (o.l + QB - 1) / QB};
        memcpy(j.os, ost, sizeof j.os);
        memcpy(j.ls, lst, sizeof j.ls);
        atomic_init(&j.status, PT_OK);
        const int64_t tasks = o.b * o.hq * j.qblocks;
        const int64_t work = 2 * QB * o.s * o.e;
        pt_parallel_for(tasks, task_grain(work), o.dt == PT_FLOAT32 ? fwd_range_f32 :
                                                                      fwd_range_f64, &j);
        st = job_status(atomic_load(&j.status), FWD);
        if (st == PT_OK && out_c) st = pt_tensor_copy_(out, out_c);
    }
    pt_tensor_release(out_c);
    held_release(&h);
    if (st != PT_OK) {
        pt_tensor_release(out);
        pt_tensor_release(lse);
        return st;
    }
    *output = out;
    *logsumexp = lse;
    return PT_OK;
}

static pt_status zeros(int32_t ndim, const int64_t *sizes, int32_t dt, pt_tensor **out)
{
    const pt_device cpu = {PT_DEV_CPU, -1};
    PT_TRY(pt_tensor_empty(ndim, sizes, dt, cpu, out));
    memset(pt_tensor_data(*out), 0, (size_t)(pt_tensor_numel(*out) * pt_dtype_itemsize(dt)));
    return PT_OK;
}

static pt_status check_like(const char *what, const pt_tensor *t, int32_t ndim,
                            const int64_t *sizes)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor", BWD, what);
    if (t->ndim != ndim || memcmp(t->sizes, sizes, (size_t)ndim * sizeof *sizes) != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: %s has the wrong shape", BWD, what);
    return PT_OK;
}

pt_status pt_kernel__scaled_dot_product_flash_attention_for_cpu_backward(
    const pt_tensor *grad_out, const pt_tensor *query, const pt_tensor *key,
    const pt_tensor *value, const pt_tensor *out, const pt_tensor *logsumexp, double dropout_p,
    int32_t is_causal, const pt_tensor *attn_mask, const double *scale, pt_tensor **grad_query,
    pt_tensor **grad_key, pt_tensor **grad_value)
{
    if (dropout_p != 0.0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: dropout is not supported", BWD);
    operands o;
    held h;
    PT_TRY(prepare(BWD, query, key, value, attn_mask, is_causal, scale, &o, &h));
    pt_tensor *gq = NULL, *gk = NULL, *gv = NULL, *g = NULL, *y = NULL, *lse = NULL;
    pt_status st = check_like("grad_out", grad_out, 4, query->sizes);
    if (st == PT_OK) st = check_like("out", out, 4, query->sizes);
    const int64_t lsz[3] = {o.b, o.hq, o.l};
    if (st == PT_OK) st = check_like("logsumexp", logsumexp, 3, lsz);
    if (st == PT_OK) st = compute_form(grad_out, o.dt, &g);
    if (st == PT_OK) st = compute_form(out, o.dt, &y);
    if (st == PT_OK) st = compute_form(logsumexp, o.dt, &lse);
    if (st == PT_OK) st = zeros(4, query->sizes, o.dt, &gq);
    if (st == PT_OK) st = zeros(4, key->sizes, o.dt, &gk);
    if (st == PT_OK) st = zeros(4, value->sizes, o.dt, &gv);
    if (st == PT_OK && o.b * o.hk * o.l * o.s > 0) {
        bwd_job j = {.o = &o, .dout = pt_tensor_data(g), .out = pt_tensor_data(y),
                     .lse = pt_tensor_data(lse), .dq = pt_tensor_data(gq),
                     .dk = pt_tensor_data(gk), .dv = pt_tensor_data(gv)};
        memcpy(j.dos, g->strides, sizeof j.dos);
        memcpy(j.outs, y->strides, sizeof j.outs);
        memcpy(j.ls, lse->strides, sizeof j.ls);
        atomic_init(&j.status, PT_OK);
        const int64_t work = 5 * (o.hq / o.hk) * o.l * o.s * o.e;
        pt_parallel_for(o.b * o.hk, task_grain(work), o.dt == PT_FLOAT32 ? bwd_range_f32 :
                                                                         bwd_range_f64, &j);
        st = job_status(atomic_load(&j.status), BWD);
    }
    pt_tensor *rets[3] = {gq, gk, gv};
    for (int i = 0; i < 3 && st == PT_OK; i++) {
        if (rets[i]->dtype == query->dtype) continue;
        pt_tensor *c = NULL;
        st = pt_tensor_to(rets[i], query->dtype, query->device, 0, &c);
        if (st == PT_OK) {
            pt_tensor_release(rets[i]);
            rets[i] = c;
        }
    }
    pt_tensor_release(g);
    pt_tensor_release(y);
    pt_tensor_release(lse);
    held_release(&h);
    if (st != PT_OK) {
        for (int i = 0; i < 3; i++) pt_tensor_release(rets[i]);
        return st;
    }
    *grad_query = rets[0];
    *grad_key = rets[1];
    *grad_value = rets[2];
    return PT_OK;
}
