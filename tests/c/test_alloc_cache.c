/* The CPU allocator's per-thread caches (csrc/core/alloc_cache.c): reuse of blocks and structs,
 * exact counters across cache hits, frees on other threads, thread exit, the bounds, the switch,
 * fork, and the poisoning that keeps AddressSanitizer's view of cached blocks. */
#include "pt_test.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_cache.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

static const pt_device cpu = {PT_DEV_CPU, 0};

/* Runs the body with caching on (the suite may run with PYTENSOR_CPU_ALLOC_CACHE=0) and puts the
 * switch back even when a CHECK returns early. */
#define CACHE_TEST(name)                                                                           \
    static void name##_body(pt_test_ctx *pt_ctx_);                                                 \
    PT_TEST(name)                                                                                  \
    {                                                                                              \
        bool was = pt_alloc_cache_enabled();                                                       \
        pt_alloc_cache_set_enabled(true);                                                          \
        name##_body(pt_ctx_);                                                                      \
        pt_alloc_cache_set_enabled(was);                                                           \
    }                                                                                              \
    static void name##_body(pt_test_ctx *pt_ctx_)

static pt_memory_stats stats(void)
{
    pt_memory_stats s = {0};
    pt_allocator_stats(PT_DEV_CPU, &s);
    return s;
}

static pt_alloc_cache_info thread_info(void)
{
    pt_alloc_cache_info i;
    pt_alloc_cache_thread_info(&i);
    return i;
}

static pt_alloc_cache_info total_info(void)
{
    pt_alloc_cache_info i;
    pt_alloc_cache_total_info(&i);
    return i;
}

/* ---------------------------------------------------------------- reuse */
CACHE_TEST(alloc_cache_reuses_a_freed_block_of_the_same_size_class_aligned)
{
    /* Under AddressSanitizer a block waits behind `delay` newer ones; the oldest comes back. */
    enum { MAX = 64 };
    int32_t n = pt_alloc_cache_reuse_delay() + 1;
    CHECK(n <= MAX);
    void *p[MAX];
    pt_alloc_cache_flush();
    for (int32_t i = 0; i < n; i++) {
        CHECK_OK(pt_allocator_alloc(cpu, 100, &p[i]));
        CHECK((uintptr_t)p[i] % 64 == 0);
        memset(p[i], 0x5a, 100);
    }
    for (int32_t i = 0; i < n; i++) CHECK_OK(pt_allocator_free(cpu, p[i], 100));
    CHECK(thread_info().blocks == n);
    void *q = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 128, &q)); /* 100 and 128 share the 128-byte class */
    CHECK(q == p[pt_alloc_cache_reuse_delay() > 0 ? 0 : n - 1]);
    CHECK((uintptr_t)q % 64 == 0);
    memset(q, 0, 128); /* the whole class is the new owner's, whatever the old request was */
    CHECK(thread_info().blocks == n - 1);
    CHECK_OK(pt_allocator_free(cpu, q, 128));
    /* Another class does not take it. */
    void *r = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 64, &r));
    CHECK(r != q && (uintptr_t)r % 64 == 0);
    CHECK_OK(pt_allocator_free(cpu, r, 64));
    pt_alloc_cache_flush();
    CHECK(thread_info().blocks == 0);
}

CACHE_TEST(alloc_cache_blocks_above_the_largest_class_are_not_cached)
{
    pt_alloc_cache_flush();
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, PT_ALLOC_CACHE_MAX_BLOCK + 1, &p));
    CHECK((uintptr_t)p % 64 == 0);
    memset(p, 1, PT_ALLOC_CACHE_MAX_BLOCK + 1);
    CHECK_OK(pt_allocator_free(cpu, p, PT_ALLOC_CACHE_MAX_BLOCK + 1));
    CHECK(thread_info().blocks == 0);
    CHECK_OK(pt_allocator_alloc(cpu, PT_ALLOC_CACHE_MAX_BLOCK, &p));
    CHECK_OK(pt_allocator_free(cpu, p, PT_ALLOC_CACHE_MAX_BLOCK));
    CHECK(thread_info().blocks == 1 && thread_info().bytes == PT_ALLOC_CACHE_MAX_BLOCK);
    pt_alloc_cache_flush();
}

