/* copy_bytes.c - the copy-bytes table: how to move raw bytes from one device type to another.
 *
 * Each (source type, destination type) pair is a record in the "copy_bytes" registry keyed
 * "src->dst" with a synchronous function and optionally an asynchronous one; device.c files the
 * records into pt_copy_bytes_table[src][dst]. Tensor copies across devices stage through
 * contiguous buffers and end up here, so a backend adds a device by registering its pairs, never
 * by editing the copy kernels. The CPU->CPU pair lives here.
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

PT_DEFINE_REGISTRY("copy_bytes", "byte copies between device types, keyed 'src->dst'")

const pt_copy_bytes_impl *pt_copy_bytes_table[PT_DEV_TYPE_COUNT][PT_DEV_TYPE_COUNT];

/* memcpy is undefined for overlapping ranges; callers such as a storage copied into a shifted view
 * of itself do overlap, and memmove only pays for that check on the rare overlapping call. */
static pt_status cpu_to_cpu(int64_t nbytes, const void *src, pt_device src_device, void *dst,
                            pt_device dst_device)
{
    PT_UNUSED(src_device);
    PT_UNUSED(dst_device);
    uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst, n = (uintptr_t)nbytes;
    if (s == d) return PT_OK;
    if (s < d + n && d < s + n)
        memmove(dst, src, (size_t)nbytes);
    else
        memcpy(dst, src, (size_t)nbytes);
    return PT_OK;
}

static const pt_copy_bytes_impl cpu_cpu = {
    .src_type = PT_DEV_CPU,
    .dst_type = PT_DEV_CPU,
    .sync = cpu_to_cpu,
    .async = NULL,
};
PT_REGISTER("copy_bytes", "cpu->cpu", &cpu_cpu, "memcpy (memmove when the ranges overlap)")

static const char *type_name(int32_t type)
{
    const char *name = pt_device_type_name(type);
    return name ? name : "unknown";
}

pt_status pt_copy_bytes(int64_t nbytes, const void *src, pt_device src_device, void *dst,
                        pt_device dst_device, int32_t async)
{
    if (nbytes < 0)
        return PT_ERROR(PT_ERR_VALUE, "nbytes: expected a non-negative size, got %lld",
                        (long long)nbytes);
    if (!pt_device_type_name(src_device.type) || !pt_device_type_name(dst_device.type))
        return PT_ERROR(PT_ERR_VALUE, "copy_bytes: unknown device type (src %d, dst %d)",
                        src_device.type, dst_device.type);
    const pt_copy_bytes_impl *c = pt_copy_bytes_table[src_device.type][dst_device.type];
    if (!c)
        return PT_ERROR(PT_ERR_RUNTIME, "copy_bytes: no copy function is registered from %s:%d to %s:%d",
                        type_name(src_device.type), src_device.index, type_name(dst_device.type),
                        dst_device.index);
    if (nbytes == 0) return PT_OK;
    if (!src || !dst)
        return PT_ERROR(PT_ERR_VALUE, "copy_bytes: %s pointer is NULL for a copy of %lld bytes",
                        src ? "dst" : "src", (long long)nbytes);
    pt_copy_bytes_fn fn = async && c->async ? c->async : c->sync;
    return fn(nbytes, src, src_device, dst, dst_device);
}
