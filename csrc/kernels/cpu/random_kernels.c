/* random_kernels.c - normal_'s fill of a contiguous run of elements, compiled once per CPU
 * capability (cpu_kernel.h); random.c hands it rows (staged through a buffer when the row is
 * strided or float16/bfloat16).
 *
 * A batch is BLOCKS consecutive Philox blocks (Note [Philox stream], random.c) turned into
 * 4 * BLOCKS float32 or 2 * BLOCKS float64 normals in three passes over small arrays:
 *   1. the blocks' words, laid out as the Box-Muller pairs' first words then their second words;
 *   2. Box-Muller on each pair (random_math.h), a loop over independent lanes that the compiler
 *      vectorizes with the capability's flags, mean + std * z included;
 *   3. the pairs' cosine and sine normals interleaved into element order.
 * Element e of a call always comes from block offset + e / 4 (float64: e / 2), whatever batch,
 * thread or capability computes it, and pass 2 is the same IEEE operations in every lane (Note
 * [normal arithmetic]), so every capability gives the default build's bits. Pass 1 is integer
 * arithmetic: the AVX2 and AVX-512 builds run it with 256-bit intrinsics (GCC vectorizes the
 * portable rounds poorly: 10 ns per block against 3.3 on a Zen 3 core), the default build with
 * the portable rounds of philox.h's algorithm.
 */
#include "cpu_kernel.h"

#include <string.h>

#include "philox.h"
#include "random_internal.h"
#include "random_math.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* Blocks per batch: 64 float32 normals, a quarter of the L1 cache at most in flight. */
enum { BLOCKS = 16 };
enum { F32_PER_BATCH = PT_RANDOM_NORMALS_PER_BLOCK_F32 * BLOCKS,
       F64_PER_BATCH = PT_RANDOM_NORMALS_PER_BLOCK_F64 * BLOCKS };

/* The words of a batch: first[j] and second[j] make pair j. Pair k (< BLOCKS) is words 0-1 of
 * block k and pair BLOCKS + k words 2-3; float64 reads its one pair per block from w0w1 (words 0
 * and 1 of each block, hi:lo of u1) and w2w3 (hi:lo of u2). */
typedef struct batch_words {
    uint32_t first[2 * BLOCKS];  /* words 0 (blocks 0..), then words 2 */
    uint32_t second[2 * BLOCKS]; /* words 1, then words 3 */
} batch_words;

#if defined(__AVX2__)
/* Four blocks per register, one in each 64-bit lane with its word in the low half: the 32 x 32
 * -> 64-bit products (vpmuludq) read only the low halves, so the high halves may hold anything
 * and the rounds need no shuffles. */
enum { SETS = BLOCKS / 4 };

/* The low halves of a's and b's four lanes as eight 32-bit words, a's first. */
static inline __m256i low_halves(__m256i a, __m256i b)
{
    const __m256 s = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                       _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_permute4x64_epi64(_mm256_castps_si256(s), _MM_SHUFFLE(3, 1, 2, 0));
}

static inline void batch_blocks(uint64_t ctr, uint32_t k0, uint32_t k1, batch_words *b)
{
    __m256i c0[SETS], c1[SETS], c2[SETS], c3[SETS];
    for (int h = 0; h < SETS; h++) {
        const __m256i x = _mm256_add_epi64(_mm256_set1_epi64x((long long)(ctr + 4 * (uint64_t)h)),
                                           _mm256_setr_epi64x(0, 1, 2, 3));
        c0[h] = x;
        c1[h] = _mm256_srli_epi64(x, 32);
        c2[h] = _mm256_setzero_si256();
        c3[h] = c2[h];
    }
    const __m256i m0 = _mm256_set1_epi64x(PT_PHILOX_M0), m1 = _mm256_set1_epi64x(PT_PHILOX_M1);
    for (int round = 0; round < 10; round++) {
        const __m256i key0 = _mm256_set1_epi64x(k0), key1 = _mm256_set1_epi64x(k1);
        for (int h = 0; h < SETS; h++) {
            const __m256i p0 = _mm256_mul_epu32(c0[h], m0), p1 = _mm256_mul_epu32(c2[h], m1);
            c0[h] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[h]), key0);
            c2[h] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[h]), key1);
            c1[h] = p1;
            c3[h] = p0;
        }
        k0 += PT_PHILOX_W0;
        k1 += PT_PHILOX_W1;
    }
    for (int h = 0; h < SETS; h += 2) {
        _mm256_storeu_si256((__m256i *)(void *)(b->first + 4 * h), low_halves(c0[h], c0[h + 1]));
        _mm256_storeu_si256((__m256i *)(void *)(b->first + BLOCKS + 4 * h),
                            low_halves(c2[h], c2[h + 1]));
        _mm256_storeu_si256((__m256i *)(void *)(b->second + 4 * h), low_halves(c1[h], c1[h + 1]));
        _mm256_storeu_si256((__m256i *)(void *)(b->second + BLOCKS + 4 * h),
                            low_halves(c3[h], c3[h + 1]));
    }
}
#else
static inline void batch_blocks(uint64_t ctr, uint32_t k0, uint32_t k1, batch_words *b)
{
    uint32_t c0[BLOCKS], c1[BLOCKS], c2[BLOCKS], c3[BLOCKS];
    for (int k = 0; k < BLOCKS; k++) {
        c0[k] = (uint32_t)(ctr + (uint64_t)k);
        c1[k] = (uint32_t)((ctr + (uint64_t)k) >> 32);
        c2[k] = 0;
        c3[k] = 0;
    }
    for (int round = 0; round < 10; round++) {
        for (int k = 0; k < BLOCKS; k++) {
            const uint64_t p0 = (uint64_t)PT_PHILOX_M0 * c0[k];
            const uint64_t p1 = (uint64_t)PT_PHILOX_M1 * c2[k];
            const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[k] ^ k0;
            const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3[k] ^ k1;
            c1[k] = (uint32_t)p1;
            c3[k] = (uint32_t)p0;
            c0[k] = n0;
            c2[k] = n2;
        }
        k0 += PT_PHILOX_W0;
        k1 += PT_PHILOX_W1;
    }
    memcpy(b->first, c0, sizeof c0);
    memcpy(b->first + BLOCKS, c2, sizeof c2);
    memcpy(b->second, c1, sizeof c1);
    memcpy(b->second + BLOCKS, c3, sizeof c3);
}
#endif

