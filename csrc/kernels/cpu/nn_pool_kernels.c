/* nn_pool_kernels.c - the loops of max, average, adaptive average and adaptive max pooling and of
 * their backward, float32 and float64, compiled once per CPU capability (cpu_kernel.h); the fronts
 * are csrc/kernels/nn/pool.c and pool_adaptive.c, the layouts are described in nn/pool.h.
 *
 * Planar loops walk one output plane at a time, each output reading its window (scalar: the
 * window's taps are strided). Channels-last loops handle one output pixel at a time for all C
 * channels, the innermost loop running over C contiguous elements, which the compiler vectorizes
 * (the max's compare-and-select included). Max pooling keeps the first maximum, and a nan beats
 * everything and is kept (each later nan replaces it), as torch's `val > max || isnan(val)`.
 * Integer tensors have max pooling loops of their own (and int64 average pooling, whose integer
 * quotients truncate as torch's). Average pooling divides by the window's size clipped to the padded input (count_include_pad) or
 * to the input, or by divisor_override; windows that lie wholly in the padding give 0. Adaptive
 * windows are [floor(o * I / O), ceil((o + 1) * I / O)). Sums accumulate in the element type as
 * torch's CPU kernels do for float and double.
 */
#include "cpu_kernel.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nn/pool.h"

/* Kernel taps [t0, t1) of output o along one dim that land inside the input. */
static inline void taps(int64_t o, int64_t s, int64_t p, int64_t d, int64_t k, int64_t in,
                        int64_t *t0, int64_t *t1)
{
    const int64_t start = o * s - p;
    int64_t a = start < 0 ? (-start + d - 1) / d : 0, b = k;
    const int64_t room = in - 1 - start;
    if (room < 0) b = 0;
    else if (room / d + 1 < b) b = room / d + 1;
    *t0 = a;
    *t1 = b > a ? b : a;
}

/* Average window of output o along one dim: [*lo, *hi) inside the input, *padded its size
 * clipped to the padded input. */
static inline void avg_window(int64_t o, int64_t s, int64_t p, int64_t k, int64_t in, int64_t *lo,
                              int64_t *hi, int64_t *padded)
{
    int64_t a = o * s - p, b = a + k;
    if (b > in + p) b = in + p;
    *padded = b - a;
    *lo = a < 0 ? 0 : a;
    *hi = b > in ? in : b;
}

static inline int64_t ad_start(int64_t o, int64_t out, int64_t in) { return o * in / out; }
static inline int64_t ad_end(int64_t o, int64_t out, int64_t in)
{
    return ((o + 1) * in + out - 1) / out;
}

static inline int64_t avg_divisor(const pt_pool_geom *g, const int64_t lo[3], const int64_t hi[3],
                                  const int64_t padded[3])
{
    if (g->divisor) return g->divisor;
    if (g->count_include_pad) return padded[0] * padded[1] * padded[2];
    return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
}

static inline void ad_window(const pt_pool_geom *g, int64_t od, int64_t oh, int64_t ow,
                             int64_t lo[3], int64_t hi[3])
{
    const int64_t ov[3] = {od, oh, ow};
    for (int i = 0; i < 3; i++) {
        lo[i] = ad_start(ov[i], g->out[i], g->in[i]);
        hi[i] = ad_end(ov[i], g->out[i], g->in[i]);
    }
}

/* The forward loops of max pooling for element type T, whose smallest value is LOWEST (-inf for
 * floats; `v != v` is false for integers, so their loops only compare). */
