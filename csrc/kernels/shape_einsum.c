/* shape_einsum.c - einsum: products and sums over named dims, decomposed into operator calls
 * as torch decomposes them, so that a call recording history has torch's graph.
 *
 * Labels a-z and A-Z (A..Z number 0..25, a..z 26..51: the order of the implicit output) and one
 * ellipsis per term; spaces are ignored. The steps:
 *   1. parse the input terms, count each label's appearances, then the output: given after
 *      "->", or implicit (the ellipsis dims, then the labels seen exactly once, in label order).
 *      Every output dim, then the ellipsis dims the output leaves out, then every contracted
 *      label, gets a place in one common order.
 *   2. each operand takes the diagonal for a label it repeats, gets a size-1 dim for each place
 *      it lacks and is permuted into the common order; sizes are checked on the way (equal, or
 *      1, which broadcasts) and each place counts the operands in which it is not 1.
 *   3. operands are contracted two at a time: the first two (or the pair `path` names, as
 *      opt_einsum writes paths). A contracted place that only one of the pair still has is
 *      summed in it first; one both have and no other operand does is summed by the product
 *      itself, sumproduct_pair: each side permuted to (batch, own, summed) / (batch, summed,
 *      own), reshaped to 3-D, multiplied by bmm, viewed and permuted back (keeping size-1 dims).
 *      The result takes the pair's place (the front; the back when a path is given). At the
 *      end the contracted places, all of size 1 by then, are dropped by a view; one operand's
 *      are summed.
 */
#include <stdlib.h>
#include <string.h>

#include "shape_common.h"

enum { LABELS = 52, ELL = LABELS, MAX_OPERANDS = 256 };

/* One parsed input term: its labels in order, ELL where the ellipsis stands. */
typedef struct term {
    int32_t n;
    bool has_ell;
    uint8_t labels[PT_MAX_DIMS + 1];
} term;

typedef struct plan {
    int32_t nops, ell_dims, out_size, perm_size, ell_at;
    int32_t place[LABELS]; /* a label's place in the common order, -1 if none */
    int64_t label_size[LABELS], ell_size[PT_MAX_DIMS];
    uint64_t counts[PT_MAX_DIMS]; /* operands whose size at a place is not 1 */
    term in[];
} plan;

static int32_t label_of(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    return -1;
}

static char char_of(int32_t l) { return (char)(l < 26 ? 'A' + l : 'a' + l - 26); }

static pt_status bad_subscript(size_t at)
{
    return PT_ERROR(PT_ERR_RUNTIME, "einsum(): invalid subscript given at index %d in the "
                    "equation string, subscripts must be in [a-zA-Z]", (int)at);
}

/* Step 1 for the inputs: eq up to `end` (the arrow or the string's end). */
static pt_status parse_inputs(const char *eq, size_t end, int32_t nops, plan *p)
{
    int32_t cur = 0;
    memset(&p->in[0], 0, sizeof p->in[0]);
    for (size_t i = 0; i < end; i++) {
        const char c = eq[i];
        term *t = &p->in[cur];
        if (c == ' ') continue;
        if (c == ',') {
            if (++cur >= nops)
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): fewer operands were provided than "
                                "specified in the equation");
            memset(&p->in[cur], 0, sizeof p->in[cur]);
            continue;
        }
        if (c == '.') {
            if (t->has_ell)
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): found '.' for operand %d for which an "
                                "ellipsis was already found", (int)cur);
            if (!(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.'))
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): found '.' for operand %d that is not "
                                "part of any ellipsis", (int)cur);
            i += 2;
            t->has_ell = true;
            t->labels[t->n++] = ELL;
            continue;
        }
        const int32_t l = label_of(c);
        if (l < 0) return bad_subscript(i);
        if (t->n > PT_MAX_DIMS)
            return PT_ERROR(PT_ERR_RUNTIME, "einsum(): operand %d has more than %d subscripts",
                            (int)cur, (int)PT_MAX_DIMS);
        t->labels[t->n++] = (uint8_t)l;
    }
    if (cur != nops - 1)
        return PT_ERROR(PT_ERR_RUNTIME, "einsum(): more operands were provided than specified in "
                        "the equation");
    return PT_OK;
}

