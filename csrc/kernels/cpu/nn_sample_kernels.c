/* nn_sample_kernels.c - the inner loops of upsampling and grid sampling, compiled once per CPU
 * capability (cpu_kernel.h); the fronts (nn/upsample.c, nn/grid.c) check shapes, build the index
 * and weight tables and split the work units across threads (nn_sample.h says what a unit is).
 *
 * Upsampling is a weighted sum over a tensor product of taps: output (od, oh, ow) reads the
 * inputs (id_a, ih_b, iw_c) with weight wd_a * wh_b * ww_c, the tables giving the taps of each dim
 * (1 for nearest, 2 for linear, 4 for cubic, more for antialiasing). The front always hands three
 * spatial dims (missing leading ones have one tap of weight 1, which multiplies exactly). The sum
 * nests as torch's: the last dim innermost, each level's partial sums weighted by the next dim
 * out, so float results match torch's to rounding. In the contiguous layout a unit is a plane and
 * the loops walk output rows; with channels last a unit is an output row and the channel loop is
 * innermost and contiguous, which the compiler vectorizes. The backward scatters grad_output into
 * grad_input with the same weights (their product times the gradient).
 *
 * Grid sampling follows torch's definitions (GridSampler.h): grid coordinates in [-1, 1] are
 * unnormalized to pixel coordinates (align_corners: -1 and 1 are the centers of the corner pixels;
 * else their outer edges), padding maps them back into the image (border clips, reflection
 * reflects about the edges, zeros leaves them and reads zeros outside), then bilinear weights the
 * four neighbours, nearest rounds half to even, bicubic weights 4x4 neighbours with A = -0.75,
 * each tap's coordinates padded on their own. The gradient with respect to the grid chains the
 * derivative of the interpolation weights with that of the padding and the unnormalization.
 */
#include "cpu_kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn_sample.h"

/* ---------------------------------------------------------------- upsampling */

