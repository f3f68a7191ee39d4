/* fft.h - the plans of pytensor's discrete Fourier transforms (csrc/kernels/fft.c builds and
 * caches them; csrc/kernels/cpu/fft_kernels.c runs them, once compiled per CPU capability).
 *
 * A plan transforms one contiguous line of n interleaved complex numbers (re, im) of one real
 * type (float or double). A complex plan of n is either
 *   - a mixed-radix Stockham plan: n = r_0 * r_1 * ... with radices 4, 2, 3, 5 and other primes up
 *     to PT_FFT_MAX_RADIX, one pass per radix with its table of twiddle factors, or
 *   - a Bluestein (chirp-z) plan when n has a prime factor above PT_FFT_MAX_RADIX: the transform
 *     as a circular convolution of length m (a power of two >= 2n - 1), run by an inner plan.
 * A real plan (r2c, c2r) of even n runs a complex plan of n/2 on the samples paired as complex
 * numbers and separates the halves with its own twiddles; of odd n it runs a complex plan of n
 * on the line widened to complex. Plans are immutable once built, so threads share them.
 */
#ifndef PT_KERNELS_FFT_H
#define PT_KERNELS_FFT_H

#include <stdint.h>

#include "internal.h"

/* Note [generic radix limit]
 * A pass of an odd prime radix r that has no butterfly of its own costs r complex multiply-adds
 * per output (the direct DFT of r points), so a prime factor r costs n * r of them in all, while
 * Bluestein costs three power-of-two transforms of at least 2n points (~ 3 * 2n * log2(2n) * 1.25
 * operations). The two meet near r = 50-60 for the sizes that matter (n ~ 1e3-1e5); primes up to
 * 61 stay in the Stockham plan, larger ones go to Bluestein. */
enum { PT_FFT_MAX_RADIX = 61, PT_FFT_MAX_PASSES = 64 };

typedef enum { PT_FFT_C2C = 0, PT_FFT_R2C = 1, PT_FFT_C2R = 2 } pt_fft_kind;

typedef struct pt_fft_plan pt_fft_plan;
struct pt_fft_plan {
    int64_t n;
    int32_t kind;   /* pt_fft_kind */
    int32_t sign;   /* -1 forward (e^{-2 pi i jk / n}), +1 backward; r2c is -1, c2r +1 */
    int32_t real;   /* 4 (float) or 8 (double): the type of every table and of the data */
    int32_t npasses;
    int32_t radix[PT_FFT_MAX_PASSES];
    void *twiddle[PT_FFT_MAX_PASSES]; /* pass p: m * (r - 1) complex, m = the pass's n / (l * r) */
    void *roots[PT_FFT_MAX_PASSES];   /* a generic radix's e^{sign 2 pi i k / r}, k < r; else NULL */
    /* Bluestein */
    int64_t conv_n;    /* m, 0 for a Stockham plan */
    void *chirp;       /* n complex: e^{sign pi i k^2 / n} */
    void *kernel_fft;  /* m complex: the transform of the conjugate chirp, scaled by 1 / m */
    pt_fft_plan *inner; /* the forward complex plan of m (Bluestein), or of n/2 / n (real plans) */
    /* real plans of even n: e^{-2 pi i k / n} for k <= n/2 (c2r uses their conjugates) */
    void *real_twiddle;
    /* complex scratch elements that running the plan needs beside its data line */
    int64_t scratch;
};

/* The plan of (n, kind, sign, real type), from the cache or built; the cache owns it (never
 * released while the process runs) unless *owned is set, when the caller must pt_fft_plan_free
 * it. PT_ERR_MEMORY when the tables cannot be allocated. */
pt_status pt_fft_plan_get(int64_t n, pt_fft_kind kind, int32_t sign, int32_t real,
                          const pt_fft_plan **out, bool *owned);
void pt_fft_plan_free(pt_fft_plan *p);

/* The per-capability table (csrc/kernels/cpu/fft_kernels.c). All lines are contiguous and the
 * buffers do not overlap. `work` holds plan->scratch complex elements.
 *   c2c: data (n complex) transformed in place.
 *   r2c: in (n reals) -> out (n/2 + 1 complex).
 *   c2r: in (n/2 + 1 complex, the imaginary parts of bins 0 and n/2 ignored) -> out (n reals).
 * Results are unnormalized; scale multiplies every output (1 for none). */
typedef struct pt_fft_table {
    void (*c2c_f4)(const pt_fft_plan *p, float *data, float *work, float scale);
    void (*c2c_f8)(const pt_fft_plan *p, double *data, double *work, double scale);
    void (*r2c_f4)(const pt_fft_plan *p, const float *in, float *out, float *work, float scale);
    void (*r2c_f8)(const pt_fft_plan *p, const double *in, double *out, double *work,
                   double scale);
    void (*c2r_f4)(const pt_fft_plan *p, const float *in, float *out, float *work, float scale);
    void (*c2r_f8)(const pt_fft_plan *p, const double *in, double *out, double *work,
                   double scale);
} pt_fft_table;

#endif
