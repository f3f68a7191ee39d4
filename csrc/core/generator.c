/* generator.c - random number generators: a seed and an offset into a counter-based stream.
 *
 * Every generator, whatever its device, is the same object: a 64-bit seed (the Philox key) and a
 * 64-bit offset counting the 128-bit counter blocks already handed out (Note [Philox stream] in
 * csrc/kernels/random.c). A random op reserves the blocks it needs with one atomic fetch-add and
 * computes each element from its own block, so draws from several threads never hand out the same
 * numbers, and a CUDA generator with the CPU one's seed and offset gives the same numbers.
 *
 * The "generator" registry says which device types have generators: "cpu" here, "cuda" when the
 * backend library registers it. Each device keeps a default generator, created on first use (the
 * CPU one at init) and kept for the life of the process, as torch's default generators are.
 * Seeding is not synchronized with draws in flight (torch takes a lock for it; we keep the
 * generator lock-free and ask the caller not to reseed while another thread draws).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "backend.h"
#include "philox.h"

PT_DEFINE_REGISTRY("generator", "device types with Philox4x32-10 generators (seed + offset)")

static const pt_generator_impl cpu_generator = {PT_DEV_CPU, PT_DEFAULT_SEED};
PT_REGISTER("generator", "cpu", &cpu_generator, "Philox4x32-10, computed on the CPU")

/* Default generators per device index. 64 devices per type is more than any machine pytensor
 * targets (PyTorch's compile-time limit is 16 GPUs per process). */
enum { MAX_DEFAULT_DEVICES = 64 };
static _Atomic(pt_generator *) defaults[PT_DEV_TYPE_COUNT][MAX_DEFAULT_DEVICES];

void pt_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    pt_philox_block(counter[0], counter[1], counter[2], counter[3], key[0], key[1], out);
}

static const char *type_name(int32_t type)
{
    const char *name = pt_device_type_name(type);
    return name ? name : "unknown";
}

pt_status pt_generator_new(pt_device device, pt_generator **out)
{
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    pt_registry_entry_info info;
    if (pt_registry_find("generator", type_name(dev.type), &info) != PT_OK || !info.creator)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "generator: no generator is registered for device type '%s'",
                        type_name(dev.type));
    const pt_generator_impl *impl = info.creator;
    pt_generator *g = malloc(sizeof *g);
    if (!g) return PT_ERROR(PT_ERR_MEMORY, "generator: out of memory");
    atomic_init(&g->refcount, 1);
    g->device = dev;
    g->seed = impl->default_seed;
    atomic_init(&g->offset, 0);
    *out = g;
    return PT_OK;
}

pt_status pt_generator_default(pt_device device, pt_generator **out)
{
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    if (dev.type < 0 || dev.type >= PT_DEV_TYPE_COUNT || dev.index < 0 ||
        dev.index >= MAX_DEFAULT_DEVICES)
        return PT_ERROR(PT_ERR_RUNTIME, "generator: no default generator for %s:%d",
                        type_name(dev.type), (int)dev.index);
    _Atomic(pt_generator *) *slot = &defaults[dev.type][dev.index];
    pt_generator *g = atomic_load_explicit(slot, memory_order_acquire);
    if (!g) {
        pt_generator *fresh = NULL;
        PT_TRY(pt_generator_new(dev, &fresh));
        pt_generator *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(slot, &expected, fresh, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            g = fresh;
        } else {
            pt_generator_release(fresh); /* another thread created it first */
            g = expected;
        }
    }
    pt_generator_retain(g);
    *out = g;
    return PT_OK;
}

void pt_generator_retain(pt_generator *g)
{
    if (g) atomic_fetch_add_explicit(&g->refcount, 1, memory_order_relaxed);
}

void pt_generator_release(pt_generator *g)
{
    if (g && atomic_fetch_sub_explicit(&g->refcount, 1, memory_order_acq_rel) == 1) free(g);
}

pt_device pt_generator_device(const pt_generator *g) { return g->device; }

/* The seed is a plain field shared with readers on other threads; GCC's atomic builtins keep those
 * accesses race-free without changing the shared layout. */
