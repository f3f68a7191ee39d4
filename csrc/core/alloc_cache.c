/* alloc_cache.c - the CPU allocator's per-thread state: small data blocks and tensor/storage
 * structs kept for reuse, and the thread's share of the allocator counters.
 *
 * Each thread that allocates gets a state (made at its first allocation, freed when it exits) with
 * one bin per size class. pt_cpu_block_alloc takes a block from the bin of its size class or asks
 * posix_memalign for a new one of the class's full size; pt_cpu_block_free puts it back into the
 * freeing thread's bin, or gives it to free() when the bin is full. Blocks above the largest class
 * go straight to posix_memalign and free. The tensor and storage structs have a bin each, of malloc
 * blocks of the struct's size. Counting is per thread too, so that an allocation and a free that
 * hit the cache touch only the thread's own state: no locks, no atomic read-modify-writes.
 *
 * Note [CPU allocation cache]
 * A tensor op's result costs three heap blocks (the pt_tensor, its pt_storage, the data), and
 * releasing it frees three; on small tensors malloc's bookkeeping was a large part of an op's time
 * (and more under Python, whose own blocks share glibc's arenas). The choices:
 *   - Size classes are powers of two from 64 bytes (one cache line: the alignment the allocator
 *     promises) to 64 KiB, and a block is always allocated at its class's full size, 64-byte
 *     aligned, so that any request of the class can reuse it. 64 KiB is the top because above it an
 *     op's own work (16K float32 elements and up) hides malloc's cost, power-of-two rounding would
 *     start to waste tens of KiB a block, and glibc's mmap threshold (128 KiB at first) is near:
 *     there the cost is page faults, not bookkeeping. Caching large blocks for that reason is a
 *     separate design: the process-wide pool of large_cache.c (Note [CPU large-block cache]).
 *   - A bin is an array of pointers in the thread's state, not a list threaded through the blocks:
 *     taking a block reads none of the block's memory (it may be cold), a use after free cannot
 *     corrupt the cache, AddressSanitizer can poison the whole block while it waits, and
 *     LeakSanitizer finds cached blocks through the state (it ignores pointers stored in poisoned
 *     memory), which the registry of threads keeps reachable.
 *   - Bounds, fixed per bin so that checking one is a compare with a constant: at most
 *     PT_ALLOC_CACHE_BIN_SLOTS (64) blocks, because an expression or a small model step keeps a few
 *     dozen temporaries of one size alive at once and more is rare enough for malloc; and at most
 *     PT_ALLOC_CACHE_BIN_BYTES (128 KiB) per size class, so 64 blocks up to 2 KiB and fewer above
 *     (two of 64 KiB): the bigger the block, the more of an op's time goes to its own work and the
 *     less a cached block saves. All bins of a thread together hold under
 *     PT_ALLOC_CACHE_THREAD_BYTES (1 MiB), about the L2 of a current server core (a block reused
 *     from beyond it comes back from memory anyway) and the most a thread holds idle: 64
 *     allocating threads hold at most 64 MiB.
 *   - A block freed on another thread joins the freeing thread's bins. Every block is a plain
 *     malloc block of its class's size, so nothing needs to go back to the thread that allocated
 *     it, and neither side takes a lock. (A producer thread that only allocates and a consumer that
 *     only frees simply miss the cache; the consumer's bins fill up to the bounds and its further
 *     frees go to free().)
 *   - A state is registered in a list under registry_lock (reads of the counters sum over it). A
 *     pthread key's destructor returns the cached blocks to free() and folds the counters into the
 *     shared ones when the thread exits; allocations after that (other keys' destructors may
 *     release tensors) and in a thread whose state could not be made take the shared path: malloc,
 *     free and atomic counters. pthread_atfork holds registry_lock across fork() so that the child
 *     never inherits it locked. The child keeps the states of the parent's other threads: their
 *     counters describe memory the child has as well, and their cached blocks (a bounded amount)
 *     stay unused.
 *   - Sanitizers: a cached block is poisoned for AddressSanitizer until it is handed out again, so
 *     a use after free is reported ("use-after-poison") while the block waits, and the tail between
 *     the request and the class size is poisoned while the block is in use, so overflows past the
 *     requested size are still caught. Reuse is LIFO, so a dangling pointer into a block already
 *     handed out again would go unseen; builds with AddressSanitizer therefore take the oldest
 *     block of a bin, and only when REUSE_DELAY newer ones wait behind it (the bins of 8 KiB and
 *     up hold too few blocks for that, so there they never hand one out again).
 *     PYTENSOR_CPU_ALLOC_CACHE=0 gives every block straight to malloc and free (AddressSanitizer's
 *     own quarantine, malloc debuggers).
 *
 * Note [CPU allocator counters]
 * The counters are written on every allocation and read rarely, so each thread counts its own
 * allocations and frees in its state (one writer: a load and a store, no read-modify-write) and a
 * read sums the registry's states and what exited threads and the shared path counted. The peak
 * needs a global total, kept in `reserved`; a thread draws on it ahead of need: it holds a credit
 * of bytes that `reserved` already counts, spends it on allocations, earns it back on frees, and
 * touches `reserved` only when the credit runs short (then the peak is raised to `reserved`) or
 * grows past 2 * CREDIT_CHUNK. So
 *   bytes in use = reserved - the sum of the credits (exact when no allocation is in flight), and
 *   peak >= reserved as of the last draw >= any bytes in use since,
 * which may exceed the real peak by the credits held: at most 2 * CREDIT_CHUNK a thread.
 * pt_cpu_stats_reset_peak sets the peak to the exact bytes in use and bumps `peak_epoch`; a thread
 * that sees a new epoch returns its credit before it spends again, so whatever it spends after the
 * reset was drawn, and the peak raised, after the reset. (With the stale credits of threads that
 * have not allocated since, reserved - those credits <= peak holds throughout.)
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_cache.h"
#include "internal.h"

#ifdef PT_ASAN
/* Note [CPU allocation cache], sanitizers: a freed block waits behind this many newer ones of its
 * class, long enough for a use right after a release (the common dangling pointer) to hit poison,
 * short enough (a quarter of a bin) that the cache is still exercised. */
