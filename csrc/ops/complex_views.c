/* complex_views.c - the complex views and conjugation: view_as_real, view_as_complex, real, imag,
 * conj, resolve_conj, conj_physical. view_as_real and view_as_complex read the same bytes as
 * another dtype (a complex element is two real ones, real part first), so they only change
 * metadata and serve every backend (CompositeExplicitAutograd); real and imag are selects of
 * view_as_real and conj is _conj_physical or the input itself, composites that autograd sees
 * through (CompositeImplicitAutograd), as in torch.
 *
 * absolute, torch's alias of abs (which gives complex tensors their real dtype), lives here too.
 *
 * conj is lazy, as torch's: for a complex tensor it is _conj, a view of the same storage with the
 * conjugate bit flipped (Note [math bits] in pytensor.h), and for any other dtype the input
 * itself, so the conj() calls of the backward formulas (Note [conjugate Wirtinger gradients] in
 * derivatives.yaml) cost nothing. real of a conjugated view is the real part of its base, and
 * imag the imaginary part of its base with the negative bit (_neg_view), as in torch: both stay
 * views, and writes through them reach the base. resolve_conj / resolve_neg materialize a bit
 * into a new tensor; conj_physical always computes.
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
    if (self->math_bits & PT_MATH_BIT_CONJ)
        return PT_ERROR(PT_ERR_RUNTIME, "view_as_real doesn't work on unresolved conjugated "
                        "tensors.  To resolve the conjugate tensor so you can view it as real, "
                        "use self.resolve_conj(); however, be warned that the resulting tensor "
                        "will NOT alias the original.");
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
    if (!(self->math_bits & PT_MATH_BIT_CONJ)) return part(self, 0, ret);
    pt_tensor *base = pt_call__conj(self); /* the real parts are the base's */
    if (!base) return pt_error_code();
    pt_status st = part(base, 0, ret);
    pt_tensor_release(base);
    return st;
}

/* Of a conjugated view: view_as_real of its base, negated (_neg_view), then the imaginary column,
 * torch's order (so the node is SelectBackward0). */
pt_status pt_native_imag(const pt_tensor *self, pt_tensor **ret)
{
    if (!pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "imag is not implemented for tensors with non-complex "
                        "dtypes.");
    if (!(self->math_bits & PT_MATH_BIT_CONJ)) return part(self, 1, ret);
    pt_tensor *base = pt_call__conj(self);
    pt_tensor *v = base ? pt_call_view_as_real(base) : NULL;
    pt_tensor *n = v ? pt_call__neg_view(v) : NULL;
    pt_tensor *r = n ? pt_call_select_int(n, -1, 1) : NULL;
    pt_tensor_release(n);
    pt_tensor_release(v);
    pt_tensor_release(base);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- conjugation */
/* A view of self (same geometry, same storage, tracked as views are) with `bit` flipped. */
static pt_status flipped_view(const pt_tensor *self, int32_t bit, pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_tensor_as_strided(self, self->ndim, self->sizes, self->strides, self->offset, &r));
    pt_tensor_set_math_bits(r, r->math_bits ^ bit);
    *ret = r;
    return PT_OK;
}

/* torch's _conj: the conjugate bit flipped for complex tensors; other dtypes are their own
 * conjugate, and their view keeps its bits. */
pt_status pt_native__conj(const pt_tensor *self, pt_tensor **ret)
{
    return flipped_view(self, pt_is_complex(self->dtype) ? PT_MATH_BIT_CONJ : 0, ret);
}

pt_status pt_native__neg_view(const pt_tensor *self, pt_tensor **ret)
{
    return flipped_view(self, PT_MATH_BIT_NEG, ret);
}

pt_status pt_native_conj(const pt_tensor *self, pt_tensor **ret)
{
    if (!pt_is_complex(self->dtype)) return pt_native_self((pt_tensor *)self, ret);
    pt_tensor *r = pt_call__conj(self);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

pt_status pt_native_conj_physical(const pt_tensor *self, pt_tensor **ret)
{
    if (!pt_is_complex(self->dtype)) return pt_native_self((pt_tensor *)self, ret);
    pt_tensor *r = pt_call__conj_physical(self);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

/* A new tensor with self's values and `bit` cleared; self itself without the bit. Made of
 * operator calls (empty_like, copy_), so that autograd sees through it. */
static pt_status resolve(const pt_tensor *self, int32_t bit, pt_tensor **ret)
{
    if (!(self->math_bits & bit)) return pt_native_self((pt_tensor *)self, ret);
    pt_tensor *r = pt_call_empty_memory_format(self->ndim, self->sizes, self->dtype, self->layout,
                                               &self->device, 0, PT_MEMORY_FORMAT_CONTIGUOUS);
    if (!r) return pt_error_code();
    pt_tensor_set_math_bits(r, self->math_bits & ~bit);
    pt_tensor *c = pt_call_copy_(r, self, 0);
    if (!c) {
        pt_tensor_release(r);
        return pt_error_code();
    }
    pt_tensor_release(c);
    *ret = r;
    return PT_OK;
}

pt_status pt_native_resolve_conj(const pt_tensor *self, pt_tensor **ret)
{
    return resolve(self, PT_MATH_BIT_CONJ, ret);
}

pt_status pt_native_resolve_neg(const pt_tensor *self, pt_tensor **ret)
{
    return resolve(self, PT_MATH_BIT_NEG, ret);
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
