/* pytensor.h - the flat ABI of pytensor's C core.
 *
 * This is the one header that both the C unit tests and the Python side read: setup.py hands it to
 * cffi's cdef after deleting the preprocessor lines and the PT_API token, so everything between
 * those lines must stay plain C declarations that cffi understands (no macros in declarations, no
 * inline functions, enums with explicit values).
 *
 * Conventions (see DESIGN.md, "The flat ABI"):
 *   - Functions that can fail return pt_status (PT_OK == 0) and write results through
 *     out-parameters. On failure pt_error_message() holds a thread-local message and
 *     pt_error_location() the C file:line that raised it.
 *   - Queries on a live object that cannot fail (sizes, dtype, device, ...) return their value
 *     directly: they are on the Python attribute path, where an out-parameter would cost a cffi
 *     allocation per call. Passing NULL to them is a programming error.
 *   - Objects are opaque and reference-counted with atomic counters. A function that hands out an
 *     object through `**out` hands out a NEW reference that the caller owns and must release.
 *     Functions that take an object argument do NOT take ownership of it unless they say so.
 *     Pointers returned by the direct queries are borrowed: valid while the object lives.
 */
#ifndef PYTENSOR_H
#define PYTENSOR_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#ifndef PT_API
#define PT_API __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------- errors (csrc/core/error.c) */
typedef int32_t pt_status;
enum {
    PT_OK = 0,
    PT_ERR_VALUE = 1,           /* ValueError */
    PT_ERR_TYPE = 2,            /* TypeError */
    PT_ERR_INDEX = 3,           /* IndexError */
    PT_ERR_MEMORY = 4,          /* MemoryError */
    PT_ERR_NOT_IMPLEMENTED = 5, /* NotImplementedError */
    PT_ERR_RUNTIME = 6          /* RuntimeError */
};
/* The message of the last failure on this thread ("" when none). Borrowed, valid until the next
 * failure on this thread. */
PT_API const char *pt_error_message(void);
/* The status code of the last failure on this thread (PT_OK when none or after clear). */
PT_API pt_status pt_error_code(void);
/* Where the last failure was raised: a path relative to the source tree ("csrc/core/tensor.c"). */
PT_API const char *pt_error_file(void);
PT_API int32_t pt_error_line(void);
PT_API void pt_error_clear(void);
/* Records a failure (used by backends and tests; the core uses the PT_ERROR macro). Returns code. */
PT_API pt_status pt_error_raise(pt_status code, const char *file, int32_t line, const char *message);

/* ---------------------------------------------------------------- registries (csrc/core/registry.c) */
typedef struct pt_registry_entry_info {
    const char *registry;
    const char *key;
    const char *help;
    const char *file;
    int32_t line;
    const void *creator;
} pt_registry_entry_info;
/* Number of registries (the registry of registries counts itself: it is named "registry"). */
PT_API int32_t pt_registry_count(void);
PT_API pt_status pt_registry_name(int32_t index, const char **out);
PT_API pt_status pt_registry_size(const char *registry, int32_t *out);
/* Entries in key order. */
PT_API pt_status pt_registry_entry(const char *registry, int32_t index, pt_registry_entry_info *out);
PT_API pt_status pt_registry_find(const char *registry, const char *key, pt_registry_entry_info *out);
/* Runtime registration; the strings must outlive the registry (static or interned by the caller).
 * A duplicate key fails with PT_ERR_RUNTIME naming both registration sites. */
PT_API pt_status pt_registry_add(const char *registry, const char *key, const void *creator,
                                 const char *help, const char *file, int32_t line);
/* Creates a registry (PT_ERR_RUNTIME if it exists). */
PT_API pt_status pt_registry_define(const char *registry, const char *help, const char *file,
                                    int32_t line);

/* ---------------------------------------------------------------- dtypes (csrc/core/dtype.c) */
enum {
    PT_BOOL = 0,
    PT_UINT8 = 1,
    PT_INT8 = 2,
    PT_INT16 = 3,
    PT_INT32 = 4,
    PT_INT64 = 5,
    PT_FLOAT16 = 6,
    PT_BFLOAT16 = 7,
    PT_FLOAT32 = 8,
    PT_FLOAT64 = 9,
    PT_COMPLEX64 = 10,
    PT_COMPLEX128 = 11,
    PT_DTYPE_BUILTIN_COUNT = 12,
    PT_DTYPE_MAX = 64 /* builtin + runtime-registered ids */
};
enum {
    PT_KIND_BOOL = 1,
    PT_KIND_INTEGER = 2,
    PT_KIND_FLOAT = 4,
    PT_KIND_COMPLEX = 8,
    PT_KIND_SIGNED = 16,
    PT_KIND_OPAQUE = 32 /* runtime-registered: bytes only, no arithmetic, no casts */
};
typedef struct pt_dtype_info {
    int32_t id;
    const char *name;        /* "float32" */
    const char *legacy_name; /* "Float" ("" for runtime-registered ids) */
    int32_t itemsize;
    int32_t alignment;
    uint32_t kind; /* PT_KIND_* bits */
    int32_t bits;
    /* finfo for floating/complex (of the real part), iinfo for integers and bool */
    double fmin, fmax, eps, tiny, resolution;
    int32_t mantissa_bits; /* digits incl. the implicit bit */
    int64_t imin, imax;
    const char *numpy_typestr; /* "<f4"; "" when NumPy has no such type (bfloat16) */
} pt_dtype_info;
PT_API int32_t pt_dtype_count(void);
/* Borrowed pointer into the table; NULL-free: fails with PT_ERR_VALUE for an unknown id. */
PT_API pt_status pt_dtype_get(int32_t id, const pt_dtype_info **out);
PT_API pt_status pt_dtype_from_name(const char *name, int32_t *out); /* "float32", "float", "Float" */
/* torch.promote_types; PT_ERR_TYPE for opaque ids other than equal ones. */
PT_API pt_status pt_dtype_promote(int32_t a, int32_t b, int32_t *out);
/* torch.can_cast (same-kind rules). */
PT_API int32_t pt_dtype_can_cast(int32_t from, int32_t to);
/* The dtype that Python floats take in type promotion (torch.get_default_dtype); float32 until
 * set. Its complex counterpart serves Python complex numbers (complex64 for float16/bfloat16/
 * float32, complex128 for float64). Setting it is a process-wide switch, as in torch; floating
 * dtypes only (PT_ERR_TYPE otherwise). */
PT_API int32_t pt_dtype_default(void);
PT_API pt_status pt_dtype_set_default(int32_t id);
PT_API pt_status pt_dtype_register(const char *name, int32_t itemsize, int32_t alignment, int32_t *out);

/* ---------------------------------------------------------------- devices (csrc/core/device.c) */
enum { PT_DEV_CPU = 0, PT_DEV_CUDA = 1, PT_DEV_META = 2, PT_DEV_TYPE_COUNT = 3 };
typedef struct pt_device {
    int32_t type;
    int32_t index; /* -1: "the current device" (only in parsed strings; tensors hold real ones) */
} pt_device;
/* "cpu", "cuda", "cuda:1", "meta". Unknown types and malformed indices fail with PT_ERR_RUNTIME. */
PT_API pt_status pt_device_parse(const char *text, pt_device *out);
PT_API const char *pt_device_type_name(int32_t type); /* "cpu"; NULL when out of range */
/* Fills index -1 with the current device and checks the index exists: "cuda:7" on a machine
 * without 8 CUDA devices fails here with a message naming the device. */
