/* fft_windows.c - torch's window factories: hann, hamming, blackman, bartlett and kaiser
 * windows, symmetric or periodic (the first window_length values of the symmetric window of
 * window_length + 1 points, the form spectral analysis wants), with their out= forms.
 *
 * The values are computed in double from the closed forms, n = 0 .. L - 1 over N points
 * (N = L + 1 when periodic):
 *   hamming(alpha, beta)  alpha - beta cos(2 pi n / (N - 1))      (hann: alpha = beta = 0.5)
 *   blackman              0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))
 *   bartlett              1 - |2 n / (N - 1) - 1|
 *   kaiser(beta)          I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta),  a = (N - 1) / 2
 * and rounded once to the requested floating dtype (torch computes half windows in half
 * arithmetic, so those may differ from torch's in the last bit). A window of 0 points is empty,
 * of 1 point is [1].
 */
#include <math.h>
#include <string.h>

#include "native.h"

typedef enum { W_HAMMING, W_BLACKMAN, W_BARTLETT, W_KAISER } wkind;

/* The modified Bessel function I0 by its power series sum ((x/2)^{2j} / (j!)^2), summed until
 * a term no longer changes the sum (every term is positive, so there is no cancellation). */
static double bessel_i0(double x)
{
    const double q = x * x / 4;
    double term = 1, sum = 1;
    for (int j = 1; j < 100000; j++) {
        term *= q / ((double)j * (double)j);
        sum += term;
        if (term < sum * 1e-17) break;
    }
    return sum;
}

static double value(wkind kind, int64_t n, int64_t N, double a, double b)
{
    const double pi = 3.14159265358979323846;
    const double x = (double)n / (double)(N - 1);
    switch (kind) {
    case W_HAMMING: return a - b * cos(2 * pi * x);
    case W_BLACKMAN: return 0.42 - 0.5 * cos(2 * pi * x) + 0.08 * cos(4 * pi * x);
    case W_BARTLETT: return 1 - fabs(2 * x - 1);
    case W_KAISER: {
        const double al = (double)(N - 1) / 2, r = ((double)n - al) / al;
        return bessel_i0(a * sqrt(fmax(0.0, 1 - r * r))) / bessel_i0(a);
    }
    }
    return 0;
}

static pt_status window(const char *name, wkind kind, int64_t L, bool periodic, double a,
                        double b, int32_t dtype, int32_t layout, const pt_device *device,
                        int32_t pin_memory, pt_tensor **ret)
{
    int32_t dt;
    pt_device dev;
    PT_TRY(pt_native_options(name, dtype, pt_dtype_default(), layout, device, pin_memory, &dt,
                             &dev));
    const pt_dtype_info *info = pt_dtype_info_of(dt);
    if (!info || !(info->kind & PT_KIND_FLOAT))
        return PT_ERROR(PT_ERR_RUNTIME, "%s expects floating point dtypes, got: %s", name,
                        info ? info->legacy_name : "?");
    if (L < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s requires non-negative window_length, got "
                        "window_length=%lld", name, (long long)L);
    const pt_device cpu = {PT_DEV_CPU, -1};
    pt_tensor *t;
    PT_TRY(pt_tensor_empty(1, &L, PT_FLOAT64, cpu, &t));
    double *v = pt_tensor_data(t);
    const int64_t N = periodic ? L + 1 : L;
    for (int64_t n = 0; n < L; n++) v[n] = L == 1 ? 1.0 : value(kind, n, N, a, b);
    pt_tensor *r;
    const pt_status st = pt_tensor_to(t, dt, dev, 0, &r);
    pt_tensor_release(t);
    if (st != PT_OK) return st;
    *ret = r;
    return PT_OK;
}

static pt_status window_out(const char *name, wkind kind, int64_t L, bool periodic, double a,
                            double b, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    const pt_device dev = pt_tensor_device(out);
    PT_TRY(window(name, kind, L, periodic, a, b, out->dtype, -1, &dev, -1, &r));
    pt_status st = PT_OK;
    if (out->ndim != 1 || out->sizes[0] != L) st = pt_tensor_resize_(out, 1, &L);
    if (st == PT_OK && L) st = pt_tensor_copy_(out, r);
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(out);
    *ret = out;
    return PT_OK;
}

#define OPTS int32_t dtype, int32_t layout, const pt_device *device, int32_t pin_memory,         \
             pt_tensor **ret
#define PASS dtype, layout, device, pin_memory, ret

/* NAME's functional and out= forms for the default and the periodic overloads, with parameters
 * A and B (the defaults of the shape parameters). */
#define WINDOW(NAME, KIND, A, B)                                                                   \
    pt_status pt_native_##NAME(int64_t L, OPTS)                                                    \
    {                                                                                              \
        return window(#NAME, KIND, L, true, A, B, PASS);                                           \
    }                                                                                              \
    pt_status pt_native_##NAME##_periodic(int64_t L, int32_t periodic, OPTS)                       \
    {                                                                                              \
        return window(#NAME, KIND, L, periodic, A, B, PASS);                                       \
    }                                                                                              \
    pt_status pt_native_##NAME##_out(int64_t L, pt_tensor *out, pt_tensor **ret)                   \
    {                                                                                              \
        return window_out(#NAME, KIND, L, true, A, B, out, ret);                                   \
    }                                                                                              \
    pt_status pt_native_##NAME##_periodic_out(int64_t L, int32_t periodic, pt_tensor *out,         \
                                              pt_tensor **ret)                                     \
    {                                                                                              \
        return window_out(#NAME, KIND, L, periodic, A, B, out, ret);                               \
    }

WINDOW(hann_window, W_HAMMING, 0.5, 0.5)
WINDOW(hamming_window, W_HAMMING, 0.54, 0.46)
WINDOW(blackman_window, W_BLACKMAN, 0, 0)
WINDOW(bartlett_window, W_BARTLETT, 0, 0)
WINDOW(kaiser_window, W_KAISER, 12.0, 0)

pt_status pt_native_hamming_window_periodic_alpha(int64_t L, int32_t periodic, double alpha,
                                                  OPTS)
{
    return window("hamming_window", W_HAMMING, L, periodic, alpha, 0.46, PASS);
}

pt_status pt_native_hamming_window_periodic_alpha_beta(int64_t L, int32_t periodic,
                                                       double alpha, double beta, OPTS)
{
    return window("hamming_window", W_HAMMING, L, periodic, alpha, beta, PASS);
}

pt_status pt_native_hamming_window_periodic_alpha_out(int64_t L, int32_t periodic, double alpha,
                                                      pt_tensor *out, pt_tensor **ret)
{
    return window_out("hamming_window", W_HAMMING, L, periodic, alpha, 0.46, out, ret);
}

pt_status pt_native_hamming_window_periodic_alpha_beta_out(int64_t L, int32_t periodic,
                                                           double alpha, double beta,
                                                           pt_tensor *out, pt_tensor **ret)
{
    return window_out("hamming_window", W_HAMMING, L, periodic, alpha, beta, out, ret);
}

pt_status pt_native_kaiser_window_beta(int64_t L, int32_t periodic, double beta, OPTS)
{
    return window("kaiser_window", W_KAISER, L, periodic, beta, 0, PASS);
}

pt_status pt_native_kaiser_window_beta_out(int64_t L, int32_t periodic, double beta,
                                           pt_tensor *out, pt_tensor **ret)
{
    return window_out("kaiser_window", W_KAISER, L, periodic, beta, 0, out, ret);
}
