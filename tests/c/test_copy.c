/* test_copy.c - the strided loop (coalescing, order, negative and zero strides, 0-d and empty),
 * copy_ (casts, broadcasting with torch's messages, overlapping views, read-only and broadcast
 * destinations, meta, opaque dtypes), fill_ on strided views, clone per memory format, contiguous,
 * to, item, and the staged paths between devices on a stand-in device built from host memory. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};
static const pt_device META = {PT_DEV_META, 0};

/* A tensor of `dtype` holding values[i] (converted like fill_ does) in row-major order. */
static pt_tensor *make(int32_t ndim, const int64_t *sizes, int32_t dtype, const double *values)
{
    pt_tensor *t;
    if (pt_tensor_empty(ndim, sizes, dtype, CPU, &t) != PT_OK) return NULL;
    for (int64_t i = 0; i < t->numel; i++) {
        pt_scalar v = {PT_SCALAR_FLOAT, 0, values ? values[i] : (double)i, 0};
        pt_dtype_scalar_to(dtype)(&v, (char *)pt_tensor_data(t) + i * pt_dtype_itemsize(dtype));
    }
    return t;
}

/* Element i in row-major order of t's shape, whatever its strides, as a double. */
static double get(const pt_tensor *t, int64_t i)
{
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    pt_scalar s;
    const char *p = (const char *)pt_tensor_data(t) + off * pt_dtype_itemsize(t->dtype);
    pt_dtype_scalar_from(t->dtype)(p, &s);
    return s.kind == PT_SCALAR_FLOAT || s.kind == PT_SCALAR_COMPLEX ? s.re : (double)s.i;
}

static bool equals(const pt_tensor *t, const double *want)
{
    for (int64_t i = 0; i < t->numel; i++)
        if (get(t, i) != want[i]) return false;
    return true;
}

static bool strides_are(const pt_tensor *t, const int64_t *want)
{
    for (int32_t d = 0; d < t->ndim; d++)
        if (t->strides[d] != want[d]) return false;
    return true;
}

/* ---------------------------------------------------------------- pt_loop_nd */

typedef struct trace {
    int calls;
    int64_t n[64];
    int64_t stride0[64], stride1[64];
    int64_t visited[256]; /* operand 0's byte offsets in visiting order */
    int nvisited;
    char *base;
} trace;

static void record(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    trace *t = ctx;
    if (t->calls < 64) {
        t->n[t->calls] = n;
        t->stride0[t->calls] = strides[0];
        t->stride1[t->calls] = strides[1];
    }
    t->calls++;
    for (int64_t i = 0; i < n && t->nvisited < 256; i++)
        t->visited[t->nvisited++] = (data[0] + i * strides[0]) - t->base;
    data[0] = NULL; /* the loop must not care what a kernel does to its pointers */
}

PT_TEST(loop_nd_coalesces_contiguous_operands_into_one_call)
{
    static char buf[256];
    trace tr = {.base = buf};
    char *data[2] = {buf, buf};
    int64_t sizes[3] = {2, 3, 4};
    int64_t strides[6] = {48, 16, 4, 96, 32, 8}; /* float32 and float64 contiguous */
    pt_loop_nd(2, data, strides, 3, sizes, record, &tr);
    CHECK(tr.calls == 1 && tr.n[0] == 24 && tr.stride0[0] == 4 && tr.stride1[0] == 8);
    CHECK(data[0] == buf); /* the caller's array is left alone */
}

PT_TEST(loop_nd_visits_row_major_order_and_drops_size_one_dims)
{
    static char buf[256];
    trace tr = {.base = buf};
    char *data[2] = {buf, buf};
    /* a transposed 2x3 (strides 1, 2 elements) with a size-1 dim between */
    int64_t sizes[3] = {2, 1, 3}, strides[6] = {1, 999, 2, 1, 999, 2};
    pt_loop_nd(2, data, strides, 3, sizes, record, &tr);
    CHECK(tr.calls == 2 && tr.n[0] == 3 && tr.stride0[0] == 2);
    static const int64_t want[6] = {0, 2, 4, 1, 3, 5};
    CHECK(tr.nvisited == 6);
    for (int i = 0; i < 6; i++) CHECK(tr.visited[i] == want[i]);
}

PT_TEST(loop_nd_merges_negative_strides_and_keeps_zero_strides_apart)
{
    static char buf[256];
    trace tr = {.base = buf};
    /* flipped in both dims: starts at the last element and walks down */
    char *data[2] = {buf + 20, buf};
    int64_t sizes[2] = {2, 3}, strides[4] = {-12, -4, 12, 4};
    pt_loop_nd(2, data, strides, 2, sizes, record, &tr);
    CHECK(tr.calls == 1 && tr.n[0] == 6 && tr.stride0[0] == -4);
    for (int i = 0; i < 6; i++) CHECK(tr.visited[i] == 20 - 4 * i);

    /* operand 1 broadcast along dim 0: the dims cannot merge */
    trace tr2 = {.base = buf};
    char *data2[2] = {buf, buf};
    int64_t strides2[4] = {12, 4, 0, 4};
    pt_loop_nd(2, data2, strides2, 2, sizes, record, &tr2);
    CHECK(tr2.calls == 2 && tr2.n[0] == 3 && tr2.n[1] == 3 && tr2.stride1[0] == 4);
    CHECK(tr2.visited[3] == 12);

    /* a zero stride in every operand merges with nothing and is still walked */
    trace tr3 = {.base = buf};
    int64_t strides3[4] = {0, 4, 0, 4};
    pt_loop_nd(2, data2, strides3, 2, sizes, record, &tr3);
    CHECK(tr3.calls == 2 && tr3.visited[3] == 0 && tr3.visited[5] == 8);
}

