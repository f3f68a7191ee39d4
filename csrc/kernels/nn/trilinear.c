/* trilinear.c - _trilinear (three operands, each unsqueezed at its expand dims to one rank, their
 * product summed over sumdim) and bilinear over it, as torch writes them.
 *
 * _trilinear contracts the operands a pair at a time, each pair one batched matrix product
 * (Note [a pair as one bmm]); torch's unroll_dim (which splits torch's loop over one dim to save
 * memory) is checked but the whole product is taken at once, which gives the same sums. Its
 * derivatives are _trilinear again (derivatives.yaml), so bilinear has double backward.
 * bilinear (CompositeImplicitAutograd): torch's checks and messages, the inputs flattened to
 * [-1, features], _trilinear(x1, weight, x2, [1, 3], [0], [1, 2], [2, 3]) (TrilinearBackward0),
 * viewed back (ViewBackward0) and the bias added (AddBackward0).
 */
#include <stdbool.h>
#include <string.h>

#include "iter.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

enum { ARENA_MAX = 32 };

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
        PT_ERROR(PT_ERR_RUNTIME, "_trilinear: too many temporaries");
        a->failed = true;
        return NULL;
    }
    a->t[a->n++] = t;
    return t;
}

#define CALL(A, expr) ((A)->failed ? NULL : keep((A), (expr)))

