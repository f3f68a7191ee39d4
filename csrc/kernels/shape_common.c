/* shape_common.c - what the shape and indexing kernels share (shape_common.h): argument and
 * device checks in one wording, torch's dtype names for messages, broadcasting, the out= tail, and
 * the element arithmetic of the accumulating operators (Note [accumulation dtypes]).
 */
#include <string.h>

#include "shape_common.h"

pt_status pt_shape_check_tensor(const pt_tensor *t, const char *op, const char *arg)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    if (t->device.type == PT_DEV_CUDA)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "%s: %s is a CUDA tensor; this kernel computes on the CPU and meta "
                        "devices only", op, arg);
    return PT_OK;
}

pt_status pt_shape_device(int32_t n, const pt_tensor *const *ts, bool *meta)
{
    bool any_meta = false, any_cpu = false;
    for (int32_t i = 0; i < n; i++) {
        if (!ts[i]) continue;
        if (ts[i]->device.type == PT_DEV_META) any_meta = true;
        else any_cpu = true;
    }
    if (any_meta && any_cpu)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor on device cpu is not on the expected device meta!");
    *meta = any_meta;
    return PT_OK;
}

const char *pt_shape_cpp_name(int32_t dtype)
{
    static const char *const names[PT_DTYPE_BUILTIN_COUNT] = {
        [PT_BOOL] = "bool", [PT_UINT8] = "unsigned char", [PT_INT8] = "signed char",
        [PT_INT16] = "short int", [PT_INT32] = "int", [PT_INT64] = "long int",
        [PT_FLOAT16] = "c10::Half", [PT_BFLOAT16] = "c10::BFloat16", [PT_FLOAT32] = "float",
        [PT_FLOAT64] = "double", [PT_COMPLEX64] = "c10::complex<float>",
        [PT_COMPLEX128] = "c10::complex<double>"};
    _Static_assert(PT_DTYPE_BUILTIN_COUNT == 12, "one name per builtin dtype");
    if (dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT) return names[dtype];
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info ? info->name : "unknown";
}

const char *pt_shape_legacy_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if (!info) return "unknown";
    return info->legacy_name[0] ? info->legacy_name : info->name;
}

pt_status pt_shape_broadcast(int32_t na, const int64_t *a, int32_t nb, const int64_t *b,
                             int32_t *nd, int64_t *shape)
{
    int32_t n = na > nb ? na : nb;
    for (int32_t i = 0; i < n; i++) {
        int32_t ia = na - n + i, ib = nb - n + i;
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return PT_ERROR(PT_ERR_RUNTIME, "The size of tensor a (%lld) must match the size of "
                            "tensor b (%lld) at non-singleton dimension %d", (long long)sa,
                            (long long)sb, (int)i);
        shape[i] = sa == 1 ? sb : sa;
    }
    *nd = n;
    return PT_OK;
}

void pt_shape_broadcast_strides(const pt_tensor *t, int32_t nd, const int64_t *shape,
                                int64_t *strides)
{
    for (int32_t i = 0; i < nd; i++) {
        int32_t d = t->ndim - nd + i;
        strides[i] = d >= 0 && t->sizes[d] == shape[i] && shape[i] != 1 ? t->strides[d] : 0;
    }
}

pt_status pt_shape_check_writable(const pt_tensor *t, const char *op)
{
    if (t->device.type == PT_DEV_CPU && t->numel > 0 && !t->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the output tensor's storage is read-only", op);
    return PT_OK;
}

pt_status pt_shape_out_dtype(const pt_tensor *out, int32_t dtype)
{
    if (out->dtype == dtype) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                    pt_shape_cpp_name(dtype), pt_shape_cpp_name(out->dtype));
}

pt_status pt_shape_finish_out(const char *op, pt_tensor *result, pt_tensor *out_arg,
                              bool resize_any, pt_tensor **out)
{
    pt_status st = PT_OK;
    bool meta_mix = (result->device.type == PT_DEV_META) != (out_arg->device.type == PT_DEV_META);
    if (meta_mix)
        st = PT_ERROR(PT_ERR_RUNTIME, "%s: out is on device %s but the result is on %s", op,
                      out_arg->device.type == PT_DEV_META ? "meta" : "cpu",
                      result->device.type == PT_DEV_META ? "meta" : "cpu");
    if (st == PT_OK) st = pt_shape_check_writable(out_arg, op);
    bool same = pt_shape_same(out_arg->ndim, out_arg->sizes, result->ndim, result->sizes);
    if (st == PT_OK && !same) {
        if (resize_any || out_arg->numel == 0) {
            st = pt_tensor_resize_(out_arg, result->ndim, result->sizes);
        } else {
            char have[PT_SHAPE_CHARS], want[PT_SHAPE_CHARS];
            pt_format_ints(have, sizeof have, out_arg->ndim, out_arg->sizes);
            pt_format_ints(want, sizeof want, result->ndim, result->sizes);
            st = PT_ERROR(PT_ERR_RUNTIME, "%s: out with shape %s doesn't match the result shape "
                          "%s; only an out tensor with no elements is resized (resize_(0) it "
                          "first)", op, have, want);
        }
    }
    if (st == PT_OK && result->device.type != PT_DEV_META) st = pt_tensor_copy_(out_arg, result);
    pt_tensor_release(result);
    if (st != PT_OK) return st;
    pt_tensor_retain(out_arg);
    *out = out_arg;
    return PT_OK;
}

