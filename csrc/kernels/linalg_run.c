/* linalg_run.c - the layer under the matrix-product operators (linalg.c, linalg_add.c): the
 * argument checks and dtype names their messages share, the memory-overlap test, the out= and
 * result helpers, and pt_linalg_run, which turns C = beta * C + alpha * A * B over views into one
 * backend call per matrix of the batch (Note [running a product]; the call itself is Note [one
 * gemm call] in linalg.h).
 *
 * The fronts describe their work as views - a vector as an n x 1 matrix (pt_linalg_as_column), a
 * broadcast batch as stride-0 dims - and this layer makes them acceptable to the backend: a
 * float32 detour for float16/bfloat16, contiguous copies of operands whose strides BLIS refuses,
 * and a fresh result for a written tensor that overlaps its inputs. Meta tensors get no work.
 */
#include <string.h>

#include "iter.h"
#include "gemm_medium.h"
#include "gemm_small.h"
#include "linalg_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- names in messages */

/* torch's legacy names ("Float") and the C++ type names its TypeMeta prints ("float",
 * "long int", "c10::Half"). */
const char *pt_linalg_legacy(int32_t dtype) { return pt_dtype_info_of(dtype)->legacy_name; }

const char *pt_linalg_cxx_name(int32_t dtype)
{
    static const char *const names[PT_DTYPE_BUILTIN_COUNT] = {
        [PT_BOOL] = "bool",          [PT_UINT8] = "unsigned char",
        [PT_INT8] = "signed char",   [PT_INT16] = "short int",
        [PT_INT32] = "int",          [PT_INT64] = "long int",
        [PT_FLOAT16] = "c10::Half",  [PT_BFLOAT16] = "c10::BFloat16",
        [PT_FLOAT32] = "float",      [PT_FLOAT64] = "double",
        [PT_COMPLEX64] = "c10::complex<float>", [PT_COMPLEX128] = "c10::complex<double>",
    };
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT && names[dtype] ? names[dtype] : "?";
}

/* The names torch's Scalar conversion check prints ("int64_t", "float"). */
static const char *scalar_type_name(int32_t dtype)
{
    static const char *const names[PT_DTYPE_BUILTIN_COUNT] = {
        [PT_BOOL] = "bool",        [PT_UINT8] = "uint8_t",  [PT_INT8] = "int8_t",
        [PT_INT16] = "int16_t",    [PT_INT32] = "int32_t",  [PT_INT64] = "int64_t",
        [PT_FLOAT16] = "c10::Half", [PT_BFLOAT16] = "c10::BFloat16", [PT_FLOAT32] = "float",
        [PT_FLOAT64] = "double",   [PT_COMPLEX64] = "c10::complex<float>",
        [PT_COMPLEX128] = "c10::complex<double>",
    };
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT && names[dtype] ? names[dtype] : "?";
}

/* ---------------------------------------------------------------- argument checks */

pt_status pt_linalg_check_operands(const char *op, int32_t n, const pt_tensor *const *ts,
                                   const char *const *names)
{
    for (int32_t i = 0; i < n; i++) PT_TRY(pt_iter_check_operand(ts[i], op, names[i]));
    return PT_OK;
}

/* Meta when any input is (torch's meta functions take mixed inputs and give meta), else CPU. */
int32_t pt_linalg_result_device(int32_t n, const pt_tensor *const *ts)
{
    for (int32_t i = 0; i < n; i++)
        if (ts[i] && ts[i]->device.type == PT_DEV_META) return PT_DEV_META;
    return PT_DEV_CPU;
}

/* Bool has no sums on the CPU: torch refuses it by its kernel's name when there is work. */
pt_status pt_linalg_check_bool(const char *kernel, int32_t dtype, int32_t device, bool work)
{
    if (dtype == PT_BOOL && device == PT_DEV_CPU && work)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for 'Bool'", kernel);
    return PT_OK;
}

/* torch's Scalar::to<T> with its overflow check, into the compute dtype (float32 for float16 and
 * bfloat16, as torch converts to its opmath type); *zero: the converted value is 0. NULL: 1. */