PT_API pt_status pt_device_resolve(pt_device device, pt_device *out);
/* Through the device-guard registry. PT_ERR_RUNTIME when no guard is registered for the type. */
PT_API pt_status pt_device_count(int32_t type, int32_t *out);
PT_API pt_status pt_device_current(int32_t type, int32_t *out);
PT_API pt_status pt_device_set_current(int32_t type, int32_t index);
PT_API pt_status pt_device_synchronize(int32_t type, int32_t index);

/* ---------------------------------------------------------------- allocators (csrc/core/allocator.c) */
typedef struct pt_memory_stats {
    int64_t bytes_in_use;
    int64_t peak_bytes;
    int64_t allocations;
    int64_t frees;
    int64_t bytes_cached; /* freed blocks held for reuse (not in bytes_in_use) */
} pt_memory_stats;
PT_API pt_status pt_allocator_stats(int32_t device_type, pt_memory_stats *out);
PT_API pt_status pt_allocator_reset_peak(int32_t device_type);
/* Gives the blocks an allocator holds for reuse back to the system (on CPU: the calling thread's
 * small blocks and the process-wide large-block pool). */
PT_API pt_status pt_allocator_empty_cache(int32_t device_type);
/* Raw allocation through the registered allocator (64-byte aligned on CPU); size 0 gives NULL.
 * pt_allocator_free must be given the nbytes the block was allocated with (it picks the CPU
 * cache's size class from it, as a sized free does). */
PT_API pt_status pt_allocator_alloc(pt_device device, int64_t nbytes, void **out);
PT_API pt_status pt_allocator_free(pt_device device, void *ptr, int64_t nbytes);

/* ---------------------------------------------------------------- copy-bytes table (csrc/core/copy_bytes.c) */
/* Copies nbytes between devices through the table [async][src type][dst type]. A pair with no
 * registered function fails with PT_ERR_RUNTIME naming both devices. */
PT_API pt_status pt_copy_bytes(int64_t nbytes, const void *src, pt_device src_device, void *dst,
                               pt_device dst_device, int32_t async);

/* ---------------------------------------------------------------- storage (csrc/core/storage.c) */
typedef struct pt_storage pt_storage;
typedef void (*pt_deleter_fn)(void *ctx);
PT_API pt_status pt_storage_new(int64_t nbytes, int32_t dtype, pt_device device, int32_t resizable,
                                pt_storage **out);
/* Wraps memory owned elsewhere; `deleter(ctx)` runs once when the last reference goes (it keeps the
 * owner alive until then). Never resizable. */
PT_API pt_status pt_storage_from_external(void *data, int64_t nbytes, int32_t dtype,
                                          pt_device device, pt_deleter_fn deleter, void *ctx,
                                          int32_t writable, pt_storage **out);
/* mmap of `filename`; shared != 0 maps MAP_SHARED (writes reach the file), else private.
 * nbytes < 0 maps the whole file; the file grows to nbytes when shared and too short. */
PT_API pt_status pt_storage_from_file(const char *filename, int32_t shared, int64_t nbytes,
                                      int32_t dtype, pt_storage **out);
PT_API void pt_storage_retain(pt_storage *s);
PT_API void pt_storage_release(pt_storage *s);
PT_API void *pt_storage_data(const pt_storage *s);
PT_API int64_t pt_storage_nbytes(const pt_storage *s);
PT_API int32_t pt_storage_dtype(const pt_storage *s);
PT_API pt_device pt_storage_device(const pt_storage *s);
PT_API int32_t pt_storage_resizable(const pt_storage *s);
PT_API int32_t pt_storage_writable(const pt_storage *s);
PT_API int32_t pt_storage_is_shared(const pt_storage *s);
PT_API int64_t pt_storage_refcount(const pt_storage *s);
/* PT_ERR_RUNTIME for storage that is not resizable, and for a shrink while anything else holds a
 * reference (Note [storage extent]); keeps min(old, new) bytes, new bytes are 0. */
PT_API pt_status pt_storage_resize(pt_storage *s, int64_t nbytes);
/* Marks the bytes as lent to a reader outside pytensor (NumPy, DLPack, a raw pointer): the
 * storage is never resized again, so they are never freed or moved under that reader (torch
 * does the same when it hands memory to NumPy). */
PT_API void pt_storage_lend(pt_storage *s);

/* ---------------------------------------------------------------- shared memory (csrc/core/shm.c) */
/* CPU storages in POSIX shared memory: PT_SHM_FD keeps an anonymous memfd open (file_descriptor
 * strategy), PT_SHM_FILENAME maps a named segment "/pytensor_<pid>_<n>_<random>" whose header
 * counts references per process (Note [shared segment header], csrc/core/shm.h). */
enum { PT_SHM_NONE = 0, PT_SHM_FD = 1, PT_SHM_FILENAME = 2 };
/* Moves the bytes into shared memory of `kind` in place (tensors over s see the new bytes); a
 * no-op when s is already of that kind. CPU only; the storage stops being resizable. */
PT_API pt_status pt_storage_share(pt_storage *s, int32_t kind);
/* A new zeroed storage of `kind`. */
PT_API pt_status pt_storage_new_shared(int32_t kind, int64_t nbytes, int32_t dtype, pt_storage **out);
/* Maps the memfd/shm fd (duplicated: the caller keeps its own) of nbytes. */
PT_API pt_status pt_storage_new_shared_fd(int32_t fd, int64_t nbytes, int32_t dtype, pt_storage **out);
/* Maps the existing segment `name` (its header must say nbytes) and takes one reference. */
PT_API pt_status pt_storage_new_shared_filename(const char *name, int64_t nbytes, int32_t dtype,
                                               pt_storage **out);
PT_API int32_t pt_storage_shm_kind(const pt_storage *s);
PT_API int32_t pt_storage_shm_fd(const pt_storage *s); /* -1 unless PT_SHM_FD */
PT_API const char *pt_storage_shm_name(const pt_storage *s); /* NULL unless PT_SHM_FILENAME */
/* The segment's reference count (its slots' sum); PT_ERR_RUNTIME unless PT_SHM_FILENAME. */
PT_API pt_status pt_storage_shared_incref(pt_storage *s);
PT_API pt_status pt_storage_shared_decref(pt_storage *s);
/* Drops a reference that process `pid` took (a sender's reference in transit); none if that
 * process's slot is gone (the manager reclaimed it). */
PT_API pt_status pt_storage_shared_decref_pid(pt_storage *s, int32_t pid);
PT_API int64_t pt_storage_shared_refcount(const pt_storage *s);
/* Weak references to shared storages (NULL for others): lock gives a new reference or NULL. */
PT_API void *pt_storage_weak_ref(pt_storage *s);
PT_API void pt_storage_weak_free(void *w);
PT_API int32_t pt_storage_weak_expired(void *w);
PT_API pt_storage *pt_storage_weak_lock(void *w);

