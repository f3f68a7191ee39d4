/* alloc_cache.h - the CPU allocator's per-thread state (alloc_cache.c): cached small data blocks
 * and tensor/storage structs, and the thread's share of the allocator counters. Seen by the
 * allocator, storage.c, tensor.c and the C tests; Note [CPU allocation cache] has the design.
 */
#ifndef PT_ALLOC_CACHE_H
#define PT_ALLOC_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "pytensor.h"

/* AddressSanitizer's view of cached blocks (Note [CPU allocation cache], sanitizers): poisoned
 * while they wait, addressable again when handed out. */
#if defined(__SANITIZE_ADDRESS__)
#define PT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_ASAN 1
#endif
#endif
#ifdef PT_ASAN
#include <sanitizer/asan_interface.h>
#define PT_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define PT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define PT_POISON(p, n) ((void)(p), (void)(n))
#define PT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The bounds of Note [CPU allocation cache], where each one's reason is given. */
enum {
    PT_ALLOC_CACHE_MIN_BLOCK = 64,         /* the smallest size class, one cache line */
    PT_ALLOC_CACHE_MAX_BLOCK = 64 << 10,   /* the largest cached size class */
    PT_ALLOC_CACHE_BIN_SLOTS = 64,         /* blocks per bin (size class or struct) and thread */
    PT_ALLOC_CACHE_BIN_BYTES = 128 << 10,  /* bytes per bin of a size class and thread */
    PT_ALLOC_CACHE_THREAD_BYTES = 1 << 20, /* what the bins of one thread can hold in all */
    PT_LARGE_CACHE_MIN_BLOCK = 64 << 10,   /* blocks above it go to the large-block pool */
    PT_LARGE_CACHE_SLOTS = 64,             /* the most blocks that pool holds */
};

/* The structs with free lists of their own. */
typedef enum pt_cached_object {
    PT_CACHED_TENSOR,
    PT_CACHED_STORAGE,
    PT_CACHED_OBJECT_COUNT
} pt_cached_object;

/* A 64-byte aligned block of nbytes (> 0) of tensor data, counted in the CPU allocator's stats.
 * Returns 0 or an errno value (ENOMEM); the caller words the error. */
int pt_cpu_block_alloc(int64_t nbytes, void **out);
/* Gives back a block from pt_cpu_block_alloc; nbytes must be the size it was allocated with (it
 * picks the size class, as in C++ sized deallocation). Any thread may free any thread's block. */
void pt_cpu_block_free(void *ptr, int64_t nbytes);
/* The CPU allocator's counters: bytes_in_use, allocations and frees are exact whenever no CPU
 * allocation is in flight on another thread; peak_bytes is never below a real peak and may be
 * above it by a bounded amount (Note [CPU allocator counters]). */
void pt_cpu_stats_read(pt_memory_stats *out);
void pt_cpu_stats_reset_peak(void);

/* An uninitialized struct of the kind's size (NULL when out of memory); every field must be set. */
void *pt_cached_object_alloc(pt_cached_object kind);
void pt_cached_object_free(pt_cached_object kind, void *ptr);

/* ---------------------------------------------------------------- for tests and debugging */
/* Blocks and objects held in caches: the calling thread's, or every live thread's. */
typedef struct pt_alloc_cache_info {
    int64_t threads; /* threads with a cache (for the calling thread: 0 before it allocates) */
    int64_t blocks;  /* cached data blocks and structs */
    int64_t bytes;   /* their sizes as cached (size classes, struct sizes) */
} pt_alloc_cache_info;
void pt_alloc_cache_thread_info(pt_alloc_cache_info *out);
void pt_alloc_cache_total_info(pt_alloc_cache_info *out);
/* Returns the calling thread's cached blocks and objects to malloc. */
void pt_alloc_cache_flush(void);
/* ---------------------------------------------------------------- the large-block pool */
/* large_cache.c, Note [CPU large-block cache]: blocks above PT_ALLOC_CACHE_MAX_BLOCK. */
/* What a block of nbytes is allocated as: its size class from PT_LARGE_CACHE_MIN_BLOCK up, else
 * exactly nbytes. */
size_t pt_large_block_bytes(int64_t nbytes);
/* A new block of size bytes (64-byte aligned; 2 MiB aligned and advised for huge pages from
 * 4 MiB). Returns 0 or an errno value. */
int pt_large_block_new(size_t size, void **out);
/* A pooled block of exactly size bytes, or NULL. */
void *pt_large_cache_take(size_t size);
/* Keeps a block of size bytes for reuse, or frees it (small, pool off, or larger than the bound). */
void pt_large_cache_put(void *p, size_t size);
/* Frees every pooled block. */
void pt_large_cache_flush(void);
/* The pool's blocks and bytes (threads is 0). */
void pt_large_cache_info(pt_alloc_cache_info *out);
/* The pool's byte bound (0: off). */
size_t pt_large_cache_cap(void);

/* Whether caching is on: PYTENSOR_CPU_ALLOC_CACHE, read once at first use (0 turns it off). */
bool pt_alloc_cache_enabled(void);
/* Turns caching on or off for every thread from now on (the calling thread's cache is flushed
 * when turned off; other threads' empty theirs as they exit). */
void pt_alloc_cache_set_enabled(bool enabled);
/* How many same-class frees a cached block waits before reuse: 0, or more under AddressSanitizer
 * (Note [CPU allocation cache], sanitizers). */
int32_t pt_alloc_cache_reuse_delay(void);

#endif
