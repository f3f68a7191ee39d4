/* fft_plan.c - building and caching the plans of csrc/kernels/fft.h.
 *
 * n is factored into radices (4 first, then 2, 3, 5 and the other primes up to
 * PT_FFT_MAX_RADIX, Note [generic radix limit]); each pass gets its twiddle table
 * e^{sign 2 pi i p u / nc}, computed in double from the exact integer p u mod nc and stored in
 * the plan's type. A prime factor above the limit makes a Bluestein plan (Note [Bluestein] in
 * cpu/fft_impl.h): its chirp, the transform of the conjugate chirp (computed in double whatever
 * the plan's type) and the inner power-of-two plan. Real plans hold the complex plan of n/2
 * (even n) or n (odd n) and the twiddles that separate the halves.
 *
 * Note [plan cache]
 * Plans are cached per (n, kind, sign, type) so that a batch of calls of one size builds its
 * tables once, as torch caches its pocketfft / MKL plans. The cache holds PT_FFT_CACHE_SIZE
 * plans and never frees them (a plan is immutable and may be in use by any thread); a plan that
 * finds the cache full is built for its caller alone, who frees it. Building happens outside the
 * lock; two threads building the same plan keep the first one inserted.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "fft.h"

PT_CPU_STUB(fft, pt_fft_table, "FFT passes, Bluestein and real transforms (float, double)")

/* 64 plans: the distinct sizes of a program's transforms (a few per dimension of its data, and
 * their half sizes for real transforms) with room to spare; each is at most a few times n
 * complex numbers, so the cache stays well below the data it transforms. */
enum { PT_FFT_CACHE_SIZE = 64 };

typedef struct {
    int64_t n;
    int32_t kind, sign, real;
    pt_fft_plan *plan;
} cache_entry;

static cache_entry cache[PT_FFT_CACHE_SIZE];
static int cache_count;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static const double TWO_PI = 6.283185307179586476925286766559;

static void *table_alloc(int64_t count, int32_t real)
{
    return malloc((size_t)(count > 0 ? count : 1) * 2 * (size_t)real);
}

static void table_set(void *t, int64_t i, double re, double im, int32_t real)
{
    if (real == 4) {
        ((float *)t)[2 * i] = (float)re;
        ((float *)t)[2 * i + 1] = (float)im;
    } else {
        ((double *)t)[2 * i] = re;
        ((double *)t)[2 * i + 1] = im;
    }
}

/* e^{sign 2 pi i k / n} for 0 <= k < n (the caller reduces k exactly, so the angle < 2 pi). */
static void unit_root(int64_t k, int64_t n, int32_t sign, double *re, double *im)
{
    const double a = TWO_PI * (double)k / (double)n;
    *re = cos(a);
    *im = sign * sin(a);
}

void pt_fft_plan_free(pt_fft_plan *p)
{
    if (!p) return;
    for (int i = 0; i < p->npasses; i++) {
        free(p->twiddle[i]);
        free(p->roots[i]);
    }
    free(p->chirp);
    free(p->kernel_fft);
    free(p->real_twiddle);
    pt_fft_plan_free(p->inner);
    free(p);
}

/* Radices of n in pass order; false when a prime factor exceeds PT_FFT_MAX_RADIX. */
static bool factor(int64_t n, pt_fft_plan *p)
{
    int np = 0;
    while (n % 4 == 0) {
        p->radix[np++] = 4;
        n /= 4;
    }
    if (n % 2 == 0) {
        p->radix[np++] = 2;
        n /= 2;
    }
    for (int64_t f = 3; f <= PT_FFT_MAX_RADIX && n > 1; f += 2) {
        while (n % f == 0) {
            p->radix[np++] = (int32_t)f;
            n /= f;
        }
    }
    p->npasses = np;
    return n == 1;
}

static pt_status build(int64_t n, pt_fft_kind kind, int32_t sign, int32_t real,
                       pt_fft_plan **out);

static pt_status build_stockham(pt_fft_plan *p)
{
    int64_t s = 1;
    for (int i = 0; i < p->npasses; i++) {
        const int r = p->radix[i];
        const int64_t nc = p->n / s, m = nc / r;
        void *tw = table_alloc(m * (r - 1), p->real);
        if (!tw) return PT_ERROR(PT_ERR_MEMORY, "fft: could not allocate a plan of %lld points",
                                 (long long)p->n);
        p->twiddle[i] = tw;
        for (int64_t q = 0; q < m; q++) {
            for (int u = 1; u < r; u++) {
                double re, im;
                unit_root((q * u) % nc, nc, p->sign, &re, &im);
                table_set(tw, q * (r - 1) + (u - 1), re, im, p->real);
            }
        }
        if (r > 5) {
            void *roots = table_alloc(r, p->real);
            if (!roots) return PT_ERROR(PT_ERR_MEMORY, "fft: could not allocate a plan");
            p->roots[i] = roots;
            for (int k = 0; k < r; k++) {
                double re, im;
                unit_root(k, r, p->sign, &re, &im);
                table_set(roots, k, re, im, p->real);
            }
        }
        s *= r;
    }
    p->scratch = p->n;
    return PT_OK;
}

