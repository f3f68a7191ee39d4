/* nn_conv_kernels.c - the loops of the direct depthwise convolution (conv_depthwise.c), float32
 * and float64, compiled once per CPU capability (cpu_kernel.h).
 *
 * A depthwise problem (conv.h's plain convolution with groups == cin, cout = m * cin) convolves
 * each input plane with m kernels of its own. The loops take one plane at a time, over the two
 * trailing spatial dimensions of conv.h's geometry (1-D problems lead with a height of 1):
 *   forward          y[n, oc] = sum over taps of w[oc, tap] * x[n, oc / m] (shifted)
 *   backward data    gx[n, ic] = sum over its m output channels and taps of w * gy (scattered)
 *   backward weight  gw[oc, tap] = sum over images and outputs of gy[n, oc] * x[n, oc / m]
 * Each tap of a kernel row is one pass over an output row, restricted to the outputs whose input
 * lies inside the image (padding reads as zero), so the inner loop has no branch and runs over
 * contiguous elements at stride 1, which the compiler vectorizes. Backward weight's dot products
 * keep DOT_LANES partial sums (a fixed order: the result does not depend on the capability's
 * vector width beyond the lanes' order, and is the same on every run).
 *
 * Channels-last buffers (multiplier 1) have loops of their own that run over a pixel's C channels
 * innermost (contiguous in x, y and in the weight transposed to (tap, C) by the front): forward
 * over output rows, backward data over input rows (each pixel gathers the outputs whose taps
 * read it, so rows are independent), backward weight over taps (each summing every image in
 * order).
 */
#include "cpu_kernel.h"

#include <stdint.h>
#include <string.h>

#include "nn/conv.h"

enum { DOT_LANES = 16 };

/* The outputs [*lo, *hi) of a row whose tap at input offset `off` (input = o * s + off) lies in
 * [0, in). */
static inline void inside(int64_t off, int64_t s, int64_t in, int64_t out, int64_t *lo,
                          int64_t *hi)
{
    int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t b = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;
    if (b > out) b = out;
    *lo = a;
    *hi = b > a ? b : a;
}

