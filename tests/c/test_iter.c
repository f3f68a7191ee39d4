/* test_iter.c - the elementwise iterator on its own, with a test loop: three inputs broadcast
 * together, staging of mixed dtypes into the loop's and back into the output's, loop dtypes chosen
 * after build (a bool output), in-place and out= rules, overlap refusals, the broadcast message
 * naming both shapes, meta tensors, misaligned operands, threaded work that gives the same bytes on
 * one thread and on many, and the stub table's capability switch. */
#include <string.h>

#include "../../csrc/kernels/cpu_stub.h"
#include "../../csrc/kernels/iter.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, -1};
static const pt_device META = {PT_DEV_META, 0};

static pt_tensor *filled(int32_t ndim, const int64_t *sizes, int32_t dtype, double start)
{
    pt_tensor *t;
    if (pt_tensor_empty(ndim, sizes, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < t->numel; i++) {
        pt_scalar v = {PT_SCALAR_FLOAT, 0, start + (double)(i % 1000), 0};
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

/* out = x + 2 * y - z in double (the loop dtype the tests choose). */
static void fma3_f8(char **data, const int64_t *s, int64_t n, void *ctx)
{
    PT_UNUSED(ctx);
    for (int64_t i = 0; i < n; i++) {
        double x = *(double *)(data[1] + i * s[1]), y = *(double *)(data[2] + i * s[2]);
        double z = *(double *)(data[3] + i * s[3]);
        *(double *)(data[0] + i * s[0]) = x + 2 * y - z;
    }
}

/* out (bool) = x < y, inputs in float. */
static void less_f4(char **data, const int64_t *s, int64_t n, void *ctx)
{
    PT_UNUSED(ctx);
    for (int64_t i = 0; i < n; i++)
        *(uint8_t *)(data[0] + i * s[0]) =
            *(float *)(data[1] + i * s[1]) < *(float *)(data[2] + i * s[2]);
}

static void copy_f4(char **data, const int64_t *s, int64_t n, void *ctx)
{
    PT_UNUSED(ctx);
    for (int64_t i = 0; i < n; i++) *(float *)(data[0] + i * s[0]) = *(float *)(data[1] + i * s[1]);
}

PT_TEST(iter_broadcasts_three_inputs_and_promotes_them)
{
    CHECK_OK(pt_init(NULL));
    const int64_t sx[2] = {3, 1}, sy[1] = {4}, sz[2] = {1, 4};
    pt_tensor *x = filled(2, sx, PT_INT32, 1), *y = filled(1, sy, PT_FLOAT32, 10);
    pt_tensor *z = filled(2, sz, PT_INT64, 100);
    pt_iter it;
    pt_iter_init(&it, "fma3", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, NULL, "out");
    pt_iter_add_input(&it, x, "x");
    pt_iter_add_input(&it, y, "y");
    pt_iter_add_input(&it, z, "z");
    CHECK_OK(pt_iter_build(&it));
    CHECK(it.common == PT_FLOAT32 && it.ndim == 2 && it.shape[0] == 3 && it.shape[1] == 4);
    for (int k = 0; k < 4; k++) it.loop_dtype[k] = PT_FLOAT64;
    pt_iter_run(&it, fma3_f8, NULL);
    pt_tensor *out = NULL;
    CHECK_OK(pt_iter_finish(&it, &out));
    CHECK(out->dtype == PT_FLOAT32 && out->numel == 12);
    for (int64_t i = 0; i < 12; i++)
        CHECK(at(out, i) == (1 + i / 4) + 2 * (10 + i % 4) - (100 + i % 4));
    pt_tensor_release(out);
    pt_tensor_release(x);
    pt_tensor_release(y);
    pt_tensor_release(z);
}

PT_TEST(iter_writes_a_bool_output_from_float_inputs_and_casts_into_an_out_of_another_dtype)
{
    CHECK_OK(pt_init(NULL));
    const int64_t n = 1000;
    pt_tensor *a = filled(1, &n, PT_FLOAT16, 0), *b = filled(1, &n, PT_FLOAT32, 0.5), *o;
    CHECK_OK(pt_tensor_empty(1, &n, PT_INT16, CPU, &o));
    pt_iter it;
    pt_iter_init(&it, "less", PT_ITER_PROMOTE | PT_ITER_ANY_OUTPUT_DTYPE);
    it.out_dtype = PT_BOOL;
    pt_iter_add_output(&it, o, "out");
    pt_iter_add_input(&it, a, "self");
    pt_iter_add_input(&it, b, "other");
    CHECK_OK(pt_iter_build(&it));
    CHECK(it.loop_dtype[0] == PT_BOOL && it.loop_dtype[1] == PT_FLOAT32);
    pt_iter_run(&it, less_f4, NULL);
    pt_tensor *r = NULL;
    CHECK_OK(pt_iter_finish(&it, &r));
    CHECK(r == o);
    /* float16 rounds 0..999 exactly above 512 only to even numbers: compare with the same rounding */
    for (int64_t i = 0; i < n; i++) {
        float h = pt_half_to_float(pt_float_to_half((float)i));
        CHECK(at(o, i) == (h < (float)i + 0.5f ? 1 : 0));
    }
    pt_tensor_release(r);
    pt_tensor_release(o);
    pt_tensor_release(a);
    pt_tensor_release(b);
}

PT_TEST(iter_refuses_bad_shapes_outputs_and_overlaps_with_torch_messages)
{
    CHECK_OK(pt_init(NULL));
    const int64_t s3[1] = {3}, s4[1] = {4}, s23[2] = {2, 3}, s6[1] = {6};
    pt_tensor *a = filled(1, s3, PT_FLOAT32, 0), *b = filled(1, s4, PT_FLOAT32, 0);
    pt_tensor *m = filled(2, s23, PT_FLOAT32, 0), *long_out = filled(1, s6, PT_INT64, 0);
    pt_iter it;
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, NULL, "out");
    pt_iter_add_input(&it, a, "self");
    pt_iter_add_input(&it, b, "other");
    CHECK_ERR(pt_iter_build(&it), PT_ERR_RUNTIME, "shapes [3] and [4] of 'other'");
    /* in place: self must already have the broadcast shape */
    pt_iter_init(&it, "op_", PT_ITER_PROMOTE | PT_ITER_INPLACE);
    pt_iter_add_output(&it, a, "self");
    pt_iter_add_input(&it, a, "self");
    pt_iter_add_input(&it, m, "other");
    CHECK_ERR(pt_iter_build(&it), PT_ERR_RUNTIME, "output with shape [3] doesn't match the broadcast shape [2, 3]");
    /* out= that cannot hold the result type */
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, long_out, "out");
    pt_iter_add_input(&it, m, "self");
    CHECK_ERR(pt_iter_build(&it), PT_ERR_RUNTIME, "result type Float can't be cast to the desired output type Long");
    /* out= of the wrong shape that holds elements */
    pt_tensor *f6 = filled(1, s6, PT_FLOAT32, 0);
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, f6, "out");
    pt_iter_add_input(&it, m, "self");
    CHECK_ERR(pt_iter_build(&it), PT_ERR_RUNTIME, "out with shape [6] doesn't match the broadcast shape [2, 3]");
    /* partial overlap: the output is a shifted view of the input */
    pt_tensor *lo = NULL, *hi = NULL;
    CHECK_OK(pt_tensor_narrow(f6, 0, 0, 4, &lo));
    CHECK_OK(pt_tensor_narrow(f6, 0, 2, 4, &hi));
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, hi, "out");
    pt_iter_add_input(&it, lo, "self");
    CHECK_ERR(pt_iter_build(&it), PT_ERR_RUNTIME, "some elements of the input tensor and the written-to tensor");
    /* an output with repeated elements */
    pt_tensor *rep = NULL;
    const int64_t s23b[2] = {2, 3};
    CHECK_OK(pt_tensor_expand(a, 2, s23b, &rep));
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, rep, "out");
    pt_iter_add_input(&it, m, "self");
    CHECK_ERR(pt_iter_build(&it), PT_ERR_RUNTIME, "more than one element of the written-to tensor");
    /* an empty out= is resized */
    pt_tensor *empty = NULL;
    const int64_t zero = 0;
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT32, CPU, &empty));
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, empty, "out");
    pt_iter_add_input(&it, m, "self");
    CHECK_OK(pt_iter_build(&it));
    pt_iter_run(&it, copy_f4, NULL);
    pt_tensor *r = NULL;
    CHECK_OK(pt_iter_finish(&it, &r));
    CHECK(r == empty && r->ndim == 2 && r->numel == 6 && at(r, 5) == 5);
    pt_tensor_release(r);
    pt_tensor *all[] = {a, b, m, long_out, f6, lo, hi, rep, empty};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) pt_tensor_release(all[i]);
}