pt_status pt_shape_empty(int32_t ndim, const int64_t *sizes, int32_t dtype, bool meta,
                         pt_tensor **out)
{
    pt_device dev = {meta ? PT_DEV_META : PT_DEV_CPU, 0};
    return pt_tensor_empty(ndim, sizes, dtype, dev, out);
}

/* Note [accumulation dtypes]
 * scatter's reduce, scatter_add and index_put(accumulate=True) add or multiply in the element's
 * own type, as torch's CPU kernels do: integers wrap, bool adds as `or` and multiplies as `and`,
 * and float16/bfloat16 go through float32 and are rounded back once per element. */
#define ACC_CASE(ID, T)                                                                            \
    case ID: {                                                                                     \
        T a, b;                                                                                    \
        memcpy(&a, dst, sizeof a);                                                                 \
        memcpy(&b, src, sizeof b);                                                                 \
        a = op == PT_ACC_ADD ? (T)(a + b) : (T)(a * b);                                            \
        memcpy(dst, &a, sizeof a);                                                                 \
        return;                                                                                    \
    }
#define ACC_UNSIGNED_CASE(ID, T, U)                                                                \
    case ID: { /* through the unsigned type: wrapping is defined there */                         \
        T a, b;                                                                                    \
        memcpy(&a, dst, sizeof a);                                                                 \
        memcpy(&b, src, sizeof b);                                                                 \
        a = (T)(op == PT_ACC_ADD ? (U)((U)a + (U)b) : (U)((U)a * (U)b));                           \
        memcpy(dst, &a, sizeof a);                                                                 \
        return;                                                                                    \
    }

static void accumulate_complex(int op, char *dst, const char *src, bool wide)
{
    double ar, ai, br, bi;
    if (wide) {
        double v[4];
        memcpy(v, dst, 16);
        memcpy(v + 2, src, 16);
        ar = v[0], ai = v[1], br = v[2], bi = v[3];
    } else {
        float v[4];
        memcpy(v, dst, 8);
        memcpy(v + 2, src, 8);
        ar = v[0], ai = v[1], br = v[2], bi = v[3];
    }
    double re = op == PT_ACC_ADD ? ar + br : ar * br - ai * bi;
    double im = op == PT_ACC_ADD ? ai + bi : ar * bi + ai * br;
    if (wide) {
        double v[2] = {re, im};
        memcpy(dst, v, 16);
    } else {
        float v[2] = {(float)re, (float)im};
        memcpy(dst, v, 8);
    }
}

void pt_shape_accumulate(int32_t dtype, int op, char *dst, const char *src)
{
    switch (dtype) {
    case PT_BOOL: {
        bool a = *dst != 0, b = *src != 0;
        *dst = (char)(op == PT_ACC_ADD ? (a || b) : (a && b));
        return;
    }
    ACC_UNSIGNED_CASE(PT_UINT8, uint8_t, uint32_t)
    ACC_UNSIGNED_CASE(PT_INT8, int8_t, uint32_t)
    ACC_UNSIGNED_CASE(PT_INT16, int16_t, uint32_t)
    ACC_UNSIGNED_CASE(PT_INT32, int32_t, uint32_t)
    ACC_UNSIGNED_CASE(PT_INT64, int64_t, uint64_t)
    ACC_CASE(PT_FLOAT32, float)
    ACC_CASE(PT_FLOAT64, double)
    case PT_FLOAT16:
    case PT_BFLOAT16: {
        uint16_t a, b;
        memcpy(&a, dst, 2);
        memcpy(&b, src, 2);
        bool half = dtype == PT_FLOAT16;
        float x = half ? pt_half_to_float(a) : pt_bfloat16_to_float(a);
        float y = half ? pt_half_to_float(b) : pt_bfloat16_to_float(b);
        float r = op == PT_ACC_ADD ? x + y : x * y;
        a = half ? pt_float_to_half(r) : pt_float_to_bfloat16(r);
        memcpy(dst, &a, 2);
        return;
    }
    case PT_COMPLEX64: accumulate_complex(op, dst, src, false); return;
    case PT_COMPLEX128: accumulate_complex(op, dst, src, true); return;
    default: return;
    }
}
