/* random_math.h: the log, sin(2 pi u) and cos(2 pi u) that normal_ computes with, against libm,
 * and the 53-bit uniform against its definition.
 *
 * Note [normal arithmetic accuracy]
 * Maximum error in ulp of the result, measured here:
 *   float32 log: every u1 = 1 - k 2^-24 the draws make (k < 2^24), against double log: 0.83
 *   float32 sin, cos of 2 pi u: every u = k 2^-24, against long double: 1.72
 *   float64 log: 2^22 random u1 = 1 - u53, and 2^-k (1 - u/2) down to 2^-60, against long
 *     double: 0.86
 *   float64 sin, cos of 2 pi u: 2^22 random u53, against long double (reduced exactly to
 *     |u - q/4| <= 1/8 first): 1.61
 * The tests assert 1 ulp for the logs and 2 for sine and cosine. Where the true sine or cosine is
 * 0 (u a multiple of 1/4) the functions return exactly 0.
 */
#include "pt_test.h"

#include <math.h>
#include <stdint.h>

#include "random_math.h"

/* |got - want| in units of the last place of want rounded to got's type. */
static double ulps_f32(float got, long double want)
{
    const float w = (float)want;
    const float ulp = nextafterf(fabsf(w), INFINITY) - fabsf(w);
    return (double)(fabsl((long double)got - want) / ulp);
}

static double ulps_f64(double got, long double want)
{
    const double w = (double)want;
    const double ulp = nextafter(fabs(w), INFINITY) - fabs(w);
    return (double)(fabsl((long double)got - want) / ulp);
}

static const long double two_pi = 6.283185307179586476925286766559005768L;

/* sin and cos of 2 pi u from the exact reduction u = q/4 + f, |f| <= 1/8. */
static void sincos_ref(long double u, long double *s, long double *c)
{
    const long double q = roundl(4.0L * u), a = two_pi * (u - q / 4.0L);
    const long double sa = sinl(a), ca = cosl(a);
    switch ((int)q & 3) {
    case 0: *s = sa, *c = ca; break;
    case 1: *s = ca, *c = -sa; break;
    case 2: *s = -sa, *c = -ca; break;
    default: *s = -ca, *c = sa; break;
    }
}

/* A fixed stream of 32-bit words (splitmix64's output function). */
static uint32_t mix(uint64_t i)
{
    uint64_t z = i * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

PT_TEST(random_math_logf_is_within_1_ulp_on_every_draw)
{
    double worst = 0.0;
    for (uint32_t k = 1; k < (UINT32_C(1) << 24); k++) {
        const float u1 = 1.0f - (float)k * 0x1p-24f;
        const double e = ulps_f32(pt_rm_logf(u1), (long double)log((double)u1));
        worst = e > worst ? e : worst;
    }
    CHECK(pt_rm_logf(1.0f) == 0.0f);
    CHECK(worst <= 1.0);
}

PT_TEST(random_math_sincos2pif_is_within_2_ulp_on_every_draw)
{
    double worst = 0.0;
    for (uint32_t k = 0; k < (UINT32_C(1) << 24); k++) {
        const float u = (float)k * 0x1p-24f;
        float s, c;
        pt_rm_sincos2pif(u, &s, &c);
        if (k % (UINT32_C(1) << 22) == 0) { /* u = q/4: one of them is exactly 0, the other +-1 */
            CHECK(s == 0.0f || c == 0.0f);
            CHECK(fabsf(s) + fabsf(c) == 1.0f);
            continue;
        }
        long double rs, rc;
        sincos_ref(u, &rs, &rc);
        const double es = ulps_f32(s, rs), ec = ulps_f32(c, rc);
        worst = es > worst ? es : worst;
        worst = ec > worst ? ec : worst;
    }
    CHECK(worst <= 2.0);
}

PT_TEST(random_math_log_is_within_1_ulp)
{
    double worst = 0.0;
    for (uint64_t i = 0; i < (UINT64_C(1) << 22); i++) {
        double x = 1.0 - pt_rm_u53(mix(2 * i), mix(2 * i + 1));
        if (i < 60) x = ldexp(1.0 - 0.5 * pt_rm_u53(mix(2 * i), mix(2 * i + 1)), -(int)i);
        if (x == 1.0) continue;
        const double e = ulps_f64(pt_rm_log(x), logl((long double)x));
        worst = e > worst ? e : worst;
    }
    for (int k = 1; k <= 60; k++) { /* powers of two: the reduction's f is 0 */
        const double e = ulps_f64(pt_rm_log(ldexp(1.0, -k)), -k * logl(2.0L));
        worst = e > worst ? e : worst;
    }
    CHECK(pt_rm_log(1.0) == 0.0);
    CHECK(worst <= 1.0);
}

PT_TEST(random_math_sincos2pi_is_within_2_ulp)
{
    double worst = 0.0;
    for (uint64_t i = 0; i < (UINT64_C(1) << 22); i++) {
        const double u = pt_rm_u53(mix(2 * i), mix(2 * i + 1));
        double s, c;
        pt_rm_sincos2pi(u, &s, &c);
        long double rs, rc;
        sincos_ref(u, &rs, &rc);
        if (rs == 0.0L || rc == 0.0L) continue;
        const double es = ulps_f64(s, rs), ec = ulps_f64(c, rc);
        worst = es > worst ? es : worst;
        worst = ec > worst ? ec : worst;
    }
    for (int q = 0; q < 4; q++) {
        double s, c;
        pt_rm_sincos2pi(q * 0.25, &s, &c);
        CHECK(fabs(s) + fabs(c) == 1.0 && (s == 0.0 || c == 0.0));
    }
    CHECK(worst <= 2.0);
}

PT_TEST(random_math_u53_is_the_top_53_bits_of_hi_lo)
{
    for (uint64_t i = 0; i < 100000; i++) {
        const uint32_t hi = mix(2 * i), lo = mix(2 * i + 1);
        CHECK(pt_rm_u53(hi, lo) == (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53);
    }
    CHECK(pt_rm_u53(0xffffffffu, 0xffffffffu) == 1.0 - 0x1p-53);
    CHECK(pt_rm_u53(0, 0x7ff) == 0.0 && pt_rm_u53(0, 0x800) == 0x1p-53);
    CHECK(pt_rm_u24(0xffffffffu) == 1.0f - 0x1p-24f && pt_rm_u24(0xff) == 0.0f);
}

/* The extremes of the draws: u1 = 2^-24 (float) and 2^-53 (double) give the largest |z|, u1 = 1
 * gives 0. */
PT_TEST(random_math_box_muller_extremes_are_finite)
{
    float z0, z1;
    pt_rm_box_muller_f32(0xffffffffu, 0, &z0, &z1);
    CHECK(fabsf(z0 - sqrtf(48.0f * 0.6931472f)) < 1e-5f && z1 == 0.0f);
    pt_rm_box_muller_f32(0, 0x40000000u, &z0, &z1); /* u1 = 1, u2 = 1/4 */
    CHECK(z0 == 0.0f && z1 == 0.0f);
    double d0, d1;
    const uint32_t w[4] = {0xffffffffu, 0xffffffffu, 0x80000000u, 0};
    pt_rm_box_muller_f64(w, &d0, &d1); /* u2 = 1/2: cos = -1, sin = 0 */
    CHECK(fabs(d0 + sqrt(106.0 * 0.6931471805599453)) < 1e-12 && d1 == 0.0);
}
