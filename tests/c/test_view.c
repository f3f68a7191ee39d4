/* Views: each one's sizes, strides and offset against what torch gives for the same call, the
 * elements it reaches, that it shares the storage, and torch's error texts. */
#include "pt_test.h"

#include <stdint.h>
#include <stdlib.h>

static const pt_device cpu = {PT_DEV_CPU, 0};

#define INTS(...) ((const int64_t[]){__VA_ARGS__})
#define COUNT(...) ((int32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
/* The view's sizes, strides and offset are exactly these. */
#define CHECK_GEOMETRY(t, SIZES, STRIDES, OFFSET)                                                  \
    do {                                                                                           \
        CHECK(pt_tensor_ndim(t) == COUNT SIZES);                                                   \
        CHECK(same(pt_tensor_sizes(t), INTS SIZES, COUNT SIZES));                                  \
        CHECK(same(pt_tensor_strides(t), INTS STRIDES, COUNT SIZES));                              \
        CHECK(pt_tensor_offset(t) == (OFFSET));                                                    \
    } while (0)

static int same(const int64_t *a, const int64_t *b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* An int64 tensor holding 0, 1, 2, ... in row-major order. */
static pt_tensor *iota(int32_t ndim, const int64_t *sizes)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(ndim, sizes, PT_INT64, cpu, &t) != PT_OK) return NULL;
    int64_t *p = pt_tensor_data(t);
    for (int64_t i = 0; i < pt_tensor_numel(t); i++) p[i] = i;
    return t;
}

/* The element at a multi-index, read through the view's own strides. */
static int64_t at(const pt_tensor *t, const int64_t *index)
{
    const int64_t *base = pt_storage_data(pt_tensor_storage(t));
    int64_t off = pt_tensor_offset(t);
    for (int32_t d = 0; d < pt_tensor_ndim(t); d++) off += index[d] * pt_tensor_strides(t)[d];
    return base[off];
}

/* ---------------------------------------------------------------- as_strided, view, reshape */
PT_TEST(view_as_strided_checks_the_extent)
{
    pt_tensor *t = iota(1, INTS(6)), *v = NULL;
    CHECK(t);
    CHECK_OK(pt_tensor_as_strided(t, 2, INTS(2, 2), INTS(1, 2), 1, &v));
    CHECK_GEOMETRY(v, (2, 2), (1, 2), 1);
    CHECK(at(v, INTS(1, 1)) == 4);
    CHECK(pt_tensor_storage(v) == pt_tensor_storage(t));
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_as_strided(t, 1, INTS(3), INTS(-2), 5, &v));
    CHECK(at(v, INTS(2)) == 1);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_as_strided(t, 2, INTS(2, 3), INTS(3, 1), 1, &v), PT_ERR_RUNTIME,
              "setStorage: sizes [2, 3], strides [3, 1], storage offset 1, and itemsize 8 "
              "requiring a storage size of 56 are out of bounds for storage of size 48");
    pt_tensor_release(t);
}

PT_TEST(view_shares_the_storage_and_reads_row_major)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_OK(pt_tensor_view(t, 2, INTS(3, 2), &v));
    CHECK_GEOMETRY(v, (3, 2), (2, 1), 0);
    CHECK(pt_tensor_storage(v) == pt_tensor_storage(t));
    CHECK(pt_storage_refcount(pt_tensor_storage(t)) == 2);
    CHECK(at(v, INTS(2, 1)) == 5 && at(v, INTS(1, 0)) == 2);
    pt_tensor_release(t);
    /* The view keeps its base alive (autograd's link to it), and so the storage. */
    CHECK(pt_storage_refcount(pt_tensor_storage(v)) == 2 && at(v, INTS(2, 0)) == 4);
    pt_tensor *base = pt_autograd_view_base(v);
    CHECK(base && pt_tensor_refcount(base) == 2); /* v's link and this reference */
    pt_tensor_release(base);
    pt_tensor_release(v);
}