/* ---------------------------------------------------------------- tensors (csrc/core/tensor.c, view.c) */
typedef struct pt_tensor pt_tensor;
enum { PT_LAYOUT_STRIDED = 0, PT_LAYOUT_SPARSE_COO = 1, PT_LAYOUT_COUNT = 2 };
enum {
    PT_MEMORY_FORMAT_CONTIGUOUS = 0,
    PT_MEMORY_FORMAT_PRESERVE = 1,
    PT_MEMORY_FORMAT_CHANNELS_LAST = 2,
    PT_MEMORY_FORMAT_CHANNELS_LAST_3D = 3,
    PT_MEMORY_FORMAT_COUNT = 4
};
enum { PT_MAX_DIMS = 64 };

/* Contiguous, uninitialized. Negative sizes and numel/nbytes overflow fail with PT_ERR_VALUE /
 * PT_ERR_RUNTIME naming the argument. */
PT_API pt_status pt_tensor_empty(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device device,
                                 pt_tensor **out);
PT_API pt_status pt_tensor_empty_strided(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                                         int32_t dtype, pt_device device, pt_tensor **out);
/* A tensor over existing storage (takes its own reference to the storage). The extent must fit in
 * the storage. */
PT_API pt_status pt_tensor_from_storage(pt_storage *s, int32_t dtype, int32_t ndim,
                                        const int64_t *sizes, const int64_t *strides, int64_t offset,
                                        pt_tensor **out);
PT_API void pt_tensor_retain(pt_tensor *t);
PT_API void pt_tensor_release(pt_tensor *t);
PT_API int64_t pt_tensor_refcount(const pt_tensor *t);
/* Note [one Python object per tensor]
 * Each tensor has one pointer-sized slot that belongs to the Python layer: the address of the
 * live Python object wrapping it (NULL when none; a new tensor starts with NULL). The core never
 * reads it; the Python layer sets and clears it with the GIL held, so that a tensor handed back to
 * Python again (a saved variable, a view's base, .grad, an operator returning its input) comes back
 * as the same object, with its attributes and class (csrc/python/pt_python.c). The slot is the
 * `void *` at this byte offset in the tensor object, so that wrapping a result reads it inline. */
PT_API size_t pt_tensor_pyobj_offset(void);
PT_API int32_t pt_tensor_ndim(const pt_tensor *t);
PT_API const int64_t *pt_tensor_sizes(const pt_tensor *t);
PT_API const int64_t *pt_tensor_strides(const pt_tensor *t);
PT_API int64_t pt_tensor_offset(const pt_tensor *t); /* in elements */
PT_API int64_t pt_tensor_numel(const pt_tensor *t);
PT_API int32_t pt_tensor_dtype(const pt_tensor *t);
PT_API pt_device pt_tensor_device(const pt_tensor *t);
PT_API int32_t pt_tensor_layout(const pt_tensor *t);
PT_API pt_storage *pt_tensor_storage(const pt_tensor *t); /* borrowed */
PT_API void *pt_tensor_data(const pt_tensor *t);          /* storage data + offset * itemsize */
PT_API int32_t pt_tensor_is_contiguous(const pt_tensor *t, int32_t memory_format);
/* Replaces the metadata in place (set_/as_strided_/resize_ support); same rules as from_storage. */
PT_API pt_status pt_tensor_set_(pt_tensor *t, pt_storage *s, int64_t offset, int32_t ndim,
                                const int64_t *sizes, const int64_t *strides);
/* resize_: grows the storage when needed (fails for non-resizable storage), contiguous strides. */
PT_API pt_status pt_tensor_resize_(pt_tensor *t, int32_t ndim, const int64_t *sizes);

/* Views (new tensor sharing the storage). dim arguments accept negative values as in torch;
 * out-of-range dims fail with PT_ERR_INDEX naming "dim". */
PT_API pt_status pt_tensor_as_strided(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                                      const int64_t *strides, int64_t offset, pt_tensor **out);
/* sizes may hold one -1 to infer. Fails with PT_ERR_RUNTIME when the strides cannot express it. */
PT_API pt_status pt_tensor_view(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                                pt_tensor **out);
/* A view when possible, else a contiguous copy. */
PT_API pt_status pt_tensor_reshape(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                                   pt_tensor **out);
PT_API pt_status pt_tensor_flatten(const pt_tensor *t, int64_t start_dim, int64_t end_dim,
                                   pt_tensor **out);
PT_API pt_status pt_tensor_transpose(const pt_tensor *t, int64_t dim0, int64_t dim1, pt_tensor **out);
PT_API pt_status pt_tensor_permute(const pt_tensor *t, int32_t ndim, const int64_t *dims,
                                   pt_tensor **out);
/* sizes entries of -1 keep the dimension; new leading dims allowed. */
PT_API pt_status pt_tensor_expand(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                                  pt_tensor **out);
/* ndims == 0: squeeze every size-1 dim; else only the listed ones (those of size != 1 stay). */
PT_API pt_status pt_tensor_squeeze(const pt_tensor *t, int32_t ndims, const int64_t *dims,
                                   pt_tensor **out);
PT_API pt_status pt_tensor_unsqueeze(const pt_tensor *t, int64_t dim, pt_tensor **out);
PT_API pt_status pt_tensor_narrow(const pt_tensor *t, int64_t dim, int64_t start, int64_t length,
                                  pt_tensor **out);
/* Python-slice semantics on one dim: start/end clamped like torch (step > 0 required). */
PT_API pt_status pt_tensor_slice(const pt_tensor *t, int64_t dim, int64_t start, int64_t end,
                                 int64_t step, pt_tensor **out);
PT_API pt_status pt_tensor_select(const pt_tensor *t, int64_t dim, int64_t index, pt_tensor **out);
/* torch's diagonal: a view of the diagonal of dims dim1 and dim2, offset above it (< 0: below). */
PT_API pt_status pt_tensor_diagonal(const pt_tensor *t, int64_t offset, int64_t dim1, int64_t dim2,
                                    pt_tensor **out);
PT_API pt_status pt_tensor_unfold(const pt_tensor *t, int64_t dim, int64_t size, int64_t step,
                                  pt_tensor **out);
/* Reverses one dim by a negative stride (used for NumPy/DLPack exchange and tests). */
PT_API pt_status pt_tensor_flip_view(const pt_tensor *t, int64_t dim, pt_tensor **out);
/* Note [wrapped numbers]
 * A 0-d tensor that the Python layer made from a Python number is marked "wrapped": in type
 * promotion it contributes only its category (bool < integer < floating < complex), so
 * `int8_tensor + 1000` stays int8 and `float16_tensor + 0.5` stays float16, as in torch. Only 0-d
 * tensors honour the mark; views and results of operations are never wrapped. */
