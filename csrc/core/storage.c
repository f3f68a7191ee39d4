/* storage.c - storages: reference-counted byte buffers that tensors view.
 *
 * A storage owns its bytes in exactly one of three ways, fixed when it is created: memory from its
 * device's allocator (pt_storage_new; the only resizable kind), memory owned elsewhere and given
 * back through a deleter (pt_storage_from_external; DLPack and NumPy imports), or a file mapping
 * (pt_storage_from_file). The last pt_storage_release returns the bytes the same way they came.
 * The reference count is atomic so that tensors on different threads may share one storage; the
 * data pointer and size are not synchronized (resizing a storage that another thread reads is a
 * race in torch too). The storage structs come from the per-thread cache of alloc_cache.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc_cache.h"
#include "internal.h"

static pt_status check_nbytes(int64_t nbytes)
{
    if (nbytes < 0)
        return PT_ERROR(PT_ERR_VALUE, "nbytes: expected a non-negative size, got %lld",
                        (long long)nbytes);
    return PT_OK;
}

static pt_status storage_alloc(int32_t dtype, pt_device device, int64_t nbytes, pt_storage **out)
{
    pt_storage *s = pt_cached_object_alloc(PT_CACHED_STORAGE);
    if (!s) return PT_ERROR(PT_ERR_MEMORY, "storage: out of memory allocating a storage object");
    /* A cached struct holds its last owner's fields: every field not named here is zeroed. */
    *s = (pt_storage){
        .refcount = 1, .dtype = dtype, .device = device, .nbytes = nbytes, .writable = true};
    *out = s;
    return PT_OK;
}

static const pt_allocator_impl *allocator_for(pt_device device)
{
    return pt_allocators[device.type];
}

pt_status pt_storage_new(int64_t nbytes, int32_t dtype, pt_device device, int32_t resizable,
                         pt_storage **out)
{
    PT_TRY(check_nbytes(nbytes));
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    const pt_allocator_impl *a = allocator_for(dev);
    if (!a)
        return PT_ERROR(PT_ERR_RUNTIME, "storage: no allocator is registered for device type %s",
                        pt_device_type_name(dev.type));
    void *data = NULL;
    if (nbytes > 0) PT_TRY(a->alloc(a->ctx, dev.index, nbytes, &data));
    pt_storage *s = NULL;
    pt_status st = storage_alloc(dtype, dev, nbytes, &s);
    if (st != PT_OK) {
        if (data) a->free(a->ctx, dev.index, data, nbytes);
        return st;
    }
    s->data = data;
    s->allocator = a;
    s->resizable = resizable != 0;
    *out = s;
    return PT_OK;
}

pt_status pt_storage_from_external(void *data, int64_t nbytes, int32_t dtype, pt_device device,
                                   pt_deleter_fn deleter, void *ctx, int32_t writable,
                                   pt_storage **out)
{
    PT_TRY(check_nbytes(nbytes));
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    if (!data && nbytes > 0 && device.type != PT_DEV_META)
        return PT_ERROR(PT_ERR_VALUE, "data: NULL pointer for a storage of %lld bytes",
                        (long long)nbytes);
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    pt_storage *s = NULL;
    PT_TRY(storage_alloc(dtype, dev, nbytes, &s));
    s->data = data;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    s->writable = writable != 0;
    *out = s;
    return PT_OK;
}

/* ---------------------------------------------------------------- file mappings */
static pt_status file_error(const char *what, const char *filename, int err)
{
    return PT_ERROR(PT_ERR_RUNTIME, "from_file: %s '%s': %s", what, filename, strerror(err));
}

/* Maps `length` bytes of fd (0 maps nothing: mmap refuses empty mappings). */
static pt_status map_file(int fd, const char *filename, int shared, int64_t length, void **out)
{
    *out = NULL;
    if (length == 0) return PT_OK;
    if ((uint64_t)length > SIZE_MAX) return file_error("cannot map", filename, EFBIG);
    /* A private mapping is writable too: writes go to copy-on-write pages, never to the file. */
    void *p = mmap(NULL, (size_t)length, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE,
                   fd, 0);
    if (p == MAP_FAILED) return file_error("cannot map", filename, errno);
    *out = p;
    return PT_OK;
}

/* Sizes the mapping: the whole file when nbytes < 0; a shared mapping grows a short file, a private
 * one cannot (its writes never reach the file). */
static pt_status file_length(int fd, const char *filename, int shared, int64_t nbytes,
                             int64_t *out)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return file_error("cannot stat", filename, errno);
    int64_t size = (int64_t)st.st_size;
    if (nbytes < 0) {
        *out = size;
        return PT_OK;
    }
    if (nbytes > size) {
        if (!shared)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "from_file: file '%s' has %lld bytes but %lld were asked for (only a "
                            "shared mapping can grow the file)",
                            filename, (long long)size, (long long)nbytes);
        if (ftruncate(fd, (off_t)nbytes) != 0) return file_error("cannot grow", filename, errno);
    }
    *out = nbytes;
    return PT_OK;
}

