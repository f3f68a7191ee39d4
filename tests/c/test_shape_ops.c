/* test_shape_ops.c - the shape and indexing kernels through their entry points: results against
 * values worked out by hand, Tensor[] results through the boxed path (split, nonzero_numpy) and
 * their ownership, bad indices reported without partial results leaking, accumulation in the
 * element's dtype, and meta tensors. Run under ASan+UBSan, these pin down the walkers' bounds. */
#include "pt_test.h"
#include "pt_ops.h"

static const pt_device CPU = {PT_DEV_CPU, 0};

/* A 1-d or 2-d int64 tensor holding v in row-major order. */
static pt_tensor *ints(int32_t ndim, const int64_t *sizes, const int64_t *v)
{
    pt_tensor *t;
    if (pt_tensor_empty(ndim, sizes, PT_INT64, CPU, &t) != PT_OK) return NULL;
    if (t->numel > 0) memcpy(pt_tensor_data(t), v, sizeof(int64_t) * (size_t)t->numel);
    return t;
}

/* Element i of a contiguous int64 tensor. */
static int64_t at(const pt_tensor *t, int64_t i) { return ((const int64_t *)pt_tensor_data(t))[i]; }

PT_TEST(cat_joins_along_a_dim_and_skips_empty_vectors)
{
    pt_tensor *a = ints(2, (const int64_t[]){2, 2}, (const int64_t[]){1, 2, 3, 4});
    pt_tensor *e = ints(1, (const int64_t[]){0}, NULL);
    CHECK(a && e);
    pt_tensor *parts[3] = {a, e, a};
    pt_tensor *r = pt_call_cat(3, parts, 1);
    CHECK(r);
    CHECK(r->ndim == 2 && r->sizes[0] == 2 && r->sizes[1] == 4);
    const int64_t want[8] = {1, 2, 1, 2, 3, 4, 3, 4};
    for (int i = 0; i < 8; i++) CHECK(at(r, i) == want[i]);
    pt_tensor_release(r);
    pt_tensor *v = ints(1, (const int64_t[]){3}, (const int64_t[]){0, 0, 0});
    CHECK(v);
    CHECK(pt_call_cat(2, (pt_tensor *[]){a, v}, 0) == NULL);
    CHECK(strstr(pt_error_message(), "same number of dimensions"));
    pt_tensor_release(v);
    pt_tensor_release(a);
    pt_tensor_release(e);
}

PT_TEST(split_returns_owned_views_through_the_boxed_path)
{
    pt_op *op;
    CHECK_OK(pt_dispatch_find("aten::split", "Tensor", &op));
    pt_tensor *a = ints(1, (const int64_t[]){5}, (const int64_t[]){0, 1, 2, 3, 4});
    CHECK(a);
    pt_ivalue items[3] = {{.tag = PT_IV_TENSOR, .t = a}, {.tag = PT_IV_INT, .i = 2},
                          {.tag = PT_IV_INT, .i = 0}};
    pt_stack st = {items, 3, 3};
    CHECK_OK(pt_dispatch_call(op, &st));
    CHECK(st.size == 1 && items[0].tag == PT_IV_TENSOR_LIST && items[0].len == 3);
    const pt_tensor *last = items[0].tensors[2];
    CHECK(last->numel == 1 && last->storage == a->storage && at(last, 0) == 4);
    pt_stack_clear(&st);
    CHECK(pt_tensor_refcount(a) == 1);
    pt_tensor_release(a);
}

PT_TEST(flip_roll_and_repeat_move_elements)
{
    pt_tensor *a = ints(2, (const int64_t[]){2, 3}, (const int64_t[]){0, 1, 2, 3, 4, 5});
    CHECK(a);
    pt_tensor *f = pt_call_flip(a, 2, (const int64_t[]){0, 1});
    pt_tensor *r = pt_call_roll(a, 1, (const int64_t[]){1}, 0, NULL);
    pt_tensor *p = pt_call_repeat(a, 2, (const int64_t[]){1, 2});
    CHECK(f && r && p);
    for (int i = 0; i < 6; i++) CHECK(at(f, i) == 5 - i);
    for (int i = 0; i < 6; i++) CHECK(at(r, i) == (i + 5) % 6);
    CHECK(p->sizes[1] == 6 && at(p, 3) == 0 && at(p, 11) == 5);
    pt_tensor_release(f);
    pt_tensor_release(r);
    pt_tensor_release(p);
    pt_tensor_release(a);
}

PT_TEST(gather_reports_a_bad_index_and_returns_nothing)
{
    pt_tensor *a = ints(1, (const int64_t[]){3}, (const int64_t[]){7, 8, 9});
    pt_tensor *good = ints(1, (const int64_t[]){2}, (const int64_t[]){2, 0});
    pt_tensor *bad = ints(1, (const int64_t[]){2}, (const int64_t[]){1, 3});
    CHECK(a && good && bad);
    pt_tensor *r = pt_call_gather(a, 0, good, 0);
    CHECK(r && at(r, 0) == 9 && at(r, 1) == 7);
    pt_tensor_release(r);
    CHECK(pt_call_gather(a, 0, bad, 0) == NULL);
    CHECK(pt_error_code() == PT_ERR_RUNTIME);
    CHECK(strstr(pt_error_message(), "index 3 is out of bounds for dimension 0 with size 3"));
    pt_tensor_release(a);
    pt_tensor_release(good);
    pt_tensor_release(bad);
}

