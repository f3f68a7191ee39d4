/* test_factory.c - arange, linspace and eye against elements printed by torch 2.x (bit patterns
 * for the floating types), and every argument error with torch's message. */
#include <math.h>

#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};

static pt_scalar I(int64_t v) { return (pt_scalar){PT_SCALAR_INT, v, 0, 0}; }
static pt_scalar F(double v) { return (pt_scalar){PT_SCALAR_FLOAT, 0, v, 0}; }

static pt_status arange(pt_scalar a, pt_scalar b, pt_scalar c, int32_t dtype, pt_tensor **out)
{
    return pt_tensor_arange(&a, &b, &c, dtype, CPU, out);
}

static pt_status linspace(pt_scalar a, pt_scalar b, int64_t steps, int32_t dtype, pt_tensor **out)
{
    return pt_tensor_linspace(&a, &b, steps, dtype, CPU, out);
}

/* A 1-d result equal to want (integers, or doubles compared exactly). */
static bool values_are(const pt_tensor *t, int64_t n, const double *want)
{
    if (t->ndim != 1 || t->sizes[0] != n) return false;
    for (int64_t i = 0; i < n; i++) {
        pt_scalar s;
        const char *p = (const char *)pt_tensor_data(t) + i * pt_dtype_itemsize(t->dtype);
        pt_dtype_scalar_from(t->dtype)(p, &s);
        double v = s.kind == PT_SCALAR_FLOAT ? s.re : (double)s.i;
        if (v != want[i]) return false;
    }
    return true;
}

/* The raw elements equal `want` (bit patterns of float16/bfloat16/float32 results). */
static bool bits_are(const pt_tensor *t, size_t nbytes, const void *want)
{
    return t->ndim == 1 && (size_t)(t->numel * pt_dtype_itemsize(t->dtype)) == nbytes &&
           memcmp(pt_tensor_data(t), want, nbytes) == 0;
}