PT_TEST(loop_nd_runs_0d_once_and_empty_never)
{
    static char buf[64];
    trace tr = {.base = buf};
    char *data[2] = {buf + 8, buf};
    pt_loop_nd(2, data, NULL, 0, NULL, record, &tr);
    CHECK(tr.calls == 1 && tr.n[0] == 1 && tr.visited[0] == 8);
    int64_t ones[3] = {1, 1, 1}, s[6] = {4, 4, 4, 4, 4, 4};
    pt_loop_nd(2, data, s, 3, ones, record, &tr);
    CHECK(tr.calls == 2 && tr.n[1] == 1);
    int64_t empty[2] = {3, 0}, s2[4] = {0, 4, 0, 4};
    pt_loop_nd(2, data, s2, 2, empty, record, &tr);
    CHECK(tr.calls == 2);
}

/* ---------------------------------------------------------------- copy_ */

PT_TEST(copy_casts_and_broadcasts_a_row_over_every_row)
{
    int64_t row[1] = {3}, mat[2] = {2, 3};
    static const double src_v[3] = {1.9, -2.5, 3e9};
    pt_tensor *src = make(1, row, PT_FLOAT64, src_v), *dst = make(2, mat, PT_INT32, NULL);
    CHECK(src && dst);
    CHECK_OK(pt_tensor_copy_(dst, src));
    static const double want[6] = {1, -2, INT32_MIN, 1, -2, INT32_MIN};
    CHECK(equals(dst, want));
    /* a column [2, 1] and a 0-d value broadcast too */
    int64_t col[2] = {2, 1};
    static const double col_v[2] = {7, 8};
    pt_tensor *c = make(2, col, PT_FLOAT32, col_v);
    pt_tensor *scalar = make(0, NULL, PT_FLOAT32, (double[]){5});
    CHECK(c && scalar);
    CHECK_OK(pt_tensor_copy_(dst, c));
    CHECK(equals(dst, (double[]){7, 7, 7, 8, 8, 8}));
    CHECK_OK(pt_tensor_copy_(dst, scalar));
    CHECK(equals(dst, (double[]){5, 5, 5, 5, 5, 5}));
    pt_tensor_release(src);
    pt_tensor_release(dst);
    pt_tensor_release(c);
    pt_tensor_release(scalar);
}

PT_TEST(copy_refuses_shapes_that_do_not_broadcast_with_torchs_messages)
{
    int64_t s23[2] = {2, 3}, s4[1] = {4}, s3[1] = {3}, s1[1] = {1}, s0[1] = {0}, s21[2] = {2, 1},
            s31[2] = {3, 1};
    pt_tensor *a = make(2, s23, PT_FLOAT32, NULL), *b = make(1, s4, PT_FLOAT32, NULL),
              *c = make(1, s3, PT_FLOAT32, NULL), *d = make(1, s1, PT_FLOAT32, NULL),
              *e = make(1, s0, PT_FLOAT32, NULL), *f = make(2, s21, PT_FLOAT32, NULL),
              *g = make(2, s31, PT_FLOAT32, NULL);
    CHECK(a && b && c && d && e && f && g);
    CHECK_ERR(pt_tensor_copy_(a, b), PT_ERR_RUNTIME,
              "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
              "dimension 1");
    CHECK_ERR(pt_tensor_copy_(c, a), PT_ERR_RUNTIME,
              "output with shape [3] doesn't match the broadcast shape [2, 3]");
    CHECK_ERR(pt_tensor_copy_(d, e), PT_ERR_RUNTIME,
              "output with shape [1] doesn't match the broadcast shape [0]");
    CHECK_ERR(pt_tensor_copy_(f, g), PT_ERR_RUNTIME,
              "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
              "dimension 0");
    CHECK_ERR(pt_tensor_copy_(NULL, a), PT_ERR_VALUE, "copy_: self must be a tensor");
    CHECK_ERR(pt_tensor_copy_(a, NULL), PT_ERR_VALUE, "copy_: src must be a tensor");
    pt_tensor *ts[] = {a, b, c, d, e, f, g};
    for (int i = 0; i < 7; i++) pt_tensor_release(ts[i]);
}

