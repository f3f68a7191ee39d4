/* foreach.c - torch's _foreach_* list operators and the fused optimizer steps (_fused_adam_,
 * _fused_adamw_, _fused_sgd_, _fused_adagrad_): one call over every tensor of its lists.
 *
 * All tensors of a call are laid end to end as one range of elements (position i covers
 * [start[i], start[i + 1])) and that range is split across threads (pt_parallel_for, Note
 * [elementwise grain] in iter.h), so a hundred small parameters cost one parallel region, not a
 * hundred, and one big one is split like an elementwise op. A thread maps its part back onto
 * (position, offset) pieces and runs the loop of csrc/kernels/cpu/foreach_kernels.c on each.
 * The in-place forms write self (lists[0] = lists[1] = self); the forms that return Tensor[] are
 * boxed kernels that allocate contiguous results and run the same loops into them.
 *
 * Accepted: contiguous float32/float64 CPU tensors, one dtype per call, lists of one length with
 * equal sizes at each position; anything else is refused with a message naming the operator
 * (torch's slow per-tensor path has no counterpart here). Versions of written tensors are bumped
 * here, as the dispatcher does for single written tensors.
 *
 * Note [fused optimizer steps]
 * The fused kernels run one optimizer's whole update per element in one pass: Adam reads param,
 * grad, exp_avg and exp_avg_sq once and writes them once, where the foreach form of the same
 * update takes six passes. Step counters stay in the state_steps tensors, which the caller
 * advances before the call (torch's Python does `_foreach_add_(state_steps, 1)` first); the bias
 * corrections are computed here per tensor in double from each tensor's step. grad_scale divides
 * the gradients (and writes them back unscaled); a nonzero found_inf skips the step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxing.h"
#include "cpu_stub.h"
#include "foreach.h"
#include "iter.h"
#include "shape_common.h"

PT_CPU_STUB(foreach, pt_foreach_table, "list operators and fused optimizer steps (float32, float64)")

enum { FE_LISTS = 5 };

typedef struct fe_job {
    int32_t op, dtype, n;
    pt_tensor *const *lists[FE_LISTS]; /* lists[0] written; NULL: not an operand */
    const pt_fe_args *args;            /* one per position, or one for all */
    bool args_per_tensor;
    int64_t *start;
} fe_job;

static void fe_chunk(int64_t begin, int64_t end, void *ctx)
{
    const fe_job *j = ctx;
    const pt_foreach_table *tab = PT_CPU_KERNELS(foreach, pt_foreach_table);
    const pt_fe_fn fn = j->dtype == PT_FLOAT32 ? tab->f32[j->op] : tab->f64[j->op];
    const int64_t isz = pt_dtype_itemsize(j->dtype);
    int32_t lo = 0, hi = j->n;
    while (hi - lo > 1) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (j->start[mid] <= begin) lo = mid;
        else hi = mid;
    }
    for (int32_t i = lo; i < j->n && begin < end; i++) {
        const int64_t stop = end < j->start[i + 1] ? end : j->start[i + 1];
        if (stop <= begin) continue;
        const int64_t off = (begin - j->start[i]) * isz;
        char *p[FE_LISTS] = {0};
        for (int32_t k = 0; k < FE_LISTS; k++)
            if (j->lists[k]) p[k] = (char *)pt_tensor_data(j->lists[k][i]) + off;
        fn(p, stop - begin, j->args + (j->args_per_tensor ? i : 0));
        begin = stop;
    }
}

static pt_status fe_tensor_ok(const char *name, const pt_tensor *t, const pt_tensor *like,
                              int32_t dtype)
{
    if (!t) return PT_ERROR(PT_ERR_RUNTIME, "%s: expected a tensor, got None", name);
    if (t->device.type != PT_DEV_CPU)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected CPU tensors", name);
    if (t->dtype != dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected all tensors to have dtype %s, got %s", name,
                        pt_shape_legacy_name(dtype), pt_shape_legacy_name(t->dtype));
    if (!pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS))
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected contiguous tensors", name);
    if (like && (t->ndim != like->ndim ||
                 memcmp(t->sizes, like->sizes, sizeof(int64_t) * (size_t)t->ndim) != 0))
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected the tensors at each position of the lists "
                        "to have the same sizes", name);
    return PT_OK;
}

/* Checks the lists (lens[k] < 0: not an operand; an empty list beyond the first is allowed only
 * where `optional` has bit k) and runs op over them. written: bit k = lists[k] is written. */