CACHE_TEST(alloc_cache_reused_tensor_and_storage_structs_start_fresh)
{
    static char external[64];
    enum { MAX = 64 };
    int32_t n = pt_alloc_cache_reuse_delay() + 1;
    pt_storage *olds[MAX];
    pt_alloc_cache_flush();
    /* Storages with every optional field set, then released into the cache. */
    for (int32_t i = 0; i < n; i++)
        CHECK_OK(pt_storage_from_external(external, sizeof external, PT_UINT8, cpu, free, NULL, 0,
                                          &olds[i]));
    for (int32_t i = 0; i < n; i++) {
        /* The deleter runs as free(NULL); with a deleter the mapping fields are not read. */
        olds[i]->shared = true;
        olds[i]->mmap_length = 4096;
        pt_storage_release(olds[i]);
    }
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(8, PT_FLOAT32, cpu, 0, &s));
    CHECK(s == olds[pt_alloc_cache_reuse_delay() > 0 ? 0 : n - 1]);
    CHECK(pt_storage_refcount(s) == 1 && pt_storage_writable(s) == 1);
    CHECK(pt_storage_resizable(s) == 0 && pt_storage_is_shared(s) == 0);
    CHECK(s->deleter == NULL && s->deleter_ctx == NULL && s->mmap_length == 0);
    CHECK(s->allocator == pt_allocators[PT_DEV_CPU] && pt_storage_nbytes(s) == 8);
    pt_storage_release(s);

    pt_tensor *olds_t[MAX];
    for (int32_t i = 0; i < n; i++) {
        CHECK_OK(pt_tensor_empty(2, (const int64_t[]){2, 3}, PT_INT64, cpu, &olds_t[i]));
        pt_tensor_set_wrapped_number(olds_t[i], 1);
    }
    for (int32_t i = 0; i < n; i++) pt_tensor_release(olds_t[i]);
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(0, NULL, PT_FLOAT32, cpu, &t));
    CHECK(t == olds_t[pt_alloc_cache_reuse_delay() > 0 ? 0 : n - 1]);
    CHECK(pt_tensor_refcount(t) == 1 && pt_tensor_ndim(t) == 0 && pt_tensor_numel(t) == 1);
    CHECK(pt_tensor_is_wrapped_number(t) == 0 && pt_tensor_offset(t) == 0);
    CHECK(pt_tensor_dtype(t) == PT_FLOAT32 && pt_storage_refcount(pt_tensor_storage(t)) == 1);
    pt_tensor_release(t);
    pt_alloc_cache_flush();
}

/* ---------------------------------------------------------------- counters */
CACHE_TEST(alloc_cache_counters_stay_exact_across_cache_hits)
{
    static const int64_t sizes[] = {1, 64, 65, 100, 4096, 5000, 65536, 65537, 1 << 20};
    enum { N = sizeof sizes / sizeof sizes[0], ROUNDS = 50 };
    pt_memory_stats before = stats();
    void *p[N];
    int64_t live = 0, total = 0;
    for (int i = 0; i < N; i++) total += sizes[i];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
            CHECK_OK(pt_allocator_alloc(cpu, sizes[i], &p[i]));
            live += sizes[i];
        }
        pt_memory_stats during = stats();
        CHECK(during.bytes_in_use == before.bytes_in_use + live);
        CHECK(during.allocations == before.allocations + (int64_t)(r + 1) * N);
        CHECK(during.peak_bytes >= during.bytes_in_use);
        for (int i = 0; i < N; i++) {
            CHECK_OK(pt_allocator_free(cpu, p[i], sizes[i]));
            live -= sizes[i];
        }
    }
    pt_memory_stats after = stats();
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.allocations == before.allocations + ROUNDS * N);
    CHECK(after.frees == before.frees + ROUNDS * N);
    CHECK(after.peak_bytes >= before.bytes_in_use + total);
}