#define DW_LOOPS(T, SUF)                                                                         \
    static void dw_forward_##SUF(const pt_conv_geom *g, const void *xv, const void *wv,          \
                                 void *yv, int64_t begin, int64_t end)                           \
    {                                                                                            \
        const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2];              \
        const int64_t KH = g->k[1], KW = g->k[2], sh = g->stride[1], sw = g->stride[2];          \
        const int64_t m = g->cout / g->cin;                                                      \
        for (int64_t p = begin; p < end; p++) {                                                  \
            const int64_t oc = p % g->cout, n = p / g->cout;                                     \
            const T *x = (const T *)xv + (n * g->cin + oc / m) * IH * IW;                        \
            const T *w = (const T *)wv + oc * KH * KW;                                           \
            T *y = (T *)yv + p * OH * OW;                                                        \
            for (int64_t oh = 0; oh < OH; oh++) {                                                \
                T *yr = y + oh * OW;                                                             \
                for (int64_t o = 0; o < OW; o++) yr[o] = 0;                                      \
                for (int64_t kh = 0; kh < KH; kh++) {                                            \
                    const int64_t ih = oh * sh - g->pad[1] + kh * g->dil[1];                     \
                    if (ih < 0 || ih >= IH) continue;                                            \
                    const T *xr = x + ih * IW;                                                   \
                    for (int64_t kw = 0; kw < KW; kw++) {                                        \
                        const T c = w[kh * KW + kw];                                             \
                        const int64_t off = kw * g->dil[2] - g->pad[2];                          \
                        int64_t lo, hi;                                                          \
                        inside(off, sw, IW, OW, &lo, &hi);                                       \
                        if (sw == 1) {                                                           \
                            const T *xs = xr + off;                                              \
                            for (int64_t o = lo; o < hi; o++) yr[o] += c * xs[o];                \
                        } else {                                                                 \
                            for (int64_t o = lo; o < hi; o++) yr[o] += c * xr[o * sw + off];     \
                        }                                                                        \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* planes p of gx: (n, ic) */                                                                \
    static void dw_backward_data_##SUF(const pt_conv_geom *g, const void *gyv, const void *wv,   \
                                       void *gxv, int64_t begin, int64_t end)                    \
    {                                                                                            \
        const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2];              \
        const int64_t KH = g->k[1], KW = g->k[2], sh = g->stride[1], sw = g->stride[2];          \
        const int64_t m = g->cout / g->cin;                                                      \
        for (int64_t p = begin; p < end; p++) {                                                  \
            const int64_t ic = p % g->cin, n = p / g->cin;                                       \
            T *gx = (T *)gxv + p * IH * IW;                                                      \
            memset(gx, 0, sizeof(T) * (size_t)(IH * IW));                                        \
            for (int64_t j = 0; j < m; j++) {                                                    \
                const int64_t oc = ic * m + j;                                                   \
                const T *gy = (const T *)gyv + (n * g->cout + oc) * OH * OW;                     \
                const T *w = (const T *)wv + oc * KH * KW;                                       \
                for (int64_t oh = 0; oh < OH; oh++) {                                            \
                    const T *gr = gy + oh * OW;                                                  \
                    for (int64_t kh = 0; kh < KH; kh++) {                                        \
                        const int64_t ih = oh * sh - g->pad[1] + kh * g->dil[1];                 \
                        if (ih < 0 || ih >= IH) continue;                                        \
                        T *xr = gx + ih * IW;                                                    \
                        for (int64_t kw = 0; kw < KW; kw++) {                                    \
                            const T c = w[kh * KW + kw];                                         \
                            const int64_t off = kw * g->dil[2] - g->pad[2];                      \
                            int64_t lo, hi;                                                      \
                            inside(off, sw, IW, OW, &lo, &hi);                                   \
                            if (sw == 1) {                                                       \
                                T *xs = xr + off;                                                \
                                for (int64_t o = lo; o < hi; o++) xs[o] += c * gr[o];            \
                            } else {                                                             \
                                for (int64_t o = lo; o < hi; o++) xr[o * sw + off] += c * gr[o]; \
                            }                                                                    \
                        }                                                                        \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static T dot_##SUF(const T *a, const T *b, int64_t s, int64_t n)                             \
    {                                                                                            \
        T lanes[DOT_LANES] = {0};                                                                \
        int64_t i = 0;                                                                           \
        if (s == 1)                                                                              \
            for (; i + DOT_LANES <= n; i += DOT_LANES)                                           \
                for (int l = 0; l < DOT_LANES; l++) lanes[l] += a[i + l] * b[i + l];             \
        T tail = 0;                                                                              \
        for (; i < n; i++) tail += a[i] * b[i * s];                                              \
        T sum = 0;                                                                               \
        for (int l = 0; l < DOT_LANES; l++) sum += lanes[l];                                     \
        return sum + tail;                                                                       \
    }                                                                                            \
                                                                                                 \
    /* output channels [begin, end) of gw, each summed over every image */                       \
    static void dw_backward_weight_##SUF(const pt_conv_geom *g, const void *xv, const void *gyv, \
                                         void *gwv, int64_t begin, int64_t end)                  \
    {                                                                                            \
        const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2];              \
        const int64_t KH = g->k[1], KW = g->k[2], sh = g->stride[1], sw = g->stride[2];          \
        const int64_t m = g->cout / g->cin;                                                      \
        for (int64_t oc = begin; oc < end; oc++) {                                               \
            T *gw = (T *)gwv + oc * KH * KW;                                                     \
            for (int64_t t = 0; t < KH * KW; t++) gw[t] = 0;                                     \
            for (int64_t n = 0; n < g->n; n++) {                                                 \
                const T *x = (const T *)xv + (n * g->cin + oc / m) * IH * IW;                    \
                const T *gy = (const T *)gyv + (n * g->cout + oc) * OH * OW;                     \
                for (int64_t kh = 0; kh < KH; kh++)                                              \
                    for (int64_t kw = 0; kw < KW; kw++) {                                        \
                        const int64_t off = kw * g->dil[2] - g->pad[2];                          \
                        int64_t lo, hi;                                                          \
                        inside(off, sw, IW, OW, &lo, &hi);                                       \
                        T acc = 0;                                                               \
                        for (int64_t oh = 0; oh < OH && hi > lo; oh++) {                         \
                            const int64_t ih = oh * sh - g->pad[1] + kh * g->dil[1];             \
                            if (ih < 0 || ih >= IH) continue;                                    \
                            acc += dot_##SUF(gy + oh * OW + lo, x + ih * IW + lo * sw + off, sw, \
                                             hi - lo);                                           \
                        }                                                                        \
                        gw[kh * KW + kw] += acc;                                                 \
                    }                                                                            \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
    /* channels-last, multiplier 1: rows [begin, end) of the output (n, oh); wt is the weight   \
     * transposed to (tap, C) so that a tap's C coefficients are consecutive */                  \
    static void dw_forward_cl_##SUF(const pt_conv_geom *g, const void *xv, const void *wv,       \
                                    void *yv, int64_t begin, int64_t end)                        \
    {                                                                                            \
        const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2];              \
        const int64_t KH = g->k[1], KW = g->k[2], C = g->cin;                                    \
        for (int64_t r = begin; r < end; r++) {                                                  \
            const int64_t n = r / OH, oh = r % OH;                                               \
            const T *x = (const T *)xv + n * IH * IW * C;                                        \
            T *y = (T *)yv + r * OW * C;                                                         \
            for (int64_t ow = 0; ow < OW; ow++) {                                                \
                T *yp = y + ow * C;                                                              \
                for (int64_t c = 0; c < C; c++) yp[c] = 0;                                       \
                for (int64_t kh = 0; kh < KH; kh++) {                                            \
                    const int64_t ih = oh * g->stride[1] - g->pad[1] + kh * g->dil[1];           \
                    if (ih < 0 || ih >= IH) continue;                                            \
                    for (int64_t kw = 0; kw < KW; kw++) {                                        \
                        const int64_t iw = ow * g->stride[2] - g->pad[2] + kw * g->dil[2];       \
                        if (iw < 0 || iw >= IW) continue;                                        \
                        const T *xp = x + (ih * IW + iw) * C;                                    \
                        const T *wp = (const T *)wv + (kh * KW + kw) * C;                        \
                        for (int64_t c = 0; c < C; c++) yp[c] += wp[c] * xp[c];                  \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* rows [begin, end) of gx (n, ih), each pixel gathering the outputs whose taps read it */   \
    static void dw_backward_data_cl_##SUF(const pt_conv_geom *g, const void *gyv,                \
                                          const void *wv, void *gxv, int64_t begin, int64_t end) \
    {                                                                                            \
        const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2];              \
        const int64_t KH = g->k[1], KW = g->k[2], C = g->cin;                                    \
        const int64_t sh = g->stride[1], sw = g->stride[2];                                      \
        for (int64_t r = begin; r < end; r++) {                                                  \
            const int64_t n = r / IH, ih = r % IH;                                               \
            const T *gy = (const T *)gyv + n * OH * OW * C;                                      \
            T *gx = (T *)gxv + r * IW * C;                                                       \
            for (int64_t iw = 0; iw < IW; iw++) {                                                \
                T *xp = gx + iw * C;                                                             \
                for (int64_t c = 0; c < C; c++) xp[c] = 0;                                       \
                for (int64_t kh = 0; kh < KH; kh++) {                                            \
                    const int64_t th = ih + g->pad[1] - kh * g->dil[1];                          \
                    if (th < 0 || th % sh != 0 || th / sh >= OH) continue;                       \
                    for (int64_t kw = 0; kw < KW; kw++) {                                        \
                        const int64_t tw = iw + g->pad[2] - kw * g->dil[2];                      \
                        if (tw < 0 || tw % sw != 0 || tw / sw >= OW) continue;                   \
                        const T *gp = gy + ((th / sh) * OW + tw / sw) * C;                       \
                        const T *wp = (const T *)wv + (kh * KW + kw) * C;                        \
                        for (int64_t c = 0; c < C; c++) xp[c] += wp[c] * gp[c];                  \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* taps [begin, end) of the transposed gradient gwt (tap, C), each summed over every image  \
     * and output in order */                                                                    \
    static void dw_backward_weight_cl_##SUF(const pt_conv_geom *g, const void *xv,               \
                                            const void *gyv, void *gwv, int64_t begin,           \
                                            int64_t end)                                         \
    {                                                                                            \
        const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2];              \
        const int64_t KW = g->k[2], C = g->cin;                                                  \
        for (int64_t t = begin; t < end; t++) {                                                  \
            const int64_t kh = t / KW, kw = t % KW;                                              \
            T *gw = (T *)gwv + t * C;                                                            \
            for (int64_t c = 0; c < C; c++) gw[c] = 0;                                           \
            for (int64_t n = 0; n < g->n; n++)                                                   \
                for (int64_t oh = 0; oh < OH; oh++) {                                            \
                    const int64_t ih = oh * g->stride[1] - g->pad[1] + kh * g->dil[1];           \
                    if (ih < 0 || ih >= IH) continue;                                            \
                    const T *gy = (const T *)gyv + ((n * OH + oh) * OW) * C;                     \
                    const T *x = (const T *)xv + ((n * IH + ih) * IW) * C;                       \
                    for (int64_t ow = 0; ow < OW; ow++) {                                        \
                        const int64_t iw = ow * g->stride[2] - g->pad[2] + kw * g->dil[2];       \
                        if (iw < 0 || iw >= IW) continue;                                        \
                        const T *gp = gy + ow * C, *xp = x + iw * C;                             \
                        for (int64_t c = 0; c < C; c++) gw[c] += gp[c] * xp[c];                  \
                    }                                                                            \
                }                                                                                \
        }                                                                                        \
    }

DW_LOOPS(float, f4)
DW_LOOPS(double, f8)

PT_CPU_KERNELS_DEFINE(nn_conv, pt_conv_dw_table) = {
    {dw_forward_f4, dw_forward_f8},
    {dw_backward_data_f4, dw_backward_data_f8},
    {dw_backward_weight_f4, dw_backward_weight_f8},
    {dw_forward_cl_f4, dw_forward_cl_f8},
    {dw_backward_data_cl_f4, dw_backward_data_cl_f8},
    {dw_backward_weight_cl_f4, dw_backward_weight_cl_f8},
};