static pt_status fe_run(const char *name, int32_t op, const int32_t *lens,
                        pt_tensor *const *const *lists, int32_t optional, int32_t written,
                        const pt_fe_args *args, bool args_per_tensor)
{
    const int32_t n = lens[0];
    if (n == 0) return PT_ERROR(PT_ERR_RUNTIME, "Tensor list must have at least one tensor.");
    const int32_t dtype = lists[0][0] ? lists[0][0]->dtype : PT_FLOAT32;
    if (dtype != PT_FLOAT32 && dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: only float32 and float64 tensors are "
                        "supported, got %s", name, pt_shape_legacy_name(dtype));
    fe_job j = {.op = op, .dtype = dtype, .n = n, .args = args, .args_per_tensor = args_per_tensor};
    for (int32_t k = 0; k < FE_LISTS; k++) {
        if (lens[k] < 0 || (lens[k] == 0 && ((optional >> k) & 1))) continue;
        if (lens[k] != n)
            return PT_ERROR(PT_ERR_RUNTIME, "Tensor lists must have the same number of tensors, "
                            "got %d and %d", (int)n, (int)lens[k]);
        j.lists[k] = lists[k];
        for (int32_t i = 0; i < n; i++)
            PT_TRY(fe_tensor_ok(name, lists[k][i], k ? lists[0][i] : NULL, dtype));
    }
    j.start = malloc(sizeof(int64_t) * ((size_t)n + 1));
    if (!j.start) return PT_ERROR(PT_ERR_MEMORY, "%s: out of memory", name);
    j.start[0] = 0;
    for (int32_t i = 0; i < n; i++) j.start[i + 1] = j.start[i] + lists[0][i]->numel;
    pt_parallel_for(j.start[n], PT_GRAIN, fe_chunk, &j);
    free(j.start);
    if (pt_version_guard) return PT_OK;
    for (int32_t k = 0; k < FE_LISTS; k++)
        if (((written >> k) & 1) && j.lists[k])
            for (int32_t i = 0; i < n; i++) PT_TRY(pt_version_bump_tensor(lists[k][i]));
    return PT_OK;
}