PT_API void pt_tensor_set_wrapped_number(pt_tensor *t, int32_t wrapped);
PT_API int32_t pt_tensor_is_wrapped_number(const pt_tensor *t);
/* Note [math bits]
 * PyTorch's lazy conjugation: conj() of a complex tensor is a view of the same storage with the
 * conjugate bit set, and imag of such a view is a view with the negative bit set. A tensor's
 * values are its stored elements with the bits applied (negated, conjugated). The bits put the
 * Conjugate / Negative dispatch keys in the tensor's key set; their fallback (dispatch_mathbits.c)
 * hands every operator that does not handle the bits itself resolved inputs, and writes results
 * meant for a tensor with bits back through copy_, which applies the difference of the bits as it
 * copies. Views keep the bits; export (NumPy, DLPack, buffers) refuses tensors that have one. */
enum { PT_MATH_BIT_CONJ = 1, PT_MATH_BIT_NEG = 2 };
PT_API int32_t pt_tensor_math_bits(const pt_tensor *t);
/* Sets the bits of a tensor object (not of its views); for building views only. */
PT_API void pt_tensor_set_math_bits(pt_tensor *t, int32_t bits);

/* ---------------------------------------------------------------- scalars, copies, fills (csrc/kernels) */
enum { PT_SCALAR_BOOL = 0, PT_SCALAR_INT = 1, PT_SCALAR_FLOAT = 2, PT_SCALAR_COMPLEX = 3 };
typedef struct pt_scalar {
    int32_t kind;
    int64_t i;  /* BOOL and INT */
    double re;  /* FLOAT and COMPLEX */
    double im;  /* COMPLEX */
} pt_scalar;
/* dst <- src with dtype cast and broadcasting of src to dst's shape; src and dst may overlap
 * (a copy through a temporary is made when they do). */
PT_API pt_status pt_tensor_copy_(pt_tensor *dst, const pt_tensor *src);
PT_API pt_status pt_tensor_fill_(pt_tensor *t, const pt_scalar *value);
/* New tensor; memory_format PRESERVE keeps dense non-overlapping strides, CONTIGUOUS makes
 * row-major. */
PT_API pt_status pt_tensor_clone(const pt_tensor *t, int32_t memory_format, pt_tensor **out);
/* New reference to t itself when already contiguous. */
PT_API pt_status pt_tensor_contiguous(const pt_tensor *t, pt_tensor **out);
/* A new reference to t when nothing changes and copy == 0, else a converted copy. */
PT_API pt_status pt_tensor_to(const pt_tensor *t, int32_t dtype, pt_device device, int32_t copy,
                              pt_tensor **out);
/* One-element tensors only (PT_ERR_RUNTIME otherwise); kind follows the dtype. */
PT_API pt_status pt_tensor_item(const pt_tensor *t, pt_scalar *out);
/* Factories. arange: n = ceil((end - start) / step) computed like torch (PT_ERR_VALUE for step 0 or
 * a sign mismatch); linspace: steps >= 0; eye: n x m. */
PT_API pt_status pt_tensor_arange(const pt_scalar *start, const pt_scalar *end,
                                  const pt_scalar *step, int32_t dtype, pt_device device,
                                  pt_tensor **out);
PT_API pt_status pt_tensor_linspace(const pt_scalar *start, const pt_scalar *end, int64_t steps,
                                    int32_t dtype, pt_device device, pt_tensor **out);
PT_API pt_status pt_tensor_eye(int64_t n, int64_t m, int32_t dtype, pt_device device,
                               pt_tensor **out);

/* ---------------------------------------------------------------- generators (csrc/core/generator.c) */
typedef struct pt_generator pt_generator;
PT_API pt_status pt_generator_new(pt_device device, pt_generator **out);
/* The default generator of a device (new reference). */
PT_API pt_status pt_generator_default(pt_device device, pt_generator **out);
PT_API void pt_generator_retain(pt_generator *g);
PT_API void pt_generator_release(pt_generator *g);
PT_API pt_device pt_generator_device(const pt_generator *g);
PT_API void pt_generator_manual_seed(pt_generator *g, uint64_t seed);
/* Seeds from the OS entropy source; returns the seed. */
PT_API pt_status pt_generator_seed(pt_generator *g, uint64_t *out);
PT_API uint64_t pt_generator_initial_seed(const pt_generator *g);
PT_API uint64_t pt_generator_offset(const pt_generator *g);
PT_API void pt_generator_set_offset(pt_generator *g, uint64_t offset);
/* State: a CPU uint8 tensor of PT_GENERATOR_STATE_BYTES bytes (seed, offset, little-endian). */
enum { PT_GENERATOR_STATE_BYTES = 16 };
PT_API pt_status pt_generator_get_state(const pt_generator *g, pt_tensor **out);
PT_API pt_status pt_generator_set_state(pt_generator *g, const pt_tensor *state);
/* Philox4x32-10 block: counter (4 words) and key (2 words) -> 4 words. For tests and backends. */
PT_API void pt_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

/* Random fills (csrc/kernels/random.c); g == NULL uses the device's default generator.
 * Floating dtypes only for uniform/normal (PT_ERR_TYPE otherwise); random_ fills integers in
 * [from, to). */
PT_API pt_status pt_tensor_uniform_(pt_tensor *t, double from, double to, pt_generator *g);
PT_API pt_status pt_tensor_normal_(pt_tensor *t, double mean, double std, pt_generator *g);
PT_API pt_status pt_tensor_random_(pt_tensor *t, int64_t from, int64_t to, pt_generator *g);
PT_API pt_status pt_tensor_randperm(int64_t n, int32_t dtype, pt_device device, pt_generator *g,
                                    pt_tensor **out);

/* ---------------------------------------------------------------- DLPack (csrc/core/dlpack.c) */
/* Same layout as dlpack.h v1.x, with pt_ names so that a user's dlpack.h does not clash. */
enum { PT_DL_CPU = 1, PT_DL_CUDA = 2, PT_DL_CUDA_HOST = 3, PT_DL_CUDA_MANAGED = 13 };
enum {
    PT_DL_INT = 0,
    PT_DL_UINT = 1,
    PT_DL_FLOAT = 2,
    PT_DL_OPAQUE_HANDLE = 3,
    PT_DL_BFLOAT = 4,
    PT_DL_COMPLEX = 5,
    PT_DL_BOOL = 6
};
enum { PT_DL_FLAG_READ_ONLY = 1, PT_DL_FLAG_IS_COPIED = 2 };
enum { PT_DLPACK_MAJOR = 1, PT_DLPACK_MINOR = 1 };
typedef struct pt_dl_device {
    int32_t device_type;
    int32_t device_id;
} pt_dl_device;
typedef struct pt_dl_dtype {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} pt_dl_dtype;
typedef struct pt_dl_tensor {
    void *data;
    pt_dl_device device;
    int32_t ndim;
    pt_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} pt_dl_tensor;
typedef struct pt_dl_managed_tensor {
    pt_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct pt_dl_managed_tensor *self);
} pt_dl_managed_tensor;
typedef struct pt_dl_version {
    uint32_t major;
    uint32_t minor;
} pt_dl_version;
typedef struct pt_dl_managed_tensor_versioned {
    pt_dl_version version;
    void *manager_ctx;
    void (*deleter)(struct pt_dl_managed_tensor_versioned *self);
    uint64_t flags;
    pt_dl_tensor dl_tensor;
} pt_dl_managed_tensor_versioned;
/* Export: the managed tensor holds a reference to t until its deleter runs. */
PT_API pt_status pt_dlpack_export(pt_tensor *t, pt_dl_managed_tensor **out);
PT_API pt_status pt_dlpack_export_versioned(pt_tensor *t, uint64_t flags,
                                            pt_dl_managed_tensor_versioned **out);
