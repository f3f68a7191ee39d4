/* factories.c - the factory operators' kernels (empty, zeros, full, arange, eye, the *_like
 * family) and the option handling every factory shares.
 *
 * Each kernel resolves PyTorch's optional factory arguments the way torch does — a missing dtype
 * is inferred (int64 for integral arange bounds, the fill value's kind for full) or the default
 * float; a missing device is the CPU; only the strided layout exists — and then builds the result
 * from the core's device-generic functions (pt_tensor_empty + pt_tensor_fill_, pt_tensor_arange,
 * ...), so one kernel serves every backend and is registered under CompositeExplicitAutograd.
 * empty and empty_strided allocate and are registered per backend, as in PyTorch.
 */
#include <string.h>

#include "native.h"

static const pt_device cpu_device = {PT_DEV_CPU, -1};

/* ---------------------------------------------------------------- shared helpers */
pt_status pt_native_options(const char *op, int32_t dtype, int32_t default_dtype, int32_t layout,
                            const pt_device *device, int32_t pin_memory, int32_t *dtype_out,
                            pt_device *device_out)
{
    if (layout >= 0 && layout != PT_LAYOUT_STRIDED) {
        if (layout == PT_LAYOUT_SPARSE_COO)
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s(): layout=sparse_coo is not supported yet",
                            op);
        return PT_ERROR(PT_ERR_VALUE, "%s(): argument 'layout': unknown layout %d", op,
                        (int)layout);
    }
    if (pin_memory > 0)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s(): pin_memory=True is not supported yet", op);
    if (dtype < 0) dtype = default_dtype;
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    *dtype_out = dtype;
    *device_out = device ? *device : cpu_device;
    return PT_OK;
}

pt_status pt_native_format_strides(const char *op, int32_t ndim, const int64_t *sizes,
                                   int32_t memory_format, int64_t *strides)
{
    if (ndim < 0 || ndim > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_VALUE, "%s(): expected 0 to %d dimensions, got %d", op,
                        PT_MAX_DIMS, (int)ndim);
    static const int nhwc[4] = {1, 3, 2, 0}, ndhwc[5] = {1, 4, 3, 2, 0};
    const int *order;
    switch (memory_format) {
    case PT_MEMORY_FORMAT_CONTIGUOUS:
    case PT_MEMORY_FORMAT_PRESERVE: pt_contiguous_strides(ndim, sizes, strides); return PT_OK;
    case PT_MEMORY_FORMAT_CHANNELS_LAST:
        if (ndim != 4)
            return PT_ERROR(PT_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
        order = nhwc;
        break;
    case PT_MEMORY_FORMAT_CHANNELS_LAST_3D:
        if (ndim != 5)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "required rank 5 tensor to use channels_last_3d format");
        order = ndhwc;
        break;
    default:
        return PT_ERROR(PT_ERR_VALUE, "%s(): argument 'memory_format': unknown memory format %d",
                        op, (int)memory_format);
    }
    /* order lists the dims from the fastest; torch multiplies the sizes as they are */
    int64_t acc = 1;
    for (int32_t k = 0; k < ndim; k++) {
        strides[order[k]] = acc;
        acc *= sizes[order[k]];
    }
    return PT_OK;
}

/* -1: d0 before d1 in the memory order (the smaller stride), 1: after, 0: keep (torch's
 * infer_dense_strides comparison; a 0 stride compares as undecided). */
static int stride_order(const int64_t *sizes, const int64_t *strides, int32_t d0, int32_t d1)
{
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] != strides[d1]) return strides[d0] < strides[d1] ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
}

void pt_native_like_strides(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                            int64_t *out)
{
    /* dense and non-overlapping: the dims of size >= 2, by increasing stride, multiply up */
    int32_t order[PT_MAX_DIMS];
    for (int32_t i = 0; i < ndim; i++) {
        int32_t j = i;
        for (; j > 0; j--) {
            const int32_t p = order[j - 1];
            const bool p_small = sizes[p] < 2, i_small = sizes[i] < 2;
            if (p_small < i_small || (p_small == i_small && strides[p] <= strides[i])) break;
            order[j] = p;
        }
        order[j] = i;
    }
    /* a tensor without elements counts as contiguous, hence dense, as in torch */
    int64_t expected = 1;
    bool dense = true, empty = false;
    for (int32_t d = 0; d < ndim; d++) empty = empty || sizes[d] == 0;
    for (int32_t k = 0; !empty && k < ndim && sizes[order[k]] >= 2; k++) {
        if (strides[order[k]] != expected) {
            dense = false;
            break;
        }
        expected *= sizes[order[k]];
    }
    if (dense) {
        memcpy(out, strides, sizeof(int64_t) * (size_t)ndim);
        return;
    }
    /* insertion sort of the dims (innermost last at the start) by stride order */
    int32_t perm[PT_MAX_DIMS];
    for (int32_t i = 0; i < ndim; i++) perm[i] = ndim - 1 - i;
    for (int32_t i = 1; i < ndim; i++) {
        int32_t d1 = i;
        for (int32_t d0 = i - 1; d0 >= 0; d0--) {
            const int c = stride_order(sizes, strides, perm[d0], perm[d1]);
            if (c > 0) {
                const int32_t tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
    int64_t acc = 1;
    for (int32_t k = 0; k < ndim; k++) {
        out[perm[k]] = acc;
        if (sizes[perm[k]] > 1) acc *= sizes[perm[k]];
    }
}

pt_status pt_native_self(pt_tensor *t, pt_tensor **out)
{
    pt_tensor_retain(t);
    *out = t;
    return PT_OK;
}

pt_status pt_native_alias(const pt_tensor *t, pt_tensor **out)
{
    return pt_tensor_as_strided(t, t->ndim, t->sizes, t->strides, t->offset, out);
}

/* Hands t out, or releases it when the step that filled it failed. */
static pt_status finish(pt_status st, pt_tensor *t, pt_tensor **out)
{
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *out = t;
    return PT_OK;
}

static pt_status filled(const char *op, int32_t n, const int64_t *size, const pt_scalar *value,
                        int32_t dtype, int32_t layout, const pt_device *device,
                        int32_t pin_memory, pt_tensor **out)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options(op, dtype, pt_native_default_float(), layout, device, pin_memory, &dt,
                             &dev));
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(n, size, dt, dev, &t));
    return finish(pt_tensor_fill_(t, value), t, out);
}

