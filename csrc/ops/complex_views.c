/* complex_views.c - the complex views and conjugation: view_as_real, view_as_complex, real, imag,
 * conj, resolve_conj, conj_physical. view_as_real and view_as_complex read the same bytes as
 * another dtype (a complex element is two real ones, real part first), so they only change
 * metadata and serve every backend (CompositeExplicitAutograd); real and imag are selects of
 * view_as_real and conj is _conj_physical or the input itself, composites that autograd sees
 * through (CompositeImplicitAutograd), as in torch.
 *
 * absolute, torch's alias of abs (which gives complex tensors their real dtype), lives here too.
 *
 * Note [conj without a conj bit]
 * torch's conj is lazy: it returns a view with a conjugate bit that every kernel resolves when it
 * reads the tensor (is_conj() is True, writes through the view land in the base, conjugated).
 * pytensor has no conjugate bit, since every kernel, copy and exchange (NumPy, DLPack) would have
 * to honour it. conj of a complex tensor is therefore a new tensor (_conj_physical: a copy with
 * the imaginary parts negated, grad_fn ConjPhysicalBackward0 where torch shows ConjBackward0),
 * and conj of any other dtype is the input itself, as in torch, so the conj() calls of the
 * backward formulas (Note [conjugate Wirtinger gradients] in derivatives.yaml) cost nothing for
 * real tensors. is_conj() is always False and resolve_conj() returns its input.
 */
#include "iter.h"
#include "native.h"

static int32_t complex_of(int32_t dtype)
{
    return dtype == PT_FLOAT32 ? PT_COMPLEX64 : dtype == PT_FLOAT64 ? PT_COMPLEX128 : -1;
}

static int32_t real_of(int32_t dtype)
{
    return dtype == PT_COMPLEX64 ? PT_FLOAT32 : dtype == PT_COMPLEX128 ? PT_FLOAT64 : -1;
}

/* ---------------------------------------------------------------- view_as_real / view_as_complex */
/* torch's view_as_real: sizes + [2], strides doubled + [1], the offset doubled. */
pt_status pt_native_view_as_real(const pt_tensor *self, pt_tensor **ret)
{
    const int32_t rdt = real_of(self->dtype);
    if (rdt < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "view_as_real is only supported for complex tensors");
    if (self->ndim + 1 > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "view_as_real: a view of %d dims is more than the %d "
                        "pytensor supports", (int)self->ndim + 1, PT_MAX_DIMS);
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS], offset;
    for (int32_t d = 0; d < self->ndim; d++) {
        sizes[d] = self->sizes[d];
        if (__builtin_mul_overflow(self->strides[d], 2, &strides[d]))
            return PT_ERROR(PT_ERR_RUNTIME, "view_as_real: stride %lld overflows int64",
                            (long long)self->strides[d]);
    }
    sizes[self->ndim] = 2;
    strides[self->ndim] = 1;
    if (__builtin_mul_overflow(self->offset, 2, &offset))
        return PT_ERROR(PT_ERR_RUNTIME, "view_as_real: storage offset overflows int64");
    return pt_tensor_view_dtype(self, rdt, self->ndim + 1, sizes, strides, offset, ret);
}

/* torch's view_as_complex, with its checks in its order and its messages. float16 would give
 * complex32, which pytensor does not have. */
pt_status pt_native_view_as_complex(const pt_tensor *self, pt_tensor **ret)
{
    const int32_t cdt = complex_of(self->dtype);
    if (self->dtype == PT_FLOAT16)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "view_as_complex: a float16 tensor would become "
                        "complex32 (chalf), which pytensor does not support");
    if (cdt < 0) {
        const pt_dtype_info *info = pt_dtype_info_of(self->dtype);
        return PT_ERROR(PT_ERR_RUNTIME, "view_as_complex is only supported for half, float and "
                        "double tensors, but got a tensor of scalar type: %s",
                        info ? pt_iter_type_name(self->dtype) : "?");
    }
    const int32_t n = self->ndim;
    if (n == 0) return PT_ERROR(PT_ERR_RUNTIME, "Input tensor must have one or more dimensions");
    if (self->sizes[n - 1] != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor must have a last dimension of size 2");
    if (self->strides[n - 1] != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor must have a last dimension with stride 1");
    int64_t strides[PT_MAX_DIMS];
    for (int32_t d = 0; d < n - 1; d++) {
        if (self->strides[d] % 2 != 0)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "Tensor must have a stride divisible by 2 for all but last dimension");
        strides[d] = self->strides[d] / 2;
    }
    if (self->offset % 2 != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor must have a storage_offset divisible by 2");
    return pt_tensor_view_dtype(self, cdt, n - 1, self->sizes, strides, self->offset / 2, ret);
}

/* ---------------------------------------------------------------- real / imag */
static pt_status part(const pt_tensor *self, int64_t index, pt_tensor **ret)
{
    pt_tensor *v = pt_call_view_as_real(self);
    if (!v) return pt_error_code();
    pt_tensor *r = pt_call_select_int(v, -1, index);
    pt_tensor_release(v);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

pt_status pt_native_real(const pt_tensor *self, pt_tensor **ret)
{
    if (!pt_is_complex(self->dtype)) return pt_native_self((pt_tensor *)self, ret);
    return part(self, 0, ret);
}

pt_status pt_native_imag(const pt_tensor *self, pt_tensor **ret)
{
    if (!pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "imag is not implemented for tensors with non-complex "
                        "dtypes.");
    return part(self, 1, ret);
}

/* ---------------------------------------------------------------- conjugation */
/* Note [conj without a conj bit]: a copy for complex tensors, the input itself otherwise. */
pt_status pt_native_conj(const pt_tensor *self, pt_tensor **ret)
{
    if (!pt_is_complex(self->dtype)) return pt_native_self((pt_tensor *)self, ret);
    pt_tensor *r = pt_call__conj_physical(self);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

pt_status pt_native_conj_physical(const pt_tensor *self, pt_tensor **ret)
{
    return pt_native_conj(self, ret);
}

/* Nothing is ever lazily conjugated (Note [conj without a conj bit]). */
pt_status pt_native_resolve_conj(const pt_tensor *self, pt_tensor **ret)
{
    return pt_native_self((pt_tensor *)self, ret);
}

/* ---------------------------------------------------------------- absolute (abs) */
static pt_status result_of(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

pt_status pt_native_absolute(const pt_tensor *self, pt_tensor **ret)
{
    return result_of(pt_call_abs(self), ret);
}

pt_status pt_native_absolute_(pt_tensor *self, pt_tensor **ret)
{
    return result_of(pt_call_abs_(self), ret);
}

pt_status pt_native_absolute_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return result_of(pt_call_abs_out(self, out), ret);
}