CACHE_TEST(alloc_cache_reset_peak_then_growth_raises_the_peak_again)
{
    void *p = NULL, *q = NULL;
    CHECK_OK(pt_allocator_reset_peak(PT_DEV_CPU));
    pt_memory_stats s = stats();
    CHECK(s.peak_bytes == s.bytes_in_use);
    CHECK_OK(pt_allocator_alloc(cpu, 40, &p));
    CHECK_OK(pt_allocator_alloc(cpu, 3 << 20, &q));
    CHECK(stats().peak_bytes >= s.bytes_in_use + 40 + (3 << 20));
    CHECK_OK(pt_allocator_free(cpu, q, 3 << 20));
    CHECK_OK(pt_allocator_free(cpu, p, 40));
    CHECK(stats().bytes_in_use == s.bytes_in_use);
    CHECK(stats().peak_bytes >= s.bytes_in_use + 40 + (3 << 20));
}

/* Threads each hold `bytes` at once: the peak must see them all, though each counts alone. */
enum { PEAK_THREADS = 4 };
typedef struct peak_arg {
    pthread_barrier_t *held, *checked;
    int64_t bytes;
    int failed;
} peak_arg;

static void *hold_then_free(void *argp)
{
    peak_arg *a = argp;
    void *p = NULL;
    a->failed = pt_allocator_alloc(cpu, a->bytes, &p) != PT_OK;
    pthread_barrier_wait(a->held);
    pthread_barrier_wait(a->checked);
    if (p) pt_allocator_free(cpu, p, a->bytes);
    return NULL;
}

CACHE_TEST(alloc_cache_peak_covers_allocations_held_on_several_threads)
{
    pthread_barrier_t held, checked;
    pthread_barrier_init(&held, NULL, PEAK_THREADS + 1);
    pthread_barrier_init(&checked, NULL, PEAK_THREADS + 1);
    pt_memory_stats before = stats();
    peak_arg args[PEAK_THREADS];
    pthread_t th[PEAK_THREADS];
    for (int i = 0; i < PEAK_THREADS; i++) {
        args[i] = (peak_arg){&held, &checked, 3000 + 1000 * i, 0};
        pthread_create(&th[i], NULL, hold_then_free, &args[i]);
    }
    pthread_barrier_wait(&held);
    pt_memory_stats during = stats();
    pthread_barrier_wait(&checked);
    for (int i = 0; i < PEAK_THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&held);
    pthread_barrier_destroy(&checked);
    pt_memory_stats after = stats();
    for (int i = 0; i < PEAK_THREADS; i++) CHECK(!args[i].failed);
    CHECK(during.bytes_in_use == before.bytes_in_use + 18000);
    CHECK(during.peak_bytes >= during.bytes_in_use);
    CHECK(after.peak_bytes >= before.bytes_in_use + 18000);
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.allocations == before.allocations + PEAK_THREADS);
    CHECK(after.frees == before.frees + PEAK_THREADS);
}

/* ---------------------------------------------------------------- other threads */
typedef struct handoff {
    void *block; /* freed by the thread when set; allocated by it when NULL */
    int64_t nbytes;
    pt_alloc_cache_info info; /* the thread's cache just before it exits */
} handoff;

static void *free_or_alloc(void *argp)
{
    handoff *h = argp;
    if (h->block) {
        pt_allocator_free(cpu, h->block, h->nbytes);
        h->block = NULL;
    } else {
        pt_allocator_alloc(cpu, h->nbytes, &h->block);
    }
    pt_alloc_cache_thread_info(&h->info);
    return NULL;
}

