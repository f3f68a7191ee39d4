/* test_unary.c - the unary family from C: the float32 kernels against double libm (ulp bounds, on
 * a dense sweep and on special values), the result dtypes of the dtype kinds (int to float,
 * complex abs to real, bool predicates), torch's refusals and their messages, in-place and out=
 * rules, clamp and where with broadcast bounds, softmax rows (contiguous, strided, float16) against
 * a double reference, meta tensors, and every CPU capability against the default. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../csrc/kernels/iter.h"
#include "pt_ops_internal.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};
static const pt_device META = {PT_DEV_META, 0};

static pt_tensor *floats(int64_t n, const float *v)
{
    pt_tensor *t;
    if (pt_tensor_empty(1, &n, PT_FLOAT32, CPU, &t) != PT_OK) return NULL;
    memcpy(pt_tensor_data(t), v, sizeof(float) * (size_t)n);
    return t;
}

static const float *fdata(const pt_tensor *t) { return (const float *)pt_tensor_data(t); }

/* |y - r| in units of the float spacing at r (subnormal spacing below the normals). */
static double ulps(float y, double r)
{
    if (isnan(r)) return isnan(y) ? 0 : INFINITY;
    if (isinf(r) || fabs(r) > FLT_MAX) return isinf(y) && (y > 0) == (r > 0) ? 0 : INFINITY;
    int e;
    frexp(r, &e);
    return fabs((double)y - r) / ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
}

typedef pt_status (*unary_fn)(const pt_tensor *, pt_tensor **);

/* Max ulp error of fn over n floats spread over [-hi, hi] (with the subnormals near 0). */
static double sweep(unary_fn fn, double (*ref)(double), float hi, int64_t n)
{
    float *v = malloc(sizeof(float) * (size_t)n);
    if (!v) return INFINITY;
    for (int64_t i = 0; i < n; i++) {
        const double u = (double)i / (double)(n - 1) * 2.0 - 1.0; /* [-1, 1] */
        v[i] = (float)(u * u * u * hi);
    }
    pt_tensor *x = floats(n, v), *y = NULL;
    double worst = x && fn(x, &y) == PT_OK ? 0 : INFINITY;
    for (int64_t i = 0; y && i < n; i++) {
        const double e = ulps(fdata(y)[i], ref(v[i]));
        if (e > worst) worst = e;
    }
    free(v);
    if (x) pt_tensor_release(x);
    if (y) pt_tensor_release(y);
    return worst;
}

static double sigmoid_ref(double x) { return 1.0 / (1.0 + exp(-x)); }

PT_TEST(unary_float32_kernels_within_their_ulp_bounds)
{
    const int64_t n = 200003; /* odd: crosses every vector width's tail */
    CHECK(sweep(pt_kernel_exp, exp, 100.0f, n) <= 1.01);
    CHECK(sweep(pt_kernel_sigmoid, sigmoid_ref, 120.0f, n) <= 2.5);
    CHECK(sweep(pt_kernel_tanh, tanh, 20.0f, n) <= 2.5);
    CHECK(sweep(pt_kernel_log, log, 3e38f, n) <= 1.0);
    CHECK(sweep(pt_kernel_log1p, log1p, 1e30f, n) <= 1.0);
    CHECK(sweep(pt_kernel_expm1, expm1, 90.0f, n) <= 1.0);
    CHECK(sweep(pt_kernel_erf, erf, 6.0f, n) <= 1.0);
    CHECK(sweep(pt_kernel_erfc, erfc, 12.0f, n) <= 1.0);
    CHECK(sweep(pt_kernel_sin, sin, 1e7f, n) <= 1.0);
    CHECK(sweep(pt_kernel_cos, cos, 1e7f, n) <= 1.0);
    CHECK(sweep(pt_kernel_sinh, sinh, 95.0f, n) <= 1.0);
}

PT_TEST(unary_special_values)
{
    const float v[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1.5f, 2.5f};
    pt_tensor *x = floats(8, v), *y;
    CHECK(x);
    CHECK_OK(pt_kernel_exp(x, &y));
    CHECK(fdata(y)[0] == 1.0f && fdata(y)[2] == INFINITY && fdata(y)[3] == 0.0f);
    CHECK(isnan(fdata(y)[4]));
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_tanh(x, &y));
    CHECK(signbit(fdata(y)[1]) && fdata(y)[2] == 1.0f && fdata(y)[3] == -1.0f);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_sign(x, &y)); /* torch: sign(-0) = 0, sign(nan) = 0 */
    CHECK(!signbit(fdata(y)[1]) && fdata(y)[4] == 0.0f && fdata(y)[6] == -1.0f);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_round(x, &y)); /* half to even */
    CHECK(fdata(y)[6] == -2.0f && fdata(y)[7] == 2.0f);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_frac(x, &y));
    CHECK(fdata(y)[6] == -0.5f && isnan(fdata(y)[2]));
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_relu(x, &y));
    CHECK(isnan(fdata(y)[4]) && fdata(y)[3] == 0.0f && signbit(fdata(y)[1]));
    pt_tensor_release(y);
    pt_tensor_release(x);
}