static pt_status fe_scalar(const char *name, const pt_scalar *s, double *out)
{
    if (!s) {
        *out = 1;
        return PT_OK;
    }
    if (s->kind == PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: complex scalars are not supported", name);
    *out = s->kind == PT_SCALAR_FLOAT ? s->re : (double)s->i;
    return PT_OK;
}

static pt_status fe_item(const pt_tensor *t, double *out)
{
    pt_scalar s;
    PT_TRY(pt_tensor_item(t, &s));
    return fe_scalar("item", &s, out);
}

/* The 0-dim tensor of the .Tensor overloads of mul_/div_ as a double. */
static pt_status fe_scalar_tensor(const pt_tensor *t, double *out)
{
    if (t->ndim != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "scalar tensor expected to be 0 dim but it has %d "
                        "dimensions and %lld elements.", (int)t->ndim, (long long)t->numel);
    return fe_item(t, out);
}

/* ---------------------------------------------------------------- in-place forms */
#define FE_LENS(a, b, c, d) ((const int32_t[FE_LISTS]){a, b, c, d, -1})
#define FE_PTRS(a, b, c, d) ((pt_tensor *const *const[FE_LISTS]){a, b, c, d, NULL})

static pt_status fe_inplace(const char *name, int32_t op, int32_t n, pt_tensor *const *self,
                            int32_t n2, pt_tensor *const *t2, int32_t n3, pt_tensor *const *t3,
                            double s0)
{
    const pt_fe_args a = {.s = {s0}};
    return fe_run(name, op, FE_LENS(n, n, n2, n3), FE_PTRS(self, self, t2, t3), 0, 1, &a, false);
}

#define FE_SCALAR_KERNEL(NAME, OP, NEGATE)                                                         \
    pt_status pt_kernel_foreach_##NAME##__Scalar(int32_t self_len, pt_tensor *const *self,        \
                                                  const pt_scalar *scalar)                         \
    {                                                                                              \
        double s = 0;                                                                                  \
        PT_TRY(fe_scalar("_foreach_" #NAME "_", scalar, &s));                                      \
        return fe_inplace("_foreach_" #NAME "_", OP, self_len, self, -1, NULL, -1, NULL,           \
                          NEGATE ? -s : s);                                                        \
    }
FE_SCALAR_KERNEL(add, PT_FE_ADD_S, 0)
FE_SCALAR_KERNEL(sub, PT_FE_ADD_S, 1)
FE_SCALAR_KERNEL(mul, PT_FE_MUL_S, 0)
FE_SCALAR_KERNEL(div, PT_FE_DIV_S, 0)
FE_SCALAR_KERNEL(maximum, PT_FE_MAX_S, 0)
FE_SCALAR_KERNEL(clamp_min, PT_FE_CLAMP_MIN_S, 0)
FE_SCALAR_KERNEL(clamp_max, PT_FE_CLAMP_MAX_S, 0)

pt_status pt_kernel_foreach_add__List(int32_t self_len, pt_tensor *const *self, int32_t other_len,
                                      pt_tensor *const *other, const pt_scalar *alpha)
{
    double s = 0;
    PT_TRY(fe_scalar("_foreach_add_", alpha, &s));
    return fe_inplace("_foreach_add_", PT_FE_ADD_L, self_len, self, other_len, other, -1, NULL, s);
}

pt_status pt_kernel_foreach_sub__List(int32_t self_len, pt_tensor *const *self, int32_t other_len,
                                      pt_tensor *const *other, const pt_scalar *alpha)
{
    double s = 0;
    PT_TRY(fe_scalar("_foreach_sub_", alpha, &s));
    return fe_inplace("_foreach_sub_", PT_FE_ADD_L, self_len, self, other_len, other, -1, NULL, -s);
}

#define FE_LIST_KERNEL(NAME, OP)                                                                   \
    pt_status pt_kernel_foreach_##NAME##__List(int32_t self_len, pt_tensor *const *self,          \
                                                int32_t other_len, pt_tensor *const *other)        \
    {                                                                                              \
        return fe_inplace("_foreach_" #NAME "_", OP, self_len, self, other_len, other, -1, NULL,   \
                          0);                                                                      \
    }
FE_LIST_KERNEL(mul, PT_FE_MUL_L)
FE_LIST_KERNEL(div, PT_FE_DIV_L)
FE_LIST_KERNEL(maximum, PT_FE_MAX_L)
FE_LIST_KERNEL(clamp_min, PT_FE_CLAMP_MIN_L)
FE_LIST_KERNEL(clamp_max, PT_FE_CLAMP_MAX_L)

pt_status pt_kernel_foreach_mul__Tensor(int32_t self_len, pt_tensor *const *self,
                                        const pt_tensor *other)
{
    double s = 0;
    PT_TRY(fe_scalar_tensor(other, &s));
    return fe_inplace("_foreach_mul_", PT_FE_MUL_S, self_len, self, -1, NULL, -1, NULL, s);
}

pt_status pt_kernel_foreach_div__Tensor(int32_t self_len, pt_tensor *const *self,
                                        const pt_tensor *other)
{
    double s = 0;
    PT_TRY(fe_scalar_tensor(other, &s));
    return fe_inplace("_foreach_div_", PT_FE_DIV_S, self_len, self, -1, NULL, -1, NULL, s);
}

/* The per-position scalars of the .Tensor overloads of addcmul/addcdiv: a 1-D tensor of n. */
static pt_status fe_scalar_list(const pt_tensor *t, int32_t n, pt_fe_args **out)
{
    if (t->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected packed scalar Tensor to be of dimension 1. "
                        "Got %d instead.", (int)t->ndim);
    if (t->numel != n)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor list must have same number of elements as "
                        "scalar list.");
    pt_fe_args *a = calloc((size_t)(n > 0 ? n : 1), sizeof *a);
    if (!a) return PT_ERROR(PT_ERR_MEMORY, "out of memory");
    const char *base = pt_tensor_data(t);
    const int64_t step = t->strides[0] * pt_dtype_itemsize(t->dtype);
    for (int32_t i = 0; i < n; i++) {
        const char *p = base + step * i;
        switch (t->dtype) {
        case PT_FLOAT32: a[i].s[0] = *(const float *)p; break;
        case PT_FLOAT64: a[i].s[0] = *(const double *)p; break;
        case PT_INT64: a[i].s[0] = (double)*(const int64_t *)p; break;
        case PT_INT32: a[i].s[0] = *(const int32_t *)p; break;
        default:
            free(a);
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "packed scalars of dtype %s are not "
                            "supported", pt_shape_legacy_name(t->dtype));
        }
    }
    *out = a;
    return PT_OK;
}

