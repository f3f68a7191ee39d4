/* test_linalg.c - the product backends: the portable kernel against a naive triple loop for
 * every dtype family (integers wrapping, conjugation, alpha/beta, beta = 0 ignoring NaN), BLIS
 * against the portable kernel on strided and transposed operands, the small-product kernel under
 * every CPU capability, the medium kernel likewise, and the hand-split products against the same
 * loop, the stride forms BLIS accepts, the backend switch, and the operators' fronts on meta
 * tensors and bad input. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "../../csrc/kernels/gemm_medium.h"
#include "../../csrc/kernels/gemm_small.h"
#include "../../csrc/kernels/linalg.h"
#include "pt_ops_internal.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};
static const pt_device META = {PT_DEV_META, 0};

/* C (m x n, row-major) = beta * C + alpha * A (m x k, strides rsa/csa) * B (k x n, row-major). */
static void naive_d(int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t rsa,
                    int64_t csa, const double *b, double beta, double *c)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++) s += a[i * rsa + p * csa] * b[p * n + j];
            c[i * n + j] = (beta == 0 ? 0 : beta * c[i * n + j]) + alpha * s;
        }
}

static pt_gemm make_gemm(int32_t dtype, int64_t m, int64_t n, int64_t k)
{
    pt_gemm g;
    memset(&g, 0, sizeof g);
    g.dtype = dtype;
    g.m = m;
    g.n = n;
    g.k = k;
    g.threads = 2;
    return g;
}

enum { VIA_BACKEND, VIA_SMALL, VIA_SPLIT, VIA_MEDIUM };

static bool run_float64_via(int via, int32_t backend, int64_t m, int64_t n, int64_t k,
                            bool transposed, double alpha, double beta)
{
    double *a = malloc(sizeof(double) * (size_t)(m * k)), *b = malloc(sizeof(double) * (size_t)(k * n));
    double *c = malloc(sizeof(double) * (size_t)(m * n)), *want = malloc(sizeof(double) * (size_t)(m * n));
    for (int64_t i = 0; i < m * k; i++) a[i] = (double)((i * 7) % 11) - 5;
    for (int64_t i = 0; i < k * n; i++) b[i] = (double)((i * 5) % 13) - 6;
    for (int64_t i = 0; i < m * n; i++) c[i] = want[i] = beta == 0 ? NAN : (double)(i % 3);
    int64_t rsa = transposed ? 1 : k, csa = transposed ? m : 1;
    naive_d(m, n, k, alpha, a, rsa, csa, b, beta, want);
    pt_gemm g = make_gemm(PT_FLOAT64, m, n, k);
    memcpy(g.alpha.bytes, &alpha, sizeof alpha);
    memcpy(g.beta.bytes, &beta, sizeof beta);
    g.alpha_zero = alpha == 0;
    g.beta_zero = beta == 0;
    g.a = (const char *)a;
    g.rsa = rsa;
    g.csa = csa;
    g.b = (const char *)b;
    g.rsb = n;
    g.csb = 1;
    g.c = (char *)c;
    g.rsc = n;
    g.csc = 1;
    pt_blas_strides_ok(m, k, &g.rsa, &g.csa);
    pt_blas_strides_ok(k, n, &g.rsb, &g.csb);
    pt_blas_strides_ok(m, n, &g.rsc, &g.csc);
    int32_t old = pt_blas_set_backend(backend);
    bool ok = (via == VIA_SMALL    ? pt_gemm_small(&g)
               : via == VIA_SPLIT  ? pt_gemm_split(&g, 2)
               : via == VIA_MEDIUM ? pt_gemm_medium(&g)
                                   : pt_blas_gemm(&g)) == PT_OK;
    pt_blas_set_backend(old);
    for (int64_t i = 0; ok && i < m * n; i++) ok = c[i] == want[i]; /* small integers: exact */
    free(a);
    free(b);
    free(c);
    free(want);
    return ok;
}

static bool run_float64_case(int32_t backend, int64_t m, int64_t n, int64_t k, bool transposed,
                             double alpha, double beta)
{
    return run_float64_via(VIA_BACKEND, backend, m, n, k, transposed, alpha, beta);
}

