/* Tensor objects: shape helpers, factories, the storage extent check, contiguity, set_ and
 * resize_. Expected strides and messages are torch's. */
#include "pt_test.h"

#include <stdint.h>
#include <stdlib.h>

static const pt_device cpu = {PT_DEV_CPU, 0};

#define INTS(...) ((const int64_t[]){__VA_ARGS__})

static int same(const int64_t *a, const int64_t *b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* ---------------------------------------------------------------- shape helpers */
PT_TEST(tensor_shape_check_counts_elements_and_refuses_negative_sizes)
{
    int64_t numel = -1;
    CHECK_OK(pt_shape_check(3, INTS(2, 3, 4), &numel));
    CHECK(numel == 24);
    CHECK_OK(pt_shape_check(0, NULL, &numel));
    CHECK(numel == 1);
    CHECK_OK(pt_shape_check(3, INTS(5, 0, 7), &numel));
    CHECK(numel == 0);
    CHECK_ERR(pt_shape_check(2, INTS(2, -1), &numel), PT_ERR_VALUE,
              "size: expected a non-negative size at dim 1, got -1");
    CHECK_ERR(pt_shape_check(2, INTS(2, -1), &numel), PT_ERR_VALUE,
              "negative dimension -1: [2, -1]");
    CHECK_ERR(pt_shape_check(-1, NULL, &numel), PT_ERR_VALUE, "ndim: expected 0 to 64 dimensions");
    int64_t many[65] = {0};
    CHECK_ERR(pt_shape_check(65, many, &numel), PT_ERR_VALUE, "got 65");
}

PT_TEST(tensor_shape_check_refuses_overflow_even_with_a_zero_size)
{
    int64_t numel;
    int64_t big = (int64_t)1 << 62;
    CHECK_ERR(pt_shape_check(2, INTS(big, big), &numel), PT_ERR_RUNTIME,
              "storage size calculation overflowed with sizes=[4611686018427387904, "
              "4611686018427387904]");
    CHECK_ERR(pt_shape_check(3, INTS(0, big, big), &numel), PT_ERR_RUNTIME, "overflowed");
    CHECK_OK(pt_shape_check(2, INTS(big, 1), &numel));
    CHECK(numel == big);
}

PT_TEST(tensor_contiguous_strides_treat_empty_dims_as_one)
{
    int64_t st[4];
    pt_contiguous_strides(3, INTS(2, 3, 4), st);
    CHECK(same(st, INTS(12, 4, 1), 3));
    pt_contiguous_strides(3, INTS(2, 0, 3), st);
    CHECK(same(st, INTS(3, 3, 1), 3)); /* torch.empty(2, 0, 3).stride() */
    pt_contiguous_strides(4, INTS(1, 5, 1, 1), st);
    CHECK(same(st, INTS(5, 1, 1, 1), 4));
}

PT_TEST(tensor_wrap_dim_follows_torch_including_0d)
{
    int32_t d = -1;
    CHECK_OK(pt_wrap_dim(-1, 2, &d));
    CHECK(d == 1);
    CHECK_OK(pt_wrap_dim(-2, 2, &d));
    CHECK(d == 0);
    CHECK_OK(pt_wrap_dim(1, 2, &d));
    CHECK(d == 1);
    CHECK_ERR(pt_wrap_dim(5, 2, &d), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    CHECK_ERR(pt_wrap_dim(-3, 2, &d), PT_ERR_INDEX, "but got -3)");
    CHECK_OK(pt_wrap_dim(0, 0, &d));
    CHECK(d == 0);
    CHECK_OK(pt_wrap_dim(-1, 0, &d));
    CHECK(d == 0);
    CHECK_ERR(pt_wrap_dim(1, 0, &d), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

/* ---------------------------------------------------------------- factories */
PT_TEST(tensor_empty_is_contiguous_over_a_fresh_storage)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(2, INTS(2, 3), PT_FLOAT32, (pt_device){PT_DEV_CPU, -1}, &t));
    CHECK(pt_tensor_ndim(t) == 2 && pt_tensor_numel(t) == 6);
    CHECK(same(pt_tensor_sizes(t), INTS(2, 3), 2) && same(pt_tensor_strides(t), INTS(3, 1), 2));
    CHECK(pt_tensor_offset(t) == 0 && pt_tensor_dtype(t) == PT_FLOAT32);
    CHECK(pt_tensor_device(t).type == PT_DEV_CPU && pt_tensor_device(t).index == 0);
    CHECK(pt_tensor_layout(t) == PT_LAYOUT_STRIDED);
    CHECK(pt_tensor_refcount(t) == 1);
    pt_storage *s = pt_tensor_storage(t);
    CHECK(pt_storage_nbytes(s) == 24 && pt_storage_refcount(s) == 1);
    CHECK(pt_storage_resizable(s) == 1);
    CHECK(pt_tensor_data(t) == pt_storage_data(s));
    CHECK((uintptr_t)pt_tensor_data(t) % 64 == 0);
    CHECK(pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS));
    pt_tensor_retain(t);
    CHECK(pt_tensor_refcount(t) == 2);
    pt_tensor_release(t);
    pt_tensor_release(t);
    pt_tensor_release(NULL);
}

PT_TEST(tensor_release_of_the_last_reference_frees_the_storage)
{
    pt_memory_stats before, after;
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &before));
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(1, INTS(1000), PT_FLOAT64, cpu, &t));
    pt_storage *s = pt_tensor_storage(t);
    pt_storage_retain(s);
    pt_tensor_release(t);
    CHECK(pt_storage_refcount(s) == 1);
    pt_storage_release(s);
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &after));
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.frees == before.frees + 1);
}

