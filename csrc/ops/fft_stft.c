/* fft_stft.c - the short-time Fourier transform (stft, and stft.center, the overload that pads
 * the signal first as torch.stft does), composed from operators as torch's SpectralOps.cpp
 * composes it, so that its graph and gradients are those of the operators it calls.
 *
 * A signal of 1 or 2 dims (batch, length) is padded by n_fft / 2 on both sides when centered
 * (aten::pad with pad_mode, on the signal viewed as (1, batch, length)); the window (ones when
 * none is given) is zero-padded on both sides to n_fft when it is shorter; the frames are
 * unfold(-1, n_fft, hop_length), multiplied by the window, and transformed along their last dim
 * (_fft_r2c for real frames, one-sided by default; _fft_c2c for complex frames or window), with
 * 1/sqrt(n_fft) when normalized. The result is (batch, frequency, frame), the batch dim dropped
 * for a 1-D signal, viewed as real pairs unless return_complex.
 */
#include <string.h>

#include "functions.h"
#include "native.h"

static pt_status failed(void) { return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME; }

/* Replaces *t (a reference held) by r, failing when r is NULL. */
static bool step(pt_tensor **t, pt_tensor *r)
{
    pt_tensor_release(*t);
    *t = r;
    return r != NULL;
}

static bool is_complex(int32_t d) { return d == PT_COMPLEX64 || d == PT_COMPLEX128; }