PT_TEST(view_infers_one_minus_one)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_OK(pt_tensor_view(t, 1, INTS(-1), &v));
    CHECK_GEOMETRY(v, (6), (1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_view(t, 2, INTS(6, -1), &v));
    CHECK_GEOMETRY(v, (6, 1), (1, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_view(t, 4, INTS(2, 3, 1, 1), &v));
    CHECK_GEOMETRY(v, (2, 3, 1, 1), (3, 1, 1, 1), 0);
    pt_tensor_release(v);
    pt_tensor_release(t);
}

PT_TEST(view_splits_and_merges_dims_inside_contiguous_chunks_like_torch)
{
    pt_tensor *base = iota(2, INTS(4, 6)), *t = NULL, *v = NULL;
    CHECK_OK(pt_tensor_transpose(base, 0, 1, &t));
    CHECK_OK(pt_tensor_view(t, 3, INTS(2, 3, 4), &v));
    CHECK_GEOMETRY(v, (2, 3, 4), (3, 1, 6), 0);
    CHECK(at(v, INTS(1, 2, 3)) == 3 * 6 + 5);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_view(t, 3, INTS(6, 2, 2), &v));
    CHECK_GEOMETRY(v, (6, 2, 2), (1, 12, 6), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_view(t, 1, INTS(24), &v), PT_ERR_RUNTIME,
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    pt_tensor_release(t);
    pt_tensor_release(base);

    pt_tensor *cube = iota(3, INTS(2, 3, 4)), *sliced = NULL;
    CHECK_OK(pt_tensor_slice(cube, 2, 0, INT64_MAX, 2, &sliced));
    CHECK_OK(pt_tensor_view(sliced, 2, INTS(6, 2), &v));
    CHECK_GEOMETRY(v, (6, 2), (4, 2), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_view(sliced, 2, INTS(2, 6), &v));
    CHECK_GEOMETRY(v, (2, 6), (12, 2), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_permute(cube, 3, INTS(1, 0, 2), &t));
    CHECK_OK(pt_tensor_view(t, 4, INTS(3, 2, 2, 2), &v));
    CHECK_GEOMETRY(v, (3, 2, 2, 2), (4, 12, 2, 1), 0);
    pt_tensor_release(v);
    pt_tensor_release(t);
    pt_tensor_release(sliced);
    pt_tensor_release(cube);
}

PT_TEST(view_of_empty_and_0d_tensors)
{
    pt_tensor *e = NULL, *v = NULL;
    CHECK_OK(pt_tensor_empty(2, INTS(0, 3), PT_FLOAT32, cpu, &e));
    CHECK_OK(pt_tensor_view(e, 2, INTS(3, 0), &v));
    CHECK_GEOMETRY(v, (3, 0), (1, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_view(e, 2, INTS(0, 3), &v));
    CHECK_GEOMETRY(v, (0, 3), (3, 1), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_view(e, 2, INTS(0, -1), &v), PT_ERR_RUNTIME,
              "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified "
              "dimension size -1 can be any value and is ambiguous");
    pt_tensor_release(e);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_view(s, 2, INTS(1, 1), &v));
    CHECK_GEOMETRY(v, (1, 1), (1, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_view(s, 1, INTS(-1), &v));
    CHECK_GEOMETRY(v, (1), (1), 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
    pt_tensor *one = iota(2, INTS(1, 1));
    CHECK_OK(pt_tensor_view(one, 0, NULL, &v));
    CHECK(pt_tensor_ndim(v) == 0 && pt_tensor_numel(v) == 1);
    pt_tensor_release(v);
    pt_tensor_release(one);
}

PT_TEST(view_refuses_shapes_that_do_not_fit_with_torchs_messages)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_ERR(pt_tensor_view(t, 2, INTS(2, 5), &v), PT_ERR_RUNTIME,
              "shape '[2, 5]' is invalid for input of size 6");
    CHECK_ERR(pt_tensor_view(t, 2, INTS(-1, 4), &v), PT_ERR_RUNTIME,
              "shape '[-1, 4]' is invalid for input of size 6");
    CHECK_ERR(pt_tensor_view(t, 2, INTS(-1, -1), &v), PT_ERR_RUNTIME,
              "only one dimension can be inferred");
    CHECK_ERR(pt_tensor_view(t, 2, INTS(-2, 3), &v), PT_ERR_RUNTIME,
              "invalid shape dimension -2 at index 0 of shape [-2, 3]");
    int64_t big = (int64_t)1 << 62;
    CHECK_ERR(pt_tensor_view(t, 3, INTS(big, big, 0), &v), PT_ERR_RUNTIME, "is invalid for input of size 6");
    CHECK_ERR(pt_tensor_view(t, 65, INTS(1), &v), PT_ERR_VALUE, "view: expected 0 to 64 dimensions");
    CHECK_ERR(pt_tensor_reshape(t, -1, NULL, &v), PT_ERR_VALUE, "reshape: expected 0 to 64");
    CHECK_ERR(pt_tensor_reshape(t, 1, INTS(7), &v), PT_ERR_RUNTIME,
              "shape '[7]' is invalid for input of size 6");
    CHECK(v == NULL);
    pt_tensor_release(t);
}

PT_TEST(view_reshape_is_a_view_when_the_strides_allow_it)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_OK(pt_tensor_reshape(t, 3, INTS(3, 1, -1), &v));
    CHECK_GEOMETRY(v, (3, 1, 2), (2, 2, 1), 0);
    CHECK(pt_tensor_storage(v) == pt_tensor_storage(t));
    pt_tensor_release(v);
    pt_tensor_release(t);
}

PT_TEST(view_reshape_copies_when_the_strides_cannot_express_it)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *tt = NULL, *v = NULL;
    CHECK_OK(pt_tensor_transpose(t, 0, 1, &tt));
    CHECK_OK(pt_tensor_reshape(tt, 1, INTS(-1), &v));
    CHECK_GEOMETRY(v, (6), (1), 0);
    CHECK(pt_tensor_storage(v) != pt_tensor_storage(t));
    int64_t want[6] = {0, 3, 1, 4, 2, 5};
    for (int64_t i = 0; i < 6; i++) CHECK(at(v, INTS(i)) == want[i]);
    CHECK(pt_storage_refcount(pt_tensor_storage(v)) == 1);
    pt_tensor_release(v);
    pt_tensor_release(tt);
    pt_tensor_release(t);
}

