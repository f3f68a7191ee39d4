/* backend.c - the CUDA backend: libpytensor_cuda.so, loaded by the core at init when present.
 *
 * The library links the CUDA runtime statically, so loading it needs only the driver; without a
 * driver or a device, cudaGetDeviceCount fails or reports 0 and the library registers nothing and
 * says why. With at least one device it registers, through the table the core hands it
 * (csrc/core/backend.h), the four records a device type needs:
 *   device_guard/cuda   cudaGetDeviceCount / cudaGetDevice / cudaSetDevice / cudaDeviceSynchronize
 *   allocator/cuda      cudaMalloc / cudaFree, with the counters behind pt_allocator_stats
 *   copy_bytes/...      cpu->cuda, cuda->cpu, cuda->cuda: cudaMemcpy (sync) and cudaMemcpyAsync on
 *                       the legacy default stream (async); peer copies between two devices
 *   generator/cuda      Philox generators (the same stream as the CPU's: Note [Philox stream])
 * Every call that targets a device other than the current one switches to it and back, so the
 * caller's current device is never changed behind its back.
 *
 * The file is C11 (the host side of the runtime API needs no C++), compiled and linked by nvcc
 * with the runtime linked in statically; tools/build_cuda.py holds the recipe.
 */
#include <stdarg.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "backend.h"

static const pt_backend_host *host;

__attribute__((format(printf, 4, 5))) static pt_status fail(pt_status code, const char *file,
                                                             int line, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return host->error_raise(code, file, line, message);
}
#define CUDA_ERROR(code, ...) fail((code), __FILE__, __LINE__, __VA_ARGS__)

/* ---------------------------------------------------------------- device switching */
typedef struct device_switch {
    int previous;
    int changed;
} device_switch;

static cudaError_t switch_to(int index, device_switch *s)
{
    s->changed = 0;
    cudaError_t err = cudaGetDevice(&s->previous);
    if (err != cudaSuccess || index < 0 || index == s->previous) return err;
    err = cudaSetDevice(index);
    s->changed = err == cudaSuccess;
    return err;
}

static void switch_back(const device_switch *s)
{
    if (s->changed) cudaSetDevice(s->previous);
}

/* ---------------------------------------------------------------- device guard */
static pt_status guard_count(int32_t *out)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess)
        return CUDA_ERROR(PT_ERR_RUNTIME, "CUDA error: %s (counting devices)",
                          cudaGetErrorString(err));
    *out = n;
    return PT_OK;
}

static pt_status guard_current(int32_t *out)
{
    int index = 0;
    cudaError_t err = cudaGetDevice(&index);
    if (err != cudaSuccess)
        return CUDA_ERROR(PT_ERR_RUNTIME, "CUDA error: %s (reading the current device)",
                          cudaGetErrorString(err));
    *out = index;
    return PT_OK;
}

static pt_status guard_set_current(int32_t index)
{
    cudaError_t err = cudaSetDevice(index);
    if (err != cudaSuccess)
        return CUDA_ERROR(PT_ERR_RUNTIME, "CUDA error: %s (setting the current device to cuda:%d)",
                          cudaGetErrorString(err), (int)index);
    return PT_OK;
}

static pt_status guard_synchronize(int32_t index)
{
    device_switch s;
    cudaError_t err = switch_to(index, &s);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    switch_back(&s);
    if (err != cudaSuccess)
        return CUDA_ERROR(PT_ERR_RUNTIME, "CUDA error: %s (synchronizing cuda:%d)",
                          cudaGetErrorString(err), (int)index);
    return PT_OK;
}

static const pt_device_guard_impl cuda_guard = {
    .device_type = PT_DEV_CUDA,
    .device_count = guard_count,
    .current = guard_current,
    .set_current = guard_set_current,
    .synchronize = guard_synchronize,
};

