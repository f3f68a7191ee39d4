/* index_ops.c - indexing along one dim: gather, scatter (src and value forms, reduce='add' /
 * 'multiply'), scatter_add, index_select and take, with their in-place and out= overloads.
 *
 * All of them are one walk: pt_loop_nd over the shape of the index, with three operands - the
 * tensor written, the tensor read, and the index - where the indexed tensor is "restrided": its
 * stride on the indexed dim is set to 0, so that the walk points at the start of the right line
 * and the inner loop adds index * (that dim's stride). Gather reads through the index (out[p] =
 * self[p with dim := index[p]]); scatter writes through it (self[p with dim := index[p]] =
 * src[p]). index_select is gather with the index read with stride 0 off the indexed dim, and take
 * is gather from the flattened input. Elements move as itemsize bytes; only the reductions are
 * typed (pt_shape_accumulate, Note [accumulation dtypes]). A bad index stops the walk and is
 * reported after it with torch's message.
 *
 * Functional scatters clone self (contiguous) and scatter into the clone; out= overloads compute
 * the functional result and copy it into out.
 */
#include <string.h>

#include "shape_common.h"

/* ---------------------------------------------------------------- the walk */

enum { WALK_GATHER = 0, WALK_SCATTER = 1 };
enum { BOUNDS_DIM, BOUNDS_SELECT, BOUNDS_TAKE }; /* which message a bad index gets */

typedef struct walk_ctx {
    int mode;             /* WALK_GATHER: data = {out, self, index}; */
                          /* WALK_SCATTER: data = {self, src, index} */
    int acc;              /* PT_ACC_* for scatters */
    int32_t dtype;        /* of the elements moved */
    int32_t index_dtype;
    int64_t itemsize;
    int64_t dim_stride;   /* bytes of the indexed tensor per index step */
    int64_t dim_size;
    bool wrap_negative;   /* take: -n <= i < 0 counts from the end */
    bool bad;
    int64_t bad_index;
} walk_ctx;

static void walk_loop(char **data, const int64_t *strides, int64_t n, void *vctx)
{
    walk_ctx *c = vctx;
    if (c->bad) return;
    for (int64_t k = 0; k < n; k++) {
        int64_t i = pt_shape_read_index(data[2] + k * strides[2], c->index_dtype);
        if (i < 0 && c->wrap_negative) i += c->dim_size;
        if (i < 0 || i >= c->dim_size) {
            c->bad = true;
            c->bad_index = pt_shape_read_index(data[2] + k * strides[2], c->index_dtype);
            return;
        }
        char *a = data[0] + k * strides[0], *b = data[1] + k * strides[1];
        if (c->mode == WALK_GATHER) memcpy(a, b + i * c->dim_stride, (size_t)c->itemsize);
        else if (c->acc == PT_ACC_NONE) memcpy(a + i * c->dim_stride, b, (size_t)c->itemsize);
        else pt_shape_accumulate(c->dtype, c->acc, a + i * c->dim_stride, b);
    }
}

/* Runs the walk over `shape` (nd dims); strides are element strides per operand. */
static void walk(walk_ctx *c, char *const *data, int32_t nd, const int64_t *shape,
                 const int64_t *const *strides, const int32_t *itemsizes)
{
    int64_t bytes[3 * PT_MAX_DIMS];
    for (int k = 0; k < 3; k++)
        for (int32_t d = 0; d < nd; d++) bytes[k * nd + d] = strides[k][d] * itemsizes[k];
    char *ptrs[3] = {data[0], data[1], data[2]};
    pt_loop_nd(3, ptrs, bytes, nd, shape, walk_loop, c);
}

