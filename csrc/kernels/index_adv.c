/* index_adv.c - masks and advanced indexing: masked_fill, masked_select, nonzero (and
 * nonzero_numpy, torch's nonzero(as_tuple=True)), index (aten::index, what `t[idx]` computes for
 * tensor indices) and index_put / index_put_ (what `t[idx] = v` computes).
 *
 * Note [advanced indexing plan]
 * index and index_put share one plan, built as torch's make_info builds it: bool and uint8
 * masks become the long indices of their true elements (one per dim the mask covers), missing
 * trailing indices are None, the indices broadcast to one shape, and when the indexed dims are
 * not adjacent they are moved to the front of self (a permuted view, so writes still land in
 * self). The result's shape is then (dims before the first indexed one) + (broadcast index shape)
 * + (dims after the last one). One pt_loop_nd walks that shape with self restrided (stride 0 over
 * the index part, its own strides elsewhere), the result or the values, and each index tensor
 * expanded into the index part; the inner loop adds index * stride for every indexed dim, after
 * checking the bounds (negative indices count from the end). Elements move as itemsize bytes;
 * accumulate=True adds in the element's type (Note [accumulation dtypes]), in index order, so
 * repeated indices sum.
 *
 * Shapes that depend on the data (masked_select, nonzero, masks in index) cannot be computed on
 * meta tensors, which refuse them; the rest run on meta tensors as shape computations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxing.h"
#include "shape_common.h"

/* ---------------------------------------------------------------- masked_fill */

typedef struct fill_ctx {
    unsigned char value[16];
    int64_t itemsize;
} fill_ctx;

/* A contiguous row of W-byte elements under a contiguous mask: a select that vectorizes. */
#define PT_FILL_ROW(W, T)                                                                          \
    if (c->itemsize == W && strides[0] == W && strides[1] == 1 && (uintptr_t)data[0] % W == 0) {  \
        T v, *d = (T *)data[0];                                                                    \
        const unsigned char *m = (const unsigned char *)data[1];                                   \
        memcpy(&v, c->value, W);                                                                   \
        PT_IVDEP for (int64_t k = 0; k < n; k++) d[k] = m[k] ? v : d[k];                           \
        return;                                                                                    \
    }

static void fill_loop(char **data, const int64_t *strides, int64_t n, void *vctx)
{
    const fill_ctx *c = vctx;
    PT_FILL_ROW(4, uint32_t)
    PT_FILL_ROW(8, uint64_t)
    for (int64_t k = 0; k < n; k++)
        if (data[1][k * strides[1]])
            memcpy(data[0] + k * strides[0], c->value, (size_t)c->itemsize);
}

/* The value as bytes of t's dtype: a Scalar, or the number in a 0-d tensor (torch's value.item()),
 * checked for overflow as torch does (a complex value with an imaginary part does not fit a real
 * dtype). */
static pt_status fill_value(const pt_tensor *t, const pt_scalar *scalar, const pt_tensor *tensor,
                            fill_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->itemsize = pt_dtype_itemsize(t->dtype);
    pt_scalar item;
    if (!scalar) {
        if (tensor->ndim != 0)
            return PT_ERROR(PT_ERR_RUNTIME, "masked_fill_ only supports a 0-dimensional value "
                            "tensor, but got tensor with %d dimension(s).", (int)tensor->ndim);
        if (tensor->device.type == PT_DEV_META) return PT_OK;
        PT_TRY(pt_tensor_item(tensor, &item));
        scalar = &item;
    }
    PT_TRY(pt_dtype_scalar_check(t->dtype, scalar));
    pt_dtype_scalar_to(t->dtype)(scalar, c->value);
    return PT_OK;
}

/* Writes c's value into t where mask, of t's shape or broadcast to it, is true. */
static void fill_run(pt_tensor *t, const pt_tensor *mask, const fill_ctx *c)
{
    int32_t nd = t->ndim;
    int64_t mst[PT_MAX_DIMS], bytes[2 * PT_MAX_DIMS];
    pt_shape_broadcast_strides(mask, nd, t->sizes, mst);
    for (int32_t d = 0; d < nd; d++) {
        bytes[d] = t->strides[d] * c->itemsize;
        bytes[nd + d] = mst[d];
    }
    char *data[2] = {pt_tensor_data(t), pt_tensor_data(mask)};
    pt_loop_nd(2, data, bytes, nd, t->sizes, fill_loop, (void *)c);
}

