/* test_reduce.c - the reduction engine and fronts in C: dims parsing and torch's messages, sums
 * of int64 that must be exact whatever the walk (inner, chunked, outer, strided, flipped), float
 * sums against exact values, NaN in max/min and argmax, scans, empty reductions, out= resizing,
 * meta tensors and the same results on every CPU capability. */
#include <math.h>
#include <string.h>

#include "../../csrc/kernels/iter.h"
#include "../../csrc/kernels/reduce.h"
#include "pt_ops_internal.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};
static const pt_device META = {PT_DEV_META, 0};

/* A tensor of dtype holding f(i) at row-major position i. */
static pt_tensor *make(int32_t ndim, const int64_t *sizes, int32_t dtype, double (*f)(int64_t))
{
    pt_tensor *t;
    if (pt_tensor_empty(ndim, sizes, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < t->numel; i++) {
        pt_scalar v = {PT_SCALAR_FLOAT, 0, f(i), 0};
        pt_dtype_scalar_to(dtype)(&v, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

static double at(const pt_tensor *t, int64_t i)
{
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    pt_scalar s;
    pt_dtype_scalar_from(t->dtype)((const char *)pt_tensor_data(t) + off * pt_dtype_itemsize(t->dtype), &s);
    return s.kind == PT_SCALAR_INT || s.kind == PT_SCALAR_BOOL ? (double)s.i : s.re;
}

static double mod97(int64_t i) { return (double)(i * 7919 % 97) - 48; }
static double one(int64_t i) { return i >= 0 ? 1.0 : 0.0; }

PT_TEST(reduce_dims_follow_torch_rules_and_messages)
{
    int64_t sizes[3] = {2, 3, 4};
    pt_tensor *t;
    CHECK_OK(pt_tensor_empty(3, sizes, PT_FLOAT32, CPU, &t));
    bool mask[3];
    const int64_t rep[2] = {0, -3}, bad[1] = {3}, two[2] = {-1, 1};
    CHECK_ERR(pt_reduce_dims(t, 2, rep, mask), PT_ERR_RUNTIME,
              "dim 0 appears multiple times in the list of dims");
    CHECK_ERR(pt_reduce_dims(t, 1, bad, mask), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    CHECK_OK(pt_reduce_dims(t, 2, two, mask));
    CHECK(!mask[0] && mask[1] && mask[2]);
    CHECK_OK(pt_reduce_dims(t, 0, NULL, mask));
    CHECK(mask[0] && mask[1] && mask[2]);
    int64_t kept[3];
    const bool m2[3] = {false, true, false};
    CHECK(pt_reduce_shape(t, m2, true, kept) == 3 && kept[1] == 1 && kept[2] == 4);
    CHECK(pt_reduce_shape(t, m2, false, kept) == 2 && kept[0] == 2 && kept[1] == 4);
    pt_tensor_release(t);
}

/* int64 sums are exact, so every walk must give exactly the row-major reference. */
static void check_int_sums(pt_test_ctx *pt_ctx_, const pt_tensor *x)
{
    for (int32_t d = 0; d < x->ndim; d++) {
        pt_tensor *r;
        CHECK_OK(pt_kernel_sum_dim_IntList(x, 1, (const int64_t[]){d}, 0, -1, &r));
        CHECK(r->dtype == PT_INT64);
        const int64_t n = x->sizes[d];
        int64_t inner = 1;
        for (int32_t k = d + 1; k < x->ndim; k++) inner *= x->sizes[k];
        for (int64_t o = 0; o < r->numel; o++) {
            const int64_t outer = o / inner, in = o % inner;
            double want = 0;
            for (int64_t j = 0; j < n; j++) want += at(x, (outer * n + j) * inner + in);
            CHECK(at(r, o) == want);
        }
        pt_tensor_release(r);
    }
}

PT_TEST(reduce_int_sums_are_exact_on_every_walk)
{
    const int64_t shapes[4][2] = {{3, 100000}, {100000, 3}, {700, 300}, {1, 70001}};
    for (int s = 0; s < 4; s++) {
        pt_tensor *x = make(2, shapes[s], PT_INT32, mod97), *t, *f;
        check_int_sums(pt_ctx_, x);
        CHECK_OK(pt_tensor_transpose(x, 0, 1, &t));
        check_int_sums(pt_ctx_, t);
        CHECK_OK(pt_tensor_flip_view(x, 1, &f));
        check_int_sums(pt_ctx_, f);
        pt_tensor_release(f);
        pt_tensor_release(t);
        pt_tensor_release(x);
    }
}

PT_TEST(reduce_float_sum_of_ones_is_exact_and_thread_independent)
{
    const int64_t n = 5000003;
    pt_tensor *x = make(1, &n, PT_FLOAT32, one), *r1, *r2;
    const int32_t threads = pt_get_num_threads();
    CHECK_OK(pt_set_num_threads(1));
    CHECK_OK(pt_kernel_sum(x, -1, &r1));
    CHECK_OK(pt_set_num_threads(3));
    CHECK_OK(pt_kernel_sum(x, -1, &r2));
    CHECK_OK(pt_set_num_threads(threads));
    CHECK(at(r1, 0) == (double)n && memcmp(pt_tensor_data(r1), pt_tensor_data(r2), 4) == 0);
    pt_tensor_release(r1);
    pt_tensor_release(r2);
    pt_tensor_release(x);
}

static double with_nan(int64_t i) { return i == 3 ? NAN : (double)(i % 5); }

PT_TEST(reduce_max_min_propagate_nan_and_argmax_picks_it)
{
    const int64_t sizes[2] = {2, 100};
    pt_tensor *x = make(2, sizes, PT_FLOAT64, with_nan), *a, *b, *v, *i;
    CHECK_OK(pt_kernel_amax(x, 1, (const int64_t[]){1}, 0, &a));
    CHECK(isnan(at(a, 0)) && at(a, 1) == 4);
    CHECK_OK(pt_kernel_min(x, &b));
    CHECK(isnan(at(b, 0)));
    CHECK_OK(pt_kernel_max_dim(x, 1, 1, &v, &i));
    CHECK(isnan(at(v, 0)) && at(i, 0) == 3 && at(i, 1) == 4 && i->ndim == 2);
    pt_tensor_release(a);
    pt_tensor_release(b);
    pt_tensor_release(v);
    pt_tensor_release(i);
    pt_tensor_release(x);
}

PT_TEST(reduce_empty_inputs_give_identities_or_torch_errors)
{
    const int64_t sizes[2] = {0, 3};
    pt_tensor *x, *s, *p, *m;
    CHECK_OK(pt_tensor_empty(2, sizes, PT_FLOAT32, CPU, &x));
    CHECK_OK(pt_kernel_sum(x, -1, &s));
    CHECK_OK(pt_kernel_prod(x, -1, &p));
    CHECK_OK(pt_kernel_mean_dim(x, 1, (const int64_t[]){0}, 0, -1, &m));
    CHECK(at(s, 0) == 0 && at(p, 0) == 1 && isnan(at(m, 0)) && m->numel == 3);
    pt_tensor *r = NULL;
    CHECK_ERR(pt_kernel_max(x, &r), PT_ERR_RUNTIME, "max(): Expected reduction dim to be specified");
    CHECK_ERR(pt_kernel_argmax(x, (const int64_t[]){0}, 0, &r), PT_ERR_INDEX,
              "argmax(): Expected reduction dim 0 to have non-zero size.");
    pt_tensor_release(s);
    pt_tensor_release(p);
    pt_tensor_release(m);
    pt_tensor_release(x);
}

static double small(int64_t i) { return (double)(i % 4) + 1; }

PT_TEST(reduce_scans_and_out_resizing)
{
    const int64_t sizes[2] = {3, 4};
    pt_tensor *x = make(2, sizes, PT_INT16, small), *c, *out, *r;
    CHECK_OK(pt_kernel_cumprod(x, 1, -1, &c));
    CHECK(c->dtype == PT_INT64 && at(c, 3) == 24 && at(c, 7) == 24);
    const int64_t zero = 0;
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT64, CPU, &out));
    CHECK_OK(pt_kernel_sum_IntList_out(x, 1, (const int64_t[]){1}, 0, -1, out, &r));
    CHECK(r == out && out->numel == 3 && at(out, 2) == 10);
    pt_tensor_release(r);
    pt_tensor *bad;
    CHECK_OK(pt_tensor_empty(1, &sizes[1], PT_FLOAT64, CPU, &bad));
    CHECK_ERR(pt_kernel_sum_IntList_out(x, 1, (const int64_t[]){1}, 0, -1, bad, &r),
              PT_ERR_RUNTIME, "doesn't match the result shape");
    pt_tensor_release(bad);
    pt_tensor_release(out);
    pt_tensor_release(c);
    pt_tensor_release(x);
}

PT_TEST(reduce_meta_tensors_get_shapes_and_dtypes)
{
    const int64_t sizes[3] = {2, 3, 4};
    pt_tensor *m, *r, *v, *i;
    CHECK_OK(pt_tensor_empty(3, sizes, PT_BFLOAT16, META, &m));
    CHECK_OK(pt_kernel_mean_dim(m, 2, (const int64_t[]){0, 2}, 1, -1, &r));
    CHECK(r->device.type == PT_DEV_META && r->ndim == 3 && r->sizes[1] == 3 &&
          r->dtype == PT_BFLOAT16);
    CHECK_OK(pt_kernel_min_dim(m, -1, 0, &v, &i));
    CHECK(i->dtype == PT_INT64 && i->ndim == 2 && v->device.type == PT_DEV_META);
    pt_tensor_release(r);
    pt_tensor_release(v);
    pt_tensor_release(i);
    pt_tensor_release(m);
}

PT_TEST(reduce_every_capability_matches_the_default_loops)
{
    const int64_t sizes[2] = {301, 257};
    pt_tensor *x = make(2, sizes, PT_FLOAT32, mod97), *ref[3];
    const int32_t detected = pt_cpu_capability_detected();
    CHECK_OK(pt_cpu_capability_select(0));
    CHECK_OK(pt_kernel_sum_dim_IntList(x, 1, (const int64_t[]){0}, 0, -1, &ref[0]));
    CHECK_OK(pt_kernel_sum_dim_IntList(x, 1, (const int64_t[]){1}, 0, -1, &ref[1]));
    CHECK_OK(pt_kernel_amax(x, 1, (const int64_t[]){0}, 0, &ref[2]));
    for (int32_t cap = 1; cap <= detected; cap++) {
        pt_tensor *r[3];
        CHECK_OK(pt_cpu_capability_select(cap));
        CHECK_OK(pt_kernel_sum_dim_IntList(x, 1, (const int64_t[]){0}, 0, -1, &r[0]));
        CHECK_OK(pt_kernel_sum_dim_IntList(x, 1, (const int64_t[]){1}, 0, -1, &r[1]));
        CHECK_OK(pt_kernel_amax(x, 1, (const int64_t[]){0}, 0, &r[2]));
        for (int k = 0; k < 3; k++) {
            for (int64_t j = 0; j < r[k]->numel; j++) CHECK(at(r[k], j) == at(ref[k], j));
            pt_tensor_release(r[k]);
        }
    }
    CHECK_OK(pt_cpu_capability_select(pt_cpu_capability()));
    for (int k = 0; k < 3; k++) pt_tensor_release(ref[k]);
    pt_tensor_release(x);
}

/* Note [mapped reductions]: sum((x - mean)^2) over columns (the outer walk) and rows (the inner
 * walk, in blocks) against a plain double loop; the engine refuses what it has no loop for. */
PT_TEST(reduce_mapped_sums_subtract_each_outputs_shift)
{
    const int64_t sizes[2] = {3000, 9};
    pt_tensor *x = make(2, sizes, PT_FLOAT64, mod97);
    CHECK(x);
    for (int32_t dim = 0; dim < 2; dim++) {
        bool mask[2] = {dim == 0, dim == 1};
        pt_tensor *mean, *v;
        CHECK_OK(pt_reduce_into(PT_RED_SUM, x, mask, &mean));
        pt_reduce_divide(mean, (double)sizes[dim]);
        CHECK_OK(pt_reduce_into_mapped(PT_RED_SUM, x, mask, PT_RED_MAP_ABS2, 0, mean, &v));
        for (int64_t o = 0; o < sizes[1 - dim]; o++) {
            double m = 0, want = 0;
            for (int64_t r = 0; r < sizes[dim]; r++)
                m += at(x, dim == 0 ? r * sizes[1] + o : o * sizes[1] + r);
            m /= (double)sizes[dim];
            for (int64_t r = 0; r < sizes[dim]; r++) {
                const double d = at(x, dim == 0 ? r * sizes[1] + o : o * sizes[1] + r) - m;
                want += d * d;
            }
            CHECK(fabs(at(v, o) - want) <= 1e-9 * want);
        }
        pt_tensor_release(mean);
        pt_tensor_release(v);
    }
    bool all[2] = {true, true};
    pt_tensor *i = make(2, sizes, PT_INT64, mod97), *out, *bad;
    CHECK(i);
    CHECK_ERR(pt_reduce_into_mapped(PT_RED_SUM, i, all, PT_RED_MAP_ABS, 0, NULL, &out),
              PT_ERR_RUNTIME, "no loop for dtype");
    const int64_t two = 2;
    CHECK_OK(pt_tensor_empty(1, &two, PT_FLOAT64, CPU, &bad));
    CHECK_ERR(pt_reduce_into_mapped(PT_RED_SUM, x, all, PT_RED_MAP_ABS2, 0, bad, &out),
              PT_ERR_RUNTIME, "the shift must have out's layout");
    pt_tensor_release(bad);
    pt_tensor_release(i);
    pt_tensor_release(x);
}