static pt_status bad_index(const walk_ctx *c, int kind, int32_t dim)
{
    switch (kind) {
    case BOUNDS_SELECT: return PT_ERROR(PT_ERR_INDEX, "index out of range in self");
    case BOUNDS_TAKE:
        return PT_ERROR(PT_ERR_INDEX, "out of range: tried to access index %lld on a tensor of "
                        "%lld elements.", (long long)c->bad_index, (long long)c->dim_size);
    default:
        return PT_ERROR(PT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d with size "
                        "%lld", (long long)c->bad_index, (int)dim, (long long)c->dim_size);
    }
}

/* A tensor's sizes and strides as at least 1-d (torch's ensure_nonempty_dim for 0-d). */
static int32_t dims_of(const pt_tensor *t, int64_t *sizes, int64_t *strides)
{
    if (t->ndim == 0) {
        sizes[0] = 1;
        strides[0] = 1;
        return 1;
    }
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    return t->ndim;
}

/* ---------------------------------------------------------------- gather */

static pt_status gather_check(const pt_tensor *self, int32_t dim, const pt_tensor *index)
{
    if (index->dtype != PT_INT64 && index->dtype != PT_INT32)
        return PT_ERROR(PT_ERR_RUNTIME, "gather(): Expected dtype int32/int64 for index");
    if (index->numel == 0) return PT_OK;
    int32_t sn = self->ndim ? self->ndim : 1, in = index->ndim ? index->ndim : 1;
    if (sn != in)
        return PT_ERROR(PT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as "
                        "input tensor");
    for (int32_t d = 0; d < self->ndim && d < index->ndim; d++) {
        if (d == dim || index->sizes[d] <= self->sizes[d]) continue;
        char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
        pt_format_ints(a, sizeof a, index->ndim, index->sizes);
        pt_format_ints(b, sizeof b, self->ndim, self->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "Size does not match at dimension %d expected index %s to "
                        "be no larger than self %s apart from dimension %d", (int)d, a, b,
                        (int)dim);
    }
    return PT_OK;
}

static pt_status gather_compute(const pt_tensor *self, int64_t dim_arg, const pt_tensor *index,
                                pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "gather", "self"));
    PT_TRY(pt_shape_check_tensor(index, "gather", "index"));
    bool meta;
    PT_TRY(pt_shape_device(2, (const pt_tensor *[]){self, index}, &meta));
    int32_t dim;
    PT_TRY(pt_wrap_dim(dim_arg, self->ndim, &dim));
    PT_TRY(gather_check(self, dim, index));
    pt_tensor *r;
    PT_TRY(pt_shape_empty(index->ndim, index->sizes, self->dtype, meta, &r));
    if (meta || r->numel == 0) {
        *out = r;
        return PT_OK;
    }
    int64_t ssz[PT_MAX_DIMS], sst[PT_MAX_DIMS], isz[PT_MAX_DIMS], ist[PT_MAX_DIMS];
    int64_t rst[PT_MAX_DIMS], rsz[PT_MAX_DIMS];
    dims_of(self, ssz, sst);
    int32_t nd = dims_of(index, isz, ist);
    dims_of(r, rsz, rst);
    int32_t item = pt_dtype_itemsize(self->dtype);
    walk_ctx c = {WALK_GATHER, PT_ACC_NONE, self->dtype, index->dtype, item, sst[dim] * item,
                  ssz[dim], false, false, 0};
    sst[dim] = 0;
    char *data[3] = {pt_tensor_data(r), pt_tensor_data(self), pt_tensor_data(index)};
    const int64_t *strides[3] = {rst, sst, ist};
    walk(&c, data, nd, isz, strides,
         (const int32_t[]){item, item, pt_dtype_itemsize(index->dtype)});
    if (c.bad) {
        pt_tensor_release(r);
        return bad_index(&c, BOUNDS_DIM, dim);
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_gather(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                           int32_t sparse_grad, pt_tensor **out)
{
    PT_UNUSED(sparse_grad);
    return gather_compute(self, dim, index, out);
}

pt_status pt_kernel_gather_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                               int32_t sparse_grad, pt_tensor *out_arg, pt_tensor **out)
{
    PT_UNUSED(sparse_grad);
    PT_TRY(pt_shape_check_tensor(out_arg, "gather", "out"));
    PT_TRY(pt_shape_out_dtype(out_arg, self->dtype));
    pt_tensor *r;
    PT_TRY(gather_compute(self, dim, index, &r));
    return pt_shape_finish_out("gather", r, out_arg, false, out);
}

