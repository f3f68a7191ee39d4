/* blas.c - the link to BLIS: which kernel set and how many threads it runs (the BLAS phase of
 * start-up), and the matrix products of the linear-algebra operators through BLIS's typed API.
 *
 * At init this file chooses BLIS's kernel set from pytensor's own CPU capability (Note [BLIS
 * kernel set]), starts BLIS, and reports what runs. A product (Note [one gemm call] in linalg.h)
 * goes to bli_?dotxv, bli_?gemv or bli_?gemm by its shape, with the operands' own strides, and
 * runs on as many threads as its size earns, up to pytensor.set_num_threads's count (Note [BLIS
 * threads]). Integer dtypes, and every dtype when the build has no BLIS or
 * PYTENSOR_BLAS=portable is set at init, go to the portable kernel (gemm_portable.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_cache.h"
#include "linalg.h"

#ifdef PT_HAVE_BLIS
#include <blis.h>
#endif

static int32_t backend = PT_BLAS_PORTABLE;

int32_t pt_blas_backend(void) { return backend; }

int32_t pt_blas_set_backend(int32_t which)
{
    int32_t old = backend;
#ifdef PT_HAVE_BLIS
    backend = which == PT_BLAS_BLIS ? PT_BLAS_BLIS : PT_BLAS_PORTABLE;
#else
    PT_UNUSED(which);
#endif
    return old;
}

bool pt_blas_strides_ok(int64_t m, int64_t n, int64_t *rs, int64_t *cs)
{
    if (m <= 1 && n <= 1) {
        *rs = *cs = 1;
        return true;
    }
    if (m <= 1) *rs = (*cs < 0 ? -*cs : *cs) * n; /* a row: any row stride past its end */
    if (n <= 1) *cs = (*rs < 0 ? -*rs : *rs) * m;
    /* Negative strides go to a contiguous copy: BLIS 0.9 computes wrong products with a
     * negative column stride on its B operand. */
    if (*rs < 0 || *cs < 0) return false;
    int64_t r = *rs, c = *cs;
    if (r == 0 || c == 0) return false;
    /* Dense or gapped in one of the two orders: the forms in which no two elements meet. */
    if (r <= c) return r * m <= c;
    return c * n <= r;
}

/* ---------------------------------------------------------------- BLIS */
#ifdef PT_HAVE_BLIS

/* Note [BLIS threads]
 * Debian's libblis is built with OpenMP: its calls open parallel regions on the same libgomp, and
 * so the same pool of threads, as pytensor's own regions; nothing else is started. BLIS reads
 * BLIS_NUM_THREADS / OMP_NUM_THREADS once, at its init, so each call passes its count in its own
 * rntm_t (the caller's g->threads: pytensor.set_num_threads's count, capped by the product's size,
 * Note [gemm grain] in linalg_run.c, and one inside a parallel region of pytensor's), and
 * pt_blas_set_num_threads keeps BLIS's global count, which BLAS-API callers see, equal to
 * pytensor's. A call on one thread opens no team that a second thread would join. BLIS 0.9
 * threads only its level-3 operations: its dotxv and gemv get a one-thread rntm_t, as a larger
 * count trips an assertion in its thread set-up ("Expanding prenode for non-IC loop?") that
 * aborts. */
static void blis_rntm(int32_t threads, rntm_t *rntm)
{
    rntm_t init = BLIS_RNTM_INITIALIZER;
    *rntm = init;
    bli_rntm_set_num_threads(threads > 0 ? threads : 1, rntm);
}