CACHE_TEST(alloc_cache_takes_blocks_freed_on_another_thread)
{
    pt_memory_stats before = stats();
    /* Allocated here, freed there: it lands in the other thread's cache, which goes with it. */
    handoff h = {NULL, 300, {0}};
    CHECK_OK(pt_allocator_alloc(cpu, h.nbytes, &h.block));
    pt_alloc_cache_info total = total_info();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, free_or_alloc, &h) == 0);
    pthread_join(t, NULL);
    CHECK(h.block == NULL);
    CHECK(h.info.threads == 1 && h.info.blocks == 1 && h.info.bytes == 512);
    CHECK(total_info().threads == total.threads && total_info().blocks == total.blocks);
    /* Allocated there, freed here: it lands in this thread's cache. */
    pt_alloc_cache_flush();
    CHECK(pthread_create(&t, NULL, free_or_alloc, &h) == 0);
    pthread_join(t, NULL);
    CHECK(h.block && (uintptr_t)h.block % 64 == 0);
    memset(h.block, 7, 300);
    CHECK_OK(pt_allocator_free(cpu, h.block, h.nbytes));
    CHECK(thread_info().blocks == 1);
    pt_memory_stats after = stats();
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.allocations == before.allocations + 2);
    CHECK(after.frees == before.frees + 2);
    pt_alloc_cache_flush();
}

static void *fill_cache_and_exit(void *argp)
{
    handoff *h = argp;
    for (int64_t n = 64; n <= PT_ALLOC_CACHE_MAX_BLOCK; n *= 2) {
        void *p = NULL;
        if (pt_allocator_alloc(cpu, n, &p) != PT_OK) return NULL;
        pt_allocator_free(cpu, p, n);
    }
    pt_tensor *t = NULL;
    if (pt_tensor_empty(1, (const int64_t[]){3}, PT_FLOAT32, cpu, &t) == PT_OK)
        pt_tensor_release(t);
    pt_alloc_cache_thread_info(&h->info);
    return NULL;
}

CACHE_TEST(alloc_cache_thread_exit_returns_the_threads_blocks)
{
    pt_alloc_cache_info before = total_info();
    pt_memory_stats s = stats();
    handoff h = {0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, fill_cache_and_exit, &h) == 0);
    pthread_join(t, NULL);
    /* One block per size class and the tensor and storage structs; the tensor's data reused the
     * 64-byte block, except where reuse waits (a second block then). */
    CHECK(h.info.threads == 1);
    CHECK(h.info.blocks == 11 + 2 + (pt_alloc_cache_reuse_delay() > 0));
    pt_alloc_cache_info after = total_info();
    CHECK(after.threads == before.threads);
    CHECK(after.blocks == before.blocks && after.bytes == before.bytes);
    CHECK(stats().bytes_in_use == s.bytes_in_use);
    CHECK(stats().allocations == s.allocations + 12 && stats().frees == s.frees + 12);
}

/* ---------------------------------------------------------------- many threads */
enum { STRESS_THREADS = 8, STRESS_SLOTS = 32, STRESS_ROUNDS = 4000 };
static _Atomic(void *) stress_blocks[STRESS_SLOTS];
static _Atomic(pt_tensor *) stress_tensors[STRESS_SLOTS];

/* A block starts with its size and a fill byte, and up to FILLED bytes of it hold that byte: the
 * thread that frees it knows the size and sees whether anyone else wrote to it meanwhile. */
enum { FILLED = 512 };
typedef struct block_head {
    int64_t nbytes;
    int64_t fill;
} block_head;

static size_t filled(int64_t nbytes)
{
    return (size_t)(nbytes < FILLED ? nbytes : FILLED) - sizeof(block_head);
}