/* ---------------------------------------------------------------- scatter */

typedef struct scatter_args {
    const char *name;
    const pt_tensor *index;
    const pt_tensor *src;     /* NULL for the value forms */
    const pt_scalar *value;
    int acc;
} scatter_args;

static pt_status parse_reduce(const char *reduce, int *acc)
{
    if (reduce && strcmp(reduce, "add") == 0) *acc = PT_ACC_ADD;
    else if (reduce && strcmp(reduce, "multiply") == 0) *acc = PT_ACC_MUL;
    else return PT_ERROR(PT_ERR_RUNTIME, "reduce argument must be either add or multiply.");
    return PT_OK;
}

static pt_status scatter_size_error(const pt_tensor *self, int32_t dim, const pt_tensor *index,
                                    const pt_tensor *src)
{
    char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS], s[PT_SHAPE_CHARS];
    pt_format_ints(a, sizeof a, index->ndim, index->sizes);
    pt_format_ints(b, sizeof b, self->ndim, self->sizes);
    if (!src)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected index %s to be no larger than self %s apart "
                        "from dimension %d", a, b, (int)dim);
    pt_format_ints(s, sizeof s, src->ndim, src->sizes);
    return PT_ERROR(PT_ERR_RUNTIME, "Expected index %s to be no larger than self %s apart from "
                    "dimension %d and to be no larger size than src %s", a, b, (int)dim, s);
}

/* torch's scatter_gather_dtype_check and scatter_shape_check; torch's dtype messages say
 * "scatter()" for scatter_add too. */
static pt_status scatter_check(const pt_tensor *self, int32_t dim, const scatter_args *a)
{
    const pt_tensor *index = a->index, *src = a->src;
    if (index->dtype != PT_INT64 && index->dtype != PT_INT32)
        return PT_ERROR(PT_ERR_RUNTIME, "scatter(): Expected dtype int32/int64 for index");
    if (src && src->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal to src.dtype");
    if (index->numel == 0) return PT_OK;
    int32_t sn = self->ndim ? self->ndim : 1, in = index->ndim ? index->ndim : 1;
    if (sn != in)
        return PT_ERROR(PT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as "
                        "self tensor");
    if (src && (src->ndim ? src->ndim : 1) != in)
        return PT_ERROR(PT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as "
                        "src tensor");
    for (int32_t d = 0; d < index->ndim; d++) {
        bool too_big = d != dim && index->sizes[d] > self->sizes[d];
        if (src) too_big |= index->sizes[d] > src->sizes[d];
        if (too_big) return scatter_size_error(self, dim, index, src);
    }
    return PT_OK;
}

/* Scatters into t (CPU or meta), which the caller owns or was handed in place. */
static pt_status scatter_into(pt_tensor *t, int64_t dim_arg, const scatter_args *a)
{
    PT_TRY(pt_shape_check_tensor(a->index, a->name, "index"));
    if (a->src) PT_TRY(pt_shape_check_tensor(a->src, a->name, "src"));
    bool meta;
    PT_TRY(pt_shape_device(3, (const pt_tensor *[]){t, a->index, a->src}, &meta));
    int32_t dim;
    PT_TRY(pt_wrap_dim(dim_arg, t->ndim, &dim));
    PT_TRY(scatter_check(t, dim, a));
    if (a->value) PT_TRY(pt_dtype_scalar_check(t->dtype, a->value));
    if (meta || a->index->numel == 0) return PT_OK;
    int32_t item = pt_dtype_itemsize(t->dtype);
    unsigned char value[16] = {0};
    if (a->value) pt_dtype_scalar_to(t->dtype)(a->value, value);
    int64_t tsz[PT_MAX_DIMS], tst[PT_MAX_DIMS], isz[PT_MAX_DIMS], ist[PT_MAX_DIMS];
    int64_t ssz[PT_MAX_DIMS], sst[PT_MAX_DIMS] = {0};
    dims_of(t, tsz, tst);
    int32_t nd = dims_of(a->index, isz, ist);
    if (a->src) dims_of(a->src, ssz, sst);
    walk_ctx c = {WALK_SCATTER, a->acc, t->dtype, a->index->dtype, item, tst[dim] * item,
                  tsz[dim], false, false, 0};
    tst[dim] = 0;
    char *data[3] = {pt_tensor_data(t), a->src ? pt_tensor_data(a->src) : (char *)value,
                     pt_tensor_data(a->index)};
    const int64_t *strides[3] = {tst, sst, ist};
    walk(&c, data, nd, isz, strides,
         (const int32_t[]){item, item, pt_dtype_itemsize(a->index->dtype)});
    return c.bad ? bad_index(&c, BOUNDS_DIM, dim) : PT_OK;
}

static pt_status scatter_inplace(pt_tensor *self, int64_t dim, const scatter_args *a,
                                 pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, a->name, "self"));
    PT_TRY(pt_shape_check_writable(self, a->name));
    PT_TRY(scatter_into(self, dim, a));
    pt_tensor_retain(self);
    *out = self;
    return PT_OK;
}

