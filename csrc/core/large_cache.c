/* large_cache.c - the CPU allocator's pool of large blocks: freed data blocks above 64 KiB kept
 * mapped, process-wide, for the next request of their size class.
 *
 * Note [CPU large-block cache]
 * glibc serves a block above its mmap threshold (128 KiB at first, rising to at most 32 MiB) with
 * a fresh mapping and unmaps it on free, so every large result's first write faults on each 4 KiB
 * page and the kernel zeroes it: for `c = a + b` on 16M float32 elements that was 16K faults and
 * 60% of the op's time (the add itself writes at the memory bandwidth). An op in a loop (a model
 * step, an expression over the same shapes) frees a block and asks for one of the same size soon
 * after; keeping it saves every fault. The choices:
 *   - Every block above PT_LARGE_CACHE_MIN_BLOCK (64 KiB, the per-thread cache's largest class).
 *     The pool once started at 1 MiB, trusting the threshold's adaptation to serve the sizes
 *     between from the heap; it does not: glibc trims the heap's top above M_TRIM_THRESHOLD on
 *     free, so a 400 KB result freed and asked for again each step of a training loop (the
 *     gradient of a 1000 x 100 weight) faulted its 100 pages in every time and cost three times
 *     torch's `w -= lr * grad`.
 *   - Size classes of 16 steps per power of two (a block is at most 1/16 larger than asked for),
 *     so shapes that differ a little share blocks; a block's class follows from the nbytes it was
 *     asked for, which is what the sized free passes back (alloc_cache.h).
 *   - One pool for all threads under a mutex: a large op's work dwarfs an uncontended lock, and a
 *     block freed by a worker thread is found by the next request on any thread. At most
 *     POOL_SLOTS (64) blocks, enough for the mid-size and large results a model step keeps
 *     alive at once, and a byte bound (the smaller of 1 GiB and 1/16 of physical memory;
 *     PYTENSOR_CPU_LARGE_CACHE_MB sets it, 0 turns the pool off, as PYTENSOR_CPU_ALLOC_CACHE=0
 *     does); past either bound the least recently freed blocks go back to free(). A request takes
 *     the most recently freed block of its class. pt_large_cache_flush (pytensor.empty_cache())
 *     gives everything back, and a request that malloc cannot meet flushes the pool and retries.
 *   - Blocks of 4 MiB and up are 2 MiB aligned and advised as huge-page candidates
 *     (MADV_HUGEPAGE, as NumPy does for its large arrays), so that the first use of a new block
 *     faults once per 2 MiB where the kernel allows transparent huge pages.
 *   - Sanitizers: a pooled block is poisoned for AddressSanitizer until it is handed out again;
 *     LeakSanitizer sees the pool's pointers in this file's static array.
 *   - fork(): the child gets a fresh, unlocked mutex and keeps the blocks (they are its memory).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "alloc_cache.h"
#include "internal.h"

#define POISON PT_POISON
#define UNPOISON PT_UNPOISON

enum {
    POOL_SLOTS = PT_LARGE_CACHE_SLOTS,
    CLASS_STEPS_SHIFT = 4, /* 2^4 size classes per power of two */
    PAGE = 4096,
    ALIGNMENT = 64, /* what the CPU allocator promises (allocator.c) */
};
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)
#define DEFAULT_CAP ((size_t)1 << 30)

typedef struct pooled {
    void *p;
    size_t size;
    uint64_t stamp; /* when it was freed: the oldest goes first */
} pooled;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pooled pool[POOL_SLOTS];
static int pool_count;
static size_t pool_bytes, pool_cap;
static uint64_t pool_clock;

static void fork_prepare(void) { pthread_mutex_lock(&pool_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&pool_lock); }
static void fork_child(void) { pthread_mutex_init(&pool_lock, NULL); }

static size_t default_cap(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return DEFAULT_CAP;
    size_t sixteenth = (size_t)pages / 16 * (size_t)page;
    return sixteenth < DEFAULT_CAP ? sixteenth : DEFAULT_CAP;
}

/* Once, at first use: the bound (Note [CPU large-block cache]) and the fork handlers. Without the
 * handlers the pool stays off: a child could inherit the mutex locked. */