pt_status pt_linalg_scalar_value(const pt_scalar *s, int32_t compute, pt_blas_value *out,
                                 bool *zero)
{
    static const pt_scalar one = {PT_SCALAR_INT, 1, 0.0, 0.0};
    if (!s) s = &one;
    if (s->kind < PT_SCALAR_BOOL || s->kind > PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_VALUE, "scalar: unknown kind %d", (int)s->kind);
    if (pt_dtype_scalar_check(compute, s) != PT_OK)
        return PT_ERROR(PT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                        scalar_type_name(compute));
    memset(out, 0, sizeof *out);
    pt_dtype_scalar_to(compute)(s, out->bytes);
    pt_scalar back;
    pt_dtype_scalar_from(compute)(out->bytes, &back);
    *zero = back.kind == PT_SCALAR_FLOAT || back.kind == PT_SCALAR_COMPLEX
                ? back.re == 0.0 && back.im == 0.0
                : back.i == 0;
    return PT_OK;
}

/* ---------------------------------------------------------------- memory overlap */

/* The bytes [lo, hi) that t's elements span. */
static void byte_extent(const pt_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t isz = pt_dtype_itemsize(t->dtype), low = 0, high = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span < 0) low += span; else high += span;
    }
    uintptr_t base = (uintptr_t)pt_tensor_data(t);
    *lo = base + (uintptr_t)(low * isz);
    *hi = base + (uintptr_t)((high + 1) * isz);
}

bool pt_linalg_may_overlap(const pt_tensor *x, const pt_tensor *y)
{
    if (x->numel == 0 || y->numel == 0) return false;
    if (x->storage != y->storage && (!x->storage->data || !y->storage->data)) return false;
    uintptr_t x0, x1, y0, y1;
    byte_extent(x, &x0, &x1);
    byte_extent(y, &y0, &y1);
    return x0 < y1 && y0 < x1;
}

/* ---------------------------------------------------------------- running a product */

/* Note [running a product]
 * pt_linalg_run(c, a, b) computes c = beta * c + alpha * a @ b over tensors of one rank >= 2 whose
 * leading dimensions are the batch (a and b may have stride 0 there) and whose last two are the
 * matrices. Before the backend sees them: float16/bfloat16 operands become float32 copies and the
 * result is rounded back once (torch's opmath); an operand whose matrix strides BLIS would refuse
 * (stride 0 from expand, elements that share an address) becomes a contiguous copy; a c that
 * overlaps a or b, or has such strides itself, is computed in a fresh tensor and copied back. Each
 * matrix then goes to one of four kernels, chosen once for the batch's shape: float32/float64
 * products up to a few million multiply-adds to the small kernel (Note [small products] in
 * gemm_small.c), those above it up to 2048^3 to the cache-blocked medium kernel (Note [medium
 * products] in gemm_medium.c), other medium ones with threads to spare (where the medium kernel
 * does not serve) to the hand split (Note [splitting a product] in gemm_split.c), the rest to the
 * backend. The batch runs in parallel over its matrices, one thread per matrix, when the
 * matrices are too small to split (PER_CALL_WORK) or on the small or medium kernel, or when the
 * matrices divide evenly between the threads (or are many); else in order, each matrix with the
 * threads its size earns (Note [gemm grain]).
 *
 * Note [gemm grain]
 * A product gets one thread per GEMM_GRAIN multiply-adds, up to pytensor.set_num_threads's count:
 * 2^22 (4M, ~40 us of one AVX-512 core) per thread. Below it the parallel region costs more than
 * it saves: waking a sleeping pool thread takes 10-50 us, BLIS sets up its thread communicators
 * and packs its operands per thread, and a product of the small sizes a training step is made of
 * (64x1000x100 is 6.4M) splits badly (m = 64 is below BLIS's MC, so the threads split n and each
 * packs all of A). Measured on the 2-core machine (BLIS 0.9, skx): 64x1000x100 ran 170 us on one
 * thread and 130-4000 us on two, the upper end whenever another process held a core, since
 * BLIS's barriers spin while a descheduled partner holds the team back. 256^3 (16.7M) and up
 * split (two threads from 8M). torch's intra-op pool keeps small work on the calling thread the
 * same way (its grain sizes). The kernels that pytensor splits itself pay none of BLIS's set-up
 * per thread, so they earn threads sooner: the small kernel one per SMALL_GRAIN (2^20, where
 * torch splits too: its 128^3 ran 50 us on two threads against 76 on one; ours 256^3 ran ~270 us
 * on two against ~410 on one), the medium kernel and the hand split one per SPLIT_GRAIN (2^21),
 * the hand split up to SPLIT_MAX (2^26), above which BLIS's own threading serves as well. A
 * batch of small-kernel matrices earns a thread per SMALL_BATCH_GRAIN (2^17): its threads take
 * whole matrices, so a thread costs only the region (~1 us at the top level), not the shared
 * tiles that make splitting one small matrix dear. Measured on the 2-core machine, 8 x 32^3
 * float32 (2^18) went from 8.4-12 us on one thread to 6.8-9.3 on two (torch 9-15, which splits
 * it too); 8 x 16^3 stays on one thread. On a
 * loaded machine (another process holding a core) any two-thread region can cost milliseconds:
 * the partner thread waits for a time slice while the other spins at the barrier. */