PT_TEST(view_flatten_merges_a_range_of_dims)
{
    pt_tensor *t = iota(3, INTS(2, 3, 4)), *v = NULL;
    CHECK_OK(pt_tensor_flatten(t, 1, 2, &v));
    CHECK_GEOMETRY(v, (2, 12), (12, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_flatten(t, 0, -1, &v));
    CHECK_GEOMETRY(v, (24), (1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_flatten(t, 1, 1, &v));
    CHECK_GEOMETRY(v, (2, 3, 4), (12, 4, 1), 0);
    CHECK(v != t && pt_tensor_storage(v) == pt_tensor_storage(t));
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_flatten(t, 2, 1, &v), PT_ERR_RUNTIME,
              "flatten() has invalid args: start_dim cannot come after end_dim");
    CHECK_ERR(pt_tensor_flatten(t, 0, 5, &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-3, 2], but got 5)");
    pt_tensor *tt = NULL;
    CHECK_OK(pt_tensor_transpose(t, 0, 2, &tt));
    CHECK_OK(pt_tensor_flatten(tt, 0, 1, &v));
    CHECK_GEOMETRY(v, (12, 2), (2, 1), 0);
    CHECK(at(v, INTS(1, 1)) == 12 + 4);
    pt_tensor_release(v);
    pt_tensor_release(tt);
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_flatten(s, 0, -1, &v));
    CHECK_GEOMETRY(v, (1), (1), 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
}

/* ---------------------------------------------------------------- reordering */
PT_TEST(view_transpose_swaps_sizes_and_strides)
{
    pt_tensor *t = iota(3, INTS(2, 3, 4)), *v = NULL;
    CHECK_OK(pt_tensor_transpose(t, 0, -1, &v));
    CHECK_GEOMETRY(v, (4, 3, 2), (1, 4, 12), 0);
    CHECK(at(v, INTS(3, 1, 1)) == 12 + 4 + 3);
    CHECK(!pt_tensor_is_contiguous(v, PT_MEMORY_FORMAT_CONTIGUOUS));
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_transpose(t, 1, 1, &v));
    CHECK_GEOMETRY(v, (2, 3, 4), (12, 4, 1), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_transpose(t, 0, 3, &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_transpose(s, 0, -1, &v));
    CHECK(pt_tensor_ndim(v) == 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
}

PT_TEST(view_permute_reorders_dims_and_refuses_non_permutations)
{
    pt_tensor *t = iota(3, INTS(2, 3, 4)), *v = NULL;
    CHECK_OK(pt_tensor_permute(t, 3, INTS(2, 0, -2), &v));
    CHECK_GEOMETRY(v, (4, 2, 3), (1, 12, 4), 0);
    CHECK(at(v, INTS(3, 1, 2)) == 12 + 8 + 3);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_permute(t, 3, INTS(0, 0, 1), &v), PT_ERR_RUNTIME,
              "permute(): duplicate dims are not allowed.");
    CHECK_ERR(pt_tensor_permute(t, 3, INTS(0, -3, 1), &v), PT_ERR_RUNTIME, "duplicate dims");
    CHECK_ERR(pt_tensor_permute(t, 2, INTS(0, 1), &v), PT_ERR_RUNTIME,
              "input.dim() = 3 is not equal to len(dims) = 2");
    CHECK_ERR(pt_tensor_permute(t, 3, INTS(0, 1, 5), &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-3, 2], but got 5)");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_permute(s, 0, NULL, &v));
    CHECK(pt_tensor_ndim(v) == 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
}

/* ---------------------------------------------------------------- expand, squeeze, unsqueeze */
PT_TEST(view_expand_broadcasts_size_one_dims_with_stride_zero)
{
    pt_tensor *t = iota(2, INTS(3, 1)), *v = NULL;
    CHECK_OK(pt_tensor_expand(t, 3, INTS(2, 3, 4), &v));
    CHECK_GEOMETRY(v, (2, 3, 4), (0, 1, 0), 0);
    CHECK(at(v, INTS(1, 2, 3)) == 2);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_expand(t, 2, INTS(-1, 5), &v));
    CHECK_GEOMETRY(v, (3, 5), (1, 0), 0);
    pt_tensor_release(v);
    pt_tensor_release(t);
    t = iota(2, INTS(2, 3));
    CHECK_OK(pt_tensor_expand(t, 3, INTS(4, 2, -1), &v));
    CHECK_GEOMETRY(v, (4, 2, 3), (0, 3, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_expand(t, 4, INTS(1, 1, 2, 3), &v));
    CHECK_GEOMETRY(v, (1, 1, 2, 3), (6, 6, 3, 1), 0);
    pt_tensor_release(v);
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_expand(s, 2, INTS(2, 3), &v));
    CHECK_GEOMETRY(v, (2, 3), (0, 0), 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
}

PT_TEST(view_expand_refuses_what_torch_refuses)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_ERR(pt_tensor_expand(t, 2, INTS(2, 4), &v), PT_ERR_RUNTIME,
              "The expanded size of the tensor (4) must match the existing size (3) at "
              "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]");
    CHECK_ERR(pt_tensor_expand(t, 3, INTS(2, 3, 4), &v), PT_ERR_RUNTIME,
              "The expanded size of the tensor (4) must match the existing size (3) at "
              "non-singleton dimension 2.  Target sizes: [2, 3, 4].  Tensor sizes: [2, 3]");
    CHECK_ERR(pt_tensor_expand(t, 1, INTS(3), &v), PT_ERR_RUNTIME,
              "expand(int64{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater "
              "or equal to the number of dimensions in the tensor (2)");
    CHECK_ERR(pt_tensor_expand(t, 3, INTS(-1, 2, 3), &v), PT_ERR_RUNTIME,
              "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
              "dimension 0");
    CHECK_ERR(pt_tensor_expand(t, 2, INTS(2, -2), &v), PT_ERR_RUNTIME,
              "The expanded size of the tensor (-2) must match the existing size (3)");
    CHECK_ERR(pt_tensor_expand(t, 65, INTS(1), &v), PT_ERR_VALUE, "expand: expected 0 to 64");
    pt_tensor_release(t);
    t = iota(1, INTS(1));
    CHECK_ERR(pt_tensor_expand(t, 1, INTS(-2), &v), PT_ERR_RUNTIME,
              "The expanded size of the tensor (-2) must match the existing size (1)");
    pt_tensor_release(t);
}

PT_TEST(view_squeeze_drops_size_one_dims_all_or_listed)
{
    pt_tensor *t = iota(4, INTS(1, 2, 1, 3)), *v = NULL;
    CHECK_OK(pt_tensor_squeeze(t, 0, NULL, &v));
    CHECK_GEOMETRY(v, (2, 3), (3, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_squeeze(t, 1, INTS(-2), &v));
    CHECK_GEOMETRY(v, (1, 2, 3), (6, 3, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_squeeze(t, 2, INTS(1, 0), &v));
    CHECK_GEOMETRY(v, (2, 1, 3), (3, 3, 1), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_squeeze(t, 2, INTS(2, -2), &v), PT_ERR_RUNTIME,
              "dim 2 appears multiple times in the list of dims");
    CHECK_ERR(pt_tensor_squeeze(t, 1, INTS(4), &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
    CHECK_ERR(pt_tensor_squeeze(t, -1, NULL, &v), PT_ERR_VALUE, "squeeze: expected a non-negative");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_squeeze(s, 1, INTS(-1), &v));
    CHECK(pt_tensor_ndim(v) == 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
}

PT_TEST(view_unsqueeze_inserts_a_size_one_dim)
{
    pt_tensor *t = iota(3, INTS(2, 3, 4)), *v = NULL;
    CHECK_OK(pt_tensor_unsqueeze(t, 1, &v));
    CHECK_GEOMETRY(v, (2, 1, 3, 4), (12, 12, 4, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_unsqueeze(t, -1, &v));
    CHECK_GEOMETRY(v, (2, 3, 4, 1), (12, 4, 1, 1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_unsqueeze(t, 0, &v));
    CHECK_GEOMETRY(v, (1, 2, 3, 4), (24, 12, 4, 1), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_unsqueeze(t, 4, &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_unsqueeze(s, 0, &v));
    CHECK_GEOMETRY(v, (1), (1), 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
    int64_t ones[PT_MAX_DIMS];
    for (int i = 0; i < PT_MAX_DIMS; i++) ones[i] = 1;
    CHECK_OK(pt_tensor_empty(PT_MAX_DIMS, ones, PT_UINT8, cpu, &t));
    CHECK_ERR(pt_tensor_unsqueeze(t, 0, &v), PT_ERR_VALUE, "unsqueeze: expected 0 to 64 dimensions, got 65");
    CHECK_ERR(pt_tensor_unfold(t, 0, 1, 1, &v), PT_ERR_VALUE, "unfold: expected 0 to 64");
    pt_tensor_release(t);
}

/* ---------------------------------------------------------------- ranges along one dim */
PT_TEST(view_slice_follows_python_slicing)
{
    pt_tensor *t = iota(1, INTS(10)), *v = NULL;
    CHECK_OK(pt_tensor_slice(t, 0, 2, 8, 3, &v));
    CHECK_GEOMETRY(v, (2), (3), 2);
    CHECK(at(v, INTS(0)) == 2 && at(v, INTS(1)) == 5);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_slice(t, 0, -3, INT64_MAX, 1, &v));
    CHECK_GEOMETRY(v, (3), (1), 7);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_slice(t, -1, -100, 100, 4, &v));
    CHECK_GEOMETRY(v, (3), (4), 0);
    CHECK(at(v, INTS(2)) == 8);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_slice(t, 0, 8, 2, 1, &v));
    CHECK_GEOMETRY(v, (0), (1), 8);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_slice(t, 0, 1, -1, INT64_MAX, &v));
    CHECK_GEOMETRY(v, (1), (INT64_MAX), 1);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_slice(t, 0, 0, 3, 0, &v), PT_ERR_RUNTIME, "slice step must be positive");
    CHECK_ERR(pt_tensor_slice(t, 0, 0, 3, -1, &v), PT_ERR_RUNTIME, "slice step must be positive");
    CHECK_ERR(pt_tensor_slice(t, 1, 0, 3, 1, &v), PT_ERR_INDEX, "Dimension out of range");
    pt_tensor_release(t);
    t = iota(2, INTS(2, 3));
    CHECK_OK(pt_tensor_slice(t, 1, 1, 2, 2, &v));
    CHECK_GEOMETRY(v, (2, 1), (3, 2), 1);
    pt_tensor_release(v);
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_ERR(pt_tensor_slice(s, 0, 0, 1, 1, &v), PT_ERR_INDEX,
              "slice() cannot be applied to a 0-dim tensor.");
    pt_tensor_release(s);
}

PT_TEST(view_slice_refuses_offsets_and_strides_that_overflow)
{
    pt_storage *st = NULL;
    CHECK_OK(pt_storage_new(8, PT_UINT8, (pt_device){PT_DEV_META, 0}, 1, &st));
    pt_tensor *t = NULL, *v = NULL;
    int64_t big = (int64_t)1 << 62;
    CHECK_OK(pt_tensor_from_storage(st, PT_UINT8, 2, INTS(0, 8), INTS(big, big), 0, &t));
    CHECK_ERR(pt_tensor_slice(t, 1, 4, 8, 1, &v), PT_ERR_RUNTIME, "overflows int64");
    CHECK_ERR(pt_tensor_slice(t, 1, 0, 8, 2, &v), PT_ERR_RUNTIME, "overflows int64");
    pt_tensor_release(t);
    pt_storage_release(st);
}

PT_TEST(view_narrow_takes_length_elements_from_start)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_OK(pt_tensor_narrow(t, -1, 1, 2, &v));
    CHECK_GEOMETRY(v, (2, 2), (3, 1), 1);
    CHECK(at(v, INTS(1, 1)) == 5);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_narrow(t, 0, -1, 1, &v));
    CHECK_GEOMETRY(v, (1, 3), (3, 1), 3);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_narrow(t, 0, 2, 0, &v));
    CHECK_GEOMETRY(v, (0, 3), (3, 1), 6);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_narrow(t, 0, 3, 0, &v), PT_ERR_INDEX,
              "start out of range (expected to be in range of [-2, 2], but got 3)");
    CHECK_ERR(pt_tensor_narrow(t, 0, -3, 0, &v), PT_ERR_INDEX, "but got -3)");
    CHECK_ERR(pt_tensor_narrow(t, 0, 1, 2, &v), PT_ERR_RUNTIME,
              "start (1) + length (2) exceeds dimension size (2).");
    CHECK_ERR(pt_tensor_narrow(t, 0, 0, -1, &v), PT_ERR_RUNTIME,
              "narrow(): length must be non-negative.");
    CHECK_ERR(pt_tensor_narrow(t, 2, 0, 1, &v), PT_ERR_INDEX, "Dimension out of range");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_ERR(pt_tensor_narrow(s, 0, 0, 1, &v), PT_ERR_RUNTIME,
              "narrow() cannot be applied to a 0-dim tensor.");
    pt_tensor_release(s);
}