static pt_status parse_output(const char *rhs, size_t base, const int64_t *count, plan *p)
{
    bool ell = false;
    int32_t at = 0;
    for (size_t i = 0; rhs[i]; i++) {
        const char c = rhs[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (ell)
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): found '.' for output but an ellipsis "
                                "(...) was already found");
            if (!(rhs[i + 1] == '.' && rhs[i + 2] == '.'))
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): found '.' for output that is not part "
                                "of any ellipsis (...)");
            i += 2;
            p->ell_at = at;
            at += p->ell_dims;
            ell = true;
            continue;
        }
        const int32_t l = label_of(c);
        if (l < 0) return bad_subscript(base + i);
        if (count[l] == 0 || p->place[l] >= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "einsum(): output subscript %c %s", c,
                            p->place[l] >= 0 ? "appears more than once in the output"
                                             : "does not appear in the equation for any input "
                                               "operand");
        p->place[l] = at++;
    }
    p->out_size = at;
    return PT_OK;
}

static pt_status make_plan(const char *eq, int32_t nops, pt_tensor *const *ops, plan *p)
{
    const char *arrow = strstr(eq, "->");
    PT_TRY(parse_inputs(eq, arrow ? (size_t)(arrow - eq) : strlen(eq), nops, p));
    p->nops = nops;
    int64_t count[LABELS] = {0};
    p->ell_dims = 0;
    for (int32_t k = 0; k < nops; k++) {
        if (!ops[k]) return PT_ERROR(PT_ERR_TYPE, "einsum(): operand %d is None", (int)k);
        const term *t = &p->in[k];
        const int64_t nlab = t->n - (t->has_ell ? 1 : 0), nd = ops[k]->ndim;
        for (int32_t j = 0; j < t->n; j++)
            if (t->labels[j] != ELL) count[t->labels[j]]++;
        if (t->has_ell && nd - nlab > p->ell_dims) p->ell_dims = (int32_t)(nd - nlab);
        if (t->has_ell ? nlab > nd : nlab != nd)
            return PT_ERROR(PT_ERR_RUNTIME, "einsum(): the number of subscripts in the equation "
                            "(%lld) %s the number of dimensions (%lld) for operand %d%s",
                            (long long)nlab, t->has_ell ? "is more than" : "does not match",
                            (long long)nd, (int)k,
                            t->has_ell ? "" : " and no ellipsis was given");
    }
    for (int32_t l = 0; l < LABELS; l++) p->place[l] = -1;
    p->ell_at = -1;
    if (arrow) {
        PT_TRY(parse_output(arrow + 2, (size_t)(arrow - eq) + 2, count, p));
    } else {
        int32_t at = p->ell_dims;
        p->ell_at = 0;
        for (int32_t l = 0; l < LABELS; l++)
            if (count[l] == 1) p->place[l] = at++;
        p->out_size = at;
    }
    int32_t at = p->out_size;
    if (p->ell_at < 0) {
        p->ell_at = at;
        at += p->ell_dims;
    }
    for (int32_t l = 0; l < LABELS; l++)
        if (count[l] && p->place[l] < 0) p->place[l] = at++;
    p->perm_size = at;
    if (at > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "einsum(): the equation needs %d dims (at most %d)",
                        (int)at, (int)PT_MAX_DIMS);
    for (int32_t l = 0; l < LABELS; l++) p->label_size[l] = 1;
    for (int32_t i = 0; i < PT_MAX_DIMS; i++) p->ell_size[i] = 1, p->counts[i] = 0;
    return PT_OK;
}

/* A new reference to t. */
static pt_tensor *ref(const pt_tensor *t)
{
    pt_tensor *r = (pt_tensor *)t;
    pt_tensor_retain(r);
    return r;
}