#define PT_BLIS_CALLS(ch, ctype)                                                                   \
    static void blis_##ch(const pt_gemm *g, rntm_t *rntm, rntm_t *one)                             \
    {                                                                                              \
        ctype *alpha = (ctype *)g->alpha.bytes, *beta = (ctype *)g->beta.bytes;                    \
        ctype *a = (ctype *)g->a, *b = (ctype *)g->b, *c = (ctype *)g->c;                          \
        conj_t conj = g->conj_a ? BLIS_CONJUGATE : BLIS_NO_CONJUGATE;                              \
        if (g->m == 1 && g->n == 1)                                                                \
            bli_##ch##dotxv_ex(conj, BLIS_NO_CONJUGATE, g->k, alpha, a, g->csa, b, g->rsb, beta,  \
                               c, NULL, one);                                                      \
        else if (g->n == 1)                                                                        \
            bli_##ch##gemv_ex(g->conj_a ? BLIS_CONJ_NO_TRANSPOSE : BLIS_NO_TRANSPOSE,              \
                              BLIS_NO_CONJUGATE, g->m, g->k, alpha, a, g->rsa, g->csa, b, g->rsb,  \
                              beta, c, g->rsc, NULL, one);                                         \
        else if (g->m == 1) /* c^T = a^T b, as c = b^T a with b^T's strides swapped */             \
            bli_##ch##gemv_ex(BLIS_NO_TRANSPOSE, conj, g->n, g->k, alpha, b, g->csb, g->rsb, a,    \
                              g->csa, beta, c, g->csc, NULL, one);                                 \
        else                                                                                       \
            bli_##ch##gemm_ex(g->conj_a ? BLIS_CONJ_NO_TRANSPOSE : BLIS_NO_TRANSPOSE,              \
                              BLIS_NO_TRANSPOSE, g->m, g->n, g->k, alpha, a, g->rsa, g->csa, b,    \
                              g->rsb, g->csb, beta, c, g->rsc, g->csc, NULL, rntm);                \
    }
PT_BLIS_CALLS(s, float)
PT_BLIS_CALLS(d, double)
PT_BLIS_CALLS(c, scomplex)
PT_BLIS_CALLS(z, dcomplex)

/* Note [a short product with B column-major]
 * A product of few rows whose A is row-major and whose B is column-major, both contiguous along
 * a long k (a linear layer's forward, x @ w.t(), at a small batch), runs on BLIS 0.9's skx
 * kernels at a third of their speed when C is row-major and at full speed when C is
 * column-major: 16 x 1024 @ 1024 x 1024 took 1168 us into a row-major C against 472 into a
 * column-major one, the transposed copy between the two 7 us. So such a product goes through a
 * column-major buffer. Measured on one core (times with the detour / without): m <= 64, k = 1024:
 * 0.40-0.65; m = 128: 0.71-0.86; k = 256: 1.07-1.19 (a loss: left alone), and a loss wherever
 * n < 2m. The bounds below keep the products measured to gain. The haswell kernels (AVX2)
 * run both forms at one speed (a 0.9-1.13 spread over the same shapes), so there the product
 * goes as it is. */
enum { COLD_MAX_M = 128, COLD_MIN_K = 512 };

static bool skx_kernels; /* BLIS runs its skx kernel set (set at pt_blas_init) */

static bool column_detour(const pt_gemm *g)
{
    return skx_kernels && (g->dtype == PT_FLOAT32 || g->dtype == PT_FLOAT64) && g->m > 1 &&
           g->m <= COLD_MAX_M && g->k >= COLD_MIN_K && g->n >= 2 * g->m && g->csa == 1 &&
           g->rsa != 1 && g->rsb == 1 && g->csb != 1 && g->csc == 1;
}

#define PT_BLIS_DETOUR(ch, T)                                                                      \
    static void detour_##ch(pt_gemm g, T *buf, rntm_t *rntm, rntm_t *one)                          \
    {                                                                                              \
        T *c = (T *)g.c, beta = *(const T *)g.beta.bytes;                                          \
        const int64_t m = g.m, n = g.n, rsc = g.rsc;                                               \
        const bool keep = !g.beta_zero;                                                            \
        g.c = (char *)buf;                                                                         \
        g.rsc = 1;                                                                                 \
        g.csc = m;                                                                                 \
        g.beta_zero = true;                                                                        \
        memset(g.beta.bytes, 0, sizeof(T));                                                        \
        blis_##ch(&g, rntm, one);                                                                  \
        for (int64_t i = 0; i < m; i++) {                                                          \
            T *ci = c + i * rsc;                                                                   \
            const T *bi = buf + i;                                                                 \
            if (keep)                                                                              \
                for (int64_t j = 0; j < n; j++) ci[j] = bi[j * m] + beta * ci[j];                  \
            else                                                                                   \
                for (int64_t j = 0; j < n; j++) ci[j] = bi[j * m];                                 \
        }                                                                                          \
    }