static pt_status scatter_functional(const pt_tensor *self, int64_t dim, const scatter_args *a,
                                    pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, a->name, "self"));
    pt_tensor *r;
    PT_TRY(pt_tensor_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS, &r));
    pt_status st = scatter_into(r, dim, a);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

static pt_status scatter_out(const pt_tensor *self, int64_t dim, const scatter_args *a,
                             pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, a->name, "out"));
    PT_TRY(pt_shape_check_tensor(self, a->name, "self"));
    PT_TRY(pt_shape_out_dtype(out_arg, self->dtype));
    pt_tensor *r;
    PT_TRY(scatter_functional(self, dim, a, &r));
    return pt_shape_finish_out(a->name, r, out_arg, false, out);
}

#define SRC_ARGS(NAME, ACC) {(NAME), index, src, NULL, (ACC)}
#define VALUE_ARGS(NAME, ACC) {(NAME), index, NULL, value, (ACC)}

pt_status pt_kernel_scatter_src(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                const pt_tensor *src, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter", PT_ACC_NONE);
    return scatter_functional(self, dim, &a, out);
}

pt_status pt_kernel_scatter__src(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                 const pt_tensor *src, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter", PT_ACC_NONE);
    return scatter_inplace(self, dim, &a, out);
}

pt_status pt_kernel_scatter_src_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                    const pt_tensor *src, pt_tensor *out_arg, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter", PT_ACC_NONE);
    return scatter_out(self, dim, &a, out_arg, out);
}

pt_status pt_kernel_scatter_value(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                  const pt_scalar *value, pt_tensor **out)
{
    scatter_args a = VALUE_ARGS("scatter", PT_ACC_NONE);
    return scatter_functional(self, dim, &a, out);
}

pt_status pt_kernel_scatter__value(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                   const pt_scalar *value, pt_tensor **out)
{
    scatter_args a = VALUE_ARGS("scatter", PT_ACC_NONE);
    return scatter_inplace(self, dim, &a, out);
}

pt_status pt_kernel_scatter_value_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                      const pt_scalar *value, pt_tensor *out_arg, pt_tensor **out)
{
    scatter_args a = VALUE_ARGS("scatter", PT_ACC_NONE);
    return scatter_out(self, dim, &a, out_arg, out);
}

pt_status pt_kernel_scatter_reduce(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                   const pt_tensor *src, const char *reduce, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter", PT_ACC_NONE);
    PT_TRY(parse_reduce(reduce, &a.acc));
    return scatter_functional(self, dim, &a, out);
}

