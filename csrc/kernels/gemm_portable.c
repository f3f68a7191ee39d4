/* gemm_portable.c - the portable matrix product: C = beta * C + alpha * op(A) * B for every dtype
 * of the family (Note [one gemm call] in linalg.h) in plain C, for integer dtypes always and for
 * floating and complex ones when the build has no BLIS (or PYTENSOR_BLAS=portable).
 *
 * Large products follow the Goto / BLIS blocking: B is packed by KC x NC blocks into panels of NR
 * columns, A by MC x KC blocks into panels of MR rows (conjugated while packed for vdot), and an
 * MR x NR micro-kernel sums over the KC depth in a local accumulator that the compiler keeps in
 * registers and vectorizes over NR. The MC blocks of one packed B block are split across OpenMP
 * threads, each packing its own A block. Products with one output row or column, or too small to
 * repay packing, take a direct loop (one dot product per output element).
 *
 * Note [integer wrap-around]
 * torch's integer products wrap modulo 2^bits (int8: 100 * 100 * 3 -> 48). Signed overflow is
 * undefined in C, so integer dtypes are summed in unsigned arithmetic of at least their width
 * (uint32_t for 8 to 32 bits, uint64_t for int64), which wraps by definition and agrees with the
 * true result modulo 2^bits; the conversion back to the dtype keeps the low bits.
 * Complex products are written out in real arithmetic: C's `*` on _Complex calls __mulsc3 for its
 * inf/NaN rules, which BLIS does not follow either and which would cost a call per product.
 */
#include <complex.h>
#include <stdlib.h>

#include "linalg.h"

#ifdef _OPENMP
#include <omp.h>
#define PT_OMP(directive) _Pragma(directive)
#define PT_OMP_TID(tid) ((tid) = omp_get_thread_num())
#else
#define PT_OMP(directive)
#define PT_OMP_TID(tid) ((void)(tid))
#endif

/* MR x NR: 4 x 8 accumulators, 8 SSE registers of float32 at the baseline x86-64 flags. KC = 256
 * keeps an MR x KC sliver of A and a KC x NR sliver of B in L1 for 16-byte elements too;
 * MC x KC of A (64 KiB of float32) in L2; KC x NC of B (512 KiB of float32) in L3. */
enum { MR = 4, NR = 8, KC = 256, MC = 64, NC = 512 };
/* Below this many multiply-adds, packing costs more than it saves. */
enum { DIRECT_WORK = 32 * 32 * 32 };

typedef float _Complex cfloat;
typedef double _Complex cdouble;

static inline cfloat cmul_f(cfloat x, cfloat y)
{
    cfloat r;
    __real__ r = __real__ x * __real__ y - __imag__ x * __imag__ y;
    __imag__ r = __real__ x * __imag__ y + __imag__ x * __real__ y;
    return r;
}
static inline cdouble cmul_d(cdouble x, cdouble y)
{
    cdouble r;
    __real__ r = __real__ x * __real__ y - __imag__ x * __imag__ y;
    __imag__ r = __real__ x * __imag__ y + __imag__ x * __real__ y;
    return r;
}
static inline cfloat conj_f(cfloat x)
{
    __imag__ x = -__imag__ x;
    return x;
}
static inline cdouble conj_d(cdouble x)
{
    __imag__ x = -__imag__ x;
    return x;
}

#define MUL_PLAIN(x, y) ((x) * (y))
#define CONJ_NONE(x) (x)

/* One dtype's kernels: T the element type, A the accumulator (Note [integer wrap-around]), MUL
 * and CONJ its product and conjugate. */