enum { REUSE_DELAY = 16 };
#else
enum { REUSE_DELAY = 0 };
#endif
#define POISON PT_POISON
#define UNPOISON PT_UNPOISON

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

enum {
    ALIGNMENT = 64,      /* what the CPU allocator promises (allocator.c) */
    MIN_BLOCK_SHIFT = 6, /* log2(PT_ALLOC_CACHE_MIN_BLOCK) */
    BLOCK_CLASSES = 11,  /* 64 B << 0 .. 64 B << 10 = 64 KiB */
    CLASS_COUNT = BLOCK_CLASSES + PT_CACHED_OBJECT_COUNT,
    SLOT_MASK = PT_ALLOC_CACHE_BIN_SLOTS - 1,
    /* Note [CPU allocator counters]: credits cover 4K float32 elements, so ops on small tensors
     * never touch the shared total; a bigger op's two uncontended atomics (~10 ns) are lost in its
     * own time, and the peak reads at most 32 KiB a thread high. */
    CREDIT_CHUNK = 16 << 10,
};
_Static_assert(PT_ALLOC_CACHE_MIN_BLOCK == 1 << MIN_BLOCK_SHIFT, "the smallest class's shift");
_Static_assert((int)PT_ALLOC_CACHE_MIN_BLOCK == (int)ALIGNMENT,
               "a block of the smallest class is aligned");
_Static_assert(PT_ALLOC_CACHE_MIN_BLOCK << (BLOCK_CLASSES - 1) == PT_ALLOC_CACHE_MAX_BLOCK,
               "the classes end at the largest cached block");
_Static_assert((PT_ALLOC_CACHE_BIN_SLOTS & SLOT_MASK) == 0, "a bin is a ring of 2^k slots");
_Static_assert((int)REUSE_DELAY < (int)PT_ALLOC_CACHE_BIN_SLOTS,
               "a delayed block of a full-size bin can still be reused");

static const size_t object_sizes[PT_CACHED_OBJECT_COUNT] = {
    [PT_CACHED_TENSOR] = sizeof(pt_tensor),
    [PT_CACHED_STORAGE] = sizeof(pt_storage),
};