enum { PER_CALL_WORK = 64 * 64 * 64 };
#define GEMM_GRAIN ((int64_t)1 << 22)
#define SMALL_GRAIN ((int64_t)1 << 20)
#define SMALL_BATCH_GRAIN ((int64_t)1 << 17)
#define SPLIT_GRAIN ((int64_t)1 << 21)
#define SPLIT_MAX ((int64_t)1 << 26)

static int32_t max_threads(void)
{
#ifdef _OPENMP
    return omp_in_parallel() ? 1 : pt_get_num_threads();
#else
    return 1;
#endif
}

/* The threads that `work` multiply-adds earn (Note [gemm grain]). */
static int32_t gemm_threads(int32_t threads, int64_t work, int64_t grain)
{
    int64_t earned = work / grain;
    if (earned < 1) earned = 1;
    return earned < threads ? (int32_t)earned : threads;
}

/* float16/bfloat16: the product in float32, rounded to c's dtype once. */
static pt_status run_half(pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                          const pt_linalg_product *p, bool beta_zero)
{
    pt_tensor *a32 = NULL, *b32 = NULL, *c32 = NULL;
    pt_status st = pt_tensor_to(a, PT_FLOAT32, a->device, 0, &a32);
    if (st == PT_OK) st = pt_tensor_to(b, PT_FLOAT32, b->device, 0, &b32);
    if (st == PT_OK)
        st = beta_zero ? pt_tensor_empty(c->ndim, c->sizes, PT_FLOAT32, c->device, &c32)
                       : pt_tensor_to(c, PT_FLOAT32, c->device, 1, &c32);
    if (st == PT_OK) st = pt_linalg_run(c32, a32, b32, p);
    if (st == PT_OK) st = pt_tensor_copy_(c, c32);
    pt_tensor_release(a32);
    pt_tensor_release(b32);
    pt_tensor_release(c32);
    return st;
}

/* The product into a fresh contiguous tensor, then copied into c. */
static pt_status run_detached(pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                              const pt_linalg_product *p, bool beta_zero)
{
    pt_tensor *tmp = NULL;
    pt_status st = beta_zero ? pt_tensor_empty(c->ndim, c->sizes, c->dtype, c->device, &tmp)
                             : pt_tensor_clone(c, PT_MEMORY_FORMAT_CONTIGUOUS, &tmp);
    if (st == PT_OK) st = pt_linalg_run(tmp, a, b, p);
    if (st == PT_OK) st = pt_tensor_copy_(c, tmp);
    pt_tensor_release(tmp);
    return st;
}

static bool matrix_ok(const pt_tensor *t, int64_t *rs, int64_t *cs)
{
    int32_t n = t->ndim;
    *rs = t->strides[n - 2];
    *cs = t->strides[n - 1];
    return pt_blas_strides_ok(t->sizes[n - 2], t->sizes[n - 1], rs, cs);
}

