/* sort_internal.h - what the unique family (unique.c) takes from the sorting kernels (sort.c):
 * the sortable keys of Note [sortable keys] and the stable radix sort over them, with the scratch
 * buffers it runs in. Hidden like the rest of the core.
 */
#ifndef PT_SORT_INTERNAL_H
#define PT_SORT_INTERNAL_H

#include "internal.h"

/* The key width in bytes of a dtype: its itemsize; 0 for complex and non-builtin dtypes, which
 * have no order. */
int pt_sort_key_width(int32_t dtype);
/* The key with every bit of `width` bytes set: NaN's key, and the flip of descending order. */
uint64_t pt_sort_key_mask(int width);
/* The keys of n elements of `dtype` at src (byte stride `stride`), each xor'ed with flip. */
void pt_sort_encode(int32_t dtype, const char *src, int64_t stride, int64_t n, uint64_t flip,
                    uint64_t *key);

/* One thread's buffers for a row of n elements: keys and positions, each twice (a radix pass
 * reads one and writes the other), and the byte histograms. */
typedef struct pt_sort_scratch {
    uint64_t *key, *key2;
    int64_t *idx, *idx2;
    int64_t (*counts)[256];
} pt_sort_scratch;

/* PT_ERR_MEMORY, with nothing held, when a buffer cannot be had. */
pt_status pt_sort_scratch_init(pt_sort_scratch *s, int64_t n);
void pt_sort_scratch_free(pt_sort_scratch *s);
/* Sorts s->key[0..n) stably, carrying s->idx; the result is left in s->key / s->idx. */
void pt_sort_keys(pt_sort_scratch *s, int64_t n, int width);

#endif