PT_TEST(tensor_empty_scalars_empty_shapes_and_meta)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(0, NULL, PT_INT64, cpu, &t));
    CHECK(pt_tensor_ndim(t) == 0 && pt_tensor_numel(t) == 1);
    CHECK(pt_storage_nbytes(pt_tensor_storage(t)) == 8);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_empty(2, INTS(0, 5), PT_INT64, cpu, &t));
    CHECK(pt_tensor_numel(t) == 0 && pt_storage_nbytes(pt_tensor_storage(t)) == 0);
    CHECK(same(pt_tensor_strides(t), INTS(5, 1), 2));
    CHECK(pt_tensor_data(t) == NULL);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_empty(2, INTS(2, 3), PT_FLOAT32, (pt_device){PT_DEV_META, -1}, &t));
    CHECK(pt_tensor_device(t).type == PT_DEV_META && pt_tensor_device(t).index == 0);
    CHECK(pt_tensor_data(t) == NULL && pt_storage_nbytes(pt_tensor_storage(t)) == 24);
    pt_tensor_release(t);
}

PT_TEST(tensor_empty_refuses_bad_sizes_dtypes_and_devices)
{
    pt_tensor *t = NULL;
    CHECK_ERR(pt_tensor_empty(2, INTS(2, -1), PT_FLOAT32, cpu, &t), PT_ERR_VALUE,
              "size: expected a non-negative size at dim 1, got -1");
    CHECK_ERR(pt_tensor_empty(1, INTS((int64_t)1 << 61), PT_FLOAT64, cpu, &t), PT_ERR_RUNTIME,
              "storage size calculation overflowed with sizes=[2305843009213693952]");
    CHECK_ERR(pt_tensor_empty(1, INTS(4), 1000, cpu, &t), PT_ERR_VALUE, "dtype");
    CHECK_ERR(pt_tensor_empty(1, INTS(4), PT_FLOAT32, (pt_device){PT_DEV_CPU, 1}, &t),
              PT_ERR_RUNTIME, "cpu:1 is not available");
    CHECK_ERR(pt_tensor_empty(1, INTS((int64_t)1 << 60), PT_FLOAT32, cpu, &t), PT_ERR_MEMORY,
              "4611686018427387904 bytes");
    CHECK(t == NULL);
}

PT_TEST(tensor_more_dims_than_inline_go_to_the_heap)
{
    int64_t sizes[10] = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(10, sizes, PT_UINT8, cpu, &t));
    CHECK(pt_tensor_ndim(t) == 10 && pt_tensor_numel(t) == 32);
    CHECK(t->sizes != t->inline_dims && t->strides == t->sizes + 10);
    CHECK(same(pt_tensor_sizes(t), sizes, 10));
    CHECK(pt_tensor_strides(t)[0] == 32 && pt_tensor_strides(t)[9] == 1);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_empty(PT_INLINE_DIMS, sizes, PT_UINT8, cpu, &t));
    CHECK(t->sizes == t->inline_dims);
    pt_tensor_release(t);
    int64_t many[PT_MAX_DIMS + 1];
    for (int i = 0; i <= PT_MAX_DIMS; i++) many[i] = 1;
    CHECK_OK(pt_tensor_empty(PT_MAX_DIMS, many, PT_UINT8, cpu, &t));
    pt_tensor_release(t);
    CHECK_ERR(pt_tensor_empty(PT_MAX_DIMS + 1, many, PT_UINT8, cpu, &t), PT_ERR_VALUE,
              "expected 0 to 64 dimensions, got 65");
}

