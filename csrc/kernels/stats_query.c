/* stats_query.c - the small questions torch answers at top level about tensors and dtypes:
 * is_complex, is_floating_point, is_signed, is_nonzero, is_same_size, numel and result_type
 * (its four overloads). Each reads metadata only (is_nonzero reads the one element), so they
 * serve every device through CompositeImplicitAutograd, as in torch.
 */
#include <string.h>

#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

pt_status pt_native_is_complex(const pt_tensor *self, int32_t *ret)
{
    *ret = pt_is_complex(self->dtype);
    return PT_OK;
}

pt_status pt_native_is_floating_point(const pt_tensor *self, int32_t *ret)
{
    *ret = pt_is_floating(self->dtype);
    return PT_OK;
}

pt_status pt_native_is_signed(const pt_tensor *self, int32_t *ret)
{
    const pt_dtype_info *info = pt_dtype_info_of(self->dtype);
    *ret = info && (info->kind & PT_KIND_SIGNED) != 0;
    return PT_OK;
}

pt_status pt_native_numel(const pt_tensor *self, int64_t *ret)
{
    *ret = self->numel;
    return PT_OK;
}

pt_status pt_native_is_same_size(const pt_tensor *self, const pt_tensor *other, int32_t *ret)
{
    *ret = self->ndim == other->ndim &&
           (self->ndim == 0 ||
            memcmp(self->sizes, other->sizes, sizeof(int64_t) * (size_t)self->ndim) == 0);
    return PT_OK;
}

pt_status pt_native_is_nonzero(const pt_tensor *self, int32_t *ret)
{
    if (self->numel == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Boolean value of Tensor with no values is ambiguous");
    if (self->numel > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Boolean value of Tensor with more than one value is "
                        "ambiguous");
    pt_scalar v;
    PT_TRY(pt_call_item(self, &v));
    switch (v.kind) {
    case PT_SCALAR_BOOL:
    case PT_SCALAR_INT: *ret = v.i != 0; break;
    case PT_SCALAR_COMPLEX: *ret = v.re != 0 || v.im != 0; break;
    default: *ret = v.re != 0; break; /* NaN is nonzero, as in torch */
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- result_type */

/* A Scalar as a 0-d CPU wrapped number, the form in which promotion reads a Python number. */
static pt_status wrapped(const pt_scalar *s, pt_tensor **out)
{
    const int32_t dtype = s->kind == PT_SCALAR_BOOL ? PT_BOOL : s->kind == PT_SCALAR_INT ? PT_INT64
                          : s->kind == PT_SCALAR_COMPLEX ? PT_COMPLEX128 : PT_FLOAT64;
    const pt_device cpu = {PT_DEV_CPU, -1};
    PT_TRY(pt_tensor_empty(0, NULL, dtype, cpu, out));
    pt_tensor_set_wrapped_number(*out, 1);
    return PT_OK;
}

static pt_status result_type(const pt_tensor *a, const pt_scalar *sa, const pt_tensor *b,
                             const pt_scalar *sb, int32_t *ret)
{
    pt_tensor *wa = NULL, *wb = NULL;
    if (!a) PT_TRY(wrapped(sa, &wa));
    pt_status st = !b ? wrapped(sb, &wb) : PT_OK;
    if (st == PT_OK) {
        pt_tensor *pair[2] = {a ? (pt_tensor *)a : wa, b ? (pt_tensor *)b : wb};
        st = pt_result_type(2, pair, ret);
    }
    if (wa) pt_tensor_release(wa);
    if (wb) pt_tensor_release(wb);
    return st;
}

pt_status pt_native_result_type_Tensor(const pt_tensor *tensor, const pt_tensor *other,
                                       int32_t *ret)
{
    return result_type(tensor, NULL, other, NULL, ret);
}

pt_status pt_native_result_type_Scalar(const pt_tensor *tensor, const pt_scalar *other,
                                       int32_t *ret)
{
    return result_type(tensor, NULL, NULL, other, ret);
}

pt_status pt_native_result_type_Scalar_Tensor(const pt_scalar *scalar, const pt_tensor *tensor,
                                              int32_t *ret)
{
    return result_type(NULL, scalar, tensor, NULL, ret);
}

pt_status pt_native_result_type_Scalar_Scalar(const pt_scalar *scalar1, const pt_scalar *scalar2,
                                              int32_t *ret)
{
    return result_type(NULL, scalar1, NULL, scalar2, ret);
}