/* x replaced by r (a new reference, NULL on failure). */
static bool then(pt_tensor **x, pt_tensor *r)
{
    pt_tensor_release(*x);
    *x = r;
    return r != NULL;
}

/* Step 2 for operand k. */
static pt_status align(plan *p, int32_t k, const pt_tensor *op, pt_tensor **out)
{
    const term *t = &p->in[k];
    int64_t perm[PT_MAX_DIMS];
    for (int32_t i = 0; i < p->perm_size; i++) perm[i] = -1;
    const int32_t ell = op->ndim - (t->n - (t->has_ell ? 1 : 0));
    pt_tensor *x = ref(op);
    int32_t dim = 0;
    for (int32_t j = 0; j < t->n; j++) {
        const int32_t l = t->labels[j];
        if (l == ELL) {
            for (int32_t e = p->ell_dims - ell; e < p->ell_dims; e++, dim++) {
                const int64_t s = x->sizes[dim];
                if (s != 1) {
                    if (p->ell_size[e] != 1 && p->ell_size[e] != s) {
                        pt_tensor_release(x);
                        return PT_ERROR(PT_ERR_RUNTIME, "einsum(): dimension %d covered by "
                                        "ellipsis in operand %dhas size %lld which does not "
                                        "broadcast with previously seen ellipsis with size %lld "
                                        "for the respective dimension", (int)dim, (int)k,
                                        (long long)s, (long long)p->ell_size[e]);
                    }
                    p->ell_size[e] = s;
                    p->counts[p->ell_at + e]++;
                }
                perm[p->ell_at + e] = dim;
            }
        } else if (perm[p->place[l]] < 0) {
            const int64_t s = x->sizes[dim];
            if (s != 1) {
                if (p->label_size[l] != 1 && p->label_size[l] != s) {
                    pt_tensor_release(x);
                    return PT_ERROR(PT_ERR_RUNTIME, "einsum(): subscript %c has size %lld for "
                                    "operand %d which does not broadcast with previously seen "
                                    "size %lld", char_of(l), (long long)s, (int)k,
                                    (long long)p->label_size[l]);
                }
                p->label_size[l] = s;
                p->counts[p->place[l]]++;
            }
            perm[p->place[l]] = dim++;
        } else {
            const int64_t prev = perm[p->place[l]];
            if (x->sizes[dim] != x->sizes[prev]) {
                const int64_t a = x->sizes[dim], b = x->sizes[prev];
                pt_tensor_release(x);
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): subscript %c is repeated for operand "
                                "%d but the sizes don't match, %lld != %lld", char_of(l), (int)k,
                                (long long)a, (long long)b);
            }
            if (!then(&x, pt_call_diagonal(x, 0, prev, dim)) ||
                !then(&x, pt_call_movedim_int(x, -1, prev)))
                return pt_error_code();
        }
    }
    for (int32_t i = 0; i < p->perm_size; i++)
        if (perm[i] < 0) {
            if (!then(&x, pt_call_unsqueeze(x, dim))) return pt_error_code();
            perm[i] = dim++;
        }
    if (!then(&x, pt_call_permute(x, p->perm_size, perm))) return pt_error_code();
    *out = x;
    return PT_OK;
}

static pt_tensor *sum_keep(pt_tensor *x, int32_t n, const int64_t *dims)
{
    return pt_call_sum_dim_IntList(x, n, dims, 1, -1);
}

/* torch's sumproduct_pair with keepdim: the product of a and b (same number of dims, sizes
 * equal or 1) summed over the `nsum` dims in sum, which stay as size-1 dims. */