PT_TEST(iter_on_meta_tensors_computes_shapes_and_dtypes_only)
{
    CHECK_OK(pt_init(NULL));
    const int64_t s[2] = {5, 7};
    pt_tensor *a = NULL, *b = NULL;
    CHECK_OK(pt_tensor_empty(2, s, PT_FLOAT16, META, &a));
    CHECK_OK(pt_tensor_empty(1, s + 1, PT_FLOAT64, META, &b));
    pt_iter it;
    pt_iter_init(&it, "op", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, NULL, "out");
    pt_iter_add_input(&it, a, "self");
    pt_iter_add_input(&it, b, "other");
    CHECK_OK(pt_iter_build(&it));
    pt_iter_run(&it, copy_f4, NULL); /* must not touch memory */
    pt_tensor *r = NULL;
    CHECK_OK(pt_iter_finish(&it, &r));
    CHECK(r->device.type == PT_DEV_META && r->dtype == PT_FLOAT64 && r->numel == 35);
    pt_tensor_release(r);
    pt_tensor_release(a);
    pt_tensor_release(b);
}

PT_TEST(iter_stages_misaligned_operands)
{
    CHECK_OK(pt_init(NULL));
    const int64_t n = 4099, nbytes = 4 * n + 4;
    pt_tensor *bytes = NULL;
    CHECK_OK(pt_tensor_empty(1, &nbytes, PT_UINT8, CPU, &bytes));
    pt_tensor *src = filled(1, &n, PT_FLOAT32, 3);
    char *base = (char *)bytes->storage->data + 1;
    memcpy(base, pt_tensor_data(src), (size_t)(4 * n));
    /* Read through a misaligned pointer: the iterator copies it to aligned blocks. */
    pt_iter it;
    pt_iter_init(&it, "copy", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, NULL, "out");
    pt_iter_add_input(&it, src, "self");
    CHECK_OK(pt_iter_build(&it));
    it.data[1] = base; /* as if the input started one byte in */
    pt_iter_run(&it, copy_f4, NULL);
    pt_tensor *r = NULL;
    CHECK_OK(pt_iter_finish(&it, &r));
    for (int64_t i = 0; i < n; i++) CHECK(at(r, i) == at(src, i));
    pt_tensor_release(r);
    pt_tensor_release(src);
    pt_tensor_release(bytes);
}