/* The matrix of batch index `flat` (row-major over the batch dims) as an element pointer. */
static char *batch_ptr(const pt_tensor *t, int64_t flat)
{
    int64_t off = 0;
    for (int32_t d = t->ndim - 3; d >= 0; d--) {
        off += (flat % t->sizes[d]) * t->strides[d];
        flat /= t->sizes[d];
    }
    return (char *)pt_tensor_data(t) + off * pt_dtype_itemsize(t->dtype);
}

enum { KERNEL_BACKEND, KERNEL_SMALL, KERNEL_MEDIUM, KERNEL_SPLIT };

/* One matrix of the batch on the kernel chosen for its shape. */
static pt_status gemm_one(const pt_gemm *g, int kernel)
{
    switch (kernel) {
    case KERNEL_SMALL: return pt_gemm_small(g);
    case KERNEL_MEDIUM: return pt_gemm_medium(g);
    case KERNEL_SPLIT: return pt_gemm_split(g, g->threads);
    default: return pt_blas_gemm(g);
    }
}

/* Matrix i of the batch on `kernel`.
 *
 * Note [no region around a threaded product]
 * A product that is not split over its batch runs outside any parallel region: the kernels that
 * thread one matrix (the small and medium kernels, the hand split, BLIS) open their own region,
 * and libgomp starts a region nested in another one, even in an inactive `if (0)` one, on
 * threads it creates for it and lets go after it rather than on its pool: 44-67 us per call on
 * the 2-core development machine against ~1 us for the same region at the top level. That cost
 * had made two threads no faster than one for 64x1000 @ 1000x100 (~200 us either way). */
static pt_status gemm_at(const pt_tensor *a, const pt_tensor *b, const pt_tensor *c,
                         const pt_gemm g, int kernel, int64_t i)
{
    pt_gemm one = g;
    one.a = batch_ptr(a, i);
    one.b = batch_ptr(b, i);
    one.c = batch_ptr(c, i);
    return gemm_one(&one, kernel);
}

static pt_status run_batch(pt_tensor *c, const pt_tensor *a, const pt_tensor *b, pt_gemm g)
{
    int32_t n = c->ndim;
    int64_t count = 1;
    for (int32_t d = 0; d < n - 2; d++) count *= c->sizes[d];
    int64_t work = g.m * g.n * g.k;
    bool small = pt_gemm_small_serves(&g), medium = !small && pt_gemm_medium_serves(&g);
    int64_t grain = small ? SMALL_GRAIN : medium ? SPLIT_GRAIN : GEMM_GRAIN;
    int64_t batch_grain = small && count > 1 ? SMALL_BATCH_GRAIN : grain;
    int32_t avail = max_threads(), threads = gemm_threads(avail, count * work, batch_grain);
    bool split = count > 1 && threads > 1 &&
                 (work < PER_CALL_WORK || small || medium || count % threads == 0 ||
                  count >= 4 * threads);
    g.threads = split ? 1 : gemm_threads(threads, work, grain);
    int kernel = small ? KERNEL_SMALL : medium ? KERNEL_MEDIUM : KERNEL_BACKEND;
    if (!small && !medium && !split && work <= SPLIT_MAX) {
        int32_t parts = gemm_threads(avail, work, SPLIT_GRAIN);
        if (pt_gemm_split_serves(&g, parts)) {
            kernel = KERNEL_SPLIT;
            g.threads = parts;
        }
    }
    pt_status st = PT_OK;
    if (!split) {
        /* Note [no region around a threaded product]: the kernel opens its own. */
        for (int64_t i = 0; i < count && st == PT_OK; i++) st = gemm_at(a, b, c, g, kernel, i);
        return st;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (int64_t i = 0; i < count; i++) {
        pt_status s = gemm_at(a, b, c, g, kernel, i);
        if (s != PT_OK) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            st = s;
        }
    }
    return st;
}