/* Import: on success the tensor owns the managed tensor (its deleter runs when the storage dies);
 * on failure the caller still owns it. Unsupported dtypes/devices fail with PT_ERR_TYPE /
 * PT_ERR_RUNTIME. */
PT_API pt_status pt_dlpack_import(pt_dl_managed_tensor *m, pt_tensor **out);
PT_API pt_status pt_dlpack_import_versioned(pt_dl_managed_tensor_versioned *m, pt_tensor **out);
PT_API pt_status pt_dtype_to_dlpack(int32_t dtype, pt_dl_dtype *out);
PT_API pt_status pt_dtype_from_dlpack(pt_dl_dtype dt, int32_t *out);

/* ---------------------------------------------------------------- boxed values (csrc/core/stack.c) */
/* Note [boxed values]
 * A pt_ivalue is one tagged value on a dispatcher stack or a schema default. Fields are not a
 * union so that cffi can read them plainly; only the ones the tag names are meaningful:
 *   NONE; BOOL/INT/DTYPE/LAYOUT/MEMORY_FORMAT: i; DOUBLE: d; COMPLEX: d + im; STRING: s;
 *   TENSOR: t; GENERATOR: g; DEVICE: device;
 *   INT_LIST/BOOL_LIST: len + ints; DOUBLE_LIST: len + doubles; STRING_LIST: len + strings;
 *   TENSOR_LIST/OPT_TENSOR_LIST: len + tensors (NULL entries = None in the optional form).
 * Ownership on a stack (Note [stack ownership]): arguments pushed by a caller are BORROWED — the
 * caller keeps every tensor, generator, string and array alive until the call returns. Results
 * pushed by a kernel are OWNED by whoever pops them: tensors and generators are new references,
 * and arrays/strings a kernel allocated are marked `owned` and freed by pt_stack_clear. */
enum {
    PT_IV_NONE = 0,
    PT_IV_BOOL = 1,
    PT_IV_INT = 2,
    PT_IV_DOUBLE = 3,
    PT_IV_COMPLEX = 4,
    PT_IV_STRING = 5,
    PT_IV_TENSOR = 6,
    PT_IV_INT_LIST = 7,
    PT_IV_DOUBLE_LIST = 8,
    PT_IV_BOOL_LIST = 9,
    PT_IV_TENSOR_LIST = 10,
    PT_IV_OPT_TENSOR_LIST = 11,
    PT_IV_STRING_LIST = 12,
    PT_IV_DTYPE = 13,
    PT_IV_DEVICE = 14,
    PT_IV_LAYOUT = 15,
    PT_IV_MEMORY_FORMAT = 16,
    PT_IV_GENERATOR = 17,
    PT_IV_TAG_COUNT = 18
};
typedef struct pt_ivalue {
    int32_t tag;
    int32_t owned; /* results only: the arrays/strings below were malloc'ed for the receiver */
    int64_t len;
    int64_t i;
    double d;
    double im;
    const char *s;
    pt_tensor *t;
    pt_generator *g;
    pt_device device;
    const int64_t *ints;
    const double *doubles;
    pt_tensor *const *tensors;
    const char *const *strings;
} pt_ivalue;
typedef struct pt_stack {
    pt_ivalue *items; /* caller-provided array of `capacity` values */
    int32_t size;
    int32_t capacity;
} pt_stack;
/* Releases owned results (tensor and generator references of results, owned arrays) and
 * empties the stack. Borrowed arguments are left alone: call it only on a stack that holds
 * results. */
PT_API void pt_stack_clear(pt_stack *stack);

/* ---------------------------------------------------------------- schemas (csrc/core/schema.c) */
typedef struct pt_schema pt_schema;
/* Kinds of the schema type grammar. LIST and OPTIONAL wrap an element type. */
enum {
    PT_TYPE_TENSOR = 0,
    PT_TYPE_INT = 1,
    PT_TYPE_SYMINT = 2,
    PT_TYPE_FLOAT = 3,
    PT_TYPE_COMPLEX = 4,
    PT_TYPE_BOOL = 5,
    PT_TYPE_STR = 6,
    PT_TYPE_SCALAR = 7,
    PT_TYPE_SCALAR_TYPE = 8,
    PT_TYPE_LAYOUT = 9,
    PT_TYPE_DEVICE = 10,
    PT_TYPE_GENERATOR = 11,
    PT_TYPE_MEMORY_FORMAT = 12,
    PT_TYPE_DIMNAME = 13,
    PT_TYPE_STORAGE = 14,
    PT_TYPE_STREAM = 15,
    PT_TYPE_QSCHEME = 16,
    PT_TYPE_ANY = 17,
    PT_TYPE_LIST = 18,
    PT_TYPE_OPTIONAL = 19,
    PT_TYPE_TYPE_COUNT = 20
};
typedef struct pt_schema_arg_info {
    const char *name;         /* "" for an unnamed return */
    const char *type;         /* canonical type text: "Tensor?[]", "int[2]", "SymInt[]?" */
    int32_t kind;             /* PT_TYPE_* of the outermost type */
    int32_t elem_kind;        /* innermost non-LIST/OPTIONAL kind: "Tensor?[]" -> TENSOR */
    int32_t optional;         /* outermost is OPTIONAL */
    int32_t list;             /* a LIST appears (under at most one OPTIONAL): "int[]?" */
    int32_t optional_elems;   /* the list's elements are OPTIONAL: "Tensor?[]" */
    int64_t N;                /* fixed list size ("int[2]" -> 2), -1 otherwise */
    int32_t kwarg_only;
    int32_t has_default;
    const pt_ivalue *default_value; /* borrowed; valid while the schema lives; NULL if none */
    const char *default_text; /* canonical text of the default ("[1, 1]", "None", "'mean'") */
    /* Alias annotation: "Tensor(a!)" -> has_alias, is_write, before "a", after "a".
     * "Tensor(a -> *)" -> before "a", after "*". "Tensor(a|b)" -> before "a|b". Sets are '|'-joined.
     * Lists as PyTorch's parser reads them: an annotation on the elements ("Tensor(a!)[]") is the
     * element's (elem_*, PyTorch's contained type), and the list then has one of its own with
     * empty sets that copies the element's is_write; one after the brackets ("Tensor[](b)") is
     * the list's own, with or without one on the elements. */
    int32_t has_alias;
    int32_t alias_is_write;
    int32_t elem_has_alias;
    const char *alias_before;
    const char *alias_after;
    int32_t elem_alias_is_write;
    const char *elem_alias_before;
    const char *elem_alias_after;
} pt_schema_arg_info;
/* Parses PyTorch's function-schema grammar. Errors are PT_ERR_RUNTIME with the 1-based column and
 * what was expected: "schema: expected ',' or ')' but found 'end of input' at column 16:
 * add(Tensor self". In pt_schema_arg_info, absent texts (default_text, alias sets) are "" (never
 * NULL), and an index out of range is PT_ERR_INDEX. */
