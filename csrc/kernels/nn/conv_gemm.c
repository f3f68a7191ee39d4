/* conv_gemm.c - pytensor's own convolution: im2col + GEMM (conv.h's three passes).
 *
 * Per image and group, with K = Cin/G * k0*k1*k2 taps and L = out0*out1*out2 output positions:
 *   forward          y[Cout/G, L]   = w[Cout/G, K] @ col[K, L]           col = vol2col(x)
 *   backward data    col[K, L]      = w^T[K, Cout/G] @ gy[Cout/G, L]     gx += col2vol(col)
 *   backward weight  gw[Cout/G, K] += gy[Cout/G, L] @ col^T[L, K]
 * on the matrix-product backend (BLIS or the portable kernel: pt_blas_gemm, linalg.h). A 1x1
 * kernel with stride 1 and no padding needs no unfolding: col is x itself (and backward data
 * writes gx directly).
 *
 * Note [convolution threads]
 * With more than one thread and more than one image, the images are split across the threads,
 * each unfolding into a columns buffer of its own and running one-thread products: unfolding is
 * memory-bound and serial inside one image, and small images give products too small for BLIS
 * to split well (a 512ch 7x7 stage: L = 49). backward weight sums each thread's images into a
 * buffer of its own and adds the buffers in thread order afterwards, so the sum does not depend
 * on scheduling beyond the fixed split. One image (or one thread) runs the images in order with
 * the product threaded by the backend.
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "linalg.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int32_t threads_available(void)
{
#ifdef _OPENMP
    return omp_in_parallel() ? 1 : pt_get_num_threads();
#else
    return 1;
#endif
}

static bool is_pointwise(const pt_conv_geom *g)
{
    for (int i = 0; i < 3; i++)
        if (g->k[i] != 1 || g->stride[i] != 1 || g->pad[i] != 0) return false;
    return true;
}

static void set_value(pt_blas_value *v, int32_t dtype, double x)
{
    memset(v, 0, sizeof *v);
    if (dtype == PT_FLOAT32) {
        const float f = (float)x;
        memcpy(v->bytes, &f, sizeof f);
    } else {
        memcpy(v->bytes, &x, sizeof x);
    }
}

/* c[m, n] = (beta ? c : 0) + a[m, k] @ b[k, n] with the given element strides. */
static pt_status gemm(const pt_conv_geom *g, int32_t threads, int64_t m, int64_t n, int64_t k,
                      const char *a, int64_t rsa, int64_t csa, const char *b, int64_t rsb,
                      int64_t csb, char *c, int64_t rsc, bool beta)
{
    pt_gemm p;
    memset(&p, 0, sizeof p);
    p.dtype = g->dtype;
    p.m = m, p.n = n, p.k = k;
    p.threads = threads;
    p.beta_zero = !beta;
    set_value(&p.alpha, g->dtype, 1.0);
    set_value(&p.beta, g->dtype, beta ? 1.0 : 0.0);
    p.a = a, p.rsa = rsa, p.csa = csa;
    p.b = b, p.rsb = rsb, p.csb = csb;
    p.c = c, p.rsc = rsc, p.csc = 1;
    pt_blas_strides_ok(m, k, &p.rsa, &p.csa);
    pt_blas_strides_ok(k, n, &p.rsb, &p.csb);
    pt_blas_strides_ok(m, n, &p.rsc, &p.csc);
    return pt_blas_gemm(&p);
}

typedef struct conv_job {
    const pt_conv_geom *g;
    int pass;
    const char *a, *b; /* forward: x, w; backward data: gy, w; backward weight: x, gy */
    char *out;
    int32_t gemm_threads;
    int64_t item, cin_g, cout_g, taps, lin, lout;
    bool pointwise;
    char **acc; /* backward weight: one gw per thread (NULL: accumulate into out) */
    pt_status st;
} conv_job;

/* Note [channels-last products]
 * Channels-last buffers (g->cl) run the transposed products on the same buffers: per image and
 * group, with col (L x K) from pt_conv_vol2col_cl and the image's rows of Cin or Cout channels,
 *   forward          y[L, Cout/G]  = col[L, K] @ w^T[K, Cout/G]       (rows of y Cout apart)
 *   backward data    col[L, K]     = gy[L, Cout/G] @ w[Cout/G, K]     gx += col2vol_cl(col)
 *   backward weight  gw[Cout/G, K] += gy^T[Cout/G, L] @ col[L, K]
 * so no operand is converted; a pointwise problem's col is the image itself (rows Cin apart). */
