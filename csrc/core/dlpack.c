/* dlpack.c - zero-copy exchange with other libraries through DLPack (unversioned and 1.x).
 *
 * Export hands out a managed tensor whose manager context holds a reference to the tensor and the
 * shape/strides arrays (in one block, freed by the deleter), so the bytes stay alive however long
 * the consumer keeps them. `data` points at the first element and byte_offset is 0, which the
 * standard allows and which spares consumers a pointer addition.
 *
 * Import wraps the producer's bytes in an external storage that spans exactly the elements the
 * strides reach (negative strides included: the storage starts at the lowest one and the tensor's
 * offset points back at element 0); the storage's deleter calls the managed tensor's deleter, so
 * the producer's memory lives as long as any view of it. On failure nothing is taken: the caller
 * still owns the managed tensor, which is why the deleter is attached only once nothing can fail.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- export */
typedef struct export_ctx {
    pt_tensor *tensor;
    union {
        pt_dl_managed_tensor plain;
        pt_dl_managed_tensor_versioned versioned;
    } managed;
    int64_t dims[]; /* shape then strides */
} export_ctx;

static void export_ctx_free(export_ctx *ctx)
{
    pt_tensor_release(ctx->tensor);
    free(ctx);
}

static void export_deleter(pt_dl_managed_tensor *self)
{
    if (self) export_ctx_free(self->manager_ctx);
}

static void export_deleter_versioned(pt_dl_managed_tensor_versioned *self)
{
    if (self) export_ctx_free(self->manager_ctx);
}

/* Fills `dl` describing t and returns the context that keeps t alive. */
static pt_status export_begin(pt_tensor *t, export_ctx **out, pt_dl_tensor *dl)
{
    pt_dl_device device;
    switch (t->device.type) {
    case PT_DEV_CPU: device = (pt_dl_device){PT_DL_CPU, 0}; break;
    case PT_DEV_CUDA: device = (pt_dl_device){PT_DL_CUDA, t->device.index}; break;
    default:
        return PT_ERROR(PT_ERR_RUNTIME, "to_dlpack: cannot export a tensor on device type %s",
                        pt_device_type_name(t->device.type));
    }
    pt_dl_dtype dtype;
    PT_TRY(pt_dtype_to_dlpack(t->dtype, &dtype));
    export_ctx *ctx = malloc(sizeof *ctx + sizeof(int64_t) * 2 * (size_t)t->ndim);
    if (!ctx) return PT_ERROR(PT_ERR_MEMORY, "to_dlpack: out of memory");
    memset(&ctx->managed, 0, sizeof ctx->managed);
    memcpy(ctx->dims, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(ctx->dims + t->ndim, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    pt_tensor_retain(t);
    ctx->tensor = t;
    pt_storage_lend(t->storage);
    *dl = (pt_dl_tensor){
        .data = pt_tensor_data(t),
        .device = device,
        .ndim = t->ndim,
        .dtype = dtype,
        .shape = ctx->dims,
        .strides = ctx->dims + t->ndim,
        .byte_offset = 0,
    };
    *out = ctx;
    return PT_OK;
}

pt_status pt_dlpack_export(pt_tensor *t, pt_dl_managed_tensor **out)
{
    export_ctx *ctx = NULL;
    pt_dl_tensor dl;
    PT_TRY(export_begin(t, &ctx, &dl));
    pt_dl_managed_tensor *m = &ctx->managed.plain;
    m->dl_tensor = dl;
    m->manager_ctx = ctx;
    m->deleter = export_deleter;
    *out = m;
    return PT_OK;
}

pt_status pt_dlpack_export_versioned(pt_tensor *t, uint64_t flags,
                                     pt_dl_managed_tensor_versioned **out)
{
    export_ctx *ctx = NULL;
    pt_dl_tensor dl;
    PT_TRY(export_begin(t, &ctx, &dl));
    pt_dl_managed_tensor_versioned *m = &ctx->managed.versioned;
    m->version = (pt_dl_version){PT_DLPACK_MAJOR, PT_DLPACK_MINOR};
    m->manager_ctx = ctx;
    m->deleter = export_deleter_versioned;
    m->flags = flags | (t->storage->writable ? 0 : PT_DL_FLAG_READ_ONLY);
    m->dl_tensor = dl;
    *out = m;
    return PT_OK;
}

/* ---------------------------------------------------------------- import */
static void import_deleter(void *ctx)
{
    pt_dl_managed_tensor *m = ctx;
    if (m->deleter) m->deleter(m);
}

static void import_deleter_versioned(void *ctx)
{
    pt_dl_managed_tensor_versioned *m = ctx;
    if (m->deleter) m->deleter(m);
}

static pt_status import_device(pt_dl_device dl, pt_device *out)
{
    switch (dl.device_type) {
    case PT_DL_CPU: *out = (pt_device){PT_DEV_CPU, 0}; break;
    case PT_DL_CUDA: *out = (pt_device){PT_DEV_CUDA, dl.device_id}; break;
    default:
        return PT_ERROR(PT_ERR_RUNTIME,
                        "from_dlpack: unsupported device type %d (supported: CPU = %d, CUDA = %d)",
                        dl.device_type, PT_DL_CPU, PT_DL_CUDA);
    }
    return pt_device_resolve(*out, out);
}

/* The lowest and highest element the view reaches, relative to its first element. */
static pt_status import_extent(int32_t ndim, const int64_t *shape, const int64_t *strides,
                               int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = 0;
    for (int32_t d = 0; d < ndim; d++) {
        int64_t span;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) ||
            __builtin_add_overflow(span < 0 ? *lo : *hi, span, span < 0 ? lo : hi))
            return PT_ERROR(PT_ERR_RUNTIME,
                            "from_dlpack: shape %lld and stride %lld at dim %d overflow int64",
                            (long long)shape[d], (long long)strides[d], d);
    }
    return PT_OK;
}