PT_TEST(copy_between_overlapping_views_reads_every_element_before_writing)
{
    int64_t n = 6, five = 5;
    pt_tensor *x = make(1, &n, PT_FLOAT32, NULL), *lo, *hi, *flip;
    CHECK(x);
    CHECK_OK(pt_tensor_narrow(x, 0, 0, five, &lo));
    CHECK_OK(pt_tensor_narrow(x, 0, 1, five, &hi));
    CHECK_OK(pt_tensor_copy_(hi, lo)); /* a forward element-wise copy would smear x[0] */
    CHECK(equals(x, (double[]){0, 0, 1, 2, 3, 4}));
    CHECK_OK(pt_tensor_copy_(lo, hi));
    CHECK(equals(x, (double[]){0, 1, 2, 3, 4, 4}));
    CHECK_OK(pt_tensor_flip_view(x, 0, &flip));
    CHECK_OK(pt_tensor_copy_(x, flip));
    CHECK(equals(x, (double[]){4, 4, 3, 2, 1, 0}));
    CHECK_OK(pt_tensor_copy_(x, x)); /* the same view: nothing moves */
    CHECK(equals(x, (double[]){4, 4, 3, 2, 1, 0}));
    pt_tensor_release(lo);
    pt_tensor_release(hi);
    pt_tensor_release(flip);
    pt_tensor_release(x);
}

PT_TEST(copy_transposed_permuted_and_flipped_layouts_keep_element_positions)
{
    int64_t s[3] = {2, 3, 4}, perm[3] = {2, 0, 1};
    pt_tensor *x = make(3, s, PT_FLOAT64, NULL), *p, *c, *same, *h;
    CHECK(x);
    CHECK_OK(pt_tensor_permute(x, 3, perm, &p)); /* [4, 2, 3] */
    CHECK_OK(pt_tensor_contiguous(p, &c));
    CHECK(c != p && pt_tensor_is_contiguous(c, PT_MEMORY_FORMAT_CONTIGUOUS));
    for (int64_t i = 0; i < 24; i++) CHECK(get(c, i) == get(p, i));
    /* same dtype, same permuted dense strides: one memcpy */
    CHECK_OK(pt_tensor_clone(p, PT_MEMORY_FORMAT_PRESERVE, &same));
    CHECK(strides_are(same, p->strides));
    for (int64_t i = 0; i < 24; i++) CHECK(get(same, i) == get(p, i));
    /* into float16 through a flipped destination */
    CHECK_OK(pt_tensor_empty_strided(3, p->sizes, c->strides, PT_FLOAT16, CPU, &h));
    pt_tensor *hf;
    CHECK_OK(pt_tensor_flip_view(h, 1, &hf));
    CHECK_OK(pt_tensor_copy_(hf, p));
    for (int64_t i = 0; i < 24; i++) CHECK(get(hf, i) == get(p, i));
    pt_tensor *ts[] = {x, p, c, same, h, hf};
    for (int i = 0; i < 6; i++) pt_tensor_release(ts[i]);
}

/* Layouts contiguous along different dimensions, large enough for the blocked transposing copy
 * (Note [blocked transposing copy]): every element size it takes, tile edges (odd sizes), a
 * 4 KiB source stride, a flipped source, and a permuted 4-D copy. */
PT_TEST(copy_by_tiles_keeps_every_element_position)
{
    const int32_t dtypes[] = {PT_INT8, PT_FLOAT16, PT_FLOAT32, PT_FLOAT64};
    int64_t shapes[][2] = {{67, 131}, {64, 1024}, {9, 700}};
    for (int d = 0; d < 4; d++) {
        for (int k = 0; k < 3; k++) {
            pt_tensor *x = make(2, shapes[k], dtypes[d], NULL), *t, *c, *f, *ft, *fc;
            CHECK(x);
            CHECK_OK(pt_tensor_transpose(x, 0, 1, &t));
            CHECK_OK(pt_tensor_contiguous(t, &c));
            for (int64_t i = 0; i < t->numel; i++) CHECK(get(c, i) == get(t, i));
            CHECK_OK(pt_tensor_flip_view(x, 0, &f));
            CHECK_OK(pt_tensor_transpose(f, 0, 1, &ft));
            CHECK_OK(pt_tensor_contiguous(ft, &fc));
            for (int64_t i = 0; i < ft->numel; i++) CHECK(get(fc, i) == get(ft, i));
            pt_tensor *ts[] = {x, t, c, f, ft, fc};
            for (int i = 0; i < 6; i++) pt_tensor_release(ts[i]);
        }
    }
    int64_t s4[4] = {2, 70, 9, 11}, perm[4] = {0, 2, 3, 1};
    pt_tensor *x = make(4, s4, PT_FLOAT32, NULL), *p, *c;
    CHECK(x);
    CHECK_OK(pt_tensor_permute(x, 4, perm, &p));
    CHECK_OK(pt_tensor_contiguous(p, &c));
    for (int64_t i = 0; i < p->numel; i++) CHECK(get(c, i) == get(p, i));
    pt_tensor_release(x);
    pt_tensor_release(p);
    pt_tensor_release(c);
}

static void no_delete(void *ctx) { PT_UNUSED(ctx); }