PT_TEST(tensor_empty_strided_sizes_the_storage_to_the_extent)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty_strided(2, INTS(2, 3), INTS(1, 2), PT_FLOAT32, cpu, &t));
    CHECK(same(pt_tensor_strides(t), INTS(1, 2), 2));
    CHECK(pt_storage_nbytes(pt_tensor_storage(t)) == (1 + 1 * 1 + 2 * 2) * 4);
    CHECK(!pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS));
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_empty_strided(2, INTS(2, 3), INTS(0, 0), PT_FLOAT64, cpu, &t));
    CHECK(pt_storage_nbytes(pt_tensor_storage(t)) == 8);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_empty_strided(2, INTS(0, 3), INTS(100, 1), PT_FLOAT64, cpu, &t));
    CHECK(pt_storage_nbytes(pt_tensor_storage(t)) == 0);
    pt_tensor_release(t);
    CHECK_ERR(pt_tensor_empty_strided(2, INTS(2, 3), INTS(-1, 1), PT_FLOAT32, cpu, &t),
              PT_ERR_RUNTIME, "empty_strided: negative strides are not supported, got strides [-1, 1]");
    CHECK_ERR(pt_tensor_empty_strided(2, INTS(-2, 3), INTS(1, 1), PT_FLOAT32, cpu, &t),
              PT_ERR_VALUE, "size: expected a non-negative size at dim 0");
    int64_t big = (int64_t)1 << 62;
    CHECK_ERR(pt_tensor_empty_strided(1, INTS(3), INTS(big), PT_FLOAT32, cpu, &t),
              PT_ERR_RUNTIME, "overflows int64");
    CHECK_ERR(pt_tensor_empty_strided(1, INTS(3), INTS(big / 4), PT_FLOAT32, cpu, &t),
              PT_ERR_RUNTIME, "storage size calculation overflowed with sizes=[3]");
}

/* ---------------------------------------------------------------- from_storage */
PT_TEST(tensor_from_storage_shares_the_bytes_and_offsets_by_elements)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(64, PT_FLOAT32, cpu, 1, &s));
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 2, INTS(2, 3), NULL, 2, &t));
    CHECK(pt_storage_refcount(s) == 2 && pt_tensor_storage(t) == s);
    CHECK(same(pt_tensor_strides(t), INTS(3, 1), 2));
    CHECK((char *)pt_tensor_data(t) == (char *)pt_storage_data(s) + 8);
    pt_tensor_release(t);
    /* Another dtype over the same bytes: the offset counts elements of the tensor's dtype. */
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT64, 1, INTS(4), INTS(2), 1, &t));
    CHECK((char *)pt_tensor_data(t) == (char *)pt_storage_data(s) + 8);
    pt_tensor_release(t);
    CHECK(pt_storage_refcount(s) == 1);
    pt_storage_release(s);
}

PT_TEST(tensor_from_storage_refuses_views_past_the_end_with_torchs_message)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(16, PT_FLOAT32, cpu, 1, &s));
    pt_tensor *t = NULL;
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 2, INTS(2, 3), INTS(3, 1), 0, &t),
              PT_ERR_RUNTIME,
              "setStorage: sizes [2, 3], strides [3, 1], storage offset 0, and itemsize 4 "
              "requiring a storage size of 24 are out of bounds for storage of size 16");
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(2), INTS(1), 3, &t), PT_ERR_RUNTIME,
              "requiring a storage size of 20 are out of bounds for storage of size 16");
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(2), INTS(1), -1, &t), PT_ERR_RUNTIME,
              "Tensor: invalid storage offset -1");
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(3), INTS(-1), 1, &t), PT_ERR_RUNTIME,
              "reach element -1, before the start of the storage");
    int64_t big = (int64_t)1 << 62;
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(2), INTS(big), 0, &t),
              PT_ERR_RUNTIME, "require a storage size that overflows int64");
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(3), INTS(big), 0, &t),
              PT_ERR_RUNTIME, "overflows int64");
    CHECK_ERR(pt_tensor_from_storage(s, 99, 1, INTS(1), NULL, 0, &t), PT_ERR_VALUE, "dtype");
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(-1), NULL, 0, &t), PT_ERR_VALUE,
              "size");
    CHECK(t == NULL && pt_storage_refcount(s) == 1);
    pt_storage_release(s);
}

