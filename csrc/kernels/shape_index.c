/* shape_index.c - the shape_more family's operators that compute indices or gather by them:
 * take_along_dim (gather of operands broadcast outside dim), repeat_interleave (the index vector
 * of a repeats tensor, then index_select; an int count by unsqueeze, expand, clone and view),
 * the tril_indices / triu_indices factories, and vander (a cumulative product of x repeated).
 * Only the index vector and the index factories write elements directly; the rest are operator
 * calls, so their gradients and node names are those of the operators they call.
 */
#include <stdlib.h>
#include <string.h>

#include "shape_more.h"

/* ---------------------------------------------------------------- take_along_dim */

/* torch's take_along_dim: with a dim, self and indices broadcast against each other everywhere
 * but along dim (each keeps its own size there) and gather; without one, a gather of the
 * flattened self. */
static pt_status take_along_dim(const pt_tensor *self, const pt_tensor *indices,
                                const int64_t *dim, pt_tensor **ret)
{
    if (indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.take_along_dim(): dtype of indices should be Long "
                        "but got %s", pt_shape_legacy_name(indices->dtype));
    static const int64_t flat[1] = {-1};
    if (!dim) {
        pt_tensor *s = pt_call_view(self, 1, flat), *i = NULL, *r = NULL;
        if (s && (i = pt_call_reshape(indices, 1, flat))) r = pt_call_gather(s, 0, i, 0);
        pt_tensor_release(s);
        pt_tensor_release(i);
        return give(r, ret);
    }
    if (self->ndim != indices->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.take_along_dim(): input and indices should have "
                        "the same number of dimensions, but got %d dimensions for input, and %d "
                        "dimensions for indices", (int)self->ndim, (int)indices->ndim);
    int32_t d;
    PT_TRY(pt_wrap_dim(*dim, self->ndim, &d));
    int64_t a[PT_MAX_DIMS], shape_i[PT_MAX_DIMS], shape_s[PT_MAX_DIMS];
    int32_t ni = 0, ns = 0;
    const int32_t nd = self->ndim;
    if (nd > 0) {
        memcpy(a, self->sizes, sizeof(int64_t) * (size_t)nd);
        a[d] = indices->sizes[d];
        PT_TRY(pt_broadcast_sizes(nd, a, nd, indices->sizes, &ni, shape_i));
        memcpy(a, indices->sizes, sizeof(int64_t) * (size_t)nd);
        a[d] = self->sizes[d];
        PT_TRY(pt_broadcast_sizes(nd, a, nd, self->sizes, &ns, shape_s));
    }
    pt_tensor *i = pt_call_expand(indices, ni, shape_i, 0), *s = NULL, *r = NULL;
    if (i && (s = pt_call_expand(self, ns, shape_s, 0))) r = pt_call_gather(s, d, i, 0);
    pt_tensor_release(i);
    pt_tensor_release(s);
    return give(r, ret);
}

pt_status pt_native_take_along_dim(const pt_tensor *self, const pt_tensor *indices,
                                   const int64_t *dim, pt_tensor **ret)
{
    return take_along_dim(self, indices, dim, ret);
}

pt_status pt_native_take_along_dim_out(const pt_tensor *self, const pt_tensor *indices,
                                       const int64_t *dim, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(take_along_dim(self, indices, dim, &r));
    return give_out("take_along_dim", r, out, ret);
}

/* ---------------------------------------------------------------- repeat_interleave */

/* The index vector of repeats: i written repeats[i] times, in the repeats' dtype (int32 or
 * int64). output_size, when given, must be the sum (torch checks the same). */