#define MAX_FWD(SUF, T, LOWEST)                                                                    \
    /* ---------------------------------------------------------------- max, planar */            \
    static void max_fwd_planar_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,             \
                                     const void *in_, int64_t begin, int64_t end)                  \
    {                                                                                              \
        const int64_t ID = g->in[0], IH = g->in[1], IW = g->in[2];                                 \
        const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];                              \
        const int64_t iplane = ID * IH * IW, oplane = OD * OH * OW;                                \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            const T *ip = (const T *)in_ + pl * iplane;                                            \
            T *op = (T *)out_ + pl * oplane;                                                       \
            int64_t *xp = idx + pl * oplane;                                                       \
            for (int64_t od = 0; od < OD; od++) {                                                  \
                int64_t d0, d1;                                                                    \
                taps(od, g->s[0], g->p[0], g->d[0], g->k[0], ID, &d0, &d1);                        \
                for (int64_t oh = 0; oh < OH; oh++) {                                              \
                    int64_t h0, h1;                                                                \
                    taps(oh, g->s[1], g->p[1], g->d[1], g->k[1], IH, &h0, &h1);                    \
                    for (int64_t ow = 0; ow < OW; ow++) {                                          \
                        int64_t w0, w1;                                                            \
                        taps(ow, g->s[2], g->p[2], g->d[2], g->k[2], IW, &w0, &w1);                \
                        const int64_t bd = od * g->s[0] - g->p[0], bh = oh * g->s[1] - g->p[1],    \
                                      bw = ow * g->s[2] - g->p[2];                                 \
                        T m = (LOWEST);                                                        \
                        int64_t mi = ((bd + d0 * g->d[0]) * IH + bh + h0 * g->d[1]) * IW + bw +    \
                                     w0 * g->d[2];                                                 \
                        for (int64_t td = d0; td < d1; td++)                                       \
                            for (int64_t th = h0; th < h1; th++) {                                 \
                                const int64_t row = ((bd + td * g->d[0]) * IH + bh +               \
                                                     th * g->d[1]) * IW + bw;                      \
                                for (int64_t tw = w0; tw < w1; tw++) {                             \
                                    const int64_t at = row + tw * g->d[2];                         \
                                    const T v = ip[at];                                            \
                                    if (v > m || v != v) {                                       \
                                        m = v;                                                     \
                                        mi = at;                                                   \
                                    }                                                              \
                                }                                                                  \
                            }                                                                      \
                        const int64_t o = (od * OH + oh) * OW + ow;                                \
                        op[o] = m;                                                                 \
                        xp[o] = mi;                                                                \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* ---------------------------------------------------------------- max, channels-last */     \
    static void max_fwd_cl_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,                 \
                                 const void *in_, int64_t begin, int64_t end)                      \
    {                                                                                              \
        const int64_t C = g->channels, ID = g->in[0], IH = g->in[1], IW = g->in[2];                \
        const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];                              \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const int64_t oh = r % OH, od = (r / OH) % OD, n = r / (OH * OD);                      \
            const T *ib = (const T *)in_ + n * ID * IH * IW * C;                                   \
            int64_t d0, d1, h0, h1;                                                                \
            taps(od, g->s[0], g->p[0], g->d[0], g->k[0], ID, &d0, &d1);                            \
            taps(oh, g->s[1], g->p[1], g->d[1], g->k[1], IH, &h0, &h1);                            \
            const int64_t bd = od * g->s[0] - g->p[0], bh = oh * g->s[1] - g->p[1];                \
            for (int64_t ow = 0; ow < OW; ow++) {                                                  \
                int64_t w0, w1;                                                                    \
                taps(ow, g->s[2], g->p[2], g->d[2], g->k[2], IW, &w0, &w1);                        \
                const int64_t bw = ow * g->s[2] - g->p[2];                                         \
                T *o = (T *)out_ + (r * OW + ow) * C;                                              \
                int64_t *x = idx + (r * OW + ow) * C;                                              \
                const int64_t first = ((bd + d0 * g->d[0]) * IH + bh + h0 * g->d[1]) * IW + bw +   \
                                      w0 * g->d[2];                                                \
                for (int64_t c = 0; c < C; c++) {                                                  \
                    o[c] = (LOWEST);                                                           \
                    x[c] = first;                                                                  \
                }                                                                                  \
                for (int64_t td = d0; td < d1; td++)                                               \
                    for (int64_t th = h0; th < h1; th++)                                           \
                        for (int64_t tw = w0; tw < w1; tw++) {                                     \
                            const int64_t at = ((bd + td * g->d[0]) * IH + bh + th * g->d[1]) *    \
                                               IW + bw + tw * g->d[2];                             \
                            const T *v = ib + at * C;                                              \
                            for (int64_t c = 0; c < C; c++) {                                      \
                                const T val = v[c];                                                \
                                const int take = (val > o[c]) | (val != val);                      \
                                o[c] = take ? val : o[c];                                          \
                                x[c] = take ? at : x[c];                                           \
                            }                                                                      \
                        }                                                                          \
            }                                                                                      \
        }                                                                                          \
    }