PT_TEST(linalg_small_kernel_matches_a_naive_product_under_every_capability)
{
    static const int64_t shapes[][3] = {{1, 2, 1},  {5, 7, 3},    {6, 8, 4},    {6, 16, 9},
                                        {7, 17, 5}, {13, 33, 65}, {64, 64, 64}, {100, 37, 250},
                                        {1, 1, 9},  {9, 1, 37},   {40, 1, 100}};
    int32_t in_use = pt_cpu_capability();
    for (int32_t cap = 0; cap <= pt_cpu_capability_detected(); cap++) {
        CHECK_OK(pt_cpu_capability_select(cap));
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int t = 0; t < 2; t++) {
                const int64_t *sh = shapes[s];
                CHECK(run_float64_via(VIA_SMALL, pt_blas_backend(), sh[0], sh[1], sh[2], t, 1, 0));
                CHECK(run_float64_via(VIA_SMALL, pt_blas_backend(), sh[0], sh[1], sh[2], t, 2, -3));
            }
    }
    CHECK_OK(pt_cpu_capability_select(in_use));
}

/* Every capability's medium kernel (Note [medium products]), the AVX-512 one included where it
 * runs though it does not serve: tile edges, MC and KC blocks +-1, two threads' rectangles. */
PT_TEST(linalg_medium_kernel_matches_a_naive_product_under_every_capability)
{
    static const int64_t shapes[][3] = {{2, 2, 1},    {5, 7, 3},     {6, 16, 9},    {7, 17, 5},
                                        {13, 33, 65}, {71, 9, 257},  {73, 25, 513}, {145, 40, 20},
                                        {2, 100, 600}, {100, 2, 300}, {64, 100, 1000}};
    int32_t in_use = pt_cpu_capability();
    for (int32_t cap = 0; cap <= pt_cpu_capability_detected(); cap++) {
        CHECK_OK(pt_cpu_capability_select(cap));
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int t = 0; t < 2; t++) {
                const int64_t *sh = shapes[s];
                int32_t be = pt_blas_backend();
                CHECK(run_float64_via(VIA_MEDIUM, be, sh[0], sh[1], sh[2], t, 1, 0));
                CHECK(run_float64_via(VIA_MEDIUM, be, sh[0], sh[1], sh[2], t, 2, -3));
            }
    }
    CHECK_OK(pt_cpu_capability_select(in_use));
}

PT_TEST(linalg_split_products_match_a_naive_product_deep_tall_and_wide)
{
    static const int64_t shapes[][3] = {{64, 20, 1000}, {300, 20, 40}, {20, 300, 40}, {3, 5, 700}};
    for (int backend = PT_BLAS_BLIS; backend <= PT_BLAS_PORTABLE; backend++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int t = 0; t < 2; t++) {
                const int64_t *sh = shapes[s];
                CHECK(run_float64_via(VIA_SPLIT, backend, sh[0], sh[1], sh[2], t, 1, 0));
                CHECK(run_float64_via(VIA_SPLIT, backend, sh[0], sh[1], sh[2], t, 2, -3));
            }
}

PT_TEST(linalg_both_backends_match_a_naive_product_on_every_shape_path)
{
    static const int64_t shapes[][3] = {{1, 1, 9}, {7, 1, 5}, {1, 6, 5}, {9, 8, 7},
                                        {70, 90, 80}, {5, 4, 0}, {130, 3, 300}};
    for (int backend = PT_BLAS_BLIS; backend <= PT_BLAS_PORTABLE; backend++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int t = 0; t < 2; t++) {
                CHECK(run_float64_case(backend, shapes[s][0], shapes[s][1], shapes[s][2], t, 1, 0));
                CHECK(run_float64_case(backend, shapes[s][0], shapes[s][1], shapes[s][2], t, 2, -3));
                CHECK(run_float64_case(backend, shapes[s][0], shapes[s][1], shapes[s][2], t, 0, 2));
            }
}