/* The batch of elements e0.. (e0 a multiple of F32_PER_BATCH) into out[0 .. F32_PER_BATCH). */
static void batch_f32(float *out, uint64_t e0, const pt_random_normal_args *a)
{
    batch_words b;
    batch_blocks(a->offset + e0 / PT_RANDOM_NORMALS_PER_BLOCK_F32, a->k0, a->k1, &b);
    float zc[2 * BLOCKS], zs[2 * BLOCKS];
    const float mean = a->mean_f, std = a->std_f;
    for (int j = 0; j < 2 * BLOCKS; j++) {
        float z0, z1;
        pt_rm_box_muller_f32(b.first[j], b.second[j], &z0, &z1);
        zc[j] = mean + std * z0;
        zs[j] = mean + std * z1;
    }
    for (int k = 0; k < BLOCKS; k++) {
        out[4 * k] = zc[k];
        out[4 * k + 1] = zs[k];
        out[4 * k + 2] = zc[BLOCKS + k];
        out[4 * k + 3] = zs[BLOCKS + k];
    }
}

static void batch_f64(double *out, uint64_t e0, const pt_random_normal_args *a)
{
    batch_words b;
    batch_blocks(a->offset + e0 / PT_RANDOM_NORMALS_PER_BLOCK_F64, a->k0, a->k1, &b);
    double zc[BLOCKS], zs[BLOCKS];
    const double mean = a->mean, std = a->std;
    for (int k = 0; k < BLOCKS; k++) {
        const uint32_t w[4] = {b.first[k], b.second[k], b.first[BLOCKS + k],
                               b.second[BLOCKS + k]};
        double z0, z1;
        pt_rm_box_muller_f64(w, &z0, &z1);
        zc[k] = mean + std * z0;
        zs[k] = mean + std * z1;
    }
    for (int k = 0; k < BLOCKS; k++) {
        out[2 * k] = zc[k];
        out[2 * k + 1] = zs[k];
    }
}

/* Elements first..first+n-1 into out: whole batches straight into out, the partial batches at
 * either end through a buffer. */
#define NORMAL_FILL(SUF, T, PER_BATCH)                                                             \
    static void normal_##SUF(T *out, int64_t n, uint64_t first, const pt_random_normal_args *a)  \
    {                                                                                              \
        const uint64_t end = first + (uint64_t)n;                                                  \
        uint64_t e = first - first % PER_BATCH;                                                    \
        for (; e < end; e += PER_BATCH) {                                                          \
            if (e >= first && end - e >= PER_BATCH) {                                              \
                batch_##SUF(out + (e - first), e, a);                                              \
                continue;                                                                          \
            }                                                                                      \
            T buf[PER_BATCH];                                                                      \
            batch_##SUF(buf, e, a);                                                                \
            const uint64_t lo = e > first ? e : first;                                             \
            const uint64_t hi = end < e + PER_BATCH ? end : e + PER_BATCH;                         \
            memcpy(out + (lo - first), buf + (lo - e), (size_t)(hi - lo) * sizeof(T));            \
        }                                                                                          \
    }

NORMAL_FILL(f32, float, F32_PER_BATCH)
NORMAL_FILL(f64, double, F64_PER_BATCH)

PT_CPU_KERNELS_DEFINE(random, pt_random_table) = {
    .normal_f32 = normal_f32,
    .normal_f64 = normal_f64,
};