#define FE_ADDC_KERNELS(NAME, OP)                                                                  \
    pt_status pt_kernel_foreach_##NAME##__Scalar(                                                  \
        int32_t self_len, pt_tensor *const *self, int32_t tensor1_len, pt_tensor *const *tensor1,  \
        int32_t tensor2_len, pt_tensor *const *tensor2, const pt_scalar *value)                    \
    {                                                                                              \
        double s = 0;                                                                                  \
        PT_TRY(fe_scalar("_foreach_" #NAME "_", value, &s));                                       \
        return fe_inplace("_foreach_" #NAME "_", OP, self_len, self, tensor1_len, tensor1,         \
                          tensor2_len, tensor2, s);                                                \
    }                                                                                              \
    pt_status pt_kernel_foreach_##NAME##__Tensor(                                                  \
        int32_t self_len, pt_tensor *const *self, int32_t tensor1_len, pt_tensor *const *tensor1,  \
        int32_t tensor2_len, pt_tensor *const *tensor2, const pt_tensor *scalars)                  \
    {                                                                                              \
        pt_fe_args *a;                                                                             \
        PT_TRY(fe_scalar_list(scalars, self_len, &a));                                             \
        pt_status st = fe_run("_foreach_" #NAME "_", OP,                                           \
                              FE_LENS(self_len, self_len, tensor1_len, tensor2_len),               \
                              FE_PTRS(self, self, tensor1, tensor2), 0, 1, a, true);               \
        free(a);                                                                                   \
        return st;                                                                                 \
    }
FE_ADDC_KERNELS(addcmul, PT_FE_ADDCMUL)
FE_ADDC_KERNELS(addcdiv, PT_FE_ADDCDIV)

pt_status pt_kernel_foreach_lerp__Scalar(int32_t self_len, pt_tensor *const *self,
                                         int32_t tensors1_len, pt_tensor *const *tensors1,
                                         const pt_scalar *weight)
{
    double s = 0;
    PT_TRY(fe_scalar("_foreach_lerp_", weight, &s));
    return fe_inplace("_foreach_lerp_", PT_FE_LERP_S, self_len, self, tensors1_len, tensors1, -1,
                      NULL, s);
}

pt_status pt_kernel_foreach_lerp__List(int32_t self_len, pt_tensor *const *self,
                                       int32_t tensors1_len, pt_tensor *const *tensors1,
                                       int32_t weights_len, pt_tensor *const *weights)
{
    return fe_inplace("_foreach_lerp_", PT_FE_LERP_L, self_len, self, tensors1_len, tensors1,
                      weights_len, weights, 0);
}

#define FE_UNARY_KERNEL(NAME, OP)                                                                  \
    pt_status pt_kernel_foreach_##NAME##_(int32_t self_len, pt_tensor *const *self)               \
    {                                                                                              \
        return fe_inplace("_foreach_" #NAME "_", OP, self_len, self, -1, NULL, -1, NULL, 0);       \
    }
FE_UNARY_KERNEL(sqrt, PT_FE_SQRT)
FE_UNARY_KERNEL(neg, PT_FE_NEG)
FE_UNARY_KERNEL(abs, PT_FE_ABS)
FE_UNARY_KERNEL(sign, PT_FE_SIGN)
FE_UNARY_KERNEL(reciprocal, PT_FE_RECIPROCAL)
FE_UNARY_KERNEL(exp, PT_FE_EXP)
FE_UNARY_KERNEL(zero, PT_FE_ZERO)

pt_status pt_kernel_foreach_copy_(int32_t self_len, pt_tensor *const *self, int32_t src_len,
                                  pt_tensor *const *src, int32_t non_blocking)
{
    PT_UNUSED(non_blocking);
    return fe_run("_foreach_copy_", PT_FE_COPY, FE_LENS(self_len, src_len, -1, -1),
                  FE_PTRS(self, src, NULL, NULL), 0, 1, &(pt_fe_args){0}, false);
}

/* ---------------------------------------------------------------- Tensor[] results (boxed) */
/* Runs op with fresh outputs shaped like `self` (lists[0]); on success the stack holds them. */
static pt_status fe_outplace(pt_stack *stack, int32_t nargs, const char *name, int32_t op,
                             const int32_t *lens, pt_tensor *const **lists,
                             const pt_fe_args *args, bool per_tensor)
{
    const int32_t n = lens[1];
    pt_tensor **outs = calloc((size_t)(n > 0 ? n : 1), sizeof *outs);
    if (!outs) return PT_ERROR(PT_ERR_MEMORY, "%s: out of memory", name);
    pt_status st = PT_OK;
    for (int32_t i = 0; i < n && st == PT_OK; i++) {
        const pt_tensor *t = lists[1][i];
        st = t ? pt_shape_empty(t->ndim, t->sizes, t->dtype, false, &outs[i])
               : PT_ERROR(PT_ERR_RUNTIME, "%s: expected a tensor, got None", name);
    }
    if (st == PT_OK) {
        pt_tensor *const *all[FE_LISTS] = {outs, lists[1], lists[2], lists[3], NULL};
        const int32_t l[FE_LISTS] = {n, lens[1], lens[2], lens[3], -1};
        st = fe_run(name, op, l, all, 0, 0, args, per_tensor);
    }
    if (st != PT_OK) {
        for (int32_t i = 0; i < n; i++)
            if (outs[i]) pt_tensor_release(outs[i]);
        free(outs);
        return st;
    }
    const int32_t base = stack->size - nargs;
    stack->items[base] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .owned = 1, .len = n,
                                     .tensors = outs};
    stack->size = base + 1;
    return PT_OK;
}

/* kind: 'u' (self), 'S' (self, scalar), 'L' (self, other), 'A' (self, other, alpha),
 * 'C' (self, t1, t2, scalar), 'T' (self, t1, t2, tensor of scalars), 'l' (self, t1, weights),
 * 's' (self, t1, scalar weight). */
static pt_status fe_boxed(const pt_op *op, pt_stack *stack, const char *name, int32_t fop,
                          char kind, bool negate)
{
    const int32_t nargs = kind == 'u' ? 1 : kind == 'S' || kind == 'L' ? 2
                        : kind == 'A' || kind == 'l' || kind == 's' ? 3 : 4;
    PT_TRY(pt_box_check_stack(op, stack, nargs, 1));
    const pt_ivalue *a = stack->items + stack->size - nargs;
    int32_t lens[FE_LISTS] = {-1, -1, -1, -1, -1};
    pt_tensor *const *lists[FE_LISTS] = {NULL};
    PT_TRY(pt_unbox_tensor_list(op, a, 0, 0, &lens[1], &lists[1]));
    const int32_t ntl = kind == 'u' || kind == 'S' ? 0 : kind == 'L' || kind == 'A' || kind == 's'
                                                          ? 1 : 2;
    for (int32_t k = 0; k < ntl; k++)
        PT_TRY(pt_unbox_tensor_list(op, a, 1 + k, 0, &lens[2 + k], &lists[2 + k]));
    pt_fe_args one = {.flags = 0};
    if (kind == 'S' || kind == 'A' || kind == 'C' || kind == 's') {
        pt_scalar v;
        const pt_scalar *vp;
        PT_TRY(pt_unbox_scalar(op, a, nargs - 1, 0, &v, &vp));
        PT_TRY(fe_scalar(name, vp, &one.s[0]));
        if (negate) one.s[0] = -one.s[0];
    }
    if (kind == 'T') {
        pt_tensor *sc;
        pt_fe_args *per;
        PT_TRY(pt_unbox_tensor(op, a, 3, 0, &sc));
        PT_TRY(fe_scalar_list(sc, lens[1], &per));
        pt_status st = fe_outplace(stack, nargs, name, fop, lens, lists, per, true);
        free(per);
        return st;
    }
    return fe_outplace(stack, nargs, name, fop, lens, lists, &one, false);
}

#define FE_BOXED(FN, NAME, OP, KIND, NEG)                                                          \
    pt_status pt_native_foreach_##FN(const pt_op *op, int32_t key, uint64_t keyset,               \
                                     pt_stack *stack, void *ctx)                                   \
    {                                                                                              \
        PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);                                         \
        return fe_boxed(op, stack, NAME, OP, KIND, NEG);                                           \
    }
