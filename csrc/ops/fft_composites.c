/* fft_composites.c - the functions of torch.fft (fft_fft ... fft_ihfftn, the frequency and
 * shift helpers) composed from the primitives _fft_c2c, _fft_r2c and _fft_c2r, as torch's
 * SpectralOps.cpp composes them, so that the recorded graph holds torch's nodes.
 *
 * Each transform: the dtype promoted (integers and bool to the default float dtype, complex
 * where the transform needs it; half and bfloat16 refused as torch refuses them on CPU), the
 * signal sizes and dims put in canonical form (Note [fft shape and dim arguments]), the input
 * trimmed (narrow) or zero-padded (constant_pad_nd) to the signal sizes, then the primitive
 * with the normalization mode of `norm` (Note [fft norm modes]). Every step is an operator call
 * through the dispatcher.
 */
#include <stdio.h>
#include <string.h>

#include "native.h"

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

static const char *legacy(int32_t dtype)
{
    const pt_dtype_info *d = pt_dtype_info_of(dtype);
    return d ? d->legacy_name : "?";
}

static bool is_complex(int32_t d) { return d == PT_COMPLEX64 || d == PT_COMPLEX128; }

/* Note [fft norm modes]
 * torch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n. "backward" (the default) leaves the
 * forward transform unscaled and scales the backward one by 1/n, "forward" the other way round,
 * "ortho" scales both by 1/sqrt(n). */
static pt_status norm_mode(const char *norm, bool forward, int64_t *mode)
{
    if (!norm || !strcmp(norm, "backward"))
        *mode = forward ? 0 : 2;
    else if (!strcmp(norm, "forward"))
        *mode = forward ? 2 : 0;
    else if (!strcmp(norm, "ortho"))
        *mode = 1;
    else
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid normalization mode: \"%s\"", norm);
    return PT_OK;
}

/* x in the dtype the primitives take: a new reference. */
static pt_status promote(const pt_tensor *x, bool require_complex, pt_tensor **out)
{
    int32_t dt = x->dtype;
    if (!is_complex(dt)) {
        if (dt != PT_FLOAT16 && dt != PT_BFLOAT16 && dt != PT_FLOAT32 && dt != PT_FLOAT64)
            dt = pt_dtype_default();
        if (dt != PT_FLOAT32 && dt != PT_FLOAT64)
            return PT_ERROR(PT_ERR_RUNTIME, "Unsupported dtype %s", legacy(dt));
        if (require_complex) dt = dt == PT_FLOAT32 ? PT_COMPLEX64 : PT_COMPLEX128;
    }
    if (dt == x->dtype) {
        pt_tensor_retain((pt_tensor *)x);
        *out = (pt_tensor *)x;
        return PT_OK;
    }
    return returned(pt_call_to_dtype(x, dt, 0, 0, -1), out);
}

/* x with size sizes[i] along dims[i] (-1: unchanged): narrowed where longer, zero-padded at the
 * end where shorter. Takes x's reference; returns a new one. */
static pt_status resize_input(pt_tensor *x, int32_t nd, const int32_t *dims, const int64_t *sizes,
                              pt_tensor **out)
{
    int64_t pad[2 * PT_MAX_DIMS] = {0};
    bool must_pad = false;
    const int32_t ndim = pt_tensor_ndim(x);
    for (int32_t i = 0; i < nd; i++) {
        const int64_t have = pt_tensor_sizes(x)[dims[i]];
        if (sizes[i] == -1 || have == sizes[i]) continue;
        if (have < sizes[i]) {
            pad[2 * (ndim - 1 - dims[i]) + 1] = sizes[i] - have;
            must_pad = true;
        } else {
            pt_tensor *n = pt_call_narrow(x, dims[i], 0, sizes[i]);
            pt_tensor_release(x);
            if (!n) return returned(NULL, out);
            x = n;
        }
    }
    if (!must_pad) {
        *out = x;
        return PT_OK;
    }
    const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
    pt_tensor *p = pt_call_constant_pad_nd(x, 2 * ndim, pad, &zero);
    pt_tensor_release(x);
    return returned(p, out);
}