static pt_status image_cl(conv_job *j, int64_t i, char *col, char *gw, bool first)
{
    const pt_conv_geom *g = j->g;
    const int64_t it = j->item, K = j->taps, L = j->lout;
    const char *x_img = j->pass == PT_CONV_BACKWARD_DATA ? NULL : j->a + i * j->lin * g->cin * it;
    const char *gy_img = j->pass == PT_CONV_FORWARD ? NULL
                         : j->pass == PT_CONV_BACKWARD_DATA ? j->a + i * L * g->cout * it
                                                            : j->b + i * L * g->cout * it;
    char *y_img = j->pass == PT_CONV_FORWARD ? j->out + i * L * g->cout * it : NULL;
    char *gx_img = j->pass == PT_CONV_BACKWARD_DATA ? j->out + i * j->lin * g->cin * it : NULL;
    if (gx_img && !j->pointwise) memset(gx_img, 0, (size_t)(g->cin * j->lin * it));
    for (int64_t grp = 0; grp < g->groups; grp++) {
        const char *w = j->pass == PT_CONV_BACKWARD_WEIGHT ? NULL
                                                           : j->b + grp * j->cout_g * K * it;
        const int64_t cx = grp * j->cin_g * it, cy = grp * j->cout_g * it;
        if (j->pass == PT_CONV_FORWARD) {
            if (!j->pointwise) pt_conv_vol2col_cl(g, x_img + cx, j->cin_g, col);
            PT_TRY(gemm(g, j->gemm_threads, L, j->cout_g, K, j->pointwise ? x_img + cx : col,
                        j->pointwise ? g->cin : K, 1, w, 1, K, y_img + cy, g->cout, false));
        } else if (j->pass == PT_CONV_BACKWARD_DATA) {
            PT_TRY(gemm(g, j->gemm_threads, L, K, j->cout_g, gy_img + cy, g->cout, 1, w, K, 1,
                        j->pointwise ? gx_img + cx : col, j->pointwise ? g->cin : K, false));
            if (!j->pointwise) pt_conv_col2vol_cl(g, col, j->cin_g, gx_img + cx);
        } else {
            if (!j->pointwise) pt_conv_vol2col_cl(g, x_img + cx, j->cin_g, col);
            PT_TRY(gemm(g, j->gemm_threads, j->cout_g, K, L, gy_img + cy, 1, g->cout,
                        j->pointwise ? x_img + cx : col, j->pointwise ? g->cin : K, 1,
                        gw + grp * j->cout_g * K * it, K, !first));
        }
    }
    return PT_OK;
}

static pt_status image_forward(conv_job *j, int64_t i, char *col)
{
    const pt_conv_geom *g = j->g;
    const int64_t it = j->item;
    if (g->cl) return image_cl(j, i, col, NULL, false);
    for (int64_t grp = 0; grp < g->groups; grp++) {
        const char *x = j->a + (i * g->cin + grp * j->cin_g) * j->lin * it;
        const char *w = j->b + grp * j->cout_g * j->taps * it;
        char *y = j->out + (i * g->cout + grp * j->cout_g) * j->lout * it;
        if (!j->pointwise) pt_conv_vol2col(g, x, j->cin_g, col);
        PT_TRY(gemm(g, j->gemm_threads, j->cout_g, j->lout, j->taps, w, j->taps, 1,
                    j->pointwise ? x : col, j->lout, 1, y, j->lout, false));
    }
    return PT_OK;
}

static pt_status image_backward_data(conv_job *j, int64_t i, char *col)
{
    const pt_conv_geom *g = j->g;
    const int64_t it = j->item;
    if (g->cl) return image_cl(j, i, col, NULL, false);
    char *gx_img = j->out + i * g->cin * j->lin * it;
    if (!j->pointwise) memset(gx_img, 0, (size_t)(g->cin * j->lin * it));
    for (int64_t grp = 0; grp < g->groups; grp++) {
        const char *gy = j->a + (i * g->cout + grp * j->cout_g) * j->lout * it;
        const char *w = j->b + grp * j->cout_g * j->taps * it;
        char *gx = gx_img + grp * j->cin_g * j->lin * it;
        PT_TRY(gemm(g, j->gemm_threads, j->taps, j->lout, j->cout_g, w, 1, j->taps, gy, j->lout,
                    1, j->pointwise ? gx : col, j->lout, false));
        if (!j->pointwise) pt_conv_col2vol(g, col, j->cin_g, gx);
    }
    return PT_OK;
}

/* gw (+)= this image's contribution; `first`: gw is not read (the first image of its sum). */
static pt_status image_backward_weight(conv_job *j, int64_t i, char *col, char *gw, bool first)
{
    const pt_conv_geom *g = j->g;
    const int64_t it = j->item;
    if (g->cl) return image_cl(j, i, col, gw, first);
    for (int64_t grp = 0; grp < g->groups; grp++) {
        const char *x = j->a + (i * g->cin + grp * j->cin_g) * j->lin * it;
        const char *gy = j->b + (i * g->cout + grp * j->cout_g) * j->lout * it;
        if (!j->pointwise) pt_conv_vol2col(g, x, j->cin_g, col);
        PT_TRY(gemm(g, j->gemm_threads, j->cout_g, j->taps, j->lout, gy, j->lout, 1,
                    j->pointwise ? x : col, 1, j->lout, gw + grp * j->cout_g * j->taps * it,
                    j->taps, !first));
    }
    return PT_OK;
}

