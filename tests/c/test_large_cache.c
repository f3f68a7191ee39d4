/* The CPU allocator's large-block pool (csrc/core/large_cache.c): size classes, reuse across
 * threads, the slot and byte bounds, flushing, the counters, fork, and poisoning. */
#include "pt_test.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
#define MiB ((int64_t)1 << 20)
#define KiB ((int64_t)1 << 10)

static pt_alloc_cache_info pool_info(void)
{
    pt_alloc_cache_info i;
    pt_large_cache_info(&i);
    return i;
}

/* The body runs with caching on and an empty pool; a failed CHECK still restores the switch. */
#define POOL_TEST(name)                                                                            \
    static void name##_body(pt_test_ctx *pt_ctx_);                                                 \
    PT_TEST(name)                                                                                  \
    {                                                                                              \
        bool was = pt_alloc_cache_enabled();                                                       \
        pt_alloc_cache_set_enabled(true);                                                          \
        pt_large_cache_flush();                                                                    \
        if (pt_large_cache_cap() >= (size_t)(64 * MiB)) name##_body(pt_ctx_);                     \
        pt_large_cache_flush();                                                                    \
        pt_alloc_cache_set_enabled(was);                                                           \
    }                                                                                              \
    static void name##_body(pt_test_ctx *pt_ctx_)

PT_TEST(large_cache_size_classes_are_sixteen_per_power_of_two)
{
    CHECK(pt_large_block_bytes(64 * KiB) == (size_t)(64 * KiB));
    CHECK(pt_large_block_bytes(64 * KiB + 1) == (size_t)(68 * KiB));
    CHECK(pt_large_block_bytes(400000) == (size_t)(400 * KiB)); /* 1/16 of 256 KiB steps */
    CHECK(pt_large_block_bytes(MiB - 1) == (size_t)MiB);
    CHECK(pt_large_block_bytes(MiB) == (size_t)MiB);
    CHECK(pt_large_block_bytes(MiB + 1) == (size_t)(MiB + MiB / 16));
    CHECK(pt_large_block_bytes(64 * MiB) == (size_t)(64 * MiB));
    CHECK(pt_large_block_bytes(64 * MiB + 1) == (size_t)(68 * MiB));
    CHECK(pt_large_block_bytes(127 * MiB) == (size_t)(128 * MiB));
    /* Every size maps to a class no smaller and at most 1/16 larger, and the class maps to itself. */
    for (int64_t n = 64 * KiB + 1; n < 300 * MiB; n = n * 9 / 8 + 4097) {
        size_t c = pt_large_block_bytes(n);
        CHECK(c >= (size_t)n && c - (size_t)n <= (size_t)n / 16 + 4096);
        CHECK(pt_large_block_bytes((int64_t)c) == c);
    }
}

POOL_TEST(large_cache_reuses_a_freed_block_of_the_same_class)
{
    void *p = NULL, *q = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 8 * MiB, &p));
    CHECK((uintptr_t)p % (2 * MiB) == 0); /* huge-page aligned from 4 MiB */
    memset(p, 7, (size_t)(8 * MiB));
    CHECK_OK(pt_allocator_free(cpu, p, 8 * MiB));
    CHECK(pool_info().blocks == 1 && pool_info().bytes == 8 * MiB);
    /* 8 MiB - 1000 bytes is in the same class: the same block, the whole class usable. */
    CHECK_OK(pt_allocator_alloc(cpu, 8 * MiB - 1000, &q));
    CHECK(q == p);
    CHECK(pool_info().blocks == 0 && pool_info().bytes == 0);
    memset(q, 1, (size_t)(8 * MiB - 1000));
    CHECK_OK(pt_allocator_free(cpu, q, 8 * MiB - 1000));
    /* Another class does not take it. */
    void *r = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 9 * MiB, &r));
    CHECK(r != q);
    CHECK(pool_info().blocks == 1);
    CHECK_OK(pt_allocator_free(cpu, r, 9 * MiB));
    CHECK(pool_info().blocks == 2 && pool_info().bytes == 17 * MiB);
}

POOL_TEST(large_cache_counts_cached_bytes_apart_from_bytes_in_use)
{
    pt_memory_stats before = {0}, during = {0}, after = {0};
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &before));
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 3 * MiB, &p));
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &during));
    CHECK(during.bytes_in_use == before.bytes_in_use + 3 * MiB);
    CHECK_OK(pt_allocator_free(cpu, p, 3 * MiB));
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &after));
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.bytes_cached >= before.bytes_cached + 3 * MiB);
    CHECK_OK(pt_allocator_empty_cache(PT_DEV_CPU));
    CHECK(pool_info().blocks == 0);
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &after));
    CHECK(after.bytes_cached < 3 * MiB);
}

POOL_TEST(large_cache_blocks_of_the_thread_cache_are_not_pooled)
{
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 64 * KiB, &p));
    CHECK_OK(pt_allocator_free(cpu, p, 64 * KiB));
    CHECK(pool_info().blocks == 0);
}