/* Fills t where mask (broadcast to t's shape, which it may not grow) is true. */
static pt_status masked_fill_into(pt_tensor *t, const pt_tensor *mask, const pt_scalar *scalar,
                                  const pt_tensor *tensor)
{
    PT_TRY(pt_shape_check_tensor(mask, "masked_fill_", "mask"));
    if (tensor) PT_TRY(pt_shape_check_tensor(tensor, "masked_fill_", "value"));
    if (mask->dtype != PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "masked_fill_ only supports boolean masks, but got mask "
                        "with dtype %s", pt_shape_cpp_name(mask->dtype));
    int32_t nd;
    int64_t shape[PT_MAX_DIMS];
    PT_TRY(pt_shape_broadcast(t->ndim, t->sizes, mask->ndim, mask->sizes, &nd, shape));
    if (nd != t->ndim || memcmp(shape, t->sizes, sizeof(int64_t) * (size_t)nd) != 0) {
        char have[PT_SHAPE_CHARS], want[PT_SHAPE_CHARS];
        pt_format_ints(have, sizeof have, t->ndim, t->sizes);
        pt_format_ints(want, sizeof want, nd, shape);
        return PT_ERROR(PT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape "
                        "%s", have, want);
    }
    bool meta;
    PT_TRY(pt_shape_device(2, (const pt_tensor *[]){t, mask}, &meta));
    fill_ctx c;
    PT_TRY(fill_value(t, scalar, tensor, &c));
    if (!meta && t->numel > 0) fill_run(t, mask, &c);
    return PT_OK;
}

static pt_status masked_fill_inplace(pt_tensor *self, const pt_tensor *mask,
                                     const pt_scalar *scalar, const pt_tensor *tensor,
                                     pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "masked_fill_", "self"));
    PT_TRY(pt_shape_check_writable(self, "masked_fill_"));
    PT_TRY(masked_fill_into(self, mask, scalar, tensor));
    pt_tensor_retain(self);
    *out = self;
    return PT_OK;
}

/* The functional form fills a copy of self broadcast with the mask, as torch's does. */
static pt_status masked_fill_functional(const pt_tensor *self, const pt_tensor *mask,
                                        const pt_scalar *scalar, const pt_tensor *tensor,
                                        pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "masked_fill", "self"));
    PT_TRY(pt_shape_check_tensor(mask, "masked_fill", "mask"));
    int32_t nd;
    int64_t shape[PT_MAX_DIMS];
    PT_TRY(pt_shape_broadcast(self->ndim, self->sizes, mask->ndim, mask->sizes, &nd, shape));
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(nd, shape, self->dtype, self->device, &r));
    pt_status st = self->device.type == PT_DEV_META ? PT_OK : pt_tensor_copy_(r, self);
    if (st == PT_OK) st = masked_fill_into(r, mask, scalar, tensor);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_masked_fill_Scalar(const pt_tensor *self, const pt_tensor *mask,
                                       const pt_scalar *value, pt_tensor **out)
{
    return masked_fill_functional(self, mask, value, NULL, out);
}

pt_status pt_kernel_masked_fill__Scalar(pt_tensor *self, const pt_tensor *mask,
                                        const pt_scalar *value, pt_tensor **out)
{
    return masked_fill_inplace(self, mask, value, NULL, out);
}

pt_status pt_kernel_masked_fill_Tensor(const pt_tensor *self, const pt_tensor *mask,
                                       const pt_tensor *value, pt_tensor **out)
{
    return masked_fill_functional(self, mask, NULL, value, out);
}

pt_status pt_kernel_masked_fill__Tensor(pt_tensor *self, const pt_tensor *mask,
                                        const pt_tensor *value, pt_tensor **out)
{
    return masked_fill_inplace(self, mask, NULL, value, out);
}

/* ---------------------------------------------------------------- masked_select */

static pt_status refuse_meta(const pt_tensor *t, const char *op)
{
    if (t->device.type != PT_DEV_META) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: the shape of the result depends on the data, "
                    "which meta tensors do not hold", op);
}

typedef struct select_ctx {
    int64_t count, itemsize;
    char *dst; /* NULL: count only */
} select_ctx;

static void select_loop(char **data, const int64_t *strides, int64_t n, void *vctx)
{
    select_ctx *c = vctx;
    for (int64_t k = 0; k < n; k++) {
        if (!data[1][k * strides[1]]) continue;
        if (c->dst) memcpy(c->dst + c->count * c->itemsize, data[0] + k * strides[0],
                           (size_t)c->itemsize);
        c->count++;
    }
}

