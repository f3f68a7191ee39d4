/* allocator.c - the allocator registry, the CPU and meta allocators, and the ABI's raw allocation
 * calls.
 *
 * An allocator is a vtable (alloc, free, stats, reset_peak) registered under its device type's
 * name; pt_device_resolve_tables() (device.c) files it in pt_allocators[] so that storage creation
 * reaches it without a lookup. The CPU allocator hands out 64-byte aligned blocks (one cache line,
 * and the widest AVX-512 load, so kernels never straddle a line at the start of a tensor); blocks
 * up to 64 KiB come from a per-thread cache and the counters are kept per thread, so threads
 * allocate concurrently without sharing a lock or a counter (alloc_cache.c, Note [CPU allocation
 * cache]); freed blocks above 64 KiB wait in a process-wide pool for the next request of their
 * size (large_cache.c, Note [CPU large-block cache]). The meta allocator hands out nothing: meta tensors have shapes and dtypes but no bytes.
 */
#include <errno.h>
#include <string.h>

#include "alloc_cache.h"
#include "internal.h"

PT_DEFINE_REGISTRY("allocator", "per device type: raw memory with usage counters")

const pt_allocator_impl *pt_allocators[PT_DEV_TYPE_COUNT];

/* ---------------------------------------------------------------- CPU */
/* No 64-bit Linux process can map more than 2^56 bytes (the 5-level page-table limit), so larger
 * requests are refused before reaching malloc: the answer is the same MemoryError, and sanitizer
 * runtimes abort on such requests instead of returning NULL. */
#define CPU_MAX_ALLOCATION ((int64_t)1 << 56)

static pt_status cpu_alloc(void *ctx, int32_t device_index, int64_t nbytes, void **out)
{
    PT_UNUSED(ctx);
    PT_UNUSED(device_index);
    void *p = NULL;
    int err = ENOMEM;
    if (nbytes <= CPU_MAX_ALLOCATION) err = pt_cpu_block_alloc(nbytes, &p);
    if (err != 0)
        return PT_ERROR(PT_ERR_MEMORY,
                        "CPU allocator: can't allocate memory: you tried to allocate %lld bytes (%s)",
                        (long long)nbytes, strerror(err));
    *out = p;
    return PT_OK;
}

static void cpu_free(void *ctx, int32_t device_index, void *ptr, int64_t nbytes)
{
    PT_UNUSED(ctx);
    PT_UNUSED(device_index);
    pt_cpu_block_free(ptr, nbytes);
}

static void cpu_stats(void *ctx, pt_memory_stats *out)
{
    PT_UNUSED(ctx);
    pt_cpu_stats_read(out);
    pt_alloc_cache_info bins, pool;
    pt_alloc_cache_total_info(&bins);
    pt_large_cache_info(&pool);
    out->bytes_cached = bins.bytes + pool.bytes;
}

static void cpu_empty_cache(void *ctx)
{
    PT_UNUSED(ctx);
    pt_alloc_cache_flush();
    pt_large_cache_flush();
}

static void cpu_reset_peak(void *ctx)
{
    PT_UNUSED(ctx);
    pt_cpu_stats_reset_peak();
}

static const pt_allocator_impl cpu_allocator = {
    .device_type = PT_DEV_CPU,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .stats = cpu_stats,
    .reset_peak = cpu_reset_peak,
    .empty_cache = cpu_empty_cache,
    .ctx = NULL,
};
PT_REGISTER("allocator", "cpu", &cpu_allocator,
            "64-byte aligned posix_memalign, small blocks cached per thread, large ones pooled, "
            "with counters")

/* ---------------------------------------------------------------- meta */
static pt_status meta_alloc(void *ctx, int32_t device_index, int64_t nbytes, void **out)
{
    PT_UNUSED(ctx);
    PT_UNUSED(device_index);
    PT_UNUSED(nbytes);
    *out = NULL;
    return PT_OK;
}

static void meta_free(void *ctx, int32_t device_index, void *ptr, int64_t nbytes)
{
    PT_UNUSED(ctx);
    PT_UNUSED(device_index);
    PT_UNUSED(ptr);
    PT_UNUSED(nbytes);
}

static void meta_stats(void *ctx, pt_memory_stats *out)
{
    PT_UNUSED(ctx);
    memset(out, 0, sizeof *out);
}

static void meta_reset_peak(void *ctx) { PT_UNUSED(ctx); }

static const pt_allocator_impl meta_allocator = {
    .device_type = PT_DEV_META,
    .alloc = meta_alloc,
    .free = meta_free,
    .stats = meta_stats,
    .reset_peak = meta_reset_peak,
    .ctx = NULL,
};
PT_REGISTER("allocator", "meta", &meta_allocator, "allocates nothing: meta tensors have no data")

/* ---------------------------------------------------------------- ABI */
static pt_status allocator_of(int32_t device_type, const pt_allocator_impl **out)
{
    const char *name = pt_device_type_name(device_type);
    if (!name) return PT_ERROR(PT_ERR_VALUE, "device: unknown device type %d", device_type);
    if (!pt_allocators[device_type])
        return PT_ERROR(PT_ERR_RUNTIME, "allocator: no allocator is registered for device type %s",
                        name);
    *out = pt_allocators[device_type];
    return PT_OK;
}

pt_status pt_allocator_stats(int32_t device_type, pt_memory_stats *out)
{
    const pt_allocator_impl *a = NULL;
    PT_TRY(allocator_of(device_type, &a));
    a->stats(a->ctx, out);
    return PT_OK;
}

pt_status pt_allocator_reset_peak(int32_t device_type)
{
    const pt_allocator_impl *a = NULL;
    PT_TRY(allocator_of(device_type, &a));
    a->reset_peak(a->ctx);
    return PT_OK;
}

pt_status pt_allocator_empty_cache(int32_t device_type)
{
    const pt_allocator_impl *a = NULL;
    PT_TRY(allocator_of(device_type, &a));
    if (a->empty_cache) a->empty_cache(a->ctx);
    return PT_OK;
}

pt_status pt_allocator_alloc(pt_device device, int64_t nbytes, void **out)
{
    if (nbytes < 0)
        return PT_ERROR(PT_ERR_VALUE, "nbytes: expected a non-negative size, got %lld",
                        (long long)nbytes);
    pt_device d;
    PT_TRY(pt_device_resolve(device, &d));
    const pt_allocator_impl *a = NULL;
    PT_TRY(allocator_of(d.type, &a));
    if (nbytes == 0) {
        *out = NULL;
        return PT_OK;
    }
    return a->alloc(a->ctx, d.index, nbytes, out);
}

pt_status pt_allocator_free(pt_device device, void *ptr, int64_t nbytes)
{
    if (nbytes < 0)
        return PT_ERROR(PT_ERR_VALUE, "nbytes: expected a non-negative size, got %lld",
                        (long long)nbytes);
    pt_device d;
    PT_TRY(pt_device_resolve(device, &d));
    const pt_allocator_impl *a = NULL;
    PT_TRY(allocator_of(d.type, &a));
    if (ptr) a->free(a->ctx, d.index, ptr, nbytes);
    return PT_OK;
}
