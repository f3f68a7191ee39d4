/* Random fills and randperm: every value against the Philox stream of Note [Philox stream]
 * (exact), reproducibility, offsets, strided views, moments over 10^6 draws, ranges, meta tensors
 * and every argument check. */
#include "pt_test.h"

#include "random_math.h"

#include <math.h>
#include <stdlib.h>

static const pt_device cpu = {PT_DEV_CPU, 0};

/* The four words of block `block` for `seed`: what element (block - first offset) receives. */
static void words(uint64_t seed, uint64_t block, uint32_t w[4])
{
    const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    pt_philox4x32_10(ctr, key, w);
}

static float expected_u01_f32(uint64_t seed, uint64_t block)
{
    uint32_t w[4];
    words(seed, block, w);
    return (float)(w[0] >> 8) * 0x1p-24f;
}

static double expected_u01_f64(uint64_t seed, uint64_t block)
{
    uint32_t w[4];
    words(seed, block, w);
    return (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
}

static pt_generator *seeded(uint64_t seed)
{
    pt_generator *g = NULL;
    if (pt_generator_new(cpu, &g) != PT_OK) return NULL;
    pt_generator_manual_seed(g, seed);
    return g;
}

static pt_tensor *empty1(int64_t n, int32_t dtype)
{
    pt_tensor *t = NULL;
    return pt_tensor_empty(1, &n, dtype, cpu, &t) == PT_OK ? t : NULL;
}

/* ---------------------------------------------------------------- exact values */
PT_TEST(uniform_float32_is_the_top_24_bits_of_each_elements_block)
{
    pt_generator *g = seeded(2024);
    pt_tensor *t = empty1(1000, PT_FLOAT32);
    CHECK(g && t);
    CHECK_OK(pt_tensor_uniform_(t, 0.0, 1.0, g));
    const float *v = pt_tensor_data(t);
    for (int i = 0; i < 1000; i++) CHECK(v[i] == expected_u01_f32(2024, (uint64_t)i));
    CHECK(pt_generator_offset(g) == 1000);
    CHECK_OK(pt_tensor_uniform_(t, 0.0, 1.0, g)); /* the next call continues the stream */
    for (int i = 0; i < 1000; i++) CHECK(v[i] == expected_u01_f32(2024, 1000 + (uint64_t)i));
    CHECK(pt_generator_offset(g) == 2000);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(uniform_float64_scales_53_bits_into_from_to)
{
    pt_generator *g = seeded(UINT64_C(0xfedcba9876543210));
    pt_tensor *t = empty1(500, PT_FLOAT64);
    CHECK(g && t);
    pt_generator_set_offset(g, UINT64_C(0xfffffffffffffff0)); /* the counter's high word carries */
    CHECK_OK(pt_tensor_uniform_(t, -2.0, 3.0, g));
    const double *v = pt_tensor_data(t);
    for (int i = 0; i < 500; i++) {
        const uint64_t block = UINT64_C(0xfffffffffffffff0) + (uint64_t)i;
        const double u = expected_u01_f64(UINT64_C(0xfedcba9876543210), block);
        CHECK(v[i] == u * 5.0 + -2.0);
        CHECK(v[i] >= -2.0 && v[i] < 3.0);
    }
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(uniform_float16_and_bfloat16_round_the_float32_value)
{
    pt_generator *g = seeded(7);
    pt_tensor *h = empty1(300, PT_FLOAT16), *b = empty1(300, PT_BFLOAT16);
    CHECK(g && h && b);
    CHECK_OK(pt_tensor_uniform_(h, 0.0, 1.0, g));
    CHECK_OK(pt_tensor_uniform_(b, 0.0, 1.0, g));
    const uint16_t *hv = pt_tensor_data(h), *bv = pt_tensor_data(b);
    for (int i = 0; i < 300; i++) {
        uint16_t eh = pt_float_to_half(expected_u01_f32(7, (uint64_t)i));
        if (pt_half_to_float(eh) >= 1.0f) eh = pt_float_to_half(0.0f);
        CHECK(hv[i] == eh);
        uint16_t eb = pt_float_to_bfloat16(expected_u01_f32(7, 300 + (uint64_t)i));
        if (pt_bfloat16_to_float(eb) >= 1.0f) eb = pt_float_to_bfloat16(0.0f);
        CHECK(bv[i] == eb);
    }
    pt_tensor_release(h);
    pt_tensor_release(b);
    pt_generator_release(g);
}

PT_TEST(random_int64_is_from_plus_64_bits_modulo_the_range)
{
    pt_generator *g = seeded(99);
    pt_tensor *t = empty1(1000, PT_INT64);
    CHECK(g && t);
    CHECK_OK(pt_tensor_random_(t, -5, 7, g));
    const int64_t *v = pt_tensor_data(t);
    for (int i = 0; i < 1000; i++) {
        uint32_t w[4];
        words(99, (uint64_t)i, w);
        const uint64_t x = ((uint64_t)w[1] << 32) | w[0];
        CHECK(v[i] == -5 + (int64_t)(x % 12));
    }
    pt_tensor_release(t);
    pt_generator_release(g);
}

/* Element e of a float64 normal_ is the cosine (e even) or sine (e odd) normal of block e / 2:
 * u1 = 1 - u53(w0, w1), u2 = u53(w2, w3). Exactly random_math.h's arithmetic, and within a few
 * ulp of libm's. */
PT_TEST(normal_float64_is_both_box_muller_normals_of_each_block)
{
    pt_generator *g = seeded(31337);
    pt_tensor *t = empty1(201, PT_FLOAT64);
    CHECK(g && t);
    CHECK_OK(pt_tensor_normal_(t, 1.5, 0.25, g));
    CHECK(pt_generator_offset(g) == 101);
    const double *v = pt_tensor_data(t);
    for (int i = 0; i < 201; i++) {
        uint32_t w[4];
        words(31337, (uint64_t)i / 2, w);
        double z[2];
        pt_rm_box_muller_f64(w, &z[0], &z[1]);
        CHECK(v[i] == 1.5 + 0.25 * z[i % 2]);
        const double u1 = 1.0 - (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
        const double u2 = (double)((((uint64_t)w[2] << 32) | w[3]) >> 11) * 0x1p-53;
        const double a = 6.283185307179586 * u2, r = sqrt(-2.0 * log(u1));
        CHECK(fabs(z[i % 2] - r * (i % 2 ? sin(a) : cos(a))) <= 1e-14 * (1.0 + r));
    }
    pt_tensor_release(t);
    pt_generator_release(g);
}

/* Element e of a float32 normal_ comes from block e / 4: e % 4 = 0, 1 are the cosine and sine
 * normals of words 0-1, 2 and 3 those of words 2-3. */
PT_TEST(normal_float32_is_four_box_muller_normals_of_each_block)
{
    pt_generator *g = seeded(77);
    pt_tensor *t = empty1(403, PT_FLOAT32);
    CHECK(g && t);
    pt_generator_set_offset(g, 9);
    CHECK_OK(pt_tensor_normal_(t, -1.0, 3.0, g));
    CHECK(pt_generator_offset(g) == 9 + 101);
    const float *v = pt_tensor_data(t);
    for (int i = 0; i < 403; i++) {
        uint32_t w[4];
        words(77, 9 + (uint64_t)i / 4, w);
        float z[4];
        pt_rm_box_muller_f32(w[0], w[1], &z[0], &z[1]);
        pt_rm_box_muller_f32(w[2], w[3], &z[2], &z[3]);
        CHECK(v[i] == -1.0f + 3.0f * z[i % 4]);
        const int p = i % 4 / 2;
        const double u1 = 1.0 - (double)(w[2 * p] >> 8) * 0x1p-24;
        const double a = 6.283185307179586 * (double)(w[2 * p + 1] >> 8) * 0x1p-24;
        const double r = sqrt(-2.0 * log(u1)), want = r * (i % 2 ? sin(a) : cos(a));
        CHECK(fabs(z[i % 4] - want) <= 4e-7 * (1.0 + r));
    }
    pt_tensor_release(t);
    pt_generator_release(g);
}

/* A fill that starts or ends inside a block, and a strided view: every element still gets the
 * value of its row-major index. */
PT_TEST(normal_elements_do_not_depend_on_where_a_row_starts)
{
    const int32_t dtypes[] = {PT_FLOAT32, PT_FLOAT64};
    for (int d = 0; d < 2; d++) {
        const int32_t dtype = dtypes[d];
        pt_generator *g = seeded(2718);
        pt_tensor *whole = empty1(301, dtype);
        CHECK(g && whole);
        CHECK_OK(pt_tensor_normal_(whole, 0.0, 1.0, g));
        const size_t item = (size_t)pt_dtype_itemsize(dtype);
        /* A 7 x 43 tensor transposed: its rows are strided, and its row-major order is
         * the transpose's. */
        int64_t sizes[2] = {43, 7};
        pt_tensor *base = NULL, *tr = NULL;
        CHECK_OK(pt_tensor_empty(2, sizes, dtype, cpu, &base));
        CHECK_OK(pt_tensor_transpose(base, 0, 1, &tr));
        pt_generator_manual_seed(g, 2718);
        CHECK_OK(pt_tensor_normal_(tr, 0.0, 1.0, g));
        const char *b = pt_tensor_data(base), *w = pt_tensor_data(whole);
        for (int i = 0; i < 7; i++)
            for (int j = 0; j < 43; j++)
                CHECK(memcmp(b + (size_t)(j * 7 + i) * item, w + (size_t)(i * 43 + j) * item,
                             item) == 0);
        pt_tensor_release(tr);
        pt_tensor_release(base);
        pt_tensor_release(whole);
        pt_generator_release(g);
    }
}

/* Every CPU capability this machine has computes normal_'s bits of the default one. */
PT_TEST(normal_is_the_same_under_every_cpu_capability)
{
    const int32_t in_use = pt_cpu_capability();
    for (int32_t dtype = PT_FLOAT16; dtype <= PT_FLOAT64; dtype++) {
        const int64_t n = 1000;
        const size_t bytes = (size_t)n * (size_t)pt_dtype_itemsize(dtype);
        char *want = malloc(bytes);
        CHECK(want);
        for (int32_t cap = PT_CPU_DEFAULT; cap <= pt_cpu_capability_detected(); cap++) {
            CHECK_OK(pt_cpu_capability_select(cap));
            pt_generator *g = seeded(4242);
            pt_tensor *t = empty1(n, dtype);
            CHECK(g && t);
            pt_generator_set_offset(g, 3);
            CHECK_OK(pt_tensor_normal_(t, 0.5, 2.0, g));
            if (cap == PT_CPU_DEFAULT) memcpy(want, pt_tensor_data(t), bytes);
            else CHECK(memcmp(want, pt_tensor_data(t), bytes) == 0);
            pt_tensor_release(t);
            pt_generator_release(g);
        }
        free(want);
    }
    CHECK_OK(pt_cpu_capability_select(in_use));
}

PT_TEST(random_fills_are_reproducible_for_one_seed)
{
    for (int32_t dtype = PT_BOOL; dtype <= PT_FLOAT64; dtype++) {
        pt_generator *g = seeded(5);
        pt_tensor *a = empty1(4096, dtype), *b = empty1(4096, dtype);
        CHECK(g && a && b);
        const int floating = dtype >= PT_FLOAT16;
        CHECK_OK(floating ? pt_tensor_normal_(a, 0, 1, g) : pt_tensor_random_(a, 0, 2, g));
        pt_generator_manual_seed(g, 5);
        CHECK_OK(floating ? pt_tensor_normal_(b, 0, 1, g) : pt_tensor_random_(b, 0, 2, g));
        CHECK(memcmp(pt_tensor_data(a), pt_tensor_data(b),
                     4096 * (size_t)pt_dtype_itemsize(dtype)) == 0);
        pt_tensor_release(a);
        pt_tensor_release(b);
        pt_generator_release(g);
    }
}

PT_TEST(random_null_generator_draws_from_the_default_cpu_generator)
{
    pt_generator *def, *g = seeded(42);
    CHECK_OK(pt_generator_default(cpu, &def));
    pt_generator_manual_seed(def, 42);
    pt_tensor *a = empty1(64, PT_FLOAT32), *b = empty1(64, PT_FLOAT32);
    CHECK(g && a && b);
    CHECK_OK(pt_tensor_uniform_(a, 0, 1, NULL));
    CHECK_OK(pt_tensor_uniform_(b, 0, 1, g));
    CHECK(memcmp(pt_tensor_data(a), pt_tensor_data(b), 64 * sizeof(float)) == 0);
    CHECK(pt_generator_offset(def) == 64);
    pt_tensor_release(a);
    pt_tensor_release(b);
    pt_generator_release(g);
    pt_generator_release(def);
}

/* ---------------------------------------------------------------- strided views */
/* A 3 x 4 x 5 float32 view with strides (2, 30, 6) and offset 3 in a 128-element storage: no two
 * elements share memory and no dimension is adjacent to another. */
static pt_tensor *gappy_view(pt_storage **storage)
{
    pt_tensor *t = NULL;
    if (pt_storage_new(128 * 4, PT_FLOAT32, cpu, 0, storage) != PT_OK) return NULL;
    const int64_t sizes[3] = {3, 4, 5}, strides[3] = {2, 30, 6};
    if (pt_tensor_from_storage(*storage, PT_FLOAT32, 3, sizes, strides, 3, &t) != PT_OK) return NULL;
    return t;
}

PT_TEST(random_fill_of_a_strided_view_matches_a_contiguous_one_in_row_major_order)
{
    pt_storage *s = NULL;
    pt_tensor *view = gappy_view(&s);
    const int64_t sizes[3] = {3, 4, 5};
    pt_tensor *dense = NULL;
    CHECK(view);
    CHECK_OK(pt_tensor_empty(3, sizes, PT_FLOAT32, cpu, &dense));
    pt_generator *g = seeded(11);
    CHECK_OK(pt_tensor_normal_(view, 0, 1, g));
    pt_generator_manual_seed(g, 11);
    CHECK_OK(pt_tensor_normal_(dense, 0, 1, g));
    const float *base = (const float *)pt_storage_data(s) + 3, *d = pt_tensor_data(dense);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 5; c++)
                CHECK(base[2 * a + 30 * b + 6 * c] == d[(a * 4 + b) * 5 + c]);
    pt_tensor_release(view);
    pt_tensor_release(dense);
    pt_storage_release(s);
    pt_generator_release(g);
}

PT_TEST(random_fill_of_a_reversed_view_counts_elements_from_its_first)
{
    pt_storage *s;
    CHECK_OK(pt_storage_new(10 * 8, PT_INT64, cpu, 0, &s));
    const int64_t size = 10, stride = -1;
    pt_tensor *rev;
    CHECK_OK(pt_tensor_from_storage(s, PT_INT64, 1, &size, &stride, 9, &rev));
    pt_generator *g = seeded(3);
    CHECK_OK(pt_tensor_random_(rev, 0, 1000, g));
    const int64_t *mem = pt_storage_data(s);
    for (int i = 0; i < 10; i++) {
        uint32_t w[4];
        words(3, (uint64_t)i, w);
        CHECK(mem[9 - i] == (int64_t)((((uint64_t)w[1] << 32) | w[0]) % 1000));
    }
    pt_tensor_release(rev);
    pt_storage_release(s);
    pt_generator_release(g);
}

PT_TEST(random_fill_of_a_scalar_and_of_an_empty_tensor)
{
    pt_generator *g = seeded(8);
    pt_tensor *scalar = NULL, *none = NULL;
    CHECK_OK(pt_tensor_empty(0, NULL, PT_FLOAT32, cpu, &scalar));
    const int64_t zero_sizes[2] = {3, 0};
    CHECK_OK(pt_tensor_empty(2, zero_sizes, PT_FLOAT32, cpu, &none));
    CHECK_OK(pt_tensor_uniform_(scalar, 0, 1, g));
    CHECK(*(const float *)pt_tensor_data(scalar) == expected_u01_f32(8, 0));
    CHECK_OK(pt_tensor_uniform_(none, 0, 1, g));
    CHECK(pt_generator_offset(g) == 1);
    pt_tensor_release(scalar);
    pt_tensor_release(none);
    pt_generator_release(g);
}

PT_TEST(random_large_fill_matches_the_stream_at_every_element)
{
    /* Big enough for the multi-threaded path when OpenMP is on: threads split the elements. */
    const int64_t n = 300001;
    pt_generator *g = seeded(77);
    pt_tensor *t = empty1(n, PT_FLOAT32);
    CHECK(g && t);
    pt_generator_set_offset(g, 5);
    CHECK_OK(pt_tensor_uniform_(t, 0, 1, g));
    const float *v = pt_tensor_data(t);
    for (int64_t i = 0; i < n; i++) CHECK(v[i] == expected_u01_f32(77, 5 + (uint64_t)i));
    pt_tensor_release(t);
    pt_generator_release(g);
}

/* ---------------------------------------------------------------- moments and ranges */
static void moments_f32(const float *v, int64_t n, double *mean, double *var)
{
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++) s += v[i];
    *mean = s / (double)n;
    for (int64_t i = 0; i < n; i++) s2 += (v[i] - *mean) * (v[i] - *mean);
    *var = s2 / (double)(n - 1);
}

enum { MOMENT_N = 1000000 };

/* Bounds: standard errors at n = 10^6 are 0.001 (mean) and 0.0014 (variance) for N(0, 1), and
 * 0.0003 / 0.00009 for U(0, 1); the bounds sit 7 to 10 standard errors out. */
PT_TEST(normal_float32_has_the_asked_mean_and_variance)
{
    pt_generator *g = seeded(1);
    pt_tensor *t = empty1(MOMENT_N, PT_FLOAT32);
    CHECK(g && t);
    CHECK_OK(pt_tensor_normal_(t, 0.0, 1.0, g));
    double mean, var;
    moments_f32(pt_tensor_data(t), MOMENT_N, &mean, &var);
    CHECK(fabs(mean) < 0.01);
    CHECK(fabs(var - 1.0) < 0.01);
    CHECK_OK(pt_tensor_normal_(t, 3.0, 2.0, g));
    moments_f32(pt_tensor_data(t), MOMENT_N, &mean, &var);
    CHECK(fabs(mean - 3.0) < 0.02);
    CHECK(fabs(var - 4.0) < 0.04);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(normal_float64_has_the_asked_mean_and_variance)
{
    pt_generator *g = seeded(2);
    pt_tensor *t = empty1(MOMENT_N, PT_FLOAT64);
    CHECK(g && t);
    CHECK_OK(pt_tensor_normal_(t, -1.0, 0.5, g));
    const double *v = pt_tensor_data(t);
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < MOMENT_N; i++) s += v[i];
    const double mean = s / MOMENT_N;
    for (int64_t i = 0; i < MOMENT_N; i++) s2 += (v[i] - mean) * (v[i] - mean);
    CHECK(fabs(mean + 1.0) < 0.005);
    CHECK(fabs(s2 / (MOMENT_N - 1) - 0.25) < 0.0025);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(normal_with_std_zero_is_the_mean)
{
    pt_generator *g = seeded(2);
    pt_tensor *t = empty1(100, PT_FLOAT32);
    CHECK(g && t);
    CHECK_OK(pt_tensor_normal_(t, 4.25, 0.0, g));
    const float *v = pt_tensor_data(t);
    for (int i = 0; i < 100; i++) CHECK(v[i] == 4.25f);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(uniform_float32_has_uniform_moments_and_stays_in_from_to)
{
    pt_generator *g = seeded(3);
    pt_tensor *t = empty1(MOMENT_N, PT_FLOAT32);
    CHECK(g && t);
    CHECK_OK(pt_tensor_uniform_(t, 0.0, 1.0, g));
    const float *v = pt_tensor_data(t);
    double mean, var;
    moments_f32(v, MOMENT_N, &mean, &var);
    CHECK(fabs(mean - 0.5) < 0.003);
    CHECK(fabs(var - 1.0 / 12.0) < 0.001);
    CHECK_OK(pt_tensor_uniform_(t, 10.0, 10.0009765625, g)); /* a range of 2^-10 near 10 */
    for (int64_t i = 0; i < MOMENT_N; i++) CHECK(v[i] >= 10.0f && v[i] < 10.0009765625f);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(uniform_with_from_equal_to_to_is_from)
{
    pt_generator *g = seeded(3);
    pt_tensor *t = empty1(50, PT_FLOAT64);
    CHECK(g && t);
    CHECK_OK(pt_tensor_uniform_(t, 2.5, 2.5, g));
    const double *v = pt_tensor_data(t);
    for (int i = 0; i < 50; i++) CHECK(v[i] == 2.5);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(uniform_bfloat16_never_rounds_up_to_to)
{
    /* bfloat16 keeps 8 significant bits: every draw in [1 - 2^-9, 1) rounds to 1.0 */
    pt_generator *g = seeded(4);
    pt_tensor *t = empty1(200000, PT_BFLOAT16);
    CHECK(g && t);
    CHECK_OK(pt_tensor_uniform_(t, 0.0, 1.0, g));
    const uint16_t *v = pt_tensor_data(t);
    for (int i = 0; i < 200000; i++) {
        const float f = pt_bfloat16_to_float(v[i]);
        CHECK(f >= 0.0f && f < 1.0f);
    }
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(random_integers_cover_their_range_and_stay_inside)
{
    pt_generator *g = seeded(6);
    pt_tensor *t = empty1(100000, PT_INT8);
    CHECK(g && t);
    CHECK_OK(pt_tensor_random_(t, -128, 128, g));
    int seen[256] = {0};
    const int8_t *v = pt_tensor_data(t);
    for (int i = 0; i < 100000; i++) seen[v[i] + 128]++;
    for (int k = 0; k < 256; k++) CHECK(seen[k] > 0);
    pt_tensor_release(t);

    t = empty1(1000, PT_BOOL);
    CHECK(t);
    CHECK_OK(pt_tensor_random_(t, 0, 2, g));
    const uint8_t *b = pt_tensor_data(t);
    int ones = 0;
    for (int i = 0; i < 1000; i++) {
        CHECK(b[i] == 0 || b[i] == 1);
        ones += b[i];
    }
    CHECK(ones > 400 && ones < 600); /* 6 standard deviations */
    pt_tensor_release(t);

    t = empty1(10000, PT_INT64);
    CHECK(t);
    CHECK_OK(pt_tensor_random_(t, INT64_MIN, INT64_MAX, g));
    const int64_t *w = pt_tensor_data(t);
    int negative = 0;
    for (int i = 0; i < 10000; i++) {
        CHECK(w[i] != INT64_MAX);
        negative += w[i] < 0;
    }
    CHECK(negative > 4500 && negative < 5500);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(random_on_floating_dtypes_writes_integers_in_range)
{
    pt_generator *g = seeded(10);
    const int32_t dtypes[4] = {PT_FLOAT16, PT_BFLOAT16, PT_FLOAT32, PT_FLOAT64};
    for (int k = 0; k < 4; k++) {
        pt_tensor *t = empty1(2000, dtypes[k]);
        CHECK(t);
        CHECK_OK(pt_tensor_random_(t, -3, 10, g));
        for (int i = 0; i < 2000; i++) {
            const char *p = (const char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtypes[k]);
            double x = dtypes[k] == PT_FLOAT16    ? pt_half_to_float(*(const uint16_t *)p)
                       : dtypes[k] == PT_BFLOAT16 ? pt_bfloat16_to_float(*(const uint16_t *)p)
                       : dtypes[k] == PT_FLOAT32  ? *(const float *)p
                                                  : *(const double *)p;
            CHECK(x == floor(x) && x >= -3 && x < 10);
        }
        pt_tensor_release(t);
    }
    pt_generator_release(g);
}

/* ---------------------------------------------------------------- randperm */
PT_TEST(randperm_is_fisher_yates_over_the_stream)
{
    pt_generator *g = seeded(12);
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_randperm(50, PT_INT64, cpu, g, &t));
    CHECK(pt_generator_offset(g) == 50);
    int64_t expect[50];
    for (int i = 0; i < 50; i++) expect[i] = i;
    for (int s = 0; s < 49; s++) {
        const int i = 49 - s;
        uint32_t w[4];
        words(12, (uint64_t)s, w);
        const int j = (int)((((uint64_t)w[1] << 32) | w[0]) % (uint64_t)(i + 1));
        const int64_t tmp = expect[i];
        expect[i] = expect[j];
        expect[j] = tmp;
    }
    CHECK(memcmp(pt_tensor_data(t), expect, sizeof expect) == 0);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(randperm_is_a_permutation_in_every_dtype)
{
    const int32_t dtypes[5] = {PT_INT64, PT_INT32, PT_INT16, PT_FLOAT32, PT_FLOAT64};
    for (int k = 0; k < 5; k++) {
        pt_generator *g = seeded(13);
        pt_tensor *t = NULL, *ref = NULL;
        CHECK_OK(pt_tensor_randperm(1000, dtypes[k], cpu, g, &t));
        pt_generator_manual_seed(g, 13);
        CHECK_OK(pt_tensor_randperm(1000, PT_INT64, cpu, g, &ref));
        CHECK(pt_tensor_dtype(t) == dtypes[k]);
        CHECK(pt_tensor_numel(t) == 1000);
        int seen[1000] = {0};
        const int64_t *r = pt_tensor_data(ref);
        for (int i = 0; i < 1000; i++) {
            pt_scalar s;
            pt_dtype_scalar_from(dtypes[k])((const char *)pt_tensor_data(t) +
                                                i * pt_dtype_itemsize(dtypes[k]),
                                            &s);
            const int64_t x = s.kind == PT_SCALAR_INT ? s.i : (int64_t)s.re;
            CHECK(x == r[i]);
            CHECK(x >= 0 && x < 1000);
            seen[x]++;
        }
        for (int i = 0; i < 1000; i++) CHECK(seen[i] == 1);
        pt_tensor_release(t);
        pt_tensor_release(ref);
        pt_generator_release(g);
    }
}

PT_TEST(randperm_of_zero_and_one)
{
    pt_generator *g = seeded(1);
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_randperm(0, PT_INT64, cpu, g, &t));
    CHECK(pt_tensor_numel(t) == 0);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_randperm(1, PT_UINT8, cpu, g, &t));
    CHECK(*(const uint8_t *)pt_tensor_data(t) == 0);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_randperm(256, PT_UINT8, cpu, g, &t)); /* 255 is the largest value */
    pt_tensor_release(t);
    pt_generator_release(g);
}

/* ---------------------------------------------------------------- meta tensors */
PT_TEST(random_fills_of_meta_tensors_do_nothing_and_draw_nothing)
{
    pt_generator *g = seeded(1);
    const int64_t n = 1000;
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(1, &n, PT_FLOAT32, (pt_device){PT_DEV_META, 0}, &t));
    CHECK_OK(pt_tensor_uniform_(t, 0, 1, g));
    CHECK_OK(pt_tensor_normal_(t, 0, 1, NULL));
    CHECK_OK(pt_tensor_random_(t, 0, 5, g));
    CHECK(pt_generator_offset(g) == 0);
    CHECK_ERR(pt_tensor_normal_(t, 0, -1, g), PT_ERR_VALUE, "std >= 0.0"); /* still checked */
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_randperm(10, PT_INT64, (pt_device){PT_DEV_META, 0}, g, &t));
    CHECK(pt_tensor_device(t).type == PT_DEV_META);
    CHECK(pt_tensor_numel(t) == 10);
    CHECK(pt_generator_offset(g) == 0);
    pt_tensor_release(t);
    pt_generator_release(g);
}

/* ---------------------------------------------------------------- argument checks */
PT_TEST(uniform_and_normal_refuse_integers_and_take_complex_through_the_real_view)
{
    pt_tensor *t = empty1(4, PT_INT64), *c = empty1(4, PT_COMPLEX64);
    CHECK(t && c);
    CHECK_ERR(pt_tensor_uniform_(t, 0, 1, NULL), PT_ERR_TYPE,
              "uniform_ expects a floating point dtype, but got int64");
    CHECK_ERR(pt_tensor_normal_(t, 0, 1, NULL), PT_ERR_TYPE,
              "normal_ expects a floating point dtype, but got int64");
    /* complex draws through the real view: both parts in [0, 1) */
    CHECK_OK(pt_tensor_uniform_(c, 0, 1, NULL));
    const float *v = pt_tensor_data(c);
    for (int i = 0; i < 8; i++) CHECK(v[i] >= 0.0f && v[i] < 1.0f);
    CHECK_OK(pt_tensor_normal_(c, 0, 1, NULL));
    CHECK_ERR(pt_tensor_random_(c, 0, 1, NULL), PT_ERR_TYPE,
              "random_ expects an integer, bool or floating dtype, but got complex64");
    pt_tensor_release(t);
    pt_tensor_release(c);
}

PT_TEST(uniform_refuses_from_above_to_and_ranges_beyond_the_dtype)
{
    pt_tensor *t = empty1(4, PT_FLOAT32), *h = empty1(4, PT_FLOAT16);
    CHECK(t && h);
    CHECK_ERR(pt_tensor_uniform_(t, 2, 1, NULL), PT_ERR_VALUE,
              "uniform_ expects to return values in [from, to), but found from=2 > to=1");
    CHECK_ERR(pt_tensor_uniform_(t, NAN, 1, NULL), PT_ERR_VALUE, "from=nan");
    CHECK_ERR(pt_tensor_uniform_(h, -40000, 40000, NULL), PT_ERR_VALUE,
              "uniform_ expects to-from <= the largest float16");
    CHECK_ERR(pt_tensor_uniform_(t, -INFINITY, 0, NULL), PT_ERR_VALUE, "exceed the limit");
    CHECK_OK(pt_tensor_uniform_(h, -30000, 30000, NULL));
    pt_tensor_release(t);
    pt_tensor_release(h);
}

PT_TEST(normal_refuses_a_negative_std)
{
    pt_tensor *t = empty1(4, PT_FLOAT32);
    CHECK(t);
    CHECK_ERR(pt_tensor_normal_(t, 0, -1, NULL), PT_ERR_VALUE,
              "normal expects std >= 0.0, but found std -1");
    CHECK_ERR(pt_tensor_normal_(t, 0, NAN, NULL), PT_ERR_VALUE, "found std nan");
    pt_tensor_release(t);
}

PT_TEST(random_refuses_empty_ranges_and_values_the_dtype_cannot_hold)
{
    pt_tensor *t = empty1(4, PT_UINT8), *f = empty1(4, PT_FLOAT16), *b = empty1(4, PT_BOOL);
    CHECK(t && f && b);
    CHECK_ERR(pt_tensor_random_(t, 5, 5, NULL), PT_ERR_VALUE,
              "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
    CHECK_ERR(pt_tensor_random_(t, -1, 5, NULL), PT_ERR_VALUE,
              "random_: from=-1 is out of bounds for uint8");
    CHECK_ERR(pt_tensor_random_(t, 0, 257, NULL), PT_ERR_VALUE,
              "random_: to - 1=256 is out of bounds for uint8");
    CHECK_OK(pt_tensor_random_(t, 0, 256, NULL));
    CHECK_ERR(pt_tensor_random_(f, 0, 2050, NULL), PT_ERR_VALUE, "out of bounds for float16");
    CHECK_OK(pt_tensor_random_(f, -2048, 2049, NULL)); /* 2^11: the largest exact integer */
    CHECK_ERR(pt_tensor_random_(b, 0, 3, NULL), PT_ERR_VALUE, "out of bounds for bool");
    pt_tensor_release(t);
    pt_tensor_release(f);
    pt_tensor_release(b);
}

PT_TEST(randperm_refuses_bad_n_and_dtypes)
{
    pt_tensor *t = NULL;
    CHECK_ERR(pt_tensor_randperm(-1, PT_INT64, cpu, NULL, &t), PT_ERR_VALUE,
              "randperm: n must be non-negative, got -1");
    CHECK_ERR(pt_tensor_randperm(3, PT_BOOL, cpu, NULL, &t), PT_ERR_TYPE,
              "randperm: expected an integer or floating dtype, but got bool");
    CHECK_ERR(pt_tensor_randperm(3, PT_COMPLEX128, cpu, NULL, &t), PT_ERR_TYPE, "complex128");
    CHECK_ERR(pt_tensor_randperm(3, 999, cpu, NULL, &t), PT_ERR_VALUE, "dtype");
    CHECK_ERR(pt_tensor_randperm(257, PT_UINT8, cpu, NULL, &t), PT_ERR_VALUE,
              "randperm: n=257 is too large for uint8");
    CHECK_ERR(pt_tensor_randperm(2050, PT_FLOAT16, cpu, NULL, &t), PT_ERR_VALUE,
              "too large for float16");
    CHECK(t == NULL);
}

/* A generator of another device type, built by hand: no CUDA backend is needed to test the check. */
PT_TEST(random_refuses_a_generator_of_another_device_type)
{
    pt_generator fake;
    atomic_init(&fake.refcount, 1);
    atomic_init(&fake.offset, 0);
    fake.device = (pt_device){PT_DEV_CUDA, 0};
    fake.seed = 1;
    pt_tensor *t = empty1(4, PT_FLOAT32), *p = NULL;
    CHECK(t);
    CHECK_ERR(pt_tensor_uniform_(t, 0, 1, &fake), PT_ERR_RUNTIME,
              "Expected a 'cpu' device type for generator but found 'cuda'");
    CHECK_ERR(pt_tensor_randperm(4, PT_INT64, cpu, &fake, &p), PT_ERR_RUNTIME,
              "Expected a 'cpu' device type");
    CHECK(atomic_load(&fake.refcount) == 1);
    CHECK(atomic_load(&fake.offset) == 0);
    pt_tensor_release(t);
}

static void no_delete(void *ctx) { PT_UNUSED(ctx); }

PT_TEST(random_refuses_read_only_memory)
{
    static float data[8];
    pt_storage *s;
    CHECK_OK(pt_storage_from_external(data, sizeof data, PT_FLOAT32, cpu, no_delete, NULL, 0, &s));
    const int64_t n = 8;
    pt_tensor *t;
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 1, &n, NULL, 0, &t));
    CHECK_ERR(pt_tensor_uniform_(t, 0, 1, NULL), PT_ERR_RUNTIME,
              "uniform_: the tensor's memory is read-only");
    for (int i = 0; i < 8; i++) CHECK(data[i] == 0.0f);
    pt_tensor_release(t);
    pt_storage_release(s);
}

PT_TEST(random_refuses_layouts_other_than_strided)
{
    pt_tensor *t = empty1(4, PT_FLOAT32);
    CHECK(t);
    t->layout = PT_LAYOUT_SPARSE_COO; /* no sparse constructor yet: set the field directly */
    pt_status st = pt_tensor_normal_(t, 0, 1, NULL);
    t->layout = PT_LAYOUT_STRIDED;
    CHECK(st == PT_ERR_NOT_IMPLEMENTED);
    CHECK(strstr(pt_error_message(), "normal_: only strided tensors") != NULL);
    pt_tensor_release(t);
}
