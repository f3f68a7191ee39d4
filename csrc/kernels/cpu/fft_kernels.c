/* fft_kernels.c - running the plans of csrc/kernels/fft.h on contiguous lines: the Stockham
 * passes with their radix-2, 3, 4 and 5 butterflies and a generic one for other primes, the
 * Bluestein convolution, and the real-input / real-output transforms by half-length complex
 * ones. Compiled once per CPU capability (cpu_kernel.h); the passes' unit-stride inner loops are
 * written for the compiler to vectorize. The body is fft_impl.h, included for float and double.
 */
#include <string.h>

#include "cpu_kernel.h"

#include "fft.h"

/* The block of q values a generic radix pass works on (Note [generic odd radix] in fft_impl.h):
 * 32 complex numbers are 4 AVX-512 vectors of float, and its (r - 1) half-sums and differences
 * (at most 60 blocks, 15 KiB of double) stay in the L1 cache. */
enum { PT_FFT_QBLOCK = 32 };

#define FT float
#define SUF f4
#include "fft_impl.h"
#undef FT
#undef SUF

#define FT double
#define SUF f8
#include "fft_impl.h"
#undef FT
#undef SUF

PT_CPU_KERNELS_DEFINE(fft, pt_fft_table) = {
    .c2c_f4 = c2c_f4, .c2c_f8 = c2c_f8,
    .r2c_f4 = r2c_f4, .r2c_f8 = r2c_f8,
    .c2r_f4 = c2r_f4, .c2r_f8 = c2r_f8,
};