/* ---------------------------------------------------------------- allocator */
typedef struct cuda_counters {
    _Atomic int64_t in_use, peak, allocations, frees;
} cuda_counters;
static cuda_counters counters;

static pt_status cuda_alloc(void *ctx, int32_t device_index, int64_t nbytes, void **out)
{
    cuda_counters *k = ctx;
    device_switch s;
    void *p = NULL;
    cudaError_t err = switch_to(device_index, &s);
    if (err == cudaSuccess) err = cudaMalloc(&p, (size_t)nbytes);
    switch_back(&s);
    if (err != cudaSuccess) {
        cudaGetLastError(); /* reset the last error so that a later launch check does not see it */
        return CUDA_ERROR(PT_ERR_MEMORY,
                          "CUDA out of memory: tried to allocate %lld bytes on cuda:%d (%s)",
                          (long long)nbytes, (int)device_index, cudaGetErrorString(err));
    }
    const int64_t now = atomic_fetch_add(&k->in_use, nbytes) + nbytes;
    int64_t peak = atomic_load(&k->peak);
    while (now > peak && !atomic_compare_exchange_weak(&k->peak, &peak, now)) {
    }
    atomic_fetch_add(&k->allocations, 1);
    *out = p;
    return PT_OK;
}

/* cudaFree needs no current-device switch: the runtime finds the owning context from the pointer.
 * Its errors are dropped because free cannot fail, and at process exit the runtime may already be
 * torn down (cudaErrorCudartUnloading) while storages are still being released. */
static void cuda_free(void *ctx, int32_t device_index, void *ptr, int64_t nbytes)
{
    cuda_counters *k = ctx;
    PT_UNUSED(device_index);
    if (!ptr) return;
    cudaFree(ptr);
    atomic_fetch_sub(&k->in_use, nbytes);
    atomic_fetch_add(&k->frees, 1);
}

static void cuda_stats(void *ctx, pt_memory_stats *out)
{
    cuda_counters *k = ctx;
    out->bytes_in_use = atomic_load(&k->in_use);
    out->peak_bytes = atomic_load(&k->peak);
    out->allocations = atomic_load(&k->allocations);
    out->frees = atomic_load(&k->frees);
    out->bytes_cached = 0;
}

static void cuda_reset_peak(void *ctx)
{
    cuda_counters *k = ctx;
    atomic_store(&k->peak, atomic_load(&k->in_use));
}

static const pt_allocator_impl cuda_allocator = {
    .device_type = PT_DEV_CUDA,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .stats = cuda_stats,
    .reset_peak = cuda_reset_peak,
    .ctx = &counters,
};

/* ---------------------------------------------------------------- copy-bytes */
static const char *type_name(int32_t type) { return type == PT_DEV_CUDA ? "cuda" : "cpu"; }

static pt_status copy(int64_t nbytes, const void *src, pt_device src_device, void *dst,
                      pt_device dst_device, int async)
{
    if (nbytes == 0) return PT_OK;
    const size_t n = (size_t)nbytes;
    const cudaStream_t stream = 0; /* the legacy default stream: ordered after earlier work */
    cudaError_t err;
    device_switch s = {0, 0};
    if (src_device.type == PT_DEV_CUDA && dst_device.type == PT_DEV_CUDA &&
        src_device.index != dst_device.index) {
        err = async ? cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, n, stream)
                    : cudaMemcpyPeer(dst, dst_device.index, src, src_device.index, n);
    } else {
        enum cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;
        int index = dst_device.index;
        if (src_device.type == PT_DEV_CPU) kind = cudaMemcpyHostToDevice;
        if (dst_device.type == PT_DEV_CPU) {
            kind = cudaMemcpyDeviceToHost;
            index = src_device.index;
        }
        err = switch_to(index, &s);
        if (err == cudaSuccess)
            err = async ? cudaMemcpyAsync(dst, src, n, kind, stream) : cudaMemcpy(dst, src, n, kind);
        switch_back(&s);
    }
    if (err != cudaSuccess)
        return CUDA_ERROR(PT_ERR_RUNTIME, "CUDA error: %s (copying %lld bytes from %s:%d to %s:%d)",
                          cudaGetErrorString(err), (long long)nbytes, type_name(src_device.type),
                          (int)src_device.index, type_name(dst_device.type),
                          (int)dst_device.index);
    return PT_OK;
}