static void setup(void)
{
    pool_cap = default_cap();
    const char *env = getenv("PYTENSOR_CPU_LARGE_CACHE_MB");
    if (env && *env) {
        char *end = NULL;
        unsigned long long mb = strtoull(env, &end, 10);
        if (end && *end == '\0') pool_cap = mb > (SIZE_MAX >> 20) ? SIZE_MAX : (size_t)mb << 20;
    }
    if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0) pool_cap = 0;
}

static bool pool_on(void)
{
    pthread_once(&pool_once, setup);
    return pool_cap > 0 && pt_alloc_cache_enabled();
}

size_t pt_large_block_bytes(int64_t nbytes)
{
    size_t n = (size_t)nbytes;
    if (nbytes < PT_LARGE_CACHE_MIN_BLOCK) return n;
    int top = 63 - __builtin_clzll((unsigned long long)n); /* floor(log2(n)) */
    size_t step = (size_t)1 << (top - CLASS_STEPS_SHIFT);
    if (step < PAGE) step = PAGE;
    return (n + step - 1) & ~(step - 1);
}

int pt_large_block_new(size_t size, void **out)
{
    size_t align = size >= HUGE_MIN ? HUGE_PAGE : ALIGNMENT;
    int err = posix_memalign(out, align, size);
    if (err != 0) return err;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Advice only: where the kernel refuses (THP off, an older kernel) the pages stay 4 KiB. */
    if (align == HUGE_PAGE) (void)madvise(*out, size & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
    return 0;
}

void *pt_large_cache_take(size_t size)
{
    if (size < PT_LARGE_CACHE_MIN_BLOCK || !pool_on()) return NULL;
    void *p = NULL;
    pthread_mutex_lock(&pool_lock);
    int best = -1;
    for (int i = 0; i < pool_count; i++)
        if (pool[i].size == size && (best < 0 || pool[i].stamp > pool[best].stamp)) best = i;
    if (best >= 0) {
        p = pool[best].p;
        pool_bytes -= size;
        pool[best] = pool[--pool_count];
    }
    pthread_mutex_unlock(&pool_lock);
    if (p) UNPOISON(p, size);
    return p;
}

/* Removes the least recently freed block (pool_lock held) and returns it for freeing outside. */
static pooled evict_oldest(void)
{
    int oldest = 0;
    for (int i = 1; i < pool_count; i++)
        if (pool[i].stamp < pool[oldest].stamp) oldest = i;
    pooled e = pool[oldest];
    pool_bytes -= e.size;
    pool[oldest] = pool[--pool_count];
    return e;
}

static void release(void *p, size_t size)
{
    UNPOISON(p, size);
    free(p);
}

void pt_large_cache_put(void *p, size_t size)
{
    if (size < PT_LARGE_CACHE_MIN_BLOCK || !pool_on() || size > pool_cap) {
        free(p);
        return;
    }
    POISON(p, size);
    pooled evicted[POOL_SLOTS];
    int n_evicted = 0;
    pthread_mutex_lock(&pool_lock);
    while (pool_count > 0 && (pool_count == POOL_SLOTS || pool_bytes + size > pool_cap))
        evicted[n_evicted++] = evict_oldest();
    pool[pool_count++] = (pooled){.p = p, .size = size, .stamp = ++pool_clock};
    pool_bytes += size;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < n_evicted; i++) release(evicted[i].p, evicted[i].size);
}

void pt_large_cache_flush(void)
{
    pooled all[POOL_SLOTS];
    pthread_mutex_lock(&pool_lock);
    int n = pool_count;
    memcpy(all, pool, (size_t)n * sizeof *all);
    pool_count = 0;
    pool_bytes = 0;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < n; i++) release(all[i].p, all[i].size);
}

void pt_large_cache_info(pt_alloc_cache_info *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&pool_lock);
    out->blocks = pool_count;
    out->bytes = (int64_t)pool_bytes;
    pthread_mutex_unlock(&pool_lock);
}

size_t pt_large_cache_cap(void)
{
    pthread_once(&pool_once, setup);
    return pool_cap;
}