void pt_generator_manual_seed(pt_generator *g, uint64_t seed)
{
    __atomic_store_n(&g->seed, seed, __ATOMIC_RELAXED);
    atomic_store_explicit(&g->offset, 0, memory_order_relaxed);
}

uint64_t pt_generator_initial_seed(const pt_generator *g)
{
    return __atomic_load_n(&g->seed, __ATOMIC_RELAXED);
}

uint64_t pt_generator_offset(const pt_generator *g)
{
    return atomic_load_explicit(&((pt_generator *)g)->offset, memory_order_relaxed);
}

void pt_generator_set_offset(pt_generator *g, uint64_t offset)
{
    atomic_store_explicit(&g->offset, offset, memory_order_relaxed);
}

uint64_t pt_generator_reserve(pt_generator *g, uint64_t blocks)
{
    return atomic_fetch_add_explicit(&g->offset, blocks, memory_order_relaxed);
}

static pt_status read_entropy(uint64_t *out)
{
    unsigned char buf[sizeof *out];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (got < sizeof buf) { /* kernels before 3.17 or seccomp filters: fall back to the device */
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0) goto fail;
        got = 0;
        while (got < sizeof buf) {
            ssize_t n = read(fd, buf + got, sizeof buf - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
        }
        close(fd);
        if (got < sizeof buf) goto fail;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof buf; i++) v |= (uint64_t)buf[i] << (8 * i);
    *out = v;
    return PT_OK;
fail:
    return PT_ERROR(PT_ERR_RUNTIME, "seed: cannot read the OS entropy source (getrandom and "
                                    "/dev/urandom both failed)");
}

pt_status pt_generator_seed(pt_generator *g, uint64_t *out)
{
    uint64_t seed = 0;
    PT_TRY(read_entropy(&seed));
    pt_generator_manual_seed(g, seed);
    *out = seed;
    return PT_OK;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

pt_status pt_generator_get_state(const pt_generator *g, pt_tensor **out)
{
    const int64_t size = PT_GENERATOR_STATE_BYTES;
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(1, &size, PT_UINT8, (pt_device){PT_DEV_CPU, 0}, &t));
    uint8_t *p = pt_tensor_data(t);
    put_le64(p, pt_generator_initial_seed(g));
    put_le64(p + 8, pt_generator_offset(g));
    *out = t;
    return PT_OK;
}

pt_status pt_generator_set_state(pt_generator *g, const pt_tensor *state)
{
    if (!state) return PT_ERROR(PT_ERR_TYPE, "new_state: expected a tensor, but got NULL");
    const pt_device dev = pt_tensor_device(state);
    const int32_t dtype = pt_tensor_dtype(state);
    if (dev.type != PT_DEV_CPU || dtype != PT_UINT8) {
        const pt_dtype_info *info = pt_dtype_info_of(dtype);
        return PT_ERROR(PT_ERR_TYPE,
                        "new_state: expected a CPU uint8 tensor (torch.ByteTensor), but got a %s "
                        "tensor on %s",
                        info ? info->name : "unknown", type_name(dev.type));
    }
    if (pt_tensor_numel(state) != PT_GENERATOR_STATE_BYTES)
        return PT_ERROR(PT_ERR_VALUE,
                        "new_state: expected %d bytes (seed and offset), but got %lld",
                        (int)PT_GENERATOR_STATE_BYTES, (long long)pt_tensor_numel(state));
    if (!pt_tensor_is_contiguous(state, PT_MEMORY_FORMAT_CONTIGUOUS))
        return PT_ERROR(PT_ERR_VALUE, "new_state: expected a contiguous tensor");
    const uint8_t *p = pt_tensor_data(state);
    pt_generator_manual_seed(g, get_le64(p));
    pt_generator_set_offset(g, get_le64(p + 8));
    return PT_OK;
}

pt_status pt_generator_init(int64_t *count, const char **detail)
{
    pt_generator *g = NULL;
    PT_TRY(pt_generator_default((pt_device){PT_DEV_CPU, 0}, &g));
    pt_generator_release(g);
    int32_t n = 0;
    PT_TRY(pt_registry_size("generator", &n));
    *count = n;
    *detail = "device types with generators; the default CPU generator is seeded 67280421310721";
    return PT_OK;
}