pt_status pt_kernel_repeat_interleave_Tensor(const pt_tensor *repeats, const int64_t *output_size,
                                             pt_tensor **ret)
{
    if (repeats->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "repeat_interleave only accept 1D vector as repeat");
    if (repeats->dtype != PT_INT64 && repeats->dtype != PT_INT32)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"repeat_interleave_cpu\" not implemented for "
                        "'%s'", pt_shape_legacy_name(repeats->dtype));
    const int64_t n = repeats->sizes[0], stride = repeats->strides[0];
    const char *p = pt_tensor_data((pt_tensor *)repeats);
    const int64_t item = pt_dtype_itemsize(repeats->dtype);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = pt_shape_read_index(p + i * stride * item, repeats->dtype);
        if (r < 0) return PT_ERROR(PT_ERR_RUNTIME, "repeats can not be negative");
        if (__builtin_add_overflow(total, r, &total))
            return PT_ERROR(PT_ERR_RUNTIME, "repeat_interleave: the repeats sum past int64");
    }
    if (output_size && *output_size != total)
        return PT_ERROR(PT_ERR_RUNTIME, "allocated size does not match required size");
    pt_tensor *r = NULL;
    PT_TRY(pt_shape_empty(1, &total, repeats->dtype, false, &r));
    char *q = pt_tensor_data(r);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = pt_shape_read_index(p + i * stride * item, repeats->dtype);
        for (int64_t j = 0; j < c; j++, at++) {
            if (repeats->dtype == PT_INT64) ((int64_t *)q)[at] = i;
            else ((int32_t *)q)[at] = (int32_t)i;
        }
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_native_repeat_interleave_Tensor_out(const pt_tensor *repeats,
                                                 const int64_t *output_size, pt_tensor *out,
                                                 pt_tensor **ret)
{
    return give_out("repeat_interleave", pt_call_repeat_interleave_Tensor(repeats, output_size),
                    out, ret);
}

/* The input repeat_interleave works on: self along dim, or self flattened along 0. */
static pt_tensor *interleave_input(const pt_tensor *self, const int64_t *dim, int32_t *d)
{
    if (dim) {
        if (pt_wrap_dim(*dim, self->ndim, d) != PT_OK) return NULL;
        return self_ref(self);
    }
    *d = 0;
    return pt_call_flatten_using_ints(self, 0, -1);
}