PT_API pt_status pt_schema_parse(const char *text, pt_schema **out);
PT_API void pt_schema_retain(pt_schema *s);
PT_API void pt_schema_release(pt_schema *s);
PT_API const char *pt_schema_name(const pt_schema *s);     /* "aten::add" (namespace when given) */
PT_API const char *pt_schema_overload(const pt_schema *s); /* "Tensor", "" */
PT_API int32_t pt_schema_num_arguments(const pt_schema *s);
PT_API int32_t pt_schema_num_returns(const pt_schema *s);
PT_API int32_t pt_schema_is_vararg(const pt_schema *s);
PT_API int32_t pt_schema_is_varret(const pt_schema *s);
PT_API pt_status pt_schema_argument(const pt_schema *s, int32_t index, pt_schema_arg_info *out);
PT_API pt_status pt_schema_return(const pt_schema *s, int32_t index, pt_schema_arg_info *out);
/* The canonical text; parsing it gives an equal schema. Borrowed, valid while s lives. */
PT_API const char *pt_schema_text(const pt_schema *s);
PT_API int32_t pt_schema_equal(const pt_schema *a, const pt_schema *b);

/* ---------------------------------------------------------------- dispatcher (csrc/core/dispatch.c) */
/* Runtime dispatch keys, low to high priority (the bit index in a key set is the key). */
enum {
    PT_KEY_CPU = 0,
    PT_KEY_CUDA = 1,
    PT_KEY_META = 2,
    PT_KEY_BACKEND_SELECT = 3,
    PT_KEY_PYTHON = 4,
    /* The math bits (Note [math bits]), below autograd as in PyTorch. These two keys sit in the
     * middle of the priority order, so adding them renumbered the autograd keys. */
    PT_KEY_CONJUGATE = 5,
    PT_KEY_NEGATIVE = 6,
    PT_KEY_AUTOGRAD_CPU = 7,
    PT_KEY_AUTOGRAD_CUDA = 8,
    PT_KEY_AUTOGRAD_META = 9,
    PT_KEY_COUNT = 10,
    /* Alias keys: registration only, never in a key set. */
    PT_KEY_AUTOGRAD = 32,
    PT_KEY_COMPOSITE_IMPLICIT_AUTOGRAD = 33,
    PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD = 34,
    PT_KEY_NONE = -1 /* impl with no key: CompositeImplicitAutograd, as in PyTorch */
};
typedef struct pt_op pt_op;                     /* an operator entry; lives for the process */
typedef struct pt_registration pt_registration; /* releasing it undoes the registration */
/* A boxed kernel pops its arguments (all of them, in schema order) and pushes its results.
 * `keyset` is the key set it was called with; `key` the slot it was found in (redispatch below
 * it with pt_dispatch_redispatch). */
typedef pt_status (*pt_boxed_fn)(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                 void *ctx);
/* def: registers a schema ("ns::name.overload(...) -> ..."; "aten" when no namespace). */
PT_API pt_status pt_dispatch_def(const char *schema, const char *debug, pt_registration **out);
/* impl: a kernel for ("ns::name.overload", key); may come before the def. */
PT_API pt_status pt_dispatch_impl(const char *op, int32_t key, pt_boxed_fn fn, void *ctx,
                                  const char *debug, pt_registration **out);
/* impl with a C unboxed entry as well (the generated unboxed calls use it when present). */
PT_API pt_status pt_dispatch_impl_unboxed(const char *op, int32_t key, pt_boxed_fn fn,
                                          void *unboxed, void *ctx, const char *debug,
                                          pt_registration **out);
/* A fallthrough kernel for one op and key: dispatch skips the key for that op. */
PT_API pt_status pt_dispatch_impl_fallthrough(const char *op, int32_t key, const char *debug,
                                              pt_registration **out);
/* A fallback for every op at one runtime key; fn NULL registers a fallthrough fallback. */
PT_API pt_status pt_dispatch_fallback(int32_t key, pt_boxed_fn fn, void *ctx, const char *debug,
                                      pt_registration **out);
PT_API void pt_registration_release(pt_registration *r);
/* Finds "ns::name" + overload ("" for the default one); PT_ERR_RUNTIME when it has no def. */
PT_API pt_status pt_dispatch_find(const char *name, const char *overload, pt_op **out);
/* Every operator that has a def, in registration order (for building Python bindings). */
PT_API int32_t pt_dispatch_op_count(void);
PT_API pt_status pt_dispatch_op_at(int32_t index, pt_op **out);
PT_API const pt_schema *pt_op_schema(const pt_op *op); /* borrowed; NULL before the def */
PT_API const char *pt_op_name(const pt_op *op);        /* "aten::add.Tensor" */
/* Python bindings the declarations ask for (the `variants:` of native_functions.yaml); an
 * operator declared with `python_module: nn` has its function in pytensor._C._nn instead of the
 * top namespace (PT_VARIANT_NN in place of PT_VARIANT_FUNCTION). */
enum { PT_VARIANT_FUNCTION = 1, PT_VARIANT_METHOD = 2, PT_VARIANT_NN = 4 };
PT_API int32_t pt_op_variants(const pt_op *op);
/* Boxed call: arguments (all, in schema order, defaults filled by the caller) on the stack; the
 * key set comes from the tensor arguments, the thread-local sets and the op's fallthroughs. */
PT_API pt_status pt_dispatch_call(const pt_op *op, pt_stack *stack);
/* Calls the slot for the highest key of (keyset & keys below `below_key`), as a kernel does to
 * pass a call on. */
PT_API pt_status pt_dispatch_redispatch(const pt_op *op, int32_t below_key, uint64_t keyset,
                                        pt_stack *stack);
/* The key set the call would use for these arguments (for tests and introspection). */
PT_API pt_status pt_dispatch_keyset(const pt_op *op, const pt_stack *stack, uint64_t *out);
/* Human-readable dump: schema, kernels per key (newest first, with debug strings), fallthroughs,
 * and the computed table. Borrowed text, valid until this thread's next dump. */
PT_API pt_status pt_dispatch_dump(const char *op, const char **out);
PT_API const char *pt_dispatch_key_name(int32_t key);       /* "CPU", "AutogradCPU", ... ; NULL */
PT_API pt_status pt_dispatch_key_from_name(const char *name, int32_t *out);
/* Thread-local key sets (bit i = runtime key i). */
PT_API uint64_t pt_dispatch_tls_included(void);
PT_API uint64_t pt_dispatch_tls_excluded(void);
PT_API void pt_dispatch_tls_set(uint64_t included, uint64_t excluded);

/* ---------------------------------------------------------------- autograd (csrc/autograd) */
typedef struct pt_node pt_node; /* a backward graph node (grad_fn); reference-counted */
typedef struct pt_hook pt_hook; /* a registered gradient hook; reference-counted */
/* A gradient hook: may write a replacement gradient (new reference) into *replacement. */
typedef pt_status (*pt_grad_hook_fn)(void *ctx, pt_tensor *grad, pt_tensor **replacement);
/* A hook of a graph node (grad_fn.register_prehook / register_hook). Pre hooks get the
 * gradients arriving at the node (n_grad_outputs, NULL = undefined) and may replace entries of
 * grad_outputs; post hooks get the node's results too (n_grad_inputs, one per next edge) and
 * may replace entries of grad_inputs. A replaced entry is released by the hook, the new one is a
 * new reference. */
