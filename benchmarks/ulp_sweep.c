/* ulp_sweep.c - measures the largest error, in ulp, of each float32 function of
 * csrc/kernels/cpu/vec_math.h, and of the array forms of vec_math_simd.h ("exp[]", ...), over the
 * float32 range, against the double libm function (whose own error is far below a float ulp). Not
 * part of the build:
 *
 *     cc -O2 -std=c11 -D_GNU_SOURCE -Icsrc/kernels/cpu -Icsrc/core benchmarks/ulp_sweep.c -lm -o /tmp/ulp_sweep
 *     /tmp/ulp_sweep [step [function]]
 *
 * The array forms are the capability's: add `-mavx2 -mfma` (AVX2) or `-mavx2 -mfma -mavx512f
 * -mavx512bw -mavx512vl -mavx512dq` (AVX-512) to measure the intrinsics kernels; without those
 * flags they are the portable functions again.
 *
 * Visits every step-th bit pattern (step 1: all 2^32 floats), both signs; the error of a result y
 * against the exact value r is |y - r| / ulp(r), ulp(r) being the spacing of floats at r
 * (2^-149 for subnormals). nan must give nan and infinite exact values the same infinity; a
 * mismatch there is reported as an infinite error. sin, cos and tan are measured below
 * PT_VTRIG_LIMIT, where the kernels use them (the loops call libm beyond).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec_math.h"
#include "vec_math_simd.h"

typedef struct fn {
    const char *name;
    float (*f)(float);
    double (*ref)(double);
    float limit; /* |x| below it only; 0: everywhere */
    void (*map)(float *, const float *, int64_t, float); /* an array form instead of f */
} fn;

static double sigmoid_ref(double x) { return 1.0 / (1.0 + exp(-x)); }

static const fn fns[] = {
    {"exp", pt_vexpf, exp, 0, NULL},        {"sigmoid", pt_vsigmoidf, sigmoid_ref, 0, NULL},
    {"tanh", pt_vtanhf, tanh, 0, NULL},     {"log", pt_vlogf, log, 0, NULL},
    {"log2", pt_vlog2f, log2, 0, NULL},     {"log10", pt_vlog10f, log10, 0, NULL},
    {"log1p", pt_vlog1pf, log1p, 0, NULL},  {"exp2", pt_vexp2f, exp2, 0, NULL},
    {"expm1", pt_vexpm1f, expm1, 0, NULL},  {"sinh", pt_vsinhf, sinh, 0, NULL},
    {"cosh", pt_vcoshf, cosh, 0, NULL},     {"erf", pt_verff, erf, 0, NULL},
    {"erfc", pt_verfcf, erfc, 0, NULL},     {"sin", pt_vsinf, sin, PT_VTRIG_LIMIT, NULL},
    {"cos", pt_vcosf, cos, PT_VTRIG_LIMIT, NULL}, {"tan", pt_vtanf, tan, PT_VTRIG_LIMIT, NULL},
    {"exp[]", NULL, exp, 0, pt_map_expf},   {"sigmoid[]", NULL, sigmoid_ref, 0, pt_map_sigmoidf},
    {"tanh[]", NULL, tanh, 0, pt_map_tanhf},
};

static double ulp_error(float y, double r)
{
    if (isnan(r)) return isnan(y) ? 0 : INFINITY;
    if (isinf(r) || fabs(r) > FLT_MAX) {
        /* an exact value beyond the largest float rounds to inf (or to FLT_MAX within 1/2 ulp) */
        if (isinf(y) && (y > 0) == (r > 0)) return 0;
        return fabs(y) == FLT_MAX ? 0.5 : INFINITY;
    }
    if (isnan(y) || isinf(y)) return INFINITY;
    int e;
    frexp(r, &e);
    double ulp = ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
    return fabs((double)y - r) / ulp;
}

#define BATCH 4096
int main(int argc, char **argv)
{
    const unsigned step = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        const fn *f = &fns[k];
        if (argc > 2 && strcmp(argv[2], f->name) != 0) continue;
        double worst = 0;
        float worst_x = 0;
        static float xs[BATCH], ys[BATCH];
        int n = 0;
        for (uint64_t bits = 0; bits <= 0xffffffffull; bits += step) {
            const float x = pt_float_of((uint32_t)bits);
            if (f->limit != 0 && !(fabsf(x) < f->limit)) continue;
            xs[n++] = x;
            if (n < BATCH && bits + step <= 0xffffffffull) continue;
            if (f->map) f->map(ys, xs, n, 0.0f);
            else
                for (int i = 0; i < n; i++) ys[i] = f->f(xs[i]); /* the vectorized form */
            for (int i = 0; i < n; i++) {
                const double e = ulp_error(ys[i], f->ref((double)xs[i]));
                if (e > worst) {
                    worst = e;
                    worst_x = xs[i];
                }
            }
            n = 0;
        }
        printf("%-8s max %.3f ulp at %a (step %u)\n", f->name, worst, (double)worst_x, step);
        fflush(stdout);
    }
    return 0;
}
