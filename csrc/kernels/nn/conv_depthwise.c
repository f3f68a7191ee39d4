/* conv_depthwise.c - the direct depthwise convolution: conv.h's three passes of a problem whose
 * groups equal its input channels (each input plane convolved with its own kernels; MobileNet's
 * 3x3 layers), over one or two spatial dimensions, float32 and float64.
 *
 * im2col + GEMM spends its time unfolding such a problem into products of one row (K = kh * kw
 * taps per group), and oneDNN reorders it into its blocked layout and back; the direct loops
 * (csrc/kernels/cpu/nn_conv_kernels.c) read each plane in place. The threads split the planes of
 * the result (forward, backward data) or the output channels (backward weight, each summing its
 * images in order, so the result does not depend on the number of threads). Which passes take
 * this path: Note [convolution paths] in conv.c. Channels-last buffers with one kernel per
 * channel run loops of their own over a pixel's channels (nn_conv_kernels.c).
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "cpu_stub.h"
#include "iter.h"

PT_CPU_STUB(nn_conv, pt_conv_dw_table, "direct depthwise convolution loops (float32, float64)")

bool pt_conv_is_depthwise(const pt_conv_geom *g)
{
    return g->dims <= 2 && g->groups > 1 && g->groups == g->cin && g->cout % g->cin == 0 &&
           (g->dtype == PT_FLOAT32 || g->dtype == PT_FLOAT64);
}

bool pt_conv_depthwise_takes_cl(const pt_conv_geom *g) { return g->cout == g->cin; }

/* dst[j, i] = src[i, j] for an r x c matrix of `item`-byte elements. */
static void transpose(const char *src, int64_t r, int64_t c, int64_t item, char *dst)
{
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++)
            memcpy(dst + (j * r + i) * item, src + (i * c + j) * item, (size_t)item);
}

typedef struct dw_job {
    pt_conv_dw_fn fn;
    const pt_conv_geom *g;
    const void *a, *b;
    void *out;
} dw_job;

static void run(int64_t begin, int64_t end, void *arg)
{
    const dw_job *j = arg;
    j->fn(j->g, j->a, j->b, j->out, begin, end);
}

/* The channels-last passes: the weight (C, taps) is transposed to (tap, C) for forward and
 * backward data, and backward weight's (tap, C) sum transposed back. */
static pt_status run_cl(const pt_conv_geom *g, int pass, const pt_conv_dw_table *t,
                        const void *a, const void *b, void *out)
{
    if (!pt_conv_depthwise_takes_cl(g))
        return PT_ERROR(PT_ERR_RUNTIME, "convolution: channels-last depthwise with a multiplier");
    const int d = g->dtype == PT_FLOAT64;
    const int64_t item = d ? 8 : 4, C = g->cin, taps = g->k[1] * g->k[2];
    char *wt = malloc((size_t)(taps * C * item) + 1);
    if (!wt) return PT_ERROR(PT_ERR_MEMORY, "convolution: out of memory");
    dw_job j = {NULL, g, a, wt, out};
    int64_t items, work;
    if (pass == PT_CONV_FORWARD) {
        transpose(b, C, taps, item, wt);
        j.fn = t->forward_cl[d];
        items = g->n * g->out[1];
        work = g->out[2] * taps * C;
    } else if (pass == PT_CONV_BACKWARD_DATA) {
        transpose(b, C, taps, item, wt);
        j.fn = t->backward_data_cl[d];
        items = g->n * g->in[1];
        work = g->in[2] * taps * C;
    } else {
        j.fn = t->backward_weight_cl[d];
        j.b = b;
        j.out = wt;
        items = taps;
        work = g->n * g->out[1] * g->out[2] * C;
    }
    if (items > 0) {
        const int64_t grain = work > 0 ? (PT_GRAIN + work - 1) / work : items;
        pt_parallel_for(items, grain, run, &j);
    }
    if (pass == PT_CONV_BACKWARD_WEIGHT) transpose(wt, taps, C, item, out);
    free(wt);
    return PT_OK;
}

pt_status pt_conv_depthwise(const pt_conv_geom *g, int pass, const void *a, const void *b,
                            void *out)
{
    if (!pt_conv_is_depthwise(g))
        return PT_ERROR(PT_ERR_RUNTIME, "convolution: not a depthwise problem");
    const pt_conv_dw_table *t = PT_CPU_KERNELS(nn_conv, pt_conv_dw_table);
    const int d = g->dtype == PT_FLOAT64;
    const int64_t taps = g->k[1] * g->k[2], plane_out = g->out[1] * g->out[2];
    dw_job j = {NULL, g, a, b, out};
    int64_t items, work;
    switch (pass) {
    case PT_CONV_FORWARD:
        j.fn = t->forward[d];
        items = g->n * g->cout;
        work = plane_out * taps;
        break;
    case PT_CONV_BACKWARD_DATA:
        j.fn = t->backward_data[d];
        items = g->n * g->cin;
        work = plane_out * taps * (g->cout / g->cin) + g->in[1] * g->in[2];
        break;
    default:
        j.fn = t->backward_weight[d];
        items = g->cout;
        work = g->n * plane_out * taps;
        break;
    }
    if (g->cl) return run_cl(g, pass, t, a, b, out);
    if (items == 0) return PT_OK;
    const int64_t grain = work > 0 ? (PT_GRAIN + work - 1) / work : items;
    pt_parallel_for(items, grain, run, &j);
    return PT_OK;
}
