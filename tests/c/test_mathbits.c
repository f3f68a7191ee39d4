/* The math bits (Note [math bits] in pytensor.h): views keep them, copy_ applies the difference
 * of the bits of its operands, the Conjugate / Negative fallback hands kernels values and writes
 * in-place results back through the bit, and the keys sit between Python and autograd. */
#include "pt_test.h"

#include "pt_ops.h"

static const pt_device cpu = {PT_DEV_CPU, 0};

/* complex128 [k + 10k i for k in 0..n-1] */
static pt_tensor *zramp(int64_t n)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(1, &n, PT_COMPLEX128, cpu, &t) != PT_OK) return NULL;
    double *p = pt_tensor_data(t);
    for (int64_t k = 0; k < n; k++) {
        p[2 * k] = (double)k;
        p[2 * k + 1] = 10.0 * (double)k;
    }
    return t;
}

PT_TEST(mathbits_keys_sit_between_python_and_autograd)
{
    CHECK(PT_KEY_PYTHON < PT_KEY_CONJUGATE && PT_KEY_CONJUGATE < PT_KEY_NEGATIVE);
    CHECK(PT_KEY_NEGATIVE < PT_KEY_AUTOGRAD_CPU);
    CHECK(strcmp(pt_dispatch_key_name(PT_KEY_CONJUGATE), "Conjugate") == 0);
    CHECK(strcmp(pt_dispatch_key_name(PT_KEY_NEGATIVE), "Negative") == 0);
}

PT_TEST(mathbits_views_keep_the_bit)
{
    pt_tensor *z = zramp(4);
    CHECK(z);
    pt_tensor *c = pt_call__conj(z);
    CHECK(c && pt_tensor_math_bits(c) == PT_MATH_BIT_CONJ);
    pt_tensor *s = NULL;
    CHECK_OK(pt_tensor_select(c, 0, 2, &s));
    CHECK(pt_tensor_math_bits(s) == PT_MATH_BIT_CONJ);
    pt_tensor *n = pt_call__neg_view(s);
    CHECK(n && pt_tensor_math_bits(n) == (PT_MATH_BIT_CONJ | PT_MATH_BIT_NEG));
    pt_scalar v;
    CHECK(pt_call_item(n, &v) == PT_OK);
    CHECK(v.kind == PT_SCALAR_COMPLEX && v.re == -2.0 && v.im == 20.0); /* -(conj(2 + 20i)) */
    pt_tensor_release(n);
    pt_tensor_release(s);
    pt_tensor_release(c);
    pt_tensor_release(z);
}

PT_TEST(mathbits_copy_applies_the_difference_of_the_bits)
{
    pt_tensor *z = zramp(3), *d = NULL;
    CHECK(z);
    const int64_t n = 3;
    CHECK_OK(pt_tensor_empty(1, &n, PT_COMPLEX64, cpu, &d));
    pt_tensor_set_math_bits(z, PT_MATH_BIT_CONJ);
    CHECK_OK(pt_tensor_copy_(d, z)); /* values: conjugated, cast to complex64 */
    const float *p = pt_tensor_data(d);
    CHECK(p[2] == 1.0f && p[3] == -10.0f && p[5] == -20.0f);
    pt_tensor_set_math_bits(d, PT_MATH_BIT_CONJ | PT_MATH_BIT_NEG);
    CHECK_OK(pt_tensor_copy_(d, z)); /* stored: -conj(values), the stored elements negated */
    CHECK(p[2] == -1.0f && p[3] == -10.0f);
    pt_tensor_release(d);
    pt_tensor_release(z);
}

PT_TEST(mathbits_fallback_reads_values_and_writes_back)
{
    pt_tensor *z = zramp(3);
    CHECK(z);
    pt_tensor *c = pt_call__conj(z);
    CHECK(c);
    pt_scalar one = {.kind = PT_SCALAR_COMPLEX, .re = 1.0, .im = 1.0};
    pt_scalar alpha = {.kind = PT_SCALAR_INT, .i = 1};
    pt_tensor *sum = pt_call_add_Scalar(c, &one, &alpha);
    CHECK(sum && pt_tensor_math_bits(sum) == 0);
    const double *s = pt_tensor_data(sum);
    CHECK(s[2] == 2.0 && s[3] == -9.0); /* conj(1 + 10i) + (1 + i) */
    pt_tensor *r = pt_call_add__Scalar(c, &one, &alpha);
    CHECK(r == c); /* the argument itself, still conjugated */
    const double *zp = pt_tensor_data(z);
    CHECK(zp[2] == 2.0 && zp[3] == 9.0); /* z = conj(conj(z) + (1 + i)) */
    pt_tensor_release(r);
    pt_tensor_release(sum);
    pt_tensor_release(c);
    pt_tensor_release(z);
}

/* mm takes A's conjugate bit as BLIS's conj flag (Note [conjugate operands] in linalg_run.c); a
 * conjugated B is resolved, a conjugated out= gets the values conjugated back. */
PT_TEST(mathbits_products_read_the_conjugate_bit)
{
    const int64_t sizes[2] = {2, 2};
    pt_tensor *a = NULL, *eye = NULL, *out = NULL;
    CHECK_OK(pt_tensor_empty(2, sizes, PT_COMPLEX128, cpu, &a));
    CHECK_OK(pt_tensor_empty(2, sizes, PT_COMPLEX128, cpu, &eye));
    CHECK_OK(pt_tensor_empty(2, sizes, PT_COMPLEX128, cpu, &out));
    double *pa = pt_tensor_data(a), *pe = pt_tensor_data(eye);
    for (int k = 0; k < 8; k++) pa[k] = (double)(k + 1), pe[k] = 0.0;
    pe[0] = pe[6] = 1.0;
    pt_tensor *ca = pt_call__conj(a), *ce = pt_call__conj(eye), *co = pt_call__conj(out);
    CHECK(ca && ce && co);
    pt_tensor *r = pt_call_mm(ca, eye); /* conj(A) */
    CHECK(r && pt_tensor_math_bits(r) == 0);
    const double *pr = pt_tensor_data(r);
    CHECK(pr[0] == 1.0 && pr[1] == -2.0 && pr[7] == -8.0);
    pt_tensor *r2 = pt_call_mm(eye, ca); /* the same, with the bit on B */
    CHECK(r2 && ((const double *)pt_tensor_data(r2))[3] == -4.0);
    pt_tensor *r3 = pt_call_mm_out(ca, ce, co); /* out's values conj(A): stored A */
    CHECK(r3 == co);
    const double *po = pt_tensor_data(out);
    CHECK(po[0] == 1.0 && po[1] == 2.0 && po[7] == 8.0);
    pt_tensor_release(r3);
    pt_tensor_release(r2);
    pt_tensor_release(r);
    pt_tensor_release(co);
    pt_tensor_release(ce);
    pt_tensor_release(ca);
    pt_tensor_release(out);
    pt_tensor_release(eye);
    pt_tensor_release(a);
}