PT_TEST(unary_result_dtypes)
{
    int64_t n = 4;
    pt_tensor *i, *c, *b, *y;
    CHECK_OK(pt_tensor_empty(1, &n, PT_INT32, CPU, &i));
    CHECK_OK(pt_tensor_empty(1, &n, PT_COMPLEX128, CPU, &c));
    CHECK_OK(pt_tensor_empty(1, &n, PT_BOOL, CPU, &b));
    memset(pt_tensor_data(i), 0, 16);
    memset(pt_tensor_data(c), 0, 64);
    memset(pt_tensor_data(b), 1, 4);
    CHECK_OK(pt_kernel_sqrt(i, &y));
    CHECK(y->dtype == pt_dtype_default());
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_abs(c, &y));
    CHECK(y->dtype == PT_FLOAT64);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_ceil(i, &y));
    CHECK(y->dtype == PT_INT32);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_isnan(c, &y));
    CHECK(y->dtype == PT_BOOL);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_exp(b, &y));
    CHECK(y->dtype == pt_dtype_default() && fabs(fdata(y)[0] - M_E) < 1e-6);
    pt_tensor_release(y);
    CHECK_ERR(pt_kernel_neg(b, &y), PT_ERR_RUNTIME, "on a bool tensor is not supported");
    CHECK_ERR(pt_kernel_frac(i, &y), PT_ERR_NOT_IMPLEMENTED,
              "\"frac_cpu\" not implemented for 'Int'");
    CHECK_ERR(pt_kernel_erf(c, &y), PT_ERR_NOT_IMPLEMENTED, "'ComplexDouble'");
    CHECK_ERR(pt_kernel_exp_(i, &y), PT_ERR_RUNTIME,
              "can't be cast to the desired output type Int");
    CHECK_ERR(pt_kernel_abs_(c, &y), PT_ERR_RUNTIME, "In-place abs is not supported for complex");
    CHECK_ERR(pt_kernel_exp(NULL, &y), PT_ERR_VALUE, "self");
    pt_tensor_release(i);
    pt_tensor_release(c);
    pt_tensor_release(b);
}

PT_TEST(unary_inplace_out_and_meta)
{
    const float v[] = {1.0f, 4.0f, 9.0f, 16.0f};
    pt_tensor *x = floats(4, v), *y, *out;
    CHECK(x);
    CHECK_OK(pt_kernel_sqrt_(x, &y));
    CHECK(y == x && fdata(x)[3] == 4.0f);
    pt_tensor_release(y);
    int64_t zero = 0, two = 2;
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT64, CPU, &out));
    CHECK_OK(pt_kernel_exp_out(x, out, &y)); /* resized, computed in float32, widened */
    CHECK(y == out && out->numel == 4 && ((double *)pt_tensor_data(out))[0] == (double)expf(1.0f));
    pt_tensor_release(y);
    pt_tensor_release(out);
    CHECK_OK(pt_tensor_empty(1, &two, PT_FLOAT32, CPU, &out));
    CHECK_ERR(pt_kernel_exp_out(x, out, &y), PT_ERR_RUNTIME, "doesn't match the broadcast shape");
    pt_tensor_release(out);
    pt_tensor_release(x);
    int64_t sizes[2] = {3, 5};
    pt_tensor *m;
    CHECK_OK(pt_tensor_empty(2, sizes, PT_INT64, META, &m));
    CHECK_OK(pt_kernel_sigmoid(m, &y));
    CHECK(y->device.type == PT_DEV_META && y->dtype == pt_dtype_default() && y->numel == 15);
    pt_tensor_release(y);
    CHECK_OK(pt_kernel_softmax_int(m, 1, PT_FLOAT64, &y));
    CHECK(y->device.type == PT_DEV_META && y->dtype == PT_FLOAT64);
    pt_tensor_release(y);
    pt_tensor_release(m);
}

