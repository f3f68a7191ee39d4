/* gemm_tile.h - what the small and medium product kernels (gemm_kernels.c,
 * gemm_medium_kernels.c) share: 256-bit vector types of GCC's vector extension, the fused
 * multiply-add where the capability has FMA (a multiply and an add elsewhere), a splat, and the
 * tile's row count MR (6 rows of accumulators with AVX's 16 registers, 2 without). Included once
 * per CPU capability, after cpu_kernel.h. */
#ifndef PT_GEMM_TILE_H
#define PT_GEMM_TILE_H

#if defined(__FMA__)
#include <immintrin.h>
#define FMA_f32(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define FMA_f64(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#else
#define FMA_f32(a, b, c) ((a) * (b) + (c))
#define FMA_f64(a, b, c) ((a) * (b) + (c))
#endif
/* A vector of x in every lane (`vec + x` would add 0.0 first: -0.0 + 0.0 is not -0.0). */
#define SPLAT_f32(x) ((vec_f32){(x), (x), (x), (x), (x), (x), (x), (x)})
#define SPLAT_f64(x) ((vec_f64){(x), (x), (x), (x)})

#if defined(__AVX__)
enum { MR = 6 };
#else
enum { MR = 2 };
#endif

typedef float vec_f32 __attribute__((vector_size(32)));
typedef float uvec_f32 __attribute__((vector_size(32), aligned(4)));
typedef double vec_f64 __attribute__((vector_size(32)));
typedef double uvec_f64 __attribute__((vector_size(32), aligned(8)));

#define ALWAYS_INLINE inline __attribute__((always_inline))

#endif