/* Builds the tensor over dl's bytes with no deleter attached yet. */
static pt_status import_tensor(const pt_dl_tensor *dl, int32_t writable, pt_tensor **out)
{
    pt_device device;
    int32_t dtype;
    PT_TRY(import_device(dl->device, &device));
    PT_TRY(pt_dtype_from_dlpack(dl->dtype, &dtype));
    int64_t numel, contiguous[PT_MAX_DIMS];
    if (dl->ndim < 0 || dl->ndim > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_VALUE, "from_dlpack: expected 0 to %d dimensions, got %d",
                        PT_MAX_DIMS, dl->ndim);
    if (dl->ndim > 0 && !dl->shape)
        return PT_ERROR(PT_ERR_VALUE, "from_dlpack: shape is NULL for a %d-d tensor", dl->ndim);
    PT_TRY(pt_shape_check(dl->ndim, dl->shape, &numel));
    const int64_t *strides = dl->strides;
    if (!strides) {
        pt_contiguous_strides(dl->ndim, dl->shape, contiguous);
        strides = contiguous;
    }
    int64_t itemsize = pt_dtype_itemsize(dtype), lo = 0, hi = -1, nbytes = 0;
    if (numel > 0) {
        PT_TRY(import_extent(dl->ndim, dl->shape, strides, &lo, &hi));
        if (!dl->data)
            return PT_ERROR(PT_ERR_VALUE, "from_dlpack: data is NULL for %lld elements",
                            (long long)numel);
        if (__builtin_mul_overflow(hi - lo + 1, itemsize, &nbytes))
            return PT_ERROR(PT_ERR_RUNTIME, "from_dlpack: the tensor's extent overflows int64");
    }
    char *first = dl->data ? (char *)dl->data + dl->byte_offset : NULL;
    char *start = first ? first + lo * itemsize : NULL;
    pt_storage *s;
    PT_TRY(pt_storage_from_external(start, nbytes, dtype, device, NULL, NULL, writable, &s));
    pt_status st = pt_tensor_make(s, dtype, dl->ndim, dl->shape, strides, -lo, out);
    pt_storage_release(s);
    return st;
}

pt_status pt_dlpack_import(pt_dl_managed_tensor *m, pt_tensor **out)
{
    if (!m) return PT_ERROR(PT_ERR_VALUE, "from_dlpack: the managed tensor is NULL");
    PT_TRY(import_tensor(&m->dl_tensor, 1, out));
    (*out)->storage->deleter = import_deleter;
    (*out)->storage->deleter_ctx = m;
    return PT_OK;
}

pt_status pt_dlpack_import_versioned(pt_dl_managed_tensor_versioned *m, pt_tensor **out)
{
    if (!m) return PT_ERROR(PT_ERR_VALUE, "from_dlpack: the managed tensor is NULL");
    if (m->version.major > PT_DLPACK_MAJOR)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "from_dlpack: DLPack version %u.%u is not supported (this library reads "
                        "versions up to %d.%d)",
                        m->version.major, m->version.minor, PT_DLPACK_MAJOR, PT_DLPACK_MINOR);
    int32_t writable = (m->flags & PT_DL_FLAG_READ_ONLY) == 0;
    PT_TRY(import_tensor(&m->dl_tensor, writable, out));
    (*out)->storage->deleter = import_deleter_versioned;
    (*out)->storage->deleter_ctx = m;
    return PT_OK;
}