/* The blocks a bin holds: 64, or fewer when they would pass 128 KiB. */
#define BLOCK_CAP(shift)                                                                           \
    ((PT_ALLOC_CACHE_BIN_BYTES >> (shift)) < PT_ALLOC_CACHE_BIN_SLOTS                              \
         ? (PT_ALLOC_CACHE_BIN_BYTES >> (shift))                                                   \
         : PT_ALLOC_CACHE_BIN_SLOTS)
static const uint32_t bin_caps[CLASS_COUNT] = {
    BLOCK_CAP(6),  BLOCK_CAP(7),  BLOCK_CAP(8),  BLOCK_CAP(9),
    BLOCK_CAP(10), BLOCK_CAP(11), BLOCK_CAP(12), BLOCK_CAP(13),
    BLOCK_CAP(14), BLOCK_CAP(15), BLOCK_CAP(16),
    [BLOCK_CLASSES + PT_CACHED_TENSOR] = PT_ALLOC_CACHE_BIN_SLOTS,
    [BLOCK_CLASSES + PT_CACHED_STORAGE] = PT_ALLOC_CACHE_BIN_SLOTS,
};
#define BIN_BYTES(shift) ((size_t)BLOCK_CAP(shift) << (shift))
_Static_assert(BIN_BYTES(6) + BIN_BYTES(7) + BIN_BYTES(8) + BIN_BYTES(9) + BIN_BYTES(10) +
                       BIN_BYTES(11) + BIN_BYTES(12) + BIN_BYTES(13) + BIN_BYTES(14) +
                       BIN_BYTES(15) + BIN_BYTES(16) +
                       PT_ALLOC_CACHE_BIN_SLOTS * (sizeof(pt_tensor) + sizeof(pt_storage)) <=
                   PT_ALLOC_CACHE_THREAD_BYTES,
               "the bins of a thread stay within the thread's bound");

/* ---------------------------------------------------------------- thread states */
/* Counts and counters below are written only by the owning thread and read by others under
 * registry_lock: atomics for the readers' sake, updated with a relaxed load and store. */
typedef struct bin {
    _Atomic uint32_t count;
    uint32_t head; /* a ring; head moves only when the oldest block goes first */
    void *slot[PT_ALLOC_CACHE_BIN_SLOTS];
} bin;

typedef struct thread_state {
    _Atomic int64_t allocations, frees, credit; /* Note [CPU allocator counters] */
    uint64_t epoch;                             /* the peak_epoch the credit was drawn in */
    struct thread_state *prev, *next; /* the registry, under registry_lock */
    bin bins[CLASS_COUNT];
} thread_state;

/* initial-exec: the core is linked into a Python module that is dlopen'ed, where the default
 * model calls __tls_get_addr on every access; these few bytes fit the static TLS that glibc keeps
 * for modules loaded later. NULL: no state yet, or the thread has exited (tls_exited). */
static _Thread_local thread_state *tls_state __attribute__((tls_model("initial-exec")));
static _Thread_local bool tls_exited __attribute__((tls_model("initial-exec")));

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_state *registry; /* the live threads' states */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static bool setup_ok;
static _Atomic bool cache_on;

/* Note [CPU allocator counters]: the shared total and peak, and what exited threads and the
 * shared path counted. */
static _Atomic int64_t reserved, peak, shared_allocations, shared_frees;
static _Atomic uint64_t peak_epoch;