/* The forward loops of average pooling for T (floats, and int64 whose sums and quotients are
 * integer ones, truncated as torch's). */
#define AVG_FWD(SUF, T)                                                                            \
    /* ---------------------------------------------------------------- average */                \
    static void avg_fwd_planar_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,             \
                                     const void *in_, int64_t begin, int64_t end)                  \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t IH = g->in[1], IW = g->in[2];                                                \
        const int64_t iplane = g->in[0] * IH * IW, oplane = g->out[0] * g->out[1] * g->out[2];     \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            const T *ip = (const T *)in_ + pl * iplane;                                            \
            T *op = (T *)out_ + pl * oplane;                                                       \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        const int64_t ov[3] = {od, oh, ow};                                        \
                        int64_t lo[3], hi[3], padded[3];                                           \
                        for (int i = 0; i < 3; i++)                                                \
                            avg_window(ov[i], g->s[i], g->p[i], g->k[i], g->in[i], &lo[i], &hi[i], \
                                       &padded[i]);                                                \
                        if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) {                  \
                            op[o] = 0;                                                             \
                            continue;                                                              \
                        }                                                                          \
                        T sum = 0;                                                                 \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++)                             \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++)                         \
                                    sum += ip[(id * IH + ih) * IW + iw];                           \
                        op[o] = sum / (T)avg_divisor(g, lo, hi, padded);                           \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void avg_fwd_cl_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,                 \
                                 const void *in_, int64_t begin, int64_t end)                      \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t C = g->channels, ID = g->in[0], IH = g->in[1], IW = g->in[2];                \
        const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];                              \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const int64_t oh = r % OH, od = (r / OH) % OD, n = r / (OH * OD);                      \
            const T *ib = (const T *)in_ + n * ID * IH * IW * C;                                   \
            for (int64_t ow = 0; ow < OW; ow++) {                                                  \
                const int64_t ov[3] = {od, oh, ow};                                                \
                int64_t lo[3], hi[3], padded[3];                                                   \
                for (int i = 0; i < 3; i++)                                                        \
                    avg_window(ov[i], g->s[i], g->p[i], g->k[i], g->in[i], &lo[i], &hi[i],         \
                               &padded[i]);                                                        \
                T *o = (T *)out_ + (r * OW + ow) * C;                                              \
                for (int64_t c = 0; c < C; c++) o[c] = 0;                                          \
                if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) continue;                  \
                for (int64_t id = lo[0]; id < hi[0]; id++)                                         \
                    for (int64_t ih = lo[1]; ih < hi[1]; ih++)                                     \
                        for (int64_t iw = lo[2]; iw < hi[2]; iw++) {                               \
                            const T *v = ib + ((id * IH + ih) * IW + iw) * C;                      \
                            for (int64_t c = 0; c < C; c++) o[c] += v[c];                          \
                        }                                                                          \
                const T div = (T)avg_divisor(g, lo, hi, padded);                                   \
                for (int64_t c = 0; c < C; c++) o[c] /= div;                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* The sum of n contiguous elements in LANES independent partial sums (one vector register's
 * worth at AVX-512, which the compiler keeps in registers), added up at the end: a plain
 * sequential sum waits on each addition's latency. */