static pt_status masked_select_compute(const pt_tensor *self, const pt_tensor *mask,
                                       pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "masked_select", "self"));
    PT_TRY(pt_shape_check_tensor(mask, "masked_select", "mask"));
    if (mask->dtype != PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "masked_select: expected BoolTensor for mask");
    int32_t nd;
    int64_t shape[PT_MAX_DIMS], sst[PT_MAX_DIMS], mst[PT_MAX_DIMS], bytes[2 * PT_MAX_DIMS];
    PT_TRY(pt_shape_broadcast(self->ndim, self->sizes, mask->ndim, mask->sizes, &nd, shape));
    bool meta;
    PT_TRY(pt_shape_device(2, (const pt_tensor *[]){self, mask}, &meta));
    PT_TRY(refuse_meta(meta ? mask : self, "masked_select"));
    pt_shape_broadcast_strides(self, nd, shape, sst);
    pt_shape_broadcast_strides(mask, nd, shape, mst);
    int64_t item = pt_dtype_itemsize(self->dtype);
    for (int32_t d = 0; d < nd; d++) {
        bytes[d] = sst[d] * item;
        bytes[nd + d] = mst[d];
    }
    char *data[2] = {pt_tensor_data(self), pt_tensor_data(mask)};
    select_ctx c = {0, item, NULL};
    pt_loop_nd(2, data, bytes, nd, shape, select_loop, &c);
    pt_tensor *r;
    PT_TRY(pt_shape_empty(1, &c.count, self->dtype, false, &r));
    c.dst = pt_tensor_data(r);
    c.count = 0;
    pt_loop_nd(2, data, bytes, nd, shape, select_loop, &c);
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_masked_select(const pt_tensor *self, const pt_tensor *mask, pt_tensor **out)
{
    return masked_select_compute(self, mask, out);
}

pt_status pt_kernel_masked_select_out(const pt_tensor *self, const pt_tensor *mask,
                                      pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "masked_select", "out"));
    if (out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "masked_select(): self and result must have the same "
                        "scalar type");
    PT_TRY(pt_iter_check_write(out_arg, NULL));
    PT_TRY(pt_iter_check_no_overlap(out_arg, self));
    PT_TRY(pt_iter_check_no_overlap(out_arg, mask));
    pt_tensor *r;
    PT_TRY(masked_select_compute(self, mask, &r));
    return pt_shape_finish_out("masked_select", r, out_arg, true, out);
}

/* ---------------------------------------------------------------- nonzero */

/* Whether an element is not zero. Floating values are zero when every bit but the sign is (so
 * -0.0 is zero and NaN is not); complex ones when both parts are. */
static bool element_nonzero(const char *p, int32_t dtype, int64_t itemsize)
{
    uint64_t lo = 0, hi = 0;
    switch (dtype) {
    case PT_FLOAT16:
    case PT_BFLOAT16: memcpy(&lo, p, 2); return (lo & 0x7fffu) != 0;
    case PT_FLOAT32: memcpy(&lo, p, 4); return (lo & 0x7fffffffu) != 0;
    case PT_FLOAT64: memcpy(&lo, p, 8); return (lo & 0x7fffffffffffffffu) != 0;
    case PT_COMPLEX64:
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        return ((lo | hi) & 0x7fffffffu) != 0;
    case PT_COMPLEX128:
        memcpy(&lo, p, 8);
        memcpy(&hi, p + 8, 8);
        return ((lo | hi) & 0x7fffffffffffffffu) != 0;
    default:
        for (int64_t i = 0; i < itemsize; i++)
            if (p[i]) return true;
        return false;
    }
}

/* Visits every element of t in row-major order; writes the coordinates of the nonzero ones as
 * the rows of `coords` (column stride `col`), or only counts them when coords is NULL. */
static int64_t nonzero_walk(const pt_tensor *t, int64_t *coords, int64_t col)
{
    int64_t item = pt_dtype_itemsize(t->dtype), count = 0, idx[PT_MAX_DIMS] = {0};
    const char *base = pt_tensor_data(t);
    if (t->numel == 0) return 0;
    for (int64_t e = 0, off = 0; e < t->numel; e++) {
        if (element_nonzero(base + off * item, t->dtype, item)) {
            for (int32_t d = 0; coords && d < t->ndim; d++) coords[count + d * col] = idx[d];
            count++;
        }
        for (int32_t d = t->ndim - 1; d >= 0; d--) { /* the odometer */
            off += t->strides[d];
            if (++idx[d] < t->sizes[d]) break;
            off -= t->strides[d] * t->sizes[d];
            idx[d] = 0;
        }
    }
    return count;
}