/* 1 when the block was written by someone else while it was held. */
static int free_checked(void *p)
{
    if (!p) return 0;
    block_head *h = p;
    const unsigned char *bytes = (const unsigned char *)(h + 1);
    int bad = 0;
    for (size_t i = 0; i < filled(h->nbytes); i++) bad |= bytes[i] != (unsigned char)h->fill;
    pt_allocator_free(cpu, p, h->nbytes);
    return bad;
}

static void *stress(void *argp)
{
    uint64_t x = (uint64_t)(uintptr_t)argp * 0x9e3779b97f4a7c15u + 1;
    int failures = 0;
    for (int r = 0; r < STRESS_ROUNDS; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t nbytes = (int64_t)sizeof(block_head) + (int64_t)(x % 5 ? x % 3000 : x % 200000);
        void *p = NULL;
        if (pt_allocator_alloc(cpu, nbytes, &p) != PT_OK) {
            failures++;
            continue;
        }
        block_head *h = p;
        *h = (block_head){nbytes, (int64_t)(x >> 32) & 0xff};
        memset(h + 1, (int)h->fill, filled(nbytes));
        /* Half the blocks change hands: they are freed by whichever thread takes them out. */
        if (x & 1) p = atomic_exchange(&stress_blocks[(x >> 8) % STRESS_SLOTS], p);
        failures += free_checked(p);
        pt_tensor *t = NULL;
        if (pt_tensor_empty(1, (const int64_t[]){(int64_t)(x % 50)}, PT_FLOAT64, cpu, &t) !=
            PT_OK) {
            failures++;
            continue;
        }
        /* A tensor shared with another thread's release: the reference count decides who frees. */
        if (x & 2) {
            pt_tensor_retain(t);
            pt_tensor_release(atomic_exchange(&stress_tensors[(x >> 16) % STRESS_SLOTS], t));
        }
        pt_tensor_release(t);
    }
    return (void *)(intptr_t)failures;
}

CACHE_TEST(alloc_cache_many_threads_allocate_and_free_concurrently)
{
    pt_memory_stats before = stats();
    pt_alloc_cache_info info = total_info();
    pthread_t th[STRESS_THREADS];
    for (intptr_t i = 0; i < STRESS_THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, stress, (void *)i) == 0);
    intptr_t failures = 0;
    for (int i = 0; i < STRESS_THREADS; i++) {
        void *f = NULL;
        pthread_join(th[i], &f);
        failures += (intptr_t)f;
    }
    for (int i = 0; i < STRESS_SLOTS; i++) {
        failures += free_checked(atomic_exchange(&stress_blocks[i], NULL));
        pt_tensor_release(atomic_exchange(&stress_tensors[i], NULL));
    }
    CHECK(failures == 0);
    pt_memory_stats after = stats();
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.allocations - before.allocations == after.frees - before.frees);
    /* Every round allocates a block and a tensor's data (none for 0 elements). */
    CHECK(after.allocations - before.allocations > STRESS_THREADS * STRESS_ROUNDS);
    CHECK(after.peak_bytes >= before.bytes_in_use);
    CHECK(total_info().threads == info.threads);
}

/* ---------------------------------------------------------------- bounds and the switch */
CACHE_TEST(alloc_cache_bins_keep_at_most_their_bound)
{
    enum { MANY = 100 };
    void *p[MANY];
    int64_t all_bytes = 0;
    pt_alloc_cache_flush();
    for (int64_t size = 64; size <= PT_ALLOC_CACHE_MAX_BLOCK; size *= 2) {
        int64_t cap = PT_ALLOC_CACHE_BIN_BYTES / size;
        if (cap > PT_ALLOC_CACHE_BIN_SLOTS) cap = PT_ALLOC_CACHE_BIN_SLOTS;
        pt_alloc_cache_info before = thread_info();
        for (int i = 0; i < MANY; i++) CHECK_OK(pt_allocator_alloc(cpu, size, &p[i]));
        for (int i = 0; i < MANY; i++) CHECK_OK(pt_allocator_free(cpu, p[i], size));
        pt_alloc_cache_info after = thread_info();
        CHECK(after.blocks - before.blocks == cap);
        CHECK(after.bytes - before.bytes == cap * size);
        all_bytes = after.bytes;
    }
    CHECK(all_bytes <= PT_ALLOC_CACHE_THREAD_BYTES);
    pt_alloc_cache_flush();
    CHECK(thread_info().blocks == 0 && thread_info().bytes == 0);
}