PT_TEST(view_select_removes_a_dim_at_an_index)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL;
    CHECK_OK(pt_tensor_select(t, 1, -1, &v));
    CHECK_GEOMETRY(v, (2), (3), 2);
    CHECK(at(v, INTS(1)) == 5);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_select(t, 0, 1, &v));
    CHECK_GEOMETRY(v, (3), (1), 3);
    pt_tensor *e = NULL;
    CHECK_OK(pt_tensor_select(v, 0, 2, &e));
    CHECK(pt_tensor_ndim(e) == 0 && pt_tensor_offset(e) == 5);
    CHECK(*(int64_t *)pt_tensor_data(e) == 5);
    pt_tensor_release(e);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_select(t, 0, 5, &v), PT_ERR_INDEX,
              "index 5 is out of bounds for dimension 0 with size 2");
    CHECK_ERR(pt_tensor_select(t, 1, -4, &v), PT_ERR_INDEX,
              "index -4 is out of bounds for dimension 1 with size 3");
    CHECK_ERR(pt_tensor_select(t, -3, 0, &v), PT_ERR_INDEX, "Dimension out of range");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_ERR(pt_tensor_select(s, 0, 0, &v), PT_ERR_INDEX,
              "select() cannot be applied to a 0-dim tensor.");
    pt_tensor_release(s);
}

