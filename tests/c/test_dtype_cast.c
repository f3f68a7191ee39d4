/* test_dtype_cast.c - element conversions: every one of the 144 cast loops over special values
 * (NaN, infinities, -0.0, subnormals, values that overflow float16 or wrap integers) against an
 * oracle printed once by torch 2.x on x86, the half-precision formats bit by bit, strided casts,
 * and scalars in and out of elements. */
#include <math.h>
#include <stdlib.h>

#include "pt_test.h"

/* ---------------------------------------------------------------- the cast oracle
 * One row per (source dtype, source value): the value as torch holds it, then what
 * `src.to(dst)` gives for the twelve destinations in id order ("re,im" for complex). */
static const struct {
    int32_t src;
    const char *value;
    const char *expect;
} cast_rows[] = {
    {PT_BOOL, "0", "0 0 0 0 0 0 0 0 0 0 0,0 0,0"},
    {PT_BOOL, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_UINT8, "0", "0 0 0 0 0 0 0 0 0 0 0,0 0,0"},
    {PT_UINT8, "255", "1 255 -1 255 255 255 255 255 255 255 255,0 255,0"},
    {PT_UINT8, "127", "1 127 127 127 127 127 127 127 127 127 127,0 127,0"},
    {PT_UINT8, "112", "1 112 112 112 112 112 112 112 112 112 112,0 112,0"},
    {PT_UINT8, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_INT8, "0", "0 0 0 0 0 0 0 0 0 0 0,0 0,0"},
    {PT_INT8, "-1", "1 255 -1 -1 -1 -1 -1 -1 -1 -1 -1,0 -1,0"},
    {PT_INT8, "127", "1 127 127 127 127 127 127 127 127 127 127,0 127,0"},
    {PT_INT8, "112", "1 112 112 112 112 112 112 112 112 112 112,0 112,0"},
    {PT_INT8, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_INT16, "0", "0 0 0 0 0 0 0 0 0 0 0,0 0,0"},
    {PT_INT16, "-1", "1 255 -1 -1 -1 -1 -1 -1 -1 -1 -1,0 -1,0"},
    {PT_INT16, "-129", "1 127 127 -129 -129 -129 -129 -129 -129 -129 -129,0 -129,0"},
    {PT_INT16, "255", "1 255 -1 255 255 255 255 255 255 255 255,0 255,0"},
    {PT_INT16, "4464", "1 112 112 4464 4464 4464 4464 4480 4464 4464 4464,0 4464,0"},
    {PT_INT16, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_INT32, "0", "0 0 0 0 0 0 0 0 0 0 0,0 0,0"},
    {PT_INT32, "-1", "1 255 -1 -1 -1 -1 -1 -1 -1 -1 -1,0 -1,0"},
    {PT_INT32, "-129", "1 127 127 -129 -129 -129 -129 -129 -129 -129 -129,0 -129,0"},
    {PT_INT32, "255", "1 255 -1 255 255 255 255 255 255 255 255,0 255,0"},
    {PT_INT32, "70000", "1 112 112 4464 70000 70000 inf 70144 70000 70000 70000,0 70000,0"},
    {PT_INT32, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_INT32, "16777217",
     "1 1 1 1 16777217 16777217 inf 16777216 16777216 16777217 16777216,0 16777217,0"},
    {PT_INT64, "-9223372036854775808",
     "1 0 0 0 0 -9223372036854775808 -inf -9.223372036854776e+18 -9.223372036854776e+18 "
     "-9.223372036854776e+18 -9.223372036854776e+18,0 -9.223372036854776e+18,0"},
    {PT_INT64, "9223372036854775807",
     "1 255 -1 -1 -1 9223372036854775807 inf 9.223372036854776e+18 9.223372036854776e+18 "
     "9.223372036854776e+18 9.223372036854776e+18,0 9.223372036854776e+18,0"},
    {PT_INT64, "-129", "1 127 127 -129 -129 -129 -129 -129 -129 -129 -129,0 -129,0"},
    {PT_INT64, "255", "1 255 -1 255 255 255 255 255 255 255 255,0 255,0"},
    {PT_INT64, "70000", "1 112 112 4464 70000 70000 inf 70144 70000 70000 70000,0 70000,0"},
    {PT_INT64, "9007199254740993",
     "1 1 1 1 1 9007199254740993 inf 9007199254740992 9007199254740992 9007199254740992 "
     "9007199254740992,0 9007199254740992,0"},
    {PT_INT64, "16777217",
     "1 1 1 1 16777217 16777217 inf 16777216 16777216 16777217 16777216,0 16777217,0"},
    {PT_FLOAT16, "nan", "1 0 0 0 -2147483648 -9223372036854775808 nan nan nan nan nan,0 nan,0"},
    {PT_FLOAT16, "inf", "1 0 0 0 -2147483648 -9223372036854775808 inf inf inf inf inf,0 inf,0"},
    {PT_FLOAT16, "-inf",
     "1 0 0 0 -2147483648 -9223372036854775808 -inf -inf -inf -inf -inf,0 -inf,0"},
    {PT_FLOAT16, "-0", "0 0 0 0 0 0 -0 -0 -0 -0 -0,0 -0,0"},
    {PT_FLOAT16, "0", "0 0 0 0 0 0 0 0 0 0 0,0 0,0"},
    {PT_FLOAT16, "5.960464477539063e-08",
     "1 0 0 0 0 0 5.960464477539063e-08 5.960464477539063e-08 5.960464477539063e-08 "
     "5.960464477539063e-08 5.960464477539063e-08,0 5.960464477539063e-08,0"},
    {PT_FLOAT16, "-300.75",
     "1 212 -44 -300 -300 -300 -300.75 -300 -300.75 -300.75 -300.75,0 -300.75,0"},
    {PT_FLOAT16, "2.5", "1 2 2 2 2 2 2.5 2.5 2.5 2.5 2.5,0 2.5,0"},
    {PT_FLOAT16, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_BFLOAT16, "nan", "1 0 0 0 -2147483648 -9223372036854775808 nan nan nan nan nan,0 nan,0"},
    {PT_BFLOAT16, "inf", "1 0 0 0 -2147483648 -9223372036854775808 inf inf inf inf inf,0 inf,0"},
    {PT_BFLOAT16, "-inf",
     "1 0 0 0 -2147483648 -9223372036854775808 -inf -inf -inf -inf -inf,0 -inf,0"},
    {PT_BFLOAT16, "-0", "0 0 0 0 0 0 -0 -0 -0 -0 -0,0 -0,0"},
    {PT_BFLOAT16, "9.183549615799121e-41",
     "1 0 0 0 0 0 0 9.183549615799121e-41 9.183549615799121e-41 9.183549615799121e-41 "
     "9.183549615799121e-41,0 9.183549615799121e-41,0"},
    {PT_BFLOAT16, "5.960464477539063e-08",
     "1 0 0 0 0 0 5.960464477539063e-08 5.960464477539063e-08 5.960464477539063e-08 "
     "5.960464477539063e-08 5.960464477539063e-08,0 5.960464477539063e-08,0"},
    {PT_BFLOAT16, "2.9802322387695312e-08",
     "1 0 0 0 0 0 0 2.9802322387695312e-08 2.9802322387695312e-08 2.9802322387695312e-08 "
     "2.9802322387695312e-08,0 2.9802322387695312e-08,0"},
    {PT_BFLOAT16, "65536", "1 0 0 0 65536 65536 inf 65536 65536 65536 65536,0 65536,0"},
    {PT_BFLOAT16, "9.972771014849226e+19",
     "1 0 0 0 -2147483648 -9223372036854775808 inf 9.972771014849226e+19 "
     "9.972771014849226e+19 9.972771014849226e+19 9.972771014849226e+19,0 "
     "9.972771014849226e+19,0"},
    {PT_BFLOAT16, "-3003121664",
     "1 0 0 0 -2147483648 -3003121664 -inf -3003121664 -3003121664 -3003121664 -3003121664,0 "
     "-3003121664,0"},
    {PT_BFLOAT16, "70144", "1 0 0 4608 70144 70144 inf 70144 70144 70144 70144,0 70144,0"},
    {PT_BFLOAT16, "-300", "1 212 -44 -300 -300 -300 -300 -300 -300 -300 -300,0 -300,0"},
    {PT_BFLOAT16, "2.5", "1 2 2 2 2 2 2.5 2.5 2.5 2.5 2.5,0 2.5,0"},
    {PT_BFLOAT16, "1", "1 1 1 1 1 1 1 1 1 1 1,0 1,0"},
    {PT_FLOAT32, "nan", "1 0 0 0 -2147483648 -9223372036854775808 nan nan nan nan nan,0 nan,0"},
    {PT_FLOAT32, "inf", "1 0 0 0 -2147483648 -9223372036854775808 inf inf inf inf inf,0 inf,0"},
    {PT_FLOAT32, "-inf",
     "1 0 0 0 -2147483648 -9223372036854775808 -inf -inf -inf -inf -inf,0 -inf,0"},
    {PT_FLOAT32, "-0", "0 0 0 0 0 0 -0 -0 -0 -0 -0,0 -0,0"},
    {PT_FLOAT32, "9.99994610111476e-41",
     "1 0 0 0 0 0 0 9.183549615799121e-41 9.99994610111476e-41 9.99994610111476e-41 "
     "9.99994610111476e-41,0 9.99994610111476e-41,0"},
    {PT_FLOAT32, "5.960464477539063e-08",
     "1 0 0 0 0 0 5.960464477539063e-08 5.960464477539063e-08 5.960464477539063e-08 "
     "5.960464477539063e-08 5.960464477539063e-08,0 5.960464477539063e-08,0"},
    {PT_FLOAT32, "2.9802322387695312e-08",
     "1 0 0 0 0 0 0 2.9802322387695312e-08 2.9802322387695312e-08 2.9802322387695312e-08 "
     "2.9802322387695312e-08,0 2.9802322387695312e-08,0"},
    {PT_FLOAT32, "65520", "1 240 -16 -16 65520 65520 inf 65536 65520 65520 65520,0 65520,0"},
    {PT_FLOAT32, "1.0000000200408773e+20",
     "1 0 0 0 -2147483648 -9223372036854775808 inf 9.972771014849226e+19 "
     "1.0000000200408773e+20 1.0000000200408773e+20 1.0000000200408773e+20,0 "
     "1.0000000200408773e+20,0"},
    {PT_FLOAT32, "-3000000000",
     "1 0 0 0 -2147483648 -3000000000 -inf -3003121664 -3000000000 -3000000000 -3000000000,0 "
     "-3000000000,0"},
    {PT_FLOAT32, "70000", "1 112 112 4464 70000 70000 inf 70144 70000 70000 70000,0 70000,0"},
    {PT_FLOAT32, "-300.70001220703125",
     "1 212 -44 -300 -300 -300 -300.75 -300 -300.70001220703125 -300.70001220703125 "
     "-300.70001220703125,0 -300.70001220703125,0"},
    {PT_FLOAT32, "2.5", "1 2 2 2 2 2 2.5 2.5 2.5 2.5 2.5,0 2.5,0"},
    {PT_FLOAT32, "1.00048828125",
     "1 1 1 1 1 1 1 1 1.00048828125 1.00048828125 1.00048828125,0 1.00048828125,0"},
    {PT_FLOAT64, "nan", "1 0 0 0 -2147483648 -9223372036854775808 nan nan nan nan nan,0 nan,0"},
    {PT_FLOAT64, "inf", "1 0 0 0 -2147483648 -9223372036854775808 inf inf inf inf inf,0 inf,0"},
    {PT_FLOAT64, "-inf",
     "1 0 0 0 -2147483648 -9223372036854775808 -inf -inf -inf -inf -inf,0 -inf,0"},
    {PT_FLOAT64, "-0", "0 0 0 0 0 0 -0 -0 -0 -0 -0,0 -0,0"},
    {PT_FLOAT64, "1e-40",
     "1 0 0 0 0 0 0 9.183549615799121e-41 9.99994610111476e-41 1e-40 9.99994610111476e-41,0 "
     "1e-40,0"},
    {PT_FLOAT64, "5.960464477539063e-08",
     "1 0 0 0 0 0 5.960464477539063e-08 5.960464477539063e-08 5.960464477539063e-08 "
     "5.960464477539063e-08 5.960464477539063e-08,0 5.960464477539063e-08,0"},
    {PT_FLOAT64, "2.9802322387695312e-08",
     "1 0 0 0 0 0 0 2.9802322387695312e-08 2.9802322387695312e-08 2.9802322387695312e-08 "
     "2.9802322387695312e-08,0 2.9802322387695312e-08,0"},
    {PT_FLOAT64, "65520", "1 240 -16 -16 65520 65520 inf 65536 65520 65520 65520,0 65520,0"},
    {PT_FLOAT64, "1e+20",
     "1 0 0 0 -2147483648 -9223372036854775808 inf 9.972771014849226e+19 "
     "1.0000000200408773e+20 1e+20 1.0000000200408773e+20,0 1e+20,0"},
    {PT_FLOAT64, "-3000000000",
     "1 0 0 0 -2147483648 -3000000000 -inf -3003121664 -3000000000 -3000000000 -3000000000,0 "
     "-3000000000,0"},
    {PT_FLOAT64, "70000", "1 112 112 4464 70000 70000 inf 70144 70000 70000 70000,0 70000,0"},
    {PT_FLOAT64, "-300.7",
     "1 212 -44 -300 -300 -300 -300.75 -300 -300.70001220703125 -300.7 -300.70001220703125,0 "
     "-300.7,0"},
    {PT_FLOAT64, "2.5", "1 2 2 2 2 2 2.5 2.5 2.5 2.5 2.5,0 2.5,0"},
    {PT_FLOAT64, "1.0004882812509095",
     "1 1 1 1 1 1 1 1 1.00048828125 1.0004882812509095 1.00048828125,0 1.0004882812509095,0"},
    {PT_COMPLEX64, "nan,0", "1 0 0 0 -2147483648 -9223372036854775808 nan nan nan nan nan,0 nan,0"},
    {PT_COMPLEX64, "0,nan", "1 0 0 0 0 0 0 0 0 0 0,nan 0,nan"},
    {PT_COMPLEX64, "1.5,-2.5", "1 1 1 1 1 1 1.5 1.5 1.5 1.5 1.5,-2.5 1.5,-2.5"},
    {PT_COMPLEX64, "-0,1", "1 0 0 0 0 0 -0 -0 -0 -0 -0,1 -0,1"},
    {PT_COMPLEX64, "3000000000,1",
     "1 0 0 0 -2147483648 3000000000 inf 3003121664 3000000000 3000000000 3000000000,1 "
     "3000000000,1"},
    {PT_COMPLEX64, "-inf,inf",
     "1 0 0 0 -2147483648 -9223372036854775808 -inf -inf -inf -inf -inf,inf -inf,inf"},
    {PT_COMPLEX128, "nan,0",
     "1 0 0 0 -2147483648 -9223372036854775808 nan nan nan nan nan,0 nan,0"},
    {PT_COMPLEX128, "0,nan", "1 0 0 0 0 0 0 0 0 0 0,nan 0,nan"},
    {PT_COMPLEX128, "1.5,-2.5", "1 1 1 1 1 1 1.5 1.5 1.5 1.5 1.5,-2.5 1.5,-2.5"},
    {PT_COMPLEX128, "-0,1", "1 0 0 0 0 0 -0 -0 -0 -0 -0,1 -0,1"},
    {PT_COMPLEX128, "3000000000,1",
     "1 0 0 0 -2147483648 3000000000 inf 3003121664 3000000000 3000000000 3000000000,1 "
     "3000000000,1"},
    {PT_COMPLEX128, "-inf,inf",
     "1 0 0 0 -2147483648 -9223372036854775808 -inf -inf -inf -inf -inf,inf -inf,inf"},
};

