/* functions_fft.c - the formula helpers of the FFT primitives, as torch's FunctionsManual writes
 * them (fft_r2c_backward, fft_c2r_backward; the c2c one is its transform in the other
 * direction). Same contract as functions.c: operator calls through the entry points (so double
 * backward works), temporaries in an arena, a new reference or NULL with the error recorded. */
#include <string.h>

#include "functions_internal.h"

pt_tensor *pt_ag_fft_c2c_backward(const pt_tensor *grad, int32_t nd, const int64_t *dim,
                                  int64_t normalization, int32_t forward)
{
    return pt_call__fft_c2c(grad, nd, dim, normalization, !forward);
}

/* r2c's adjoint: the one-sided gradient zero-filled to the full length of the last dim (the
 * bins r2c dropped carry no gradient of their own), the backward c2c, its real part. */
pt_tensor *pt_ag_fft_r2c_backward(const pt_tensor *grad, int32_t nd, const int64_t *dim,
                                  int64_t normalization, int32_t onesided, int32_t ns,
                                  const int64_t *self_sizes)
{
    arena ar = {0};
    pt_tensor *full, *c, *r;
    if (!onesided || nd < 1) {
        K(c, pt_call__fft_c2c(grad, nd, dim, normalization, 0));
        K(r, pt_call_real(c));
        return finish(&ar, r);
    }
    const int32_t ndim = grad->ndim;
    const int64_t last = wrap(dim[nd - 1], ndim);
    if (last < 0 || ns != ndim) {
        if (last >= 0) PT_ERROR(PT_ERR_RUNTIME, "fft_r2c_backward: self's sizes do not match");
        goto fail;
    }
    const int64_t zero_length = self_sizes[last] - grad->sizes[last];
    if (zero_length > 0) {
        int64_t pad[2 * PT_MAX_DIMS];
        const int32_t np = 2 * (ndim - (int32_t)last);
        memset(pad, 0, sizeof(int64_t) * (size_t)np);
        pad[np - 1] = zero_length;
        K(full, pt_call_constant_pad_nd(grad, np, pad, &S_ZERO));
    } else {
        full = (pt_tensor *)grad;
    }
    K(c, pt_call__fft_c2c(full, nd, dim, normalization, 0));
    K(r, pt_call_real(c));
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* c2r's adjoint: r2c of the gradient, with the bins that c2r counted twice (their conjugate
 * images, all but bin 0 and, for even lengths, the last) doubled. */
pt_tensor *pt_ag_fft_c2r_backward(const pt_tensor *grad, int32_t nd, const int64_t *dim,
                                  int64_t normalization)
{
    arena ar = {0};
    pt_tensor *g, *w, *r;
    K(g, pt_call__fft_r2c(grad, nd, dim, normalization, 1));
    const int64_t last = wrap(dim[nd - 1], grad->ndim);
    if (last < 0) goto fail;
    const int64_t m = g->sizes[last], doubled = grad->sizes[last] - m;
    if (doubled <= 0) return finish(&ar, g);
    int64_t shape[PT_MAX_DIMS];
    for (int32_t i = 0; i < grad->ndim; i++) shape[i] = i == last ? m : 1;
    pt_tensor *wt;
    if (pt_tensor_empty(grad->ndim, shape, grad->dtype, grad->device, &wt) != PT_OK) goto fail;
    K(w, wt);
    if (w->device.type == PT_DEV_CPU) {
        for (int64_t k = 0; k < m; k++) {
            const double v = k >= 1 && k <= doubled ? 2.0 : 1.0;
            if (w->dtype == PT_FLOAT32)
                ((float *)pt_tensor_data(w))[k] = (float)v;
            else
                ((double *)pt_tensor_data(w))[k] = v;
        }
    }
    K(r, pt_call_mul_Tensor(g, w));
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}