/* Note [fft shape and dim arguments]
 * torch's rules: given dims are wrapped and must be unique; a given s must match dim's length
 * and cannot name more dims than the input has, and without dim transforms the last len(s)
 * dims; -1 in s keeps that dim's size; with neither, every dim is transformed at its size.
 * Every signal size must be at least 1. */
typedef struct {
    int32_t nd;
    int32_t dims[PT_MAX_DIMS];
    int64_t shape[PT_MAX_DIMS];
} fft_desc;

static pt_status canonicalize(const pt_tensor *x, int32_t s_len, const int64_t *s,
                              int32_t dim_len, const int64_t *dim, fft_desc *d)
{
    const int32_t ndim = pt_tensor_ndim(x);
    const int64_t *sizes = pt_tensor_sizes(x);
    if (dim_len >= 0) {
        if (dim_len > PT_MAX_DIMS) return PT_ERROR(PT_ERR_RUNTIME, "FFT dims must be unique");
        for (int32_t i = 0; i < dim_len; i++) {
            PT_TRY(pt_wrap_dim(dim[i], ndim, &d->dims[i]));
            for (int32_t k = 0; k < i; k++)
                if (d->dims[k] == d->dims[i])
                    return PT_ERROR(PT_ERR_RUNTIME, "FFT dims must be unique");
        }
    }
    if (s_len >= 0) {
        if (dim_len >= 0 && dim_len != s_len)
            return PT_ERROR(PT_ERR_RUNTIME, "When given, dim and shape arguments must have the "
                            "same length");
        if (s_len > ndim)
            return PT_ERROR(PT_ERR_RUNTIME, "Got shape with %d values but input tensor only has "
                            "%d dimensions.", (int)s_len, (int)ndim);
        d->nd = s_len;
        for (int32_t i = 0; i < s_len; i++) {
            if (dim_len < 0) d->dims[i] = ndim - s_len + i;
            d->shape[i] = s[i] == -1 ? sizes[d->dims[i]] : s[i];
        }
    } else if (dim_len < 0) {
        d->nd = ndim;
        for (int32_t i = 0; i < ndim; i++) {
            d->dims[i] = i;
            d->shape[i] = sizes[i];
        }
    } else {
        d->nd = dim_len;
        for (int32_t i = 0; i < dim_len; i++) d->shape[i] = sizes[d->dims[i]];
    }
    for (int32_t i = 0; i < d->nd; i++)
        if (d->shape[i] < 1)
            return PT_ERROR(PT_ERR_RUNTIME, "Invalid number of data points (%lld) specified",
                            (long long)d->shape[i]);
    return PT_OK;
}

static void dims64(const fft_desc *d, int32_t from, int32_t to, int64_t *out)
{
    for (int32_t i = from; i < to; i++) out[i - from] = d->dims[i];
}

/* ---------------------------------------------------------------- the n-dimensional cores */
typedef enum { T_C2C, T_R2C, T_C2R } tkind;

/* fft / ifft / fftn / ifftn of any input: complex ones by c2c, real ones by a two-sided r2c
 * (conjugated for the backward direction), as torch does. */
static pt_status c2c_nd(const char *name, const pt_tensor *self, fft_desc *d, const char *norm,
                        bool forward, bool one_dim, pt_tensor **ret)
{
    int64_t mode = 0, dims[PT_MAX_DIMS];
    PT_TRY(norm_mode(norm, forward, &mode));
    dims64(d, 0, d->nd, dims);
    pt_tensor *x;
    if (!is_complex(self->dtype) && one_dim) {
        PT_TRY(promote(self, false, &x));
        PT_TRY(resize_input(x, d->nd, d->dims, d->shape, &x));
        pt_tensor *r = pt_call__fft_r2c(x, d->nd, dims, mode, 0);
        pt_tensor_release(x);
        if (r && !forward) {
            pt_tensor *c = pt_call_conj(r);
            pt_tensor_release(r);
            r = c;
        }
        return returned(r, ret);
    }
    (void)name;
    PT_TRY(promote(self, true, &x));
    PT_TRY(resize_input(x, d->nd, d->dims, d->shape, &x));
    pt_tensor *r = pt_call__fft_c2c(x, d->nd, dims, mode, forward);
    pt_tensor_release(x);
    return returned(r, ret);
}