static pt_tensor *sumproduct_pair(const pt_tensor *a, const pt_tensor *b, int32_t nsum,
                                  const int64_t *sum)
{
    if (nsum == 0) return pt_call_mul_Tensor(a, b);
    const int32_t nd = a->ndim;
    bool summed[PT_MAX_DIMS] = {false};
    for (int32_t i = 0; i < nsum; i++) summed[sum[i]] = true;
    int64_t lro[PT_MAX_DIMS], lo[PT_MAX_DIMS], ro[PT_MAX_DIMS];
    int32_t nlro = 0, nlo = 0, nro = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    pt_tensor *l = ref(a), *r = ref(b), *res = NULL;
    for (int32_t i = 0; i < nd; i++) {
        const bool sl = l->sizes[i] != 1, sr = r->sizes[i] != 1;
        const int64_t d = i;
        if (summed[i]) {
            if (sl && sr) {
                if (l->sizes[i] != r->sizes[i]) {
                    PT_ERROR(PT_ERR_RUNTIME, "non-broadcast dimensions must match");
                    goto done;
                }
                sum_size *= l->sizes[i];
            } else if (sl) {
                if (!then(&l, sum_keep(l, 1, &d))) goto done;
            } else if (sr) {
                if (!then(&r, sum_keep(r, 1, &d))) goto done;
            }
        } else if (sl && sr) {
            if (l->sizes[i] != r->sizes[i]) {
                PT_ERROR(PT_ERR_RUNTIME, "non-broadcast dimensions must match");
                goto done;
            }
            lro[nlro++] = i;
            lro_size *= l->sizes[i];
        } else if (sl) {
            lo[nlo++] = i;
            lo_size *= l->sizes[i];
        } else {
            ro[nro++] = i;
            ro_size *= r->sizes[i];
        }
    }
    int64_t out_size[PT_MAX_DIMS], lperm[PT_MAX_DIMS], rperm[PT_MAX_DIMS], operm[PT_MAX_DIMS];
    int32_t n = 0, m = 0;
    for (int32_t i = 0; i < nlro; i++) out_size[n] = l->sizes[lro[i]], lperm[n++] = lro[i];
    for (int32_t i = 0; i < nlo; i++) out_size[n] = l->sizes[lo[i]], lperm[n++] = lo[i];
    for (int32_t i = 0; i < nsum; i++) out_size[n] = 1, lperm[n++] = sum[i];
    for (int32_t i = 0; i < nro; i++) out_size[n] = r->sizes[ro[i]], lperm[n++] = ro[i];
    for (int32_t i = 0; i < nlro; i++) rperm[m++] = lro[i];
    for (int32_t i = 0; i < nsum; i++) rperm[m++] = sum[i];
    for (int32_t i = 0; i < nro; i++) rperm[m++] = ro[i];
    for (int32_t i = 0; i < nlo; i++) rperm[m++] = lo[i];
    for (int32_t i = 0; i < n; i++) operm[lperm[i]] = i;
    const int64_t l3[3] = {lro_size, lo_size, sum_size}, r3[3] = {lro_size, sum_size, ro_size};
    if (!then(&l, pt_call_permute(l, n, lperm)) || !then(&l, pt_call_reshape(l, 3, l3))) goto done;
    if (!then(&r, pt_call_permute(r, m, rperm)) || !then(&r, pt_call_reshape(r, 3, r3))) goto done;
    if (!(res = pt_call_bmm(l, r))) goto done;
    if (!then(&res, pt_call_view(res, n, out_size))) goto done;
    then(&res, pt_call_permute(res, n, operm));
done:
    pt_tensor_release(l);
    pt_tensor_release(r);
    return res;
}

/* One contraction of step 3: a and b (released here) into their product. */
static pt_tensor *contract_pair(plan *p, pt_tensor *a, pt_tensor *b)
{
    int64_t sum[PT_MAX_DIMS], sa[PT_MAX_DIMS], sb[PT_MAX_DIMS];
    int32_t nsum = 0, na = 0, nb = 0;
    for (int32_t d = p->out_size; d < p->perm_size; d++) {
        if (a->sizes[d] != 1 && b->sizes[d] != 1) {
            if (--p->counts[d] == 1) {
                sum[nsum++] = d;
                p->counts[d] = 0;
            }
        } else if (p->counts[d] == 1) {
            if (a->sizes[d] != 1) {
                sa[na++] = d;
                p->counts[d] = 0;
            } else if (b->sizes[d] != 1) {
                sb[nb++] = d;
                p->counts[d] = 0;
            }
        }
    }
    pt_tensor *r = NULL;
    if ((na == 0 || then(&a, sum_keep(a, na, sa))) && (nb == 0 || then(&b, sum_keep(b, nb, sb))))
        r = sumproduct_pair(a, b, nsum, sum);
    pt_tensor_release(a);
    pt_tensor_release(b);
    return r;
}

