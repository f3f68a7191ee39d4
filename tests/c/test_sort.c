/* test_sort.c - the sorting, set and distance kernels through their entry points: stable sorts
 * with NaN last and -0.0 kept in place, long rows that take the radix path and many rows that
 * take the threads (checked against a plain comparison of neighbours), topk's range errors, the
 * unique family's groups, the boxed `unique` pushing one to three results, cross, cdist and
 * pdist against exact arithmetic, out= moves, meta shapes, and ownership on failure paths (the
 * sanitizer build finds leaks). */
#include <math.h>
#include <stdlib.h>

#include "pt_ops.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};
static const pt_device META = {PT_DEV_META, 0};

static pt_tensor *make(int32_t ndim, const int64_t *sizes, int32_t dtype, const double *values)
{
    pt_tensor *t;
    if (pt_tensor_empty(ndim, sizes, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < t->numel; i++) {
        pt_scalar v = {PT_SCALAR_FLOAT, 0, values[i], 0};
        pt_dtype_scalar_to(dtype)(&v, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

static double at(const pt_tensor *t, int64_t i)
{
    pt_scalar s;
    const char *p = (const char *)pt_tensor_data(t) + i * pt_dtype_itemsize(t->dtype);
    pt_dtype_scalar_from(t->dtype)(p, &s);
    return s.kind == PT_SCALAR_FLOAT ? s.re : (double)s.i;
}

static void release_all(pt_tensor **ts, int n)
{
    for (int i = 0; i < n; i++) pt_tensor_release(ts[i]);
}

PT_TEST(sort_is_stable_with_nan_last_and_signed_zeros_in_place)
{
    const double v[] = {2.0, NAN, -0.0, 1.0, 0.0, -INFINITY, NAN, -0.0};
    const int64_t n = 8, want_idx[] = {5, 2, 4, 7, 3, 0, 1, 6};
    pt_tensor *x = make(1, &n, PT_FLOAT32, v), *vals, *idx;
    CHECK(x);
    CHECK_OK(pt_call_sort(x, -1, 0, &vals, &idx));
    for (int i = 0; i < 8; i++) CHECK(at(idx, i) == want_idx[i]);
    CHECK(signbit(at(vals, 1)) && !signbit(at(vals, 2)) && isnan(at(vals, 7)));
    pt_tensor_release(vals);
    pt_tensor_release(idx);
    /* descending: NaN first, equal keys still in input order */
    CHECK_OK(pt_call_sort(x, 0, 1, &vals, &idx));
    CHECK(at(idx, 0) == 1 && at(idx, 1) == 6 && at(idx, 2) == 0 && at(idx, 4) == 2);
    pt_tensor *all[] = {x, vals, idx};
    release_all(all, 3);
}

/* Rows long enough for the radix sort and enough of them for the threads, in int16 (2 key
 * bytes) and float64 (8): each row must come out non-decreasing, and its indices a permutation
 * that points at the values. */
PT_TEST(sort_long_rows_and_many_rows_against_neighbour_order)
{
    const int32_t dtypes[] = {PT_INT16, PT_FLOAT64};
    const int64_t sizes[2] = {40, 3001};
    double *v = malloc(sizeof(double) * 40 * 3001);
    CHECK(v);
    uint64_t state = 12345;
    for (int64_t i = 0; i < 40 * 3001; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (double)((int64_t)(state >> 33) % 60000 - 30000);
    }
    for (int d = 0; d < 2; d++) {
        pt_tensor *x = make(2, sizes, dtypes[d], v), *vals = NULL, *idx = NULL;
        if (!x || pt_call_sort(x, 1, 0, &vals, &idx) != PT_OK) {
            pt_tensor_release(x);
            free(v);
            CHECK(!"sort failed");
        }
        bool ok = true;
        for (int64_t r = 0; r < 40 && ok; r++)
            for (int64_t j = 0; j < 3001 && ok; j++) {
                int64_t k = r * 3001 + j;
                ok = at(vals, k) == at(x, r * 3001 + (int64_t)at(idx, k));
                if (j > 0) ok = ok && at(vals, k - 1) <= at(vals, k);
            }
        pt_tensor *all[] = {x, vals, idx};
        release_all(all, 3);
        if (!ok) free(v);
        CHECK(ok);
    }
    free(v);
}

PT_TEST(topk_checks_k_and_takes_the_largest)
{
    const double v[] = {3, 9, 1, 7, 5};
    const int64_t n = 5;
    pt_tensor *x = make(1, &n, PT_INT32, v), *vals, *idx;
    CHECK(x);
    CHECK_ERR(pt_call_topk(x, 6, -1, 1, 1, &vals, &idx), PT_ERR_RUNTIME,
              "selected index k out of range");
    CHECK_ERR(pt_call_topk(x, -1, -1, 1, 1, &vals, &idx), PT_ERR_RUNTIME,
              "selected index k out of range");
    CHECK_ERR(pt_call_topk(x, 1, 1, 1, 1, &vals, &idx), PT_ERR_INDEX, "Dimension out of range");
    CHECK_OK(pt_call_topk(x, 2, 0, 1, 1, &vals, &idx));
    CHECK(vals->numel == 2 && at(vals, 0) == 9 && at(vals, 1) == 7 && at(idx, 1) == 3);
    pt_tensor *all[] = {x, vals, idx};
    release_all(all, 3);
}

PT_TEST(sort_refuses_complex_and_meta_gets_shapes)
{
    int64_t sizes[2] = {3, 4};
    pt_tensor *c, *m, *vals, *idx;
    CHECK_OK(pt_tensor_empty(1, sizes, PT_COMPLEX64, CPU, &c));
    CHECK_ERR(pt_call_sort(c, -1, 0, &vals, &idx), PT_ERR_RUNTIME,
              "Sort does not support complex dtypes on CPU");
    pt_tensor_release(c);
    CHECK_OK(pt_tensor_empty(2, sizes, PT_FLOAT32, META, &m));
    CHECK_OK(pt_call_topk(m, 2, 0, 1, 1, &vals, &idx));
    CHECK(vals->device.type == PT_DEV_META && vals->sizes[0] == 2 && idx->dtype == PT_INT64);
    pt_tensor *all[] = {m, vals, idx};
    release_all(all, 3);
}

PT_TEST(unique_groups_values_inverse_and_counts)
{
    const double v[] = {3, 1, 3, NAN, 1, NAN};
    const int64_t n = 6;
    pt_tensor *x = make(1, &n, PT_FLOAT64, v), *r[3];
    CHECK(x);
    CHECK_OK(pt_call__unique2(x, 1, 1, 1, &r[0], &r[1], &r[2]));
    /* 1, 3, then each NaN on its own */
    CHECK(r[0]->numel == 4 && at(r[0], 0) == 1 && at(r[0], 1) == 3 && isnan(at(r[0], 3)));
    CHECK(at(r[1], 0) == 1 && at(r[1], 1) == 0 && at(r[1], 3) == 2 && at(r[1], 5) == 3);
    CHECK(at(r[2], 0) == 2 && at(r[2], 1) == 2 && at(r[2], 2) == 1);
    release_all(r, 3);
    CHECK_OK(pt_call_unique_consecutive(x, 0, 0, NULL, &r[0], &r[1], &r[2]));
    CHECK(r[0]->numel == 6 && r[1]->numel == 0 && r[2]->numel == 0);
    release_all(r, 3);
    pt_tensor_release(x);
}

/* The boxed `unique` leaves the values and only the results asked for on the stack. */
PT_TEST(unique_operator_pushes_the_results_asked_for)
{
    const double v[] = {2, 2, 5};
    const int64_t n = 3;
    pt_tensor *x = make(1, &n, PT_INT64, v);
    CHECK(x);
    pt_op *op;
    CHECK_OK(pt_dispatch_find("aten::unique", "", &op));
    const int32_t flags[3][2] = {{0, 0}, {1, 0}, {1, 1}};
    for (int f = 0; f < 3; f++) {
        pt_ivalue items[5] = {{.tag = PT_IV_TENSOR, .t = x}, {.tag = PT_IV_BOOL, .i = 1},
                              {.tag = PT_IV_BOOL, .i = flags[f][0]},
                              {.tag = PT_IV_BOOL, .i = flags[f][1]}, {.tag = PT_IV_NONE}};
        pt_stack st = {items, 5, 5};
        CHECK_OK(pt_dispatch_call(op, &st));
        CHECK(st.size == 1 + flags[f][0] + flags[f][1]);
        CHECK(items[0].tag == PT_IV_TENSOR && items[0].t->numel == 2);
        pt_stack_clear(&st);
    }
    pt_ivalue bad[5] = {{.tag = PT_IV_TENSOR, .t = x}, {.tag = PT_IV_INT, .i = 1}};
    pt_stack st = {bad, 5, 5};
    CHECK(pt_dispatch_call(op, &st) == PT_ERR_TYPE);
    pt_tensor_release(x);
}

PT_TEST(unique_dim_merges_equal_rows_and_refuses_zero_sized_others)
{
    const double v[] = {1, 2, 0, 5, 1, 2};
    const int64_t sizes[2] = {3, 2}, empty[2] = {0, 3};
    pt_tensor *x = make(2, sizes, PT_INT8, v), *r[3], *e;
    CHECK(x);
    CHECK_OK(pt_call_unique_dim(x, 0, 1, 0, 0, &r[0], &r[1], &r[2]));
    CHECK(r[0]->sizes[0] == 2 && at(r[0], 0) == 0 && at(r[0], 2) == 1);
    CHECK(at(r[1], 0) == 1 && at(r[1], 1) == 0 && at(r[1], 2) == 1 && at(r[2], 1) == 2);
    release_all(r, 3);
    CHECK_OK(pt_tensor_empty(2, empty, PT_FLOAT32, CPU, &e));
    CHECK_ERR(pt_call_unique_dim(e, 1, 1, 0, 0, &r[0], &r[1], &r[2]), PT_ERR_RUNTIME,
              "There are 0 sized dimensions");
    pt_tensor_release(e);
    pt_tensor_release(x);
}

PT_TEST(cross_cdist_pdist_against_exact_arithmetic)
{
    const double a[] = {1, 0, 0, 0, 2, 0}, b[] = {0, 1, 0, 0, 0, 3};
    const int64_t s23[2] = {2, 3};
    pt_tensor *x = make(2, s23, PT_INT32, a), *y = make(2, s23, PT_INT32, b);
    CHECK(x && y);
    pt_tensor *c = pt_call_linalg_cross(x, y, -1);
    CHECK(c && at(c, 2) == 1 && at(c, 3) == 6 && at(c, 4) == 0);
    pt_tensor_release(c);
    pt_tensor *xf = make(2, s23, PT_FLOAT64, a), *yf = make(2, s23, PT_FLOAT64, b);
    CHECK(xf && yf);
    pt_tensor *d = pt_call_cdist(xf, yf, 2.0, NULL);
    CHECK(d && fabs(at(d, 0) - sqrt(2.0)) < 1e-15 && fabs(at(d, 3) - sqrt(13.0)) < 1e-15);
    pt_tensor_release(d);
    d = pt_call_cdist(xf, yf, INFINITY, NULL);
    CHECK(d && at(d, 0) == 1 && at(d, 3) == 3);
    pt_tensor_release(d);
    d = pt_call_pdist(xf, 0.0);
    CHECK(d && d->numel == 1 && at(d, 0) == 2);
    pt_tensor_release(d);
    CHECK(pt_call_cdist(x, y, 2.0, NULL) == NULL);
    CHECK(strstr(pt_error_message(), "cdist only supports floating-point dtypes, X1 got: Int"));
    CHECK(pt_call_pdist(xf, -1.0) == NULL);
    CHECK(strstr(pt_error_message(), "pdist only supports non-negative p values"));
    pt_tensor *all[] = {x, y, xf, yf};
    release_all(all, 4);
}

PT_TEST(out_forms_resize_empty_outs_and_refuse_wrong_dtypes)
{
    const double v[] = {4, 2, 3};
    const int64_t n = 3, zero = 0;
    pt_tensor *x = make(1, &n, PT_FLOAT32, v), *vo, *io, *bad, *r0, *r1;
    CHECK(x);
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT32, CPU, &vo));
    CHECK_OK(pt_tensor_empty(1, &zero, PT_INT64, CPU, &io));
    CHECK_OK(pt_tensor_empty(1, &zero, PT_INT32, CPU, &bad));
    CHECK_OK(pt_call_sort_values(x, 0, 0, vo, io, &r0, &r1));
    CHECK(r0 == vo && r1 == io && vo->numel == 3 && at(vo, 0) == 2 && at(io, 0) == 1);
    pt_tensor_release(r0);
    pt_tensor_release(r1);
    CHECK_ERR(pt_call_sort_values(x, 0, 0, vo, bad, &r0, &r1), PT_ERR_RUNTIME,
              "Expected out tensor to have dtype int64, but got int32 instead");
    pt_tensor *all[] = {x, vo, io, bad};
    release_all(all, 4);
}