/* ---------------------------------------------------------------- empty, zeros, ones, full */
pt_status pt_native_empty(int32_t size_len, const int64_t *size, int32_t dtype, int32_t layout,
                          const pt_device *device, int32_t pin_memory, int32_t memory_format,
                          pt_tensor **ret)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("empty", dtype, pt_native_default_float(), layout, device, pin_memory,
                             &dt, &dev));
    if (memory_format < 0 || memory_format == PT_MEMORY_FORMAT_CONTIGUOUS)
        return pt_tensor_empty(size_len, size, dt, dev, ret);
    if (memory_format == PT_MEMORY_FORMAT_PRESERVE)
        return PT_ERROR(PT_ERR_RUNTIME, "unsupported memory format Preserve");
    int64_t strides[PT_MAX_DIMS];
    PT_TRY(pt_native_format_strides("empty", size_len, size, memory_format, strides));
    return pt_tensor_empty_strided(size_len, size, strides, dt, dev, ret);
}

pt_status pt_native_empty_strided(int32_t size_len, const int64_t *size, int32_t stride_len,
                                  const int64_t *stride, int32_t dtype, int32_t layout,
                                  const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    if (size_len != stride_len)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "dimensionality of sizes (%d) must match dimensionality of strides (%d)",
                        (int)size_len, (int)stride_len);
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("empty_strided", dtype, pt_native_default_float(), layout, device,
                             pin_memory, &dt, &dev));
    return pt_tensor_empty_strided(size_len, size, stride, dt, dev, ret);
}

