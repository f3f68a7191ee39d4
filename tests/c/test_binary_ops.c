/* test_binary_ops.c - the binary operator families through their entry points: division (true,
 * trunc, floor, remainder, fmod) against exact integer arithmetic and Python's sign rules, the
 * integer division by zero and INT_MIN / -1, pow's integer rules and Scalar exponents, maximum and
 * minimum with NaN, comparisons and logical operators writing bool and other out= dtypes, bitwise
 * operators and torch's shift rules, dtype refusals in torch's words, meta tensors, and every CPU
 * capability's loops against the default ones. */
#include <math.h>
#include <string.h>

#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};

static pt_tensor *ints(int64_t n, int32_t dtype, const int64_t *v)
{
    pt_tensor *t;
    if (pt_tensor_empty(1, &n, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < n; i++) {
        pt_scalar s = {PT_SCALAR_INT, v[i], 0, 0};
        pt_dtype_scalar_to(dtype)(&s, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

static pt_tensor *floats(int64_t n, int32_t dtype, const double *v)
{
    pt_tensor *t;
    if (pt_tensor_empty(1, &n, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < n; i++) {
        pt_scalar s = {PT_SCALAR_FLOAT, 0, v[i], 0};
        pt_dtype_scalar_to(dtype)(&s, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

static pt_scalar at(const pt_tensor *t, int64_t i)
{
    pt_scalar s;
    pt_dtype_scalar_from(t->dtype)((const char *)pt_tensor_data(t) +
                                       (i * t->strides[0]) * pt_dtype_itemsize(t->dtype), &s);
    return s;
}

/* Python's floor division and modulo, the oracle for the integer loops. */
static int64_t py_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

PT_TEST(integer_division_follows_python_and_c_sign_rules)
{
    int64_t av[64], bv[64];
    int n = 0;
    for (int64_t a = -7; a <= 7; a += 2)
        for (int64_t b = -3; b <= 3; b++)
            if (b != 0 && n < 64) {
                av[n] = a;
                bv[n++] = b;
            }
    const int32_t dtypes[] = {PT_INT8, PT_INT16, PT_INT32, PT_INT64};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        pt_tensor *a = ints(n, dtypes[d], av), *b = ints(n, dtypes[d], bv);
        CHECK(a && b);
        pt_tensor *fl = pt_call_div_Tensor_mode(a, b, "floor");
        pt_tensor *tr = pt_call_div_Tensor_mode(a, b, "trunc");
        pt_tensor *rem = pt_call_remainder_Tensor(a, b), *fm = pt_call_fmod_Tensor(a, b);
        CHECK(fl && tr && rem && fm && fl->dtype == dtypes[d]);
        for (int i = 0; i < n; i++) {
            CHECK(at(fl, i).i == py_floordiv(av[i], bv[i]));
            CHECK(at(tr, i).i == av[i] / bv[i]);
            CHECK(at(rem, i).i == av[i] - py_floordiv(av[i], bv[i]) * bv[i]);
            CHECK(at(fm, i).i == av[i] % bv[i]);
        }
        pt_tensor *tv[] = {a, b, fl, tr, rem, fm};
        for (size_t k = 0; k < 6; k++) pt_tensor_release(tv[k]);
    }
}

PT_TEST(integer_division_by_zero_and_int_min)
{
    const int64_t av[] = {INT64_MIN, 5}, bv[] = {-1, 0}, one[] = {-1, -1};
    pt_tensor *a = ints(2, PT_INT64, av), *b = ints(2, PT_INT64, bv), *m = ints(2, PT_INT64, one);
    CHECK(a && b && m);
    CHECK(pt_call_div_Tensor_mode(a, b, "floor") == NULL);
    CHECK(strcmp(pt_error_message(), "ZeroDivisionError") == 0 || strstr(pt_error_message(),
                                                                          "ZeroDivisionError"));
    CHECK(pt_call_fmod_Tensor(a, b) == NULL);
    pt_tensor *q = pt_call_div_Tensor_mode(a, m, "trunc"), *r = pt_call_remainder_Tensor(a, m);
    CHECK(q && r);
    CHECK(at(q, 0).i == INT64_MIN && at(q, 1).i == -5 && at(r, 0).i == 0);
    pt_tensor *tv[] = {a, b, m, q, r};
    for (size_t k = 0; k < 5; k++) pt_tensor_release(tv[k]);
}

PT_TEST(pow_integer_rules_and_scalar_exponents)
{
    const int64_t bv[] = {-1, 1, 2, -2, 3}, ev[] = {-3, -4, -1, 3, 2};
    pt_tensor *b = ints(5, PT_INT32, bv), *e = ints(5, PT_INT32, ev);
    pt_tensor *p = pt_call_pow_Tensor_Tensor(b, e);
    CHECK(p);
    const int64_t want[] = {-1, 1, 0, -8, 9};
    for (int i = 0; i < 5; i++) CHECK(at(p, i).i == want[i]);
    pt_scalar neg = {PT_SCALAR_INT, -1, 0, 0}, half = {PT_SCALAR_FLOAT, 0, 0.5, 0};
    CHECK(pt_call_pow_Tensor_Scalar(b, &neg) == NULL);
    CHECK(strstr(pt_error_message(), "Integers to negative integer powers are not allowed."));
    const double xv[] = {-0.0, -INFINITY, 4.0};
    pt_tensor *x = floats(3, PT_FLOAT32, xv), *s = pt_call_pow_Tensor_Scalar(x, &half);
    CHECK(x && s && s->dtype == PT_FLOAT32);
    /* torch's sqrt path: (-0) ** 0.5 is -0 and (-inf) ** 0.5 NaN */
    CHECK(at(s, 0).re == 0.0 && signbit(at(s, 0).re) && isnan(at(s, 1).re) && at(s, 2).re == 2.0);
    pt_tensor *tv[] = {b, e, p, x, s};
    for (size_t k = 0; k < 5; k++) pt_tensor_release(tv[k]);
}

PT_TEST(maximum_minimum_propagate_nan)
{
    const double av[] = {NAN, 1.0, 3.0}, bv[] = {1.0, NAN, -3.0};
    pt_tensor *a = floats(3, PT_FLOAT64, av), *b = floats(3, PT_FLOAT64, bv);
    pt_tensor *mx = pt_call_maximum(a, b), *mn = pt_call_minimum(a, b);
    CHECK(mx && mn);
    CHECK(isnan(at(mx, 0).re) && isnan(at(mx, 1).re) && at(mx, 2).re == 3.0);
    CHECK(isnan(at(mn, 0).re) && isnan(at(mn, 1).re) && at(mn, 2).re == -3.0);
    pt_tensor *tv[] = {a, b, mx, mn};
    for (size_t k = 0; k < 4; k++) pt_tensor_release(tv[k]);
}

PT_TEST(comparisons_write_bool_or_the_out_dtype)
{
    const int64_t av[] = {-1, 2, 255}, bv[] = {1, 2, -1};
    pt_tensor *a = ints(3, PT_INT16, av), *b = ints(3, PT_UINT8, bv); /* uint8 -1 is 255 */
    pt_tensor *lt = pt_call_lt_Tensor(a, b);
    CHECK(lt && lt->dtype == PT_BOOL);
    CHECK(at(lt, 0).i == 1 && at(lt, 1).i == 0 && at(lt, 2).i == 0);
    int64_t n = 3;
    pt_tensor *out;
    CHECK_OK(pt_tensor_empty(1, &n, PT_FLOAT64, CPU, &out));
    pt_tensor *r = pt_call_eq_Tensor_out(a, b, out);
    CHECK(r == out && at(out, 1).re == 1.0 && at(out, 2).re == 1.0 && at(out, 0).re == 0.0);
    pt_tensor_release(r);
    pt_tensor *x = pt_call_logical_xor(a, b);
    CHECK(x && x->dtype == PT_BOOL && at(x, 0).i == 0);
    pt_tensor *tv[] = {a, b, lt, out, x};
    for (size_t k = 0; k < 5; k++) pt_tensor_release(tv[k]);
}

PT_TEST(bitwise_and_shift_rules)
{
    const int64_t av[] = {1, -1, 5, -128}, sv[] = {8, 7, -1, 9};
    pt_tensor *a = ints(4, PT_INT8, av), *s = ints(4, PT_INT8, sv);
    pt_tensor *l = pt_call_bitwise_left_shift_Tensor(a, s);
    pt_tensor *r = pt_call_bitwise_right_shift_Tensor(a, s);
    CHECK(l && r);
    const int64_t lw[] = {0, -128, 0, 0}, rw[] = {0, -1, 0, -1};
    for (int i = 0; i < 4; i++) CHECK(at(l, i).i == lw[i] && at(r, i).i == rw[i]);
    pt_tensor *x = pt_call_bitwise_xor_Tensor(a, s), *nt = pt_call_bitwise_not(a);
    CHECK(x && nt && at(x, 0).i == (1 ^ 8) && at(nt, 1).i == 0);
    const double fv[] = {1.0};
    pt_tensor *f = floats(1, PT_FLOAT32, fv);
    CHECK(pt_call_bitwise_and_Tensor(f, f) == NULL);
    CHECK(strstr(pt_error_message(), "\"bitwise_and_cpu\" not implemented for 'Float'"));
    pt_tensor *tv[] = {a, s, l, r, x, nt, f};
    for (size_t k = 0; k < 7; k++) pt_tensor_release(tv[k]);
}

PT_TEST(meta_tensors_compute_shapes_only)
{
    int64_t sa[2] = {3, 1}, sb[1] = {4};
    pt_tensor *a, *b;
    pt_device meta = {PT_DEV_META, 0};
    CHECK_OK(pt_tensor_empty(2, sa, PT_INT32, meta, &a));
    CHECK_OK(pt_tensor_empty(1, sb, PT_INT32, meta, &b));
    pt_tensor *d = pt_call_div_Tensor(a, b), *c = pt_call_ge_Tensor(a, b);
    pt_tensor *z = pt_call_remainder_Tensor(a, b); /* no data: no division by zero to see */
    CHECK(d && c && z && d->dtype == PT_FLOAT32 && c->dtype == PT_BOOL);
    CHECK(d->device.type == PT_DEV_META);
    CHECK(d->ndim == 2 && d->sizes[0] == 3 && d->sizes[1] == 4);
    pt_tensor *tv[] = {a, b, d, c, z};
    for (size_t k = 0; k < 5; k++) pt_tensor_release(tv[k]);
}

/* Every capability's loops give the default's bits, over sizes that cross the vector widths and
 * the thread split. */
PT_TEST(capabilities_agree_with_the_default)
{
    const int64_t n = 70001;
    pt_tensor *a, *b;
    CHECK_OK(pt_tensor_empty(1, &n, PT_FLOAT32, CPU, &a));
    CHECK_OK(pt_tensor_empty(1, &n, PT_FLOAT32, CPU, &b));
    float *av = pt_tensor_data(a), *bv = pt_tensor_data(b);
    for (int64_t i = 0; i < n; i++) {
        av[i] = (float)((i * 37) % 1001) / 7.0f - 60.0f;
        bv[i] = (float)((i * 11) % 97) / 3.0f - 13.5f;
    }
    pt_tensor *ref[4] = {NULL};
    const int32_t detected = pt_cpu_capability_detected();
    for (int32_t cap = 0; cap <= detected; cap++) {
        CHECK_OK(pt_cpu_capability_select(cap));
        pt_tensor *r[4] = {pt_call_div_Tensor_mode(a, b, "floor"), pt_call_remainder_Tensor(a, b),
                           pt_call_le_Tensor(a, b), pt_call_maximum(a, b)};
        for (int k = 0; k < 4; k++) {
            CHECK(r[k]);
            if (cap == 0) {
                ref[k] = r[k];
                continue;
            }
            CHECK(memcmp(pt_tensor_data(r[k]), pt_tensor_data(ref[k]),
                         (size_t)(n * pt_dtype_itemsize(r[k]->dtype))) == 0);
            pt_tensor_release(r[k]);
        }
    }
    CHECK_OK(pt_cpu_capability_select(pt_cpu_capability()));
    for (int k = 0; k < 4; k++) pt_tensor_release(ref[k]);
    pt_tensor_release(a);
    pt_tensor_release(b);
}