PT_TEST(linalg_portable_integers_wrap_and_complex_conjugates)
{
    int8_t a[3] = {100, 100, 100}, b[3] = {100, 100, 100}, c = 5;
    pt_gemm g = make_gemm(PT_INT8, 1, 1, 3);
    g.alpha.bytes[0] = 1;
    g.beta_zero = true;
    g.a = (const char *)a;
    g.csa = 1;
    g.b = (const char *)b;
    g.rsb = 1;
    g.c = (char *)&c;
    CHECK_OK(pt_gemm_portable(&g));
    CHECK(c == (int8_t)(30000 & 0xff)); /* 30000 mod 256 = 48 */
    double _Complex x[2] = {1 + 2 * I, 3 - 1 * I}, y[2] = {3 + 4 * I, -2 * I}, r = 0;
    double one = 1.0;
    pt_gemm h = make_gemm(PT_COMPLEX128, 1, 1, 2);
    memcpy(h.alpha.bytes, &one, sizeof one);
    h.beta_zero = h.conj_a = true;
    h.a = (const char *)x;
    h.csa = 1;
    h.b = (const char *)y;
    h.rsb = 1;
    h.c = (char *)&r;
    for (int backend = PT_BLAS_BLIS; backend <= PT_BLAS_PORTABLE; backend++) {
        int32_t old = pt_blas_set_backend(backend);
        CHECK_OK(pt_blas_gemm(&h));
        pt_blas_set_backend(old);
        double _Complex want = conj(x[0]) * y[0] + conj(x[1]) * y[1];
        CHECK(creal(r) == creal(want) && cimag(r) == cimag(want));
    }
}

PT_TEST(linalg_blis_stride_forms)
{
    int64_t rs = 5, cs = 1;
    CHECK(pt_blas_strides_ok(3, 5, &rs, &cs));
    rs = 1, cs = 3;
    CHECK(pt_blas_strides_ok(3, 5, &rs, &cs));
    rs = 0, cs = 1; /* expanded rows */
    CHECK(!pt_blas_strides_ok(3, 5, &rs, &cs));
    rs = 2, cs = 1; /* rows that overlap */
    CHECK(!pt_blas_strides_ok(3, 5, &rs, &cs));
    rs = -5, cs = 1; /* flipped rows: a contiguous copy (BLIS mishandles negative strides) */
    CHECK(!pt_blas_strides_ok(3, 5, &rs, &cs));
    rs = 0, cs = 7; /* one row: its row stride does not matter and is made valid */
    CHECK(pt_blas_strides_ok(1, 5, &rs, &cs) && rs == 35);
    rs = 0, cs = 0;
    CHECK(pt_blas_strides_ok(1, 1, &rs, &cs) && rs == 1 && cs == 1);
}

PT_TEST(linalg_backend_switch_reports_the_previous_backend)
{
    int32_t old = pt_blas_set_backend(PT_BLAS_PORTABLE);
    CHECK(pt_blas_backend() == PT_BLAS_PORTABLE);
    CHECK(pt_blas_set_backend(old) == PT_BLAS_PORTABLE);
    CHECK(pt_blas_backend() == old);
}

PT_TEST(linalg_fronts_give_meta_shapes_and_refuse_bad_input)
{
    int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s3[1] = {3};
    pt_tensor *a, *b, *v, *r = NULL, *ca;
    CHECK_OK(pt_tensor_empty(2, s23, PT_FLOAT32, META, &a));
    CHECK_OK(pt_tensor_empty(2, s34, PT_FLOAT32, META, &b));
    CHECK_OK(pt_tensor_empty(1, s3, PT_FLOAT64, CPU, &v));
    CHECK_OK(pt_tensor_empty(2, s23, PT_FLOAT32, CPU, &ca));
    CHECK_OK(pt_kernel_mm(a, b, &r));
    CHECK(r->device.type == PT_DEV_META && r->ndim == 2 && r->sizes[0] == 2 && r->sizes[1] == 4);
    pt_tensor_release(r);
    CHECK_ERR(pt_kernel_mm(b, a, &r), PT_ERR_RUNTIME,
              "mat1 and mat2 shapes cannot be multiplied (3x4 and 2x3)");
    CHECK_ERR(pt_kernel_mv(ca, v, &r), PT_ERR_RUNTIME,
              "addmv input tensors must have the same dtype, but got Double, Float, and Double");
    CHECK_ERR(pt_kernel_dot(v, NULL, &r), PT_ERR_VALUE, "dot: other must be a tensor");
    CHECK_ERR(pt_kernel_matmul(ca, v, &r), PT_ERR_RUNTIME, "addmv input tensors");
    pt_tensor_release(a);
    pt_tensor_release(b);
    pt_tensor_release(v);
    pt_tensor_release(ca);
}