PT_TEST(view_unfold_makes_overlapping_windows)
{
    pt_tensor *t = iota(1, INTS(7)), *v = NULL;
    CHECK_OK(pt_tensor_unfold(t, 0, 3, 2, &v));
    CHECK_GEOMETRY(v, (3, 3), (2, 1), 0);
    for (int64_t w = 0; w < 3; w++)
        for (int64_t k = 0; k < 3; k++) CHECK(at(v, INTS(w, k)) == 2 * w + k);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_unfold(t, 0, 0, 1, &v));
    CHECK_GEOMETRY(v, (8, 0), (1, 1), 0);
    pt_tensor_release(v);
    pt_tensor_release(t);
    t = iota(2, INTS(2, 3));
    CHECK_OK(pt_tensor_unfold(t, 1, 2, 2, &v));
    CHECK_GEOMETRY(v, (2, 1, 2), (3, 2, 1), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_unfold(t, 1, 4, 1, &v), PT_ERR_RUNTIME,
              "maximum size for tensor at dimension 1 is 3 but size is 4");
    CHECK_ERR(pt_tensor_unfold(t, 1, 2, 0, &v), PT_ERR_RUNTIME, "step is 0 but must be > 0");
    CHECK_ERR(pt_tensor_unfold(t, 1, -1, 1, &v), PT_ERR_RUNTIME, "size is -1 but must be >= 0");
    CHECK_ERR(pt_tensor_unfold(t, 5, 2, 2, &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    pt_tensor_release(t);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_unfold(s, 0, 1, 1, &v));
    CHECK_GEOMETRY(v, (1), (1), 0);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_unfold(s, 0, 0, 1, &v));
    CHECK_GEOMETRY(v, (0), (1), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_unfold(s, 0, 2, 1, &v), PT_ERR_RUNTIME,
              "maximum size for tensor at dimension 0 is 1 but size is 2");
    pt_tensor_release(s);
}