PT_TEST(copy_refuses_read_only_and_broadcast_destinations)
{
    float bytes[4] = {1, 2, 3, 4};
    pt_storage *s;
    CHECK_OK(pt_storage_from_external(bytes, sizeof bytes, PT_FLOAT32, CPU, no_delete, NULL, 0,
                                      &s));
    int64_t n = 4, one = 1, wide[2] = {3, 4};
    pt_tensor *ro, *ex, *src = make(1, &n, PT_FLOAT32, NULL);
    pt_tensor *row = make(1, &one, PT_FLOAT32, NULL);
    CHECK(src && row);
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 1, &n, NULL, 0, &ro));
    CHECK_ERR(pt_tensor_copy_(ro, src), PT_ERR_RUNTIME, "copy_: the tensor's storage is read-only");
    CHECK_ERR(pt_tensor_fill_(ro, &(pt_scalar){PT_SCALAR_INT, 1, 0, 0}), PT_ERR_RUNTIME,
              "fill_: the tensor's storage is read-only");
    CHECK(bytes[0] == 1 && bytes[3] == 4);
    CHECK_OK(pt_tensor_copy_(src, ro)); /* reading from it is fine */
    CHECK(equals(src, (double[]){1, 2, 3, 4}));
    CHECK_OK(pt_tensor_expand(row, 2, wide, &ex));
    CHECK_ERR(pt_tensor_copy_(ex, src), PT_ERR_RUNTIME,
              "more than one element of the written-to tensor refers to a single memory location");
    pt_tensor_release(ro);
    pt_tensor_release(src);
    pt_tensor_release(row);
    pt_tensor_release(ex);
    pt_storage_release(s);
}

PT_TEST(copy_into_meta_checks_shapes_only_and_out_of_meta_is_not_implemented)
{
    int64_t s[2] = {2, 2}, bad[1] = {3};
    pt_tensor *m, *c = make(2, s, PT_FLOAT32, NULL), *b = make(1, bad, PT_FLOAT32, NULL);
    CHECK(c && b);
    CHECK_OK(pt_tensor_empty(2, s, PT_FLOAT32, META, &m));
    CHECK_OK(pt_tensor_copy_(m, c));
    CHECK_ERR(pt_tensor_copy_(m, b), PT_ERR_RUNTIME, "The size of tensor a (2) must match");
    CHECK_ERR(pt_tensor_copy_(c, m), PT_ERR_NOT_IMPLEMENTED,
              "Cannot copy out of meta tensor; no data!");
    CHECK_OK(pt_tensor_fill_(m, &(pt_scalar){PT_SCALAR_INT, 1, 0, 0}));
    pt_tensor_release(m);
    pt_tensor_release(c);
    pt_tensor_release(b);
}

PT_TEST(copy_of_an_opaque_dtype_moves_bytes_and_refuses_other_dtypes)
{
    int32_t rgb;
    CHECK_OK(pt_dtype_register("test_copy_rgb", 3, 1, &rgb));
    int64_t n = 4, two = 2;
    pt_tensor *a, *b, *f = make(1, &n, PT_FLOAT32, NULL), *ev, *cl;
    CHECK(f);
    CHECK_OK(pt_tensor_empty(1, &n, rgb, CPU, &a));
    CHECK_OK(pt_tensor_empty(1, &two, rgb, CPU, &b));
    for (int i = 0; i < 12; i++) ((unsigned char *)pt_tensor_data(a))[i] = (unsigned char)i;
    CHECK_OK(pt_tensor_slice(a, 0, 0, 4, 2, &ev)); /* elements 0 and 2 */
    CHECK_OK(pt_tensor_copy_(b, ev));
    static const unsigned char want[6] = {0, 1, 2, 6, 7, 8};
    CHECK(memcmp(pt_tensor_data(b), want, 6) == 0);
    CHECK_OK(pt_tensor_clone(ev, PT_MEMORY_FORMAT_PRESERVE, &cl));
    CHECK(memcmp(pt_tensor_data(cl), want, 6) == 0);
    CHECK_ERR(pt_tensor_copy_(a, f), PT_ERR_TYPE,
              "cannot convert between dtypes 'float32' and 'test_copy_rgb'");
    CHECK_ERR(pt_tensor_fill_(a, &(pt_scalar){PT_SCALAR_INT, 0, 0, 0}), PT_ERR_TYPE,
              "holds no numbers");
    pt_scalar s;
    pt_tensor *one;
    CHECK_OK(pt_tensor_narrow(a, 0, 0, 1, &one));
    CHECK_ERR(pt_tensor_item(one, &s), PT_ERR_TYPE,
              "opaque dtype 'test_copy_rgb' has no scalar value");
    pt_tensor *ts[] = {a, b, f, ev, cl, one};
    for (int i = 0; i < 6; i++) pt_tensor_release(ts[i]);
}

/* ---------------------------------------------------------------- fill_ */

PT_TEST(fill_writes_only_the_elements_of_a_strided_view)
{
    int64_t s[2] = {4, 6};
    pt_tensor *x = make(2, s, PT_INT16, NULL), *col, *every;
    CHECK(x);
    CHECK_OK(pt_tensor_select(x, 1, 2, &col));                /* column 2 */
    CHECK_OK(pt_tensor_fill_(col, &(pt_scalar){PT_SCALAR_FLOAT, 0, -7.9, 0}));
    for (int64_t i = 0; i < 24; i++) CHECK(get(x, i) == (i % 6 == 2 ? -7 : (double)i));
    CHECK_OK(pt_tensor_slice(x, 1, 1, 6, 2, &every)); /* columns 1, 3, 5 */
    CHECK_OK(pt_tensor_fill_(every, &(pt_scalar){PT_SCALAR_BOOL, 1, 0, 0}));
    for (int64_t i = 0; i < 24; i++)
        CHECK(get(x, i) == (i % 2 == 1 ? 1 : i % 6 == 2 ? -7 : (double)i));
    pt_tensor *one, *wide;
    int64_t four = 4;
    CHECK_OK(pt_tensor_select(col, 0, 3, &one));
    CHECK_OK(pt_tensor_expand(one, 1, &four, &wide)); /* one element seen four times */
    CHECK_OK(pt_tensor_fill_(wide, &(pt_scalar){PT_SCALAR_INT, 12, 0, 0}));
    CHECK(get(x, 20) == 12 && get(x, 19) == 1 && get(x, 21) == 1);
    pt_tensor_release(one);
    pt_tensor_release(wide);
    pt_tensor_release(col);
    pt_tensor_release(every);
    pt_tensor_release(x);
}

