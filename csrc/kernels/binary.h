/* binary.h - what the binary arithmetic kernels' front (binary.c: argument checks, promotion,
 * shapes, outputs) hands to their loops (binary_loops.c): one plan per call. Private to the two
 * files. */
#ifndef PT_KERNELS_BINARY_H
#define PT_KERNELS_BINARY_H

#include "internal.h"

enum {
    PT_BINARY_ADD = 0,       /* a + b */
    PT_BINARY_SUB = 1,       /* a - b */
    PT_BINARY_ADD_ALPHA = 2, /* a + alpha * b (sub with alpha != 1 is add with -alpha, as torch) */
    PT_BINARY_MUL = 3,       /* a * b */
    PT_BINARY_OP_COUNT = 4
};

/* One element of the compute dtype (alpha, a pre-converted scalar operand); aligned for all. */
typedef union pt_binary_value {
    uint64_t u;
    double d[2];
    unsigned char bytes[16];
} pt_binary_value;

/* Operand 0 is the output, 1 and 2 the inputs. The shape is in iteration order (slowest first),
 * already broadcast: every operand has a byte stride per dimension (0 where it is broadcast). */
typedef struct pt_binary_plan {
    int32_t op;     /* PT_BINARY_* */
    int32_t common; /* torch's common dtype: inputs are cast to it, the result is computed in it */
    int32_t opmath; /* the dtype the loops run in: float32 for float16/bfloat16, else common */
    int32_t ndim;
    int64_t numel;
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[3 * PT_MAX_DIMS]; /* strides[k * ndim + d], bytes */
    char *data[3];
    int32_t dtypes[3];
    pt_binary_value alpha; /* in opmath; read by PT_BINARY_ADD_ALPHA only */
    /* Operand 2, when it is one element broadcast over everything, goes straight to opmath
     * without rounding to common first: what torch's mul does on float16/bfloat16, reading a
     * scalar `other`'s original value (add and sub round it to common like any input). */
    bool other_direct;
} pt_binary_plan;

/* Work below 2 x this many elements stays on the calling thread: starting a parallel region
 * costs a few microseconds, what ~32K additions take on one core. */
enum { PT_BINARY_GRAIN = 32768 };

/* The dtype the loops compute `common` in. */
static inline int32_t pt_binary_opmath(int32_t common)
{
    return common == PT_FLOAT16 || common == PT_BFLOAT16 ? PT_FLOAT32 : common;
}

/* Runs the plan on CPU memory (binary_loops.c). Cannot fail: every check happened before. */
void pt_binary_run(const pt_binary_plan *plan);

/* The loop for (op, opmath dtype) over operands that all have the opmath dtype and are aligned
 * (the same-shape contiguous fast path calls it directly). ctx points to the alpha value. */
pt_loop_fn pt_binary_loop(int32_t op, int32_t opmath);

/* The cast the loops' staging uses for src -> dst: the dtype table's, or a vectorizable one for
 * float16/bfloat16 <-> float32 (Note [half casts in the loops]); exposed for tests. */
pt_cast_fn pt_binary_cast_fn(int32_t src, int32_t dst);

#endif