PT_TEST(view_flip_view_reverses_a_dim_with_a_negative_stride)
{
    pt_tensor *t = iota(2, INTS(2, 3)), *v = NULL, *back = NULL;
    CHECK_OK(pt_tensor_flip_view(t, 1, &v));
    CHECK_GEOMETRY(v, (2, 3), (3, -1), 2);
    CHECK(at(v, INTS(0, 0)) == 2 && at(v, INTS(1, 2)) == 3);
    CHECK(*(int64_t *)pt_tensor_data(v) == 2);
    CHECK_OK(pt_tensor_flip_view(v, -1, &back));
    CHECK_GEOMETRY(back, (2, 3), (3, 1), 0);
    pt_tensor_release(back);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_flip_view(t, 0, &v));
    CHECK_GEOMETRY(v, (2, 3), (-3, 1), 3);
    CHECK(at(v, INTS(0, 1)) == 4);
    /* A flipped view's slices and selections stay inside the storage. */
    CHECK_OK(pt_tensor_select(v, 1, 2, &back));
    CHECK_GEOMETRY(back, (2), (-3), 5);
    pt_tensor_release(back);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_flip_view(t, 2, &v), PT_ERR_INDEX, "Dimension out of range");
    pt_tensor_release(t);
    pt_tensor *e = iota(2, INTS(0, 3));
    CHECK_OK(pt_tensor_flip_view(e, 0, &v));
    CHECK_GEOMETRY(v, (0, 3), (-3, 1), 0);
    pt_tensor_release(v);
    pt_tensor_release(e);
    pt_tensor *s = iota(0, NULL);
    CHECK_OK(pt_tensor_flip_view(s, 0, &v));
    CHECK(pt_tensor_ndim(v) == 0);
    pt_tensor_release(v);
    pt_tensor_release(s);
}