FE_BOXED(add_Scalar, "_foreach_add", PT_FE_ADD_S, 'S', false)
FE_BOXED(add_List, "_foreach_add", PT_FE_ADD_L, 'A', false)
FE_BOXED(sub_Scalar, "_foreach_sub", PT_FE_ADD_S, 'S', true)
FE_BOXED(sub_List, "_foreach_sub", PT_FE_ADD_L, 'A', true)
FE_BOXED(mul_Scalar, "_foreach_mul", PT_FE_MUL_S, 'S', false)
FE_BOXED(mul_List, "_foreach_mul", PT_FE_MUL_L, 'L', false)
FE_BOXED(div_Scalar, "_foreach_div", PT_FE_DIV_S, 'S', false)
FE_BOXED(div_List, "_foreach_div", PT_FE_DIV_L, 'L', false)
FE_BOXED(maximum_Scalar, "_foreach_maximum", PT_FE_MAX_S, 'S', false)
FE_BOXED(maximum_List, "_foreach_maximum", PT_FE_MAX_L, 'L', false)
FE_BOXED(clamp_min_Scalar, "_foreach_clamp_min", PT_FE_CLAMP_MIN_S, 'S', false)
FE_BOXED(clamp_min_List, "_foreach_clamp_min", PT_FE_CLAMP_MIN_L, 'L', false)
FE_BOXED(clamp_max_Scalar, "_foreach_clamp_max", PT_FE_CLAMP_MAX_S, 'S', false)
FE_BOXED(clamp_max_List, "_foreach_clamp_max", PT_FE_CLAMP_MAX_L, 'L', false)
FE_BOXED(addcmul_Scalar, "_foreach_addcmul", PT_FE_ADDCMUL, 'C', false)
FE_BOXED(addcmul_Tensor, "_foreach_addcmul", PT_FE_ADDCMUL, 'T', false)
FE_BOXED(addcdiv_Scalar, "_foreach_addcdiv", PT_FE_ADDCDIV, 'C', false)
FE_BOXED(addcdiv_Tensor, "_foreach_addcdiv", PT_FE_ADDCDIV, 'T', false)
FE_BOXED(lerp_List, "_foreach_lerp", PT_FE_LERP_L, 'l', false)
FE_BOXED(lerp_Scalar, "_foreach_lerp", PT_FE_LERP_S, 's', false)
FE_BOXED(sqrt, "_foreach_sqrt", PT_FE_SQRT, 'u', false)
FE_BOXED(neg, "_foreach_neg", PT_FE_NEG, 'u', false)
FE_BOXED(abs, "_foreach_abs", PT_FE_ABS, 'u', false)
FE_BOXED(sign, "_foreach_sign", PT_FE_SIGN, 'u', false)
FE_BOXED(reciprocal, "_foreach_reciprocal", PT_FE_RECIPROCAL, 'u', false)
FE_BOXED(exp, "_foreach_exp", PT_FE_EXP, 'u', false)