PT_TEST(fill_converts_the_value_like_torch_for_each_dtype)
{
    int64_t n = 3;
    pt_tensor *b = make(1, &n, PT_BOOL, NULL), *h = make(1, &n, PT_FLOAT16, NULL),
              *c = make(1, &n, PT_COMPLEX128, NULL), *u = make(1, &n, PT_UINT8, NULL),
              *z = make(0, NULL, PT_INT64, NULL), *e;
    CHECK(b && h && c && u && z);
    CHECK_OK(pt_tensor_fill_(b, &(pt_scalar){PT_SCALAR_COMPLEX, 0, 0, 2}));
    CHECK(equals(b, (double[]){1, 1, 1}));
    CHECK_OK(pt_tensor_fill_(h, &(pt_scalar){PT_SCALAR_FLOAT, 0, 1.0 / 3, 0}));
    CHECK(((uint16_t *)pt_tensor_data(h))[2] == 0x3555);
    CHECK_OK(pt_tensor_fill_(c, &(pt_scalar){PT_SCALAR_COMPLEX, 0, 1.5, -2}));
    CHECK(((double *)pt_tensor_data(c))[4] == 1.5 && ((double *)pt_tensor_data(c))[5] == -2);
    CHECK_OK(pt_tensor_fill_(u, &(pt_scalar){PT_SCALAR_INT, -1, 0, 0}));
    CHECK(equals(u, (double[]){255, 255, 255}));
    CHECK_OK(pt_tensor_fill_(z, &(pt_scalar){PT_SCALAR_INT, INT64_MIN, 0, 0}));
    CHECK(*(int64_t *)pt_tensor_data(z) == INT64_MIN);
    int64_t zero = 0;
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT32, CPU, &e));
    CHECK_OK(pt_tensor_fill_(e, &(pt_scalar){PT_SCALAR_INT, 1, 0, 0}));
    pt_tensor *ts[] = {b, h, c, u, z, e};
    for (int i = 0; i < 6; i++) pt_tensor_release(ts[i]);
}

PT_TEST(fill_refuses_values_that_overflow_and_bad_arguments)
{
    int64_t n = 2;
    pt_tensor *u = make(1, &n, PT_UINT8, NULL), *f = make(1, &n, PT_FLOAT32, NULL);
    CHECK(u && f);
    CHECK_ERR(pt_tensor_fill_(u, &(pt_scalar){PT_SCALAR_INT, 300, 0, 0}), PT_ERR_RUNTIME,
              "value cannot be converted to type uint8_t without overflow");
    CHECK_ERR(pt_tensor_fill_(f, &(pt_scalar){PT_SCALAR_COMPLEX, 0, 1, 2}), PT_ERR_RUNTIME,
              "value cannot be converted to type float without overflow");
    CHECK_ERR(pt_tensor_fill_(f, &(pt_scalar){PT_SCALAR_FLOAT, 0, 1e300, 0}), PT_ERR_RUNTIME,
              "float without overflow");
    CHECK_ERR(pt_tensor_fill_(f, &(pt_scalar){7, 0, 0, 0}), PT_ERR_VALUE, "unknown scalar kind 7");
    CHECK_ERR(pt_tensor_fill_(f, NULL), PT_ERR_VALUE, "fill_: value must be a scalar");
    CHECK_ERR(pt_tensor_fill_(NULL, &(pt_scalar){PT_SCALAR_INT, 1, 0, 0}), PT_ERR_VALUE,
              "fill_: self must be a tensor");
    CHECK(equals(u, (double[]){0, 1}));
    pt_tensor_release(u);
    pt_tensor_release(f);
}

/* ---------------------------------------------------------------- clone, contiguous, to, item */

PT_TEST(clone_preserve_keeps_dense_permuted_strides_and_densifies_the_rest)
{
    int64_t s[4] = {2, 3, 4, 5}, perm[4] = {0, 2, 3, 1};
    pt_tensor *x = make(4, s, PT_FLOAT32, NULL), *p, *pc, *sl, *sc, *cc;
    CHECK(x);
    CHECK_OK(pt_tensor_permute(x, 4, perm, &p));
    CHECK_OK(pt_tensor_clone(p, PT_MEMORY_FORMAT_PRESERVE, &pc));
    CHECK(strides_are(pc, (int64_t[]){60, 5, 1, 20}) && pc->storage != p->storage);
    CHECK_OK(pt_tensor_slice(x, 2, 0, 4, 2, &sl)); /* [2, 3, 2, 5], not dense */
    CHECK_OK(pt_tensor_clone(sl, PT_MEMORY_FORMAT_PRESERVE, &sc));
    CHECK(strides_are(sc, (int64_t[]){30, 10, 5, 1}));
    for (int64_t i = 0; i < sc->numel; i++) CHECK(get(sc, i) == get(sl, i));
    CHECK_OK(pt_tensor_clone(p, PT_MEMORY_FORMAT_CONTIGUOUS, &cc));
    CHECK(strides_are(cc, (int64_t[]){60, 15, 3, 1}));
    for (int64_t i = 0; i < 120; i++) CHECK(get(cc, i) == get(p, i) && get(pc, i) == get(p, i));
    pt_tensor *ts[] = {x, p, pc, sl, sc, cc};
    for (int i = 0; i < 6; i++) pt_tensor_release(ts[i]);
}