static pt_status check_nonzero_dtype(const pt_tensor *t)
{
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    if (!info || (info->kind & PT_KIND_OPAQUE))
        return PT_ERROR(PT_ERR_TYPE, "\"nonzero_cpu\" not implemented for '%s'",
                        info ? info->name : "unknown");
    return PT_OK;
}

/* (n, ndim) int64 with strides (1, n): torch fills the transposed layout. */
static pt_status nonzero_compute(const pt_tensor *self, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "nonzero", "self"));
    PT_TRY(check_nonzero_dtype(self));
    PT_TRY(refuse_meta(self, "nonzero"));
    int64_t n = nonzero_walk(self, NULL, 0);
    int64_t sizes[2] = {n, self->ndim}, strides[2] = {1, n};
    pt_device cpu = {PT_DEV_CPU, 0};
    pt_tensor *r;
    PT_TRY(pt_tensor_empty_strided(2, sizes, strides, PT_INT64, cpu, &r));
    if (n > 0 && self->ndim > 0) nonzero_walk(self, pt_tensor_data(r), n);
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_nonzero(const pt_tensor *self, pt_tensor **out)
{
    return nonzero_compute(self, out);
}

/* torch.argwhere: nonzero's (n, ndim) index matrix under NumPy's name. */
pt_status pt_kernel_argwhere(const pt_tensor *self, pt_tensor **out)
{
    return nonzero_compute(self, out);
}

pt_status pt_kernel_nonzero_out(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "nonzero", "out"));
    if (out_arg->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "nonzero: Expected out tensor to have scalar type Long "
                        "but got scalar type%s", pt_shape_legacy_name(out_arg->dtype));
    pt_tensor *r;
    PT_TRY(nonzero_compute(self, &r));
    return pt_shape_finish_out("nonzero", r, out_arg, true, out);
}

/* The columns of nonzero(self) (self taken as 1-d when 0-d), one per dim: *cols gets `ndim`
 * new references in a malloc'ed array. */
static pt_status nonzero_columns(const pt_tensor *self, int32_t *ncols, pt_tensor ***cols)
{
    pt_tensor *flat = NULL, *nz;
    if (self->ndim == 0) PT_TRY(pt_tensor_reshape(self, 1, (const int64_t[]){1}, &flat));
    pt_status st = nonzero_compute(flat ? flat : self, &nz);
    pt_tensor_release(flat);
    PT_TRY(st);
    int32_t n = (int32_t)nz->sizes[1];
    pt_tensor **c = calloc((size_t)(n > 0 ? n : 1), sizeof(pt_tensor *));
    if (!c) st = PT_ERROR(PT_ERR_MEMORY, "nonzero: out of memory");
    for (int32_t d = 0; st == PT_OK && d < n; d++) st = pt_tensor_select(nz, 1, d, &c[d]);
    pt_tensor_release(nz);
    if (st != PT_OK) {
        for (int32_t d = 0; c && d < n; d++) pt_tensor_release(c[d]);
        free(c);
        return st;
    }
    *ncols = n;
    *cols = c;
    return PT_OK;
}

pt_status pt_kernel_nonzero_numpy(const pt_op *op, int32_t key, uint64_t keyset,
                                  pt_stack *stack, void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    PT_TRY(pt_box_check_stack(op, stack, 1, 1));
    int32_t base = stack->size - 1;
    pt_tensor *self;
    PT_TRY(pt_unbox_tensor(op, stack->items + base, 0, 0, &self));
    int32_t n;
    pt_tensor **cols;
    PT_TRY(nonzero_columns(self, &n, &cols));
    stack->items[base] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .owned = 1, .len = n,
                                     .tensors = cols};
    stack->size = base + 1;
    return PT_OK;
}

/* ---------------------------------------------------------------- the indexing plan */

enum { MAX_INDICES = PT_LOOP_MAX_OPERANDS - 2 };
/* Note [indexed shapes past 64 dims]
 * The result shape (dims before) + (index shape) + (dims after) can pass PT_MAX_DIMS although
 * self and every index have at most PT_MAX_DIMS: the before and after dims number at most
 * self->ndim, the index shape at most PT_MAX_DIMS, so the plan keeps room for twice that. A
 * result (index) cannot be made with more dims than a tensor holds, and says so; a write
 * (index_put) makes no such tensor, and torch takes it: the walk drops the size-1 dims (which
 * move no operand) and refuses only when more than PT_MAX_DIMS dims of size >= 2 remain, a
 * walk of 2**65 or more elements. */
