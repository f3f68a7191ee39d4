/* test_binary.c - add, sub and mul: results against exact arithmetic for every dtype (integer
 * wrapping, float16/bfloat16 rounded once from float32, complex products), broadcasting over 0-d,
 * empty, expanded and flipped operands, torch's promotion table with wrapped numbers and the
 * default dtype, alpha rules, in-place and out= rules, memory overlap, the layouts torch gives new
 * outputs, meta tensors, misaligned and threaded work, and torch's error messages. */
#include <math.h>
#include <stdlib.h>

#include "../../csrc/kernels/iter.h"
#include "../../csrc/kernels/kernels.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};
static const pt_device META = {PT_DEV_META, 0};

/* A tensor of `dtype` holding values[i] (or i when values is NULL) in row-major order. */
static pt_tensor *make(int32_t ndim, const int64_t *sizes, int32_t dtype, const double *values)
{
    pt_tensor *t;
    if (pt_tensor_empty(ndim, sizes, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < t->numel; i++) {
        pt_scalar v = {PT_SCALAR_FLOAT, 0, values ? values[i] : (double)i, 0};
        pt_dtype_scalar_to(dtype)(&v, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

static pt_tensor *make_ints(int64_t n, int32_t dtype, const int64_t *values)
{
    pt_tensor *t;
    if (pt_tensor_empty(1, &n, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < n; i++) {
        pt_scalar v = {PT_SCALAR_INT, values[i], 0, 0};
        pt_dtype_scalar_to(dtype)(&v, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

/* A 0-d tensor; `wrapped` marks it as a Python number. */
static pt_tensor *scalar(int32_t dtype, double v, bool wrapped)
{
    pt_tensor *t = make(0, NULL, dtype, &v);
    if (t) pt_tensor_set_wrapped_number(t, wrapped);
    return t;
}

/* Element i in row-major order of t's shape, whatever its strides. */
static pt_scalar elem(const pt_tensor *t, int64_t i)
{
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    pt_scalar s;
    pt_dtype_scalar_from(t->dtype)((const char *)pt_tensor_data(t) + off * pt_dtype_itemsize(t->dtype), &s);
    return s;
}

static double get(const pt_tensor *t, int64_t i)
{
    pt_scalar s = elem(t, i);
    return s.kind == PT_SCALAR_FLOAT || s.kind == PT_SCALAR_COMPLEX ? s.re : (double)s.i;
}

static bool equals(const pt_tensor *t, const double *want)
{
    for (int64_t i = 0; i < t->numel; i++)
        if (get(t, i) != want[i]) return false;
    return true;
}

static bool shape_is(const pt_tensor *t, int32_t ndim, const int64_t *sizes, const int64_t *strides)
{
    if (t->ndim != ndim) return false;
    for (int32_t d = 0; d < ndim; d++)
        if (t->sizes[d] != sizes[d] || (strides && t->strides[d] != strides[d])) return false;
    return true;
}

static void no_delete(void *ctx) { PT_UNUSED(ctx); }

static void release_all(pt_tensor **ts, int n)
{
    for (int i = 0; i < n; i++) pt_tensor_release(ts[i]);
}

/* ---------------------------------------------------------------- exact arithmetic per dtype */

/* v truncated to the dtype's width, sign-extended for signed ones: two's-complement wrapping. */
static int64_t wrap(int32_t dtype, uint64_t v)
{
    switch (dtype) {
    case PT_UINT8: return (int64_t)(uint8_t)v;
    case PT_INT8: return (int64_t)(int8_t)(uint8_t)v;
    case PT_INT16: return (int64_t)(int16_t)(uint16_t)v;
    case PT_INT32: return (int64_t)(int32_t)(uint32_t)v;
    default: return (int64_t)v;
    }
}

PT_TEST(binary_integer_results_wrap_like_twos_complement_for_every_width)
{
    static const int32_t dtypes[] = {PT_UINT8, PT_INT8, PT_INT16, PT_INT32, PT_INT64};
    for (size_t k = 0; k < sizeof dtypes / sizeof *dtypes; k++) {
        int32_t dt = dtypes[k];
        const pt_dtype_info *info;
        CHECK_OK(pt_dtype_get(dt, &info));
        int64_t av[6] = {info->imax, info->imin, 0, 5, info->imax, -7 & (int64_t)info->imax};
        int64_t bv[6] = {1, -1 & (int64_t)info->imax, 1, 3, info->imax, 9};
        pt_tensor *a = make_ints(6, dt, av), *b = make_ints(6, dt, bv), *r[4];
        pt_scalar alpha = {PT_SCALAR_INT, 3, 0, 0};
        CHECK_OK(pt_kernel_add(a, b, NULL, &r[0]));
        CHECK_OK(pt_kernel_sub(a, b, NULL, &r[1]));
        CHECK_OK(pt_kernel_mul(a, b, &r[2]));
        CHECK_OK(pt_kernel_add(a, b, &alpha, &r[3]));
        for (int64_t i = 0; i < 6; i++) {
            uint64_t x = (uint64_t)elem(a, i).i, y = (uint64_t)elem(b, i).i;
            CHECK(r[0]->dtype == dt && elem(r[0], i).i == wrap(dt, x + y));
            CHECK(elem(r[1], i).i == wrap(dt, x - y));
            CHECK(elem(r[2], i).i == wrap(dt, x * y));
            CHECK(elem(r[3], i).i == wrap(dt, x + 3 * y));
        }
        release_all(r, 4);
        pt_tensor_release(a);
        pt_tensor_release(b);
    }
}

PT_TEST(binary_float_results_are_ieee_and_alpha_is_one_fused_multiply_add)
{
    static const double av[5] = {1.5, -2.25, 1e10, 0.1, INFINITY}, bv[5] = {0.25, 4, 1, 0.2, 1};
    int64_t n = 5;
    pt_tensor *a = make(1, &n, PT_FLOAT32, av), *b = make(1, &n, PT_FLOAT32, bv), *r[4];
    pt_tensor *a8 = make(1, &n, PT_FLOAT64, av), *b8 = make(1, &n, PT_FLOAT64, bv), *r8;
    pt_scalar alpha = {PT_SCALAR_FLOAT, 0, 0.3, 0};
    CHECK_OK(pt_kernel_add(a, b, NULL, &r[0]));
    CHECK_OK(pt_kernel_sub(a, b, NULL, &r[1]));
    CHECK_OK(pt_kernel_mul(a, b, &r[2]));
    CHECK_OK(pt_kernel_sub(a, b, &alpha, &r[3]));
    CHECK_OK(pt_kernel_add(a8, b8, &alpha, &r8));
    for (int64_t i = 0; i < n; i++) {
        float x = (float)av[i], y = (float)bv[i];
        CHECK(get(r[0], i) == (double)(x + y));
        CHECK(get(r[1], i) == (double)(x - y));
        CHECK(get(r[2], i) == (double)(x * y));
        /* sub is add with -alpha, rounded once: torch's fmadd */
        CHECK(get(r[3], i) == (double)fmaf(-0.3f, y, x));
        CHECK(get(r8, i) == fma(0.3, bv[i], av[i]));
    }
    release_all(r, 4);
    pt_tensor *ts[5] = {a, b, a8, b8, r8};
    release_all(ts, 5);
}

PT_TEST(binary_complex_uses_the_textbook_product_and_complex_alpha)
{
    int64_t n = 1;
    pt_tensor *a, *b, *r[4];
    CHECK_OK(pt_tensor_empty(1, &n, PT_COMPLEX64, CPU, &a));
    CHECK_OK(pt_tensor_empty(1, &n, PT_COMPLEX128, CPU, &b));
    pt_scalar va = {PT_SCALAR_COMPLEX, 0, 1, 2}, vb = {PT_SCALAR_COMPLEX, 0, 3, -4};
    CHECK_OK(pt_tensor_fill_(a, &va));
    CHECK_OK(pt_tensor_fill_(b, &vb));
    pt_scalar i = {PT_SCALAR_COMPLEX, 0, 0, 1};
    CHECK_OK(pt_kernel_mul(a, b, &r[0])); /* (1+2i)(3-4i) = 11+2i, in complex128 */
    CHECK_OK(pt_kernel_add(a, b, NULL, &r[1]));
    CHECK_OK(pt_kernel_sub(a, b, NULL, &r[2]));
    CHECK_OK(pt_kernel_add(a, b, &i, &r[3])); /* (1+2i) + i(3-4i) = 5+5i */
    static const double want[4][2] = {{11, 2}, {4, -2}, {-2, 6}, {5, 5}};
    for (int k = 0; k < 4; k++) {
        pt_scalar s = elem(r[k], 0);
        CHECK(r[k]->dtype == PT_COMPLEX128 && s.re == want[k][0] && s.im == want[k][1]);
    }
    release_all(r, 4);
    pt_tensor_release(a);
    pt_tensor_release(b);
}

PT_TEST(binary_bool_add_is_or_mul_is_and_and_odd_bytes_count_as_true)
{
    int64_t n = 4;
    static const double av[4] = {0, 0, 1, 1}, bv[4] = {0, 1, 0, 1};
    pt_tensor *a = make(1, &n, PT_BOOL, av), *b = make(1, &n, PT_BOOL, bv), *r[4];
    ((uint8_t *)pt_tensor_data(a))[3] = 2; /* raw memory can hold any byte */
    pt_scalar no = {PT_SCALAR_BOOL, 0, 0, 0}, two = {PT_SCALAR_INT, 2, 0, 0};
    CHECK_OK(pt_kernel_add(a, b, NULL, &r[0]));
    CHECK_OK(pt_kernel_mul(a, b, &r[1]));
    CHECK_OK(pt_kernel_add(a, b, &no, &r[2]));
    CHECK_OK(pt_kernel_add(a, b, &two, &r[3]));
    static const double or_[4] = {0, 1, 1, 1}, and_[4] = {0, 0, 0, 1}, keep[4] = {0, 0, 1, 1};
    CHECK(r[0]->dtype == PT_BOOL && equals(r[0], or_) && equals(r[1], and_));
    CHECK(equals(r[2], keep) && equals(r[3], or_));
    CHECK(((uint8_t *)pt_tensor_data(r[1]))[3] == 1);
    release_all(r, 4);
    pt_tensor_release(a);
    pt_tensor_release(b);
}

/* 16-bit patterns from a fixed LCG, skipping NaNs (their payload rules are the casts' tests). */
static uint16_t next_half(uint32_t *state, bool bf16)
{
    for (;;) {
        *state = *state * 1664525u + 1013904223u;
        uint16_t h = (uint16_t)(*state >> 16);
        uint16_t exp_mask = bf16 ? 0x7f80 : 0x7c00, mant_mask = bf16 ? 0x7f : 0x3ff;
        if ((h & exp_mask) != exp_mask || !(h & mant_mask)) return h;
    }
}

PT_TEST(binary_float16_and_bfloat16_compute_in_float32_and_round_once)
{
    for (int bf = 0; bf < 2; bf++) {
        int32_t dt = bf ? PT_BFLOAT16 : PT_FLOAT16;
        float (*widen)(uint16_t) = bf ? pt_bfloat16_to_float : pt_half_to_float;
        uint16_t (*narrow)(float) = bf ? pt_float_to_bfloat16 : pt_float_to_half;
        int64_t n = 4096;
        pt_tensor *a, *b, *r[3];
        CHECK_OK(pt_tensor_empty(1, &n, dt, CPU, &a));
        CHECK_OK(pt_tensor_empty(1, &n, dt, CPU, &b));
        uint16_t *ah = pt_tensor_data(a), *bh = pt_tensor_data(b);
        uint32_t state = 12345;
        for (int64_t i = 0; i < n; i++) {
            ah[i] = next_half(&state, bf);
            bh[i] = next_half(&state, bf);
        }
        pt_scalar alpha = {PT_SCALAR_FLOAT, 0, 0.3, 0};
        float al = widen(narrow(0.3f)); /* alpha is rounded to the common dtype first */
        CHECK_OK(pt_kernel_add(a, b, NULL, &r[0]));
        CHECK_OK(pt_kernel_mul(a, b, &r[1]));
        CHECK_OK(pt_kernel_add(a, b, &alpha, &r[2]));
        const uint16_t *s = pt_tensor_data(r[0]), *p = pt_tensor_data(r[1]), *f = pt_tensor_data(r[2]);
        for (int64_t i = 0; i < n; i++) {
            float x = widen(ah[i]), y = widen(bh[i]);
            uint16_t sum = narrow(x + y), prod = narrow(x * y), fused = narrow(fmaf(al, y, x));
            CHECK(r[0]->dtype == dt && (s[i] == sum || (isnan(x + y) && isnan(widen(s[i])))));
            CHECK(p[i] == prod || (isnan(x * y) && isnan(widen(p[i]))));
            CHECK(f[i] == fused || (isnan(fmaf(al, y, x)) && isnan(widen(f[i]))));
        }
        release_all(r, 3);
        pt_tensor_release(a);
        pt_tensor_release(b);
    }
    /* 2048 + 1 is a tie between 2048 and 2050: ties go to even, once */
    int64_t n = 2;
    static const double av[2] = {2048, 2048}, bv[2] = {1, 3}, want[2] = {2048, 2052};
    pt_tensor *a = make(1, &n, PT_FLOAT16, av), *b = make(1, &n, PT_FLOAT16, bv), *r;
    CHECK_OK(pt_kernel_add(a, b, NULL, &r));
    CHECK(equals(r, want));
    pt_tensor *ts[3] = {a, b, r};
    release_all(ts, 3);
}

PT_TEST(binary_staging_half_casts_equal_the_dtype_tables_bit_for_bit)
{
    /* every 16-bit pattern widens like pt_half_to_float / pt_bfloat16_to_float (NaNs quieted) */
    static uint16_t h[65536];
    static float f[65536];
    for (uint32_t i = 0; i < 65536; i++) h[i] = (uint16_t)i;
    pt_iter_cast_fn(PT_FLOAT16, PT_FLOAT32)((char *)f, 4, (const char *)h, 2, 65536);
    bool ok = true;
    for (uint32_t i = 0; i < 65536; i++) {
        float want = pt_half_to_float((uint16_t)i);
        ok &= memcmp(&f[i], &want, 4) == 0;
    }
    pt_iter_cast_fn(PT_BFLOAT16, PT_FLOAT32)((char *)f, 4, (const char *)h, 2, 65536);
    for (uint32_t i = 0; i < 65536; i++) {
        float want = pt_bfloat16_to_float((uint16_t)i);
        ok &= memcmp(&f[i], &want, 4) == 0;
    }
    CHECK(ok);
    /* float32 patterns narrow like pt_float_to_half / pt_float_to_bfloat16: 65536 patterns spread
     * over all 2^32 (every exponent, varied low bits) and the rounding boundaries */
    static const uint32_t edges[] = {0x477ff000u, 0x477fefffu, 0x47800000u, 0x38800000u,
                                     0x387fffffu, 0x33000000u, 0x33000001u, 0x7f800000u,
                                     0x7f800001u, 0x7fc00000u, 0xffbfffffu, 0x80000000u,
                                     0x3f808000u, 0x3f818000u, 0x7f7fffffu, 0x00000001u};
    for (uint32_t i = 0; i < 65536; i++) {
        uint32_t u = i * 65537u + 12345u;
        memcpy(&f[i], i < sizeof edges / sizeof *edges ? &edges[i] : &u, 4);
    }
    pt_iter_cast_fn(PT_FLOAT32, PT_FLOAT16)((char *)h, 2, (const char *)f, 4, 65536);
    for (uint32_t i = 0; i < 65536; i++) ok &= h[i] == pt_float_to_half(f[i]);
    pt_iter_cast_fn(PT_FLOAT32, PT_BFLOAT16)((char *)h, 2, (const char *)f, 4, 65536);
    for (uint32_t i = 0; i < 65536; i++) ok &= h[i] == pt_float_to_bfloat16(f[i]);
    CHECK(ok);
}

PT_TEST(binary_half_inputs_round_to_the_common_dtype_first_except_muls_scalar_other)
{
    /* torch casts inputs to the common dtype, so 2049.0 becomes 2048 before 1 is added ... */
    int64_t n = 1;
    static const double one = 1, three = 3;
    pt_tensor *a = make(1, &n, PT_FLOAT16, &one), *w = scalar(PT_FLOAT64, 2049, true), *r;
    CHECK_OK(pt_kernel_add(a, w, NULL, &r));
    CHECK(r->dtype == PT_FLOAT16 && get(r, 0) == 2048);
    pt_tensor_release(r);
    /* ... but its mul reads a scalar other's original value: 3 * 2049 = 6147 -> 6148, where
     * 3 * 2048 would give 6144 */
    pt_tensor *t = make(1, &n, PT_FLOAT16, &three);
    CHECK_OK(pt_kernel_mul(t, w, &r));
    CHECK(get(r, 0) == 6148);
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_mul(w, t, &r)); /* only as `other` */
    CHECK(get(r, 0) == 6144);
    pt_tensor *ts[4] = {a, w, r, t};
    release_all(ts, 4);
}

/* ---------------------------------------------------------------- broadcasting */

PT_TEST(binary_broadcasts_columns_rows_0d_and_empty_operands)
{
    int64_t col[2] = {3, 1}, row = 4, r2[2] = {3, 4};
    pt_tensor *a = make(2, col, PT_FLOAT32, NULL), *b = make(1, &row, PT_FLOAT32, NULL), *r;
    CHECK_OK(pt_kernel_add(a, b, NULL, &r));
    CHECK(shape_is(r, 2, r2, (int64_t[]){4, 1}));
    for (int64_t i = 0; i < 12; i++) CHECK(get(r, i) == (double)(i / 4 + i % 4));
    pt_tensor_release(r);

    pt_tensor *s = scalar(PT_FLOAT32, 10, false);
    CHECK_OK(pt_kernel_mul(s, a, &r));
    CHECK(shape_is(r, 2, col, NULL) && get(r, 2) == 20);
    pt_tensor_release(r);

    int64_t e[2] = {0, 4}, e1[2] = {3, 0};
    pt_tensor *empty = make(2, e, PT_FLOAT32, NULL);
    CHECK_OK(pt_kernel_add(empty, b, NULL, &r));
    CHECK(shape_is(r, 2, e, NULL) && r->numel == 0);
    pt_tensor_release(r);
    pt_tensor *empty1 = make(2, e1, PT_FLOAT32, NULL);
    CHECK_OK(pt_kernel_sub(a, empty1, NULL, &r)); /* 1 stretches to 0 */
    CHECK(shape_is(r, 2, e1, NULL));
    pt_tensor_release(r);
    pt_tensor *ts[5] = {a, b, s, empty, empty1};
    release_all(ts, 5);
}

PT_TEST(binary_reads_expanded_and_flipped_operands_in_place)
{
    int64_t sz[2] = {3, 4}, one_row[2] = {1, 4};
    pt_tensor *a = make(2, sz, PT_INT32, NULL), *row = make(2, one_row, PT_INT32, NULL);
    pt_tensor *wide, *flipped, *both, *r;
    CHECK_OK(pt_tensor_expand(row, 2, sz, &wide)); /* stride 0 on dim 0 */
    CHECK_OK(pt_tensor_flip_view(a, 1, &flipped));
    CHECK_OK(pt_tensor_flip_view(flipped, 0, &both));
    CHECK_OK(pt_kernel_add(both, wide, NULL, &r));
    for (int64_t i = 0; i < 12; i++) CHECK(get(r, i) == (double)(11 - i + i % 4));
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_mul(flipped, both, &r));
    for (int64_t i = 0; i < 12; i++) {
        int64_t rr = i / 4, c = i % 4;
        CHECK(get(r, i) == (double)((rr * 4 + 3 - c) * ((2 - rr) * 4 + 3 - c)));
    }
    pt_tensor *ts[6] = {a, row, wide, flipped, both, r};
    release_all(ts, 6);
}

PT_TEST(binary_refuses_shapes_that_do_not_broadcast_with_torchs_message)
{
    int64_t three = 3, four = 4, s23[2] = {2, 3}, s24[2] = {2, 4};
    pt_tensor *a = make(1, &three, PT_FLOAT32, NULL), *b = make(1, &four, PT_FLOAT32, NULL);
    pt_tensor *c = make(2, s23, PT_FLOAT32, NULL), *d = make(2, s24, PT_FLOAT32, NULL), *r = NULL;
    CHECK_ERR(pt_kernel_add(a, b, NULL, &r), PT_ERR_RUNTIME,
              "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
              "dimension 0");
    CHECK_ERR(pt_kernel_mul(c, d, &r), PT_ERR_RUNTIME,
              "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
              "dimension 1");
    CHECK(r == NULL);
    pt_tensor *ts[4] = {a, b, c, d};
    release_all(ts, 4);
}

/* ---------------------------------------------------------------- promotion */

typedef struct promo {
    int32_t a, a_dim, a_wrapped, b, b_dim, b_wrapped, want;
} promo;

PT_TEST(binary_promotes_like_torch_result_type_with_wrapped_numbers)
{
    /* Each row checked against torch.result_type (complex32 rows excepted: pytensor's complex64). */
    static const promo rows[] = {
        {PT_INT8, 1, 0, PT_INT64, 0, 0, PT_INT8},          /* dims beat 0-d in a category */
        {PT_INT8, 1, 0, PT_FLOAT64, 0, 0, PT_FLOAT64},     /* a higher category promotes */
        {PT_INT8, 1, 0, PT_FLOAT64, 0, 1, PT_FLOAT32},     /* wrapped: the default dtype */
        {PT_FLOAT16, 1, 0, PT_FLOAT64, 0, 0, PT_FLOAT16},
        {PT_FLOAT16, 1, 0, PT_FLOAT64, 0, 1, PT_FLOAT16},
        {PT_BOOL, 1, 0, PT_INT64, 0, 1, PT_INT64},
        {PT_BOOL, 1, 0, PT_INT8, 0, 0, PT_INT8},
        {PT_BOOL, 1, 0, PT_BOOL, 0, 1, PT_BOOL},
        {PT_UINT8, 0, 0, PT_INT8, 0, 0, PT_INT16},
        {PT_INT8, 0, 0, PT_INT64, 0, 0, PT_INT64},         /* two 0-d promote normally */
        {PT_INT8, 0, 0, PT_FLOAT64, 0, 1, PT_FLOAT32},
        {PT_INT8, 0, 0, PT_INT64, 0, 1, PT_INT8},          /* a 0-d tensor beats a wrapped one */
        {PT_FLOAT64, 0, 0, PT_FLOAT64, 0, 1, PT_FLOAT64},
        {PT_INT32, 1, 0, PT_COMPLEX128, 0, 1, PT_COMPLEX64},
        {PT_FLOAT64, 1, 0, PT_COMPLEX128, 0, 1, PT_COMPLEX128},
        {PT_INT8, 1, 0, PT_COMPLEX128, 0, 0, PT_COMPLEX128},
        {PT_FLOAT32, 1, 0, PT_COMPLEX128, 0, 0, PT_COMPLEX64}, /* float keeps its precision */
        {PT_BFLOAT16, 1, 0, PT_COMPLEX128, 0, 1, PT_COMPLEX64},
        {PT_FLOAT16, 1, 0, PT_COMPLEX64, 0, 0, PT_COMPLEX64}, /* torch: complex32 */
        {PT_UINT8, 1, 0, PT_INT8, 1, 0, PT_INT16},
        {PT_BFLOAT16, 1, 0, PT_FLOAT16, 1, 0, PT_FLOAT32},
        {PT_INT64, 1, 0, PT_FLOAT16, 1, 0, PT_FLOAT16},
        {PT_INT64, 0, 1, PT_FLOAT64, 0, 1, PT_FLOAT32},    /* two wrapped numbers */
        {PT_FLOAT64, 0, 1, PT_FLOAT64, 0, 1, PT_FLOAT32},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const promo *p = &rows[i];
        int64_t two = 2;
        static const double ones[2] = {1, 1};
        pt_tensor *a = p->a_dim ? make(1, &two, p->a, ones) : scalar(p->a, 1, p->a_wrapped);
        pt_tensor *b = p->b_dim ? make(1, &two, p->b, ones) : scalar(p->b, 1, p->b_wrapped);
        int32_t got = -1;
        pt_tensor *r = NULL;
        CHECK_OK(pt_result_type(2, (pt_tensor *[]){a, b}, &got));
        CHECK_OK(pt_kernel_add(a, b, NULL, &r));
        if (got != p->want || r->dtype != p->want || get(r, 0) != (p->want == PT_BOOL ? 1 : 2)) {
            char what[128];
            snprintf(what, sizeof what, "row %zu: got %d / %d, want %d", i, got, r->dtype, p->want);
            pt_test_fail(pt_ctx_, __FILE__, __LINE__, what);
        }
        pt_tensor *ts[3] = {a, b, r};
        release_all(ts, 3);
    }
}

PT_TEST(binary_wrapped_floats_follow_the_default_dtype)
{
    int64_t two = 2;
    pt_tensor *a = make(1, &two, PT_INT32, NULL), *w = scalar(PT_FLOAT64, 0.1, true);
    pt_tensor *c = scalar(PT_COMPLEX128, 0.5, true), *r, *rc;
    CHECK(pt_dtype_default() == PT_FLOAT32);
    CHECK_OK(pt_dtype_set_default(PT_FLOAT64));
    pt_status st = pt_kernel_add(a, w, NULL, &r);
    pt_status stc = st == PT_OK ? pt_kernel_add(a, c, NULL, &rc) : st;
    CHECK_OK(pt_dtype_set_default(PT_FLOAT32));
    CHECK_OK(st);
    CHECK_OK(stc);
    CHECK(r->dtype == PT_FLOAT64 && get(r, 1) == 1.1 && rc->dtype == PT_COMPLEX128);
    CHECK_ERR(pt_dtype_set_default(PT_INT64), PT_ERR_TYPE, "only floating-point dtypes");
    CHECK(pt_dtype_default() == PT_FLOAT32);
    /* a wrapped Python number keeps its value: float64's 0.1 is added, not float32's */
    pt_tensor *d = make(1, &two, PT_FLOAT64, NULL), *rd;
    CHECK_OK(pt_kernel_add(d, w, NULL, &rd));
    CHECK(rd->dtype == PT_FLOAT64 && get(rd, 0) == 0.1);
    pt_tensor *ts[7] = {a, w, c, r, rc, d, rd};
    release_all(ts, 7);
}

PT_TEST(binary_wrapped_integers_wrap_into_narrow_results)
{
    int64_t n = 1;
    static const double one = 1;
    pt_tensor *i8 = make(1, &n, PT_INT8, &one), *u8 = make(1, &n, PT_UINT8, &one);
    pt_tensor *big = scalar(PT_INT64, 1000, true), *neg = scalar(PT_INT64, -1, true), *r[3];
    CHECK_OK(pt_kernel_add(i8, big, NULL, &r[0])); /* 1001 -> -23 as torch */
    CHECK_OK(pt_kernel_add(u8, neg, NULL, &r[1])); /* -1 -> 255, 1 + 255 -> 0 */
    CHECK_OK(pt_kernel_mul(i8, big, &r[2]));       /* 1000 -> -24 */
    CHECK(r[0]->dtype == PT_INT8 && get(r[0], 0) == -23);
    CHECK(r[1]->dtype == PT_UINT8 && get(r[1], 0) == 0);
    CHECK(get(r[2], 0) == -24);
    release_all(r, 3);
    pt_tensor *ts[4] = {i8, u8, big, neg};
    release_all(ts, 4);
}

/* ---------------------------------------------------------------- alpha and sub rules */

PT_TEST(binary_alpha_follows_torchs_rules_and_messages)
{
    int64_t n = 2;
    pt_tensor *i = make(1, &n, PT_INT32, NULL), *f = make(1, &n, PT_FLOAT32, NULL);
    pt_tensor *u = make(1, &n, PT_UINT8, (double[]){1, 1}), *i8 = make(1, &n, PT_INT8, NULL);
    pt_tensor *h = make(1, &n, PT_FLOAT16, NULL), *r = NULL;
    pt_scalar fl = {PT_SCALAR_FLOAT, 0, 1.0, 0}, yes = {PT_SCALAR_BOOL, 1, 0, 0};
    pt_scalar cx = {PT_SCALAR_COMPLEX, 0, 1, 1}, big = {PT_SCALAR_INT, 300, 0, 0};
    pt_scalar a255 = {PT_SCALAR_INT, 255, 0, 0}, a256 = {PT_SCALAR_INT, 256, 0, 0};
    pt_scalar huge = {PT_SCALAR_FLOAT, 0, 1e6, 0};
    CHECK_ERR(pt_kernel_add(i, i, &fl, &r), PT_ERR_RUNTIME,
              "For integral input tensors, argument alpha must not be a floating point number.");
    CHECK_ERR(pt_kernel_add(i, i, &cx, &r), PT_ERR_RUNTIME,
              "For integral input tensors, argument alpha must not be a floating point number.");
    CHECK_ERR(pt_kernel_add(f, f, &yes, &r), PT_ERR_RUNTIME,
              "Boolean alpha only supported for Boolean results.");
    CHECK_ERR(pt_kernel_sub(f, f, &cx, &r), PT_ERR_RUNTIME,
              "For non-complex input tensors, argument alpha must not be a complex number.");
    CHECK_ERR(pt_kernel_add(i8, i8, &big, &r), PT_ERR_RUNTIME,
              "value cannot be converted to type int8_t without overflow");
    CHECK_ERR(pt_kernel_add(h, h, &huge, &r), PT_ERR_RUNTIME,
              "value cannot be converted to type c10::Half without overflow");
    /* sub converts -alpha: uint8 takes -255 (wrapping like torch) but not -256 */
    CHECK_ERR(pt_kernel_sub(u, u, &a256, &r), PT_ERR_RUNTIME, "without overflow");
    CHECK(r == NULL);
    CHECK_OK(pt_kernel_sub(u, u, &a255, &r));
    CHECK(r->dtype == PT_UINT8 && get(r, 0) == (double)(uint8_t)(1 - 255));
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_add(i, f, &fl, &r)); /* a float result takes a float alpha */
    CHECK(r->dtype == PT_FLOAT32 && get(r, 1) == 2);
    pt_tensor *ts[6] = {i, f, u, i8, h, r};
    release_all(ts, 6);
}

PT_TEST(binary_sub_refuses_bool_operands_with_torchs_messages)
{
    int64_t n = 2;
    pt_tensor *b = make(1, &n, PT_BOOL, NULL), *i = make(1, &n, PT_INT32, NULL), *r = NULL;
    pt_tensor *t = scalar(PT_BOOL, 1, true);
    CHECK_ERR(pt_kernel_sub(b, b, NULL, &r), PT_ERR_RUNTIME,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.");
    CHECK_ERR(pt_kernel_sub(i, t, NULL, &r), PT_ERR_RUNTIME,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    CHECK_ERR(pt_kernel_sub_(b, i, NULL, &r), PT_ERR_RUNTIME, "with a bool tensor");
    CHECK(r == NULL);
    pt_tensor *ts[3] = {b, i, t};
    release_all(ts, 3);
}

/* ---------------------------------------------------------------- in-place and out= */

PT_TEST(binary_in_place_writes_self_and_returns_a_new_reference_to_it)
{
    int64_t n = 3;
    pt_tensor *a = make(1, &n, PT_FLOAT32, NULL), *d = make(1, &n, PT_FLOAT64, (double[]){0.5, 0.5, 0.5});
    pt_tensor *r;
    CHECK_OK(pt_kernel_add_(a, a, NULL, &r)); /* exact aliasing is fine */
    CHECK(r == a && pt_tensor_refcount(a) == 2);
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_mul_(a, a, &r));
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_sub_(a, d, NULL, &r)); /* computed in float64, stored as float32 */
    pt_tensor_release(r);
    static const double want[3] = {-0.5, 3.5, 15.5};
    CHECK(a->dtype == PT_FLOAT32 && equals(a, want));
    pt_tensor *ts[2] = {a, d};
    release_all(ts, 2);
}

PT_TEST(binary_in_place_refuses_promotion_and_broadcasting_of_self)
{
    int64_t three = 3, s23[2] = {2, 3};
    pt_tensor *l = make(1, &three, PT_INT64, NULL), *f = make(1, &three, PT_FLOAT32, NULL);
    pt_tensor *m = make(2, s23, PT_FLOAT32, NULL), *r = NULL;
    CHECK_ERR(pt_kernel_add_(l, f, NULL, &r), PT_ERR_RUNTIME,
              "result type Float can't be cast to the desired output type Long");
    CHECK_ERR(pt_kernel_add_(f, m, NULL, &r), PT_ERR_RUNTIME,
              "output with shape [3] doesn't match the broadcast shape [2, 3]");
    /* the shape is checked before the dtype, as torch does */
    CHECK_ERR(pt_kernel_mul_(l, m, &r), PT_ERR_RUNTIME, "doesn't match the broadcast shape");
    CHECK(r == NULL);
    pt_storage *ro;
    float bytes[3] = {1, 2, 3};
    CHECK_OK(pt_storage_from_external(bytes, sizeof bytes, PT_FLOAT32, CPU, no_delete, NULL, 0, &ro));
    pt_tensor *frozen;
    CHECK_OK(pt_tensor_from_storage(ro, PT_FLOAT32, 1, &three, NULL, 0, &frozen));
    pt_storage_release(ro);
    CHECK_ERR(pt_kernel_add_(frozen, f, NULL, &r), PT_ERR_RUNTIME, "read-only");
    CHECK(bytes[0] == 1);
    pt_tensor *ts[4] = {l, f, m, frozen};
    release_all(ts, 4);
}

PT_TEST(binary_out_resizes_an_empty_out_and_casts_the_common_result_into_it)
{
    int64_t s32[2] = {3, 2}, zero = 0, one = 1;
    pt_tensor *base = make(2, s32, PT_FLOAT32, NULL), *t, *out, *r;
    CHECK_OK(pt_tensor_transpose(base, 0, 1, &t)); /* 2x3 with strides (1, 2) */
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT64, CPU, &out));
    CHECK_OK(pt_kernel_add_out(t, t, NULL, out, &r));
    int64_t s23[2] = {2, 3}, st[2] = {1, 2};
    CHECK(r == out && shape_is(out, 2, s23, st) && out->dtype == PT_FLOAT64);
    for (int64_t i = 0; i < 6; i++) CHECK(get(out, i) == 2 * get(t, i));
    pt_tensor_release(r);

    /* computed in the common dtype (int8 wraps), then cast: 100 + 100 -> -56.0, as torch */
    pt_tensor *c = make(1, &one, PT_INT8, (double[]){100}), *fo = make(1, &one, PT_FLOAT32, NULL);
    CHECK_OK(pt_kernel_add_out(c, c, NULL, fo, &r));
    CHECK(get(fo, 0) == -56);
    pt_tensor_release(r);
    pt_tensor *lo = make(1, &one, PT_INT64, NULL);
    CHECK_ERR(pt_kernel_mul_out(fo, fo, lo, &r), PT_ERR_RUNTIME,
              "result type Float can't be cast to the desired output type Long");
    CHECK_ERR(pt_kernel_sub_out(t, t, NULL, fo, &r), PT_ERR_RUNTIME,
              "out with shape [1] doesn't match the broadcast shape [2, 3]");
    /* out may be self */
    CHECK_OK(pt_kernel_mul_out(t, t, t, &r));
    CHECK(r == t && get(t, 4) == 9); /* t[1][1] = base[1][1] = 3 */
    pt_tensor_release(r);
    pt_tensor *ts[6] = {base, t, out, c, fo, lo};
    release_all(ts, 6);
}

/* ---------------------------------------------------------------- memory overlap */

PT_TEST(binary_refuses_partial_and_internal_overlap_with_torchs_messages)
{
    int64_t six = 6, one = 1, three = 3;
    pt_tensor *x = make(1, &six, PT_FLOAT32, NULL), *head, *tail, *r = NULL;
    CHECK_OK(pt_tensor_narrow(x, 0, 0, 5, &head));
    CHECK_OK(pt_tensor_narrow(x, 0, 1, 5, &tail));
    CHECK_ERR(pt_kernel_add_(tail, head, NULL, &r), PT_ERR_RUNTIME,
              "unsupported operation: some elements of the input tensor and the written-to tensor "
              "refer to a single memory location. Please clone() the tensor before performing the "
              "operation.");
    pt_tensor *w = scalar(PT_FLOAT32, 1, true);
    CHECK_ERR(pt_kernel_add_out(head, w, NULL, tail, &r), PT_ERR_RUNTIME, "some elements");
    pt_tensor *o = make(1, &one, PT_FLOAT32, NULL), *wide;
    CHECK_OK(pt_tensor_expand(o, 1, &three, &wide));
    CHECK_ERR(pt_kernel_mul_(wide, w, &r), PT_ERR_RUNTIME,
              "unsupported operation: more than one element of the written-to tensor refers to a "
              "single memory location. Please clone() the tensor before performing the "
              "operation.");
    CHECK(r == NULL && get(x, 1) == 1);
    pt_tensor *ts[6] = {x, head, tail, w, o, wide};
    release_all(ts, 6);
}

PT_TEST(binary_copies_inputs_whose_overlap_with_the_output_is_too_hard_to_judge)
{
    /* out = x[:, 0:2] and in = x[:, 1:3] are not dense: torch lets them race; pytensor copies the
     * input first, so every element reads its original value */
    int64_t s44[2] = {4, 4};
    pt_tensor *x = make(2, s44, PT_INT64, NULL), *out, *in, *r;
    CHECK_OK(pt_tensor_narrow(x, 1, 0, 2, &out));
    CHECK_OK(pt_tensor_narrow(x, 1, 1, 2, &in));
    CHECK_OK(pt_kernel_add_out(out, in, NULL, out, &r));
    pt_tensor_release(r);
    for (int64_t i = 0; i < 4; i++)
        for (int64_t j = 0; j < 2; j++)
            CHECK(get(x, i * 4 + j) == (double)(2 * (i * 4 + j) + 1));
    pt_tensor *ts[3] = {x, out, in};
    release_all(ts, 3);
}

/* ---------------------------------------------------------------- output layouts */

PT_TEST(binary_new_outputs_follow_the_inputs_layout_like_torch)
{
    int64_t s34[2] = {3, 4}, s43[2] = {4, 3}, s234[3] = {2, 3, 4}, s2345[4] = {2, 3, 4, 5};
    pt_tensor *m34 = make(2, s34, PT_FLOAT32, NULL), *m43 = make(2, s43, PT_FLOAT32, NULL);
    pt_tensor *t, *r;
    CHECK_OK(pt_tensor_transpose(m34, 0, 1, &t)); /* 4x3, strides (1, 4) */
    CHECK_OK(pt_kernel_add(t, t, NULL, &r));
    CHECK(shape_is(r, 2, s43, (int64_t[]){1, 4}) && get(r, 1) == 8);
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_add(t, m43, NULL, &r)); /* the first operand decides */
    CHECK(shape_is(r, 2, s43, (int64_t[]){1, 4}));
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_add(m43, t, NULL, &r));
    CHECK(shape_is(r, 2, s43, (int64_t[]){3, 1}));
    pt_tensor_release(r);

    /* torch: permute(2, 0, 1)[:, :, ::2] + 1 has strides (1, 8, 4) */
    pt_tensor *c = make(3, s234, PT_FLOAT32, NULL), *p, *sl, *one = scalar(PT_INT64, 1, true);
    CHECK_OK(pt_tensor_permute(c, 3, (int64_t[]){2, 0, 1}, &p));
    CHECK_OK(pt_tensor_slice(p, 2, 0, 3, 2, &sl));
    CHECK_OK(pt_kernel_add(sl, one, NULL, &r));
    CHECK(shape_is(r, 3, (int64_t[]){4, 2, 2}, (int64_t[]){1, 8, 4}));
    for (int64_t i = 0; i < 16; i++) CHECK(get(r, i) == get(sl, i) + 1);
    pt_tensor_release(r);

    /* channels-last inputs give a channels-last output */
    pt_tensor *n = make(4, s2345, PT_FLOAT32, NULL), *cl;
    CHECK_OK(pt_tensor_clone(n, PT_MEMORY_FORMAT_CHANNELS_LAST, &cl));
    CHECK_OK(pt_kernel_mul(cl, cl, &r));
    CHECK(shape_is(r, 4, s2345, (int64_t[]){60, 1, 15, 3}) && get(r, 7) == 49);
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_mul(cl, n, &r));
    CHECK(shape_is(r, 4, s2345, (int64_t[]){60, 1, 15, 3}));
    pt_tensor_release(r);

    /* an empty permuted input: torch's strides, zeros above the size-0 dim */
    pt_tensor *e = make(3, (int64_t[]){2, 0, 3}, PT_FLOAT32, NULL), *ep;
    CHECK_OK(pt_tensor_permute(e, 3, (int64_t[]){2, 0, 1}, &ep));
    CHECK_OK(pt_kernel_add(ep, one, NULL, &r));
    CHECK(shape_is(r, 3, (int64_t[]){3, 2, 0}, (int64_t[]){1, 0, 3}));
    pt_tensor *ts[12] = {m34, m43, t, r, c, p, sl, one, n, cl, e, ep};
    release_all(ts, 12);
}