PT_TEST(tensor_from_storage_accepts_negative_strides_and_empty_views_anywhere)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(16, PT_FLOAT32, cpu, 1, &s));
    float *f = pt_storage_data(s);
    for (int i = 0; i < 4; i++) f[i] = (float)i;
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(4), INTS(-1), 3, &t));
    CHECK(*(float *)pt_tensor_data(t) == 3.0f);
    pt_tensor_release(t);
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 2, INTS(0, 7), INTS(100, 100), 1000, &t));
    CHECK(pt_tensor_numel(t) == 0);
    pt_tensor_release(t);
    /* A 0-d view is one element. */
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 0, NULL, NULL, 3, &t));
    CHECK(*(float *)pt_tensor_data(t) == 3.0f);
    pt_tensor_release(t);
    CHECK_ERR(pt_tensor_from_storage(s, PT_FLOAT32, 0, NULL, NULL, 4, &t), PT_ERR_RUNTIME,
              "out of bounds for storage of size 16");
    pt_storage_release(s);
}

/* ---------------------------------------------------------------- contiguity */
static pt_tensor *strided(int32_t ndim, const int64_t *sizes, const int64_t *strides)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty_strided(ndim, sizes, strides, PT_FLOAT32, cpu, &t) != PT_OK) return NULL;
    return t;
}

PT_TEST(tensor_is_contiguous_ignores_size_one_dims_like_torch)
{
    struct {
        int32_t ndim;
        int64_t sizes[5], strides[5];
        int32_t contiguous, channels_last, channels_last_3d;
    } cases[] = {
        {2, {2, 3}, {3, 1}, 1, 0, 0},
        {2, {2, 3}, {1, 2}, 0, 0, 0},
        {3, {2, 1, 3}, {3, 99, 1}, 1, 0, 0},
        {2, {0, 3}, {1, 7}, 1, 0, 0},
        {4, {2, 3, 4, 5}, {60, 20, 5, 1}, 1, 0, 0},
        {4, {2, 3, 4, 5}, {60, 1, 15, 3}, 0, 1, 0},
        {4, {2, 3, 1, 1}, {3, 1, 7, 9}, 1, 1, 0},
        {4, {0, 3, 4, 5}, {60, 20, 5, 1}, 1, 0, 0},
        {5, {2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}, 0, 0, 1},
        {5, {2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, 1, 0, 0},
        {2, {2, 3}, {0, 1}, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_tensor *t = strided(cases[i].ndim, cases[i].sizes, cases[i].strides);
        CHECK(t);
        CHECK(pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS) == cases[i].contiguous);
        CHECK(pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_PRESERVE) == cases[i].contiguous);
        CHECK(pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CHANNELS_LAST) == cases[i].channels_last);
        CHECK(pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CHANNELS_LAST_3D) ==
              cases[i].channels_last_3d);
        CHECK(pt_tensor_is_contiguous(t, 17) == 0);
        pt_tensor_release(t);
    }
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(0, NULL, PT_FLOAT32, cpu, &t));
    CHECK(pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS));
    pt_tensor_release(t);
}

/* ---------------------------------------------------------------- set_ and resize_ */
PT_TEST(tensor_set_replaces_storage_and_metadata_in_place)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(1, INTS(4), PT_INT32, cpu, &t));
    pt_storage *old = pt_tensor_storage(t), *s = NULL;
    pt_storage_retain(old);
    CHECK_OK(pt_storage_new(400, PT_INT32, cpu, 1, &s));
    int64_t sizes[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    CHECK_OK(pt_tensor_set_(t, s, 4, 8, sizes, NULL));
    CHECK(pt_tensor_storage(t) == s && pt_storage_refcount(s) == 2);
    CHECK(pt_storage_refcount(old) == 1);
    CHECK(pt_tensor_ndim(t) == 8 && pt_tensor_numel(t) == 16 && pt_tensor_offset(t) == 4);
    CHECK(pt_tensor_strides(t)[0] == 16 && pt_tensor_strides(t)[7] == 1);
    CHECK((char *)pt_tensor_data(t) == (char *)pt_storage_data(s) + 16);
    /* Its own metadata as the new one, then back to inline dims. */
    CHECK_OK(pt_tensor_set_(t, s, 0, pt_tensor_ndim(t), pt_tensor_sizes(t), pt_tensor_strides(t)));
    CHECK(same(pt_tensor_sizes(t), sizes, 8) && pt_tensor_offset(t) == 0);
    CHECK_OK(pt_tensor_set_(t, s, 0, 7, sizes + 1, NULL));
    CHECK(pt_tensor_ndim(t) == 7 && pt_tensor_strides(t)[0] == 8);
    CHECK_OK(pt_tensor_set_(t, old, 1, 2, INTS(1, 3), INTS(3, 1)));
    CHECK(t->sizes == t->inline_dims && pt_tensor_numel(t) == 3);
    CHECK(pt_tensor_storage(t) == old && pt_storage_refcount(s) == 1);
    CHECK_OK(pt_tensor_set_(t, old, 0, 0, NULL, NULL));
    CHECK(pt_tensor_ndim(t) == 0 && pt_tensor_numel(t) == 1);
    pt_storage_release(s);
    pt_storage_release(old);
    pt_tensor_release(t);
}