enum { PLAN_MAX_DIMS = 2 * PT_MAX_DIMS };

typedef struct index_plan {
    pt_tensor *self;               /* self, permuted when the indexed dims were not adjacent */
    int32_t nidx;                  /* indexed dims: self->dims [first, first + nidx) */
    int32_t first;
    pt_tensor *idx[MAX_INDICES];   /* long/int indices, broadcast to ishape (owned) */
    int32_t orig_dim[MAX_INDICES]; /* the dim of the original self, for messages */
    int32_t ind;
    int64_t ishape[PT_MAX_DIMS];   /* the broadcast index shape */
    int32_t rnd;
    int64_t rshape[PLAN_MAX_DIMS]; /* the result's shape: Note [indexed shapes past 64 dims] */
} index_plan;

static void plan_release(index_plan *p)
{
    pt_tensor_release(p->self);
    for (int32_t i = 0; i < p->nidx; i++) pt_tensor_release(p->idx[i]);
    memset(p, 0, sizeof *p);
}

/* Expands the given indices into one per dim of self (NULL: the whole dim), masks turned into
 * the coordinates of their true elements. `list` receives new references. */
static pt_status expand_masks(const pt_tensor *self, int32_t n, pt_tensor *const *indices,
                              pt_tensor **list, int32_t *len)
{
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        const pt_tensor *t = indices[i];
        if (t) PT_TRY(pt_shape_check_tensor(t, "index", "indices"));
        if (t && t->dtype != PT_INT64 && t->dtype != PT_INT32 && t->dtype != PT_BOOL &&
            t->dtype != PT_UINT8)
            return PT_ERROR(PT_ERR_INDEX, "tensors used as indices must be long, int, byte or "
                            "bool tensors");
        int32_t span = t && (t->dtype == PT_BOOL || t->dtype == PT_UINT8) ? t->ndim : 1;
        if (k + span > self->ndim)
            return PT_ERROR(PT_ERR_INDEX, "too many indices for tensor of dimension %d",
                            (int)self->ndim);
        if (t && span == 0)
            return PT_ERROR(PT_ERR_INDEX, "index: a 0-d mask has no dim of self to select in; "
                            "unsqueeze self for it");
        if (!t || (t->dtype != PT_BOOL && t->dtype != PT_UINT8)) {
            list[k] = (pt_tensor *)t;
            if (t) pt_tensor_retain(list[k]);
            k++;
            continue;
        }
        for (int32_t d = 0; d < t->ndim; d++) {
            if (t->sizes[d] == self->sizes[k + d]) continue;
            char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
            pt_format_ints(a, sizeof a, t->ndim, t->sizes);
            pt_format_ints(b, sizeof b, self->ndim, self->sizes);
            return PT_ERROR(PT_ERR_INDEX, "The shape of the mask %s at index %d does not match "
                            "the shape of the indexed tensor %s at index %d", a, (int)d, b,
                            (int)(k + d));
        }
        PT_TRY(refuse_meta(t, "index"));
        int32_t ncols;
        pt_tensor **cols;
        PT_TRY(nonzero_columns(t, &ncols, &cols));
        for (int32_t d = 0; d < ncols; d++) list[k + d] = cols[d];
        free(cols);
        k += span;
    }
    while (k < self->ndim) list[k++] = NULL;
    *len = k;
    return PT_OK;
}

static pt_status broadcast_indices(index_plan *p, int32_t n, pt_tensor *const *list)
{
    p->ind = 0;
    bool first = true;
    char shapes[PT_SHAPE_CHARS * 2] = "";
    for (int32_t i = 0; i < n; i++) {
        if (!list[i]) continue;
        char one[PT_SHAPE_CHARS];
        pt_format_ints(one, sizeof one, list[i]->ndim, list[i]->sizes);
        size_t used = strlen(shapes);
        snprintf(shapes + used, sizeof shapes - used, "%s%s", first ? "" : ", ", one);
        first = false;
    }
    for (int32_t i = 0; i < n; i++) {
        if (!list[i]) continue;
        if (pt_shape_broadcast(p->ind, p->ishape, list[i]->ndim, list[i]->sizes, &p->ind,
                               p->ishape) != PT_OK)
            return PT_ERROR(PT_ERR_INDEX, "shape mismatch: indexing tensors could not be "
                            "broadcast together with shapes %s", shapes);
    }
    return PT_OK;
}

