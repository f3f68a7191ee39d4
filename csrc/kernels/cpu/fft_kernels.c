/* fft_kernels.c - running the plans of csrc/kernels/fft.h on contiguous lines: the Stockham
 * passes with their radix-2, 3, 4 and 5 butterflies and a generic one for other primes, the
 * Bluestein convolution, and the real-input / real-output transforms by half-length complex
 * ones. Compiled once per CPU capability (cpu_kernel.h); the passes' unit-stride inner loops are
 * written for the compiler to vectorize. The body is fft_impl.h, included for float and double.
 */
#include <string.h>

#include "cpu_kernel.h"

#include "fft.h"

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