/* ---------------------------------------------------------------- devices and dtypes */

PT_TEST(binary_meta_tensors_get_shapes_and_dtypes_only)
{
    int64_t s23[2] = {2, 3}, three = 3, zero = 0;
    pt_tensor *a, *b, *e, *l, *r;
    CHECK_OK(pt_tensor_empty(2, s23, PT_FLOAT16, META, &a));
    CHECK_OK(pt_tensor_empty(2, s23, PT_INT64, META, &l));
    CHECK_OK(pt_tensor_empty(1, &three, PT_INT64, META, &b));
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT32, META, &e));
    CHECK_OK(pt_kernel_add(a, b, NULL, &r));
    CHECK(r->device.type == PT_DEV_META && r->dtype == PT_FLOAT16 && shape_is(r, 2, s23, NULL));
    pt_tensor_release(r);
    pt_tensor *cpu0 = scalar(PT_FLOAT64, 2, false), *cpu1 = make(1, &three, PT_FLOAT32, NULL);
    CHECK_OK(pt_kernel_mul(a, cpu0, &r)); /* a CPU 0-d tensor joins as a scalar */
    CHECK(r->device.type == PT_DEV_META);
    pt_tensor_release(r);
    CHECK_ERR(pt_kernel_add(a, cpu1, NULL, &r), PT_ERR_RUNTIME,
              "Tensor on device cpu is not on the expected device meta!");
    CHECK_OK(pt_kernel_sub_out(a, b, NULL, e, &r));
    CHECK(r == e && shape_is(e, 2, s23, NULL));
    pt_tensor_release(r);
    CHECK_ERR(pt_kernel_add_out(a, b, NULL, cpu1, &r), PT_ERR_RUNTIME,
              "cross-device copies are not allowed");
    CHECK_ERR(pt_kernel_add_(l, a, NULL, &r), PT_ERR_RUNTIME,
              "result type Half can't be cast to the desired output type Long");
    pt_tensor *ts[6] = {a, b, e, l, cpu0, cpu1};
    release_all(ts, 6);
}

