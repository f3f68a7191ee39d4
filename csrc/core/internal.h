/* internal.h - what the C core's files share and the ABI does not show: the layouts of the
 * reference-counted objects, the error macro, the load-time registration macros and the vtables
 * that backends register (allocators, device guards, copy-bytes functions, generators).
 *
 * Nothing here is exported: every symbol declared here is hidden by -fvisibility=hidden, and the
 * Python side never sees these layouts.
 */
#ifndef PT_INTERNAL_H
#define PT_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pytensor.h"

#define PT_CAT_(a, b) a##b
#define PT_CAT(a, b) PT_CAT_(a, b)
#define PT_UNUSED(x) ((void)(x))

/* ---------------------------------------------------------------- errors */
/* Records a failure with the caller's file:line and returns the code, so that
 * `return PT_ERROR(PT_ERR_VALUE, "size: expected >= 0, got %lld", (long long)n);` reads as one
 * statement. printf-style. */
pt_status pt_error_setf(pt_status code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define PT_ERROR(code, ...) pt_error_setf((code), __FILE__, __LINE__, __VA_ARGS__)
/* The part of a __FILE__ path from the source tree's top ("csrc/core/x.c"). */
const char *pt_source_relative(const char *file);
/* Propagates a failure: the callee already recorded the message. */
#define PT_TRY(expr)                                                                               \
    do {                                                                                           \
        pt_status pt_try_status_ = (expr);                                                         \
        if (pt_try_status_ != PT_OK) return pt_try_status_;                                        \
    } while (0)

/* ---------------------------------------------------------------- load-time registration
 * Note [load-time records]
 * The C analog of C10_REGISTER_*: a static record plus a constructor that links it into one
 * global list. Constructors do nothing else (no allocation, no lookups), so the order in which the
 * loader runs them does not matter. pt_init() walks the list once, in a stated order, and fills
 * the registries; a duplicate key is reported there, naming both records' file:line. */
typedef struct pt_record {
    const char *registry;
    const char *key;
    const void *creator;
    const char *help;
    const char *file;
    int line;
    struct pt_record *next;
} pt_record;
void pt_record_link(pt_record *record);
/* The records linked so far, newest first (consumed by pt_init). */
pt_record *pt_record_list(void);

#define PT_REGISTER_RECORD_(id, REG, KEY, CREATOR, HELP)                                           \
    static pt_record PT_CAT(pt_record_, id) = {(REG),  (KEY),     (const void *)(CREATOR),         \
                                               (HELP), __FILE__, __LINE__, NULL};                 \
    __attribute__((constructor)) static void PT_CAT(pt_record_link_, id)(void)                    \
    {                                                                                              \
        pt_record_link(&PT_CAT(pt_record_, id));                                                   \
    }
/* PT_REGISTER("allocator", "cpu", &cpu_allocator, "64-byte aligned malloc with counters") */
#define PT_REGISTER(REG, KEY, CREATOR, HELP) PT_REGISTER_RECORD_(__COUNTER__, REG, KEY, CREATOR, HELP)
/* A registry is itself a record in the registry of registries, named "registry". */
#define PT_DEFINE_REGISTRY(NAME, HELP) PT_REGISTER("registry", NAME, NULL, HELP)

/* Called by pt_init: turns the linked records into registries. Registries first, then entries. */
pt_status pt_registry_load_records(int64_t *count);

/* ---------------------------------------------------------------- dtypes */
/* Per-dtype functions kept beside the ABI's pt_dtype_info. Kernels see only this table. */
/* Strided cast of n elements: dst[i * dst_stride] = (dst type) src[i * src_stride] (byte strides). */
typedef void (*pt_cast_fn)(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,
                           int64_t n);
/* Writes the scalar converted to the dtype into 'out' (itemsize bytes). */
typedef void (*pt_scalar_to_fn)(const pt_scalar *value, void *out);
/* Reads one element into a scalar of the dtype's kind. */
typedef void (*pt_scalar_from_fn)(const void *in, pt_scalar *out);
const pt_dtype_info *pt_dtype_info_of(int32_t id); /* NULL for unknown ids; no error recorded */
pt_cast_fn pt_dtype_cast_fn(int32_t src, int32_t dst); /* NULL when either is opaque */
pt_scalar_to_fn pt_dtype_scalar_to(int32_t id);
pt_scalar_from_fn pt_dtype_scalar_from(int32_t id);
/* Half-precision conversions (round to nearest even), shared by casts and kernels. */
float pt_half_to_float(uint16_t h);
uint16_t pt_float_to_half(float f);
float pt_bfloat16_to_float(uint16_t h);
uint16_t pt_float_to_bfloat16(float f);
/* The dtype ids' itemsizes, indexed by id (filled at load time and by pt_dtype_register). */
extern int32_t pt_dtype_itemsizes[PT_DTYPE_MAX];
static inline int32_t pt_dtype_itemsize(int32_t id) { return pt_dtype_itemsizes[id]; }
/* PT_ERR_RUNTIME when the scalar does not fit the dtype (torch's check on Python numbers). */
pt_status pt_dtype_scalar_check(int32_t id, const pt_scalar *value);
/* PT_ERR_VALUE naming `argname` when id is not a known dtype. */
pt_status pt_dtype_check(int32_t id, const char *argname);

/* ---------------------------------------------------------------- devices, guards, allocators */
typedef struct pt_device_guard_impl {
    int32_t device_type;
    pt_status (*device_count)(int32_t *out);
    pt_status (*current)(int32_t *out);
    pt_status (*set_current)(int32_t index);
    pt_status (*synchronize)(int32_t index);
} pt_device_guard_impl;

typedef struct pt_allocator_impl {
    int32_t device_type;
    /* nbytes > 0; writes NULL-free pointer or fails (PT_ERR_MEMORY with the size in the message). */
    pt_status (*alloc)(void *ctx, int32_t device_index, int64_t nbytes, void **out);
    void (*free)(void *ctx, int32_t device_index, void *ptr, int64_t nbytes);
    void (*stats)(void *ctx, pt_memory_stats *out);
    void (*reset_peak)(void *ctx);
    void (*empty_cache)(void *ctx); /* gives back what it holds for reuse; NULL: holds nothing */
    void *ctx;
} pt_allocator_impl;

typedef pt_status (*pt_copy_bytes_fn)(int64_t nbytes, const void *src, pt_device src_device,
                                      void *dst, pt_device dst_device);
typedef struct pt_copy_bytes_impl {
    int32_t src_type, dst_type;
    pt_copy_bytes_fn sync, async; /* async may be NULL: the sync one serves */
} pt_copy_bytes_impl;

/* Resolved at init from the registries, read on hot paths without lookups. NULL: none. */
extern const pt_device_guard_impl *pt_device_guards[PT_DEV_TYPE_COUNT];
extern const pt_allocator_impl *pt_allocators[PT_DEV_TYPE_COUNT];
extern const pt_copy_bytes_impl *pt_copy_bytes_table[PT_DEV_TYPE_COUNT][PT_DEV_TYPE_COUNT];
/* Called by pt_init after the registries are filled (and again after a backend registers). */
pt_status pt_device_resolve_tables(void);

/* ---------------------------------------------------------------- storage and tensors */
/* Note [dropping the last reference]
 * Storages and tensors are freed by whoever drops their count to 0. When the count already reads
 * 1, the caller holds the only reference, and no other thread can take one (a reference is only
 * ever copied from one held), so the object can go without the atomic decrement: a fresh result
 * released by its only owner, the common case, costs a load instead of a locked instruction (as
 * libstdc++'s shared_ptr does). The load acquires, as the decrement does, so that the writes of
 * owners that released earlier happen before the object is freed.
 * Returns true when the caller dropped the last reference and must free the object. */
static inline bool pt_refcount_drop(_Atomic int64_t *refcount)
{
    if (atomic_load_explicit(refcount, memory_order_acquire) == 1) return true;
    return atomic_fetch_sub_explicit(refcount, 1, memory_order_acq_rel) == 1;
}

struct pt_storage {
    _Atomic int64_t refcount;
    void *data;
    int64_t nbytes;
    int32_t dtype;
    pt_device device;
    bool resizable;
    bool writable;
    bool shared; /* mmap MAP_SHARED */
    /* Exactly one of: allocator (owned memory), deleter (external memory), mmap length. */
    const pt_allocator_impl *allocator;
    pt_deleter_fn deleter;
    void *deleter_ctx;
    int64_t mmap_length;
};

enum { PT_INLINE_DIMS = 6 };
struct pt_autograd_meta; /* csrc/autograd/autograd.h */
typedef struct pt_version pt_version;
struct pt_tensor {
    _Atomic int64_t refcount;
    pt_storage *storage; /* owned reference */
    int64_t offset;      /* elements */
    int64_t numel;
    int32_t ndim;
    int32_t dtype;
    int32_t layout;
    bool wrapped_number; /* Note [wrapped numbers] (pytensor.h) */
    bool is_view;        /* made by a view op from another tensor's storage (autograd checks it) */
    uint8_t view_creation; /* how a view was made: pt_view_creation (csrc/autograd/autograd.h) */
    bool is_inference;   /* made in inference mode, or a view of such a tensor (Note [inference mode]) */
    uint8_t math_bits;   /* PT_MATH_BIT_CONJ | PT_MATH_BIT_NEG: Note [math bits] (pytensor.h) */
    pt_device device;
    int64_t *sizes;   /* points into inline_dims or to a heap block of 2 * ndim */
    int64_t *strides; /* sizes + ndim */
    int64_t inline_dims[2 * PT_INLINE_DIMS];
    struct pt_autograd_meta *autograd; /* NULL: takes no part in autograd (Note [autograd metadata]) */
    _Atomic(pt_version *) version;     /* shared with views; NULL reads as 0 (Note [version counters]) */
    struct pt_tensor *view_base; /* a view's root base, owned; else NULL (Note [view tracking]) */
    void *pyobj; /* the Python side's, never read by the core (Note [one Python object per tensor]) */
};

/* Metadata helpers shared by tensor.c, view.c and the kernels. */
/* Computes numel; PT_ERR_VALUE for a negative size ("size", naming the dim) and PT_ERR_RUNTIME
 * on int64 overflow. */
pt_status pt_shape_check(int32_t ndim, const int64_t *sizes, int64_t *numel);
void pt_contiguous_strides(int32_t ndim, const int64_t *sizes, int64_t *strides);
/* Whether reshape(t, sizes) is a view of t (else it copies); the errors of an invalid shape. */
pt_status pt_tensor_reshape_is_view(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                                    bool *is_view);
/* Normalizes a possibly negative dim against ndim (a 0-d tensor accepts -1 and 0). */
pt_status pt_wrap_dim(int64_t dim, int32_t ndim, int32_t *out);
/* torch's infer_size: the broadcast of sizes a (na dims) and b (nb dims), aligned to the right,
 * into shape (max(na, nb) dims); torch's RuntimeError naming the first dim that disagrees. */
pt_status pt_broadcast_sizes(int32_t na, const int64_t *a, int32_t nb, const int64_t *b,
                             int32_t *nd, int64_t *shape);
/* Allocates a tensor object (not its storage) with the given metadata; takes a new reference to
 * storage. */
pt_status pt_tensor_make(pt_storage *storage, int32_t dtype, int32_t ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset, pt_tensor **out);
/* A view of t's storage read as `dtype` (sizes, strides, offset in its elements), sharing t's
 * version counter: the complex views (view_as_real, view_as_complex). */
pt_status pt_tensor_view_dtype(const pt_tensor *t, int32_t dtype, int32_t ndim,
                               const int64_t *sizes, const int64_t *strides, int64_t offset,
                               pt_tensor **out);
/* dst takes src's storage, dtype, sizes, strides and offset (Tensor.data = src); its autograd
 * metadata and version counter stay. */
pt_status pt_tensor_shallow_copy_from(pt_tensor *dst, const pt_tensor *src);
/* torch's is_non_overlapping_and_dense: some order of the dims is contiguous (dims of size 1 do
 * not constrain it; a tensor without elements is). Negative strides are not dense. */
bool pt_strides_non_overlapping_and_dense(int32_t ndim, const int64_t *sizes,
                                          const int64_t *strides);
/* Writes "[2, 3]" into buf for error messages (cut with "..." when longer than cap >= 8);
 * returns buf. */
const char *pt_format_ints(char *buf, size_t cap, int32_t n, const int64_t *v);

/* ---------------------------------------------------------------- strided loops
 * The kernels' inner-loop signature (NumPy's): data pointers, byte strides, element count. */
typedef void (*pt_loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);
enum { PT_LOOP_MAX_OPERANDS = 16 };
/* Runs `loop` over every element of `ntensors` (1..PT_LOOP_MAX_OPERANDS) tensors of one shape (sizes), each with its own data
 * pointer and byte strides (strides[k * ndim + d]). Dimensions are coalesced first. */
void pt_loop_nd(int32_t ntensors, char **data, const int64_t *byte_strides, int32_t ndim,
                const int64_t *sizes, pt_loop_fn loop, void *ctx);

/* ---------------------------------------------------------------- generators */
struct pt_generator {
    _Atomic int64_t refcount;
    pt_device device;
    uint64_t seed;
    _Atomic uint64_t offset; /* in Philox counter blocks */
};
/* Reserves `blocks` counter blocks and returns the first one (thread-safe). */
uint64_t pt_generator_reserve(pt_generator *g, uint64_t blocks);

/* ---------------------------------------------------------------- init bookkeeping */
/* Adds one line to the init report (phase name and detail must be static strings). */
void pt_init_report_add(const char *name, double microseconds, int64_t count, const char *detail);
/* Monotonic clock in microseconds. */
double pt_now_us(void);
/* Sets a config entry ("blis" -> "yes", ...); value copied. */
pt_status pt_config_set(const char *key, const char *value);

/* ---------------------------------------------------------------- dispatcher internals
 * What the generated unboxed entry points (build/generated/pt_ops.c, from tools/gen_ops.py) and
 * the kernels need from dispatch.c beyond the ABI. */
typedef struct pt_kernel {
    pt_boxed_fn boxed;   /* never NULL: a missing slot's kernel raises the "could not run" error */
    void *unboxed;       /* NULL when only the boxed form exists (Python kernels, fallbacks) */
    void *ctx;
    const char *debug;
} pt_kernel;
/* The key bits of a tensor: its device's backend key, and the matching autograd key when it or
 * the base it is a view of has autograd metadata (Note [autograd metadata] and Note [view
 * tracking] in csrc/autograd/autograd.h): an in-place write into a view of a tracked base, or a
 * read of it after the base changed, must reach the autograd layer. */
static inline uint64_t pt_tensor_keys(const pt_tensor *t)
{
    if (!t) return 0;
    uint64_t k = (uint64_t)1 << t->device.type;
    const uint64_t bits = (uint64_t)t->math_bits << PT_KEY_CONJUGATE;
    return t->autograd || (t->view_base && t->view_base->autograd)
               ? k | (k << PT_KEY_AUTOGRAD_CPU) | bits
               : k | bits;
}
/* Increments t's version counter (csrc/autograd/variable.c; Note [version counters] in
 * csrc/autograd/autograd.h). */
pt_status pt_version_bump_tensor(pt_tensor *t);
/* Nonzero while a call that bumps the versions of what it writes runs: the calls its kernel
 * makes in turn leave the versions to it (dispatch.c). */
extern _Thread_local int32_t pt_version_guard;
/* Whether this thread is in inference mode: tensors made now are inference tensors (Note
 * [inference mode] in csrc/autograd/autograd.h; set in csrc/autograd/variable.c). */
extern _Thread_local bool pt_inference_mode_on;
/* (tensor_keys | tls included) & ~tls excluded & the op's non-fallthrough mask. */
uint64_t pt_dispatch_compute_keyset(const pt_op *op, uint64_t tensor_keys);
/* The slot for the highest key in keyset; writes the key. Never NULL: a missing slot is a kernel
 * whose boxed function raises the "could not run" error. Lock-free: slots hold immutable
 * kernel records that are never freed while the process lives (Note [lock-free slots]). */
const pt_kernel *pt_dispatch_slot(const pt_op *op, uint64_t keyset, int32_t *key);
/* Set by the generated registration from the declarations' `variants:` (default: function). */
void pt_op_set_variants(pt_op *op, int32_t variants);
/* "could not run 'aten::add.Tensor' with arguments from the 'CUDA' backend ..." for key. */
pt_status pt_dispatch_missing(const pt_op *op, int32_t key);

/* ---------------------------------------------------------------- init hooks
 * pt_init() runs these in this order, each timed as one phase of the report; `count` is what the
 * phase reports (records linked, dtypes, ...) and `detail` an optional static string. */
pt_status pt_cpu_capability_init(int64_t *count, const char **detail); /* cpu_capability.c */
pt_status pt_cpu_stubs_init(int64_t *count, const char **detail);      /* kernels/cpu_stub.c */
pt_status pt_dtype_init(int64_t *count, const char **detail);          /* dtype.c */
pt_status pt_device_init(int64_t *count, const char **detail);         /* device.c */
pt_status pt_blas_init(int64_t *count, const char **detail);           /* kernels/blas.c */
pt_status pt_onednn_init(int64_t *count, const char **detail);  /* kernels/nn/onednn.c */
pt_status pt_lapack_init(int64_t *count, const char **detail);  /* kernels/lapack.c */
pt_status pt_generator_init(int64_t *count, const char **detail);      /* generator.c */
/* generated (tools/gen_ops.py): parse and def every declared schema, register its kernels. */
pt_status pt_ops_init(int64_t *count, const char **detail);
/* csrc/autograd/variable.c: the autograd fallback at the autograd keys; counts the formulas. */
pt_status pt_autograd_init(int64_t *count, const char **detail);
/* backend.c: dlopen libdir/libpytensor_cuda.so when present and let it register itself. */
pt_status pt_backend_init(const char *libdir, int64_t *count, const char **detail);

#endif