/* Note [advanced indexing plan]: builds p from self and the given indices. */
static pt_status plan_build(const pt_tensor *self, int32_t n, pt_tensor *const *indices,
                            index_plan *p)
{
    memset(p, 0, sizeof *p);
    pt_tensor *list[PT_MAX_DIMS] = {0};
    int32_t len = 0;
    pt_status st = expand_masks(self, n, indices, list, &len);
    if (st == PT_OK) st = broadcast_indices(p, len, list);
    /* Indexed dims first when they are not adjacent (NumPy's and torch's rule). */
    int64_t perm[PT_MAX_DIMS];
    int32_t np = 0, lo = -1, hi = -1, count = 0;
    for (int32_t d = 0; d < len; d++)
        if (list[d]) {
            if (lo < 0) lo = d;
            hi = d;
            count++;
        }
    bool adjacent = count == hi - lo + 1;
    for (int32_t d = 0; d < len; d++)
        if (list[d] && !adjacent) perm[np++] = d;
    for (int32_t d = 0; d < len; d++)
        if (!list[d] || adjacent) perm[np++] = d;
    if (st == PT_OK && count > MAX_INDICES)
        st = PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "index: at most %d indexed dims, got %d",
                      MAX_INDICES, (int)count);
    if (st == PT_OK) st = pt_tensor_permute(self, len, perm, &p->self);
    p->first = count == 0 ? 0 : adjacent ? lo : 0;
    for (int32_t j = 0; st == PT_OK && j < len; j++) {
        pt_tensor *t = list[perm[j]];
        if (!t) continue;
        p->orig_dim[p->nidx] = perm[j];
        st = pt_tensor_expand(t, p->ind, p->ishape, &p->idx[p->nidx]);
        if (st == PT_OK) p->nidx++;
    }
    for (int32_t d = 0; d < len; d++) pt_tensor_release(list[d]);
    if (st != PT_OK) {
        plan_release(p);
        return st;
    }
    const pt_tensor *s = p->self;
    p->rnd = 0;
    for (int32_t d = 0; d < p->first; d++) p->rshape[p->rnd++] = s->sizes[d];
    for (int32_t d = 0; d < p->ind; d++) p->rshape[p->rnd++] = p->ishape[d];
    for (int32_t d = p->first + p->nidx; d < s->ndim; d++) p->rshape[p->rnd++] = s->sizes[d];
    return PT_OK;
}

/* ---------------------------------------------------------------- the walk */

typedef struct adv_ctx {
    int32_t nidx;
    int32_t index_dtype[MAX_INDICES];
    int64_t size[MAX_INDICES];       /* of the indexed dims */
    int64_t stride[MAX_INDICES];     /* bytes */
    int32_t orig_dim[MAX_INDICES];
    int64_t itemsize;
    int32_t dtype;
    bool put;                        /* data = {self, values, idx...}; else {out, self, idx...} */
    bool accumulate;
    bool bad;
    int64_t bad_index, bad_size;
    int32_t bad_dim;
} adv_ctx;

static void adv_loop(char **data, const int64_t *strides, int64_t n, void *vctx)
{
    adv_ctx *c = vctx;
    if (c->bad) return;
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0;
        for (int32_t j = 0; j < c->nidx; j++) {
            int64_t i = pt_shape_read_index(data[2 + j] + k * strides[2 + j], c->index_dtype[j]);
            int64_t w = i < 0 ? i + c->size[j] : i;
            if (w < 0 || w >= c->size[j]) {
                c->bad = true;
                c->bad_index = i;
                c->bad_size = c->size[j];
                c->bad_dim = c->orig_dim[j];
                return;
            }
            off += w * c->stride[j];
        }
        char *a = data[0] + k * strides[0], *b = data[1] + k * strides[1];
        if (!c->put) memcpy(a, b + off, (size_t)c->itemsize);
        else if (!c->accumulate) memcpy(b + off, a, (size_t)c->itemsize);
        else pt_shape_accumulate(c->dtype, PT_ACC_ADD, b + off, a);
    }
}

/* Walks the result shape; `other` is the result (index) or the values broadcast to the result
 * shape (index_put), whose element strides are other_st. Size-1 dims are dropped first (Note
 * [indexed shapes past 64 dims]). */