pt_status pt_native_zeros(int32_t size_len, const int64_t *size, int32_t dtype, int32_t layout,
                          const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    const pt_scalar zero = {.kind = PT_SCALAR_INT, .i = 0};
    return filled("zeros", size_len, size, &zero, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_ones(int32_t size_len, const int64_t *size, int32_t dtype, int32_t layout,
                         const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    const pt_scalar one = {.kind = PT_SCALAR_INT, .i = 1};
    return filled("ones", size_len, size, &one, dtype, layout, device, pin_memory, ret);
}

/* torch.full's dtype for a fill value: bool, int64, the default float or its complex. */
static int32_t scalar_dtype(const pt_scalar *s)
{
    switch (s->kind) {
    case PT_SCALAR_BOOL: return PT_BOOL;
    case PT_SCALAR_INT: return PT_INT64;
    case PT_SCALAR_COMPLEX: return pt_native_default_complex();
    default: return pt_native_default_float();
    }
}

static pt_status check_scalar(const char *op, const char *arg, const pt_scalar *s)
{
    if (!s) return PT_ERROR(PT_ERR_TYPE, "%s(): argument '%s' must be a Number, not None", op, arg);
    return PT_OK;
}

pt_status pt_native_full(int32_t size_len, const int64_t *size, const pt_scalar *fill_value,
                         int32_t dtype, int32_t layout, const pt_device *device,
                         int32_t pin_memory, pt_tensor **ret)
{
    PT_TRY(check_scalar("full", "fill_value", fill_value));
    if (dtype < 0) dtype = scalar_dtype(fill_value);
    return filled("full", size_len, size, fill_value, dtype, layout, device, pin_memory, ret);
}

/* ---------------------------------------------------------------- arange, linspace, eye */
static pt_status arange(const pt_scalar *start, const pt_scalar *end, const pt_scalar *step,
                        int32_t dtype, int32_t layout, const pt_device *device,
                        int32_t pin_memory, pt_tensor **ret)
{
    PT_TRY(check_scalar("arange", "start", start));
    PT_TRY(check_scalar("arange", "end", end));
    PT_TRY(check_scalar("arange", "step", step));
    int32_t inferred = PT_INT64;
    const pt_scalar *all[3] = {start, end, step};
    for (int i = 0; i < 3; i++) {
        if (all[i]->kind == PT_SCALAR_COMPLEX) inferred = pt_native_default_complex();
        else if (all[i]->kind == PT_SCALAR_FLOAT && inferred == PT_INT64)
            inferred = pt_native_default_float();
    }
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("arange", dtype, inferred, layout, device, pin_memory, &dt, &dev));
    return pt_tensor_arange(start, end, step, dt, dev, ret);
}

static const pt_scalar int_zero = {.kind = PT_SCALAR_INT, .i = 0};
static const pt_scalar int_one = {.kind = PT_SCALAR_INT, .i = 1};

pt_status pt_native_arange(const pt_scalar *end, int32_t dtype, int32_t layout,
                           const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    return arange(&int_zero, end, &int_one, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_arange_start(const pt_scalar *start, const pt_scalar *end, int32_t dtype,
                                 int32_t layout, const pt_device *device, int32_t pin_memory,
                                 pt_tensor **ret)
{
    return arange(start, end, &int_one, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_arange_start_step(const pt_scalar *start, const pt_scalar *end,
                                      const pt_scalar *step, int32_t dtype, int32_t layout,
                                      const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    return arange(start, end, step, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_linspace(const pt_scalar *start, const pt_scalar *end, int64_t steps,
                             int32_t dtype, int32_t layout, const pt_device *device,
                             int32_t pin_memory, pt_tensor **ret)
{
    PT_TRY(check_scalar("linspace", "start", start));
    PT_TRY(check_scalar("linspace", "end", end));
    const bool complex = start->kind == PT_SCALAR_COMPLEX || end->kind == PT_SCALAR_COMPLEX;
    int32_t dt = 0;
    pt_device dev = {0, 0};
    const int32_t inferred = complex ? pt_native_default_complex() : pt_native_default_float();
    PT_TRY(pt_native_options("linspace", dtype, inferred, layout, device, pin_memory, &dt, &dev));
    return pt_tensor_linspace(start, end, steps, dt, dev, ret);
}

pt_status pt_native_eye_m(int64_t n, int64_t m, int32_t dtype, int32_t layout,
                          const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("eye", dtype, pt_native_default_float(), layout, device, pin_memory,
                             &dt, &dev));
    return pt_tensor_eye(n, m, dt, dev, ret);
}

pt_status pt_native_eye(int64_t n, int32_t dtype, int32_t layout, const pt_device *device,
                        int32_t pin_memory, pt_tensor **ret)
{
    return pt_native_eye_m(n, n, dtype, layout, device, pin_memory, ret);
}

/* ---------------------------------------------------------------- *_like */
pt_status pt_native_like(const char *op, const pt_tensor *self, int32_t dtype, int32_t layout,
                         const pt_device *device, int32_t pin_memory, int32_t memory_format,
                         pt_tensor **out)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options(op, dtype, self->dtype, layout, device ? device : &self->device,
                             pin_memory, &dt, &dev));
    int64_t strides[PT_MAX_DIMS];
    if (memory_format < 0 || memory_format == PT_MEMORY_FORMAT_PRESERVE)
        pt_native_like_strides(self->ndim, self->sizes, self->strides, strides);
    else
        PT_TRY(pt_native_format_strides(op, self->ndim, self->sizes, memory_format, strides));
    return pt_tensor_empty_strided(self->ndim, self->sizes, strides, dt, dev, out);
}

pt_status pt_native_empty_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                               const pt_device *device, int32_t pin_memory, int32_t memory_format,
                               pt_tensor **ret)
{
    return pt_native_like("empty_like", self, dtype, layout, device, pin_memory, memory_format,
                          ret);
}

static pt_status filled_like(const char *op, const pt_tensor *self, const pt_scalar *value,
                             int32_t dtype, int32_t layout, const pt_device *device,
                             int32_t pin_memory, int32_t memory_format, pt_tensor **ret)
{
    pt_tensor *t = NULL;
    PT_TRY(pt_native_like(op, self, dtype, layout, device, pin_memory, memory_format, &t));
    return finish(pt_tensor_fill_(t, value), t, ret);
}

pt_status pt_native_zeros_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                               const pt_device *device, int32_t pin_memory, int32_t memory_format,
                               pt_tensor **ret)
{
    return filled_like("zeros_like", self, &int_zero, dtype, layout, device, pin_memory,
                       memory_format, ret);
}

pt_status pt_native_ones_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                              const pt_device *device, int32_t pin_memory, int32_t memory_format,
                              pt_tensor **ret)
{
    return filled_like("ones_like", self, &int_one, dtype, layout, device, pin_memory,
                       memory_format, ret);
}

pt_status pt_native_full_like(const pt_tensor *self, const pt_scalar *fill_value, int32_t dtype,
                              int32_t layout, const pt_device *device, int32_t pin_memory,
                              int32_t memory_format, pt_tensor **ret)
{
    PT_TRY(check_scalar("full_like", "fill_value", fill_value));
    return filled_like("full_like", self, fill_value, dtype, layout, device, pin_memory,
                       memory_format, ret);
}