static pt_status build_bluestein(pt_fft_plan *p)
{
    const int64_t n = p->n;
    int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    p->npasses = 0;
    p->conv_n = m;
    PT_TRY(build(m, PT_FFT_C2C, -1, p->real, &p->inner));
    p->chirp = table_alloc(n, p->real);
    p->kernel_fft = table_alloc(m, p->real);
    double *k8 = malloc(sizeof(double) * 2 * (size_t)m);
    double *w8 = malloc(sizeof(double) * 2 * (size_t)m);
    pt_fft_plan *inner8 = NULL;
    pt_status st = PT_OK;
    if (!p->chirp || !p->kernel_fft || !k8 || !w8) {
        st = PT_ERROR(PT_ERR_MEMORY, "fft: could not allocate a plan of %lld points",
                      (long long)n);
        goto done;
    }
    if (p->real == 8) {
        inner8 = p->inner;
    } else if ((st = build(m, PT_FFT_C2C, -1, 8, &inner8)) != PT_OK) {
        goto done;
    }
    memset(k8, 0, sizeof(double) * 2 * (size_t)m);
    for (int64_t k = 0; k < n; k++) {
        /* k^2 mod 2n exactly: the chirp's angle pi k^2 / n is periodic in 2n */
        const int64_t q = (int64_t)(((unsigned __int128)k * (unsigned __int128)k) %
                                    (unsigned __int128)(2 * n));
        const double a = TWO_PI * 0.5 * (double)q / (double)n;
        const double cr = cos(a), ci = p->sign * sin(a);
        table_set(p->chirp, k, cr, ci, p->real);
        k8[2 * k] = cr;
        k8[2 * k + 1] = -ci;
        if (k) {
            k8[2 * (m - k)] = cr;
            k8[2 * (m - k) + 1] = -ci;
        }
    }
    PT_CPU_KERNELS(fft, pt_fft_table)->c2c_f8(inner8, k8, w8, 1.0 / (double)m);
    for (int64_t j = 0; j < m; j++) table_set(p->kernel_fft, j, k8[2 * j], k8[2 * j + 1], p->real);
    p->scratch = 2 * m;
done:
    if (inner8 != p->inner) pt_fft_plan_free(inner8);
    free(k8);
    free(w8);
    return st;
}

static pt_status build_real(pt_fft_plan *p)
{
    const int64_t n = p->n, inner_n = n % 2 ? n : n / 2;
    PT_TRY(build(inner_n, PT_FFT_C2C, p->sign, p->real, &p->inner));
    if (n % 2 == 0) {
        p->real_twiddle = table_alloc(n / 2 + 1, p->real);
        if (!p->real_twiddle) return PT_ERROR(PT_ERR_MEMORY, "fft: could not allocate a plan");
        for (int64_t k = 0; k <= n / 2; k++) {
            double re, im;
            unit_root(k, n, -1, &re, &im);
            table_set(p->real_twiddle, k, re, im, p->real);
        }
    }
    p->scratch = inner_n + p->inner->scratch;
    return PT_OK;
}

static pt_status build(int64_t n, pt_fft_kind kind, int32_t sign, int32_t real,
                       pt_fft_plan **out)
{
    pt_fft_plan *p = calloc(1, sizeof *p);
    if (!p) return PT_ERROR(PT_ERR_MEMORY, "fft: could not allocate a plan");
    p->n = n;
    p->kind = kind;
    p->sign = kind == PT_FFT_R2C ? -1 : kind == PT_FFT_C2R ? 1 : sign;
    p->real = real;
    pt_status st;
    if (kind != PT_FFT_C2C)
        st = build_real(p);
    else if (factor(n, p))
        st = build_stockham(p);
    else
        st = build_bluestein(p);
    if (st != PT_OK) {
        pt_fft_plan_free(p);
        return st;
    }
    *out = p;
    return PT_OK;
}

static const pt_fft_plan *lookup(int64_t n, int32_t kind, int32_t sign, int32_t real)
{
    for (int i = 0; i < cache_count; i++) {
        const cache_entry *e = &cache[i];
        if (e->n == n && e->kind == kind && e->sign == sign && e->real == real) return e->plan;
    }
    return NULL;
}

pt_status pt_fft_plan_get(int64_t n, pt_fft_kind kind, int32_t sign, int32_t real,
                          const pt_fft_plan **out, bool *owned)
{
    if (kind != PT_FFT_C2C) sign = kind == PT_FFT_R2C ? -1 : 1;
    pthread_mutex_lock(&cache_lock);
    const pt_fft_plan *hit = lookup(n, kind, sign, real);
    pthread_mutex_unlock(&cache_lock);
    if (hit) {
        *out = hit;
        *owned = false;
        return PT_OK;
    }
    pt_fft_plan *p;
    PT_TRY(build(n, kind, sign, real, &p));
    pthread_mutex_lock(&cache_lock);
    hit = lookup(n, kind, sign, real);
    if (!hit && cache_count < PT_FFT_CACHE_SIZE) {
        cache[cache_count++] = (cache_entry){n, kind, sign, real, p};
        hit = p;
        p = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    if (hit) {
        pt_fft_plan_free(p);
        *out = hit;
        *owned = false;
    } else {
        *out = p;
        *owned = true;
    }
    return PT_OK;
}