static pt_status stft_impl(const pt_tensor *self, int64_t n_fft, const int64_t *hop_opt,
                           const int64_t *win_opt, const pt_tensor *window, bool center,
                           const char *pad_mode, bool normalized, int32_t onesided_opt,
                           int32_t return_complex_opt, int32_t align_to_window,
                           pt_tensor **ret)
{
    const bool win_complex = window && is_complex(window->dtype);
    const bool return_complex = return_complex_opt >= 0 ? return_complex_opt
                                                         : is_complex(self->dtype) || win_complex;
    if (!return_complex && return_complex_opt < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "stft requires the return_complex parameter be given for "
                        "real inputs, and will further require that return_complex=True in a "
                        "future PyTorch release.");
    if (center && align_to_window >= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "stft align_to_window should only be set when center = "
                        "false");
    if (align_to_window > 0)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "stft: align_to_window=True is not supported");
    const int32_t ndim = pt_tensor_ndim(self);
    if (ndim != 1 && ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "stft: expected a 1D or 2D tensor, but got a %dD tensor",
                        (int)ndim);
    const int32_t dt = self->dtype;
    if (!(dt == PT_FLOAT16 || dt == PT_BFLOAT16 || dt == PT_FLOAT32 || dt == PT_FLOAT64 ||
          is_complex(dt)))
        return PT_ERROR(PT_ERR_RUNTIME, "stft: expected a tensor of floating point or complex "
                        "values");
    const int64_t hop = hop_opt ? *hop_opt : n_fft / 4;
    const int64_t win_length = win_opt ? *win_opt : n_fft;
    pt_tensor *x;
    if (ndim == 1) {
        if (!(x = pt_call_unsqueeze(self, 0))) return failed();
    } else {
        pt_tensor_retain((pt_tensor *)self);
        x = (pt_tensor *)self;
    }
    if (center) {
        const int64_t pad[2] = {n_fft / 2, n_fft / 2};
        if (!step(&x, pt_call_unsqueeze(x, 0))) return failed();
        if (!step(&x, pt_call_pad(x, 2, pad, pad_mode ? pad_mode : "reflect", NULL)))
            return failed();
        if (!step(&x, pt_call_squeeze_dim(x, 0))) return failed();
    }
    pt_status st = PT_OK;
    const int64_t len = pt_tensor_sizes(x)[1];
    if (n_fft <= 0 || n_fft > len)
        st = PT_ERROR(PT_ERR_RUNTIME, "stft: expected 0 < n_fft < %lld, but got n_fft=%lld",
                      (long long)len, (long long)n_fft);
    else if (hop <= 0)
        st = PT_ERROR(PT_ERR_RUNTIME, "stft: expected hop_length > 0, but got hop_length=%lld",
                      (long long)hop);
    else if (win_length <= 0 || win_length > n_fft)
        st = PT_ERROR(PT_ERR_RUNTIME, "stft: expected 0 < win_length <= n_fft, but got "
                      "win_length=%lld", (long long)win_length);
    else if (window && (pt_tensor_ndim(window) != 1 || pt_tensor_sizes(window)[0] != win_length))
        st = PT_ERROR(PT_ERR_RUNTIME, "stft: expected a 1D window tensor of size equal to "
                      "win_length=%lld", (long long)win_length);
    if (st != PT_OK) {
        pt_tensor_release(x);
        return st;
    }
    pt_tensor *w = NULL;
    if (window) {
        pt_tensor_retain((pt_tensor *)window);
        w = (pt_tensor *)window;
    } else if (win_length < n_fft) {
        const pt_device dev = pt_tensor_device(x);
        w = pt_call_ones(1, &win_length, is_complex(dt) ? (dt == PT_COMPLEX64 ? PT_FLOAT32
                                                                               : PT_FLOAT64)
                                                        : dt, -1, &dev, -1);
        if (!w) goto fail;
    }
    if (w && win_length < n_fft) {
        const int64_t left = (n_fft - win_length) / 2;
        const int64_t pad[2] = {left, n_fft - win_length - left};
        const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
        if (!step(&w, pt_call_constant_pad_nd(w, 2, pad, &zero))) goto fail;
    }
    if (!step(&x, pt_call_unfold(x, 1, n_fft, hop))) goto fail;
    if (w && !step(&x, pt_call_mul_Tensor(x, w))) goto fail;
    const bool complex_fft = is_complex(pt_tensor_dtype(x));
    const bool onesided = onesided_opt >= 0 ? onesided_opt : !complex_fft;
    const int64_t norm = normalized ? 1 : 0, last = 2;
    if (complex_fft) {
        if (onesided) {
            st = PT_ERROR(PT_ERR_RUNTIME, "Cannot have onesided output if window or input is "
                          "complex");
            goto done;
        }
        if (!step(&x, pt_call__fft_c2c(x, 1, &last, norm, 1))) goto fail;
    } else {
        if (pt_tensor_dtype(x) != PT_FLOAT32 && pt_tensor_dtype(x) != PT_FLOAT64 &&
            !step(&x, pt_call_to_dtype(x, pt_dtype_default(), 0, 0, -1)))
            goto fail;
        if (!step(&x, pt_call__fft_r2c(x, 1, &last, norm, onesided))) goto fail;
    }
    if (!step(&x, pt_call_transpose_int(x, 1, 2))) goto fail;
    if (ndim == 1 && !step(&x, pt_call_squeeze_dim(x, 0))) goto fail;
    if (!return_complex && !step(&x, pt_call_view_as_real(x))) goto fail;
    if (w) pt_tensor_release(w);
    *ret = x;
    return PT_OK;
fail:
    st = failed();
done:
    if (w) pt_tensor_release(w);
    if (x) pt_tensor_release(x);
    return st;
}

pt_status pt_native_stft(const pt_tensor *self, int64_t n_fft, const int64_t *hop_length,
                         const int64_t *win_length, const pt_tensor *window, int32_t normalized,
                         int32_t onesided, int32_t return_complex, int32_t align_to_window,
                         pt_tensor **ret)
{
    return stft_impl(self, n_fft, hop_length, win_length, window, false, NULL, normalized,
                     onesided, return_complex, align_to_window, ret);
}

