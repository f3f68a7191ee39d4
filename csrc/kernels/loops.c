/* loops.c - the strided n-d loop under the copy, fill and factory kernels: it turns "apply this
 * inner loop to every element of these equally shaped strided operands" into as few inner-loop
 * calls as the layouts allow.
 *
 * First the shape is simplified, innermost dimension first: size-1 dimensions are dropped (their
 * stride never moves a pointer), and a dimension is merged into the one inside it when every
 * operand steps over it by exactly (inner stride x inner size) bytes, i.e. the two dimensions
 * are one run of memory in all operands (TensorIterator's coalesce_dimensions). A contiguous
 * tensor of any rank becomes one dimension, so the kernel gets one call over all of it. Then the
 * outer dimensions are walked with an odometer of counters, advancing each operand's pointer by its
 * stride and rewinding it when a counter wraps, and the kernel is called once per inner row.
 * Elements are visited in row-major order of the given shape; dimensions are not reordered, so
 * kernels that care about order (random fills) see the logical order.
 */
#include "internal.h"

/* Kernels take a handful of operands (copy: 2, binary ops: 3); the bound keeps the per-call state
 * on the stack. */

void pt_loop_nd(int32_t ntensors, char **data, const int64_t *byte_strides, int32_t ndim,
                const int64_t *sizes, pt_loop_fn loop, void *ctx)
{
    if (ntensors < 1 || ntensors > PT_LOOP_MAX_OPERANDS || ndim < 0 || ndim > PT_MAX_DIMS) return;
    for (int32_t d = 0; d < ndim; d++)
        if (sizes[d] == 0) return;

    /* Coalesced shape, innermost first: shape[0] is the inner loop. */
    int64_t shape[PT_MAX_DIMS];
    int64_t strides[PT_MAX_DIMS][PT_LOOP_MAX_OPERANDS];
    int32_t n = 0;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        if (sizes[d] == 1) continue;
        bool merge = n > 0;
        for (int32_t k = 0; merge && k < ntensors; k++)
            merge = byte_strides[k * ndim + d] == strides[n - 1][k] * shape[n - 1];
        if (merge) {
            shape[n - 1] *= sizes[d];
            continue;
        }
        shape[n] = sizes[d];
        for (int32_t k = 0; k < ntensors; k++) strides[n][k] = byte_strides[k * ndim + d];
        n++;
    }

    char *ptrs[PT_LOOP_MAX_OPERANDS], *call[PT_LOOP_MAX_OPERANDS];
    for (int32_t k = 0; k < ntensors; k++) ptrs[k] = data[k];
    if (n == 0) { /* 0-d, or every size is 1: one element */
        static const int64_t zero[PT_LOOP_MAX_OPERANDS];
        for (int32_t k = 0; k < ntensors; k++) call[k] = ptrs[k];
        loop(call, zero, 1, ctx);
        return;
    }

    int64_t counter[PT_MAX_DIMS] = {0};
    for (;;) {
        /* A fresh copy per call: a kernel that advances its pointers cannot move ours. */
        for (int32_t k = 0; k < ntensors; k++) call[k] = ptrs[k];
        loop(call, strides[0], shape[0], ctx);
        int32_t d = 1;
        for (; d < n; d++) {
            if (++counter[d] < shape[d]) {
                for (int32_t k = 0; k < ntensors; k++) ptrs[k] += strides[d][k];
                break;
            }
            counter[d] = 0;
            for (int32_t k = 0; k < ntensors; k++) ptrs[k] -= strides[d][k] * (shape[d] - 1);
        }
        if (d >= n) return;
    }
}