static inline int64_t load(_Atomic int64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

/* An update by the only writer: no read-modify-write needed. */
static inline void own_add(_Atomic int64_t *v, int64_t delta)
{
    atomic_store_explicit(v, load(v) + delta, memory_order_relaxed);
}

static size_t class_bytes(int c)
{
    return c < BLOCK_CLASSES ? (size_t)PT_ALLOC_CACHE_MIN_BLOCK << c
                             : object_sizes[c - BLOCK_CLASSES];
}

/* The class of a block of 0 < nbytes <= PT_ALLOC_CACHE_MAX_BLOCK: ceil(log2(nbytes)) - 6. */
static inline int block_class(int64_t nbytes)
{
    if (nbytes <= PT_ALLOC_CACHE_MIN_BLOCK) return 0;
    return 64 - __builtin_clzll((unsigned long long)(nbytes - 1)) - MIN_BLOCK_SHIFT;
}

/* What a block of nbytes is allocated as: its class's size when it may be cached (any later
 * request of the class may get it), else the large-block pool's class. */
static size_t block_bytes(int64_t nbytes)
{
    return nbytes <= PT_ALLOC_CACHE_MAX_BLOCK ? class_bytes(block_class(nbytes))
                                              : pt_large_block_bytes(nbytes);
}

static void block_release(void *p, size_t size)
{
    UNPOISON(p, size);
    free(p);
}

static inline uint32_t bin_count(bin *b)
{
    return atomic_load_explicit(&b->count, memory_order_relaxed);
}

static void bins_flush(thread_state *ts)
{
    for (int c = 0; c < CLASS_COUNT; c++) {
        bin *b = &ts->bins[c];
        for (uint32_t i = 0; i < bin_count(b); i++)
            block_release(b->slot[(b->head + i) & SLOT_MASK], class_bytes(c));
        b->head = 0;
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
    }
}

static void *bin_take(bin *b)
{
    uint32_t n = bin_count(b);
    if (n <= REUSE_DELAY) return NULL;
    uint32_t i;
    if (REUSE_DELAY > 0) {
        i = b->head;
        b->head = (b->head + 1) & SLOT_MASK;
    } else {
        i = (b->head + n - 1) & SLOT_MASK;
    }
    atomic_store_explicit(&b->count, n - 1, memory_order_relaxed);
    return b->slot[i];
}

/* false: the bin is full or caching is off; the caller frees. */
static bool bin_put(thread_state *ts, int c, void *p)
{
    bin *b = &ts->bins[c];
    uint32_t n = bin_count(b);
    if (n == bin_caps[c] || !atomic_load_explicit(&cache_on, memory_order_relaxed)) return false;
    POISON(p, class_bytes(c));
    b->slot[(b->head + n) & SLOT_MASK] = p;
    atomic_store_explicit(&b->count, n + 1, memory_order_relaxed);
    return true;
}

static void state_exit(void *arg);

static void fork_prepare(void) { pthread_mutex_lock(&registry_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&registry_lock); }
/* The child has one thread, the one that forked: a fresh mutex is the unlocked one. */
static void fork_child(void) { pthread_mutex_init(&registry_lock, NULL); }

/* Once, at the first thread state or switch query: the environment switch, the exit key, the fork
 * handlers. (At first use rather than in a pt_init phase, so that nothing depends on whether
 * pt_init ran before a thread's first allocation, and the switch is read once, before any block
 * is cached.) */
static void setup(void)
{
    const char *env = getenv("PYTENSOR_CPU_ALLOC_CACHE");
    atomic_store_explicit(&cache_on, !(env && strcmp(env, "0") == 0), memory_order_relaxed);
    setup_ok = pthread_key_create(&exit_key, state_exit) == 0 &&
               pthread_atfork(fork_prepare, fork_parent, fork_child) == 0;
}

/* NULL when the thread has exited or its state cannot be made: the caller takes the shared path. */
static thread_state *state_create(void)
{
    if (tls_exited) return NULL;
    pthread_once(&setup_once, setup);
    if (!setup_ok) return NULL;
    thread_state *ts = calloc(1, sizeof *ts);
    if (!ts) return NULL;
    if (pthread_setspecific(exit_key, ts) != 0) {
        free(ts);
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    ts->epoch = atomic_load_explicit(&peak_epoch, memory_order_relaxed);
    ts->next = registry;
    if (registry) registry->prev = ts;
    registry = ts;
    pthread_mutex_unlock(&registry_lock);
    tls_state = ts;
    return ts;
}

static inline thread_state *state_get(void)
{
    thread_state *ts = tls_state;
    return LIKELY(ts != NULL) ? ts : state_create();
}

/* The exit key's destructor (Note [CPU allocation cache]). */
static void state_exit(void *arg)
{
    thread_state *ts = arg;
    tls_state = NULL;
    tls_exited = true;
    bins_flush(ts);
    pthread_mutex_lock(&registry_lock);
    atomic_fetch_add_explicit(&shared_allocations, load(&ts->allocations), memory_order_relaxed);
    atomic_fetch_add_explicit(&shared_frees, load(&ts->frees), memory_order_relaxed);
    atomic_fetch_sub_explicit(&reserved, load(&ts->credit), memory_order_relaxed);
    if (ts->prev) ts->prev->next = ts->next;
    else registry = ts->next;
    if (ts->next) ts->next->prev = ts->prev;
    pthread_mutex_unlock(&registry_lock);
    free(ts);
}

/* ---------------------------------------------------------------- counters */
static void raise_peak(int64_t now)
{
    int64_t p = load(&peak);
    while (now > p && !atomic_compare_exchange_weak_explicit(&peak, &p, now, memory_order_relaxed,
                                                              memory_order_relaxed)) {
    }
}

/* The cold half of count_alloc: returns a stale credit, draws a new one (Note [CPU allocator
 * counters]); returns the thread's credit, at least nbytes. */
static __attribute__((noinline)) int64_t credit_draw(thread_state *ts, int64_t nbytes,
                                                     uint64_t epoch, int64_t credit)
{
    if (epoch != ts->epoch) {
        atomic_fetch_sub_explicit(&reserved, credit, memory_order_relaxed);
        credit = 0;
        ts->epoch = epoch;
    }
    if (credit < nbytes) {
        int64_t grant = nbytes - credit + CREDIT_CHUNK;
        raise_peak(atomic_fetch_add_explicit(&reserved, grant, memory_order_relaxed) + grant);
        credit += grant;
    }
    return credit;
}

static inline void count_alloc(thread_state *ts, int64_t nbytes)
{
    uint64_t epoch = atomic_load_explicit(&peak_epoch, memory_order_relaxed);
    int64_t credit = load(&ts->credit);
    if (UNLIKELY(epoch != ts->epoch || credit < nbytes))
        credit = credit_draw(ts, nbytes, epoch, credit);
    atomic_store_explicit(&ts->credit, credit - nbytes, memory_order_relaxed);
    own_add(&ts->allocations, 1);
}

static inline void count_free(thread_state *ts, int64_t nbytes)
{
    int64_t credit = load(&ts->credit) + nbytes;
    if (UNLIKELY(credit > 2 * CREDIT_CHUNK)) {
        atomic_fetch_sub_explicit(&reserved, credit - CREDIT_CHUNK, memory_order_relaxed);
        credit = CREDIT_CHUNK;
    }
    atomic_store_explicit(&ts->credit, credit, memory_order_relaxed);
    own_add(&ts->frees, 1);
}

static void shared_count_alloc(int64_t nbytes)
{
    raise_peak(atomic_fetch_add_explicit(&reserved, nbytes, memory_order_relaxed) + nbytes);
    atomic_fetch_add_explicit(&shared_allocations, 1, memory_order_relaxed);
}

static void shared_count_free(int64_t nbytes)
{
    atomic_fetch_sub_explicit(&reserved, nbytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&shared_frees, 1, memory_order_relaxed);
}

/* Sums the live threads' credits and counts (registry_lock held). */
static void registry_sum(int64_t *credits, int64_t *allocations, int64_t *frees)
{
    *credits = 0;
    *allocations = load(&shared_allocations);
    *frees = load(&shared_frees);
    for (thread_state *ts = registry; ts; ts = ts->next) {
        *credits += load(&ts->credit);
        *allocations += load(&ts->allocations);
        *frees += load(&ts->frees);
    }
}

void pt_cpu_stats_read(pt_memory_stats *out)
{
    int64_t credits, allocations, frees;
    pthread_mutex_lock(&registry_lock);
    registry_sum(&credits, &allocations, &frees);
    int64_t in_use = load(&reserved) - credits;
    int64_t p = load(&peak);
    pthread_mutex_unlock(&registry_lock);
    out->bytes_in_use = in_use;
    /* Only a read racing another thread's draw could see the peak below the bytes in use. */
    out->peak_bytes = p > in_use ? p : in_use;
    out->allocations = allocations;
    out->frees = frees;
}

void pt_cpu_stats_reset_peak(void)
{
    int64_t credits, allocations, frees;
    pthread_mutex_lock(&registry_lock);
    registry_sum(&credits, &allocations, &frees);
    atomic_store_explicit(&peak, load(&reserved) - credits, memory_order_relaxed);
    atomic_fetch_add_explicit(&peak_epoch, 1, memory_order_relaxed);
    pthread_mutex_unlock(&registry_lock);
}

/* ---------------------------------------------------------------- blocks */
/* Blocks above the largest class go through the large-block pool (large_cache.c). */
static int large_alloc(size_t size, void **out)
{
    void *p = pt_large_cache_take(size);
    if (p) {
        *out = p;
        return 0;
    }
    return pt_large_block_new(size, out);
}

/* A new block; when malloc is out of memory, what this thread holds idle may be what is missing. */
static int fresh_block(thread_state *ts, size_t size, void **out)
{
    int err = size > PT_ALLOC_CACHE_MAX_BLOCK ? large_alloc(size, out)
                                              : posix_memalign(out, ALIGNMENT, size);
    if (err == ENOMEM && ts) {
        bins_flush(ts);
        pt_large_cache_flush();
        err = fresh_block(NULL, size, out);
    }
    if (err != 0) *out = NULL;
    return err;
}

/* Under AddressSanitizer: a block handed out for nbytes has the rest of its class poisoned. */
static void block_hand_out(void *p, int64_t nbytes, size_t size)
{
    UNPOISON(p, (size_t)nbytes);
    POISON((char *)p + nbytes, size - (size_t)nbytes);
}

int pt_cpu_block_alloc(int64_t nbytes, void **out)
{
    thread_state *ts = state_get();
    size_t size = block_bytes(nbytes);
    void *p = NULL;
    if (ts && nbytes <= PT_ALLOC_CACHE_MAX_BLOCK) p = bin_take(&ts->bins[block_class(nbytes)]);
    if (!p) {
        int err = fresh_block(ts, size, &p);
        if (err != 0) return err;
    }
    block_hand_out(p, nbytes, size);
    if (ts) count_alloc(ts, nbytes);
    else shared_count_alloc(nbytes);
    *out = p;
    return 0;
}

void pt_cpu_block_free(void *ptr, int64_t nbytes)
{
    thread_state *ts = state_get();
    size_t size = block_bytes(nbytes);
    if (ts) count_free(ts, nbytes);
    else shared_count_free(nbytes);
    if (nbytes > PT_ALLOC_CACHE_MAX_BLOCK) {
        pt_large_cache_put(ptr, size);
        return;
    }
    if (!ts || !bin_put(ts, block_class(nbytes), ptr)) block_release(ptr, size);
}

/* ---------------------------------------------------------------- objects */
void *pt_cached_object_alloc(pt_cached_object kind)
{
    thread_state *ts = state_get();
    void *p = ts ? bin_take(&ts->bins[BLOCK_CLASSES + kind]) : NULL;
    if (p) {
        UNPOISON(p, object_sizes[kind]);
        return p;
    }
    return malloc(object_sizes[kind]);
}

void pt_cached_object_free(pt_cached_object kind, void *ptr)
{
    if (!ptr) return;
    thread_state *ts = state_get();
    if (!ts || !bin_put(ts, BLOCK_CLASSES + kind, ptr)) block_release(ptr, object_sizes[kind]);
}

/* ---------------------------------------------------------------- tests and debugging */
static void info_add(pt_alloc_cache_info *out, thread_state *ts)
{
    out->threads++;
    for (int c = 0; c < CLASS_COUNT; c++) {
        uint32_t n = bin_count(&ts->bins[c]);
        out->blocks += n;
        out->bytes += (int64_t)(n * class_bytes(c));
    }
}

void pt_alloc_cache_thread_info(pt_alloc_cache_info *out)
{
    memset(out, 0, sizeof *out);
    if (tls_state) info_add(out, tls_state);
}

void pt_alloc_cache_total_info(pt_alloc_cache_info *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&registry_lock);
    for (thread_state *ts = registry; ts; ts = ts->next) info_add(out, ts);
    pthread_mutex_unlock(&registry_lock);
}

void pt_alloc_cache_flush(void)
{
    if (tls_state) bins_flush(tls_state);
}

bool pt_alloc_cache_enabled(void)
{
    pthread_once(&setup_once, setup);
    return atomic_load_explicit(&cache_on, memory_order_relaxed);
}

void pt_alloc_cache_set_enabled(bool enabled)
{
    pthread_once(&setup_once, setup);
    atomic_store_explicit(&cache_on, enabled, memory_order_relaxed);
    if (!enabled) {
        pt_alloc_cache_flush();
        pt_large_cache_flush();
    }
}

int32_t pt_alloc_cache_reuse_delay(void) { return REUSE_DELAY; }