PT_TEST(iter_threaded_work_matches_one_thread_and_num_threads_is_validated)
{
    CHECK_OK(pt_init(NULL));
    const int32_t saved = pt_get_num_threads();
    const int64_t s[2] = {300, 1001}; /* 300K elements: above the grain */
    pt_tensor *x = filled(2, s, PT_FLOAT32, 1), *y = filled(1, s + 1, PT_FLOAT32, 2);
    pt_tensor *r[2] = {NULL, NULL};
    for (int t = 0; t < 2; t++) {
        CHECK_OK(pt_set_num_threads(t == 0 ? 1 : 4));
        pt_iter it;
        pt_iter_init(&it, "less", PT_ITER_PROMOTE);
        it.out_dtype = PT_BOOL;
        pt_iter_add_output(&it, NULL, "out");
        pt_iter_add_input(&it, x, "self");
        pt_iter_add_input(&it, y, "other");
        CHECK_OK(pt_iter_build(&it));
        pt_iter_run(&it, less_f4, NULL);
        CHECK_OK(pt_iter_finish(&it, &r[t]));
    }
    CHECK(memcmp(pt_tensor_data(r[0]), pt_tensor_data(r[1]), (size_t)r[0]->numel) == 0);
    CHECK(at(r[0], 0) == 1 && at(r[0], 1001) == 0 && at(r[0], 1000) == 1);
    CHECK_ERR(pt_set_num_threads(0), PT_ERR_RUNTIME, "positive integer");
    CHECK_OK(pt_set_num_threads(saved));
    CHECK(pt_get_num_threads() == saved);
    pt_tensor_release(r[0]);
    pt_tensor_release(r[1]);
    pt_tensor_release(x);
    pt_tensor_release(y);
}

static void count_range(int64_t begin, int64_t end, void *ctx)
{
    int64_t *hits = ctx;
    for (int64_t i = begin; i < end; i++) hits[i]++;
}

PT_TEST(parallel_for_covers_every_index_once)
{
    CHECK_OK(pt_init(NULL));
    enum { N = 100003 };
    static int64_t hits[N];
    memset(hits, 0, sizeof hits);
    pt_parallel_for(N, 1000, count_range, hits);
    for (int64_t i = 0; i < N; i++) CHECK(hits[i] == 1);
    pt_parallel_for(0, 1000, count_range, hits); /* nothing */
}

PT_TEST(cpu_stubs_follow_the_selected_capability)
{
    CHECK_OK(pt_init(NULL));
    CHECK(pt_cpu_stub_count() >= 1);
    const int32_t best = pt_cpu_capability_detected();
    for (int32_t cap = 0; cap <= best; cap++) {
        CHECK_OK(pt_cpu_capability_select(cap));
        for (int32_t i = 0; i < pt_cpu_stub_count(); i++) {
            const char *name;
            int32_t chosen;
            CHECK_OK(pt_cpu_stub_info(i, &name, &chosen));
            CHECK(name && chosen <= cap);
        }
    }
    CHECK_ERR(pt_cpu_capability_select(best + 1), PT_ERR_VALUE, "is not available");
    CHECK_ERR(pt_cpu_stub_info(-1, &(const char *){NULL}, &(int32_t){0}), PT_ERR_INDEX, "out of range");
    CHECK_OK(pt_cpu_capability_select(pt_cpu_capability()));
}