#define PT_PORTABLE_GEMM(NAME, T, A, MUL, CONJ)                                                    \
    static inline A NAME##_load_a(const pt_gemm *g, const T *p)                                    \
    {                                                                                              \
        return g->conj_a ? (A)CONJ(*p) : (A)*p;                                                    \
    }                                                                                              \
    /* c = beta * c + alpha * acc (first pass over k) or c += alpha * acc (later passes). */       \
    static inline void NAME##_store(const pt_gemm *g, T *c, A acc, bool first)                     \
    {                                                                                              \
        A alpha = (A) * (const T *)g->alpha.bytes, beta = (A) * (const T *)g->beta.bytes;          \
        A prior = !first ? (A)*c : g->beta_zero ? (A)0 : MUL(beta, (A)*c);                         \
        *c = (T)(prior + MUL(alpha, acc));                                                         \
    }                                                                                              \
    static void NAME##_direct_row(const pt_gemm *g, int64_t i)                                     \
    {                                                                                              \
        const T *a = (const T *)g->a + i * g->rsa;                                                 \
        for (int64_t j = 0; j < g->n; j++) {                                                       \
            const T *b = (const T *)g->b + j * g->csb;                                             \
            A acc = (A)0;                                                                          \
            for (int64_t p = 0; p < g->k; p++)                                                     \
                acc += MUL(NAME##_load_a(g, a + p * g->csa), (A)b[p * g->rsb]);                    \
            NAME##_store(g, (T *)g->c + i * g->rsc + j * g->csc, acc, true);                       \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_direct(const pt_gemm *g)                                                    \
    {                                                                                              \
        int nt = g->m * g->n * g->k > 4 * DIRECT_WORK ? g->threads : 1;                            \
        PT_OMP("omp parallel for num_threads(nt) if (nt > 1)")                                     \
        for (int64_t i = 0; i < g->m; i++) NAME##_direct_row(g, i);                                \
    }                                                                                              \
    /* Bp: panels of NR columns, each kc rows of NR values, zero-padded past n. */                 \
    static void NAME##_pack_b(const pt_gemm *g, int64_t pc, int64_t kc, int64_t jc, int64_t nc,   \
                              T *bp)                                                               \
    {                                                                                              \
        for (int64_t jp = 0; jp < nc; jp += NR)                                                    \
            for (int64_t p = 0; p < kc; p++) {                                                     \
                const T *src = (const T *)g->b + (pc + p) * g->rsb;                                \
                for (int64_t j = 0; j < NR; j++)                                                   \
                    *bp++ = jp + j < nc ? src[(jc + jp + j) * g->csb] : (T)0;                      \
            }                                                                                      \
    }                                                                                              \
    /* Ap: panels of MR rows, each kc columns of MR values, zero-padded past m. */                 \
    static void NAME##_pack_a(const pt_gemm *g, int64_t ic, int64_t mc, int64_t pc, int64_t kc,   \
                              A *ap)                                                               \
    {                                                                                              \
        for (int64_t ip = 0; ip < mc; ip += MR)                                                    \
            for (int64_t p = 0; p < kc; p++) {                                                     \
                const T *src = (const T *)g->a + (pc + p) * g->csa;                                \
                for (int64_t i = 0; i < MR; i++)                                                   \
                    *ap++ = ip + i < mc ? NAME##_load_a(g, src + (ic + ip + i) * g->rsa) : (A)0;   \
            }                                                                                      \
    }                                                                                              \
    static void NAME##_micro(int64_t kc, const A *ap, const T *bp, A acc[MR][NR])                  \
    {                                                                                              \
        for (int i = 0; i < MR; i++)                                                               \
            for (int j = 0; j < NR; j++) acc[i][j] = (A)0;                                         \
        for (int64_t p = 0; p < kc; p++, ap += MR, bp += NR)                                       \
            for (int i = 0; i < MR; i++)                                                           \
                for (int j = 0; j < NR; j++) acc[i][j] += MUL(ap[i], (A)bp[j]);                    \
    }                                                                                              \
    static void NAME##_macro(const pt_gemm *g, int64_t ic, int64_t mc, int64_t jc, int64_t nc,    \
                             int64_t kc, bool first, const A *ap, const T *bp)                     \
    {                                                                                              \
        A acc[MR][NR];                                                                             \
        for (int64_t jr = 0; jr < nc; jr += NR)                                                    \
            for (int64_t ir = 0; ir < mc; ir += MR) {                                              \
                NAME##_micro(kc, ap + ir * kc, bp + jr * kc, acc);                                 \
                int64_t mr = mc - ir < MR ? mc - ir : MR, nr = nc - jr < NR ? nc - jr : NR;        \
                T *c = (T *)g->c + (ic + ir) * g->rsc + (jc + jr) * g->csc;                        \
                for (int64_t i = 0; i < mr; i++)                                                   \
                    for (int64_t j = 0; j < nr; j++)                                               \
                        NAME##_store(g, c + i * g->rsc + j * g->csc, acc[i][j], first);            \
            }                                                                                      \
    }                                                                                              \
    static void NAME##_blocked(const pt_gemm *g, A *ap_all, T *bp, int threads)                    \
    {                                                                                              \
        PT_OMP("omp parallel num_threads(threads) if (threads > 1)")                               \
        {                                                                                          \
            int tid = 0;                                                                           \
            PT_OMP_TID(tid);                                                                       \
            A *ap = ap_all + (int64_t)tid * MC * KC;                                               \
            for (int64_t jc = 0; jc < g->n; jc += NC) {                                            \
                int64_t nc = g->n - jc < NC ? g->n - jc : NC;                                      \
                for (int64_t pc = 0; pc < g->k; pc += KC) {                                        \
                    int64_t kc = g->k - pc < KC ? g->k - pc : KC;                                  \
                    PT_OMP("omp single") NAME##_pack_b(g, pc, kc, jc, nc, bp);                     \
                    PT_OMP("omp for schedule(dynamic)")                                            \
                    for (int64_t ic = 0; ic < g->m; ic += MC) {                                    \
                        int64_t mc = g->m - ic < MC ? g->m - ic : MC;                              \
                        NAME##_pack_a(g, ic, mc, pc, kc, ap);                                      \
                        NAME##_macro(g, ic, mc, jc, nc, kc, pc == 0, ap, bp);                      \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static pt_status NAME##_gemm(const pt_gemm *g)                                                 \
    {                                                                                              \
        if (g->m == 1 || g->n == 1 || g->m * g->n * g->k <= DIRECT_WORK) {                         \
            NAME##_direct(g);                                                                      \
            return PT_OK;                                                                          \
        }                                                                                          \
        int threads = g->threads;                                                                  \
        int64_t blocks = (g->m + MC - 1) / MC;                                                     \
        if (threads > blocks) threads = (int)blocks;                                               \
        if (threads < 1) threads = 1;                                                              \
        A *ap = malloc(sizeof(A) * (size_t)MC * KC * (size_t)threads);                             \
        T *bp = malloc(sizeof(T) * (size_t)KC * NC);                                               \
        if (!ap || !bp) {                                                                          \
            free(ap);                                                                              \
            free(bp);                                                                              \
            return PT_ERROR(PT_ERR_MEMORY, "matrix product: out of memory for packing buffers");  \
        }                                                                                          \
        NAME##_blocked(g, ap, bp, threads);                                                        \
        free(ap);                                                                                  \
        free(bp);                                                                                  \
        return PT_OK;                                                                              \
    }

PT_PORTABLE_GEMM(u8, uint8_t, uint32_t, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(i8, int8_t, uint32_t, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(i16, int16_t, uint32_t, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(i32, int32_t, uint32_t, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(i64, int64_t, uint64_t, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(f32, float, float, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(f64, double, double, MUL_PLAIN, CONJ_NONE)
PT_PORTABLE_GEMM(c64, cfloat, cfloat, cmul_f, conj_f)
PT_PORTABLE_GEMM(c128, cdouble, cdouble, cmul_d, conj_d)

/* alpha == 0 or k == 0: C = beta * C, A and B unread (BLIS's rule, which torch's follows). */
#define PT_PORTABLE_SCALE(NAME, T, A, MUL)                                                         \
    static void NAME##_scale(const pt_gemm *g)                                                     \
    {                                                                                              \
        A beta = (A) * (const T *)g->beta.bytes;                                                   \
        for (int64_t i = 0; i < g->m; i++)                                                         \
            for (int64_t j = 0; j < g->n; j++) {                                                   \
                T *c = (T *)g->c + i * g->rsc + j * g->csc;                                        \
                *c = g->beta_zero ? (T)0 : (T)MUL(beta, (A)*c);                                    \
            }                                                                                      \
    }
PT_PORTABLE_SCALE(u8, uint8_t, uint32_t, MUL_PLAIN)
PT_PORTABLE_SCALE(i8, int8_t, uint32_t, MUL_PLAIN)
PT_PORTABLE_SCALE(i16, int16_t, uint32_t, MUL_PLAIN)
PT_PORTABLE_SCALE(i32, int32_t, uint32_t, MUL_PLAIN)
PT_PORTABLE_SCALE(i64, int64_t, uint64_t, MUL_PLAIN)
PT_PORTABLE_SCALE(f32, float, float, MUL_PLAIN)
PT_PORTABLE_SCALE(f64, double, double, MUL_PLAIN)
PT_PORTABLE_SCALE(c64, cfloat, cfloat, cmul_f)
PT_PORTABLE_SCALE(c128, cdouble, cdouble, cmul_d)

#define PT_PORTABLE_CASE(ID, NAME)                                                                 \
    case ID:                                                                                       \
        if (scale_only) {                                                                          \
            NAME##_scale(g);                                                                       \
            return PT_OK;                                                                          \
        }                                                                                          \
        return NAME##_gemm(g);

pt_status pt_gemm_portable(const pt_gemm *g)
{
    if (g->m <= 0 || g->n <= 0) return PT_OK;
    bool scale_only = g->k == 0 || g->alpha_zero;
    if (g->dtype == PT_BOOL && scale_only && g->beta_zero) { /* mm of bool with k == 0 */
        for (int64_t i = 0; i < g->m; i++)
            for (int64_t j = 0; j < g->n; j++) g->c[i * g->rsc + j * g->csc] = 0;
        return PT_OK;
    }
    switch (g->dtype) {
        PT_PORTABLE_CASE(PT_UINT8, u8)
        PT_PORTABLE_CASE(PT_INT8, i8)
        PT_PORTABLE_CASE(PT_INT16, i16)
        PT_PORTABLE_CASE(PT_INT32, i32)
        PT_PORTABLE_CASE(PT_INT64, i64)
        PT_PORTABLE_CASE(PT_FLOAT32, f32)
        PT_PORTABLE_CASE(PT_FLOAT64, f64)
        PT_PORTABLE_CASE(PT_COMPLEX64, c64)
        PT_PORTABLE_CASE(PT_COMPLEX128, c128)
    default:
        return PT_ERROR(PT_ERR_TYPE, "matrix product: no portable kernel for dtype %d",
                        (int)g->dtype);
    }
}