pt_status pt_native_repeat_interleave_self_Tensor(const pt_tensor *self, const pt_tensor *repeats,
                                                  const int64_t *dim, const int64_t *output_size,
                                                  pt_tensor **ret)
{
    int32_t d = 0;
    pt_tensor *in = interleave_input(self, dim, &d), *rep = NULL, *idx = NULL, *r = NULL;
    if (!in) return pt_error_code();
    const int64_t len = in->ndim ? in->sizes[d] : 1;
    if (repeats->ndim == 0 || (repeats->ndim == 1 && repeats->sizes[0] == 1)) {
        static const int64_t one[1] = {1};
        pt_tensor *x = pt_call_reshape(repeats, 1, one);
        if (x) rep = pt_call_expand(x, 1, &len, 0);
        pt_tensor_release(x);
    } else if (repeats->ndim == 1) {
        if (repeats->sizes[0] != len)
            PT_ERROR(PT_ERR_RUNTIME, "repeats must have the same size as input along dim, but "
                     "got repeats.size(0) = %lld and input.size(%d) = %lld",
                     (long long)repeats->sizes[0], (int)d, (long long)len);
        else
            rep = self_ref(repeats);
    } else {
        PT_ERROR(PT_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
    }
    if (rep && (idx = pt_call_repeat_interleave_Tensor(rep, output_size)))
        r = pt_call_index_select(in, d, idx);
    pt_tensor_release(in);
    pt_tensor_release(rep);
    pt_tensor_release(idx);
    return give(r, ret);
}

/* An int count: the input with a dim of `repeats` inserted after dim, expanded, copied and
 * merged into dim (torch's unsqueeze, expand, clone, view). */
pt_status pt_native_repeat_interleave_self_int(const pt_tensor *self, int64_t repeats,
                                               const int64_t *dim, const int64_t *output_size,
                                               pt_tensor **ret)
{
    if (repeats < 0) return PT_ERROR(PT_ERR_RUNTIME, "Repeats must be non-negative");
    int32_t d = 0;
    pt_tensor *in = interleave_input(self, dim, &d), *u = NULL, *e = NULL, *c = NULL, *r = NULL;
    if (!in) return pt_error_code();
    if (in->ndim == 0) {
        static const int64_t one[1] = {1};
        pt_tensor *x = pt_call_reshape(in, 1, one);
        pt_tensor_release(in);
        if (!(in = x)) return pt_error_code();
    }
    const int32_t nd = in->ndim;
    int64_t shape[PT_MAX_DIMS + 1], merged[PT_MAX_DIMS];
    for (int32_t i = 0, j = 0; i < nd; i++) {
        shape[j++] = in->sizes[i];
        if (i == d) shape[j++] = repeats;
        merged[i] = in->sizes[i] * (i == d ? repeats : 1);
    }
    if (output_size && *output_size != merged[d]) {
        PT_ERROR(PT_ERR_RUNTIME, "allocated size does not match required size");
        goto done;
    }
    if ((u = pt_call_unsqueeze(in, d + 1)) && (e = pt_call_expand(u, nd + 1, shape, 0)) &&
        (c = pt_call_clone(e, PT_MEMORY_FORMAT_CONTIGUOUS)))
        r = pt_call_view(c, nd, merged);
done:
    pt_tensor_release(in);
    pt_tensor_release(u);
    pt_tensor_release(e);
    pt_tensor_release(c);
    return give(r, ret);
}

/* ---------------------------------------------------------------- tril_indices, triu_indices */

/* The number of elements of a row x col matrix on or below diagonal `offset`. */
static int64_t tril_count(int64_t row, int64_t col, int64_t offset)
{
    int64_t n = 0;
    for (int64_t i = 0; i < row; i++) {
        int64_t last = i + offset; /* the last column kept in row i */
        if (last < 0) continue;
        n += (last + 1 < col ? last + 1 : col);
    }
    return n;
}

static void write_index(char *p, int32_t dtype, int64_t at, int64_t v)
{
    switch (dtype) {
    case PT_INT64: ((int64_t *)p)[at] = v; break;
    case PT_INT32: ((int32_t *)p)[at] = (int32_t)v; break;
    case PT_INT16: ((int16_t *)p)[at] = (int16_t)v; break;
    case PT_INT8: ((int8_t *)p)[at] = (int8_t)v; break;
    default: ((uint8_t *)p)[at] = (uint8_t)v; break;
    }
}

/* Both factories: a 2 x N tensor of the (row, column) coordinates of the kept elements in
 * row-major order; triu's are those not kept by tril at offset - 1. */
static pt_status tri_indices(const char *op, bool upper, int64_t row, int64_t col, int64_t offset,
                             int32_t dtype, int32_t layout, const pt_device *device,
                             int32_t pin_memory, pt_tensor **ret)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options(op, dtype, PT_INT64, layout, device, pin_memory, &dt, &dev));
    if (dt != PT_INT64 && dt != PT_INT32 && dt != PT_INT16 && dt != PT_INT8 && dt != PT_UINT8)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        pt_shape_legacy_name(dt));
    if (row < 0) return PT_ERROR(PT_ERR_RUNTIME, "row must be non-negative, got%lld",
                                 (long long)row);
    if (col < 0) return PT_ERROR(PT_ERR_RUNTIME, "col must be non-negative, got%lld",
                                 (long long)col);
    const int64_t n = upper ? row * col - tril_count(row, col, offset - 1)
                            : tril_count(row, col, offset);
    const int64_t shape[2] = {2, n};
    pt_tensor *r = NULL;
    PT_TRY(pt_shape_empty(2, shape, dt, dev.type == PT_DEV_META, &r));
    if (dev.type != PT_DEV_META) {
        char *p = pt_tensor_data(r);
        int64_t at = 0;
        for (int64_t i = 0; i < row; i++)
            for (int64_t j = 0; j < col; j++) {
                const bool below = j - i <= offset;
                const bool keep = upper ? j - i >= offset : below;
                if (!keep) continue;
                write_index(p, dt, at, i);
                write_index(p, dt, n + at, j);
                at++;
            }
    }
    if (dev.type == PT_DEV_CPU || dev.type == PT_DEV_META) {
        *ret = r;
        return PT_OK;
    }
    pt_tensor *moved = pt_call_to_device(r, dev, dt, 0, 0, -1);
    pt_tensor_release(r);
    return give(moved, ret);
}