#define PLANE_SUM(SUF, T, LANES)                                                                   \
    static T plane_sum_##SUF(const T *p, int64_t n)                                               \
    {                                                                                              \
        T acc[LANES] = {0};                                                                        \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) acc[j] += p[i + j];                                    \
        T sum = 0;                                                                                 \
        for (int j = 0; j < LANES; j++) sum += acc[j];                                             \
        for (; i < n; i++) sum += p[i];                                                            \
        return sum;                                                                                \
    }

PLANE_SUM(f4, float, 16)
PLANE_SUM(f8, double, 8)

#define POOL_LOOPS(SUF, T)                                                                         \
    MAX_FWD(SUF, T, -(T)INFINITY)                                                                  \
    AVG_FWD(SUF, T)                                                                                \
    /* grad_in[idx] += grad_out over whole planes; out-of-range indices are skipped. */           \
    static void max_bwd_planar_##SUF(const pt_pool_geom *g, void *gin_, const int64_t *idx,        \
                                     const void *gout_, int64_t begin, int64_t end)                \
    {                                                                                              \
        const int64_t iplane = g->in[0] * g->in[1] * g->in[2];                                     \
        const int64_t oplane = g->out[0] * g->out[1] * g->out[2];                                  \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            T *gi = (T *)gin_ + pl * iplane;                                                       \
            const T *go = (const T *)gout_ + pl * oplane;                                          \
            const int64_t *xp = idx + pl * oplane;                                                 \
            memset(gi, 0, sizeof(T) * (size_t)iplane);                                             \
            for (int64_t o = 0; o < oplane; o++)                                                   \
                if (xp[o] >= 0 && xp[o] < iplane) gi[xp[o]] += go[o];                              \
        }                                                                                          \
    }                                                                                              \
    static void max_bwd_cl_##SUF(const pt_pool_geom *g, void *gin_, const int64_t *idx,            \
                                 const void *gout_, int64_t begin, int64_t end)                    \
    {                                                                                              \
        const int64_t C = g->channels;                                                             \
        const int64_t iplane = g->in[0] * g->in[1] * g->in[2];                                     \
        const int64_t oplane = g->out[0] * g->out[1] * g->out[2];                                  \
        for (int64_t n = begin; n < end; n++) {                                                    \
            T *gi = (T *)gin_ + n * iplane * C;                                                    \
            memset(gi, 0, sizeof(T) * (size_t)(iplane * C));                                      \
            for (int64_t o = 0; o < oplane; o++) {                                                 \
                const T *go = (const T *)gout_ + (n * oplane + o) * C;                             \
                const int64_t *x = idx + (n * oplane + o) * C;                                     \
                for (int64_t c = 0; c < C; c++)                                                    \
                    if (x[c] >= 0 && x[c] < iplane) gi[x[c] * C + c] += go[c];                     \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void avg_bwd_planar_##SUF(const pt_pool_geom *g, void *gin_, const int64_t *idx,        \
                                     const void *gout_, int64_t begin, int64_t end)                \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t IH = g->in[1], IW = g->in[2];                                                \
        const int64_t iplane = g->in[0] * IH * IW, oplane = g->out[0] * g->out[1] * g->out[2];     \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            T *gi = (T *)gin_ + pl * iplane;                                                       \
            const T *go = (const T *)gout_ + pl * oplane;                                          \
            memset(gi, 0, sizeof(T) * (size_t)iplane);                                             \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        const int64_t ov[3] = {od, oh, ow};                                        \
                        int64_t lo[3], hi[3], padded[3];                                           \
                        for (int i = 0; i < 3; i++)                                                \
                            avg_window(ov[i], g->s[i], g->p[i], g->k[i], g->in[i], &lo[i], &hi[i], \
                                       &padded[i]);                                                \
                        if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) continue;          \
                        const T v = go[o] / (T)avg_divisor(g, lo, hi, padded);                     \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++)                             \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++)                         \
                                    gi[(id * IH + ih) * IW + iw] += v;                             \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void avg_bwd_cl_##SUF(const pt_pool_geom *g, void *gin_, const int64_t *idx,            \
                                 const void *gout_, int64_t begin, int64_t end)                    \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t C = g->channels, IH = g->in[1], IW = g->in[2];                               \
        const int64_t iplane = g->in[0] * IH * IW;                                                 \
        const int64_t oplane = g->out[0] * g->out[1] * g->out[2];                                  \
        for (int64_t n = begin; n < end; n++) {                                                    \
            T *gi = (T *)gin_ + n * iplane * C;                                                    \
            memset(gi, 0, sizeof(T) * (size_t)(iplane * C));                                       \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        const int64_t ov[3] = {od, oh, ow};                                        \
                        int64_t lo[3], hi[3], padded[3];                                           \
                        for (int i = 0; i < 3; i++)                                                \
                            avg_window(ov[i], g->s[i], g->p[i], g->k[i], g->in[i], &lo[i], &hi[i], \
                                       &padded[i]);                                                \
                        if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) continue;          \
                        const T *go = (const T *)gout_ + (n * oplane + o) * C;                     \
                        const T div = (T)avg_divisor(g, lo, hi, padded);                           \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++)                             \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++) {                       \
                                    T *v = gi + ((id * IH + ih) * IW + iw) * C;                    \
                                    for (int64_t c = 0; c < C; c++) v[c] += go[c] / div;           \
                                }                                                                  \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* ---------------------------------------------------------------- adaptive */               \
    static void adavg_fwd_planar_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,           \
                                       const void *in_, int64_t begin, int64_t end)                \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t IH = g->in[1], IW = g->in[2];                                                \
        const int64_t iplane = g->in[0] * IH * IW, oplane = g->out[0] * g->out[1] * g->out[2];     \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            const T *ip = (const T *)in_ + pl * iplane;                                            \
            T *op = (T *)out_ + pl * oplane;                                                       \
            if (oplane == 1) { /* global pooling: the plane is one contiguous row */               \
                op[0] = plane_sum_##SUF(ip, iplane) / (T)iplane;                                   \
                continue;                                                                          \
            }                                                                                      \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        int64_t lo[3], hi[3];                                                      \
                        ad_window(g, od, oh, ow, lo, hi);                                          \
                        T sum = 0;                                                                 \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++) {                           \
                                const T *row = ip + (id * IH + ih) * IW;                           \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++) sum += row[iw];         \
                            }                                                                      \
                        op[o] = sum / (T)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));    \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void adavg_bwd_planar_##SUF(const pt_pool_geom *g, void *gin_, const int64_t *idx,      \
                                       const void *gout_, int64_t begin, int64_t end)              \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t IH = g->in[1], IW = g->in[2];                                                \
        const int64_t iplane = g->in[0] * IH * IW, oplane = g->out[0] * g->out[1] * g->out[2];     \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            T *gi = (T *)gin_ + pl * iplane;                                                       \
            const T *go = (const T *)gout_ + pl * oplane;                                          \
            if (oplane == 1) { /* global pooling: one value over the whole plane */                \
                const T v = go[0] / (T)iplane;                                                     \
                for (int64_t i = 0; i < iplane; i++) gi[i] = v;                                    \
                continue;                                                                          \
            }                                                                                      \
            memset(gi, 0, sizeof(T) * (size_t)iplane);                                             \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        int64_t lo[3], hi[3];                                                      \
                        ad_window(g, od, oh, ow, lo, hi);                                          \
                        const T v = go[o] / (T)((hi[0] - lo[0]) * (hi[1] - lo[1]) *                \
                                                (hi[2] - lo[2]));                                  \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++) {                           \
                                T *row = gi + (id * IH + ih) * IW;                                 \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++) row[iw] += v;           \
                            }                                                                      \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void adavg_fwd_cl_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,               \
                                   const void *in_, int64_t begin, int64_t end)                    \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t C = g->channels, ID = g->in[0], IH = g->in[1], IW = g->in[2];                \
        const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];                              \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const int64_t oh = r % OH, od = (r / OH) % OD, n = r / (OH * OD);                      \
            const T *ib = (const T *)in_ + n * ID * IH * IW * C;                                   \
            for (int64_t ow = 0; ow < OW; ow++) {                                                  \
                int64_t lo[3], hi[3];                                                              \
                ad_window(g, od, oh, ow, lo, hi);                                                  \
                T *o = (T *)out_ + (r * OW + ow) * C;                                              \
                for (int64_t c = 0; c < C; c++) o[c] = 0;                                          \
                for (int64_t id = lo[0]; id < hi[0]; id++)                                         \
                    for (int64_t ih = lo[1]; ih < hi[1]; ih++)                                     \
                        for (int64_t iw = lo[2]; iw < hi[2]; iw++) {                               \
                            const T *v = ib + ((id * IH + ih) * IW + iw) * C;                      \
                            for (int64_t c = 0; c < C; c++) o[c] += v[c];                          \
                        }                                                                          \
                const T div = (T)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));            \
                for (int64_t c = 0; c < C; c++) o[c] /= div;                                       \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void adavg_bwd_cl_##SUF(const pt_pool_geom *g, void *gin_, const int64_t *idx,          \
                                   const void *gout_, int64_t begin, int64_t end)                  \
    {                                                                                              \
        (void)idx;                                                                                 \
        const int64_t C = g->channels, IH = g->in[1], IW = g->in[2];                               \
        const int64_t iplane = g->in[0] * IH * IW;                                                 \
        const int64_t oplane = g->out[0] * g->out[1] * g->out[2];                                  \
        for (int64_t n = begin; n < end; n++) {                                                    \
            T *gi = (T *)gin_ + n * iplane * C;                                                    \
            memset(gi, 0, sizeof(T) * (size_t)(iplane * C));                                       \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        int64_t lo[3], hi[3];                                                      \
                        ad_window(g, od, oh, ow, lo, hi);                                          \
                        const T *go = (const T *)gout_ + (n * oplane + o) * C;                     \
                        const T div = (T)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));    \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++)                             \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++) {                       \
                                    T *v = gi + ((id * IH + ih) * IW + iw) * C;                    \
                                    for (int64_t c = 0; c < C; c++) v[c] += go[c] / div;           \
                                }                                                                  \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void admax_fwd_planar_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,           \
                                       const void *in_, int64_t begin, int64_t end)                \
    {                                                                                              \
        const int64_t IH = g->in[1], IW = g->in[2];                                                \
        const int64_t iplane = g->in[0] * IH * IW, oplane = g->out[0] * g->out[1] * g->out[2];     \
        for (int64_t pl = begin; pl < end; pl++) {                                                 \
            const T *ip = (const T *)in_ + pl * iplane;                                            \
            T *op = (T *)out_ + pl * oplane;                                                       \
            int64_t *xp = idx + pl * oplane;                                                       \
            int64_t o = 0;                                                                         \
            for (int64_t od = 0; od < g->out[0]; od++)                                             \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                         \
                    for (int64_t ow = 0; ow < g->out[2]; ow++, o++) {                              \
                        int64_t lo[3], hi[3];                                                      \
                        ad_window(g, od, oh, ow, lo, hi);                                          \
                        T m = -(T)INFINITY;                                                        \
                        int64_t mi = (lo[0] * IH + lo[1]) * IW + lo[2];                            \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                 \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++)                             \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++) {                       \
                                    const int64_t at = (id * IH + ih) * IW + iw;                   \
                                    const T v = ip[at];                                            \
                                    if (v > m || isnan(v)) {                                       \
                                        m = v;                                                     \
                                        mi = at;                                                   \
                                    }                                                              \
                                }                                                                  \
                        op[o] = m;                                                                 \
                        xp[o] = mi;                                                                \
                    }                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void admax_fwd_cl_##SUF(const pt_pool_geom *g, void *out_, int64_t *idx,               \
                                   const void *in_, int64_t begin, int64_t end)                    \
    {                                                                                              \
        const int64_t C = g->channels, ID = g->in[0], IH = g->in[1], IW = g->in[2];                \
        const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];                              \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const int64_t oh = r % OH, od = (r / OH) % OD, n = r / (OH * OD);                      \
            const T *ib = (const T *)in_ + n * ID * IH * IW * C;                                   \
            for (int64_t ow = 0; ow < OW; ow++) {                                                  \
                int64_t lo[3], hi[3];                                                              \
                ad_window(g, od, oh, ow, lo, hi);                                                  \
                T *o = (T *)out_ + (r * OW + ow) * C;                                              \
                int64_t *x = idx + (r * OW + ow) * C;                                              \
                const int64_t first = (lo[0] * IH + lo[1]) * IW + lo[2];                           \
                for (int64_t c = 0; c < C; c++) {                                                  \
                    o[c] = -(T)INFINITY;                                                           \
                    x[c] = first;                                                                  \
                }                                                                                  \
                for (int64_t id = lo[0]; id < hi[0]; id++)                                         \
                    for (int64_t ih = lo[1]; ih < hi[1]; ih++)                                     \
                        for (int64_t iw = lo[2]; iw < hi[2]; iw++) {                               \
                            const int64_t at = (id * IH + ih) * IW + iw;                           \
                            const T *v = ib + at * C;                                              \
                            for (int64_t c = 0; c < C; c++) {                                      \
                                const T val = v[c];                                                \
                                const int take = (val > o[c]) | (val != val);                      \
                                o[c] = take ? val : o[c];                                          \
                                x[c] = take ? at : x[c];                                           \
                            }                                                                      \
                        }                                                                          \
            }                                                                                      \
        }                                                                                          \
    }

