/* composites.c - operators that PyTorch writes as compositions of others, so that the graph
 * autograd records (the node names a user reads from grad_fn and next_functions) is PyTorch's.
 *
 * rsub is sub with its operands swapped; its overloads have derivative entries of their own
 * (RsubBackward0, RsubBackward1), so the call below autograd is sub's kernel, not a recorded sub.
 */
#include "native.h"

/* ---------------------------------------------------------------- rsub */
/* A Scalar as a 0-d CPU wrapped-number tensor (Note [wrapped numbers] in pytensor.h), the form
 * in which sub takes it. */
static pt_status wrapped_number(const pt_scalar *s, pt_tensor **out)
{
    if (!s) return PT_ERROR(PT_ERR_TYPE, "rsub(): argument 'other' must be a Number, not None");
    int32_t dtype;
    switch (s->kind) {
    case PT_SCALAR_BOOL: dtype = PT_BOOL; break;
    case PT_SCALAR_INT: dtype = PT_INT64; break;
    case PT_SCALAR_COMPLEX: dtype = PT_COMPLEX128; break;
    default: dtype = PT_FLOAT64; break;
    }
    const pt_device cpu = {PT_DEV_CPU, -1};
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(0, NULL, dtype, cpu, &t));
    const pt_status st = pt_tensor_fill_(t, s);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    pt_tensor_set_wrapped_number(t, 1);
    *out = t;
    return PT_OK;
}

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

pt_status pt_native_rsub_Tensor(const pt_tensor *self, const pt_tensor *other,
                                const pt_scalar *alpha, pt_tensor **ret)
{
    return returned(pt_call_sub_Tensor(other, self, alpha), ret);
}

pt_status pt_native_rsub_Scalar(const pt_tensor *self, const pt_scalar *other,
                                const pt_scalar *alpha, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_number(other, &w));
    pt_tensor *r = pt_call_sub_Tensor(w, self, alpha);
    pt_tensor_release(w);
    return returned(r, ret);
}