typedef pt_status (*pt_node_hook_fn)(void *ctx, int32_t n_grad_inputs, pt_tensor **grad_inputs,
                                     int32_t n_grad_outputs, pt_tensor **grad_outputs);
typedef void (*pt_ctx_release_fn)(void *ctx);
/* requires_grad of a leaf; PT_ERR_RUNTIME for a non-leaf turned off and for dtypes that are not
 * floating point or complex. */
PT_API pt_status pt_autograd_set_requires_grad(pt_tensor *t, int32_t requires_grad);
PT_API int32_t pt_autograd_requires_grad(const pt_tensor *t);
PT_API int32_t pt_autograd_is_leaf(const pt_tensor *t);
PT_API int32_t pt_autograd_retains_grad(const pt_tensor *t);
PT_API int32_t pt_autograd_output_nr(const pt_tensor *t);
PT_API int64_t pt_autograd_version(const pt_tensor *t);
PT_API pt_tensor *pt_autograd_grad(const pt_tensor *t);  /* new reference, NULL when none */
PT_API pt_node *pt_autograd_grad_fn(const pt_tensor *t); /* new reference, NULL when none */
/* grad_fn, regenerating the history of a view whose base (or a sibling) was written in place
 * since; PyTorch's RuntimeError for a view that may not be rebased. *out: new reference/NULL. */
PT_API pt_status pt_autograd_grad_fn_of(const pt_tensor *t, pt_node **out);
/* _is_view() and _base: whether t is a view, and its root base (new reference, NULL if none). */
PT_API int32_t pt_autograd_is_view(const pt_tensor *t);
PT_API pt_tensor *pt_autograd_view_base(const pt_tensor *t);
/* Sets .grad (NULL clears it); the caller checks shape, dtype and device. */
PT_API pt_status pt_autograd_set_grad(pt_tensor *t, const pt_tensor *grad);
PT_API pt_status pt_autograd_retain_grad(pt_tensor *t);
/* detach(): shares storage and version counter; data: shares storage, own version counter. */
PT_API pt_status pt_autograd_detach(const pt_tensor *t, pt_tensor **out);
PT_API pt_status pt_autograd_detach_(pt_tensor *t);
PT_API pt_status pt_autograd_data(const pt_tensor *t, pt_tensor **out);
/* `t.data = src`: t takes src's storage, dtype, shape and strides, keeping its autograd state. */
PT_API pt_status pt_autograd_set_data(pt_tensor *t, const pt_tensor *src);
/* Increments the version counter (what an in-place call does). */
PT_API pt_status pt_autograd_bump_version(pt_tensor *t);
/* Grad mode and anomaly mode (thread-local / process-wide as in torch). */
PT_API int32_t pt_autograd_is_grad_enabled(void);
PT_API void pt_autograd_set_grad_enabled(int32_t enabled);
PT_API int32_t pt_autograd_is_anomaly_enabled(void);
PT_API int32_t pt_autograd_is_anomaly_check_nan_enabled(void);
PT_API void pt_autograd_set_anomaly_enabled(int32_t enabled, int32_t check_nan);
/* Inference mode (thread-local; Note [inference mode] in csrc/autograd/autograd.h): on turns grad
 * mode off, off turns it on; the caller restores both on exit. */
PT_API int32_t pt_autograd_is_inference_mode_enabled(void);
PT_API void pt_autograd_set_inference_mode(int32_t enabled);
PT_API int32_t pt_tensor_is_inference(const pt_tensor *t);
/* Saved-tensor hooks (thread-local stack; Note [saved tensor hooks]). pack writes an opaque
 * packed value, released with release_packed; unpack writes a new reference. push takes ctx
 * (released with release when the pair is no longer used) only when it succeeds; it fails with
 * the message of pt_autograd_saved_hooks_disable while hooks are disabled. */
typedef pt_status (*pt_saved_pack_fn)(void *ctx, pt_tensor *t, void **packed);
typedef pt_status (*pt_saved_unpack_fn)(void *ctx, void *packed, pt_tensor **out);
PT_API pt_status pt_autograd_saved_hooks_push(pt_saved_pack_fn pack, pt_saved_unpack_fn unpack,
                                              pt_ctx_release_fn release_packed, void *ctx,
                                              pt_ctx_release_fn release);
PT_API pt_status pt_autograd_saved_hooks_pop(void);
/* message NULL enables them again; disabling while a pair is pushed fails with the message. */
PT_API pt_status pt_autograd_saved_hooks_disable(const char *message);
PT_API const char *pt_autograd_saved_hooks_disabled_message(void); /* borrowed; NULL: enabled */
/* A saved variable on its own (custom Functions' save_for_backward): saving applies the hooks
 * and the checks the formulas' saved variables get; unpack takes the node that owns it (for
 * outputs) or NULL; release_data frees what it holds (later unpacks raise the "backward through
 * the graph a second time" error); free frees it. */
typedef struct pt_saved_tensor pt_saved_tensor;
PT_API pt_status pt_saved_tensor_new(const pt_tensor *t, int32_t is_output, pt_saved_tensor **out);
PT_API pt_status pt_saved_tensor_unpack(pt_saved_tensor *s, pt_node *owner, pt_tensor **out);
PT_API void pt_saved_tensor_release_data(pt_saved_tensor *s);
PT_API void pt_saved_tensor_free(pt_saved_tensor *s);
/* Called when a node is made in anomaly mode: writes the creating stack (NUL-terminated text, at
 * most cap bytes) into buf. */
typedef void (*pt_anomaly_trace_fn)(char *buf, size_t cap);
PT_API void pt_autograd_set_anomaly_tracer(pt_anomaly_trace_fn fn);
/* Runs backward from n tensors with their gradients (NULL entries: not allowed, the caller
 * makes them). With n_inputs > 0 only gradients for `inputs` are computed: accumulate != 0 puts
 * them into .grad (backward(inputs=)), otherwise they are written to out (new references, NULL
 * for unused inputs when allow_unused; autograd.grad). */
PT_API pt_status pt_autograd_backward(int32_t n, pt_tensor *const *tensors,
                                      pt_tensor *const *grads, int32_t retain_graph,
                                      int32_t create_graph, int32_t n_inputs,
                                      pt_tensor *const *inputs, int32_t accumulate,
                                      int32_t allow_unused, pt_tensor **out);
/* Graph nodes. */
PT_API void pt_node_retain(pt_node *n);
PT_API void pt_node_release(pt_node *n);
PT_API const char *pt_node_name(const pt_node *n);
PT_API uint64_t pt_node_sequence_nr(const pt_node *n);
PT_API int32_t pt_node_num_next(const pt_node *n);
PT_API int32_t pt_node_num_inputs(const pt_node *n);
/* Next edge i: its node (new reference, NULL when none) and input number. */
PT_API pt_status pt_node_next(const pt_node *n, int32_t i, pt_node **node, int32_t *input_nr);
/* A saved field `_saved_<name>` as a value (tensors: new reference). PT_ERR_VALUE when the node
 * has no such field. */