PT_TEST(binary_refuses_cuda_opaque_and_missing_operands)
{
    int64_t two = 2;
    pt_tensor *a = make(1, &two, PT_FLOAT32, NULL), *r = NULL;
    a->device.type = PT_DEV_CUDA; /* a stand-in: only the kernel's device check reads it */
    pt_status st = pt_kernel_add(a, a, NULL, &r);
    a->device.type = PT_DEV_CPU;
    CHECK(st == PT_ERR_NOT_IMPLEMENTED && strstr(pt_error_message(), "CUDA"));
    int32_t opaque;
    pt_status reg = pt_dtype_from_name("binary_test_opaque", &opaque);
    if (reg != PT_OK) CHECK_OK(pt_dtype_register("binary_test_opaque", 4, 4, &opaque));
    pt_tensor *o;
    CHECK_OK(pt_tensor_empty(1, &two, opaque, CPU, &o));
    CHECK_ERR(pt_kernel_mul(a, o, &r), PT_ERR_TYPE, "\"mul\" not implemented for 'binary_test_opaque'");
    CHECK_ERR(pt_kernel_add(a, NULL, NULL, &r), PT_ERR_VALUE, "other must be a tensor");
    CHECK_ERR(pt_kernel_add(a, a, NULL, NULL), PT_ERR_VALUE, "out must not be NULL");
    CHECK(r == NULL);
    pt_tensor_release(a);
    pt_tensor_release(o);
}