PT_BLIS_DETOUR(s, float)
PT_BLIS_DETOUR(d, double)

/* g through a column-major buffer (Note [a short product with B column-major]); false when no
 * buffer could be had (the caller then runs g as it is). */
static bool run_detour(const pt_gemm *g, rntm_t *rntm, rntm_t *one)
{
    size_t bytes = (size_t)(g->m * g->n) * pt_dtype_itemsize(g->dtype);
    void *buf = NULL;
    if (pt_cpu_block_alloc(bytes, &buf) != 0) return false;
    if (g->dtype == PT_FLOAT32)
        detour_s(*g, buf, rntm, one);
    else
        detour_d(*g, buf, rntm, one);
    pt_cpu_block_free(buf, bytes);
    return true;
}
#undef PT_BLIS_CALLS

static bool blis_serves(int32_t dtype)
{
    return dtype == PT_FLOAT32 || dtype == PT_FLOAT64 || dtype == PT_COMPLEX64 ||
           dtype == PT_COMPLEX128;
}

pt_status pt_blas_gemm(const pt_gemm *g)
{
    if (backend != PT_BLAS_BLIS || !blis_serves(g->dtype)) return pt_gemm_portable(g);
    rntm_t rntm, one;
    blis_rntm(g->threads, &rntm);
    blis_rntm(1, &one);
    if (column_detour(g) && run_detour(g, &rntm, &one)) return PT_OK;
    switch (g->dtype) {
    case PT_FLOAT32: blis_s(g, &rntm, &one); break;
    case PT_FLOAT64: blis_d(g, &rntm, &one); break;
    case PT_COMPLEX64: blis_c(g, &rntm, &one); break;
    default: blis_z(g, &rntm, &one); break;
    }
    return PT_OK;
}

/* Note [BLIS kernel set]
 * BLIS 0.9 picks its kernel set at its init from cpuid, and on x86 tells Skylake-X class cores
 * from others by the number of AVX-512 FMA units, which it infers from the brand string. Where
 * that string is generic ("Intel(R) Xeon(R) Processor", as on many cloud machines) it falls back
 * to its Haswell (AVX2) kernels on AVX-512 cores: one-core sgemm at n = 2048 measured ~105
 * GFLOP/s with them and ~160 with the 'skx' kernels on the development machines. On AMD cores
 * with AVX-512 (Zen 4: "AMD EPYC", family 0x19) this BLIS knows no kernel set at all and falls
 * back to its generic one: one-core sgemm at n = 1024 measured 40 GFLOP/s with it, 122 with its
 * haswell or zen kernels and 220 with skx. So pytensor chooses: AVX-512 in use, on any vendor's
 * CPU -> skx; AVX-512 detected but lowered to AVX2 by PYTENSOR_CPU_CAPABILITY -> haswell, so
 * that BLIS does not use what the user turned off; otherwise BLIS's own choice (an AVX2-only core
 * is one it knows: haswell on Intel, zen/zen2/zen3 on AMD).
 * Debian's 0.9 exports no bli_arch_set_id, so the choice goes through BLIS_ARCH_TYPE (an arch_t
 * number), set just for bli_init and removed again; a BLIS_ARCH_TYPE set by the user wins when it
 * names a kernel set this BLIS has (any other value would make BLIS abort, so it is dropped and
 * the report says so). */