PT_API pt_status pt_node_saved(pt_node *n, const char *name, pt_ivalue *out);
/* The stack recorded in anomaly mode, or NULL. */
PT_API const char *pt_node_anomaly_trace(const pt_node *n);
/* Tensor hooks: run on the gradient of t when it is computed (before accumulation for leaves). */
PT_API pt_status pt_autograd_register_hook(pt_tensor *t, pt_grad_hook_fn fn, void *ctx,
                                           pt_ctx_release_fn release, pt_hook **out);
PT_API void pt_hook_remove(pt_hook *h);
PT_API void pt_hook_release(pt_hook *h);
/* Hooks of a node: kind PT_NODE_PRE_HOOK runs before the node (after the tensor hooks and
 * retain_grad of its outputs), PT_NODE_POST_HOOK after it (Note [node hooks], engine.c). */
enum { PT_NODE_PRE_HOOK = 0, PT_NODE_POST_HOOK = 1 };
PT_API pt_status pt_node_register_hook(pt_node *n, int32_t kind, pt_node_hook_fn fn, void *ctx,
                                       pt_ctx_release_fn release, pt_hook **out);
/* A hook run with the leaf t (as `grad`, replacement must stay NULL) after its .grad was
 * accumulated; PT_ERR_RUNTIME for tensors that are not leaves requiring grad. */
PT_API pt_status pt_autograd_register_post_accumulate_hook(pt_tensor *t, pt_grad_hook_fn fn,
                                                           void *ctx, pt_ctx_release_fn release,
                                                           pt_hook **out);
/* Custom Functions: a node whose backward calls apply(ctx, grads of its n_outputs outputs ->
 * gradients of its n_inputs inputs). Next edges come from inputs (NULL entries: not tensors). */
typedef pt_status (*pt_custom_apply_fn)(void *ctx, int32_t n_grads, pt_tensor *const *grads,
                                        int32_t n_outs, pt_tensor **outs);
PT_API pt_status pt_autograd_custom_node(const char *name, pt_custom_apply_fn apply, void *ctx,
                                         pt_ctx_release_fn release, int32_t n_inputs,
                                         pt_tensor *const *inputs, int32_t n_outputs,
                                         pt_node **out);
/* Has a backward without retain_graph call release_saved(ctx) of custom node n once it ran. */
PT_API pt_status pt_autograd_custom_node_on_release(pt_node *n, pt_ctx_release_fn release_saved);
/* Whether the custom node's apply gets zeros for the gradients of outputs nobody used (the
 * default, ctx.set_materialize_grads) or NULL. */
PT_API pt_status pt_autograd_custom_node_materialize(pt_node *n, int32_t materialize);
/* Makes t output output_nr of node (its grad_fn); for custom Functions. */
PT_API pt_status pt_autograd_set_history(pt_tensor *t, pt_node *node, int32_t output_nr);
/* The same for a tensor the Function wrote in place (mark_dirty): a view rebases its base. */
PT_API pt_status pt_autograd_rebase_history(pt_tensor *t, pt_node *node, int32_t output_nr);
/* The number of formulas (generated autograd kernels) and their operator names. */
PT_API int32_t pt_autograd_formula_count(void);
PT_API const char *pt_autograd_formula_op(int32_t index);

/* ---------------------------------------------------------------- CPU capability (csrc/core/cpu_capability.c) */
enum { PT_CPU_DEFAULT = 0, PT_CPU_AVX2 = 1, PT_CPU_AVX512 = 2, PT_CPU_CAPABILITY_COUNT = 3 };
PT_API int32_t pt_cpu_capability(void);          /* in use (after PYTENSOR_CPU_CAPABILITY) */
PT_API int32_t pt_cpu_capability_detected(void); /* what cpuid says */
PT_API const char *pt_cpu_capability_name(int32_t capability); /* "default", "avx2", "avx512" */
/* Picks the kernels of `capability` (at most the detected one: PT_ERR_VALUE otherwise) for every
 * CPU kernel stub, as PYTENSOR_CPU_CAPABILITY does at init (csrc/kernels/cpu_stub.c). For tests
 * that compare capabilities: no operator may be running on another thread meanwhile. */
PT_API pt_status pt_cpu_capability_select(int32_t capability);
/* Per stub, the capability whose kernels serve it: name and capability by index. */
PT_API int32_t pt_cpu_stub_count(void);
PT_API pt_status pt_cpu_stub_info(int32_t index, const char **name, int32_t *capability);

/* ---------------------------------------------------------------- threads (csrc/kernels/iter_run.c) */
/* The threads CPU kernels split large work across (torch.set_num_threads): process-wide; the
 * default is OpenMP's (OMP_NUM_THREADS or the cores). PT_ERR_RUNTIME for n < 1. */
PT_API pt_status pt_set_num_threads(int32_t n);
PT_API int32_t pt_get_num_threads(void);

/* ---------------------------------------------------------------- init (csrc/core/init.c) */
/* Runs the start-up once (later calls return the first result). libdir is where backend shared
 * libraries are looked for (NULL: none are loaded). */
PT_API pt_status pt_init(const char *libdir);
typedef struct pt_init_phase_info {
    const char *name;
    double microseconds;
    int64_t count;
    const char *detail;
} pt_init_phase_info;
PT_API int32_t pt_init_phase_count(void);
PT_API pt_status pt_init_phase(int32_t index, pt_init_phase_info *out);
/* Build and start-up facts by key: "version", "cpu_capability", "cpu_capability_detected",
 * "cpu_capability_source", "blis", "openmp", "cuda", "cuda_library", "compiler". PT_ERR_VALUE
 * for an unknown key. */
PT_API pt_status pt_config_get(const char *key, const char **out);
PT_API int32_t pt_config_count(void);
PT_API pt_status pt_config_entry(int32_t index, const char **key, const char **value);

/* ---------------------------------------------------------------- convolution (csrc/kernels/nn/) */
/* oneDNN: whether the build has it, and the switch pytensor.backends.onednn.enabled sets (on by
 * default when built; off makes every convolution take the im2col + GEMM path). set returns the
 * previous value. */
PT_API int32_t pt_onednn_is_available(void);
PT_API int32_t pt_onednn_enabled(void);
PT_API int32_t pt_onednn_set_enabled(int32_t on);
/* The path (0 none: no work, 1 im2col + GEMM, 2 oneDNN) that pass `pass` (0 forward, 1 backward
 * data, 2 backward weight) of convolution(input, weight, ...) takes; the lists have `dims` values
 * (input and weight are read for their sizes and dtype only). */
PT_API pt_status pt_conv_path_of(const pt_tensor *input, const pt_tensor *weight, int32_t dims,
                                 const int64_t *stride, const int64_t *padding,
                                 const int64_t *dilation, int32_t transposed,
                                 const int64_t *output_padding, int64_t groups, int32_t pass,
                                 int32_t *path);

#ifdef __cplusplus
}
#endif
#endif