pt_status pt_kernel_scatter__reduce(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                    const pt_tensor *src, const char *reduce, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter", PT_ACC_NONE);
    PT_TRY(parse_reduce(reduce, &a.acc));
    return scatter_inplace(self, dim, &a, out);
}

pt_status pt_kernel_scatter_reduce_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                       const pt_tensor *src, const char *reduce,
                                       pt_tensor *out_arg, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter", PT_ACC_NONE);
    PT_TRY(parse_reduce(reduce, &a.acc));
    return scatter_out(self, dim, &a, out_arg, out);
}

pt_status pt_kernel_scatter_value_reduce(const pt_tensor *self, int64_t dim,
                                         const pt_tensor *index, const pt_scalar *value,
                                         const char *reduce, pt_tensor **out)
{
    scatter_args a = VALUE_ARGS("scatter", PT_ACC_NONE);
    PT_TRY(parse_reduce(reduce, &a.acc));
    return scatter_functional(self, dim, &a, out);
}

pt_status pt_kernel_scatter__value_reduce(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                          const pt_scalar *value, const char *reduce,
                                          pt_tensor **out)
{
    scatter_args a = VALUE_ARGS("scatter", PT_ACC_NONE);
    PT_TRY(parse_reduce(reduce, &a.acc));
    return scatter_inplace(self, dim, &a, out);
}

pt_status pt_kernel_scatter_value_reduce_out(const pt_tensor *self, int64_t dim,
                                             const pt_tensor *index, const pt_scalar *value,
                                             const char *reduce, pt_tensor *out_arg,
                                             pt_tensor **out)
{
    scatter_args a = VALUE_ARGS("scatter", PT_ACC_NONE);
    PT_TRY(parse_reduce(reduce, &a.acc));
    return scatter_out(self, dim, &a, out_arg, out);
}

pt_status pt_kernel_scatter_add(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                const pt_tensor *src, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter_add", PT_ACC_ADD);
    return scatter_functional(self, dim, &a, out);
}

pt_status pt_kernel_scatter_add_(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                 const pt_tensor *src, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter_add", PT_ACC_ADD);
    return scatter_inplace(self, dim, &a, out);
}

pt_status pt_kernel_scatter_add_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                    const pt_tensor *src, pt_tensor *out_arg, pt_tensor **out)
{
    scatter_args a = SRC_ARGS("scatter_add", PT_ACC_ADD);
    return scatter_out(self, dim, &a, out_arg, out);
}

/* ---------------------------------------------------------------- index_select */

static pt_status index_select_compute(const pt_tensor *self, int64_t dim_arg,
                                      const pt_tensor *index, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "index_select", "self"));
    PT_TRY(pt_shape_check_tensor(index, "index_select", "index"));
    bool meta;
    PT_TRY(pt_shape_device(2, (const pt_tensor *[]){self, index}, &meta));
    if (index->ndim > 1)
        return PT_ERROR(PT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    if (index->dtype != PT_INT64 && index->dtype != PT_INT32)
        return PT_ERROR(PT_ERR_RUNTIME, "index_select(): Expected dtype int32 or int64 for index");
    int32_t dim;
    PT_TRY(pt_wrap_dim(dim_arg, self->ndim, &dim));
    int64_t shape[PT_MAX_DIMS], ssz[PT_MAX_DIMS], sst[PT_MAX_DIMS];
    int32_t nd = dims_of(self, ssz, sst);
    memcpy(shape, ssz, sizeof(int64_t) * (size_t)nd);
    shape[dim] = index->numel;
    pt_tensor *r;
    PT_TRY(pt_shape_empty(self->ndim, shape, self->dtype, meta, &r));
    if (meta || r->numel == 0) {
        *out = r;
        return PT_OK;
    }
    int64_t rsz[PT_MAX_DIMS], rst[PT_MAX_DIMS], ist[PT_MAX_DIMS] = {0};
    dims_of(r, rsz, rst);
    ist[dim] = index->ndim ? index->strides[0] : 0;
    int32_t item = pt_dtype_itemsize(self->dtype);
    walk_ctx c = {WALK_GATHER, PT_ACC_NONE, self->dtype, index->dtype, item, sst[dim] * item,
                  ssz[dim], false, false, 0};
    sst[dim] = 0;
    char *data[3] = {pt_tensor_data(r), pt_tensor_data(self), pt_tensor_data(index)};
    const int64_t *strides[3] = {rst, sst, ist};
    walk(&c, data, nd, shape, strides,
         (const int32_t[]){item, item, pt_dtype_itemsize(index->dtype)});
    if (c.bad) {
        pt_tensor_release(r);
        return bad_index(&c, BOUNDS_SELECT, dim);
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_index_select(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                 pt_tensor **out)
{
    return index_select_compute(self, dim, index, out);
}

pt_status pt_kernel_index_select_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                     pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "index_select", "out"));
    if (out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "index_select(): self and result must have the same "
                        "scalar type");
    pt_tensor *r;
    PT_TRY(index_select_compute(self, dim, index, &r));
    return pt_shape_finish_out("index_select", r, out_arg, false, out);
}