PT_TEST(index_put_accumulate_adds_repeated_indices_in_the_element_type)
{
    pt_tensor *t;
    CHECK_OK(pt_tensor_empty(1, (const int64_t[]){2}, PT_INT8, CPU, &t));
    memset(pt_tensor_data(t), 0, 2);
    pt_tensor *i = ints(1, (const int64_t[]){3}, (const int64_t[]){1, 1, -1});
    pt_tensor *v;
    CHECK_OK(pt_tensor_empty(1, (const int64_t[]){3}, PT_INT8, CPU, &v));
    memset(pt_tensor_data(v), 100, 3); /* 300 wraps to 44 in int8 */
    CHECK(i);
    pt_tensor *r = pt_call_index_put_(t, 1, (pt_tensor *[]){i}, v, 1);
    CHECK(r == t);
    pt_tensor_release(r);
    const int8_t *d = pt_tensor_data(t);
    CHECK(d[0] == 0 && d[1] == 44);
    pt_tensor_release(t);
    pt_tensor_release(i);
    pt_tensor_release(v);
}

PT_TEST(index_put_walks_an_indexed_shape_past_64_dims_and_index_refuses_to_make_one)
{
    /* self [1] * 64, index [1, 1]: the indexed shape has 65 dims, all of size 1. */
    int64_t ones[PT_MAX_DIMS], idx_sizes[PT_MAX_DIMS];
    for (int i = 0; i < PT_MAX_DIMS; i++) ones[i] = idx_sizes[i] = 1;
    pt_tensor *t = ints(PT_MAX_DIMS, ones, (const int64_t[]){5});
    pt_tensor *i = ints(2, idx_sizes, (const int64_t[]){0});
    pt_tensor *v = ints(0, NULL, (const int64_t[]){7});
    CHECK(t && i && v);
    pt_tensor *r = pt_call_index_put_(t, 1, (pt_tensor *[]){i}, v, 1);
    CHECK(r == t && at(t, 0) == 12);
    pt_tensor_release(r);
    CHECK(pt_call_index_Tensor(t, 1, (pt_tensor *[]){i}) == NULL);
    CHECK(pt_error_code() == PT_ERR_VALUE);
    /* self [2, 3], index [1] * 63 + [2]: 64 + 1 dims; values [2, 3] pair with the index. */
    pt_tensor *s = ints(2, (const int64_t[]){2, 3}, (const int64_t[]){0, 0, 0, 0, 0, 0});
    idx_sizes[PT_MAX_DIMS - 1] = 2;
    pt_tensor *j = ints(PT_MAX_DIMS, idx_sizes, (const int64_t[]){1, 0});
    pt_tensor *w = ints(2, (const int64_t[]){2, 3}, (const int64_t[]){1, 2, 3, 4, 5, 6});
    CHECK(s && j && w);
    r = pt_call_index_put_(s, 1, (pt_tensor *[]){j}, w, 0);
    CHECK(r == s);
    pt_tensor_release(r);
    CHECK(at(s, 0) == 4 && at(s, 2) == 6 && at(s, 3) == 1 && at(s, 5) == 3);
    pt_tensor *bad = ints(1, (const int64_t[]){4}, (const int64_t[]){0, 0, 0, 0});
    CHECK(pt_call_index_put_(s, 1, (pt_tensor *[]){j}, bad, 0) == NULL);
    CHECK(strstr(pt_error_message(), "cannot be broadcast to indexing result") != NULL);
    pt_tensor *list[] = {t, i, v, s, j, w, bad};
    for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) pt_tensor_release(list[k]);
}

PT_TEST(nonzero_numpy_and_masked_select_follow_the_data)
{
    pt_tensor *a = ints(2, (const int64_t[]){2, 2}, (const int64_t[]){0, 5, 6, 0});
    CHECK(a);
    pt_op *op;
    CHECK_OK(pt_dispatch_find("aten::nonzero_numpy", "", &op));
    pt_ivalue items[1] = {{.tag = PT_IV_TENSOR, .t = a}};
    pt_stack st = {items, 1, 1};
    CHECK_OK(pt_dispatch_call(op, &st));
    CHECK(items[0].tag == PT_IV_TENSOR_LIST && items[0].len == 2);
    const pt_tensor *rows = items[0].tensors[0], *cols = items[0].tensors[1];
    int64_t *rd = pt_tensor_data(rows), *cd = pt_tensor_data(cols);
    CHECK(rows->numel == 2 && rd[0] == 0 && rd[rows->strides[0]] == 1);
    CHECK(cd[0] == 1 && cd[cols->strides[0]] == 0);
    pt_stack_clear(&st);
    pt_tensor *mask;
    CHECK_OK(pt_tensor_empty(1, (const int64_t[]){2}, PT_BOOL, CPU, &mask));
    ((bool *)pt_tensor_data(mask))[0] = false;
    ((bool *)pt_tensor_data(mask))[1] = true;
    pt_tensor *s = pt_call_masked_select(a, mask);
    CHECK(s && s->numel == 2 && at(s, 0) == 5 && at(s, 1) == 0);
    pt_tensor_release(s);
    pt_tensor_release(mask);
    pt_tensor_release(a);
}

PT_TEST(meta_tensors_get_shapes_without_data)
{
    const pt_device meta = {PT_DEV_META, 0};
    pt_tensor *a, *i;
    CHECK_OK(pt_tensor_empty(2, (const int64_t[]){3, 4}, PT_FLOAT32, meta, &a));
    CHECK_OK(pt_tensor_empty(1, (const int64_t[]){5}, PT_INT64, meta, &i));
    pt_tensor *r = pt_call_index_Tensor(a, 2, (pt_tensor *[]){NULL, i});
    CHECK(r && r->device.type == PT_DEV_META && r->sizes[0] == 3 && r->sizes[1] == 5);
    pt_tensor_release(r);
    CHECK(pt_call_nonzero(a) == NULL && pt_error_code() == PT_ERR_NOT_IMPLEMENTED);
    pt_tensor_release(a);
    pt_tensor_release(i);
}