POOL_LOOPS(f4, float)
POOL_LOOPS(f8, double)
MAX_FWD(u1, uint8_t, 0)
MAX_FWD(i1, int8_t, INT8_MIN)
MAX_FWD(i2, int16_t, INT16_MIN)
MAX_FWD(i4, int32_t, INT32_MIN)
MAX_FWD(i8, int64_t, INT64_MIN)
AVG_FWD(i8, int64_t)

#define POOL_ENTRY(SUF)                                                                            \
    {                                                                                              \
        {max_fwd_planar_##SUF, max_fwd_cl_##SUF}, {avg_fwd_planar_##SUF, avg_fwd_cl_##SUF},        \
            {adavg_fwd_planar_##SUF, adavg_fwd_cl_##SUF},                                          \
            {admax_fwd_planar_##SUF, admax_fwd_cl_##SUF},                                          \
            {max_bwd_planar_##SUF, max_bwd_cl_##SUF}, {avg_bwd_planar_##SUF, avg_bwd_cl_##SUF},    \
            {adavg_bwd_planar_##SUF, adavg_bwd_cl_##SUF},                                          \
    }

#define MAX_PAIR(SUF) {max_fwd_planar_##SUF, max_fwd_cl_##SUF}

PT_CPU_KERNELS_DEFINE(nn_pool, pt_pool_table) = {
    {POOL_ENTRY(f4), POOL_ENTRY(f8)},
    {MAX_PAIR(u1), MAX_PAIR(i1), MAX_PAIR(i2), MAX_PAIR(i4), MAX_PAIR(i8)},
    {avg_fwd_planar_i8, avg_fwd_cl_i8},
};