/* _foreach_norm.Scalar: one 0-dim tensor per input, the ord-norm of all its elements. */
pt_status pt_native_foreach_norm_Scalar(const pt_op *op, int32_t key, uint64_t keyset,
                                        pt_stack *stack, void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    PT_TRY(pt_box_check_stack(op, stack, 3, 1));
    const pt_ivalue *a = stack->items + stack->size - 3;
    int32_t n, dtype;
    pt_tensor *const *self;
    pt_scalar v;
    const pt_scalar *vp;
    double ord;
    PT_TRY(pt_unbox_tensor_list(op, a, 0, 0, &n, &self));
    PT_TRY(pt_unbox_scalar(op, a, 1, 0, &v, &vp));
    PT_TRY(fe_scalar("_foreach_norm", vp, &ord));
    PT_TRY(pt_unbox_enum(op, a, 2, PT_IV_DTYPE, 1, &dtype));
    if (n == 0) return PT_ERROR(PT_ERR_RUNTIME, "Tensor list must have at least one tensor.");
    const int32_t in_dtype = self[0] ? self[0]->dtype : PT_FLOAT32;
    if (dtype < 0) dtype = in_dtype;
    if ((in_dtype != PT_FLOAT32 && in_dtype != PT_FLOAT64) ||
        (dtype != PT_FLOAT32 && dtype != PT_FLOAT64))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "_foreach_norm: only float32 and float64 "
                        "tensors are supported");
    for (int32_t i = 0; i < n; i++) PT_TRY(fe_tensor_ok("_foreach_norm", self[i], NULL, in_dtype));
    const pt_foreach_table *tab = PT_CPU_KERNELS(foreach, pt_foreach_table);
    pt_tensor **outs = calloc((size_t)(n > 0 ? n : 1), sizeof *outs);
    if (!outs) return PT_ERROR(PT_ERR_MEMORY, "_foreach_norm: out of memory");
    for (int32_t i = 0; i < n; i++) {
        pt_status st = pt_shape_empty(0, NULL, dtype, false, &outs[i]);
        if (st != PT_OK) {
            while (i > 0) pt_tensor_release(outs[--i]);
            free(outs);
            return st;
        }
        const void *x = pt_tensor_data(self[i]);
        const int64_t m = self[i]->numel;
        double r = in_dtype == PT_FLOAT32 ? tab->norm_f32(x, m, ord) : tab->norm_f64(x, m, ord);
        if (ord != 0 && ord != 1 && !isinf(ord)) r = ord == 2 ? sqrt(r) : pow(r, 1.0 / ord);
        if (dtype == PT_FLOAT32) *(float *)pt_tensor_data(outs[i]) = (float)r;
        else *(double *)pt_tensor_data(outs[i]) = r;
    }
    const int32_t base = stack->size - 3;
    stack->items[base] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .owned = 1, .len = n,
                                     .tensors = outs};
    stack->size = base + 1;
    return PT_OK;
}

/* ---------------------------------------------------------------- fused optimizer steps */
/* grad_scale and found_inf (Note [fused optimizer steps]): *skip when found_inf is nonzero. */
static pt_status fe_amp(const pt_tensor *grad_scale, const pt_tensor *found_inf, pt_fe_args *a,
                        bool *skip)
{
    *skip = false;
    if (found_inf) {
        double f = 0;
        PT_TRY(fe_item(found_inf, &f));
        if (f != 0) {
            *skip = true;
            return PT_OK;
        }
    }
    if (grad_scale) {
        PT_TRY(fe_item(grad_scale, &a->s[7]));
        a->flags |= PT_FE_SCALE;
    }
    return PT_OK;
}