static bool arch_configured(long id)
{
    switch (id) {
#ifdef BLIS_CONFIG_SKX
    case BLIS_ARCH_SKX:
#endif
#ifdef BLIS_CONFIG_KNL
    case BLIS_ARCH_KNL:
#endif
#ifdef BLIS_CONFIG_HASWELL
    case BLIS_ARCH_HASWELL:
#endif
#ifdef BLIS_CONFIG_SANDYBRIDGE
    case BLIS_ARCH_SANDYBRIDGE:
#endif
#ifdef BLIS_CONFIG_PENRYN
    case BLIS_ARCH_PENRYN:
#endif
#ifdef BLIS_CONFIG_ZEN3
    case BLIS_ARCH_ZEN3:
#endif
#ifdef BLIS_CONFIG_ZEN2
    case BLIS_ARCH_ZEN2:
#endif
#ifdef BLIS_CONFIG_ZEN
    case BLIS_ARCH_ZEN:
#endif
#ifdef BLIS_CONFIG_GENERIC
    case BLIS_ARCH_GENERIC:
#endif
        return true;
    default: return false;
    }
}

/* The arch_t to request (-1: none) and why, per Note [BLIS kernel set]. */
static long choose_arch(const char **why)
{
    const char *user = getenv("BLIS_ARCH_TYPE");
    bool dropped = false;
    if (user && *user) {
        char *end = NULL;
        long id = strtol(user, &end, 10);
        if (end != user && *end == '\0' && arch_configured(id)) {
            *why = "set by BLIS_ARCH_TYPE";
            return -1;
        }
        unsetenv("BLIS_ARCH_TYPE");
        dropped = true;
    }
    int32_t cap = pt_cpu_capability(), detected = pt_cpu_capability_detected();
#ifdef BLIS_CONFIG_SKX
    if (cap == PT_CPU_AVX512) {
        *why = dropped ? "chosen for avx512; BLIS_ARCH_TYPE dropped: not a kernel set of this BLIS"
                       : "chosen for avx512";
        return BLIS_ARCH_SKX;
    }
#endif
#ifdef BLIS_CONFIG_HASWELL
    if (cap == PT_CPU_AVX2 && detected == PT_CPU_AVX512) {
        *why = dropped ? "chosen for avx2; BLIS_ARCH_TYPE dropped: not a kernel set of this BLIS"
                       : "chosen for avx2, as PYTENSOR_CPU_CAPABILITY asks";
        return BLIS_ARCH_HASWELL;
    }
#endif
    PT_UNUSED(detected);
    *why = dropped ? "BLIS's own choice; BLIS_ARCH_TYPE dropped: not a kernel set of this BLIS"
                   : "BLIS's own choice";
    return -1;
}


void pt_blas_set_num_threads(int32_t n) { bli_thread_set_num_threads(n > 0 ? n : 1); }

pt_status pt_blas_init(int64_t *count, const char **detail)
{
    static char line[256];
    const char *why = "";
    long request = choose_arch(&why);
    if (request >= 0) {
        char id[16];
        snprintf(id, sizeof id, "%ld", request);
        setenv("BLIS_ARCH_TYPE", id, 1);
    }
    bli_init();
    arch_t arch = bli_arch_query_id(); /* fixes the choice: BLIS reads the variable once */
#ifdef BLIS_CONFIG_SKX
    skx_kernels = arch == BLIS_ARCH_SKX;
#endif
    if (request >= 0) unsetenv("BLIS_ARCH_TYPE");
    bli_thread_set_num_threads(pt_get_num_threads());
    const char *env = getenv("PYTENSOR_BLAS");
    bool portable = env && strcmp(env, "portable") == 0;
    backend = portable ? PT_BLAS_PORTABLE : PT_BLAS_BLIS;
    snprintf(line, sizeof line, "BLIS %s, %s kernels (%s)%s", bli_info_get_version_str(),
             bli_arch_string(arch), why,
             portable ? "; portable kernels in use (PYTENSOR_BLAS=portable)" : "");
    *detail = line;
    *count = 1;
    return pt_config_set("blis", line);
}

#else /* no BLIS */

pt_status pt_blas_gemm(const pt_gemm *g) { return pt_gemm_portable(g); }

void pt_blas_set_num_threads(int32_t n) { PT_UNUSED(n); }

pt_status pt_blas_init(int64_t *count, const char **detail)
{
    backend = PT_BLAS_PORTABLE;
    *detail = "not found at build time (portable kernels serve)";
    *count = 0;
    return pt_config_set("blis", "no");
}

#endif