/* Note [small k in dot-product form]
 * BLIS 0.9 runs a small product whose A rows and B columns are both contiguous along k (a @ b.t(),
 * a backward pass's `g.mm(w2.t())`) with its "rd" kernels: dot products, each finished by
 * horizontal adds. With a short k those adds are the work: 64x10 @ (100x10).t() took 14 us on
 * one thread against 5 us with the same B stored row-major, where the "rv" kernels broadcast
 * instead. So when k <= DOT_FORM_MAX_K, B is copied row-major first: k x n elements, at most
 * 1/MIN_ROWS of the product's multiply-adds. */
enum { DOT_FORM_MAX_K = 32, DOT_FORM_MIN_ROWS = 8 };

static bool dot_form(const pt_gemm *g)
{
    return pt_blas_backend() == PT_BLAS_BLIS && g->k > 1 && g->k <= DOT_FORM_MAX_K &&
           g->m >= DOT_FORM_MIN_ROWS && g->n > 1 && g->csa == 1 && g->rsa != 1 && g->rsb == 1 &&
           g->csb != 1 && !pt_gemm_small_serves(g);
}

/* Note [conjugate operands]
 * The products are fallthroughs at the Conjugate key (Note [math bits] in pytensor.h), so their
 * operands may arrive here with the conjugate bit. A's is BLIS's (and the portable kernel's)
 * conj flag on A, combined with the one vdot asks for: no copy. B's is resolved by the copy that
 * makes B's layout acceptable, and a written-to C with bits is computed detached and copied back;
 * a copy resolves every bit (pt_tensor_clone goes through copy_), which is also how a negative
 * bit, which the Negative fallback normally resolves first, is handled when it gets here. */
pt_status pt_linalg_run(pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                        const pt_linalg_product *p)
{
    if (c->numel == 0 || c->device.type != PT_DEV_CPU) return PT_OK;
    int32_t n = c->ndim, compute = pt_linalg_is_half(c->dtype) ? PT_FLOAT32 : c->dtype;
    pt_gemm g;
    memset(&g, 0, sizeof g);
    PT_TRY(pt_linalg_scalar_value(p->alpha, compute, &g.alpha, &g.alpha_zero));
    PT_TRY(pt_linalg_scalar_value(p->beta, compute, &g.beta, &g.beta_zero));
    /* Note [conjugate operands]: a written-to tensor with math bits gets its values computed
     * into a plain one and copied back (copy_ applies the bits) */
    if (c->math_bits) return run_detached(c, a, b, p, g.beta_zero);
    if (pt_linalg_is_half(c->dtype)) return run_half(c, a, b, p, g.beta_zero);
    if (pt_linalg_may_overlap(c, a) || pt_linalg_may_overlap(c, b) ||
        !matrix_ok(c, &g.rsc, &g.csc))
        return run_detached(c, a, b, p, g.beta_zero);
    pt_tensor *own_a = NULL, *own_b = NULL;
    if (!matrix_ok(a, &g.rsa, &g.csa) || (a->math_bits & PT_MATH_BIT_NEG)) {
        PT_TRY(pt_tensor_clone(a, PT_MEMORY_FORMAT_CONTIGUOUS, &own_a));
        a = own_a;
        matrix_ok(a, &g.rsa, &g.csa);
    }
    g.dtype = c->dtype;
    g.m = c->sizes[n - 2];
    g.n = c->sizes[n - 1];
    g.k = a->sizes[n - 1];
    const bool a_conj = (a->math_bits & PT_MATH_BIT_CONJ) != 0;
    g.conj_a = (p->conj_a != a_conj) && (c->dtype == PT_COMPLEX64 || c->dtype == PT_COMPLEX128);
    bool b_ok = matrix_ok(b, &g.rsb, &g.csb);
    if (!b_ok || dot_form(&g) || b->math_bits) {
        pt_status st = pt_tensor_clone(b, PT_MEMORY_FORMAT_CONTIGUOUS, &own_b);
        if (st != PT_OK) {
            pt_tensor_release(own_a);
            return st;
        }
        b = own_b;
        matrix_ok(b, &g.rsb, &g.csb);
    }
    pt_status st = run_batch(c, a, b, g);
    pt_tensor_release(own_a);
    pt_tensor_release(own_b);
    return st;
}