/* rfft / ihfft / rfftn / ihfftn: r2c over the last dim, c2c (backward direction: conjugated
 * input) over the others. */
static pt_status r2c_nd(const char *name, const pt_tensor *self, fft_desc *d, const char *norm,
                        bool forward, pt_tensor **ret)
{
    int64_t mode = 0, dims[PT_MAX_DIMS];
    PT_TRY(norm_mode(norm, forward, &mode));
    pt_tensor *x;
    PT_TRY(promote(self, false, &x));
    PT_TRY(resize_input(x, d->nd, d->dims, d->shape, &x));
    pt_tensor *r;
    if (forward) {
        dims64(d, 0, d->nd, dims);
        r = pt_call__fft_r2c(x, d->nd, dims, mode, 1);
        pt_tensor_release(x);
        return returned(r, ret);
    }
    dims64(d, d->nd - 1, d->nd, dims);
    r = pt_call__fft_r2c(x, 1, dims, mode, 1);
    pt_tensor_release(x);
    if (!r) return returned(NULL, ret);
    if (d->nd == 1) {
        pt_tensor *c = pt_call_conj(r);
        pt_tensor_release(r);
        return returned(c, ret);
    }
    pt_tensor *c = pt_call_conj_physical(r);
    pt_tensor_release(r);
    if (!c) return returned(NULL, ret);
    dims64(d, 0, d->nd - 1, dims);
    r = pt_call__fft_c2c(c, d->nd - 1, dims, mode, 0);
    pt_tensor_release(c);
    (void)name;
    return returned(r, ret);
}

/* irfft / hfft / irfftn / hfftn. The last dim's output size is given or 2 (m - 1) for an
 * input of m there; the input is trimmed or padded to half of it plus one. */
static pt_status c2r_nd(const pt_tensor *self, fft_desc *d, int64_t last_dim_size,
                        const char *norm, bool forward, pt_tensor **ret)
{
    int64_t mode = 0, dims[PT_MAX_DIMS];
    PT_TRY(norm_mode(norm, forward, &mode));
    d->shape[d->nd - 1] = last_dim_size / 2 + 1;
    pt_tensor *x;
    PT_TRY(promote(self, true, &x));
    PT_TRY(resize_input(x, d->nd, d->dims, d->shape, &x));
    if (forward) {
        if (d->nd > 1) {
            dims64(d, 0, d->nd - 1, dims);
            pt_tensor *t = pt_call__fft_c2c(x, d->nd - 1, dims, mode, 1);
            pt_tensor_release(x);
            if (!t) return returned(NULL, ret);
            x = t;
        }
        pt_tensor *c = pt_call_conj(x);
        pt_tensor_release(x);
        if (!c) return returned(NULL, ret);
        x = c;
        dims64(d, d->nd - 1, d->nd, dims);
        pt_tensor *r = pt_call__fft_c2r(x, 1, dims, mode, last_dim_size);
        pt_tensor_release(x);
        return returned(r, ret);
    }
    dims64(d, 0, d->nd, dims);
    pt_tensor *r = pt_call__fft_c2r(x, d->nd, dims, mode, last_dim_size);
    pt_tensor_release(x);
    return returned(r, ret);
}

/* ---------------------------------------------------------------- argument forms */
static pt_status real_input(const char *name, const pt_tensor *self, const char *what)
{
    if (is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "%s expects a %s input tensor, but got %s", name, what,
                        legacy(self->dtype));
    return PT_OK;
}