#define EXPECT_VALUES(call, ...)                                                                   \
    do {                                                                                           \
        static const double want_[] = {__VA_ARGS__};                                               \
        pt_tensor *t_;                                                                             \
        CHECK_OK(call);                                                                            \
        bool ok_ = values_are(t_, sizeof want_ / sizeof want_[0], want_);                          \
        pt_tensor_release(t_);                                                                     \
        CHECK(ok_ && #call);                                                                       \
    } while (0)

#define EXPECT_BITS(call, T, ...)                                                                  \
    do {                                                                                           \
        static const T want_[] = {__VA_ARGS__};                                                    \
        pt_tensor *t_;                                                                             \
        CHECK_OK(call);                                                                            \
        bool ok_ = bits_are(t_, sizeof want_, want_);                            \
        pt_tensor_release(t_);                                                                     \
        CHECK(ok_ && #call);                                                                       \
    } while (0)

/* ---------------------------------------------------------------- arange */

PT_TEST(arange_int64_truncates_its_scalars_and_counts_exactly)
{
    EXPECT_VALUES(arange(I(0), I(5), I(1), PT_INT64, &t_), 0, 1, 2, 3, 4);
    EXPECT_VALUES(arange(I(1), I(-10), I(-3), PT_INT64, &t_), 1, -2, -5, -8);
    EXPECT_VALUES(arange(F(-1.5), I(3), I(1), PT_INT64, &t_), -1, 0, 1, 2);
    EXPECT_VALUES(arange(I(0), F(5.5), F(1.5), PT_INT64, &t_), 0, 1, 2, 3, 4);
    EXPECT_VALUES(arange(I(0), I(INT64_C(1) << 62), I(INT64_C(1) << 61), PT_INT64, &t_), 0,
                  (double)(INT64_C(1) << 61));
    /* beyond double's 53 bits the count and the elements stay exact */
    int64_t big = (INT64_C(1) << 53) + 1;
    pt_tensor *t;
    CHECK_OK(arange(I(big), I(big + 3), I(1), PT_INT64, &t));
    CHECK(t->sizes[0] == 3 && ((int64_t *)pt_tensor_data(t))[2] == big + 2);
    pt_tensor_release(t);
    CHECK_OK(arange(I(3), I(3), I(1), PT_INT64, &t));
    CHECK(t->ndim == 1 && t->sizes[0] == 0);
    pt_tensor_release(t);
}

PT_TEST(arange_narrow_integers_count_in_double_and_wrap)
{
    EXPECT_VALUES(arange(F(-1.5), I(3), I(1), PT_INT32, &t_), -1, 0, 1, 2, 3);
    EXPECT_VALUES(arange(I(0), F(5.5), F(1.5), PT_INT32, &t_), 0, 1, 2, 3);
    EXPECT_VALUES(arange(I(0), I(5), F(0.5), PT_INT32, &t_), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT_VALUES(arange(I(-5), I(5), I(3), PT_UINT8, &t_), 251, 254, 1, 4);
    EXPECT_VALUES(arange(F(0), F(1e10), F(1e9), PT_INT32, &t_), 0, 1000000000, 2000000000,
                  -1294967296, -294967296, 705032704, 1705032704, -1589934592, -589934592,
                  410065408);
    pt_tensor *t;
    CHECK_OK(arange(I(0), I(300), I(1), PT_UINT8, &t));
    CHECK(t->sizes[0] == 300 && ((uint8_t *)pt_tensor_data(t))[299] == 43);
    pt_tensor_release(t);
}

PT_TEST(arange_floating_matches_torch_bit_for_bit)
{
    EXPECT_BITS(arange(I(0), I(1), F(0.1), PT_FLOAT32, &t_), uint32_t, 0x00000000, 0x3dcccccd,
                0x3e4ccccd, 0x3e99999a, 0x3ecccccd, 0x3f000000, 0x3f19999a, 0x3f333333, 0x3f4ccccd,
                0x3f666666);
    EXPECT_VALUES(arange(I(0), I(1), F(0.1), PT_FLOAT64, &t_), 0.0, 0.1, 0.2, 0.30000000000000004,
                  0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9);
    EXPECT_BITS(arange(I(0), I(1), F(0.1), PT_FLOAT16, &t_), uint16_t, 0x0000, 0x2e66, 0x3266,
                0x34cd, 0x3666, 0x3800, 0x38cd, 0x399a, 0x3a66, 0x3b33);
    EXPECT_BITS(arange(I(0), I(1), F(0.1), PT_BFLOAT16, &t_), uint16_t, 0x0000, 0x3dcd, 0x3e4d,
                0x3e9a, 0x3ecd, 0x3f00, 0x3f1a, 0x3f33, 0x3f4d, 0x3f66);
    EXPECT_BITS(arange(I(0), I(70000), I(9000), PT_FLOAT16, &t_), uint16_t, 0x0000, 0x7065,
                0x7465, 0x7698, 0x7865, 0x797e, 0x7a98, 0x7bb1);
    EXPECT_VALUES(arange(I(-3), I(4), F(2.5), PT_FLOAT32, &t_), -3, -0.5, 2);
    EXPECT_VALUES(arange(F(1e300), F(-1e300), F(-1e300), PT_FLOAT32, &t_), INFINITY, 0);
}

PT_TEST(arange_refuses_bad_ranges_with_torchs_messages)
{
    pt_tensor *t;
    CHECK_ERR(arange(I(0), I(10), I(0), PT_INT64, &t), PT_ERR_VALUE, "step must be nonzero");
    CHECK_ERR(arange(I(0), I(10), F(NAN), PT_FLOAT32, &t), PT_ERR_VALUE, "step must be nonzero");
    CHECK_ERR(arange(I(0), I(5), F(0.5), PT_INT64, &t), PT_ERR_VALUE, "step must be nonzero");
    CHECK_ERR(arange(I(0), I(10), I(-1), PT_INT64, &t), PT_ERR_VALUE,
              "upper bound and lower bound inconsistent with step sign");
    CHECK_ERR(arange(I(10), I(0), F(0.5), PT_FLOAT32, &t), PT_ERR_VALUE,
              "inconsistent with step sign");
    CHECK_ERR(arange(I(0), F(INFINITY), I(1), PT_FLOAT32, &t), PT_ERR_VALUE,
              "unsupported range: 0 -> inf");
    CHECK_ERR(arange(F(NAN), I(1), I(1), PT_FLOAT32, &t), PT_ERR_VALUE,
              "unsupported range: nan -> 1");
    CHECK_ERR(arange(I(0), F(1e20), F(1e19), PT_INT64, &t), PT_ERR_RUNTIME,
              "value cannot be converted to type int64_t without overflow");
    CHECK_ERR(arange(I(0), F(1e300), F(1e-300), PT_FLOAT64, &t), PT_ERR_RUNTIME,
              "invalid size, possible overflow?");
    CHECK_ERR(arange(I(INT64_MIN), I(INT64_MAX), I(1), PT_INT64, &t), PT_ERR_RUNTIME,
              "invalid size, possible overflow?");
    CHECK_ERR(arange(I(0), F(1e40), F(1e39), PT_FLOAT16, &t), PT_ERR_RUNTIME,
              "to type float without overflow");
}

PT_TEST(arange_refuses_bool_complex_and_bad_scalars)
{
    pt_tensor *t;
    pt_scalar one = I(1), bad = {11, 0, 0, 0}, z = {PT_SCALAR_COMPLEX, 0, 1, 1};
    CHECK_ERR(arange(I(0), I(5), I(1), PT_BOOL, &t), PT_ERR_NOT_IMPLEMENTED,
              "\"arange\" not implemented for 'Bool'");
    CHECK_ERR(arange(I(0), I(5), I(1), PT_COMPLEX64, &t), PT_ERR_NOT_IMPLEMENTED, "'ComplexFloat'");
    CHECK_ERR(arange(I(0), z, I(1), PT_FLOAT32, &t), PT_ERR_NOT_IMPLEMENTED,
              "complex start, end or step");
    CHECK_ERR(arange(I(0), I(5), I(1), 77, &t), PT_ERR_VALUE, "dtype: unknown dtype id 77");
    CHECK_ERR(pt_tensor_arange(NULL, &one, &one, PT_FLOAT32, CPU, &t), PT_ERR_VALUE,
              "arange: start must be a number");
    CHECK_ERR(pt_tensor_arange(&one, &bad, &one, PT_FLOAT32, CPU, &t), PT_ERR_VALUE,
              "arange: end has unknown scalar kind 11");
}

PT_TEST(factories_on_meta_compute_the_shape_without_data)
{
    pt_scalar a = I(0), b = I(10), c = I(3);
    pt_tensor *t;
    const pt_device meta = {PT_DEV_META, 0};
    CHECK_OK(pt_tensor_arange(&a, &b, &c, PT_FLOAT32, meta, &t));
    CHECK(t->device.type == PT_DEV_META && t->sizes[0] == 4);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_linspace(&a, &b, 7, PT_INT32, meta, &t));
    CHECK(t->device.type == PT_DEV_META && t->sizes[0] == 7);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_eye(3, 5, PT_BOOL, meta, &t));
    CHECK(t->device.type == PT_DEV_META && t->sizes[0] == 3 && t->sizes[1] == 5);
    pt_tensor_release(t);
    CHECK_ERR(pt_tensor_eye(2, 2, PT_FLOAT32, (pt_device){PT_DEV_CPU, 5}, &t), PT_ERR_RUNTIME,
              "cpu:5");
}

/* ---------------------------------------------------------------- linspace */

PT_TEST(linspace_integers_step_in_double_from_both_ends)
{
    EXPECT_VALUES(linspace(I(0), I(10), 4, PT_INT64, &t_), 0, 3, 6, 10);
    EXPECT_VALUES(linspace(F(-5.5), I(10), 4, PT_INT64, &t_), -5, 0, 5, 10);
    EXPECT_VALUES(linspace(I(10), I(0), 4, PT_UINT8, &t_), 10, 6, 3, 0);
    EXPECT_VALUES(linspace(I(-7), I(12), 6, PT_INT32, &t_), -7, -3, 0, 4, 8, 12);
    EXPECT_VALUES(linspace(I(-7), I(12), 6, PT_INT8, &t_), -7, -3, 0, 4, 8, 12);
    EXPECT_VALUES(linspace(F(2.9), F(2.9), 3, PT_INT16, &t_), 2, 2, 2);
}

PT_TEST(linspace_floating_matches_torch_bit_for_bit_with_exact_endpoints)
{
    EXPECT_BITS(linspace(I(0), I(1), 7, PT_FLOAT32, &t_), uint32_t, 0x00000000, 0x3e2aaaab,
                0x3eaaaaab, 0x3f000000, 0x3f2aaaaa, 0x3f555555, 0x3f800000);
    EXPECT_BITS(linspace(F(-1.3), F(7.1), 11, PT_FLOAT32, &t_), uint32_t, 0xbfa66666, 0xbeeb851e,
                0x3ec28f5c, 0x3f9c28f6, 0x4003d70a, 0x4039999a, 0x406f5c29, 0x40928f5c,
                0x40ad70a4, 0x40c851eb, 0x40e33333);
    EXPECT_VALUES(linspace(F(-1.3), F(7.1), 11, PT_FLOAT64, &t_), -1.3, -0.45999999999999996,
                  0.3800000000000001, 1.2200000000000002 /* unfused: ...04 */, 2.0600000000000005,
                  2.8999999999999995,
                  3.7399999999999993, 4.579999999999999, 5.42, 6.26, 7.1);
    EXPECT_BITS(linspace(I(0), I(1), 7, PT_FLOAT16, &t_), uint16_t, 0x0000, 0x3155, 0x3555, 0x3800,
                0x3956, 0x3aab, 0x3c00);
    EXPECT_BITS(linspace(I(-3), I(100), 9, PT_FLOAT16, &t_), uint16_t, 0xc200, 0x48f0, 0x4db0,
                0x5074, 0x5210, 0x53ac, 0x54a4, 0x5572, 0x5640);
    EXPECT_BITS(linspace(I(0), I(1), 7, PT_BFLOAT16, &t_), uint16_t, 0x0000, 0x3e2b, 0x3eab, 0x3f00,
                0x3f2a, 0x3f55, 0x3f80);
    EXPECT_BITS(linspace(I(-3), I(100), 9, PT_BFLOAT16, &t_), uint16_t, 0xc040, 0x411e, 0x41b6,
                0x420e, 0x4242, 0x4276, 0x4294, 0x42ae, 0x42c8);
    EXPECT_VALUES(linspace(I(5), I(-5), 3, PT_FLOAT32, &t_), 5, 0, -5);
}

/* Elements where the unfused start + step * i differs from torch: one rounding, as in torch. */
PT_TEST(linspace_and_arange_round_once_like_torchs_fused_kernels)
{
    pt_tensor *t;
    CHECK_OK(linspace(F(0.1), F(9.7), 1000, PT_FLOAT64, &t));
    const double *d = pt_tensor_data(t);
    CHECK(d[9] == 0.1864864864864865 && d[13] == 0.2249249249249249 &&
          d[19] == 0.28258258258258256 && d[21] == 0.3018018018018018 &&
          d[22] == 0.31141141141141143 && d[24] == 0.33063063063063064 && d[999] == 9.7);
    pt_tensor_release(t);
    pt_scalar a = {PT_SCALAR_COMPLEX, 0, 0.1, -2.3}, b = {PT_SCALAR_COMPLEX, 0, 9.7, 1.1};
    CHECK_OK(linspace(a, b, 1000, PT_COMPLEX128, &t));
    d = pt_tensor_data(t);
    CHECK(d[6] == 0.12882882882882885 && d[7] == -2.2897897897897894);
    CHECK(d[14] == 0.16726726726726726 && d[15] == -2.276176176176176);
    CHECK(d[1000] == 4.9048048048048045 && d[1001] == -0.5982982982982982);
    CHECK(d[1996] == 9.69039039039039 && d[1997] == 1.0965965965965967);
    pt_tensor_release(t);
    CHECK_OK(linspace(a, b, 1000, PT_COMPLEX64, &t));
    const int32_t *w = pt_tensor_data(t);
    CHECK(w[6] == 1040444340 && w[7] == -1072526358 && w[14] == 1043023900 && w[15] == -1072583457);
    CHECK(w[1000] == 1084027946 && w[1001] == -1088869867);
    CHECK(w[1996] == 1092291543 && w[1997] == 1066163527);
    pt_tensor_release(t);
    EXPECT_VALUES(arange(F(-1.3), F(7.1), F(0.37), PT_FLOAT64, &t_), -1.3, -0.93, -0.56,
                  -0.19000000000000006, 0.17999999999999994, 0.5499999999999999, 0.9199999999999999,
                  1.29, 1.66, 2.03, 2.4, 2.77, 3.1399999999999997, 3.51, 3.88, 4.25, 4.62, 4.99,
                  5.359999999999999, 5.7299999999999995, 6.1, 6.47, 6.84);
}

PT_TEST(linspace_complex_steps_each_part)
{
    pt_scalar a = {PT_SCALAR_COMPLEX, 0, 1, 1}, b = {PT_SCALAR_COMPLEX, 0, 3, -2};
    EXPECT_BITS(linspace(a, b, 5, PT_COMPLEX64, &t_), uint32_t, 0x3f800000, 0x3f800000,
                0x3fc00000, 0x3e800000, 0x40000000, 0xbf000000, 0x40200000, 0xbfa00000,
                0x40400000, 0xc0000000);
    EXPECT_BITS(linspace(a, b, 5, PT_COMPLEX128, &t_), double, 1.0, 1.0, 1.5, 0.25, 2.0, -0.5, 2.5,
                -1.25, 3.0, -2.0);
    EXPECT_BITS(linspace(I(2), F(4), 2, PT_COMPLEX128, &t_), double, 2.0, 0.0, 4.0, 0.0);
}

PT_TEST(linspace_with_one_step_is_start_and_with_zero_is_empty)
{
    EXPECT_VALUES(linspace(F(0.25), I(9), 1, PT_FLOAT32, &t_), 0.25);
    EXPECT_VALUES(linspace(F(0.25), I(9), 1, PT_FLOAT16, &t_), 0.25);
    EXPECT_VALUES(linspace(I(-4), I(9), 1, PT_INT8, &t_), -4);
    pt_tensor *t;
    CHECK_OK(linspace(F(1e300), I(9), 0, PT_FLOAT32, &t)); /* nothing is converted */
    CHECK(t->ndim == 1 && t->sizes[0] == 0);
    pt_tensor_release(t);
}

PT_TEST(linspace_refuses_negative_steps_bool_and_overflowing_ends)
{
    pt_tensor *t;
    CHECK_ERR(linspace(I(0), I(1), -1, PT_FLOAT32, &t), PT_ERR_VALUE,
              "number of steps must be non-negative");
    CHECK_ERR(linspace(I(0), I(1), 5, PT_BOOL, &t), PT_ERR_NOT_IMPLEMENTED,
              "\"linspace\" not implemented for 'Bool'");
    CHECK_ERR(linspace(I(0), I(300), 3, PT_UINT8, &t), PT_ERR_RUNTIME,
              "value cannot be converted to type uint8_t without overflow");
    CHECK_ERR(linspace(I(0), F(1e300), 3, PT_FLOAT32, &t), PT_ERR_RUNTIME,
              "float without overflow");
    pt_scalar z = {PT_SCALAR_COMPLEX, 0, 1, 1};
    CHECK_ERR(linspace(z, I(1), 3, PT_FLOAT64, &t), PT_ERR_RUNTIME, "double without overflow");
    CHECK_ERR(pt_tensor_linspace(NULL, &z, 3, PT_FLOAT32, CPU, &t), PT_ERR_VALUE,
              "linspace: start must be a number");
}

/* ---------------------------------------------------------------- eye */

static pt_status eye_flat(int64_t n, int64_t m, int32_t dtype, pt_tensor **out)
{
    pt_tensor *t;
    PT_TRY(pt_tensor_eye(n, m, dtype, CPU, &t));
    pt_status st = pt_tensor_flatten(t, 0, -1, out);
    pt_tensor_release(t);
    return st;
}

PT_TEST(eye_puts_ones_on_the_main_diagonal_of_n_by_m)
{
    EXPECT_VALUES(eye_flat(2, 3, PT_FLOAT32, &t_), 1, 0, 0, 0, 1, 0);
    EXPECT_VALUES(eye_flat(3, 2, PT_INT64, &t_), 1, 0, 0, 1, 0, 0);
    EXPECT_VALUES(eye_flat(2, 2, PT_BOOL, &t_), 1, 0, 0, 1);
    EXPECT_BITS(eye_flat(2, 2, PT_COMPLEX64, &t_), float, 1, 0, 0, 0, 0, 0, 1, 0);
    EXPECT_BITS(eye_flat(1, 1, PT_FLOAT16, &t_), uint16_t, 0x3c00);
    pt_tensor *t;
    CHECK_OK(pt_tensor_eye(0, 3, PT_FLOAT32, CPU, &t));
    CHECK(t->ndim == 2 && t->sizes[0] == 0 && t->sizes[1] == 3);
    pt_tensor_release(t);
}

PT_TEST(eye_refuses_negative_sizes_and_opaque_dtypes)
{
    pt_tensor *t;
    CHECK_ERR(pt_tensor_eye(-1, 3, PT_FLOAT32, CPU, &t), PT_ERR_VALUE,
              "n must be greater or equal to 0, got -1");
    CHECK_ERR(pt_tensor_eye(2, -4, PT_FLOAT32, CPU, &t), PT_ERR_VALUE,
              "m must be greater or equal to 0, got -4");
    CHECK_ERR(pt_tensor_eye(2, 2, -2, CPU, &t), PT_ERR_VALUE, "dtype: unknown dtype id -2");
    int32_t opaque;
    CHECK_OK(pt_dtype_register("test_eye_pair", 2, 1, &opaque));
    CHECK_ERR(pt_tensor_eye(2, 2, opaque, CPU, &t), PT_ERR_NOT_IMPLEMENTED,
              "\"eye\" not implemented for 'test_eye_pair'");
}