static pt_status copy_sync(int64_t nbytes, const void *src, pt_device src_device, void *dst,
                           pt_device dst_device)
{
    return copy(nbytes, src, src_device, dst, dst_device, 0);
}

static pt_status copy_async(int64_t nbytes, const void *src, pt_device src_device, void *dst,
                            pt_device dst_device)
{
    return copy(nbytes, src, src_device, dst, dst_device, 1);
}

static const pt_copy_bytes_impl copy_h2d = {PT_DEV_CPU, PT_DEV_CUDA, copy_sync, copy_async};
static const pt_copy_bytes_impl copy_d2h = {PT_DEV_CUDA, PT_DEV_CPU, copy_sync, copy_async};
static const pt_copy_bytes_impl copy_d2d = {PT_DEV_CUDA, PT_DEV_CUDA, copy_sync, copy_async};

/* ---------------------------------------------------------------- generator */
static const pt_generator_impl cuda_generator = {PT_DEV_CUDA, PT_DEFAULT_SEED};

/* ---------------------------------------------------------------- entry */
static const struct {
    const char *registry, *key;
    const void *creator;
    const char *help;
    int line;
} records[] = {
#define RECORD(REG, KEY, IMPL, HELP) {(REG), (KEY), (IMPL), (HELP), __LINE__}
    RECORD("device_guard", "cuda", &cuda_guard, "CUDA runtime: current device per host thread"),
    RECORD("allocator", "cuda", &cuda_allocator, "cudaMalloc / cudaFree with counters"),
    RECORD("copy_bytes", "cpu->cuda", &copy_h2d, "cudaMemcpy / cudaMemcpyAsync (default stream)"),
    RECORD("copy_bytes", "cuda->cpu", &copy_d2h, "cudaMemcpy / cudaMemcpyAsync (default stream)"),
    RECORD("copy_bytes", "cuda->cuda", &copy_d2d, "cudaMemcpy, or cudaMemcpyPeer between devices"),
    RECORD("generator", "cuda", &cuda_generator, "Philox4x32-10, the CPU generator's stream"),
#undef RECORD
};

__attribute__((visibility("default"))) pt_status pt_cuda_backend_entry(const pt_backend_host *h,
                                                                       pt_backend_result *out)
{
    out->device_count = 0;
    out->records = 0;
    out->reason[0] = '\0';
    if (!h || h->api_version != PT_BACKEND_API_VERSION) {
        if (h && h->error_raise)
            h->error_raise(PT_ERR_RUNTIME, __FILE__, __LINE__,
                           "the CUDA backend library was built for another core (backend API "
                           "version mismatch); rebuild it");
        return PT_ERR_RUNTIME;
    }
    host = h;
    int runtime = 0;
    char version[32];
    cudaRuntimeGetVersion(&runtime);
    snprintf(version, sizeof version, "%d.%d", runtime / 1000, runtime % 1000 / 10);
    pt_status st = host->config_set("cuda_runtime", version);
    if (st != PT_OK) return st;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n < 1) {
        snprintf(out->reason, sizeof out->reason, "no device: %s",
                 err != cudaSuccess ? cudaGetErrorString(err) : "the runtime reports 0 devices");
        cudaGetLastError();
        return PT_OK;
    }
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        st = host->registry_add(records[i].registry, records[i].key, records[i].creator,
                                records[i].help, __FILE__, records[i].line);
        if (st != PT_OK) return st;
        out->records++;
    }
    out->device_count = n;
    return PT_OK;
}