PT_TEST(view_flip_view_refuses_a_stride_it_cannot_negate)
{
    pt_storage *st = NULL;
    CHECK_OK(pt_storage_new(8, PT_UINT8, cpu, 1, &st));
    pt_tensor *t = NULL, *v = NULL;
    CHECK_OK(pt_tensor_from_storage(st, PT_UINT8, 1, INTS(1), INTS(INT64_MIN), 0, &t));
    CHECK_ERR(pt_tensor_flip_view(t, 0, &v), PT_ERR_RUNTIME, "cannot be negated");
    pt_tensor_release(t);
    pt_storage_release(st);
}

PT_TEST(view_diagonal_walks_two_dims_at_once_like_torch)
{
    pt_tensor *t = iota(3, INTS(2, 3, 4)), *v = NULL;
    CHECK_OK(pt_tensor_diagonal(t, 0, 0, 1, &v)); /* torch: sizes (4, 2), strides (1, 16) */
    CHECK_GEOMETRY(v, (4, 2), (1, 16), 0);
    CHECK(at(v, INTS(3, 1)) == 19 && pt_autograd_view_base(v) == t);
    pt_tensor_release(t); /* the reference pt_autograd_view_base returned */
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_diagonal(t, 1, 2, 0, &v)); /* above the diagonal: dim 0's direction */
    CHECK_GEOMETRY(v, (3, 1), (4, 13), 12);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_diagonal(t, -1, -1, -2, &v)); /* below: dim1 (here -1) steps first */
    CHECK_GEOMETRY(v, (2, 3), (12, 5), 1);
    pt_tensor_release(v);
    CHECK_OK(pt_tensor_diagonal(t, 5, 0, 1, &v)); /* past the corner: empty, offset kept */
    CHECK_GEOMETRY(v, (4, 0), (1, 16), 0);
    pt_tensor_release(v);
    CHECK_ERR(pt_tensor_diagonal(t, 0, 1, -2, &v), PT_ERR_RUNTIME,
              "diagonal dimensions cannot be identical 1, -2");
    CHECK_ERR(pt_tensor_diagonal(t, 0, 0, 3, &v), PT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    pt_tensor_release(t);
}