/* ---------------------------------------------------------------- take */

static pt_status take_compute(const pt_tensor *self, const pt_tensor *index, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "take", "self"));
    PT_TRY(pt_shape_check_tensor(index, "take", "index"));
    bool meta;
    PT_TRY(pt_shape_device(2, (const pt_tensor *[]){self, index}, &meta));
    if (index->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got %s",
                        pt_shape_legacy_name(index->dtype));
    pt_tensor *r;
    PT_TRY(pt_shape_empty(index->ndim, index->sizes, self->dtype, meta, &r));
    if (meta || r->numel == 0) {
        *out = r;
        return PT_OK;
    }
    pt_tensor *flat;
    pt_status st = pt_tensor_reshape(self, 1, (const int64_t[]){self->numel}, &flat);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    int64_t isz[PT_MAX_DIMS], ist[PT_MAX_DIMS], rsz[PT_MAX_DIMS], rst[PT_MAX_DIMS];
    int64_t sst[PT_MAX_DIMS] = {0};
    int32_t nd = dims_of(index, isz, ist);
    dims_of(r, rsz, rst);
    int32_t item = pt_dtype_itemsize(self->dtype);
    walk_ctx c = {WALK_GATHER, PT_ACC_NONE, self->dtype, PT_INT64, item, flat->strides[0] * item,
                  self->numel, true, false, 0};
    char *data[3] = {pt_tensor_data(r), pt_tensor_data(flat), pt_tensor_data(index)};
    const int64_t *strides[3] = {rst, sst, ist};
    walk(&c, data, nd, isz, strides, (const int32_t[]){item, item, 8});
    pt_tensor_release(flat);
    if (c.bad) {
        pt_tensor_release(r);
        return bad_index(&c, BOUNDS_TAKE, 0);
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_take(const pt_tensor *self, const pt_tensor *index, pt_tensor **out)
{
    return take_compute(self, index, out);
}

pt_status pt_kernel_take_out(const pt_tensor *self, const pt_tensor *index, pt_tensor *out_arg,
                             pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "take", "out"));
    if (out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "take(): self and out expected to have the same dtype, "
                        "but got self.dtype = %s and out.dtype = %s",
                        pt_shape_legacy_name(self->dtype), pt_shape_legacy_name(out_arg->dtype));
    PT_TRY(pt_iter_check_write(out_arg, NULL));
    PT_TRY(pt_iter_check_no_overlap(out_arg, index));
    PT_TRY(pt_iter_check_no_overlap(out_arg, self));
    pt_tensor *r;
    PT_TRY(take_compute(self, index, &r));
    return pt_shape_finish_out("take", r, out_arg, false, out);
}