static pt_status finish(arena *a, pt_tensor *r, pt_tensor **ret)
{
    const bool ok = !a->failed && r;
    if (ok) pt_tensor_retain(r);
    for (int i = 0; i < a->n; i++) pt_tensor_release(a->t[i]);
    if (!ok) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* Note [a pair as one bmm]
 * left and right have one rank; sum[d] marks the dims to sum. A summed dim present (size != 1) in
 * one operand only is summed there first; the other dims sort into lro (in both: the batch), lo
 * (left only), ro (right only, or in neither) and the summed dims in both. left permuted to
 * (lro, lo, sum, ro) and flattened to [lro, lo, sum], right permuted to (lro, sum, ro, lo) and
 * flattened to [lro, sum, ro], give one bmm, whose result viewed as (lro, lo, 1 per summed dim, ro)
 * and permuted back has the operands' rank, summed dims kept as size 1. */
static pt_tensor *sumproduct_pair(arena *A, pt_tensor *left, pt_tensor *right, const bool *sum,
                                  int32_t nd)
{
    int64_t lro[PT_MAX_DIMS], lo[PT_MAX_DIMS], ro[PT_MAX_DIMS], sd[PT_MAX_DIMS];
    int nlro = 0, nlo = 0, nro = 0, nsd = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    for (int32_t d = 0; d < nd && !A->failed; d++) {
        const int64_t ls = left->sizes[d], rs = right->sizes[d];
        const bool sl = ls != 1, sr = rs != 1;
        if ((sl && sr) && ls != rs) {
            PT_ERROR(PT_ERR_RUNTIME, "non-broadcast dimensions must match");
            A->failed = true;
            return NULL;
        }
        if (sum[d]) {
            const int64_t dim = d;
            if (sl && sr) sum_size *= ls;
            else if (sl) left = CALL(A, pt_call_sum_dim_IntList(left, 1, &dim, 1, -1));
            else if (sr) right = CALL(A, pt_call_sum_dim_IntList(right, 1, &dim, 1, -1));
            sd[nsd++] = d;
        } else if (sl && sr) {
            lro[nlro++] = d;
            lro_size *= ls;
        } else if (sl) {
            lo[nlo++] = d;
            lo_size *= ls;
        } else {
            ro[nro++] = d;
            ro_size *= rs;
        }
    }
    if (A->failed) return NULL;
    int64_t lperm[PT_MAX_DIMS], rperm[PT_MAX_DIMS], operm[PT_MAX_DIMS], osize[PT_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < nlro; i++) osize[k] = left->sizes[lro[i]], lperm[k++] = lro[i];
    for (int i = 0; i < nlo; i++) osize[k] = left->sizes[lo[i]], lperm[k++] = lo[i];
    for (int i = 0; i < nsd; i++) osize[k] = 1, lperm[k++] = sd[i];
    for (int i = 0; i < nro; i++) osize[k] = right->sizes[ro[i]], lperm[k++] = ro[i];
    k = 0;
    for (int i = 0; i < nlro; i++) rperm[k++] = lro[i];
    for (int i = 0; i < nsd; i++) rperm[k++] = sd[i];
    for (int i = 0; i < nro; i++) rperm[k++] = ro[i];
    for (int i = 0; i < nlo; i++) rperm[k++] = lo[i];
    for (int i = 0; i < nd; i++) operm[lperm[i]] = i;
    const int64_t l3[3] = {lro_size, lo_size, sum_size}, r3[3] = {lro_size, sum_size, ro_size};
    pt_tensor *lp = CALL(A, pt_call_permute(left, nd, lperm));
    pt_tensor *l = lp ? CALL(A, pt_call_reshape(lp, 3, l3)) : NULL;
    pt_tensor *rp = l ? CALL(A, pt_call_permute(right, nd, rperm)) : NULL;
    pt_tensor *r = rp ? CALL(A, pt_call_reshape(rp, 3, r3)) : NULL;
    pt_tensor *p = r ? CALL(A, pt_call_bmm(l, r)) : NULL;
    pt_tensor *v = p ? CALL(A, pt_call_view(p, nd, osize)) : NULL;
    return v ? CALL(A, pt_call_permute(v, nd, operm)) : NULL;
}

/* torch's dim_list_to_bitset: each dim wrapped into [0, nd), none twice. */
static pt_status dim_bits(int32_t n, const int64_t *dims, int32_t nd, bool *bits)
{
    memset(bits, 0, sizeof(bool) * PT_MAX_DIMS);
    for (int32_t i = 0; i < n; i++) {
        int64_t d = dims[i];
        if (d < -nd || d >= nd)
            return PT_ERROR(PT_ERR_INDEX, "Dimension out of range (expected to be in range of "
                            "[%d, %d], but got %lld)", -(int)nd, (int)nd - 1, (long long)d);
        if (d < 0) d += nd;
        if (bits[d])
            return PT_ERROR(PT_ERR_RUNTIME, "dim %lld appears multiple times in the list of dims",
                            (long long)d);
        bits[d] = true;
    }
    return PT_OK;
}

/* t unsqueezed at the marked dims, in increasing order. */
static pt_tensor *expanded(arena *A, const pt_tensor *t, const bool *bits, int32_t nd)
{
    pt_tensor *r = (pt_tensor *)t;
    for (int32_t d = 0; d < nd && r; d++)
        if (bits[d]) r = CALL(A, pt_call_unsqueeze(r, d));
    return r;
}

pt_status pt_native__trilinear(const pt_tensor *i1, const pt_tensor *i2, const pt_tensor *i3,
                               int32_t expand1_len, const int64_t *expand1, int32_t expand2_len,
                               const int64_t *expand2, int32_t expand3_len,
                               const int64_t *expand3, int32_t sumdim_len, const int64_t *sumdim,
                               int64_t unroll_dim, pt_tensor **ret)
{
    const int64_t total = (int64_t)i1->ndim + expand1_len;
    if (unroll_dim < 0 || unroll_dim >= total)
        return PT_ERROR(PT_ERR_RUNTIME, "unroll_dim must be in [0,%lld]", (long long)(total - 1));
    if (total > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "_trilinear: more than %d dims", PT_MAX_DIMS);
    if ((int64_t)i2->ndim + expand2_len != total || (int64_t)i3->ndim + expand3_len != total)
        return PT_ERROR(PT_ERR_RUNTIME, "_trilinear: the inputs with their expanded dims must have "
                        "one number of dims, got %lld, %lld and %lld", (long long)total,
                        (long long)(i2->ndim + expand2_len), (long long)(i3->ndim + expand3_len));
    if (i1->dtype != i2->dtype || i1->dtype != i3->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(i1->dtype),
                        pt_iter_type_name(i2->dtype != i1->dtype ? i2->dtype : i3->dtype));
    const int32_t nd = (int32_t)total;
    bool e1[PT_MAX_DIMS], e2[PT_MAX_DIMS], e3[PT_MAX_DIMS], sum[PT_MAX_DIMS];
    PT_TRY(dim_bits(expand1_len, expand1, nd, e1));
    PT_TRY(dim_bits(expand2_len, expand2, nd, e2));
    PT_TRY(dim_bits(expand3_len, expand3, nd, e3));
    PT_TRY(dim_bits(sumdim_len, sumdim, nd, sum));
    arena A = {{0}, 0, false};
    arena *a = &A;
    pt_tensor *x1 = expanded(a, i1, e1, nd), *x2 = x1 ? expanded(a, i2, e2, nd) : NULL;
    pt_tensor *x3 = x2 ? expanded(a, i3, e3, nd) : NULL;
    if (!x3) return finish(a, NULL, ret);
    /* dims summed where i3 is absent go with the first pair, the rest with the second */
    bool s12[PT_MAX_DIMS], s23[PT_MAX_DIMS];
    int64_t squeeze[PT_MAX_DIMS];
    int32_t nsq = 0;
    for (int32_t d = 0; d < nd; d++) {
        s12[d] = sum[d] && e3[d];
        s23[d] = sum[d] && !e3[d];
        if (sum[d]) squeeze[nsq++] = d;
    }
    pt_tensor *p = sumproduct_pair(a, x1, x2, s12, nd);
    pt_tensor *q = p ? sumproduct_pair(a, p, x3, s23, nd) : NULL;
    pt_tensor *s = q ? (nsq ? CALL(a, pt_call_squeeze_dims(q, nsq, squeeze)) : q) : NULL;
    /* a fresh contiguous result, as torch's (whose loop adds into a new tensor) */
    pt_tensor *r = s ? CALL(a, pt_call_clone(s, PT_MEMORY_FORMAT_CONTIGUOUS)) : NULL;
    return finish(a, r, ret);
}

/* ---------------------------------------------------------------- bilinear */

/* The dtype as torch's messages print a caffe2 TypeMeta. */
static const char *meta_name(int32_t dt)
{
    switch (dt) {
    case PT_FLOAT32: return "float";
    case PT_FLOAT64: return "double";
    case PT_FLOAT16: return "c10::Half";
    case PT_BFLOAT16: return "c10::BFloat16";
    case PT_INT64: return "long int";
    case PT_INT32: return "int";
    case PT_INT16: return "short int";
    case PT_INT8: return "signed char";
    case PT_UINT8: return "unsigned char";
    case PT_BOOL: return "bool";
    default: return pt_iter_type_name(dt);
    }
}

static pt_status dim_range(int32_t ndim, int64_t d)
{
    return PT_ERROR(PT_ERR_INDEX, "Dimension out of range (expected to be in range of [%d, %d], "
                    "but got %lld)", -(int)(ndim ? ndim : 1), (int)(ndim ? ndim : 1) - 1,
                    (long long)d);
}

static pt_status bilinear_checks(const pt_tensor *x1, const pt_tensor *x2, const pt_tensor *w,
                                 const pt_tensor *bias)
{
    const bool same = x1->dtype == x2->dtype && x1->dtype == w->dtype &&
                      (!bias || x1->dtype == bias->dtype);
    if (!same && bias)
        return PT_ERROR(PT_ERR_RUNTIME, "All tensors must have the same dtype, got input1: %s, "
                        "input2: %s, weight: %s, bias: %s", meta_name(x1->dtype),
                        meta_name(x2->dtype), meta_name(w->dtype), meta_name(bias->dtype));
    if (!same)
        return PT_ERROR(PT_ERR_RUNTIME, "All tensors must have the same dtype, got input1: %s, "
                        "input2: %s, weight: %s", meta_name(x1->dtype),
                        meta_name(x2->dtype), meta_name(w->dtype));
    if (x1->ndim != x2->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "bilinear(): input dimensions do not match: got %d and %d",
                        (int)x1->ndim, (int)x2->ndim);
    for (int32_t i = 0; i + 1 < x1->ndim; i++)
        if (x1->sizes[i] != x2->sizes[i])
            return PT_ERROR(PT_ERR_RUNTIME, "bilinear(): input batch dimensions do not match at "
                            "dim %d: got %lld and %lld", (int)i, (long long)x1->sizes[i],
                            (long long)x2->sizes[i]);
    if (x1->ndim < 1) return dim_range(0, -1);
    if (w->ndim < 2) return dim_range(w->ndim, 1);
    if (x1->sizes[x1->ndim - 1] != w->sizes[1])
        return PT_ERROR(PT_ERR_RUNTIME, "bilinear(): input1 size does not match weight size: got "
                        "%lld but expected %lld", (long long)x1->sizes[x1->ndim - 1],
                        (long long)w->sizes[1]);
    if (w->ndim < 3) return dim_range(w->ndim, 2);
    if (x2->sizes[x2->ndim - 1] != w->sizes[2])
        return PT_ERROR(PT_ERR_RUNTIME, "bilinear(): input2 size does not match weight size: got "
                        "%lld but expected %lld", (long long)x2->sizes[x2->ndim - 1],
                        (long long)w->sizes[2]);
    if (bias && bias->ndim < 1) return dim_range(0, 0);
    if (bias && bias->sizes[0] != w->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "bilinear(): bias size does not match weight size: got "
                        "%lld but expected %lld", (long long)bias->sizes[0],
                        (long long)w->sizes[0]);
    return PT_OK;
}

pt_status pt_native_bilinear(const pt_tensor *input1, const pt_tensor *input2,
                             const pt_tensor *weight, const pt_tensor *bias, pt_tensor **ret)
{
    PT_TRY(bilinear_checks(input1, input2, weight, bias));
    arena A = {{0}, 0, false};
    arena *a = &A;
    int64_t osize[PT_MAX_DIMS];
    memcpy(osize, input1->sizes, sizeof(int64_t) * (size_t)input1->ndim);
    osize[input1->ndim - 1] = weight->sizes[0];
    const int64_t f1[2] = {-1, input1->sizes[input1->ndim - 1]};
    const int64_t f2[2] = {-1, input2->sizes[input2->ndim - 1]};
    const int64_t e1[2] = {1, 3}, e2[1] = {0}, e3[2] = {1, 2}, sd[2] = {2, 3};
    pt_tensor *x1 = CALL(a, pt_call_reshape(input1, 2, f1));
    pt_tensor *x2 = x1 ? CALL(a, pt_call_reshape(input2, 2, f2)) : NULL;
    pt_tensor *t = x2 ? CALL(a, pt_call__trilinear(x1, weight, x2, 2, e1, 1, e2, 2, e3, 2, sd, 1))
                      : NULL;
    pt_tensor *r = t ? CALL(a, pt_call_reshape(t, input1->ndim, osize)) : NULL;
    if (r && bias) r = CALL(a, pt_call_add_Tensor(r, bias, NULL));
    return finish(a, r, ret);
}