PT_TEST(tensor_set_refuses_out_of_bounds_and_leaves_the_tensor_alone)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(2, INTS(2, 2), PT_FLOAT32, cpu, &t));
    pt_storage *s = pt_tensor_storage(t);
    CHECK_ERR(pt_tensor_set_(t, s, 0, 2, INTS(3, 2), NULL), PT_ERR_RUNTIME,
              "requiring a storage size of 24 are out of bounds for storage of size 16");
    CHECK_ERR(pt_tensor_set_(t, s, -2, 1, INTS(1), NULL), PT_ERR_RUNTIME,
              "invalid storage offset -2");
    CHECK_ERR(pt_tensor_set_(t, s, 0, 1, INTS(-3), NULL), PT_ERR_VALUE, "size");
    CHECK(pt_tensor_ndim(t) == 2 && same(pt_tensor_sizes(t), INTS(2, 2), 2));
    CHECK(pt_tensor_offset(t) == 0 && pt_tensor_storage(t) == s);
    pt_tensor_release(t);
}

PT_TEST(tensor_resize_grows_the_storage_and_keeps_the_data)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(1, INTS(3), PT_INT32, cpu, &t));
    int32_t *p = pt_tensor_data(t);
    p[0] = 7, p[1] = 8, p[2] = 9;
    CHECK_OK(pt_tensor_resize_(t, 2, INTS(3, 4)));
    CHECK(pt_tensor_numel(t) == 12 && same(pt_tensor_strides(t), INTS(4, 1), 2));
    CHECK(pt_storage_nbytes(pt_tensor_storage(t)) == 48);
    p = pt_tensor_data(t);
    CHECK(p[0] == 7 && p[1] == 8 && p[2] == 9 && p[3] == 0 && p[11] == 0);
    /* Shrinking keeps the storage as it is. */
    CHECK_OK(pt_tensor_resize_(t, 1, INTS(2)));
    CHECK(pt_tensor_numel(t) == 2 && pt_storage_nbytes(pt_tensor_storage(t)) == 48);
    CHECK_OK(pt_tensor_resize_(t, 0, NULL));
    CHECK(pt_tensor_ndim(t) == 0 && pt_tensor_numel(t) == 1);
    CHECK_ERR(pt_tensor_resize_(t, 1, INTS(-1)), PT_ERR_VALUE, "size: expected a non-negative size");
    CHECK_ERR(pt_tensor_resize_(t, 2, INTS((int64_t)1 << 31, (int64_t)1 << 31)), PT_ERR_RUNTIME,
              "resize_: storage size calculation overflowed");
    pt_tensor_release(t);
}

PT_TEST(tensor_resize_keeps_strides_when_sizes_do_not_change)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty_strided(2, INTS(2, 3), INTS(1, 2), PT_FLOAT32, cpu, &t));
    CHECK_OK(pt_tensor_resize_(t, 2, INTS(2, 3)));
    CHECK(same(pt_tensor_strides(t), INTS(1, 2), 2));
    CHECK_OK(pt_tensor_resize_(t, 2, INTS(3, 2)));
    CHECK(same(pt_tensor_strides(t), INTS(2, 1), 2));
    pt_tensor_release(t);
}

PT_TEST(tensor_resize_of_a_view_with_offset_and_of_fixed_storage)
{
    static float owner[4];
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_external(owner, sizeof owner, PT_FLOAT32, cpu, NULL, NULL, 1, &s));
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 1, INTS(2), NULL, 1, &t));
    CHECK_OK(pt_tensor_resize_(t, 1, INTS(3)));
    CHECK_ERR(pt_tensor_resize_(t, 1, INTS(4)), PT_ERR_RUNTIME,
              "Trying to resize storage that is not resizable");
    CHECK(pt_tensor_numel(t) == 3);
    pt_tensor_release(t);
    pt_storage_release(s);
}