#define UPSAMPLE_KERNELS(SUF, T)                                                                   \
    /* out = sum over the taps of dims 1 and 2 at one (od) for rows in src (plane base). */        \
    static void up_fwd_plane_##SUF(const pt_upsample_args *a, const T *src, T *dst)                \
    {                                                                                              \
        const pt_sample_dim *D = &a->dim[0], *H = &a->dim[1], *W = &a->dim[2];                     \
        const T *wd = D->w, *wh = H->w, *ww = W->w;                                                \
        const int64_t sd = a->src_s[2], sh = a->src_s[3], sw = a->src_s[4];                        \
        const int64_t td = a->dst_s[2], th = a->dst_s[3], tw = a->dst_s[4];                        \
        const int kd = D->k, kh = H->k, kw = W->k;                                                 \
        for (int64_t od = 0; od < D->out_size; od++)                                               \
            for (int64_t oh = 0; oh < H->out_size; oh++) {                                         \
                T *orow = dst + od * td + oh * th;                                                 \
                for (int64_t ow = 0; ow < W->out_size; ow++) {                                     \
                    const int64_t *iw = W->idx + ow * kw;                                          \
                    const T *wwo = ww + ow * kw;                                                   \
                    T acc_d = 0;                                                                   \
                    for (int x = 0; x < kd; x++) {                                                 \
                        const T *pd = src + D->idx[od * kd + x] * sd;                              \
                        T acc_h = 0;                                                               \
                        for (int y = 0; y < kh; y++) {                                             \
                            const T *ph = pd + H->idx[oh * kh + y] * sh;                           \
                            T acc_w = ph[iw[0] * sw] * wwo[0];                                     \
                            for (int z = 1; z < kw; z++) acc_w += ph[iw[z] * sw] * wwo[z];         \
                            acc_h = y ? acc_h + acc_w * wh[oh * kh + y] : acc_w * wh[oh * kh];     \
                        }                                                                          \
                        acc_d = x ? acc_d + acc_h * wd[od * kd + x] : acc_h * wd[od * kd];         \
                    }                                                                              \
                    orow[ow * tw] = acc_d;                                                         \
                }                                                                                  \
            }                                                                                      \
    }                                                                                              \
    /* channels last: one output row (n, od, oh), channels innermost. */                           \
    static void up_fwd_row_cl_##SUF(const pt_upsample_args *a, int64_t n, int64_t od, int64_t oh)  \
    {                                                                                              \
        const pt_sample_dim *D = &a->dim[0], *H = &a->dim[1], *W = &a->dim[2];                     \
        const T *wd = D->w, *wh = H->w, *ww = W->w;                                                \
        const int64_t C = a->c;                                                                    \
        const T *src = (const T *)a->src + n * a->src_s[0];                                        \
        T *dst = (T *)a->dst + n * a->dst_s[0] + od * a->dst_s[2] + oh * a->dst_s[3];              \
        for (int64_t ow = 0; ow < W->out_size; ow++) {                                             \
            T *o = dst + ow * a->dst_s[4];                                                         \
            for (int x = 0; x < D->k; x++) {                                                       \
                const T *pd = src + D->idx[od * D->k + x] * a->src_s[2];                           \
                const T vd = wd[od * D->k + x];                                                    \
                for (int y = 0; y < H->k; y++) {                                                   \
                    const T *ph = pd + H->idx[oh * H->k + y] * a->src_s[3];                        \
                    const T vh = wh[oh * H->k + y];                                                \
                    for (int z = 0; z < W->k; z++) {                                               \
                        const T *p = ph + W->idx[ow * W->k + z] * a->src_s[4];                     \
                        const T f = vd * vh * ww[ow * W->k + z];                                   \
                        const bool first = x == 0 && y == 0 && z == 0;                             \
                        if (first) {                                                               \
                            PT_IVDEP for (int64_t c = 0; c < C; c++) o[c] = p[c] * f;              \
                        } else {                                                                   \
                            PT_IVDEP for (int64_t c = 0; c < C; c++) o[c] += p[c] * f;             \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* A plane of a 1-d or 2-d upsampling (dim 0 trivial): row pointers hoisted, and the           \
     * two-tap rows of (bi)linear written out. */                                                  \
    static void up_fwd_plane2_##SUF(const pt_upsample_args *a, const T *src, T *dst)               \
    {                                                                                              \
        const pt_sample_dim *H = &a->dim[1], *W = &a->dim[2];                                      \
        const T *wh = H->w, *ww = W->w;                                                            \
        const int64_t sh = a->src_s[3], sw = a->src_s[4], th = a->dst_s[3], tw = a->dst_s[4];      \
        const int kh = H->k, kw = W->k;                                                            \
        for (int64_t oh = 0; oh < H->out_size; oh++) {                                             \
            T *orow = dst + oh * th;                                                               \
            const int64_t *ih = H->idx + oh * kh;                                                  \
            const T *who = wh + oh * kh;                                                           \
            if (kh == 2 && kw == 2) {                                                              \
                const T *r0 = src + ih[0] * sh, *r1 = src + ih[1] * sh;                            \
                const T h0 = who[0], h1 = who[1];                                                  \
                for (int64_t ow = 0; ow < W->out_size; ow++) {                                     \
                    const int64_t i0 = W->idx[2 * ow] * sw, i1 = W->idx[2 * ow + 1] * sw;          \
                    const T w0 = ww[2 * ow], w1 = ww[2 * ow + 1];                                  \
                    const T t0 = r0[i0] * w0 + r0[i1] * w1;                                        \
                    const T t1 = r1[i0] * w0 + r1[i1] * w1;                                        \
                    orow[ow * tw] = t0 * h0 + t1 * h1;                                             \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t ow = 0; ow < W->out_size; ow++) {                                         \
                const int64_t *iw = W->idx + ow * kw;                                              \
                const T *wwo = ww + ow * kw;                                                       \
                T acc_h = 0;                                                                       \
                for (int y = 0; y < kh; y++) {                                                     \
                    const T *ph = src + ih[y] * sh;                                                \
                    T acc_w = ph[iw[0] * sw] * wwo[0];                                             \
                    for (int z = 1; z < kw; z++) acc_w += ph[iw[z] * sw] * wwo[z];                 \
                    acc_h = y ? acc_h + acc_w * who[y] : acc_w * who[0];                           \
                }                                                                                  \
                orow[ow * tw] = acc_h;                                                             \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void up_bwd_plane2_##SUF(const pt_upsample_args *a, const T *src, T *dst)               \
    {                                                                                              \
        const pt_sample_dim *H = &a->dim[1], *W = &a->dim[2];                                      \
        const T *wh = H->w, *ww = W->w;                                                            \
        const int64_t sh = a->src_s[3], sw = a->src_s[4], th = a->dst_s[3], tw = a->dst_s[4];      \
        const int kh = H->k, kw = W->k;                                                            \
        for (int64_t oh = 0; oh < H->out_size; oh++) {                                             \
            const T *grow = src + oh * sh;                                                         \
            for (int y = 0; y < kh; y++) {                                                         \
                T *r = dst + H->idx[oh * kh + y] * th;                                             \
                const T vh = wh[oh * kh + y];                                                      \
                if (kw == 2) {                                                                     \
                    for (int64_t ow = 0; ow < W->out_size; ow++) {                                 \
                        const T g = grow[ow * sw];                                                 \
                        r[W->idx[2 * ow] * tw] += vh * ww[2 * ow] * g;                             \
                        r[W->idx[2 * ow + 1] * tw] += vh * ww[2 * ow + 1] * g;                     \
                    }                                                                              \
                    continue;                                                                      \
                }                                                                                  \
                for (int64_t ow = 0; ow < W->out_size; ow++) {                                     \
                    const T g = grow[ow * sw];                                                     \
                    for (int z = 0; z < kw; z++)                                                   \
                        r[W->idx[ow * kw + z] * tw] += vh * ww[ow * kw + z] * g;                   \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static int plane2_##SUF(const pt_upsample_args *a)                                             \
    {                                                                                              \
        return a->dim[0].out_size == 1 && a->dim[0].in_size == 1 && a->dim[0].k == 1;              \
    }                                                                                              \
    static void up_fwd_##SUF(const pt_upsample_args *a, int64_t begin, int64_t end)                \
    {                                                                                              \
        const int64_t od_n = a->dim[0].out_size, oh_n = a->dim[1].out_size;                        \
        for (int64_t u = begin; u < end; u++) {                                                    \
            if (a->channels_last) {                                                                \
                up_fwd_row_cl_##SUF(a, u / (od_n * oh_n), u / oh_n % od_n, u % oh_n);              \
                continue;                                                                          \
            }                                                                                      \
            const int64_t n = u / a->c, c = u % a->c;                                              \
            const T *s = (const T *)a->src + n * a->src_s[0] + c * a->src_s[1];                    \
            T *d = (T *)a->dst + n * a->dst_s[0] + c * a->dst_s[1];                                \
            if (plane2_##SUF(a)) up_fwd_plane2_##SUF(a, s, d);                                     \
            else up_fwd_plane_##SUF(a, s, d);                                                      \
        }                                                                                          \
    }                                                                                              \
    /* Backward over one plane (contiguous layout) or one batch (channels last, c_n channels       \
     * with stride 1): dst (grad_input) += weights * src (grad_output). */                         \
    static void up_bwd_block_##SUF(const pt_upsample_args *a, const T *src, T *dst, int64_t c_n)   \
    {                                                                                              \
        const pt_sample_dim *D = &a->dim[0], *H = &a->dim[1], *W = &a->dim[2];                     \
        const T *wd = D->w, *wh = H->w, *ww = W->w;                                                \
        for (int64_t od = 0; od < D->out_size; od++)                                               \
            for (int64_t oh = 0; oh < H->out_size; oh++)                                           \
                for (int64_t ow = 0; ow < W->out_size; ow++) {                                     \
                    const T *g = src + od * a->src_s[2] + oh * a->src_s[3] + ow * a->src_s[4];     \
                    for (int x = 0; x < D->k; x++) {                                               \
                        T *pd = dst + D->idx[od * D->k + x] * a->dst_s[2];                         \
                        for (int y = 0; y < H->k; y++) {                                           \
                            T *ph = pd + H->idx[oh * H->k + y] * a->dst_s[3];                      \
                            const T vdh = wd[od * D->k + x] * wh[oh * H->k + y];                   \
                            for (int z = 0; z < W->k; z++) {                                       \
                                T *p = ph + W->idx[ow * W->k + z] * a->dst_s[4];                   \
                                const T f = vdh * ww[ow * W->k + z];                               \
                                if (c_n == 1) {                                                    \
                                    *p += f * *g;                                                  \
                                } else {                                                           \
                                    PT_IVDEP for (int64_t c = 0; c < c_n; c++) p[c] += f * g[c];   \
                                }                                                                  \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
    }                                                                                              \
    static void zero_block_##SUF(T *p, const pt_upsample_args *a, int64_t c_n)                     \
    {                                                                                              \
        const int64_t hw = a->dim[1].in_size * a->dim[2].in_size;                                  \
        if (a->dst_s[4] == c_n && a->dst_s[3] == a->dim[2].in_size * c_n &&                        \
            (a->dim[0].in_size == 1 || a->dst_s[2] == hw * c_n)) {                                 \
            memset(p, 0, sizeof(T) * (size_t)(a->dim[0].in_size * hw * c_n));                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t d = 0; d < a->dim[0].in_size; d++)                                            \
            for (int64_t h = 0; h < a->dim[1].in_size; h++)                                        \
                for (int64_t w = 0; w < a->dim[2].in_size; w++) {                                  \
                    T *q = p + d * a->dst_s[2] + h * a->dst_s[3] + w * a->dst_s[4];                \
                    for (int64_t c = 0; c < c_n; c++) q[c] = 0;                                    \
                }                                                                                  \
    }                                                                                              \
    static void up_bwd_##SUF(const pt_upsample_args *a, int64_t begin, int64_t end)                \
    {                                                                                              \
        for (int64_t u = begin; u < end; u++) {                                                    \
            const int64_t n = a->channels_last ? u : u / a->c;                                     \
            const int64_t c = a->channels_last ? 0 : u % a->c;                                     \
            const int64_t c_n = a->channels_last ? a->c : 1;                                       \
            T *dst = (T *)a->dst + n * a->dst_s[0] + c * a->dst_s[1];                              \
            const T *src = (const T *)a->src + n * a->src_s[0] + c * a->src_s[1];                  \
            zero_block_##SUF(dst, a, c_n);                                                         \
            if (c_n == 1 && plane2_##SUF(a)) up_bwd_plane2_##SUF(a, src, dst);                     \
            else up_bwd_block_##SUF(a, src, dst, c_n);                                             \
        }                                                                                          \
    }

UPSAMPLE_KERNELS(f4, float)
UPSAMPLE_KERNELS(f8, double)

/* ---------------------------------------------------------------- grid sampling */

/* Note [bilinear grid backward]
 * The 2-d bilinear backward of a batch first tabulates each point's corner weights and the
 * offset of its top-left corner in a channel plane padded by two zeros on every side; a corner
 * pair wholly outside the input is moved onto that border (its reads are zeros, its writes are
 * dropped), so every point reads and writes its four corners unconditionally. Each channel then
 * copies its input plane into the padded one and sweeps the points twice: the grid gradient's
 * sums (gathers only, which the compiler vectorizes) and the input gradient's scatter-adds into
 * a padded accumulator, whose interior is the channel's grad_input. The sums run in grid_point's
 * order, with the zeros it uses for the corners outside, so the results are the same. */
enum { MODE_BILINEAR = 0, MODE_NEAREST = 1, MODE_BICUBIC = 2 };
enum { PAD_ZEROS = 0, PAD_BORDER = 1, PAD_REFLECTION = 2 };

#define GRID_KERNELS(SUF, T, FLOOR, NEARBYINT, FMOD, FABS)                                         \
    static T unnormalize_##SUF(T c, int64_t size, int ac, T *g)                                    \
    {                                                                                              \
        if (ac) {                                                                                  \
            *g = (T)(size - 1) / 2;                                                                \
            return ((c + 1) / 2) * (T)(size - 1);                                                  \
        }                                                                                          \
        *g = (T)size / 2;                                                                          \
        return ((c + 1) * (T)size - 1) / 2;                                                        \
    }                                                                                              \
    static T clip_##SUF(T x, int64_t size, T *g)                                                   \
    {                                                                                              \
        const T hi = (T)(size - 1);                                                                \
        if (x <= 0) {                                                                              \
            *g = 0;                                                                                \
            return 0;                                                                              \
        }                                                                                          \
        if (x >= hi) {                                                                             \
            *g = 0;                                                                                \
            return hi;                                                                             \
        }                                                                                          \
        *g = 1;                                                                                    \
        return x;                                                                                  \
    }                                                                                              \
    /* reflects x about twice_low / 2 and twice_high / 2 (doubled to stay integral) */             \
    static T reflect_##SUF(T x, int64_t twice_low, int64_t twice_high, T *g)                       \
    {                                                                                              \
        if (twice_low == twice_high) {                                                             \
            *g = 0;                                                                                \
            return 0;                                                                              \
        }                                                                                          \
        const T lo = (T)twice_low / 2, span = (T)(twice_high - twice_low) / 2;                     \
        T sign = 1;                                                                                \
        x -= lo;                                                                                   \
        if (x < 0) {                                                                               \
            sign = -1;                                                                             \
            x = -x;                                                                                \
        }                                                                                          \
        const T extra = FMOD(x, span);                                                             \
        const int64_t flips = (int64_t)FLOOR(x / span);                                            \
        if (flips % 2 == 0) {                                                                      \
            *g = sign;                                                                             \
            return extra + lo;                                                                     \
        }                                                                                          \
        *g = -sign;                                                                                \
        return span - extra + lo;                                                                  \
    }                                                                                              \
    /* padding applied to an unnormalized coordinate; *g: its derivative */                        \
    static T pad_coord_##SUF(T x, int64_t size, int padding, int ac, T *g)                         \
    {                                                                                              \
        *g = 1;                                                                                    \
        if (padding == PAD_BORDER) return clip_##SUF(x, size, g);                                  \
        if (padding == PAD_REFLECTION) {                                                           \
            T g1, g2;                                                                              \
            x = ac ? reflect_##SUF(x, 0, 2 * (size - 1), &g1)                                      \
                   : reflect_##SUF(x, -1, 2 * size - 1, &g1);                                      \
            x = clip_##SUF(x, size, &g2);                                                          \
            *g = g1 * g2;                                                                          \
        }                                                                                          \
        return x;                                                                                  \
    }                                                                                              \
    static T source_##SUF(T c, int64_t size, int padding, int ac, T *g)                            \
    {                                                                                              \
        T g1, g2;                                                                                  \
        const T x = pad_coord_##SUF(unnormalize_##SUF(c, size, ac, &g1), size, padding, ac, &g2);  \
        *g = g1 * g2;                                                                              \
        return x;                                                                                  \
    }                                                                                              \
    static inline int inside_##SUF(int64_t x, int64_t y, int64_t w, int64_t h)                     \
    {                                                                                              \
        return x >= 0 && x < w && y >= 0 && y < h;                                                 \
    }                                                                                              \
    static void cubic_coeffs_##SUF(T c[4], T t)                                                    \
    {                                                                                              \
        const T A = (T)-0.75;                                                                      \
        T x = t + 1;                                                                               \
        c[0] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;                                          \
        x = t;                                                                                     \
        c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;                                                \
        x = 1 - t;                                                                                 \
        c[2] = ((A + 2) * x - (A + 3)) * x * x + 1;                                                \
        x = 2 - t;                                                                                 \
        c[3] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;                                          \
    }                                                                                              \
    static void cubic_coeffs_grad_##SUF(T c[4], T t)                                               \
    {                                                                                              \
        const T A = (T)-0.75;                                                                      \
        T x = -1 - t;                                                                              \
        c[0] = (-3 * A * x - 10 * A) * x - 8 * A;                                                  \
        x = -t;                                                                                    \
        c[1] = (-3 * (A + 2) * x - 2 * (A + 3)) * x;                                               \
        x = 1 - t;                                                                                 \
        c[2] = (3 * (A + 2) * x - 2 * (A + 3)) * x;                                                \
        x = 2 - t;                                                                                 \
        c[3] = (3 * A * x - 10 * A) * x + 8 * A;                                                   \
    }                                                                                              \
    /* A bicubic tap: its coordinates padded one by one; -1 when it reads zeros. */                \
    static int64_t tap_##SUF(const pt_grid_args *a, int64_t x, int64_t y)                          \
    {                                                                                              \
        T g;                                                                                       \
        const int64_t W = a->in_size[2], H = a->in_size[1];                                        \
        const int64_t px = (int64_t)pad_coord_##SUF((T)x, W, a->padding, a->align_corners, &g);    \
        const int64_t py = (int64_t)pad_coord_##SUF((T)y, H, a->padding, a->align_corners, &g);    \
        return inside_##SUF(px, py, W, H) ? py * a->in_s[2] + px * a->in_s[3] : -1;                \
    }                                                                                              \
    /* One point of batch n at (oh, ow): forward writes output, backward (gout != NULL)            \
     * accumulates grad_input and writes grad_grid. */                                             \
    static void grid_point_##SUF(const pt_grid_args *a, int64_t n, int64_t oh, int64_t ow,         \
                                 const T *gout)                                                    \
    {                                                                                              \
        const int64_t C = a->c, W = a->in_size[2], H = a->in_size[1];                              \
        const T *grid = (const T *)a->grid + n * a->grid_s[0] + oh * a->grid_s[1] +                \
                        ow * a->grid_s[2];                                                         \
        const T gx = grid[0], gy = grid[a->grid_s[3]];                                             \
        const T *in = (const T *)a->input + n * a->in_s[0];                                        \
        T *out = gout ? NULL : (T *)a->output + n * a->out_s[0] + oh * a->out_s[2] +               \
                                   ow * a->out_s[3];                                               \
        T *gin = gout && a->grad_input ? (T *)a->grad_input + n * a->gin_s[0] : NULL;              \
        const int64_t cs = a->in_s[1], os = a->out_s[1], gs = a->gin_s[1], gos = a->gout_s[1];     \
        T gix = 0, giy = 0, mx, my;                                                                \
        if (a->mode == MODE_BICUBIC) {                                                             \
            const T ix = unnormalize_##SUF(gx, W, a->align_corners, &mx);                          \
            const T iy = unnormalize_##SUF(gy, H, a->align_corners, &my);                          \
            const T fx = FLOOR(ix), fy = FLOOR(iy);                                                \
            T cx[4], cy[4], dx[4] = {0}, dy[4] = {0};                                              \
            cubic_coeffs_##SUF(cx, ix - fx);                                                       \
            cubic_coeffs_##SUF(cy, iy - fy);                                                       \
            if (gout) {                                                                            \
                cubic_coeffs_grad_##SUF(dx, ix - fx);                                              \
                cubic_coeffs_grad_##SUF(dy, iy - fy);                                              \
            }                                                                                      \
            int64_t off[4][4];                                                                     \
            T wdx[4][4], wdy[4][4]; /* the tap's weight differentiated along x and y */            \
            for (int i = 0; i < 4; i++)                                                            \
                for (int j = 0; j < 4; j++) {                                                      \
                    off[i][j] = tap_##SUF(a, (int64_t)fx - 1 + j, (int64_t)fy - 1 + i);            \
                    wdx[i][j] = dx[j] * cy[i];                                                     \
                    wdy[i][j] = dy[i] * cx[j];                                                     \
                }                                                                                  \
            for (int64_t c = 0; c < C; c++) {                                                      \
                const T *p = in + c * cs;                                                          \
                if (!gout) {                                                                       \
                    T rows[4];                                                                     \
                    for (int i = 0; i < 4; i++) {                                                  \
                        T v[4];                                                                    \
                        for (int j = 0; j < 4; j++) v[j] = off[i][j] >= 0 ? p[off[i][j]] : 0;      \
                        rows[i] = v[0] * cx[0] + v[1] * cx[1] + v[2] * cx[2] + v[3] * cx[3];       \
                    }                                                                              \
                    out[c * os] = rows[0] * cy[0] + rows[1] * cy[1] + rows[2] * cy[2] +            \
                                  rows[3] * cy[3];                                                 \
                    continue;                                                                      \
                }                                                                                  \
                const T g = gout[c * gos];                                                         \
                T sx = 0, sy = 0;                                                                  \
                for (int i = 0; i < 4; i++)                                                        \
                    for (int j = 0; j < 4; j++) {                                                  \
                        const T v = off[i][j] >= 0 ? p[off[i][j]] : 0;                             \
                        sx += v * wdx[i][j];                                                       \
                        sy += v * wdy[i][j];                                                       \
                    }                                                                              \
                gix -= sx * g;                                                                     \
                giy -= sy * g;                                                                     \
            }                                                                                      \
            if (gin) {                                                                             \
                for (int i = 0; i < 4; i++)                                                        \
                    for (int j = 0; j < 4; j++) {                                                  \
                        T gg;                                                                      \
                        const int64_t px = (int64_t)pad_coord_##SUF((T)((int64_t)fx - 1 + j), W,   \
                                                                    a->padding,                    \
                                                                    a->align_corners, &gg);        \
                        const int64_t py = (int64_t)pad_coord_##SUF((T)((int64_t)fy - 1 + i), H,   \
                                                                    a->padding,                    \
                                                                    a->align_corners, &gg);        \
                        if (!inside_##SUF(px, py, W, H)) continue;                                 \
                        T *q = gin + py * a->gin_s[2] + px * a->gin_s[3];                          \
                        const T f = cx[j] * cy[i];                                                 \
                        for (int64_t c = 0; c < C; c++) q[c * gs] += gout[c * gos] * f;            \
                    }                                                                              \
            }                                                                                      \
        } else {                                                                                   \
            const T ix = source_##SUF(gx, W, a->padding, a->align_corners, &mx);                   \
            const T iy = source_##SUF(gy, H, a->padding, a->align_corners, &my);                   \
            if (a->mode == MODE_NEAREST) {                                                         \
                const int64_t nx = (int64_t)NEARBYINT(ix), ny = (int64_t)NEARBYINT(iy);            \
                const int ok = inside_##SUF(nx, ny, W, H);                                         \
                if (!gout) {                                                                       \
                    const T *p = in + ny * a->in_s[2] + nx * a->in_s[3];                           \
                    for (int64_t c = 0; c < C; c++) out[c * os] = ok ? p[c * cs] : 0;              \
                } else if (gin && ok) {                                                            \
                    T *q = gin + ny * a->gin_s[2] + nx * a->gin_s[3];                              \
                    for (int64_t c = 0; c < C; c++) q[c * gs] += gout[c * gos];                    \
                }                                                                                  \
                mx = my = 0;                                                                       \
            } else {                                                                               \
                const T fx = FLOOR(ix), fy = FLOOR(iy);                                            \
                const int64_t x0 = (int64_t)fx, y0 = (int64_t)fy, x1 = x0 + 1, y1 = y0 + 1;        \
                const T e = (T)x1 - ix, w_ = ix - fx, s = (T)y1 - iy, n_ = iy - fy;                \
                const T wnw = e * s, wne = w_ * s, wsw = e * n_, wse = w_ * n_;                    \
                const int inw = inside_##SUF(x0, y0, W, H), ine = inside_##SUF(x1, y0, W, H);      \
                const int isw = inside_##SUF(x0, y1, W, H), ise = inside_##SUF(x1, y1, W, H);      \
                const int64_t sy = a->in_s[2], sx = a->in_s[3];                                    \
                const T *p = in + y0 * sy + x0 * sx;                                               \
                for (int64_t c = 0; c < C; c++) {                                                  \
                    const T *q = p + c * cs;                                                       \
                    const T vnw = inw ? q[0] : 0, vne = ine ? q[sx] : 0;                           \
                    const T vsw = isw ? q[sy] : 0, vse = ise ? q[sy + sx] : 0;                     \
                    if (!gout) {                                                                   \
                        out[c * os] = vnw * wnw + vne * wne + vsw * wsw + vse * wse;               \
                        continue;                                                                  \
                    }                                                                              \
                    const T g = gout[c * gos];                                                     \
                    gix += (-vnw * s + vne * s - vsw * n_ + vse * n_) * g;                         \
                    giy += (-vnw * e - vne * w_ + vsw * e + vse * w_) * g;                         \
                    if (!gin) continue;                                                            \
                    T *r = gin + c * gs + y0 * a->gin_s[2] + x0 * a->gin_s[3];                     \
                    const int64_t ry = a->gin_s[2], rx = a->gin_s[3];                              \
                    if (inw) r[0] += wnw * g;                                                      \
                    if (ine) r[rx] += wne * g;                                                     \
                    if (isw) r[ry] += wsw * g;                                                     \
                    if (ise) r[ry + rx] += wse * g;                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (gout && a->grad_grid) {                                                                \
            T *gg = (T *)a->grad_grid + n * a->ggrid_s[0] + oh * a->ggrid_s[1] +                   \
                    ow * a->ggrid_s[2];                                                            \
            gg[0] = mx * gix;                                                                      \
            gg[a->ggrid_s[3]] = my * giy;                                                          \
        }                                                                                          \
    }                                                                                              \
    /* One point (n, od, oh, ow) of a 3-d sampling (trilinear or nearest), as grid_point. */       \
    static void grid_point3_##SUF(const pt_grid_args *a, int64_t n, int64_t od, int64_t oh,        \
                                  int64_t ow, const T *gout)                                       \
    {                                                                                              \
        const int64_t C = a->c, D = a->in_size[0], H = a->in_size[1], W = a->in_size[2];           \
        const T *grid = (const T *)a->grid + n * a->grid_s[0] + od * a->grid_s[1] +                \
                        oh * a->grid_s[2] + ow * a->grid_s[3];                                     \
        const int64_t gc = a->grid_s[4];                                                           \
        T m[3];                                                                                    \
        const T ix = source_##SUF(grid[0], W, a->padding, a->align_corners, &m[0]);                \
        const T iy = source_##SUF(grid[gc], H, a->padding, a->align_corners, &m[1]);               \
        const T iz = source_##SUF(grid[2 * gc], D, a->padding, a->align_corners, &m[2]);           \
        const T *in = (const T *)a->input + n * a->in_s[0];                                        \
        T *out = gout ? NULL : (T *)a->output + n * a->out_s[0] + od * a->out_s[2] +               \
                                   oh * a->out_s[3] + ow * a->out_s[4];                            \
        T *gin = gout && a->grad_input ? (T *)a->grad_input + n * a->gin_s[0] : NULL;              \
        const int64_t cs = a->in_s[1], os = a->out_s[1], gs = a->gin_s[1], gos = a->gout_s[1];     \
        T gi[3] = {0, 0, 0};                                                                       \
        if (a->mode == MODE_NEAREST) {                                                             \
            const int64_t x = (int64_t)NEARBYINT(ix), y = (int64_t)NEARBYINT(iy);                  \
            const int64_t z = (int64_t)NEARBYINT(iz);                                              \
            const int ok = inside_##SUF(x, y, W, H) && z >= 0 && z < D;                            \
            if (!gout) {                                                                           \
                const T *p = in + z * a->in_s[2] + y * a->in_s[3] + x * a->in_s[4];                \
                for (int64_t c = 0; c < C; c++) out[c * os] = ok ? p[c * cs] : 0;                  \
            } else if (gin && ok) {                                                                \
                T *q = gin + z * a->gin_s[2] + y * a->gin_s[3] + x * a->gin_s[4];                  \
                for (int64_t c = 0; c < C; c++) q[c * gs] += gout[c * gos];                        \
            }                                                                                      \
            m[0] = m[1] = m[2] = 0;                                                                \
        } else {                                                                                   \
            const T f[3] = {FLOOR(ix), FLOOR(iy), FLOOR(iz)};                                      \
            const T v[3] = {ix, iy, iz};                                                           \
            T w[3][2];                                                                             \
            for (int k = 0; k < 3; k++) {                                                          \
                w[k][0] = f[k] + 1 - v[k];                                                         \
                w[k][1] = v[k] - f[k];                                                             \
            }                                                                                      \
            int64_t off[8], goff[8];                                                               \
            T wt[8], dw[3][8];                                                                     \
            int ok[8], all = 1;                                                                    \
            for (int k = 0; k < 8; k++) {                                                          \
                const int dz = k >> 2, dy = (k >> 1) & 1, dx = k & 1;                              \
                const int64_t x = (int64_t)f[0] + dx, y = (int64_t)f[1] + dy;                      \
                const int64_t z = (int64_t)f[2] + dz;                                              \
                ok[k] = inside_##SUF(x, y, W, H) && z >= 0 && z < D;                               \
                all &= ok[k];                                                                      \
                off[k] = ok[k] ? z * a->in_s[2] + y * a->in_s[3] + x * a->in_s[4] : 0;             \
                goff[k] = z * a->gin_s[2] + y * a->gin_s[3] + x * a->gin_s[4];                     \
                wt[k] = w[0][dx] * w[1][dy] * w[2][dz];                                            \
                /* the corner's weight differentiated along x, y, z */                             \
                dw[0][k] = (dx ? 1 : -1) * w[1][dy] * w[2][dz];                                    \
                dw[1][k] = (dy ? 1 : -1) * w[0][dx] * w[2][dz];                                    \
                dw[2][k] = (dz ? 1 : -1) * w[0][dx] * w[1][dy];                                    \
            }                                                                                      \
            for (int64_t c = 0; c < C; c++) {                                                      \
                const T *p = in + c * cs;                                                          \
                T val[8];                                                                          \
                if (all)                                                                           \
                    for (int k = 0; k < 8; k++) val[k] = p[off[k]];                                \
                else                                                                               \
                    for (int k = 0; k < 8; k++) val[k] = ok[k] ? p[off[k]] : 0;                    \
                if (!gout) {                                                                       \
                    T acc = 0;                                                                     \
                    for (int k = 0; k < 8; k++) acc += val[k] * wt[k];                             \
                    out[c * os] = acc;                                                             \
                    continue;                                                                      \
                }                                                                                  \
                const T g = gout[c * gos];                                                         \
                T sx = 0, sy = 0, sz = 0;                                                          \
                for (int k = 0; k < 8; k++) {                                                      \
                    sx += val[k] * dw[0][k];                                                       \
                    sy += val[k] * dw[1][k];                                                       \
                    sz += val[k] * dw[2][k];                                                       \
                }                                                                                  \
                gi[0] += sx * g;                                                                   \
                gi[1] += sy * g;                                                                   \
                gi[2] += sz * g;                                                                   \
                if (!gin) continue;                                                                \
                T *r = gin + c * gs;                                                               \
                if (all)                                                                           \
                    for (int k = 0; k < 8; k++) r[goff[k]] += wt[k] * g;                           \
                else                                                                               \
                    for (int k = 0; k < 8; k++)                                                    \
                        if (ok[k]) r[goff[k]] += wt[k] * g;                                        \
            }                                                                                      \
        }                                                                                          \
        if (gout && a->grad_grid) {                                                                \
            T *gg = (T *)a->grad_grid + n * a->ggrid_s[0] + od * a->ggrid_s[1] +                   \
                    oh * a->ggrid_s[2] + ow * a->ggrid_s[3];                                       \
            for (int k = 0; k < 3; k++) gg[k * a->ggrid_s[4]] = m[k] * gi[k];                      \
        }                                                                                          \
    }                                                                                              \
    static void grid_fwd_##SUF(const pt_grid_args *a, int64_t begin, int64_t end)                  \
    {                                                                                              \
        const int64_t OD = a->out_size[0], OH = a->out_size[1], OW = a->out_size[2];               \
        for (int64_t u = begin; u < end; u++) {                                                    \
            if (a->nd == 3)                                                                        \
                grid_point3_##SUF(a, u / (OD * OH * OW), u / (OH * OW) % OD, u / OW % OH, u % OW,  \
                                  NULL);                                                           \
            else                                                                                   \
                grid_point_##SUF(a, u / (OH * OW), u / OW % OH, u % OW, NULL);                     \
        }                                                                                          \
    }                                                                                              \
    /* The bilinear 2-d backward of batch n (Note [bilinear grid backward]). 0: no memory for the  \
     * tables (the caller falls back to grid_point). */                                            \
    static int grid_bwd_bilinear2d_##SUF(const pt_grid_args *a, int64_t n)                         \
    {                                                                                              \
        const int64_t OH = a->out_size[1], OW = a->out_size[2], P = OH * OW;                       \
        const int64_t W = a->in_size[2], H = a->in_size[1], WP = W + 4, HP = H + 4;                \
        if (HP * WP > INT32_MAX - 8 || P <= 0) return 0;                                           \
        const size_t np = (size_t)P;                                                               \
        int32_t *base = malloc(sizeof *base * np);                                                 \
        T *tab = malloc(sizeof *tab * (np * 13 + (size_t)(2 * HP * WP)));                          \
        if (!base || !tab) {                                                                       \
            free(base);                                                                            \
            free(tab);                                                                             \
            return 0;                                                                              \
        }                                                                                          \
        T *te = tab, *tw = te + np, *ts = tw + np, *tn = ts + np, *wnw = tn + np, *wne = wnw + np; \
        T *wsw = wne + np, *wse = wsw + np, *mx = wse + np, *my = mx + np, *gx = my + np;          \
        T *gy = gx + np, *gb = gy + np, *pl = gb + np, *rp = pl + HP * WP;                         \
        const T *grid = (const T *)a->grid + n * a->grid_s[0];                                     \
        for (int64_t p = 0; p < P; p++) {                                                          \
            const T *gp = grid + p / OW * a->grid_s[1] + p % OW * a->grid_s[2];                    \
            const T ix = source_##SUF(gp[0], W, a->padding, a->align_corners, &mx[p]);             \
            const T iy = source_##SUF(gp[a->grid_s[3]], H, a->padding, a->align_corners, &my[p]); \
            const T fx = FLOOR(ix), fy = FLOOR(iy);                                                \
            /* a corner pair wholly outside reads (and writes) the zero border */                  \
            const T cx = fx < -2 ? -2 : fx > (T)W ? (T)W : fx;                                     \
            const T cy = fy < -2 ? -2 : fy > (T)H ? (T)H : fy;                                     \
            const int64_t x0 = cx == cx ? (int64_t)cx : -2, y0 = cy == cy ? (int64_t)cy : -2;      \
            te[p] = (T)((int64_t)fx + 1) - ix;                                                     \
            tw[p] = ix - fx;                                                                       \
            ts[p] = (T)((int64_t)fy + 1) - iy;                                                     \
            tn[p] = iy - fy;                                                                       \
            wnw[p] = te[p] * ts[p];                                                                \
            wne[p] = tw[p] * ts[p];                                                                \
            wsw[p] = te[p] * tn[p];                                                                \
            wse[p] = tw[p] * tn[p];                                                                \
            base[p] = (int32_t)((y0 + 2) * WP + x0 + 2);                                           \
            gx[p] = gy[p] = 0;                                                                     \
        }                                                                                          \
        const T *in = (const T *)a->input + n * a->in_s[0];                                        \
        const T *gout = (const T *)a->grad_output + n * a->gout_s[0];                              \
        T *gin = a->grad_input ? (T *)a->grad_input + n * a->gin_s[0] : NULL;                      \
        const int64_t sy = a->in_s[2], sx = a->in_s[3], ry = a->gin_s[2], rx = a->gin_s[3];        \
        memset(pl, 0, sizeof *pl * (size_t)(HP * WP));                                             \
        for (int64_t c = 0; c < a->c; c++) {                                                       \
            const T *ic = in + c * a->in_s[1], *gc = gout + c * a->gout_s[1];                      \
            for (int64_t oh = 0; oh < OH; oh++)                                                    \
                for (int64_t ow = 0; ow < OW; ow++)                                                \
                    gb[oh * OW + ow] = gc[oh * a->gout_s[2] + ow * a->gout_s[3]];                  \
            if (a->grad_grid) {                                                                    \
                for (int64_t h = 0; h < H; h++)                                                    \
                    for (int64_t w = 0; w < W; w++) pl[(h + 2) * WP + w + 2] = ic[h * sy + w * sx];\
                for (int64_t p = 0; p < P; p++) {                                                  \
                    const T *v = pl + base[p];                                                     \
                    const T vnw = v[0], vne = v[1], vsw = v[WP], vse = v[WP + 1], g = gb[p];       \
                    gx[p] += (-vnw * ts[p] + vne * ts[p] - vsw * tn[p] + vse * tn[p]) * g;         \
                    gy[p] += (-vnw * te[p] - vne * tw[p] + vsw * te[p] + vse * tw[p]) * g;         \
                }                                                                                  \
            }                                                                                      \
            if (!gin) continue;                                                                    \
            memset(rp, 0, sizeof *rp * (size_t)(HP * WP));                                         \
            for (int64_t p = 0; p < P; p++) {                                                      \
                T *r = rp + base[p];                                                               \
                const T g = gb[p];                                                                 \
                r[0] += wnw[p] * g;                                                                \
                r[1] += wne[p] * g;                                                                \
                r[WP] += wsw[p] * g;                                                               \
                r[WP + 1] += wse[p] * g;                                                           \
            }                                                                                      \
            T *rc = gin + c * a->gin_s[1];                                                         \
            for (int64_t h = 0; h < H; h++)                                                        \
                for (int64_t w = 0; w < W; w++) rc[h * ry + w * rx] = rp[(h + 2) * WP + w + 2];    \
        }                                                                                          \
        if (a->grad_grid)                                                                          \
            for (int64_t p = 0; p < P; p++) {                                                      \
                T *gg = (T *)a->grad_grid + n * a->ggrid_s[0] + p / OW * a->ggrid_s[1] +           \
                        p % OW * a->ggrid_s[2];                                                    \
                gg[0] = mx[p] * gx[p];                                                             \
                gg[a->ggrid_s[3]] = my[p] * gy[p];                                                 \
            }                                                                                      \
        free(base);                                                                                \
        free(tab);                                                                                 \
        return 1;                                                                                  \
    }                                                                                              \
    static void grid_bwd_##SUF(const pt_grid_args *a, int64_t begin, int64_t end)                  \
    {                                                                                              \
        const int64_t OD = a->out_size[0], OH = a->out_size[1], OW = a->out_size[2];               \
        const int32_t sp = a->nd == 3 ? 1 : 0; /* stride index shift of the 3-d layout */          \
        for (int64_t n = begin; n < end; n++) {                                                    \
            if (a->grad_input) {                                                                   \
                T *g = (T *)a->grad_input + n * a->gin_s[0];                                       \
                const int64_t sd = sp ? a->gin_s[2] : 0;                                           \
                for (int64_t c = 0; c < a->c; c++)                                                 \
                    for (int64_t d = 0; d < a->in_size[0]; d++)                                    \
                        for (int64_t h = 0; h < a->in_size[1]; h++)                                \
                            for (int64_t w = 0; w < a->in_size[2]; w++)                            \
                                g[c * a->gin_s[1] + d * sd + h * a->gin_s[2 + sp] +                \
                                  w * a->gin_s[3 + sp]] = 0;                                       \
            }                                                                                      \
            if (!sp && a->mode == MODE_BILINEAR && grid_bwd_bilinear2d_##SUF(a, n)) continue;       \
            for (int64_t od = 0; od < OD; od++)                                                    \
                for (int64_t oh = 0; oh < OH; oh++)                                                \
                    for (int64_t ow = 0; ow < OW; ow++) {                                          \
                        const T *go = (const T *)a->grad_output + n * a->gout_s[0];                \
                        if (sp)                                                                    \
                            grid_point3_##SUF(a, n, od, oh, ow,                                    \
                                              go + od * a->gout_s[2] + oh * a->gout_s[3] +         \
                                                  ow * a->gout_s[4]);                              \
                        else                                                                       \
                            grid_point_##SUF(a, n, oh, ow,                                         \
                                             go + oh * a->gout_s[2] + ow * a->gout_s[3]);          \
                    }                                                                              \
        }                                                                                          \
    }

GRID_KERNELS(f4, float, floorf, nearbyintf, fmodf, fabsf)
GRID_KERNELS(f8, double, floor, nearbyint, fmod, fabs)

PT_CPU_KERNELS_DEFINE(nn_sample, pt_nn_sample_table) = {
    {up_fwd_f4, up_fwd_f8},
    {up_bwd_f4, up_bwd_f8},
    {grid_fwd_f4, grid_fwd_f8},
    {grid_bwd_f4, grid_bwd_f8},
};