pt_status pt_storage_from_file(const char *filename, int32_t shared, int64_t nbytes, int32_t dtype,
                               pt_storage **out)
{
    if (!filename) return PT_ERROR(PT_ERR_VALUE, "filename: expected a path, got NULL");
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    int fd = open(filename, shared ? O_RDWR | O_CREAT : O_RDONLY, 0644);
    if (fd < 0) return file_error("cannot open", filename, errno);
    int64_t length = 0;
    void *data = NULL;
    pt_storage *s = NULL;
    pt_status st = file_length(fd, filename, shared, nbytes, &length);
    if (st == PT_OK) st = map_file(fd, filename, shared, length, &data);
    /* The mapping keeps the file open on its own. */
    close(fd);
    if (st == PT_OK) st = storage_alloc(dtype, (pt_device){PT_DEV_CPU, 0}, length, &s);
    if (st != PT_OK) {
        if (data) munmap(data, (size_t)length);
        return st;
    }
    s->data = data;
    s->mmap_length = length;
    s->shared = shared != 0;
    *out = s;
    return PT_OK;
}

/* ---------------------------------------------------------------- references */
void pt_storage_retain(pt_storage *s) { atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed); }

void pt_storage_release(pt_storage *s)
{
    if (!s) return;
    /* The thread that frees must see every other owner's writes to the bytes (Note [dropping the
     * last reference], internal.h). */
    if (!pt_refcount_drop(&s->refcount)) return;
    if (s->allocator) {
        if (s->data) s->allocator->free(s->allocator->ctx, s->device.index, s->data, s->nbytes);
    } else if (s->deleter) {
        s->deleter(s->deleter_ctx);
    } else if (s->mmap_length > 0) {
        munmap(s->data, (size_t)s->mmap_length);
    }
    pt_cached_object_free(PT_CACHED_STORAGE, s);
}

void *pt_storage_data(const pt_storage *s) { return s->data; }
int64_t pt_storage_nbytes(const pt_storage *s) { return s->nbytes; }
int32_t pt_storage_dtype(const pt_storage *s) { return s->dtype; }
pt_device pt_storage_device(const pt_storage *s) { return s->device; }
int32_t pt_storage_resizable(const pt_storage *s) { return s->resizable; }
int32_t pt_storage_writable(const pt_storage *s) { return s->writable; }
int32_t pt_storage_is_shared(const pt_storage *s) { return s->shared; }

void pt_storage_lend(pt_storage *s) { s->resizable = false; }

int64_t pt_storage_refcount(const pt_storage *s)
{
    return atomic_load_explicit(&((pt_storage *)s)->refcount, memory_order_relaxed);
}

/* ---------------------------------------------------------------- resize */
/* Zeroes `nbytes` at `dst` on any device: CPU memory directly, other devices by copying zeros from
 * the host through the copy-bytes table (the allocator vtable has no memset). */
static pt_status zero_bytes(void *dst, pt_device device, int64_t nbytes)
{
    if (device.type == PT_DEV_CPU) {
        memset(dst, 0, (size_t)nbytes);
        return PT_OK;
    }
    void *zeros = calloc(1, (size_t)nbytes);
    if (!zeros)
        return PT_ERROR(PT_ERR_MEMORY, "resize: out of memory staging %lld zero bytes",
                        (long long)nbytes);
    pt_status st = pt_copy_bytes(nbytes, zeros, (pt_device){PT_DEV_CPU, 0}, dst, device, 0);
    free(zeros);
    return st;
}

/* Note [storage extent]
 * A kernel trusts that every tensor's elements lie inside its storage: nothing on the per-op path
 * compares a tensor's extent with the storage's bytes. A storage only grows under the tensor that
 * resizes it, so the one way to break that is a shrink while tensors view the storage. Its
 * holders are not tracked, only counted, so a shrink is refused while anyone but the caller holds
 * a reference (a tensor, another storage object, an export); torch lets it through and then
 * reads past the end. Growing is always safe: tensors reach the bytes through the storage. */
pt_status pt_storage_resize(pt_storage *s, int64_t nbytes)
{
    PT_TRY(check_nbytes(nbytes));
    if (!s->resizable || !s->allocator)
        return PT_ERROR(PT_ERR_RUNTIME, "Trying to resize storage that is not resizable");
    if (nbytes == s->nbytes) return PT_OK;
    int64_t holders = pt_storage_refcount(s);
    if (nbytes < s->nbytes && holders > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "resize_: cannot shrink a storage from %lld to %lld "
                        "bytes while it has %lld other holder(s) (tensors viewing it, "
                        "storages, exports)", (long long)s->nbytes, (long long)nbytes,
                        (long long)(holders - 1));
    const pt_allocator_impl *a = s->allocator;
    void *data = NULL;
    if (nbytes > 0) PT_TRY(a->alloc(a->ctx, s->device.index, nbytes, &data));
    int64_t keep = nbytes < s->nbytes ? nbytes : s->nbytes;
    pt_status st = PT_OK;
    /* Meta storages have no bytes on either side. */
    if (data && s->data && keep > 0)
        st = pt_copy_bytes(keep, s->data, s->device, data, s->device, 0);
    if (st == PT_OK && data && nbytes > keep)
        st = zero_bytes((char *)data + keep, s->device, nbytes - keep);
    if (st != PT_OK) {
        if (data) a->free(a->ctx, s->device.index, data, nbytes);
        return st;
    }
    if (s->data) a->free(a->ctx, s->device.index, s->data, s->nbytes);
    s->data = data;
    s->nbytes = nbytes;
    return PT_OK;
}