pt_status pt_native_stft_center(const pt_tensor *self, int64_t n_fft, const int64_t *hop_length,
                                const int64_t *win_length, const pt_tensor *window,
                                int32_t center, const char *pad_mode, int32_t normalized,
                                int32_t onesided, int32_t return_complex,
                                int32_t align_to_window, pt_tensor **ret)
{
    return stft_impl(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                     onesided, return_complex, align_to_window, ret);
}

/* ---------------------------------------------------------------- istft */
/* The inverse: each frame's inverse transform (_fft_c2r, or _fft_c2c for a complex result)
 * times the window, overlap-added (unfold's adjoint, pt_ag_unfold_backward) and divided by the
 * overlap-added squared window, then trimmed to the centered signal or to `length` (zero-padded
 * when `length` asks for more than the frames cover). */
static pt_status istft_check(const pt_tensor *self, int64_t n_fft, int64_t hop, int64_t win_length,
                             const pt_tensor *window, int64_t fft_size, bool onesided,
                             bool return_complex)
{
    if (!is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "istft requires a complex-valued input tensor matching "
                        "the output from stft with return_complex=True.");
    if (self->ndim != 2 && self->ndim != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "istft: expected a tensor with 3 or 4 dimensions, but "
                        "got %d", (int)self->ndim + 1);
    if (onesided ? n_fft / 2 + 1 != fft_size : n_fft != fft_size)
        return PT_ERROR(PT_ERR_RUNTIME, "istft: expected the frequency dimension (3rd to the "
                        "last) of the input tensor to match n_fft / 2 + 1 when onesided=True, or "
                        "n_fft when onesided=False, but got %lld", (long long)fft_size);
    if (hop <= 0 || hop > win_length)
        return PT_ERROR(PT_ERR_RUNTIME, "istft: expected 0 < hop_length <= win_length");
    if (win_length <= 0 || win_length > n_fft)
        return PT_ERROR(PT_ERR_RUNTIME, "istft: expected 0 < win_length <= n_fft");
    if (window && (window->ndim != 1 || window->sizes[0] != win_length))
        return PT_ERROR(PT_ERR_RUNTIME, "istft: expected a 1D window tensor of size equal to "
                        "win_length=%lld", (long long)win_length);
    if (return_complex && onesided)
        return PT_ERROR(PT_ERR_RUNTIME, "Cannot have onesided output if window or input is "
                        "complex");
    if (!return_complex && window && is_complex(window->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "Complex windows are incompatible with "
                        "return_complex=False");
    return PT_OK;
}

pt_status pt_native_istft(const pt_tensor *self, int64_t n_fft, const int64_t *hop_length,
                          const int64_t *win_length_opt, const pt_tensor *window, int32_t center,
                          int32_t normalized, int32_t onesided_opt, const int64_t *length,
                          int32_t return_complex, pt_tensor **ret)
{
    const int64_t hop = hop_length ? *hop_length : n_fft / 4;
    const int64_t win_length = win_length_opt ? *win_length_opt : n_fft;
    if (!is_complex(self->dtype) || (self->ndim != 2 && self->ndim != 3))
        return istft_check(self, n_fft, hop, win_length, window, 0, false, return_complex);
    const bool batched = self->ndim == 3;
    const int64_t fft_size = self->sizes[self->ndim - 2], frames = self->sizes[self->ndim - 1];
    const bool onesided = onesided_opt >= 0 ? onesided_opt : fft_size != n_fft;
    PT_TRY(istft_check(self, n_fft, hop, win_length, window, fft_size, onesided,
                       return_complex));
    const int32_t real_dt = self->dtype == PT_COMPLEX64 ? PT_FLOAT32 : PT_FLOAT64;
    const pt_device dev = pt_tensor_device(self);
    pt_tensor *x = NULL, *w = NULL, *env = NULL;
    pt_status st = PT_OK;
    if (batched) {
        pt_tensor_retain((pt_tensor *)self);
        x = (pt_tensor *)self;
    } else if (!(x = pt_call_unsqueeze(self, 0))) {
        goto fail;
    }
    if (window) {
        pt_tensor_retain((pt_tensor *)window);
        w = (pt_tensor *)window;
    } else if (!(w = pt_call_ones(1, &win_length, real_dt, -1, &dev, -1))) {
        goto fail;
    }
    if (win_length < n_fft) {
        const int64_t left = (n_fft - win_length) / 2;
        const int64_t pad[2] = {left, n_fft - win_length - left};
        const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
        if (!step(&w, pt_call_constant_pad_nd(w, 2, pad, &zero))) goto fail;
    }
    if (!step(&x, pt_call_transpose_int(x, 1, 2))) goto fail; /* (batch, frame, frequency) */
    const int64_t norm = normalized ? 1 : 2, last = 2;
    if (return_complex) {
        if (!step(&x, pt_call__fft_c2c(x, 1, &last, norm, 0))) goto fail;
    } else {
        if (!onesided && !step(&x, pt_call_narrow(x, 2, 0, n_fft / 2 + 1))) goto fail;
        if (!step(&x, pt_call__fft_c2r(x, 1, &last, norm, n_fft))) goto fail;
    }
    if (!step(&x, pt_call_mul_Tensor(x, w))) goto fail;
    const int64_t batch = pt_tensor_sizes(x)[0], total = n_fft + hop * (frames - 1);
    const int64_t out_sizes[2] = {batch, total};
    /* overlap-add: frame f's samples land at f * hop + k, as unfold(1, n_fft, hop) read them */
    if (!step(&x, pt_ag_unfold_backward(x, 2, out_sizes, 1, n_fft, hop))) goto fail;
    const pt_scalar two = {PT_SCALAR_INT, 2, 0, 0};
    if (!(env = pt_call_pow_Tensor_Scalar(w, &two))) goto fail;
    const int64_t env_shape[3] = {1, frames, n_fft}, env_sizes[2] = {1, total};
    if (!step(&env, pt_call_expand(env, 3, env_shape, 0))) goto fail;
    if (!step(&env, pt_ag_unfold_backward(env, 2, env_sizes, 1, n_fft, hop))) goto fail;
    const int64_t start = center ? n_fft / 2 : 0;
    int64_t end = length ? start + *length : (center ? total - n_fft / 2 : total);
    const int64_t stop = end < total ? end : total;
    if (stop < start) {
        st = PT_ERROR(PT_ERR_RUNTIME, "istft: the requested length is shorter than the window "
                      "offset");
        goto done;
    }
    if (!step(&x, pt_call_narrow(x, 1, start, stop - start))) goto fail;
    if (!step(&env, pt_call_narrow(env, 1, start, stop - start))) goto fail;
    pt_tensor *mn = pt_call_abs(env);
    if (!mn || !step(&mn, pt_call_min(mn))) goto fail;
    pt_scalar v;
    st = pt_tensor_item(mn, &v);
    pt_tensor_release(mn);
    if (st != PT_OK) goto done;
    if (stop > start && v.re < 1e-11) {
        st = PT_ERROR(PT_ERR_RUNTIME, "istft: window overlap add min: %g (the window's squares "
                      "overlap-added must be nonzero everywhere)", v.re);
        goto done;
    }
    if (!step(&x, pt_call_div_Tensor(x, env))) goto fail;
    if (!batched && !step(&x, pt_call_squeeze_dim(x, 0))) goto fail;
    if (end > total) {
        const int64_t pad[2] = {0, end - total};
        const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
        if (!step(&x, pt_call_constant_pad_nd(x, 2, pad, &zero))) goto fail;
    }
    pt_tensor_release(w);
    pt_tensor_release(env);
    *ret = x;
    return PT_OK;
fail:
    st = failed();
done:
    if (x) pt_tensor_release(x);
    if (w) pt_tensor_release(w);
    if (env) pt_tensor_release(env);
    return st;
}