POOL_TEST(large_cache_pools_mid_size_blocks)
{
    /* A 400 KB result freed and asked for again (a training step's weight gradient) gets the same
     * block back, its pages already mapped. */
    void *p = NULL, *q = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 400000, &p));
    memset(p, 3, 400000);
    CHECK_OK(pt_allocator_free(cpu, p, 400000));
    CHECK(pool_info().blocks == 1 && pool_info().bytes == 400 * KiB);
    CHECK_OK(pt_allocator_alloc(cpu, 400000, &q));
    CHECK(q == p);
    CHECK(pool_info().blocks == 0);
    CHECK_OK(pt_allocator_free(cpu, q, 400000));
}

POOL_TEST(large_cache_keeps_at_most_its_slots_and_drops_the_oldest)
{
    enum { N = PT_LARGE_CACHE_SLOTS + 4 };
    void *p[N];
    for (int i = 0; i < N; i++) CHECK_OK(pt_allocator_alloc(cpu, (1 + i % 3) * 128 * KiB, &p[i]));
    for (int i = 0; i < N; i++) CHECK_OK(pt_allocator_free(cpu, p[i], (1 + i % 3) * 128 * KiB));
    CHECK(pool_info().blocks == PT_LARGE_CACHE_SLOTS);
    /* The four oldest (blocks 0..3) went to free(); the newest of each class comes back first. */
    void *q = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 3 * 128 * KiB, &q));
    CHECK(q == p[N - 3]); /* (N - 3) % 3 == 2 */
    CHECK_OK(pt_allocator_free(cpu, q, 3 * 128 * KiB));
}

static void *alloc_and_free_on_thread(void *arg)
{
    void **p = arg;
    if (pt_allocator_alloc(cpu, 5 * MiB, p) != PT_OK) *p = NULL;
    else if (pt_allocator_free(cpu, *p, 5 * MiB) != PT_OK) *p = NULL;
    return NULL;
}

POOL_TEST(large_cache_is_shared_by_all_threads)
{
    void *theirs = NULL;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, alloc_and_free_on_thread, &theirs) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(theirs != NULL);
    CHECK(pool_info().blocks == 1); /* the thread's exit does not take it away */
    void *mine = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 5 * MiB, &mine));
    CHECK(mine == theirs);
    CHECK_OK(pt_allocator_free(cpu, mine, 5 * MiB));
}

static void *churn(void *arg)
{
    int64_t *failures = arg;
    for (int i = 0; i < 200; i++) {
        int64_t n = (1 + i * 7 % 5) * MiB;
        unsigned char *p = NULL;
        if (pt_allocator_alloc(cpu, n, (void **)&p) != PT_OK) {
            (*failures)++;
            continue;
        }
        p[0] = (unsigned char)i;
        p[n - 1] = (unsigned char)i;
        if (p[0] != (unsigned char)i) (*failures)++;
        if (pt_allocator_free(cpu, p, n) != PT_OK) (*failures)++;
    }
    return NULL;
}

POOL_TEST(large_cache_many_threads_allocate_and_free_concurrently)
{
    enum { T = 4 };
    pthread_t th[T];
    int64_t failures[T] = {0};
    for (int i = 0; i < T; i++) CHECK(pthread_create(&th[i], NULL, churn, &failures[i]) == 0);
    for (int i = 0; i < T; i++) CHECK(pthread_join(th[i], NULL) == 0);
    for (int i = 0; i < T; i++) CHECK(failures[i] == 0);
    CHECK(pool_info().blocks <= PT_LARGE_CACHE_SLOTS); /* the slot bound, under contention */
}

PT_TEST(large_cache_switch_off_frees_instead_of_pooling)
{
    bool was = pt_alloc_cache_enabled();
    pt_alloc_cache_set_enabled(false);
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 2 * MiB, &p));
    CHECK_OK(pt_allocator_free(cpu, p, 2 * MiB));
    CHECK(pool_info().blocks == 0);
    pt_alloc_cache_set_enabled(was);
}

POOL_TEST(large_cache_fork_child_can_allocate_after_parent_threads_held_the_lock)
{
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 2 * MiB, &p));
    CHECK_OK(pt_allocator_free(cpu, p, 2 * MiB));
    int64_t failures = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, churn, &failures) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        void *q = NULL;
        int ok = pt_allocator_alloc(cpu, 2 * MiB, &q) == PT_OK &&
                 pt_allocator_free(cpu, q, 2 * MiB) == PT_OK;
        _exit(ok ? 0 : 1);
    }
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(pid > 0);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(failures == 0);
}

#ifdef TEST_ASAN
POOL_TEST(large_cache_keeps_pooled_blocks_and_class_tails_poisoned)
{
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, MiB + 100, &p));
    CHECK(!__asan_region_is_poisoned(p, (size_t)MiB + 100));
    CHECK(__asan_address_is_poisoned((char *)p + MiB + 100)); /* the class's tail */
    CHECK_OK(pt_allocator_free(cpu, p, MiB + 100));
    CHECK(__asan_address_is_poisoned(p));
    CHECK(__asan_address_is_poisoned((char *)p + MiB / 2));
    void *q = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, MiB + 200, &q));
    CHECK(q == p && !__asan_region_is_poisoned(q, (size_t)MiB + 200));
    CHECK_OK(pt_allocator_free(cpu, q, MiB + 200));
}
#endif