/* ---------------------------------------------------------------- staging and threads */

PT_TEST(binary_handles_misaligned_operands_through_staging)
{
    static _Alignas(16) unsigned char bytes[64];
    float vals[5] = {1, 2, 3, 4, 5};
    memcpy(bytes + 1, vals, sizeof vals); /* a float32 array one byte off alignment */
    pt_storage *s;
    CHECK_OK(pt_storage_from_external(bytes + 1, sizeof vals, PT_FLOAT32, CPU, no_delete, NULL, 1,
                                      &s));
    int64_t five = 5;
    pt_tensor *m, *a = make(1, &five, PT_FLOAT32, NULL), *r;
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 1, &five, NULL, 0, &m));
    pt_storage_release(s);
    CHECK_OK(pt_kernel_add(m, a, NULL, &r));
    for (int64_t i = 0; i < 5; i++) CHECK(get(r, i) == vals[i] + (double)i);
    pt_tensor_release(r);
    CHECK_OK(pt_kernel_mul_(m, m, &r)); /* misaligned output too */
    pt_tensor_release(r);
    memcpy(vals, bytes + 1, sizeof vals);
    CHECK(vals[4] == 25 && vals[0] == 1);
    pt_tensor *ts[2] = {m, a};
    release_all(ts, 2);
}