/* Images [begin, end) on this thread; `slot` picks its backward-weight buffer. */
static pt_status run_images(conv_job *j, int64_t begin, int64_t end, int slot)
{
    char *col = NULL;
    if (!j->pointwise) {
        col = malloc((size_t)(j->taps * j->lout * j->item));
        if (!col) return PT_ERROR(PT_ERR_MEMORY, "convolution: out of memory for the columns "
                                  "buffer (%lld bytes)", (long long)(j->taps * j->lout * j->item));
    }
    pt_status st = PT_OK;
    for (int64_t i = begin; i < end && st == PT_OK; i++) {
        if (j->pass == PT_CONV_FORWARD) st = image_forward(j, i, col);
        else if (j->pass == PT_CONV_BACKWARD_DATA) st = image_backward_data(j, i, col);
        else st = image_backward_weight(j, i, col, j->acc ? j->acc[slot] : j->out, i == begin);
    }
    free(col);
    return st;
}

static pt_status run(const pt_conv_geom *g, int pass, const void *a, const void *b, void *out)
{
    conv_job j = {.g = g, .pass = pass, .a = a, .b = b, .out = out, .st = PT_OK};
    j.item = pt_dtype_itemsize(g->dtype);
    j.cin_g = g->cin / g->groups;
    j.cout_g = g->cout / g->groups;
    j.taps = j.cin_g * g->k[0] * g->k[1] * g->k[2];
    j.lin = g->in[0] * g->in[1] * g->in[2];
    j.lout = g->out[0] * g->out[1] * g->out[2];
    j.pointwise = is_pointwise(g);
    const int64_t wsize = g->cout * j.taps;
    if (g->n == 0 || j.lout == 0 || j.taps == 0 || g->cout == 0) {
        /* an empty result may have no memory at all (out NULL): nothing to zero then */
        int64_t bytes = 0;
        if (pass == PT_CONV_BACKWARD_DATA) bytes = g->n * g->cin * j.lin * j.item;
        if (pass == PT_CONV_BACKWARD_WEIGHT) bytes = wsize * j.item;
        if (pass == PT_CONV_FORWARD) bytes = g->n * g->cout * j.lout * j.item;
        if (bytes > 0) memset(out, 0, (size_t)bytes);
        return PT_OK;
    }
    int32_t threads = threads_available();
    if (threads > g->n) threads = (int32_t)g->n;
    /* Note [convolution threads]: below ~1M multiply-adds a second thread costs more than it
     * saves (a parallel region is a few microseconds, a sleeping thread's wake-up tens). */
    if (pt_conv_macs(g) < (1 << 20)) threads = 1;
    if (threads <= 1) {
        j.gemm_threads = threads_available();
        return run_images(&j, 0, g->n, 0);
    }
    j.gemm_threads = 1;
    if (pass == PT_CONV_BACKWARD_WEIGHT) {
        j.acc = calloc((size_t)threads, sizeof *j.acc);
        if (!j.acc) return PT_ERROR(PT_ERR_MEMORY, "convolution: out of memory");
        j.acc[0] = out;
        for (int32_t t = 1; t < threads; t++) {
            j.acc[t] = malloc((size_t)(wsize * j.item));
            if (!j.acc[t]) j.st = PT_ERROR(PT_ERR_MEMORY, "convolution: out of memory");
        }
    }
    if (j.st == PT_OK) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
        for (int32_t t = 0; t < threads; t++) {
            const int64_t begin = g->n * t / threads, end = g->n * (t + 1) / threads;
            pt_status s = run_images(&j, begin, end, t);
            if (s != PT_OK) {
#ifdef _OPENMP
#pragma omp critical
#endif
                j.st = s;
            }
        }
    }
    if (j.acc) {
        for (int32_t t = 1; t < threads; t++) {
            if (j.st == PT_OK) {
                if (g->dtype == PT_FLOAT32) {
                    float *d = out;
                    const float *s = (const float *)j.acc[t];
                    for (int64_t e = 0; e < wsize; e++) d[e] += s[e];
                } else {
                    double *d = out;
                    const double *s = (const double *)j.acc[t];
                    for (int64_t e = 0; e < wsize; e++) d[e] += s[e];
                }
            }
            free(j.acc[t]);
        }
        free(j.acc);
    }
    return j.st;
}

pt_status pt_conv_gemm_forward(const pt_conv_geom *g, const void *x, const void *w, void *y)
{
    return run(g, PT_CONV_FORWARD, x, w, y);
}

pt_status pt_conv_gemm_backward_data(const pt_conv_geom *g, const void *gy, const void *w,
                                     void *gx)
{
    return run(g, PT_CONV_BACKWARD_DATA, gy, w, gx);
}

pt_status pt_conv_gemm_backward_weight(const pt_conv_geom *g, const void *x, const void *gy,
                                       void *gw)
{
    return run(g, PT_CONV_BACKWARD_WEIGHT, x, gy, gw);
}