PT_TEST(clone_channels_last_uses_torchs_nhwc_and_ndhwc_strides)
{
    static const struct {
        int32_t ndim, format;
        int64_t sizes[5], strides[5];
    } cases[] = {
        {4, PT_MEMORY_FORMAT_CHANNELS_LAST, {2, 3, 4, 5}, {60, 1, 15, 3}},
        {4, PT_MEMORY_FORMAT_CHANNELS_LAST, {2, 1, 4, 5}, {20, 1, 5, 1}},
        {4, PT_MEMORY_FORMAT_CHANNELS_LAST, {2, 0, 4, 5}, {0, 1, 0, 0}},
        {5, PT_MEMORY_FORMAT_CHANNELS_LAST_3D, {2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pt_tensor *x = make(cases[k].ndim, cases[k].sizes, PT_FLOAT32, NULL), *c;
        CHECK(x);
        CHECK_OK(pt_tensor_clone(x, cases[k].format, &c));
        CHECK(strides_are(c, cases[k].strides));
        CHECK(pt_tensor_is_contiguous(c, cases[k].format));
        for (int64_t i = 0; i < x->numel; i++) CHECK(get(c, i) == (double)i);
        pt_tensor_release(x);
        pt_tensor_release(c);
    }
}

PT_TEST(clone_refuses_wrong_ranks_and_unknown_memory_formats)
{
    int64_t s[2] = {2, 3};
    pt_tensor *x = make(2, s, PT_FLOAT32, NULL), *c;
    CHECK(x);
    CHECK_ERR(pt_tensor_clone(x, PT_MEMORY_FORMAT_CHANNELS_LAST, &c), PT_ERR_RUNTIME,
              "required rank 4 tensor to use channels_last format");
    CHECK_ERR(pt_tensor_clone(x, PT_MEMORY_FORMAT_CHANNELS_LAST_3D, &c), PT_ERR_RUNTIME,
              "required rank 5 tensor to use channels_last_3d format");
    CHECK_ERR(pt_tensor_clone(x, 9, &c), PT_ERR_VALUE, "clone: unknown memory_format 9");
    CHECK_ERR(pt_tensor_clone(NULL, 0, &c), PT_ERR_VALUE, "clone: self must be a tensor");
    pt_tensor_release(x);
}

PT_TEST(contiguous_and_to_return_the_same_tensor_when_nothing_changes)
{
    int64_t s[2] = {2, 3};
    pt_tensor *x = make(2, s, PT_FLOAT32, NULL), *c, *t, *copy, *m;
    CHECK(x);
    CHECK_OK(pt_tensor_contiguous(x, &c));
    CHECK(c == x && pt_tensor_refcount(x) == 2);
    CHECK_OK(pt_tensor_to(x, PT_FLOAT32, (pt_device){PT_DEV_CPU, -1}, 0, &t));
    CHECK(t == x && pt_tensor_refcount(x) == 3);
    CHECK_OK(pt_tensor_to(x, PT_FLOAT32, CPU, 1, &copy));
    CHECK(copy != x && copy->storage != x->storage && equals(copy, (double[]){0, 1, 2, 3, 4, 5}));
    CHECK_OK(pt_tensor_to(x, PT_FLOAT32, META, 0, &m));
    CHECK(m->device.type == PT_DEV_META && m->numel == 6);
    pt_tensor_release(c);
    pt_tensor_release(t);
    pt_tensor_release(copy);
    pt_tensor_release(m);
    CHECK(pt_tensor_refcount(x) == 1);
    pt_tensor_release(x);
}

PT_TEST(to_casts_keeping_a_permuted_layout_and_refuses_bad_targets)
{
    int64_t s[2] = {3, 2}, perm[2] = {1, 0};
    static const double v[6] = {0.5, -1.5, 2.5, 300.25, -0.0, 7};
    pt_tensor *x = make(2, s, PT_FLOAT64, v), *xt, *h, *r;
    CHECK(x);
    CHECK_OK(pt_tensor_permute(x, 2, perm, &xt));
    CHECK_OK(pt_tensor_to(xt, PT_INT8, CPU, 0, &h));
    CHECK(h->dtype == PT_INT8 && strides_are(h, (int64_t[]){1, 2}));
    CHECK(equals(h, (double[]){0, 2, 0, -1, 44, 7}));
    CHECK_ERR(pt_tensor_to(x, 99, CPU, 0, &r), PT_ERR_VALUE, "dtype: unknown dtype id 99");
    CHECK_ERR(pt_tensor_to(x, PT_FLOAT32, (pt_device){PT_DEV_CPU, 3}, 0, &r), PT_ERR_RUNTIME,
              "cpu:3");
    pt_tensor_release(x);
    pt_tensor_release(xt);
    pt_tensor_release(h);
}

PT_TEST(item_reads_one_element_as_the_dtypes_kind)
{
    pt_scalar s;
    pt_tensor *b = make(0, NULL, PT_BOOL, (double[]){1});
    pt_tensor *i = make(0, NULL, PT_INT16, (double[]){-3});
    pt_tensor *h = make(0, NULL, PT_BFLOAT16, (double[]){1.5}), *c;
    CHECK(b && i && h);
    CHECK_OK(pt_tensor_item(b, &s));
    CHECK(s.kind == PT_SCALAR_BOOL && s.i == 1);
    CHECK_OK(pt_tensor_item(i, &s));
    CHECK(s.kind == PT_SCALAR_INT && s.i == -3);
    CHECK_OK(pt_tensor_item(h, &s));
    CHECK(s.kind == PT_SCALAR_FLOAT && s.re == 1.5);
    int64_t one[3] = {1, 1, 1};
    CHECK_OK(pt_tensor_empty(3, one, PT_COMPLEX64, CPU, &c));
    CHECK_OK(pt_tensor_fill_(c, &(pt_scalar){PT_SCALAR_COMPLEX, 0, 2, -1}));
    CHECK_OK(pt_tensor_item(c, &s));
    CHECK(s.kind == PT_SCALAR_COMPLEX && s.re == 2 && s.im == -1);
    pt_tensor_release(b);
    pt_tensor_release(i);
    pt_tensor_release(h);
    pt_tensor_release(c);
}

PT_TEST(item_refuses_other_sizes_and_meta_with_torchs_messages)
{
    int64_t s[2] = {2, 3}, zero = 0;
    pt_tensor *x = make(2, s, PT_FLOAT32, NULL), *e, *m;
    CHECK(x);
    CHECK_OK(pt_tensor_empty(1, &zero, PT_FLOAT32, CPU, &e));
    CHECK_OK(pt_tensor_empty(0, NULL, PT_FLOAT32, META, &m));
    pt_scalar v;
    CHECK_ERR(pt_tensor_item(x, &v), PT_ERR_RUNTIME,
              "a Tensor with 6 elements cannot be converted to Scalar");
    CHECK_ERR(pt_tensor_item(e, &v), PT_ERR_RUNTIME,
              "a Tensor with 0 elements cannot be converted to Scalar");
    CHECK_ERR(pt_tensor_item(m, &v), PT_ERR_RUNTIME,
              "Tensor.item() cannot be called on meta tensors");
    pt_tensor_release(x);
    pt_tensor_release(e);
    pt_tensor_release(m);
}

/* ---------------------------------------------------------------- other devices
 * A stand-in "cuda" made of host memory: two devices, malloc for memory, memcpy for transfers
 * (counted). It is registered for good, so it lives in a child process. */
static int transfers;

static pt_status fake_count(int32_t *out) { *out = 2; return PT_OK; }
static pt_status fake_current(int32_t *out) { *out = 0; return PT_OK; }
static pt_status fake_index(int32_t index) { PT_UNUSED(index); return PT_OK; }
static const pt_device_guard_impl fake_guard = {PT_DEV_CUDA, fake_count, fake_current, fake_index,
                                                fake_index};

static pt_status fake_alloc(void *ctx, int32_t index, int64_t nbytes, void **out)
{
    PT_UNUSED(ctx);
    PT_UNUSED(index);
    *out = malloc((size_t)nbytes);
    return *out ? PT_OK : PT_ERROR(PT_ERR_MEMORY, "fake: out of memory");
}
static void fake_free(void *ctx, int32_t index, void *p, int64_t nbytes)
{
    PT_UNUSED(ctx);
    PT_UNUSED(index);
    PT_UNUSED(nbytes);
    free(p);
}
static void fake_stats(void *ctx, pt_memory_stats *out)
{
    PT_UNUSED(ctx);
    memset(out, 0, sizeof *out);
}
static void fake_reset(void *ctx) { PT_UNUSED(ctx); }
static const pt_allocator_impl fake_allocator = {PT_DEV_CUDA, fake_alloc, fake_free, fake_stats,
                                                 fake_reset, NULL, NULL};

static pt_status fake_copy(int64_t nbytes, const void *src, pt_device sd, void *dst, pt_device dd)
{
    PT_UNUSED(sd);
    PT_UNUSED(dd);
    transfers++;
    memmove(dst, src, (size_t)nbytes);
    return PT_OK;
}
static const pt_copy_bytes_impl fake_to = {PT_DEV_CPU, PT_DEV_CUDA, fake_copy, NULL};
static const pt_copy_bytes_impl fake_from = {PT_DEV_CUDA, PT_DEV_CPU, fake_copy, NULL};
static const pt_copy_bytes_impl fake_within = {PT_DEV_CUDA, PT_DEV_CUDA, fake_copy, NULL};

static void on_fake_device(pt_test_ctx *pt_ctx_)
{
    CHECK_OK(pt_registry_add("device_guard", "cuda", &fake_guard, "", __FILE__, __LINE__));
    CHECK_OK(pt_registry_add("allocator", "cuda", &fake_allocator, "", __FILE__, __LINE__));
    CHECK_OK(pt_registry_add("copy_bytes", "cpu->cuda", &fake_to, "", __FILE__, __LINE__));
    CHECK_OK(pt_registry_add("copy_bytes", "cuda->cpu", &fake_from, "", __FILE__, __LINE__));
    CHECK_OK(pt_registry_add("copy_bytes", "cuda->cuda", &fake_within, "", __FILE__, __LINE__));
    CHECK_OK(pt_device_resolve_tables());
    const pt_device GPU = {PT_DEV_CUDA, 0}, GPU1 = {PT_DEV_CUDA, 1};
    int64_t s[2] = {3, 4}, perm[2] = {1, 0};
    pt_tensor *x = make(2, s, PT_FLOAT32, NULL), *g, *g1, *back, *xt, *gt, *col;

    /* equal dense layouts: one transfer each way */
    transfers = 0;
    CHECK_OK(pt_tensor_to(x, PT_FLOAT32, GPU, 0, &g));
    CHECK(g->device.type == PT_DEV_CUDA && transfers == 1);
    CHECK_OK(pt_tensor_to(g, PT_FLOAT32, CPU, 0, &back));
    CHECK(transfers == 2 && equals(back, (double[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    pt_tensor_release(back);

    /* transposed and cast on the way: staged through the CPU */
    CHECK_OK(pt_tensor_permute(x, 2, perm, &xt));
    int64_t ts[2] = {4, 3};
    CHECK_OK(pt_tensor_empty(2, ts, PT_INT64, GPU1, &gt));
    CHECK_OK(pt_tensor_copy_(gt, xt));
    CHECK_OK(pt_tensor_to(gt, PT_INT64, CPU, 0, &back));
    CHECK(equals(back, (double[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
    pt_tensor_release(back);

    /* fill_ of a column with gaps on the device keeps the bytes between its elements */
    CHECK_OK(pt_tensor_select(g, 1, 1, &col));
    CHECK_OK(pt_tensor_fill_(col, &(pt_scalar){PT_SCALAR_INT, -1, 0, 0}));
    pt_scalar v;
    CHECK_OK(pt_tensor_to(g, PT_FLOAT32, CPU, 0, &back));
    CHECK(equals(back, (double[]){0, -1, 2, 3, 4, -1, 6, 7, 8, -1, 10, 11}));
    pt_tensor_release(back);

    /* overlapping views of one device buffer, cross-device item, clone and arange there */
    pt_tensor *row, *row2, *cl, *ar;
    CHECK_OK(pt_tensor_narrow(col, 0, 1, 2, &row));
    CHECK_OK(pt_tensor_narrow(col, 0, 0, 2, &row2));
    CHECK_OK(pt_tensor_fill_(row2, &(pt_scalar){PT_SCALAR_INT, 5, 0, 0}));
    CHECK_OK(pt_tensor_copy_(row, row2));
    CHECK_OK(pt_tensor_to(g, PT_FLOAT32, CPU, 0, &back));
    CHECK(equals(back, (double[]){0, 5, 2, 3, 4, 5, 6, 7, 8, 5, 10, 11}));
    pt_tensor *elem;
    CHECK_OK(pt_tensor_select(col, 0, 2, &elem));
    CHECK_OK(pt_tensor_item(elem, &v));
    CHECK(v.kind == PT_SCALAR_FLOAT && v.re == 5);
    /* fill_ of a broadcast view is allowed (copy_ into one is not) */
    pt_tensor *wide;
    int64_t four = 4;
    CHECK_OK(pt_tensor_expand(elem, 1, &four, &wide));
    CHECK_OK(pt_tensor_fill_(wide, &(pt_scalar){PT_SCALAR_INT, 9, 0, 0}));
    CHECK_OK(pt_tensor_item(elem, &v));
    CHECK(v.re == 9);
    pt_tensor_release(wide);
    CHECK_OK(pt_tensor_clone(col, PT_MEMORY_FORMAT_PRESERVE, &cl));
    CHECK(cl->device.type == PT_DEV_CUDA && cl->strides[0] == 1);
    CHECK_OK(pt_tensor_to(g, PT_FLOAT64, GPU1, 0, &g1));
    CHECK(g1->device.index == 1 && g1->dtype == PT_FLOAT64);
    pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0}, four_s = {PT_SCALAR_INT, 4, 0, 0},
              step = {PT_SCALAR_INT, 1, 0, 0};
    CHECK_OK(pt_tensor_arange(&zero, &four_s, &step, PT_INT32, GPU, &ar));
    CHECK(ar->device.type == PT_DEV_CUDA);
    pt_tensor *ar_back;
    CHECK_OK(pt_tensor_to(ar, PT_INT32, CPU, 0, &ar_back));
    CHECK(equals(ar_back, (double[]){0, 1, 2, 3}));
    pt_tensor *all[] = {x, g, g1, back, xt, gt, col, row, row2, cl, ar, ar_back, elem};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) pt_tensor_release(all[i]);
}

PT_TEST(copy_fill_item_and_factories_stage_through_the_cpu_on_other_devices)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        pt_test_ctx child = {0};
        on_fake_device(&child);
        _exit(child.failed ? 1 : 0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