static pt_status adv_walk(const index_plan *p, char *other, const int64_t *other_st, bool put,
                          bool accumulate)
{
    const pt_tensor *s = p->self;
    int64_t item = pt_dtype_itemsize(s->dtype);
    adv_ctx c = {.nidx = p->nidx, .itemsize = item, .dtype = s->dtype, .put = put,
                 .accumulate = accumulate};
    int32_t nd = p->rnd, nops = 2 + p->nidx;
    /* operand 0: the values or the result; 1: self restrided; 2..: the indices */
    int64_t self_st[PLAN_MAX_DIMS] = {0};
    int64_t idx_full[MAX_INDICES][PLAN_MAX_DIMS];
    char *data[PT_LOOP_MAX_OPERANDS];
    int32_t r = 0;
    for (int32_t d = 0; d < p->first; d++, r++) self_st[r] = s->strides[d] * item;
    r += p->ind;
    for (int32_t d = p->first + p->nidx; d < s->ndim; d++, r++) self_st[r] = s->strides[d] * item;
    for (int32_t j = 0; j < p->nidx; j++) {
        const pt_tensor *t = p->idx[j];
        int64_t isz = pt_dtype_itemsize(t->dtype);
        memset(idx_full[j], 0, sizeof(int64_t) * (size_t)nd);
        for (int32_t d = 0; d < p->ind; d++) idx_full[j][p->first + d] = t->strides[d] * isz;
        data[2 + j] = pt_tensor_data(t);
        c.index_dtype[j] = t->dtype;
        c.size[j] = s->sizes[p->first + j];
        c.stride[j] = s->strides[p->first + j] * item;
        c.orig_dim[j] = p->orig_dim[j];
    }
    int64_t shape[PT_MAX_DIMS], bytes[PT_LOOP_MAX_OPERANDS * PT_MAX_DIMS];
    int32_t kept[PT_MAX_DIMS], nk = 0;
    for (int32_t d = 0; d < nd; d++) {
        if (p->rshape[d] == 1) continue;
        if (nk == PT_MAX_DIMS)
            return PT_ERROR(PT_ERR_RUNTIME, "index_put_: the indexed shape has more than %d "
                            "dims of size 2 or more (%d in all); no such walk can end",
                            PT_MAX_DIMS, (int)nd);
        kept[nk++] = d;
    }
    for (int32_t k = 0; k < nk; k++) {
        int32_t d = kept[k];
        shape[k] = p->rshape[d];
        bytes[k] = other_st[d] * item;
        bytes[nk + k] = self_st[d];
        for (int32_t j = 0; j < p->nidx; j++) bytes[(2 + j) * nk + k] = idx_full[j][d];
    }
    data[0] = other;
    data[1] = pt_tensor_data(s);
    pt_loop_nd(nops, data, bytes, nk, shape, adv_loop, &c);
    if (!c.bad) return PT_OK;
    return PT_ERROR(PT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                    (long long)c.bad_index, (int)c.bad_dim, (long long)c.bad_size);
}

/* ---------------------------------------------------------------- index */

static pt_status check_index_devices(const pt_tensor *self, int32_t n, pt_tensor *const *indices)
{
    bool meta;
    for (int32_t i = 0; i < n; i++)
        if (indices[i]) PT_TRY(pt_shape_device(2, (const pt_tensor *[]){self, indices[i]}, &meta));
    return PT_OK;
}

static pt_status index_compute(const pt_tensor *self, int32_t n, pt_tensor *const *indices,
                               pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "index", "self"));
    bool meta = self->device.type == PT_DEV_META;
    PT_TRY(check_index_devices(self, n, indices));
    index_plan p;
    PT_TRY(plan_build(self, n, indices, &p));
    pt_tensor *r;
    pt_status st = pt_shape_empty(p.rnd, p.rshape, self->dtype, meta, &r);
    if (st == PT_OK && !meta && r->numel > 0) {
        st = adv_walk(&p, pt_tensor_data(r), r->strides, false, false);
        if (st != PT_OK) pt_tensor_release(r);
    }
    plan_release(&p);
    PT_TRY(st);
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_index_Tensor(const pt_tensor *self, int32_t indices_len,
                                 pt_tensor *const *indices, pt_tensor **out)
{
    return index_compute(self, indices_len, indices, out);
}