/* One dim: n (NULL for the input's size) along dim. */
static pt_status one(const char *name, tkind kind, bool forward, const pt_tensor *self,
                     const int64_t *n, int64_t dim, const char *norm, pt_tensor **ret)
{
    fft_desc d = {1, {0}, {0}};
    PT_TRY(pt_wrap_dim(dim, pt_tensor_ndim(self), &d.dims[0]));
    const int64_t size = pt_tensor_sizes(self)[d.dims[0]];
    if (kind == T_C2R) {
        const int64_t last = n ? *n : 2 * (size - 1);
        if (last < 1)
            return PT_ERROR(PT_ERR_RUNTIME, "Invalid number of data points (%lld) specified",
                            (long long)last);
        return c2r_nd(self, &d, last, norm, forward, ret);
    }
    d.shape[0] = n ? *n : size;
    if (d.shape[0] < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid number of data points (%lld) specified",
                        (long long)d.shape[0]);
    if (kind == T_R2C) {
        PT_TRY(real_input(name, self, "real"));
        return r2c_nd(name, self, &d, norm, forward, ret);
    }
    return c2c_nd(name, self, &d, norm, forward, true, ret);
}

static pt_status many(const char *name, tkind kind, bool forward, const pt_tensor *self,
                      int32_t s_len, const int64_t *s, int32_t dim_len, const int64_t *dim,
                      const char *norm, pt_tensor **ret)
{
    if (kind == T_R2C) PT_TRY(real_input(name, self, "real-valued"));
    fft_desc d;
    PT_TRY(canonicalize(self, s_len, s, dim_len, dim, &d));
    if (kind == T_C2C) return c2c_nd(name, self, &d, norm, forward, false, ret);
    if (d.nd == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s must transform at least one axis", name);
    if (kind == T_R2C) return r2c_nd(name, self, &d, norm, forward, ret);
    const int64_t last = (s_len < 0 || s[s_len - 1] == -1)
                             ? 2 * (pt_tensor_sizes(self)[d.dims[d.nd - 1]] - 1)
                             : d.shape[d.nd - 1];
    if (last < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid number of data points (%lld) specified",
                        (long long)last);
    return c2r_nd(self, &d, last, norm, forward, ret);
}

/* out=: the result computed anew, then out resized to it and written; a complex result needs a
 * complex out and a real one a real out, as torch requires. */
static pt_status into_out(const char *name, pt_tensor *r, pt_tensor *out, pt_tensor **ret)
{
    pt_status st = PT_OK;
    if (is_complex(r->dtype) && !is_complex(out->dtype))
        st = PT_ERROR(PT_ERR_RUNTIME, "%s expects a complex output tensor, but got %s", name,
                      legacy(out->dtype));
    else if (!is_complex(r->dtype) && is_complex(out->dtype))
        st = PT_ERROR(PT_ERR_RUNTIME, "%s expects a floating point output tensor, but got %s",
                      name, legacy(out->dtype));
    if (st == PT_OK) {
        pt_tensor *z = pt_call_resize_(out, r->ndim, r->sizes, -1);
        if (!z) st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        else pt_tensor_release(z);
    }
    if (st == PT_OK) {
        pt_tensor *c = pt_call_copy_(out, r, 0);
        if (!c) st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        else pt_tensor_release(c);
    }
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(out);
    *ret = out;
    return PT_OK;
}

#define FFT_ONE(NAME, KIND, FWD)                                                                   \
    pt_status pt_native_fft_##NAME(const pt_tensor *self, const int64_t *n, int64_t dim,           \
                                   const char *norm, pt_tensor **ret)                              \
    {                                                                                              \
        return one(#NAME, KIND, FWD, self, n, dim, norm, ret);                                     \
    }                                                                                              \
    pt_status pt_native_fft_##NAME##_out(const pt_tensor *self, const int64_t *n, int64_t dim,     \
                                         const char *norm, pt_tensor *out, pt_tensor **ret)        \
    {                                                                                              \
        pt_tensor *r;                                                                              \
        PT_TRY(one(#NAME, KIND, FWD, self, n, dim, norm, &r));                                     \
        return into_out(#NAME, r, out, ret);                                                       \
    }

#define FFT_MANY(NAME, CNAME, KIND, FWD)                                                           \
    pt_status pt_native_fft_##NAME(const pt_tensor *self, int32_t s_len, const int64_t *s,         \
                                   int32_t dim_len, const int64_t *dim, const char *norm,          \
                                   pt_tensor **ret)                                                \
    {                                                                                              \
        return many(CNAME, KIND, FWD, self, s_len, s, dim_len, dim, norm, ret);                    \
    }                                                                                              \
    pt_status pt_native_fft_##NAME##_out(const pt_tensor *self, int32_t s_len, const int64_t *s,   \
                                         int32_t dim_len, const int64_t *dim, const char *norm,    \
                                         pt_tensor *out, pt_tensor **ret)                          \
    {                                                                                              \
        pt_tensor *r;                                                                              \
        PT_TRY(many(CNAME, KIND, FWD, self, s_len, s, dim_len, dim, norm, &r));                    \
        return into_out(#NAME, r, out, ret);                                                       \
    }

FFT_ONE(fft, T_C2C, true)
FFT_ONE(ifft, T_C2C, false)
FFT_ONE(rfft, T_R2C, true)
FFT_ONE(ihfft, T_R2C, false)
FFT_ONE(irfft, T_C2R, false)
FFT_ONE(hfft, T_C2R, true)
/* fft2 and the other 2-D forms are their n-D forms with dim=[-2, -1] (messages name the n-D
 * function, as torch's do). */
FFT_MANY(fft2, "fftn", T_C2C, true)
FFT_MANY(ifft2, "ifftn", T_C2C, false)
FFT_MANY(rfft2, "rfftn", T_R2C, true)
FFT_MANY(ihfft2, "ihfftn", T_R2C, false)
FFT_MANY(irfft2, "irfftn", T_C2R, false)
FFT_MANY(hfft2, "hfftn", T_C2R, true)
FFT_MANY(fftn, "fftn", T_C2C, true)
FFT_MANY(ifftn, "ifftn", T_C2C, false)
FFT_MANY(rfftn, "rfftn", T_R2C, true)
FFT_MANY(ihfftn, "ihfftn", T_R2C, false)
FFT_MANY(irfftn, "irfftn", T_C2R, false)
FFT_MANY(hfftn, "hfftn", T_C2R, true)

/* ---------------------------------------------------------------- frequencies */
/* The sample frequencies of an n-point transform with spacing d: k / (n d) for k < (n + 1) / 2,
 * then (k - n) / (n d) (fftfreq); k / (n d) for k <= n / 2 (rfftfreq). Built as torch builds
 * them: integers in the result's dtype, scaled by 1 / (n d). */
static pt_status freq(const char *name, bool onesided, int64_t n, double d, int32_t dtype,
                      int32_t layout, const pt_device *device, int32_t pin_memory,
                      pt_tensor **ret)
{
    if (dtype < 0) dtype = pt_dtype_default();
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if (!info || !(info->kind & (PT_KIND_FLOAT | PT_KIND_COMPLEX)))
        return PT_ERROR(PT_ERR_RUNTIME, "%s requires a floating point or complex dtype", name);
    if (n < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: "
                        "[%lld]", (long long)n, (long long)n);
    const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
    pt_tensor *r;
    if (onesided) {
        const pt_scalar end = {PT_SCALAR_INT, n / 2 + 1, 0, 0};
        r = pt_call_arange_start(&zero, &end, dtype, layout, device, pin_memory);
        if (!r) return returned(NULL, ret);
    } else {
        const pt_scalar mid = {PT_SCALAR_INT, (n + 1) / 2, 0, 0};
        const pt_scalar lo = {PT_SCALAR_INT, -(n / 2), 0, 0};
        pt_tensor *parts[2];
        parts[0] = pt_call_arange_start(&zero, &mid, dtype, layout, device, pin_memory);
        parts[1] = parts[0] ? pt_call_arange_start(&lo, &zero, dtype, layout, device, pin_memory)
                            : NULL;
        r = parts[1] ? pt_call_cat(2, parts, 0) : NULL;
        if (parts[0]) pt_tensor_release(parts[0]);
        if (parts[1]) pt_tensor_release(parts[1]);
        if (!r) return returned(NULL, ret);
    }
    const pt_scalar scale = {PT_SCALAR_FLOAT, 0, 1.0 / ((double)n * d), 0};
    pt_tensor *m = pt_call_mul_Scalar(r, &scale);
    pt_tensor_release(r);
    return returned(m, ret);
}

pt_status pt_native_fft_fftfreq(int64_t n, double d, int32_t dtype, int32_t layout,
                                const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    return freq("fftfreq", false, n, d, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_fft_rfftfreq(int64_t n, double d, int32_t dtype, int32_t layout,
                                 const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    return freq("rfftfreq", true, n, d, dtype, layout, device, pin_memory, ret);
}

static pt_status freq_out(const char *name, bool onesided, int64_t n, double d, pt_tensor *out,
                          pt_tensor **ret)
{
    const pt_device dev = pt_tensor_device(out);
    pt_tensor *r;
    PT_TRY(freq(name, onesided, n, d, out->dtype, -1, &dev, -1, &r));
    pt_tensor *z = pt_call_resize_(out, r->ndim, r->sizes, -1);
    pt_status st = z ? PT_OK : (pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME);
    if (z) pt_tensor_release(z);
    if (st == PT_OK) {
        pt_tensor *c = pt_call_copy_(out, r, 0);
        if (!c) st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        else pt_tensor_release(c);
    }
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(out);
    *ret = out;
    return PT_OK;
}

pt_status pt_native_fft_fftfreq_out(int64_t n, double d, pt_tensor *out, pt_tensor **ret)
{
    return freq_out("fftfreq", false, n, d, out, ret);
}

pt_status pt_native_fft_rfftfreq_out(int64_t n, double d, pt_tensor *out, pt_tensor **ret)
{
    return freq_out("rfftfreq", true, n, d, out, ret);
}

/* ---------------------------------------------------------------- shifts */
/* roll by half of each dim's size (rounded down for fftshift, up for ifftshift). */
static pt_status shift(const pt_tensor *self, int32_t dim_len, const int64_t *dim, bool inverse,
                       pt_tensor **ret)
{
    int64_t dims[PT_MAX_DIMS], shifts[PT_MAX_DIMS];
    const int32_t ndim = pt_tensor_ndim(self);
    const int32_t nd = dim_len < 0 ? ndim : dim_len;
    if (nd > PT_MAX_DIMS) return PT_ERROR(PT_ERR_RUNTIME, "fftshift: too many dims");
    for (int32_t i = 0; i < nd; i++) {
        int32_t w;
        PT_TRY(pt_wrap_dim(dim_len < 0 ? i : dim[i], ndim, &w));
        const int64_t size = pt_tensor_sizes(self)[w];
        dims[i] = dim_len < 0 ? i : dim[i];
        shifts[i] = inverse ? (size + 1) / 2 : size / 2;
    }
    return returned(pt_call_roll(self, nd, shifts, nd, dims), ret);
}

pt_status pt_native_fft_fftshift(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 pt_tensor **ret)
{
    return shift(self, dim_len, dim, false, ret);
}

pt_status pt_native_fft_ifftshift(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                  pt_tensor **ret)
{
    return shift(self, dim_len, dim, true, ret);
}
