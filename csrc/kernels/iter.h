/* iter.h - the elementwise iterator (TensorIterator's analog), the thread controls and the
 * helpers that kernel fronts share.
 *
 * An elementwise kernel fills a pt_iter with its operands (outputs first; a NULL output is
 * allocated) and flags, calls pt_iter_build, which does everything torch's TensorIterator does
 * before an element is touched (operand checks, overlap rules for written tensors, broadcasting,
 * the common dtype, output allocation or checking, the iteration order), checks what only it
 * knows (dtype support), sets the loop's dtypes when they differ from the defaults, and calls
 * pt_iter_run with an inner loop of NumPy's form. pt_iter_run casts operands whose dtype is not
 * the loop's in blocks on the stack, converts one-element inputs once, coalesces dimensions and
 * splits large work across OpenMP threads (iter_run.c). pt_iter_finish hands back output 0.
 *
 *     pt_iter it;
 *     pt_iter_init(&it, "atan2", PT_ITER_PROMOTE | PT_ITER_INT_TO_FLOAT);
 *     pt_iter_add_output(&it, out_arg);          // NULL: allocate
 *     pt_iter_add_input(&it, self);
 *     pt_iter_add_input(&it, other);
 *     PT_TRY(pt_iter_build(&it));
 *     pt_iter_run(&it, loop_for(it.loop_dtype[1]), NULL);
 *     return pt_iter_finish(&it, out);
 *
 * After a successful build, every path must end in pt_iter_finish or pt_iter_cleanup (both release
 * what the build allocated).
 */
#ifndef PT_KERNELS_ITER_H
#define PT_KERNELS_ITER_H

#include "internal.h"

enum { PT_ITER_MAX_OPERANDS = 8 };

enum {
    /* The common dtype is torch.result_type over the inputs (wrapped numbers included); without
     * it the caller sets it.common before build. */
    PT_ITER_PROMOTE = 1 << 0,
    /* An integral or bool common dtype becomes the default float dtype (true division, sqrt, ...). */
    PT_ITER_INT_TO_FLOAT = 1 << 1,
    /* Output 0 is `self` written in place: its shape must be the broadcast shape. */
    PT_ITER_INPLACE = 1 << 2,
    /* Given outputs (out=) need not be able to hold the common dtype (a loop that writes another
     * dtype itself, e.g. comparisons whose out= may be any dtype): skips the can_cast check. */
    PT_ITER_ANY_OUTPUT_DTYPE = 1 << 3,
    /* Inputs must already share a dtype (no promotion): torch's message otherwise. */
    PT_ITER_SAME_INPUT_DTYPES = 1 << 4,
};

typedef struct pt_iter {
    /* ---- set by the caller (pt_iter_init and pt_iter_add_*) */
    const char *name;  /* the operator, for messages */
    int32_t flags;
    int32_t noutputs, ninputs;
    pt_tensor *ops[PT_ITER_MAX_OPERANDS]; /* borrowed; outputs first */
    const char *arg_names[PT_ITER_MAX_OPERANDS];
    int32_t common;    /* without PT_ITER_PROMOTE: the computation's dtype */
    int32_t out_dtype; /* dtype of allocated outputs; -1: the common dtype */
    /* ---- set by pt_iter_build */
    int32_t device_type; /* PT_DEV_CPU or PT_DEV_META */
    int32_t ndim;
    int64_t shape[PT_MAX_DIMS];
    int64_t numel;
    /* The dtype the inner loop reads (inputs) or writes (outputs) per operand. Defaults: inputs
     * read the common dtype's compute type (float32 for float16/bfloat16), outputs write the
     * compute type of their logical dtype (out_dtype or common). A caller may change them after
     * build; pt_iter_run casts every operand whose own dtype differs. */
    int32_t loop_dtype[PT_ITER_MAX_OPERANDS];
    /* An input is cast to its mid dtype before its loop dtype (the common dtype: torch rounds an
     * input to the common dtype before widening it), an output's loop value is rounded to its mid
     * dtype before it is cast to the output's own (its logical dtype). -1: no intermediate. */
    int32_t mid_dtype[PT_ITER_MAX_OPERANDS];
    bool owned[PT_ITER_MAX_OPERANDS]; /* ops[k] is a reference the iterator holds */
    /* The plan: the shape in iteration order, slowest first, and each operand's byte strides over
     * it (0 where broadcast). */
    int32_t plan_ndim;
    int64_t plan_sizes[PT_MAX_DIMS];
    int64_t plan_strides[PT_ITER_MAX_OPERANDS][PT_MAX_DIMS];
    char *data[PT_ITER_MAX_OPERANDS];
} pt_iter;