pt_status pt_kernel_index_Tensor_out(const pt_tensor *self, int32_t indices_len,
                                     pt_tensor *const *indices, pt_tensor *out_arg,
                                     pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "index", "out"));
    PT_TRY(pt_shape_out_dtype(out_arg, self->dtype));
    pt_tensor *r;
    PT_TRY(index_compute(self, indices_len, indices, &r));
    return pt_shape_finish_out("index", r, out_arg, false, out);
}

/* ---------------------------------------------------------------- index_put */

/* Whether values broadcast to the indexed shape (which may pass PT_MAX_DIMS) without growing
 * it. */
static pt_status values_fit(const pt_tensor *values, int32_t rnd, const int64_t *rshape)
{
    bool fits = values->ndim <= rnd;
    for (int32_t i = 0; fits && i < values->ndim; i++) {
        int64_t v = values->sizes[values->ndim - 1 - i], r = rshape[rnd - 1 - i];
        fits = v == r || v == 1;
    }
    if (fits) return PT_OK;
    char v[PT_SHAPE_CHARS], r[PT_SHAPE_CHARS];
    pt_format_ints(v, sizeof v, values->ndim, values->sizes);
    pt_format_ints(r, sizeof r, rnd, rshape);
    return PT_ERROR(PT_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be "
                    "broadcast to indexing result of shape %s", v, r);
}

/* Note [mask put]
 * `x[mask] = v` with one bool mask of x's own shape and a one-element v of x's dtype (a training
 * step's `grad_h[h < 0] = 0`) writes what masked_fill_ writes: v where the mask is true. It takes
 * masked_fill's one pass over the mask instead of the plan's nonzero(), index tensors and gather
 * walk (10x the time at 64 x 100). Any other form, and accumulate=True, takes the plan. */
static bool put_is_masked_fill(const pt_tensor *self, int32_t n, pt_tensor *const *indices,
                               const pt_tensor *values, int32_t accumulate)
{
    if (n != 1 || !indices[0] || accumulate || values->numel != 1 || values->ndim > 1) return false;
    const pt_tensor *m = indices[0];
    return m->dtype == PT_BOOL && m->ndim == self->ndim && self->ndim > 0 &&
           memcmp(m->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim) == 0;
}

static pt_status put_into(pt_tensor *self, int32_t n, pt_tensor *const *indices,
                          const pt_tensor *values, int32_t accumulate)
{
    PT_TRY(pt_shape_check_tensor(values, "index_put_", "values"));
    if (values->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Index put requires the source and destination dtypes "
                        "match, got %s for the destination and %s for the source.",
                        pt_shape_legacy_name(self->dtype), pt_shape_legacy_name(values->dtype));
    bool meta;
    PT_TRY(pt_shape_device(2, (const pt_tensor *[]){self, values}, &meta));
    PT_TRY(check_index_devices(self, n, indices));
    if (!meta && put_is_masked_fill(self, n, indices, values, accumulate)) {
        fill_ctx c;
        memset(&c, 0, sizeof c);
        c.itemsize = pt_dtype_itemsize(self->dtype);
        memcpy(c.value, pt_tensor_data(values), (size_t)c.itemsize);
        if (self->numel > 0) fill_run(self, indices[0], &c);
        return PT_OK;
    }
    index_plan p;
    PT_TRY(plan_build(self, n, indices, &p));
    int64_t vst[PLAN_MAX_DIMS];
    pt_status st = values_fit(values, p.rnd, p.rshape);
    if (st == PT_OK && !meta) {
        bool empty = false;
        for (int32_t d = 0; d < p.rnd; d++) empty |= p.rshape[d] == 0;
        pt_shape_broadcast_strides(values, p.rnd, p.rshape, vst);
        if (!empty) st = adv_walk(&p, pt_tensor_data(values), vst, true, accumulate != 0);
    }
    plan_release(&p);
    return st;
}

pt_status pt_kernel_index_put_(pt_tensor *self, int32_t indices_len, pt_tensor *const *indices,
                               const pt_tensor *values, int32_t accumulate, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "index_put_", "self"));
    PT_TRY(pt_shape_check_writable(self, "index_put_"));
    PT_TRY(put_into(self, indices_len, indices, values, accumulate));
    pt_tensor_retain(self);
    *out = self;
    return PT_OK;
}

pt_status pt_kernel_index_put(const pt_tensor *self, int32_t indices_len,
                              pt_tensor *const *indices, const pt_tensor *values,
                              int32_t accumulate, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "index_put", "self"));
    pt_tensor *r;
    PT_TRY(pt_tensor_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS, &r));
    pt_status st = put_into(r, indices_len, indices, values, accumulate);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}