pt_status pt_native_tril_indices(int64_t row, int64_t col, int64_t offset, int32_t dtype,
                                 int32_t layout, const pt_device *device, int32_t pin_memory,
                                 pt_tensor **ret)
{
    return tri_indices("tril_indices", false, row, col, offset, dtype, layout, device, pin_memory,
                       ret);
}

pt_status pt_native_triu_indices(int64_t row, int64_t col, int64_t offset, int32_t dtype,
                                 int32_t layout, const pt_device *device, int32_t pin_memory,
                                 pt_tensor **ret)
{
    return tri_indices("triu_indices", true, row, col, offset, dtype, layout, device, pin_memory,
                       ret);
}

pt_status pt_native_tril_indices_out(int64_t row, int64_t col, int64_t offset, pt_tensor *out,
                                     pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(tri_indices("tril_indices", false, row, col, offset, out->dtype, -1, NULL, -1, &r));
    return give_out("tril_indices", r, out, ret);
}

pt_status pt_native_triu_indices_out(int64_t row, int64_t col, int64_t offset, pt_tensor *out,
                                     pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(tri_indices("triu_indices", true, row, col, offset, out->dtype, -1, NULL, -1, &r));
    return give_out("triu_indices", r, out, ret);
}

/* ---------------------------------------------------------------- vander */

/* torch's vander: columns x**0, x**1, ... (the last N - 1 a cumulative product of x repeated),
 * in a dtype at least int64; reversed unless increasing. */
pt_status pt_native_vander(const pt_tensor *x, const int64_t *N, int32_t increasing,
                           pt_tensor **ret)
{
    if (x->ndim != 1) return PT_ERROR(PT_ERR_RUNTIME, "x must be a one-dimensional tensor.");
    const int64_t n = N ? *N : x->sizes[0];
    if (n < 0) return PT_ERROR(PT_ERR_RUNTIME, "N must be non-negative.");
    int32_t dt = 0;
    PT_TRY(pt_dtype_promote(x->dtype, PT_INT64, &dt));
    const int64_t m = x->sizes[0], first[2] = {m, n < 1 ? n : 1}, rest[2] = {m, n - 1};
    const pt_scalar one = {.kind = PT_SCALAR_INT, .i = 1};
    pt_tensor *ones = pt_call_full(2, first, &one, dt, -1, &x->device, -1), *r = NULL;
    pt_tensor *col = NULL, *e = NULL, *cp = NULL;
    if (!ones) return pt_error_code();
    if (n <= 1) {
        r = ones;
        ones = NULL;
    } else if ((col = pt_call_unsqueeze(x, 1)) && (e = pt_call_expand(col, 2, rest, 0)) &&
               (cp = pt_call_cumprod(e, 1, dt))) {
        pt_tensor *parts[2] = {ones, cp};
        r = pt_call_cat(2, parts, 1);
    }
    pt_tensor_release(ones);
    pt_tensor_release(col);
    pt_tensor_release(e);
    pt_tensor_release(cp);
    if (!r || increasing) return give(r, ret);
    static const int64_t d1[1] = {1};
    pt_tensor *f = pt_call_flip(r, 1, d1);
    pt_tensor_release(r);
    return give(f, ret);
}