static pt_status contract_all(plan *p, pt_tensor **ops, int32_t path_len, const int64_t *path)
{
    int32_t n = p->nops, step = 0;
    while (n > 1) {
        int64_t i = 0, j = 1;
        if (path_len >= 0) {
            i = path[2 * step], j = path[2 * step + 1];
            step++;
            if (j < i) {
                const int64_t s = i;
                i = j, j = s;
            }
            if (i == j || i < 0 || j >= n)
                return PT_ERROR(PT_ERR_RUNTIME, "einsum(): invalid contraction (%lld, %lld) %s",
                                (long long)i, (long long)j,
                                i == j ? "cannot contract an operand with itself"
                                       : "operand index is out of bounds");
        }
        pt_tensor *a = ops[i], *b = ops[j];
        memmove(ops + j, ops + j + 1, sizeof *ops * (size_t)(n - j - 1));
        memmove(ops + i, ops + i + 1, sizeof *ops * (size_t)(n - i - 2));
        n -= 2;
        ops[n] = ops[n + 1] = NULL;
        pt_tensor *r = contract_pair(p, a, b);
        if (!r) return pt_error_code();
        if (path_len >= 0) {
            ops[n++] = r;
        } else {
            memmove(ops + 1, ops, sizeof *ops * (size_t)n);
            ops[0] = r;
            n++;
        }
    }
    return PT_OK;
}

pt_status pt_native_einsum(const char *equation, int32_t n, pt_tensor *const *tensors,
                           int32_t path_len, const int64_t *path, pt_tensor **ret)
{
    if (!equation) return PT_ERROR(PT_ERR_TYPE, "einsum(): the equation must be a string");
    if (n == 0) return PT_ERROR(PT_ERR_RUNTIME, "einsum(): must provide at least one operand");
    if (n > MAX_OPERANDS)
        return PT_ERROR(PT_ERR_RUNTIME, "einsum(): at most %d operands are supported, got %d",
                        (int)MAX_OPERANDS, (int)n);
    if (path_len >= 0 && path_len != (n == 1 ? 1 : (n - 1) * 2))
        return PT_ERROR(PT_ERR_RUNTIME, "einsum(): expected contraction path given in path "
                        "parameter to have size %d but got %d", n == 1 ? 1 : (n - 1) * 2,
                        (int)path_len);
    plan *p = malloc(sizeof *p + sizeof(term) * (size_t)n);
    pt_tensor **ops = calloc((size_t)n, sizeof *ops);
    pt_status st = p && ops ? make_plan(equation, n, tensors, p)
                            : PT_ERROR(PT_ERR_MEMORY, "einsum(): out of memory");
    for (int32_t k = 0; st == PT_OK && k < n; k++) st = align(p, k, tensors[k], &ops[k]);
    if (st == PT_OK && n > 1) st = contract_all(p, ops, path_len, path);
    pt_tensor *res = NULL;
    if (st == PT_OK) {
        int64_t dims[PT_MAX_DIMS];
        const int32_t extra = p->perm_size - p->out_size;
        for (int32_t i = 0; i < extra; i++) dims[i] = p->out_size + i;
        if (extra == 0) res = ref(ops[0]);
        else if (n > 1) res = pt_call_view(ops[0], p->out_size, ops[0]->sizes);
        else res = pt_call_sum_dim_IntList(ops[0], extra, dims, 0, -1);
        if (!res) st = pt_error_code();
    }
    for (int32_t k = 0; ops && k < n; k++) pt_tensor_release(ops[k]);
    free(ops);
    free(p);
    if (st != PT_OK) return st;
    *ret = res;
    return PT_OK;
}