/* The compute dtype of a dtype: float32 for float16 and bfloat16, else itself. */
static inline int32_t pt_opmath_dtype(int32_t dtype)
{
    return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16 ? PT_FLOAT32 : dtype;
}

void pt_iter_init(pt_iter *it, const char *name, int32_t flags);
/* Adds an output (NULL: allocated by build) or an input; arg names appear in messages ("out",
 * "self", "other"). Outputs must all be added before the first input. */
void pt_iter_add_output(pt_iter *it, pt_tensor *t, const char *arg);
void pt_iter_add_input(pt_iter *it, const pt_tensor *t, const char *arg);

pt_status pt_iter_build(pt_iter *it);
/* Runs `loop` over every element (CPU; nothing for meta tensors or no elements). Cannot fail. The
 * loop gets pointers and byte strides for the operands in order, each in its loop dtype, aligned
 * for it. */
void pt_iter_run(pt_iter *it, pt_loop_fn loop, void *ctx);
/* *out = output 0 (a new reference) and releases the rest. */
pt_status pt_iter_finish(pt_iter *it, pt_tensor **out);
/* Output k as a new reference (before finish/cleanup). */
pt_tensor *pt_iter_output(pt_iter *it, int32_t k);
void pt_iter_cleanup(pt_iter *it);

/* The cast the driver stages with for src -> dst: the dtype table's, or a vectorizable one for
 * float16/bfloat16 <-> float32 (Note [half conversions] in half.h). */
pt_cast_fn pt_iter_cast_fn(int32_t src, int32_t dst);

/* "No loop-carried dependence" for contiguous loops that may run in place (Note [aliasing in the
 * loops] in iter_run.c). */
#if defined(__clang__)
#define PT_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define PT_IVDEP _Pragma("GCC ivdep")
#else
#define PT_IVDEP
#endif

/* ---------------------------------------------------------------- helpers for kernel fronts */

/* A strided CPU or meta tensor with an arithmetic dtype; the message names op and argument. */
pt_status pt_iter_check_operand(const pt_tensor *t, const char *op, const char *arg);
/* torch's overlap rules for a tensor about to be written: no element written twice, no partial
 * overlap with `input` (NULL: only the first rule). */
pt_status pt_iter_check_write(const pt_tensor *target, const pt_tensor *input);
/* torch's assert_no_overlap: target and input share no element, fully or partly (for kernels
 * that read an input while they write the output, as take and masked_select do). */
pt_status pt_iter_check_no_overlap(const pt_tensor *target, const pt_tensor *input);
/* torch.result_type over n tensors (Note [wrapped numbers] in pytensor.h): dimensioned tensors
 * decide within their category, 0-d tensors only raise the category, wrapped numbers only their
 * category with the default dtypes. PT_ERR_TYPE for opaque dtypes. */
pt_status pt_result_type(int32_t n, pt_tensor *const *tensors, int32_t *out);
/* torch's names in messages: "Float", "Long". */
const char *pt_iter_type_name(int32_t dtype);

static inline bool pt_is_complex(int32_t id) { return id == PT_COMPLEX64 || id == PT_COMPLEX128; }
static inline bool pt_is_floating(int32_t id)
{
    return id == PT_FLOAT16 || id == PT_BFLOAT16 || id == PT_FLOAT32 || id == PT_FLOAT64;
}
static inline bool pt_is_integral(int32_t id, bool include_bool)
{
    return (id >= PT_UINT8 && id <= PT_INT64) || (include_bool && id == PT_BOOL);
}

/* ---------------------------------------------------------------- threads */

/* Note [elementwise grain]
 * Work below this many elements per thread stays on one thread. A parallel region costs a few
 * microseconds when the pool's threads are spinning and idle cores wait, but 10-50 us to wake a
 * sleeping thread, and milliseconds when another process holds the core the partner needs (the
 * region's end waits for it to be scheduled). torch's 32K grain split `w -= lr * g` on a 1000 x 100
 * weight (100K float32, ~20 us on one thread): on the shared 2-core machine that pair of ops took
 * 2.3-2.8 ms on two threads against 0.12 ms on one. 64K elements (256 KiB of float32 per operand
 * and thread, 15-30 us of a memory-bound op) keeps a training step's mid-size updates on the
 * calling thread and still splits work where two threads save more than a region can cost. */
enum { PT_GRAIN = 65536 };

/* fn(begin, end, ctx) over [0, n) in contiguous chunks, one per thread, when n >= 2 * grain and
 * more than one thread is allowed; else one call on this thread. */
void pt_parallel_for(int64_t n, int64_t grain, void (*fn)(int64_t begin, int64_t end, void *ctx),
                     void *ctx);

#endif