static pt_scalar parse_scalar(int32_t dtype, const char *text)
{
    pt_scalar s = {0};
    uint32_t kind = pt_dtype_info_of(dtype)->kind;
    if (kind & PT_KIND_COMPLEX) {
        char *comma;
        s.kind = PT_SCALAR_COMPLEX;
        s.re = strtod(text, &comma);
        s.im = strtod(comma + 1, NULL);
    } else if (kind & PT_KIND_FLOAT) {
        s.kind = PT_SCALAR_FLOAT;
        s.re = strtod(text, NULL);
    } else {
        s.kind = (kind & PT_KIND_BOOL) ? PT_SCALAR_BOOL : PT_SCALAR_INT;
        s.i = strtoll(text, NULL, 10);
    }
    return s;
}

/* Equal as torch prints them: NaN matches NaN, and zeros must agree in sign. */
static bool same_double(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

static bool same_scalar(pt_scalar a, pt_scalar b)
{
    if (a.kind != b.kind) return false;
    if (a.kind == PT_SCALAR_FLOAT) return same_double(a.re, b.re);
    if (a.kind == PT_SCALAR_COMPLEX) return same_double(a.re, b.re) && same_double(a.im, b.im);
    return a.i == b.i;
}

PT_TEST(cast_every_pair_matches_torch_on_special_values)
{
    for (size_t r = 0; r < sizeof cast_rows / sizeof cast_rows[0]; r++) {
        int32_t src = cast_rows[r].src;
        unsigned char in[16];
        pt_scalar v = parse_scalar(src, cast_rows[r].value);
        pt_dtype_scalar_to(src)(&v, in);
        const char *p = cast_rows[r].expect;
        for (int32_t dst = 0; dst < PT_DTYPE_BUILTIN_COUNT; dst++) {
            char token[64];
            size_t len = strcspn(p, " ");
            CHECK(len > 0 && len < sizeof token);
            memcpy(token, p, len);
            token[len] = 0;
            p += len + (p[len] == ' ');
            unsigned char out[16];
            pt_dtype_cast_fn(src, dst)((char *)out, 0, (const char *)in, 0, 1);
            pt_scalar got, want = parse_scalar(dst, token);
            pt_dtype_scalar_from(dst)(out, &got);
            if (!same_scalar(got, want)) {
                fprintf(stderr, "  %s %s -> %s: got (%lld, %.17g, %.17g), torch gives %s\n",
                        pt_dtype_info_of(src)->name, cast_rows[r].value,
                        pt_dtype_info_of(dst)->name, (long long)got.i, got.re, got.im, token);
                CHECK(same_scalar(got, want));
            }
        }
        CHECK(*p == 0);
    }
}

/* ---------------------------------------------------------------- half precision */

static uint32_t float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float bits_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

PT_TEST(half_and_bfloat16_from_float_match_torch_bit_patterns)
{
    /* torch.tensor(x, dtype=float32).half() / .bfloat16(), viewed as int16 */
    static const struct {
        float x;
        uint16_t half, bf16;
    } cases[] = {
        {INFINITY, 0x7c00, 0x7f80}, {-INFINITY, 0xfc00, 0xff80}, {-0.0f, 0x8000, 0x8000},
        {65504.0f, 0x7bff, 0x4780}, {65519.99f, 0x7bff, 0x4780}, {65520.0f, 0x7c00, 0x4780},
        {1e-8f, 0x0000, 0x322c},     {5.96e-8f, 0x0001, 0x3380},  {2.98e-8f, 0x0000, 0x3300},
        {2.99e-8f, 0x0001, 0x3300},  {6.1e-5f, 0x03ff, 0x3880},   {1e-45f, 0x0000, 0x0000},
        {3.0e38f, 0x7c00, 0x7f62},   {1.0f, 0x3c00, 0x3f80},      {-2.5f, 0xc100, 0xc020},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK(pt_float_to_half(cases[k].x) == cases[k].half);
        CHECK(pt_float_to_bfloat16(cases[k].x) == cases[k].bf16);
    }
    /* bfloat16 ties go to even; a float subnormal keeps its top bits */
    CHECK(pt_float_to_bfloat16(bits_float(0x3f808000u)) == 0x3f80);
    CHECK(pt_float_to_bfloat16(bits_float(0x3f818000u)) == 0x3f82);
    CHECK(pt_float_to_bfloat16(bits_float(0x3f808001u)) == 0x3f81);
    CHECK(pt_float_to_bfloat16(bits_float(0x00010000u)) == 0x0001);
    CHECK(pt_float_to_bfloat16(bits_float(0x7f7fffffu)) == 0x7f80); /* FLT_MAX rounds to inf */
}

PT_TEST(half_and_bfloat16_nan_stays_nan_quiet_with_sign_and_top_payload)
{
    CHECK(pt_float_to_half(NAN) == 0x7e00);
    CHECK(pt_float_to_half(-NAN) == 0xfe00);
    CHECK(pt_float_to_half(bits_float(0x7f800001u)) == 0x7e00); /* payload below half's bits */
    CHECK(pt_float_to_half(bits_float(0x7fa02000u)) == 0x7f01);
    CHECK(pt_float_to_bfloat16(bits_float(0x7f800001u)) == 0x7fc0);
    CHECK(pt_float_to_bfloat16(bits_float(0xffc00000u)) == 0xffc0);
    CHECK(pt_float_to_bfloat16(bits_float(0x7fa10000u)) == 0x7fe1);
    CHECK(float_bits(pt_half_to_float(0x7c01)) == 0x7fc02000u);
    CHECK(float_bits(pt_half_to_float(0xfe00)) == 0xffc00000u);
    CHECK(float_bits(pt_bfloat16_to_float(0x7f81)) == 0x7fc10000u);
    CHECK(float_bits(pt_bfloat16_to_float(0xff81)) == 0xffc10000u);
}

PT_TEST(half_to_float_is_exact_for_subnormals_zeros_and_infinities)
{
    CHECK(float_bits(pt_half_to_float(0x0001)) == 0x33800000u); /* 2^-24 */
    CHECK(float_bits(pt_half_to_float(0x03ff)) == 0x387fc000u);
    CHECK(float_bits(pt_half_to_float(0x8001)) == 0xb3800000u);
    CHECK(float_bits(pt_half_to_float(0x8000)) == 0x80000000u);
    CHECK(pt_half_to_float(0x7c00) == INFINITY && pt_half_to_float(0xfc00) == -INFINITY);
    CHECK(pt_half_to_float(0x7bff) == 65504.0f && pt_half_to_float(0x0400) == 0x1p-14f);
    CHECK(float_bits(pt_bfloat16_to_float(0x0001)) == 0x00010000u);
}

PT_TEST(half_and_bfloat16_round_trip_every_bit_pattern)
{
    for (uint32_t h = 0; h <= 0xffff; h++) {
        float f = pt_half_to_float((uint16_t)h);
        bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        CHECK(pt_float_to_half(f) == (nan ? (h | 0x200) : h));
        float g = pt_bfloat16_to_float((uint16_t)h);
        bool bnan = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
        CHECK(pt_float_to_bfloat16(g) == (bnan ? (h | 0x40) : h));
    }
}

/* Between two neighbours a < b the midpoint goes to the even one and anything off it to the
 * nearer one; the midpoints are exact floats, so this pins round-to-nearest-even everywhere,
 * subnormals and the overflow to infinity at 65520 included. */
PT_TEST(float_to_half_rounds_to_nearest_even_between_every_pair_of_neighbours)
{
    for (uint16_t h = 0; h <= 0x7bff; h++) {
        float a = pt_half_to_float(h), b = h == 0x7bff ? 65536.0f : pt_half_to_float(h + 1);
        float mid = a + (b - a) / 2;
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
        CHECK(pt_float_to_half(mid) == even);
        CHECK(pt_float_to_half(-mid) == (even | 0x8000));
        CHECK(pt_float_to_half(nextafterf(mid, 0)) == h);
        CHECK(pt_float_to_half(nextafterf(mid, INFINITY)) == h + 1);
    }
    for (uint16_t h = 0; h < 0x7f7f; h++) {
        /* a + (b - a) / 2: (a + b) overflows near the top */
        float a = pt_bfloat16_to_float(h), b = pt_bfloat16_to_float(h + 1), mid = a + (b - a) / 2;
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
        CHECK(pt_float_to_bfloat16(mid) == even);
        CHECK(pt_float_to_bfloat16(nextafterf(mid, 0)) == h);
        CHECK(pt_float_to_bfloat16(nextafterf(mid, INFINITY)) == h + 1);
    }
}

/* ---------------------------------------------------------------- strided casts, scalars */

PT_TEST(cast_loops_walk_negative_and_zero_strides)
{
    double src[4] = {1.5, -2.5, 1e20, -0.0};
    int32_t dst[4] = {0};
    /* written back to front */
    pt_dtype_cast_fn(PT_FLOAT64, PT_INT32)((char *)&dst[3], -4, (const char *)src, 8, 4);
    CHECK(dst[3] == 1 && dst[2] == -2 && dst[1] == INT32_MIN && dst[0] == 0);
    /* one source element broadcast */
    uint16_t half[3] = {0};
    pt_dtype_cast_fn(PT_FLOAT64, PT_FLOAT16)((char *)half, 2, (const char *)&src[1], 0, 3);
    CHECK(half[0] == 0xc100 && half[1] == 0xc100 && half[2] == 0xc100);
    /* same dtype is a byte copy: a NaN payload and a non-0/1 bool byte survive */
    uint16_t nan_in = 0x7c01, nan_out = 0;
    pt_dtype_cast_fn(PT_FLOAT16, PT_FLOAT16)((char *)&nan_out, 2, (const char *)&nan_in, 2, 1);
    CHECK(nan_out == 0x7c01);
    uint8_t b_in = 7, b_out = 0, u_out = 0;
    pt_dtype_cast_fn(PT_BOOL, PT_BOOL)((char *)&b_out, 1, (const char *)&b_in, 1, 1);
    pt_dtype_cast_fn(PT_BOOL, PT_UINT8)((char *)&u_out, 1, (const char *)&b_in, 1, 1);
    CHECK(b_out == 7 && u_out == 1);
    /* n == 0 touches nothing */
    pt_dtype_cast_fn(PT_FLOAT64, PT_INT32)(NULL, 4, NULL, 8, 0);
}

PT_TEST(scalar_to_and_from_keep_the_kind_of_the_dtype)
{
    static const int32_t kinds[PT_DTYPE_BUILTIN_COUNT] = {
        PT_SCALAR_BOOL,  PT_SCALAR_INT,   PT_SCALAR_INT,   PT_SCALAR_INT,
        PT_SCALAR_INT,   PT_SCALAR_INT,   PT_SCALAR_FLOAT, PT_SCALAR_FLOAT,
        PT_SCALAR_FLOAT, PT_SCALAR_FLOAT, PT_SCALAR_COMPLEX, PT_SCALAR_COMPLEX,
    };
    for (int32_t id = 0; id < PT_DTYPE_BUILTIN_COUNT; id++) {
        unsigned char e[16];
        pt_scalar out;
        pt_dtype_scalar_to(id)(&(pt_scalar){PT_SCALAR_INT, 5, 0, 0}, e);
        pt_dtype_scalar_from(id)(e, &out);
        CHECK(out.kind == kinds[id]);
        if (out.kind == PT_SCALAR_BOOL) CHECK(out.i == 1);
        else if (out.kind == PT_SCALAR_INT) CHECK(out.i == 5);
        else CHECK(out.re == 5 && out.im == 0);
        pt_dtype_scalar_to(id)(&(pt_scalar){PT_SCALAR_COMPLEX, 0, -2.5, 0.5}, e);
        pt_dtype_scalar_from(id)(e, &out);
        if (id == PT_BOOL) CHECK(out.i == 1);
        else if (out.kind == PT_SCALAR_INT) CHECK(out.i == (id == PT_UINT8 ? 254 : -2));
        else if (out.kind == PT_SCALAR_FLOAT) CHECK(out.re == -2.5);
        else CHECK(out.re == -2.5 && out.im == 0.5);
        pt_dtype_scalar_to(id)(&(pt_scalar){PT_SCALAR_BOOL, 1, 0, 0}, e);
        pt_dtype_scalar_from(id)(e, &out);
        CHECK(out.kind == PT_SCALAR_INT || out.kind == PT_SCALAR_BOOL ? out.i == 1 : out.re == 1);
    }
}