static pt_status fe_adam(const char *name, bool adamw, int32_t self_len, pt_tensor *const *self,
                         int32_t grads_len, pt_tensor *const *grads, int32_t exp_avgs_len,
                         pt_tensor *const *exp_avgs, int32_t exp_avg_sqs_len,
                         pt_tensor *const *exp_avg_sqs, int32_t max_len, pt_tensor *const *maxs,
                         int32_t steps_len, pt_tensor *const *steps, double lr, double beta1,
                         double beta2, double weight_decay, double eps, int32_t amsgrad,
                         int32_t maximize, const pt_tensor *grad_scale,
                         const pt_tensor *found_inf)
{
    pt_fe_args common = {.s = {lr, beta1, beta2, weight_decay, eps},
                         .flags = (amsgrad ? PT_FE_AMSGRAD : 0) | (maximize ? PT_FE_MAXIMIZE : 0) |
                                  (adamw ? PT_FE_ADAMW : 0)};
    bool skip;
    PT_TRY(fe_amp(grad_scale, found_inf, &common, &skip));
    if (skip) return PT_OK;
    if (steps_len != self_len)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor lists must have the same number of tensors, got "
                        "%d and %d", (int)self_len, (int)steps_len);
    if (amsgrad && max_len != self_len)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: amsgrad needs one max_exp_avg_sq per parameter",
                        name);
    pt_fe_args *a = calloc((size_t)(self_len > 0 ? self_len : 1), sizeof *a);
    if (!a) return PT_ERROR(PT_ERR_MEMORY, "%s: out of memory", name);
    pt_status st = PT_OK;
    for (int32_t i = 0; i < self_len && st == PT_OK; i++) {
        double step = 0;
        st = fe_item(steps[i], &step);
        a[i] = common;
        a[i].s[5] = lr / (1 - pow(beta1, step));
        a[i].s[6] = sqrt(1 - pow(beta2, step));
    }
    const int32_t lens[FE_LISTS] = {self_len, grads_len, exp_avgs_len, exp_avg_sqs_len,
                                    amsgrad ? max_len : -1};
    pt_tensor *const *const lists[FE_LISTS] = {self, grads, exp_avgs, exp_avg_sqs, maxs};
    if (st == PT_OK)
        st = fe_run(name, PT_FE_ADAM, lens, lists, 0, 0x1f, a, true);
    free(a);
    return st;
}

#define FE_ADAM_PARAMS                                                                             \
    int32_t self_len, pt_tensor *const *self, int32_t grads_len, pt_tensor *const *grads,          \
        int32_t exp_avgs_len, pt_tensor *const *exp_avgs, int32_t exp_avg_sqs_len,                 \
        pt_tensor *const *exp_avg_sqs, int32_t max_exp_avg_sqs_len,                                \
        pt_tensor *const *max_exp_avg_sqs, int32_t state_steps_len,                                \
        pt_tensor *const *state_steps
#define FE_ADAM_TAIL                                                                               \
    double beta1, double beta2, double weight_decay, double eps, int32_t amsgrad,                  \
        int32_t maximize, const pt_tensor *grad_scale, const pt_tensor *found_inf
#define FE_ADAM_ARGS                                                                               \
    self_len, self, grads_len, grads, exp_avgs_len, exp_avgs, exp_avg_sqs_len, exp_avg_sqs,        \
        max_exp_avg_sqs_len, max_exp_avg_sqs, state_steps_len, state_steps
#define FE_ADAM_TAIL_ARGS beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf

pt_status pt_kernel_fused_adam_(FE_ADAM_PARAMS, double lr, FE_ADAM_TAIL)
{
    return fe_adam("_fused_adam_", false, FE_ADAM_ARGS, lr, FE_ADAM_TAIL_ARGS);
}

pt_status pt_kernel_fused_adamw_(FE_ADAM_PARAMS, double lr, FE_ADAM_TAIL)
{
    return fe_adam("_fused_adamw_", true, FE_ADAM_ARGS, lr, FE_ADAM_TAIL_ARGS);
}

pt_status pt_kernel_fused_adam__tensor_lr(FE_ADAM_PARAMS, const pt_tensor *lr, FE_ADAM_TAIL)
{
    double v = 0;
    PT_TRY(fe_item(lr, &v));
    return fe_adam("_fused_adam_", false, FE_ADAM_ARGS, v, FE_ADAM_TAIL_ARGS);
}

pt_status pt_kernel_fused_adamw__tensor_lr(FE_ADAM_PARAMS, const pt_tensor *lr, FE_ADAM_TAIL)
{
    double v = 0;
    PT_TRY(fe_item(lr, &v));
    return fe_adam("_fused_adamw_", true, FE_ADAM_ARGS, v, FE_ADAM_TAIL_ARGS);
}

static pt_status fe_sgd(int32_t self_len, pt_tensor *const *self, int32_t grads_len,
                        pt_tensor *const *grads, int32_t bufs_len, pt_tensor *const *bufs,
                        double weight_decay, double momentum, double lr, double dampening,
                        int32_t nesterov, int32_t maximize, int32_t is_first_step,
                        const pt_tensor *grad_scale, const pt_tensor *found_inf)
{
    pt_fe_args a = {.s = {weight_decay, momentum, lr, dampening},
                    .flags = (nesterov ? PT_FE_NESTEROV : 0) | (maximize ? PT_FE_MAXIMIZE : 0) |
                             (is_first_step ? PT_FE_FIRST_STEP : 0) |
                             (momentum != 0 ? PT_FE_MOMENTUM : 0)};
    bool skip;
    PT_TRY(fe_amp(grad_scale, found_inf, &a, &skip));
    if (skip) return PT_OK;
    const int32_t lens[FE_LISTS] = {self_len, grads_len, momentum != 0 ? bufs_len : -1, -1, -1};
    pt_tensor *const *const lists[FE_LISTS] = {self, grads, bufs, NULL, NULL};
    return fe_run("_fused_sgd_", PT_FE_SGD, lens, lists, 0, 0x7, &a, false);
}