/* ---------------------------------------------------------------- results */

/* The out= tensor for a result of (ndim, sizes, dtype) on `device`: dtype as torch checks it,
 * the shape (resized only when empty: see the file comment), device and writability. */
pt_status pt_linalg_check_out(const char *op, pt_tensor *out, int32_t ndim, const int64_t *sizes,
                              int32_t dtype, int32_t device, int msg)
{
    if (out->dtype != dtype) {
        if (msg == PT_LINALG_OUT_MSG_DOT)
            return PT_ERROR(PT_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                            pt_linalg_legacy(out->dtype), pt_linalg_legacy(dtype));
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        pt_linalg_cxx_name(dtype), pt_linalg_cxx_name(out->dtype));
    }
    if (out->device.type != device)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: out is on the %s device but the result is on the %s "
                        "device", op, pt_device_type_name(out->device.type),
                        pt_device_type_name(device));
    if (device == PT_DEV_CPU && !out->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the output tensor's storage is read-only", op);
    bool match = out->ndim == ndim &&
                 (ndim == 0 || memcmp(out->sizes, sizes, sizeof(int64_t) * (size_t)ndim) == 0);
    if (match) return PT_OK;
    if (out->numel != 0) {
        char have[PT_LINALG_SHAPE_CHARS], want[PT_LINALG_SHAPE_CHARS];
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: out with shape %s doesn't match the result shape %s; only an out "
                        "tensor with no elements is resized (resize_(0) it first)", op,
                        pt_format_ints(have, sizeof have, out->ndim, out->sizes),
                        pt_format_ints(want, sizeof want, ndim, sizes));
    }
    return pt_tensor_resize_(out, ndim, sizes);
}

/* A new contiguous result, or a new reference to the checked out= tensor. */
pt_status pt_linalg_make_result(const char *op, pt_tensor *out_arg, int32_t ndim,
                                const int64_t *sizes, int32_t dtype, int32_t device, int msg,
                                pt_tensor **out)
{
    if (out_arg) {
        PT_TRY(pt_linalg_check_out(op, out_arg, ndim, sizes, dtype, device, msg));
        pt_tensor_retain(out_arg);
        *out = out_arg;
        return PT_OK;
    }
    pt_device dev = {device, 0};
    return pt_tensor_empty(ndim, sizes, dtype, dev, out);
}

/* A view of t with the given sizes and strides (element strides, same offset). */
pt_status pt_linalg_view_as(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                            const int64_t *strides, pt_tensor **out)
{
    return pt_tensor_as_strided(t, ndim, sizes, strides, t->offset, out);
}

/* Runs c = beta * c + alpha * a @ b and hands *result over to the caller, or releases it. */
pt_status pt_linalg_finish(pt_tensor *result, pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                           const pt_linalg_product *p, pt_tensor **out)
{
    pt_status st = pt_linalg_run(c, a, b, p);
    if (st != PT_OK) {
        pt_tensor_release(result);
        return st;
    }
    *out = result;
    return PT_OK;
}

/* A vector of n elements as an n x 1 matrix (its column stride is never used). */
pt_status pt_linalg_as_column(const pt_tensor *v, pt_tensor **out)
{
    int64_t sizes[2] = {v->ndim ? v->sizes[0] : 1, 1}, strides[2] = {v->ndim ? v->strides[0] : 1, 1};
    return pt_linalg_view_as(v, 2, sizes, strides, out);
}

/* pt_linalg_run() into the vector result r through its m x 1 view; hands r over or releases it. */
pt_status pt_linalg_finish_vector(pt_tensor *r, const pt_tensor *a, const pt_tensor *b,
                                  const pt_linalg_product *p, pt_tensor **out)
{
    pt_tensor *col = NULL;
    pt_status st = pt_linalg_as_column(r, &col);
    if (st == PT_OK) st = pt_linalg_run(col, a, b, p);
    pt_tensor_release(col);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}