PT_TEST(binary_large_mixed_layouts_split_across_threads_match_elementwise_results)
{
    /* 300 x 1000: above the thread split; a transposed float32 beside an int64 that is cast
     * block by block, with alpha, and an out= of another dtype */
    int64_t s[2] = {1000, 300}, s2[2] = {300, 1000};
    pt_tensor *base = make(2, s, PT_FLOAT32, NULL), *t, *l = make(2, s2, PT_INT64, NULL), *r;
    CHECK_OK(pt_tensor_transpose(base, 0, 1, &t));
    pt_scalar alpha = {PT_SCALAR_FLOAT, 0, 0.5, 0};
    CHECK_OK(pt_kernel_add(t, l, &alpha, &r));
    CHECK(r->dtype == PT_FLOAT32 && shape_is(r, 2, s2, (int64_t[]){1, 300}));
    bool ok = true;
    for (int64_t i = 0; i < r->numel; i++)
        ok &= get(r, i) == (double)fmaf(0.5f, (float)get(l, i), (float)get(t, i));
    CHECK(ok);
    pt_tensor *o;
    CHECK_OK(pt_tensor_empty(2, s2, PT_FLOAT64, CPU, &o));
    pt_tensor *rr;
    CHECK_OK(pt_kernel_mul_out(l, l, o, &rr));
    for (int64_t i = 0; ok && i < o->numel; i += 997) ok &= get(o, i) == (double)(i * i);
    CHECK(ok);
    pt_tensor *ts[6] = {base, t, l, r, o, rr};
    release_all(ts, 6);
}

