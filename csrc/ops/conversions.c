/* conversions.c - copy_, the fills, clone, contiguous, the four `to` overloads, _to_copy and
 * resize_, fitted to torch's schemas over the core's device-generic functions (csrc/kernels/copy.c,
 * csrc/core/tensor.c).
 *
 * `to` follows torch's rule: the result is self itself when nothing would change (same dtype, same
 * device, copy=False, and self already in the requested memory format); otherwise it is
 * _to_copy, which makes a new tensor (self's memory order kept under preserve_format) and copies
 * into it across dtypes and devices. non_blocking is accepted and ignored: every copy here is
 * synchronous.
 */
#include "native.h"

pt_status pt_native_copy_(pt_tensor *self, const pt_tensor *src, int32_t non_blocking,
                          pt_tensor **ret)
{
    PT_UNUSED(non_blocking);
    PT_TRY(pt_tensor_copy_(self, src));
    return pt_native_self(self, ret);
}

pt_status pt_native_fill__Scalar(pt_tensor *self, const pt_scalar *value, pt_tensor **ret)
{
    PT_TRY(pt_tensor_fill_(self, value));
    return pt_native_self(self, ret);
}

pt_status pt_native_fill__Tensor(pt_tensor *self, const pt_tensor *value, pt_tensor **ret)
{
    if (value->ndim != 0)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "fill_ only supports 0-dimension value tensor but got tensor with %d "
                        "dimensions.",
                        (int)value->ndim);
    if (self->device.type == PT_DEV_META && value->device.type == PT_DEV_META)
        return pt_native_self(self, ret); /* nothing to read, nothing to write */
    pt_scalar v;
    PT_TRY(pt_tensor_item(value, &v));
    return pt_native_fill__Scalar(self, &v, ret);
}

pt_status pt_native_zero_(pt_tensor *self, pt_tensor **ret)
{
    const pt_scalar zero = {.kind = PT_SCALAR_INT, .i = 0};
    return pt_native_fill__Scalar(self, &zero, ret);
}

pt_status pt_native_clone(const pt_tensor *self, int32_t memory_format, pt_tensor **ret)
{
    return pt_tensor_clone(self, memory_format < 0 ? PT_MEMORY_FORMAT_PRESERVE : memory_format,
                           ret);
}

pt_status pt_native_contiguous(const pt_tensor *self, int32_t memory_format, pt_tensor **ret)
{
    if (memory_format < 0) memory_format = PT_MEMORY_FORMAT_CONTIGUOUS;
    if (pt_tensor_is_contiguous(self, memory_format)) return pt_native_self((pt_tensor *)self, ret);
    if (memory_format == PT_MEMORY_FORMAT_PRESERVE)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "preserve memory format is unsupported by the contiguous operator");
    return pt_tensor_clone(self, memory_format, ret);
}

/* ---------------------------------------------------------------- to */
/* The copy of _to_copy once the options are resolved. */
static pt_status to_copy(const pt_tensor *self, int32_t dtype, pt_device device,
                         int32_t memory_format, pt_tensor **ret)
{
    if (memory_format < 0 || memory_format == PT_MEMORY_FORMAT_PRESERVE)
        return pt_tensor_to(self, dtype, device, 1, ret);
    int64_t strides[PT_MAX_DIMS];
    PT_TRY(pt_native_format_strides("to", self->ndim, self->sizes, memory_format, strides));
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty_strided(self->ndim, self->sizes, strides, dtype, device, &t));
    const pt_status st = pt_tensor_copy_(t, self);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *ret = t;
    return PT_OK;
}

/* device NULL and dtype -1 keep self's. */
static pt_status to_impl(const pt_tensor *self, int32_t dtype, int32_t layout,
                         const pt_device *device, int32_t pin_memory, int32_t copy,
                         int32_t memory_format, pt_tensor **ret)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("to", dtype, self->dtype, layout, device ? device : &self->device,
                             pin_memory, &dt, &dev));
    PT_TRY(pt_device_resolve(dev, &dev));
    const bool same = dt == self->dtype && dev.type == self->device.type &&
                      dev.index == self->device.index;
    const bool in_format = memory_format < 0 || memory_format == PT_MEMORY_FORMAT_PRESERVE ||
                           pt_tensor_is_contiguous(self, memory_format);
    if (!copy && same && in_format) return pt_native_self((pt_tensor *)self, ret);
    return to_copy(self, dt, dev, memory_format, ret);
}

pt_status pt_native_to_dtype_layout(const pt_tensor *self, int32_t dtype, int32_t layout,
                                    const pt_device *device, int32_t pin_memory,
                                    int32_t non_blocking, int32_t copy, int32_t memory_format,
                                    pt_tensor **ret)
{
    PT_UNUSED(non_blocking);
    return to_impl(self, dtype, layout, device, pin_memory, copy, memory_format, ret);
}

pt_status pt_native_to_device(const pt_tensor *self, pt_device device, int32_t dtype,
                              int32_t non_blocking, int32_t copy, int32_t memory_format,
                              pt_tensor **ret)
{
    PT_UNUSED(non_blocking);
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    return to_impl(self, dtype, -1, &device, -1, copy, memory_format, ret);
}

pt_status pt_native_to_dtype(const pt_tensor *self, int32_t dtype, int32_t non_blocking,
                             int32_t copy, int32_t memory_format, pt_tensor **ret)
{
    PT_UNUSED(non_blocking);
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    return to_impl(self, dtype, -1, NULL, -1, copy, memory_format, ret);
}

pt_status pt_native_to_other(const pt_tensor *self, const pt_tensor *other, int32_t non_blocking,
                             int32_t copy, int32_t memory_format, pt_tensor **ret)
{
    PT_UNUSED(non_blocking);
    return to_impl(self, other->dtype, -1, &other->device, -1, copy, memory_format, ret);
}

pt_status pt_native__to_copy(const pt_tensor *self, int32_t dtype, int32_t layout,
                             const pt_device *device, int32_t pin_memory, int32_t non_blocking,
                             int32_t memory_format, pt_tensor **ret)
{
    PT_UNUSED(non_blocking);
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("_to_copy", dtype, self->dtype, layout,
                             device ? device : &self->device, pin_memory, &dt, &dev));
    PT_TRY(pt_device_resolve(dev, &dev));
    return to_copy(self, dt, dev, memory_format, ret);
}

/* ---------------------------------------------------------------- resize_ */
pt_status pt_native_resize_(pt_tensor *self, int32_t size_len, const int64_t *size,
                            int32_t memory_format, pt_tensor **ret)
{
    if (memory_format == PT_MEMORY_FORMAT_PRESERVE)
        return PT_ERROR(PT_ERR_RUNTIME, "Unsupported memory format Preserve");
    int64_t strides[PT_MAX_DIMS];
    if (memory_format > 0) /* check the format before anything changes */
        PT_TRY(pt_native_format_strides("resize_", size_len, size, memory_format, strides));
    PT_TRY(pt_tensor_resize_(self, size_len, size));
    if (memory_format > 0) /* same extent as the contiguous layout resize_ made room for */
        PT_TRY(pt_tensor_set_(self, self->storage, self->offset, size_len, size, strides));
    return pt_native_self(self, ret);
}