PT_TEST(unary_clamp_and_where_broadcast)
{
    const float v[] = {-3.0f, -1.0f, 0.5f, 2.0f, 7.0f, NAN};
    pt_tensor *x = floats(6, v), *y;
    CHECK(x);
    const pt_scalar lo = {PT_SCALAR_INT, 0, 0.0, 0.0}, hi = {PT_SCALAR_FLOAT, 0, 1.5, 0.0};
    CHECK_OK(pt_kernel_clamp(x, &lo, &hi, &y));
    CHECK(y->dtype == PT_FLOAT32 && fdata(y)[0] == 0.0f && fdata(y)[2] == 0.5f &&
          fdata(y)[4] == 1.5f && isnan(fdata(y)[5]));
    pt_tensor_release(y);
    CHECK_ERR(pt_kernel_clamp(x, NULL, NULL, &y), PT_ERR_RUNTIME,
              "At least one of 'min' or 'max' must not be None");
    int64_t n = 6;
    pt_tensor *c;
    CHECK_OK(pt_tensor_empty(1, &n, PT_BOOL, CPU, &c));
    for (int k = 0; k < 6; k++) ((uint8_t *)pt_tensor_data(c))[k] = (uint8_t)(k % 2);
    CHECK_OK(pt_kernel_where_ScalarOther(c, x, &lo, &y));
    CHECK(y->dtype == PT_FLOAT32 && fdata(y)[0] == 0.0f && fdata(y)[1] == -1.0f &&
          fdata(y)[3] == 2.0f && fdata(y)[4] == 0.0f);
    pt_tensor_release(y);
    CHECK_ERR(pt_kernel_where_self(x, x, x, &y), PT_ERR_RUNTIME,
              "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
    pt_tensor_release(c);
    pt_tensor_release(x);
}

/* softmax of rows against a double reference: contiguous rows, columns (strided), float16. */
PT_TEST(unary_softmax_rows)
{
    int64_t sizes[2] = {37, 41};
    pt_tensor *x, *y, *h, *yh;
    CHECK_OK(pt_tensor_empty(2, sizes, PT_FLOAT32, CPU, &x));
    float *v = pt_tensor_data(x);
    for (int64_t k = 0; k < 37 * 41; k++) v[k] = (float)sin((double)k) * 30.0f;
    for (int32_t dim = 0; dim < 2; dim++) {
        CHECK_OK(pt_kernel_softmax_int(x, dim, -1, &y));
        const int64_t rows = sizes[1 - dim], len = sizes[dim];
        for (int64_t r = 0; r < rows; r++) {
            const int64_t step = dim == 1 ? 1 : 41, base = dim == 1 ? r * 41 : r;
            double m = -INFINITY, s = 0;
            for (int64_t k = 0; k < len; k++) m = fmax(m, v[base + k * step]);
            for (int64_t k = 0; k < len; k++) s += exp(v[base + k * step] - m);
            /* x - m is rounded to float first (as the kernel, and torch, compute it): 4e-6
             * relative for |x - m| up to 60, which the exp carries into the result */
            for (int64_t k = 0; k < len; k++) {
                const double want = exp(v[base + k * step] - m) / s;
                CHECK(fabs(fdata(y)[base + k * step] - want) <= 5e-6 * want + 1e-30);
            }
        }
        pt_tensor_release(y);
    }
    CHECK_OK(pt_tensor_to(x, PT_FLOAT16, CPU, 0, &h));
    CHECK_OK(pt_kernel__log_softmax(h, 1, 0, &yh));
    CHECK(yh->dtype == PT_FLOAT16);
    CHECK_ERR(pt_kernel__softmax(h, 1, 1, &y), PT_ERR_RUNTIME,
              "half to float conversion is not supported on CPU");
    CHECK_ERR(pt_kernel_softmax_int(x, 2, -1, &y), PT_ERR_INDEX, "Dimension out of range");
    pt_tensor_release(yh);
    pt_tensor_release(h);
    pt_tensor_release(x);
}

/* Every capability this CPU has gives the default capability's bits. */
/* exp, tanh, sigmoid and silu run vec_math_simd.h's FMA kernels under AVX2 and AVX-512 (the same
 * bits in both) and the portable ones under the default capability, within a few ulp of them
 * (Note [vector exp]); the other functions give the same bits everywhere. */
PT_TEST(unary_capabilities_match_default)
{
    const int64_t n = 4099;
    float *v = malloc(sizeof(float) * (size_t)n);
    CHECK(v);
    for (int64_t k = 0; k < n; k++) v[k] = (float)((double)k * 0.037 - 70.0);
    pt_tensor *x = floats(n, v);
    free(v);
    CHECK(x);
    const unary_fn fns[] = {pt_kernel_exp, pt_kernel_tanh, pt_kernel_sigmoid, pt_kernel_silu,
                            pt_kernel_log, pt_kernel_erf, pt_kernel_sin, pt_kernel_expm1};
    enum { VECTOR_FNS = 4 }; /* the first four */
    const int32_t detected = pt_cpu_capability_detected();
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        pt_tensor *ref = NULL, *vec = NULL;
        for (int32_t cap = 0; cap <= detected; cap++) {
            pt_tensor *y;
            CHECK_OK(pt_cpu_capability_select(cap));
            CHECK_OK(fns[f](x, &y));
            if (!ref) {
                ref = y;
            } else if (f < VECTOR_FNS && !vec) {
                for (int64_t i = 0; i < n; i++)
                    CHECK(ulps(fdata(y)[i], (double)fdata(ref)[i]) <= 5.0);
                vec = y;
            } else {
                const pt_tensor *want = f < VECTOR_FNS ? vec : ref;
                CHECK(memcmp(pt_tensor_data(want), pt_tensor_data(y), sizeof(float) * n) == 0);
                pt_tensor_release(y);
            }
        }
        pt_tensor_release(ref);
        if (vec) pt_tensor_release(vec);
    }
    CHECK_OK(pt_cpu_capability_select(pt_cpu_capability()));
    pt_tensor_release(x);
}