PT_TEST(binary_fast_paths_agree_with_the_general_path)
{
    /* same-shape contiguous, and tensor + scalar: the fast paths; a size-1 dim with an odd
     * stride and an alpha of 1 as a float send the same work down the general path */
    int64_t n = 5, odd[2] = {5, 1}, odd_st[2] = {1, 7};
    pt_tensor *a = make(1, &n, PT_INT16, NULL), *w = scalar(PT_INT64, 70000, true), *r[4];
    pt_tensor *b, *f = make(1, &n, PT_FLOAT64, NULL);
    CHECK_OK(pt_tensor_as_strided(a, 2, odd, odd_st, 0, &b));
    pt_scalar one_f = {PT_SCALAR_FLOAT, 0, 1.0, 0};
    CHECK_OK(pt_kernel_add(a, w, NULL, &r[0]));
    CHECK_OK(pt_kernel_add(b, w, NULL, &r[1]));
    CHECK_OK(pt_kernel_add(f, f, NULL, &r[2]));
    CHECK_OK(pt_kernel_add(f, f, &one_f, &r[3]));
    for (int64_t i = 0; i < 5; i++) {
        CHECK(get(r[0], i) == (double)(int16_t)(uint16_t)(i + 70000));
        CHECK(get(r[1], i) == get(r[0], i) && get(r[3], i) == get(r[2], i));
    }
    CHECK(r[0]->dtype == PT_INT16 && r[1]->dtype == PT_INT16);
    release_all(r, 4);
    pt_tensor *ts[4] = {a, w, b, f};
    release_all(ts, 4);
}