PT_TEST(alloc_cache_switch_off_sends_every_block_to_malloc)
{
    bool was = pt_alloc_cache_enabled();
    pt_alloc_cache_set_enabled(true);
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 256, &p));
    CHECK_OK(pt_allocator_free(cpu, p, 256));
    CHECK(thread_info().blocks >= 1);
    pt_alloc_cache_set_enabled(false);
    CHECK(!pt_alloc_cache_enabled());
    CHECK(thread_info().blocks == 0); /* turning it off empties this thread's cache */
    pt_memory_stats before = stats();
    for (int i = 0; i < 10; i++) {
        pt_tensor *t = NULL;
        CHECK_OK(pt_tensor_empty(1, (const int64_t[]){5}, PT_FLOAT32, cpu, &t));
        CHECK((uintptr_t)pt_tensor_data(t) % 64 == 0);
        pt_tensor_release(t);
        CHECK_OK(pt_allocator_alloc(cpu, 100, &p));
        CHECK_OK(pt_allocator_free(cpu, p, 100));
    }
    CHECK(thread_info().blocks == 0);
    pt_memory_stats after = stats();
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.allocations == before.allocations + 20 && after.frees == before.frees + 20);
    pt_alloc_cache_set_enabled(was);
}

/* ---------------------------------------------------------------- fork */
static _Atomic bool churn_stop;

static void *churn(void *argp)
{
    PT_UNUSED(argp);
    while (!atomic_load(&churn_stop)) {
        pt_tensor *t = NULL;
        if (pt_tensor_empty(1, (const int64_t[]){4}, PT_FLOAT32, cpu, &t) == PT_OK)
            pt_tensor_release(t);
        pt_memory_stats s;
        pt_allocator_stats(PT_DEV_CPU, &s); /* takes the registry lock */
    }
    return NULL;
}

CACHE_TEST(alloc_cache_fork_while_other_threads_allocate_does_not_deadlock)
{
    atomic_store(&churn_stop, false);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, churn, NULL) == 0);
    int ok = 1;
    for (int i = 0; i < 20 && ok; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(20); /* a deadlock ends the child instead of the suite */
            void *p = NULL;
            pt_memory_stats s;
            int bad = pt_allocator_alloc(cpu, 100, &p) != PT_OK;
            bad |= pt_allocator_stats(PT_DEV_CPU, &s) != PT_OK;
            bad |= pt_allocator_free(cpu, p, 100) != PT_OK;
            _exit(bad);
        }
        int status = 0;
        ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
             WEXITSTATUS(status) == 0;
    }
    atomic_store(&churn_stop, true);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK(ok);
}

/* ---------------------------------------------------------------- AddressSanitizer */
#ifdef TEST_ASAN
CACHE_TEST(alloc_cache_keeps_cached_blocks_and_class_tails_poisoned)
{
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 100, &p));
    /* In use: the request is addressable, the rest of its 128-byte class is not. */
    CHECK(!__asan_region_is_poisoned(p, 100));
    CHECK(__asan_address_is_poisoned((char *)p + 100));
    CHECK_OK(pt_allocator_free(cpu, p, 100));
    /* Cached: all of it is poisoned, so a use after free is reported. */
    CHECK(__asan_address_is_poisoned(p));
    CHECK(__asan_address_is_poisoned((char *)p + 64));
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(0, NULL, PT_FLOAT32, cpu, &t));
    pt_tensor_release(t);
    CHECK(__asan_address_is_poisoned(t));
    pt_alloc_cache_flush();
}
#endif