pt_status pt_kernel_fused_sgd_(int32_t self_len, pt_tensor *const *self, int32_t grads_len,
                               pt_tensor *const *grads, int32_t momentum_buffer_list_len,
                               pt_tensor *const *momentum_buffer_list, double weight_decay,
                               double momentum, double lr, double dampening, int32_t nesterov,
                               int32_t maximize, int32_t is_first_step,
                               const pt_tensor *grad_scale, const pt_tensor *found_inf)
{
    return fe_sgd(self_len, self, grads_len, grads, momentum_buffer_list_len,
                  momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize,
                  is_first_step, grad_scale, found_inf);
}

pt_status pt_kernel_fused_sgd__tensor_lr(int32_t self_len, pt_tensor *const *self,
                                         int32_t grads_len, pt_tensor *const *grads,
                                         int32_t momentum_buffer_list_len,
                                         pt_tensor *const *momentum_buffer_list,
                                         double weight_decay, double momentum,
                                         const pt_tensor *lr, double dampening, int32_t nesterov,
                                         int32_t maximize, int32_t is_first_step,
                                         const pt_tensor *grad_scale, const pt_tensor *found_inf)
{
    double v = 0;
    PT_TRY(fe_item(lr, &v));
    return fe_sgd(self_len, self, grads_len, grads, momentum_buffer_list_len,
                  momentum_buffer_list, weight_decay, momentum, v, dampening, nesterov, maximize,
                  is_first_step, grad_scale, found_inf);
}

static pt_status fe_adagrad(int32_t self_len, pt_tensor *const *self, int32_t grads_len,
                            pt_tensor *const *grads, int32_t sums_len, pt_tensor *const *sums,
                            int32_t steps_len, pt_tensor *const *steps, double lr,
                            double lr_decay, double weight_decay, double eps, int32_t maximize,
                            const pt_tensor *grad_scale, const pt_tensor *found_inf)
{
    pt_fe_args common = {.s = {0, weight_decay, eps}, .flags = maximize ? PT_FE_MAXIMIZE : 0};
    bool skip;
    PT_TRY(fe_amp(grad_scale, found_inf, &common, &skip));
    if (skip) return PT_OK;
    if (steps_len != self_len)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor lists must have the same number of tensors, got "
                        "%d and %d", (int)self_len, (int)steps_len);
    pt_fe_args *a = calloc((size_t)(self_len > 0 ? self_len : 1), sizeof *a);
    if (!a) return PT_ERROR(PT_ERR_MEMORY, "_fused_adagrad_: out of memory");
    pt_status st = PT_OK;
    for (int32_t i = 0; i < self_len && st == PT_OK; i++) {
        double step = 0;
        st = fe_item(steps[i], &step);
        a[i] = common;
        a[i].s[0] = lr / (1 + (step - 1) * lr_decay);
    }
    const int32_t lens[FE_LISTS] = {self_len, grads_len, sums_len, -1, -1};
    pt_tensor *const *const lists[FE_LISTS] = {self, grads, sums, NULL, NULL};
    if (st == PT_OK) st = fe_run("_fused_adagrad_", PT_FE_ADAGRAD, lens, lists, 0, 0x7, a, true);
    free(a);
    return st;
}

pt_status pt_kernel_fused_adagrad_(int32_t self_len, pt_tensor *const *self, int32_t grads_len,
                                   pt_tensor *const *grads, int32_t state_sums_len,
                                   pt_tensor *const *state_sums, int32_t state_steps_len,
                                   pt_tensor *const *state_steps, double lr, double lr_decay,
                                   double weight_decay, double eps, int32_t maximize,
                                   const pt_tensor *grad_scale, const pt_tensor *found_inf)
{
    return fe_adagrad(self_len, self, grads_len, grads, state_sums_len, state_sums,
                      state_steps_len, state_steps, lr, lr_decay, weight_decay, eps, maximize,
                      grad_scale, found_inf);
}

pt_status pt_kernel_fused_adagrad__tensor_lr(int32_t self_len, pt_tensor *const *self,
                                             int32_t grads_len, pt_tensor *const *grads,
                                             int32_t state_sums_len, pt_tensor *const *state_sums,
                                             int32_t state_steps_len,
                                             pt_tensor *const *state_steps, const pt_tensor *lr,
                                             double lr_decay, double weight_decay, double eps,
                                             int32_t maximize, const pt_tensor *grad_scale,
                                             const pt_tensor *found_inf)
{
    double v = 0;
    PT_TRY(fe_item(lr, &v));
    return fe_adagrad(self_len, self, grads_len, grads, state_sums_len, state_sums,
                      state_steps_len, state_steps, v, lr_decay, weight_decay, eps, maximize,
                      grad_scale, found_inf);
}
