/* native.h - what the adapter kernels of csrc/ops (pt_native_*) share: the checks of PyTorch's
 * factory options (dtype, layout, device, pin_memory), strides for a memory format, and results
 * that are the input itself or a new view of it. The adapters' prototypes come from the generated
 * pt_ops_internal.h, so each one is checked against its schema where it is defined.
 */
#ifndef PT_OPS_NATIVE_H
#define PT_OPS_NATIVE_H

#include "internal.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

/* The dtypes factories use when none is given and none is inferred: the default dtype
 * (torch.get_default_dtype) and its complex counterpart. */
static inline int32_t pt_native_default_float(void) { return pt_dtype_default(); }
static inline int32_t pt_native_default_complex(void)
{
    return pt_dtype_default() == PT_FLOAT64 ? PT_COMPLEX128 : PT_COMPLEX64;
}

/* Resolves a factory's options: dtype (-1 -> default_dtype, else checked), layout (only strided
 * is supported), device (NULL -> the CPU), pin_memory (not supported). */
pt_status pt_native_options(const char *op, int32_t dtype, int32_t default_dtype, int32_t layout,
                            const pt_device *device, int32_t pin_memory, int32_t *dtype_out,
                            pt_device *device_out);
/* Dense strides for a memory format: contiguous (and preserve, where the caller means it) or
 * channels_last (4-d) / channels_last_3d (5-d). */
pt_status pt_native_format_strides(const char *op, int32_t ndim, const int64_t *sizes,
                                   int32_t memory_format, int64_t *strides);
/* torch's empty_like strides for preserve_format: the input's own strides when they are dense and
 * non-overlapping, else dense strides in the order of the input's strides. */
void pt_native_like_strides(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                            int64_t *out);
/* A Scalar argument `arg` of op as a 0-d CPU wrapped number (Note [wrapped numbers] in
 * pytensor.h): bool, int64, complex128 or float64 by the Scalar's kind; NULL is torch's
 * "argument must be a Number, not None" TypeError. */
pt_status pt_native_wrapped_number(const char *op, const char *arg, const pt_scalar *s,
                                   pt_tensor **out);
/* A new reference to t as the result of an in-place op or a no-op conversion. */
pt_status pt_native_self(pt_tensor *t, pt_tensor **out);
/* A new tensor object viewing exactly what t views. */
pt_status pt_native_alias(const pt_tensor *t, pt_tensor **out);
/* The empty_like of the *_like factories: self's shape; dtype and device from the arguments or
 * self; memory_format -1 / preserve keeps self's memory order. */
pt_status pt_native_like(const char *op, const pt_tensor *self, int32_t dtype, int32_t layout,
                         const pt_device *device, int32_t pin_memory, int32_t memory_format,
                         pt_tensor **out);

#endif
