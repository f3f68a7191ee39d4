/* Complex numbers: view_as_real and view_as_complex read the same bytes as the other dtype
 * (geometry as torch gives it, the shared storage and version counter), conj (a view with the
 * conjugate bit for complex tensors, the input itself for real ones), and angle, polar and complex
 * against exact values, through the entry points. */
#include "pt_test.h"

#include <math.h>

#include "pt_ops.h"

static const pt_device cpu = {PT_DEV_CPU, 0};

/* complex64 [k + 10k i for k in 0..n-1] */
static pt_tensor *cramp(int64_t n)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(1, &n, PT_COMPLEX64, cpu, &t) != PT_OK) return NULL;
    float *p = pt_tensor_data(t);
    for (int64_t k = 0; k < n; k++) {
        p[2 * k] = (float)k;
        p[2 * k + 1] = 10.0f * (float)k;
    }
    return t;
}

PT_TEST(complex_view_as_real_doubles_strides_and_shares_the_bytes)
{
    pt_tensor *z = cramp(6), *sl = NULL;
    CHECK(z);
    const int64_t start = 1, end = 6;
    CHECK((sl = pt_call_slice_Tensor(z, 0, &start, &end, 2)) != NULL); /* elements 1, 3, 5 */
    pt_tensor *v = pt_call_view_as_real(sl);
    CHECK(v != NULL);
    CHECK(pt_tensor_dtype(v) == PT_FLOAT32 && pt_tensor_ndim(v) == 2);
    CHECK(pt_tensor_sizes(v)[0] == 3 && pt_tensor_sizes(v)[1] == 2);
    CHECK(pt_tensor_strides(v)[0] == 4 && pt_tensor_strides(v)[1] == 1);
    CHECK(pt_tensor_offset(v) == 2);
    CHECK(pt_tensor_storage(v) == pt_tensor_storage(z));
    CHECK(pt_autograd_version(v) == pt_autograd_version(sl));
    /* and back: the complex view of the real view is the slice again */
    pt_tensor *w = pt_call_view_as_complex(v);
    CHECK(w != NULL);
    CHECK(pt_tensor_dtype(w) == PT_COMPLEX64 && pt_tensor_strides(w)[0] == 2);
    CHECK(pt_tensor_offset(w) == 1);
    pt_tensor_release(w);
    pt_tensor_release(v);
    pt_tensor_release(sl);
    pt_tensor_release(z);
}

PT_TEST(complex_view_as_complex_refuses_what_torch_refuses)
{
    pt_tensor *x = NULL;
    const int64_t n = 6;
    CHECK_OK(pt_tensor_empty(1, &n, PT_FLOAT64, cpu, &x));
    CHECK(pt_call_view_as_complex(x) == NULL);
    CHECK(strstr(pt_error_message(), "Tensor must have a last dimension of size 2"));
    const int64_t s = 1, e = 5;
    pt_tensor *odd = pt_call_slice_Tensor(x, 0, &s, &e, 1);
    const int64_t shape[2] = {2, 2};
    pt_tensor *pairs = odd ? pt_call_view(odd, 2, shape) : NULL;
    CHECK(pairs != NULL);
    CHECK(pt_call_view_as_complex(pairs) == NULL);
    CHECK(strstr(pt_error_message(), "Tensor must have a storage_offset divisible by 2"));
    CHECK(pt_call_view_as_real(x) == NULL);
    CHECK(strstr(pt_error_message(), "view_as_real is only supported for complex tensors"));
    pt_tensor_release(pairs);
    pt_tensor_release(odd);
    pt_tensor_release(x);
}

PT_TEST(complex_conj_is_a_view_with_the_bit_and_returns_real_tensors_themselves)
{
    pt_tensor *z = cramp(3);
    pt_tensor *c = pt_call_conj(z);
    CHECK(c != NULL && c != z && pt_tensor_data(c) == pt_tensor_data(z));
    CHECK(pt_tensor_math_bits(c) == PT_MATH_BIT_CONJ && pt_tensor_math_bits(z) == 0);
    pt_tensor *r = pt_call_resolve_conj(c);
    CHECK(r != NULL && pt_tensor_math_bits(r) == 0);
    const float *p = pt_tensor_data(r);
    CHECK(p[2] == 1.0f && p[3] == -10.0f && p[5] == -20.0f);
    pt_tensor_release(r);
    pt_tensor *re = pt_call_real(z);
    CHECK(re != NULL && pt_tensor_dtype(re) == PT_FLOAT32 && pt_tensor_strides(re)[0] == 2);
    pt_tensor *same = pt_call_conj(re);
    CHECK(same == re); /* the real tensor itself: no copy */
    pt_tensor_release(same);
    pt_tensor_release(re);
    pt_tensor_release(c);
    pt_tensor_release(z);
}

PT_TEST(complex_angle_polar_and_complex_give_exact_parts)
{
    pt_tensor *z = cramp(3);
    pt_tensor *a = pt_call_angle(z);
    CHECK(a != NULL && pt_tensor_dtype(a) == PT_FLOAT32);
    CHECK(((const float *)pt_tensor_data(a))[2] == atan2f(20.0f, 2.0f));
    pt_tensor *re = pt_call_real(z), *im = pt_call_imag(z);
    CHECK(re && im);
    pt_tensor *back = pt_call_complex(re, im);
    CHECK(back != NULL && pt_tensor_dtype(back) == PT_COMPLEX64);
    const float *b = pt_tensor_data(back);
    CHECK(b[4] == 2.0f && b[5] == 20.0f);
    pt_tensor *p = pt_call_polar(re, im);
    CHECK(p != NULL);
    const float *q = pt_tensor_data(p);
    CHECK(q[2] == 1.0f * cosf(10.0f) && q[3] == 1.0f * sinf(10.0f));
    pt_tensor_release(p);
    pt_tensor_release(back);
    pt_tensor_release(im);
    pt_tensor_release(re);
    pt_tensor_release(a);
    pt_tensor_release(z);
}
