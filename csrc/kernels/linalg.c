/* linalg.c - the matrix products: mm, bmm, addmm, baddbmm, mv, addmv, dot, vdot and matmul
 * (functional, in-place and out= as torch has them), with outer and ger as composites over mul.
 *
 * Each front checks its arguments in torch's order and with torch's messages (ranks, shapes,
 * dtypes, out=), makes its result or takes the written-to tensor, and then describes the work as
 * one batched product C = beta * C + alpha * A * B over views: mv multiplies by a k x 1 view of the
 * vector, dot a 1 x k view by a k x 1 one, matmul broadcasts batch dimensions with stride-0 views
 * instead of copies. run() takes it from there (Note [running a product]); meta tensors stop
 * before it. The product itself is one call per matrix (Note [one gemm call] in linalg.h).
 *
 * Deviations from torch, each deliberate: an out= tensor of the wrong shape is resized only when
 * it holds no elements (torch resizes any, with a deprecation warning), as for the binary
 * operators; bool inputs are refused whenever a sum would be computed (torch lets addmv through
 * when k == 0 and fails addmm/baddbmm there with a type-cast error); baddbmm's rank errors name the
 * argument ("batch1 must be a 3D tensor") where torch's fail later in an index check; matmul folds
 * an N-D by 2-D product into one mm only when the N-D operand's batch folds without a copy
 * (torch copies to fold) and otherwise loops over the batch.
 */
#include <string.h>

#include "linalg.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

enum { SHAPE_CHARS = 256 };

/* ---------------------------------------------------------------- names in messages */

/* torch's legacy names ("Float") and the C++ type names its TypeMeta prints ("float",
 * "long int", "c10::Half"). */
static const char *legacy(int32_t dtype) { return pt_dtype_info_of(dtype)->legacy_name; }

static const char *cxx_name(int32_t dtype)
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

static bool is_half(int32_t dtype) { return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16; }

/* ---------------------------------------------------------------- argument checks */

static pt_status check_operand(const pt_tensor *t, const char *op, const char *arg)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    if (!info || (info->kind & PT_KIND_OPAQUE) || t->dtype >= PT_DTYPE_BUILTIN_COUNT)
        return PT_ERROR(PT_ERR_TYPE, "\"%s\" not implemented for '%s' (argument '%s')", op,
                        info ? info->name : "unknown", arg);
    if (t->device.type == PT_DEV_CUDA)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "%s: %s is a CUDA tensor; this kernel computes on the CPU and meta "
                        "devices only", op, arg);
    return PT_OK;
}

static pt_status check_operands(const char *op, int32_t n, const pt_tensor *const *ts,
                                const char *const *names)
{
    for (int32_t i = 0; i < n; i++) PT_TRY(check_operand(ts[i], op, names[i]));
    return PT_OK;
}

/* Meta when any input is (torch's meta functions take mixed inputs and give meta), else CPU. */
static int32_t result_device(int32_t n, const pt_tensor *const *ts)
{
    for (int32_t i = 0; i < n; i++)
        if (ts[i] && ts[i]->device.type == PT_DEV_META) return PT_DEV_META;
    return PT_DEV_CPU;
}

/* Bool has no sums on the CPU: torch refuses it by its kernel's name when there is work. */
static pt_status check_bool(const char *kernel, int32_t dtype, int32_t device, bool work)
{
    if (dtype == PT_BOOL && device == PT_DEV_CPU && work)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for 'Bool'", kernel);
    return PT_OK;
}

/* torch's Scalar::to<T> with its overflow check, into the compute dtype (float32 for float16 and
 * bfloat16, as torch converts to its opmath type); *zero: the converted value is 0. NULL: 1. */
static pt_status scalar_value(const pt_scalar *s, int32_t compute, pt_blas_value *out, bool *zero)
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

static bool may_overlap(const pt_tensor *x, const pt_tensor *y)
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
 * run(c, a, b) computes c = beta * c + alpha * a @ b over tensors of one rank >= 2 whose leading
 * dimensions are the batch (a and b may have stride 0 there) and whose last two are the matrices.
 * Before the backend sees them: float16/bfloat16 operands become float32 copies and the result is
 * rounded back once (torch's opmath); an operand whose matrix strides BLIS would refuse (stride 0
 * from expand, elements that share an address) becomes a contiguous copy; a c that overlaps a or
 * b, or has such strides itself, is computed in a fresh tensor and copied back. The batch runs
 * one call per matrix: in parallel over the batch, one thread per call, when the matrices are too
 * small to split (PER_CALL_WORK), else in order with every thread on each call. */
enum { PER_CALL_WORK = 64 * 64 * 64 };

typedef struct product {
    bool conj_a;
    const pt_scalar *alpha, *beta; /* NULL: 1 */
} product;

static int32_t max_threads(void)
{
#ifdef _OPENMP
    return omp_in_parallel() ? 1 : omp_get_max_threads();
#else
    return 1;
#endif
}

static pt_status run(pt_tensor *c, const pt_tensor *a, const pt_tensor *b, const product *p);

/* float16/bfloat16: the product in float32, rounded to c's dtype once. */
static pt_status run_half(pt_tensor *c, const pt_tensor *a, const pt_tensor *b, const product *p,
                          bool beta_zero)
{
    pt_tensor *a32 = NULL, *b32 = NULL, *c32 = NULL;
    pt_status st = pt_tensor_to(a, PT_FLOAT32, a->device, 0, &a32);
    if (st == PT_OK) st = pt_tensor_to(b, PT_FLOAT32, b->device, 0, &b32);
    if (st == PT_OK)
        st = beta_zero ? pt_tensor_empty(c->ndim, c->sizes, PT_FLOAT32, c->device, &c32)
                       : pt_tensor_to(c, PT_FLOAT32, c->device, 1, &c32);
    if (st == PT_OK) st = run(c32, a32, b32, p);
    if (st == PT_OK) st = pt_tensor_copy_(c, c32);
    pt_tensor_release(a32);
    pt_tensor_release(b32);
    pt_tensor_release(c32);
    return st;
}

/* The product into a fresh contiguous tensor, then copied into c. */
static pt_status run_detached(pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                              const product *p, bool beta_zero)
{
    pt_tensor *tmp = NULL;
    pt_status st = beta_zero ? pt_tensor_empty(c->ndim, c->sizes, c->dtype, c->device, &tmp)
                             : pt_tensor_clone(c, PT_MEMORY_FORMAT_CONTIGUOUS, &tmp);
    if (st == PT_OK) st = run(tmp, a, b, p);
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

static pt_status run_batch(pt_tensor *c, const pt_tensor *a, const pt_tensor *b, pt_gemm g)
{
    int32_t n = c->ndim;
    int64_t count = 1;
    for (int32_t d = 0; d < n - 2; d++) count *= c->sizes[d];
    int32_t threads = max_threads();
    bool split = count > 1 && threads > 1 && g.m * g.n * g.k < PER_CALL_WORK;
    g.threads = split ? 1 : threads;
    pt_status st = PT_OK;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) if (split)
#endif
    for (int64_t i = 0; i < count; i++) {
        pt_gemm one = g;
        one.a = batch_ptr(a, i);
        one.b = batch_ptr(b, i);
        one.c = batch_ptr(c, i);
        pt_status s = pt_blas_gemm(&one);
        if (s != PT_OK) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            st = s;
        }
    }
    return st;
}

static pt_status run(pt_tensor *c, const pt_tensor *a, const pt_tensor *b, const product *p)
{
    if (c->numel == 0 || c->device.type != PT_DEV_CPU) return PT_OK;
    int32_t n = c->ndim, compute = is_half(c->dtype) ? PT_FLOAT32 : c->dtype;
    pt_gemm g;
    memset(&g, 0, sizeof g);
    PT_TRY(scalar_value(p->alpha, compute, &g.alpha, &g.alpha_zero));
    PT_TRY(scalar_value(p->beta, compute, &g.beta, &g.beta_zero));
    if (is_half(c->dtype)) return run_half(c, a, b, p, g.beta_zero);
    if (may_overlap(c, a) || may_overlap(c, b) || !matrix_ok(c, &g.rsc, &g.csc))
        return run_detached(c, a, b, p, g.beta_zero);
    pt_tensor *own_a = NULL, *own_b = NULL;
    if (!matrix_ok(a, &g.rsa, &g.csa)) {
        PT_TRY(pt_tensor_clone(a, PT_MEMORY_FORMAT_CONTIGUOUS, &own_a));
        a = own_a;
        matrix_ok(a, &g.rsa, &g.csa);
    }
    if (!matrix_ok(b, &g.rsb, &g.csb)) {
        pt_status st = pt_tensor_clone(b, PT_MEMORY_FORMAT_CONTIGUOUS, &own_b);
        if (st != PT_OK) {
            pt_tensor_release(own_a);
            return st;
        }
        b = own_b;
        matrix_ok(b, &g.rsb, &g.csb);
    }
    g.dtype = c->dtype;
    g.m = c->sizes[n - 2];
    g.n = c->sizes[n - 1];
    g.k = a->sizes[n - 1];
    g.conj_a = p->conj_a && (c->dtype == PT_COMPLEX64 || c->dtype == PT_COMPLEX128);
    pt_status st = run_batch(c, a, b, g);
    pt_tensor_release(own_a);
    pt_tensor_release(own_b);
    return st;
}

/* ---------------------------------------------------------------- results */

enum { FUNCTIONAL = 0, INPLACE = 1, OUT = 2 };
enum { OUT_MSG_MM, OUT_MSG_DOT }; /* the two texts torch uses for an out= of the wrong dtype */

/* The out= tensor for a result of (ndim, sizes, dtype) on `device`: dtype as torch checks it,
 * the shape (resized only when empty: see the file comment), device and writability. */
static pt_status check_out(const char *op, pt_tensor *out, int32_t ndim, const int64_t *sizes,
                           int32_t dtype, int32_t device, int msg)
{
    if (out->dtype != dtype) {
        if (msg == OUT_MSG_DOT)
            return PT_ERROR(PT_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                            legacy(out->dtype), legacy(dtype));
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        cxx_name(dtype), cxx_name(out->dtype));
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
        char have[SHAPE_CHARS], want[SHAPE_CHARS];
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: out with shape %s doesn't match the result shape %s; only an out "
                        "tensor with no elements is resized (resize_(0) it first)", op,
                        pt_format_ints(have, sizeof have, out->ndim, out->sizes),
                        pt_format_ints(want, sizeof want, ndim, sizes));
    }
    return pt_tensor_resize_(out, ndim, sizes);
}

/* A new contiguous result, or a new reference to the checked out= tensor. */
static pt_status make_result(const char *op, pt_tensor *out_arg, int32_t ndim,
                             const int64_t *sizes, int32_t dtype, int32_t device, int msg,
                             pt_tensor **out)
{
    if (out_arg) {
        PT_TRY(check_out(op, out_arg, ndim, sizes, dtype, device, msg));
        pt_tensor_retain(out_arg);
        *out = out_arg;
        return PT_OK;
    }
    pt_device dev = {device, 0};
    return pt_tensor_empty(ndim, sizes, dtype, dev, out);
}

/* A view of t with the given sizes and strides (element strides, same offset). */
static pt_status view_as(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                         const int64_t *strides, pt_tensor **out)
{
    return pt_tensor_as_strided(t, ndim, sizes, strides, t->offset, out);
}

/* Runs c = beta * c + alpha * a @ b and hands *result over to the caller, or releases it. */
static pt_status finish(pt_tensor *result, pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                        const product *p, pt_tensor **out)
{
    pt_status st = run(c, a, b, p);
    if (st != PT_OK) {
        pt_tensor_release(result);
        return st;
    }
    *out = result;
    return PT_OK;
}

/* ---------------------------------------------------------------- mm, bmm */

static pt_status mm_checks(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out_arg)
{
    if (self->ndim != 2) return PT_ERROR(PT_ERR_RUNTIME, "self must be a matrix");
    if (mat2->ndim != 2) return PT_ERROR(PT_ERR_RUNTIME, "mat2 must be a matrix");
    if (self->sizes[1] != mat2->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                        "%lldx%lld)", (long long)self->sizes[0], (long long)self->sizes[1],
                        (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
    if (out_arg && out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        cxx_name(self->dtype), cxx_name(out_arg->dtype));
    if (self->dtype != mat2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected m1 and m2 to have the same dtype, but got: %s != "
                        "%s", cxx_name(self->dtype), cxx_name(mat2->dtype));
    return PT_OK;
}

static pt_status mm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out_arg,
                    pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, mat2, out_arg};
    PT_TRY(check_operands("mm", out_arg ? 3 : 2, ts, (const char *const[]){"self", "mat2", "out"}));
    PT_TRY(mm_checks(self, mat2, out_arg));
    int32_t device = result_device(2, ts);
    int64_t sizes[2] = {self->sizes[0], mat2->sizes[1]};
    PT_TRY(check_bool("addmm_impl_cpu_", self->dtype, device,
                      sizes[0] * sizes[1] > 0 && self->sizes[1] > 0));
    pt_tensor *r;
    PT_TRY(make_result("mm", out_arg, 2, sizes, self->dtype, device, OUT_MSG_MM, &r));
    product p = {false, NULL, NULL};
    static const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    p.beta = &zero;
    return finish(r, r, self, mat2, &p, out);
}

pt_status pt_kernel_mm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor **ret)
{
    return mm(self, mat2, NULL, ret);
}

pt_status pt_kernel_mm_out(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out,
                           pt_tensor **ret)
{
    return mm(self, mat2, out, ret);
}

static pt_status bmm_checks(const pt_tensor *b1, const pt_tensor *b2)
{
    if (b1->ndim != 3) return PT_ERROR(PT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b2->ndim != 3) return PT_ERROR(PT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b2->sizes[0] != b1->sizes[0] || b2->sizes[1] != b1->sizes[2])
        return PT_ERROR(PT_ERR_RUNTIME, "Expected size for first two dimensions of batch2 tensor "
                        "to be: [%lld, %lld] but got: [%lld, %lld].", (long long)b1->sizes[0],
                        (long long)b1->sizes[2], (long long)b2->sizes[0], (long long)b2->sizes[1]);
    return PT_OK;
}

static pt_status batch_dtype_check(const pt_tensor *b1, const pt_tensor *b2)
{
    if (b1->dtype != b2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s", legacy(b1->dtype),
                        legacy(b2->dtype));
    return PT_OK;
}

static pt_status bmm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out_arg,
                     pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, mat2, out_arg};
    PT_TRY(check_operands("bmm", out_arg ? 3 : 2, ts, (const char *const[]){"self", "mat2", "out"}));
    PT_TRY(bmm_checks(self, mat2));
    int32_t device = result_device(2, ts);
    int64_t sizes[3] = {self->sizes[0], self->sizes[1], mat2->sizes[2]};
    if (out_arg && out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        cxx_name(self->dtype), cxx_name(out_arg->dtype));
    PT_TRY(batch_dtype_check(self, mat2));
    PT_TRY(check_bool("bmm", self->dtype, device,
                      sizes[0] * sizes[1] * sizes[2] > 0 && self->sizes[2] > 0));
    pt_tensor *r;
    PT_TRY(make_result("bmm", out_arg, 3, sizes, self->dtype, device, OUT_MSG_MM, &r));
    static const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    product p = {false, NULL, &zero};
    return finish(r, r, self, mat2, &p, out);
}

pt_status pt_kernel_bmm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor **ret)
{
    return bmm(self, mat2, NULL, ret);
}

pt_status pt_kernel_bmm_out(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out,
                            pt_tensor **ret)
{
    return bmm(self, mat2, out, ret);
}

/* ---------------------------------------------------------------- addmm, baddbmm, addmv */

/* Note [the added term]
 * addmm, baddbmm and addmv compute beta * self + alpha * product into a result C. In place, C is
 * self, whose shape must be the result's ("Bad in-place call"). Otherwise self broadcasts to the
 * result's shape, C is a new tensor or out=, and self is copied into it first unless beta is 0
 * (then self is not read at all: NaN there is ignored). An out= that overlaps an input gets the
 * functional result copied in, since the copy of self could overwrite a factor before it is
 * read. */
typedef struct addcall {
    const char *op;
    int mode;
    const pt_tensor *self, *a, *b;
    const pt_scalar *alpha, *beta;
    pt_tensor *target; /* self (in place) or out= */
    int32_t ndim;
    int64_t sizes[3];
    int32_t device;
} addcall;

static pt_status inplace_shape(const addcall *c)
{
    const pt_tensor *t = c->target;
    if (t->ndim == c->ndim && memcmp(t->sizes, c->sizes, sizeof(int64_t) * (size_t)c->ndim) == 0)
        return PT_OK;
    char have[SHAPE_CHARS], want[SHAPE_CHARS];
    return PT_ERROR(PT_ERR_RUNTIME, "Bad in-place call: input tensor size %s and output tensor "
                    "size %s should match", pt_format_ints(have, sizeof have, t->ndim, t->sizes),
                    pt_format_ints(want, sizeof want, c->ndim, c->sizes));
}

static pt_status add_product(const addcall *c, const pt_tensor *a_view, const pt_tensor *b_view,
                             pt_tensor **out);
static pt_status finish_vector(pt_tensor *r, const pt_tensor *a, const pt_tensor *b,
                               const product *p, pt_tensor **out);

/* The functional result copied into an out= that overlaps an input. */
static pt_status add_via_copy(const addcall *c, const pt_tensor *a_view, const pt_tensor *b_view,
                              pt_tensor **out)
{
    addcall f = *c;
    f.mode = FUNCTIONAL;
    f.target = NULL;
    pt_tensor *r = NULL;
    PT_TRY(add_product(&f, a_view, b_view, &r));
    pt_status st = pt_tensor_copy_(c->target, r);
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(c->target);
    *out = c->target;
    return PT_OK;
}

/* The checked call of Note [the added term], with a and b already shaped as the product's
 * matrices (batched or not). */
static pt_status add_product(const addcall *c, const pt_tensor *a_view, const pt_tensor *b_view,
                             pt_tensor **out)
{
    pt_tensor *self_b = NULL, *result = NULL;
    if (c->mode == INPLACE) {
        PT_TRY(inplace_shape(c));
        result = c->target;
        if (c->device == PT_DEV_CPU && !result->storage->writable)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: the output tensor's storage is read-only", c->op);
        pt_tensor_retain(result);
    } else {
        PT_TRY(pt_tensor_expand(c->self, c->ndim, c->sizes, &self_b));
        pt_tensor *t = c->target;
        if (t && t != c->self && c->device == PT_DEV_CPU &&
            (may_overlap(t, c->self) || may_overlap(t, a_view) || may_overlap(t, b_view))) {
            pt_tensor_release(self_b);
            PT_TRY(check_out(c->op, t, c->ndim, c->sizes, c->self->dtype, c->device, OUT_MSG_MM));
            return add_via_copy(c, a_view, b_view, out);
        }
        pt_status st = make_result(c->op, t, c->ndim, c->sizes, c->self->dtype, c->device,
                                   OUT_MSG_MM, &result);
        if (st != PT_OK) {
            pt_tensor_release(self_b);
            return st;
        }
    }
    product p = {false, c->alpha, c->beta};
    pt_blas_value unused;
    bool beta_zero = false, alpha_zero = false;
    int32_t compute = is_half(c->self->dtype) ? PT_FLOAT32 : c->self->dtype;
    pt_status st = scalar_value(c->beta, compute, &unused, &beta_zero);
    if (st == PT_OK) st = scalar_value(c->alpha, compute, &unused, &alpha_zero);
    if (st == PT_OK && self_b && result != c->self && !beta_zero && c->device == PT_DEV_CPU)
        st = pt_tensor_copy_(result, self_b);
    pt_tensor_release(self_b);
    if (st != PT_OK) {
        pt_tensor_release(result);
        return st;
    }
    if (c->ndim == 1) return finish_vector(result, a_view, b_view, &p, out);
    return finish(result, result, a_view, b_view, &p, out);
}

static pt_status addmm(int mode, const pt_tensor *self, const pt_tensor *mat1,
                       const pt_tensor *mat2, const pt_scalar *beta, const pt_scalar *alpha,
                       pt_tensor *out_arg, pt_tensor **out)
{
    const char *op = mode == INPLACE ? "addmm_" : "addmm";
    const pt_tensor *ts[4] = {self, mat1, mat2, out_arg};
    PT_TRY(check_operands(op, out_arg ? 4 : 3, ts,
                          (const char *const[]){"self", "mat1", "mat2", "out"}));
    if (mat1->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", (int)mat1->ndim);
    if (mat2->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", (int)mat2->ndim);
    if (self->dtype != mat2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "self and mat2 must have the same dtype, but got %s and %s",
                        legacy(self->dtype), legacy(mat2->dtype));
    if (mat1->dtype != mat2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype, but got %s and %s",
                        legacy(mat1->dtype), legacy(mat2->dtype));
    if (mat1->sizes[1] != mat2->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                        "%lldx%lld)", (long long)mat1->sizes[0], (long long)mat1->sizes[1],
                        (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
    addcall c = {op, mode, self, mat1, mat2, alpha, beta,
                 mode == INPLACE ? (pt_tensor *)self : out_arg, 2,
                 {mat1->sizes[0], mat2->sizes[1], 0}, result_device(3, ts)};
    PT_TRY(check_bool("addmm_impl_cpu_", self->dtype, c.device, c.sizes[0] * c.sizes[1] > 0));
    return add_product(&c, mat1, mat2, out);
}

pt_status pt_kernel_addmm(const pt_tensor *self, const pt_tensor *mat1, const pt_tensor *mat2,
                          const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmm(FUNCTIONAL, self, mat1, mat2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmm_(pt_tensor *self, const pt_tensor *mat1, const pt_tensor *mat2,
                           const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmm(INPLACE, self, mat1, mat2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmm_out(const pt_tensor *self, const pt_tensor *mat1, const pt_tensor *mat2,
                              const pt_scalar *beta, const pt_scalar *alpha, pt_tensor *out,
                              pt_tensor **ret)
{
    return addmm(OUT, self, mat1, mat2, beta, alpha, out, ret);
}

static pt_status baddbmm(int mode, const pt_tensor *self, const pt_tensor *b1,
                         const pt_tensor *b2, const pt_scalar *beta, const pt_scalar *alpha,
                         pt_tensor *out_arg, pt_tensor **out)
{
    const char *op = mode == INPLACE ? "baddbmm_" : "baddbmm";
    const pt_tensor *ts[4] = {self, b1, b2, out_arg};
    PT_TRY(check_operands(op, out_arg ? 4 : 3, ts,
                          (const char *const[]){"self", "batch1", "batch2", "out"}));
    PT_TRY(bmm_checks(b1, b2));
    if (self->dtype != b1->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Input dtypes must be the same, got: input %s, batch1: %s, "
                        "batch2: %s", cxx_name(self->dtype), cxx_name(b1->dtype),
                        cxx_name(b2->dtype));
    PT_TRY(batch_dtype_check(b1, b2));
    addcall c = {op, mode, self, b1, b2, alpha, beta,
                 mode == INPLACE ? (pt_tensor *)self : out_arg, 3,
                 {b1->sizes[0], b1->sizes[1], b2->sizes[2]}, result_device(3, ts)};
    PT_TRY(check_bool("baddbmm", self->dtype, c.device, c.sizes[0] * c.sizes[1] * c.sizes[2] > 0));
    return add_product(&c, b1, b2, out);
}

pt_status pt_kernel_baddbmm(const pt_tensor *self, const pt_tensor *batch1,
                            const pt_tensor *batch2, const pt_scalar *beta,
                            const pt_scalar *alpha, pt_tensor **ret)
{
    return baddbmm(FUNCTIONAL, self, batch1, batch2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_baddbmm_(pt_tensor *self, const pt_tensor *batch1, const pt_tensor *batch2,
                             const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return baddbmm(INPLACE, self, batch1, batch2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_baddbmm_out(const pt_tensor *self, const pt_tensor *batch1,
                                const pt_tensor *batch2, const pt_scalar *beta,
                                const pt_scalar *alpha, pt_tensor *out, pt_tensor **ret)
{
    return baddbmm(OUT, self, batch1, batch2, beta, alpha, out, ret);
}

/* ---------------------------------------------------------------- addmv, mv */

/* A vector of n elements as an n x 1 matrix (its column stride is never used). */
static pt_status as_column(const pt_tensor *v, pt_tensor **out)
{
    int64_t sizes[2] = {v->ndim ? v->sizes[0] : 1, 1}, strides[2] = {v->ndim ? v->strides[0] : 1, 1};
    return view_as(v, 2, sizes, strides, out);
}

/* run() into the vector result r through its m x 1 view; hands r over or releases it. */
static pt_status finish_vector(pt_tensor *r, const pt_tensor *a, const pt_tensor *b,
                               const product *p, pt_tensor **out)
{
    pt_tensor *col = NULL;
    pt_status st = as_column(r, &col);
    if (st == PT_OK) st = run(col, a, b, p);
    pt_tensor_release(col);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

static pt_status addmv_checks(const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec)
{
    if (mat->ndim != 2 || vec->ndim != 1 || self->ndim > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                        (int)self->ndim, (int)mat->ndim, (int)vec->ndim);
    int64_t input = self->ndim ? self->sizes[0] : 1;
    if (mat->sizes[1] != vec->sizes[0] || (input != mat->sizes[0] && input != 1))
        return PT_ERROR(PT_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec "
                        "(%lld)", (long long)input, (long long)mat->sizes[0],
                        (long long)mat->sizes[1], (long long)vec->sizes[0]);
    if (self->dtype != mat->dtype || mat->dtype != vec->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "addmv input tensors must have the same dtype, but got %s, "
                        "%s, and %s", legacy(self->dtype), legacy(mat->dtype), legacy(vec->dtype));
    return PT_OK;
}

static pt_status addmv(int mode, const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                       const pt_scalar *beta, const pt_scalar *alpha, pt_tensor *out_arg,
                       pt_tensor **out)
{
    const char *op = mode == INPLACE ? "addmv_" : "addmv";
    const pt_tensor *ts[4] = {self, mat, vec, out_arg};
    PT_TRY(check_operands(op, out_arg ? 4 : 3, ts,
                          (const char *const[]){"self", "mat", "vec", "out"}));
    PT_TRY(addmv_checks(self, mat, vec));
    addcall c = {op, mode, self, mat, vec, alpha, beta,
                 mode == INPLACE ? (pt_tensor *)self : out_arg, 1,
                 {mat->sizes[0], 0, 0}, result_device(3, ts)};
    PT_TRY(check_bool("addmv_impl_cpu", self->dtype, c.device, c.sizes[0] > 0));
    pt_tensor *col = NULL;
    PT_TRY(as_column(vec, &col));
    pt_status st = add_product(&c, mat, col, out);
    pt_tensor_release(col);
    return st;
}

pt_status pt_kernel_addmv(const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                          const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmv(FUNCTIONAL, self, mat, vec, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmv_(pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                           const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmv(INPLACE, self, mat, vec, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmv_out(const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                              const pt_scalar *beta, const pt_scalar *alpha, pt_tensor *out,
                              pt_tensor **ret)
{
    return addmv(OUT, self, mat, vec, beta, alpha, out, ret);
}

static const pt_scalar scalar_zero = {PT_SCALAR_INT, 0, 0.0, 0.0};

/* torch's mv is addmv into a new vector of vec's dtype, which its messages show. */
static pt_status mv(const pt_tensor *self, const pt_tensor *vec, pt_tensor *out_arg,
                    pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, vec, out_arg};
    PT_TRY(check_operands("mv", out_arg ? 3 : 2, ts, (const char *const[]){"self", "vec", "out"}));
    if (self->ndim != 2 || vec->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, %d, %d",
                        (int)self->ndim, (int)vec->ndim);
    if (self->sizes[1] != vec->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec "
                        "(%lld)", (long long)self->sizes[0], (long long)self->sizes[0],
                        (long long)self->sizes[1], (long long)vec->sizes[0]);
    if (self->dtype != vec->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "addmv input tensors must have the same dtype, but got %s, "
                        "%s, and %s", legacy(vec->dtype), legacy(self->dtype), legacy(vec->dtype));
    int32_t device = result_device(2, ts);
    PT_TRY(check_bool("addmv_impl_cpu", self->dtype, device,
                      self->sizes[0] > 0 && self->sizes[1] > 0));
    pt_tensor *r = NULL, *col = NULL;
    PT_TRY(make_result("mv", out_arg, 1, self->sizes, self->dtype, device, OUT_MSG_MM, &r));
    pt_status st = as_column(vec, &col);
    product p = {false, NULL, &scalar_zero};
    if (st == PT_OK) st = finish_vector(r, self, col, &p, out);
    else pt_tensor_release(r);
    pt_tensor_release(col);
    return st;
}

pt_status pt_kernel_mv(const pt_tensor *self, const pt_tensor *vec, pt_tensor **ret)
{
    return mv(self, vec, NULL, ret);
}

pt_status pt_kernel_mv_out(const pt_tensor *self, const pt_tensor *vec, pt_tensor *out,
                           pt_tensor **ret)
{
    return mv(self, vec, out, ret);
}

/* ---------------------------------------------------------------- dot, vdot */

static pt_status dot(const char *op, bool conj, const pt_tensor *self, const pt_tensor *other,
                     pt_tensor *out_arg, pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, other, out_arg};
    PT_TRY(check_operands(op, out_arg ? 3 : 2, ts, (const char *const[]){"self", "other", "out"}));
    if (self->ndim != 1 || other->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors",
                        (int)self->ndim, (int)other->ndim);
    if (self->dtype != other->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but found "
                        "%s and %s", legacy(self->dtype), legacy(other->dtype));
    if (self->sizes[0] != other->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "inconsistent tensor size, expected tensor [%lld] and src "
                        "[%lld] to have the same number of elements, but got %lld and %lld "
                        "elements respectively", (long long)self->sizes[0],
                        (long long)other->sizes[0], (long long)self->sizes[0],
                        (long long)other->sizes[0]);
    int32_t device = result_device(2, ts);
    PT_TRY(check_bool("dot", self->dtype, device, true));
    pt_tensor *r = NULL, *row = NULL, *col = NULL, *cell = NULL;
    PT_TRY(make_result(op, out_arg, 0, NULL, self->dtype, device, OUT_MSG_DOT, &r));
    int64_t row_sizes[2] = {1, self->sizes[0]}, row_strides[2] = {self->sizes[0], self->strides[0]};
    int64_t one[2] = {1, 1};
    pt_status st = view_as(self, 2, row_sizes, row_strides, &row);
    if (st == PT_OK) st = as_column(other, &col);
    if (st == PT_OK) st = view_as(r, 2, one, one, &cell);
    product p = {conj, NULL, &scalar_zero};
    if (st == PT_OK) st = run(cell, row, col, &p);
    pt_tensor_release(row);
    pt_tensor_release(col);
    pt_tensor_release(cell);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_dot(const pt_tensor *self, const pt_tensor *tensor, pt_tensor **ret)
{
    return dot("dot", false, self, tensor, NULL, ret);
}

pt_status pt_kernel_dot_out(const pt_tensor *self, const pt_tensor *tensor, pt_tensor *out,
                            pt_tensor **ret)
{
    return dot("dot", false, self, tensor, out, ret);
}

pt_status pt_kernel_vdot(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return dot("vdot", true, self, other, NULL, ret);
}

pt_status pt_kernel_vdot_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                             pt_tensor **ret)
{
    return dot("vdot", true, self, other, out, ret);
}

/* ---------------------------------------------------------------- matmul */

/* A new view of t with other sizes (same strides where sizes are kept: the caller knows it). */
static pt_status reshaped(pt_tensor *t, int32_t ndim, const int64_t *sizes, pt_tensor **out)
{
    pt_tensor *v = NULL;
    pt_status st = pt_tensor_view(t, ndim, sizes, &v);
    pt_tensor_release(t);
    if (st == PT_OK) *out = v;
    return st;
}

/* N-D (N >= 3) by 1-D or 2-D as one mv or mm over self's batch folded into its rows, when self's
 * batch folds without a copy; *done is false otherwise. */
static pt_status matmul_fold(const pt_tensor *self, const pt_tensor *other, bool *done,
                             pt_tensor **out)
{
    int32_t d1 = self->ndim;
    int64_t k = self->sizes[d1 - 1], flat[2] = {-1, k};
    pt_tensor *folded = NULL, *r = NULL;
    *done = false;
    if (k == 0 || pt_tensor_view(self, 2, flat, &folded) != PT_OK) return PT_OK;
    *done = true;
    pt_status st = other->ndim == 1 ? mv(folded, other, NULL, &r) : mm(folded, other, NULL, &r);
    pt_tensor_release(folded);
    if (st != PT_OK) return st;
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)(d1 - 1));
    int32_t nd = d1 - 1;
    if (other->ndim == 2) sizes[nd++] = other->sizes[1];
    return reshaped(r, nd, sizes, out);
}

/* The batch dims of a (..., m, k) and b (..., k, n) broadcast together. */
static pt_status batch_shape(const pt_tensor *a, const pt_tensor *b, int32_t *nb, int64_t *shape)
{
    int32_t na = a->ndim - 2, nbb = b->ndim - 2, n = na > nbb ? na : nbb;
    for (int32_t i = n - 1, da = na - 1, db = nbb - 1; i >= 0; i--, da--, db--) {
        int64_t sa = da >= 0 ? a->sizes[da] : 1, sb = db >= 0 ? b->sizes[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return PT_ERROR(PT_ERR_RUNTIME, "The size of tensor a (%lld) must match the size of "
                            "tensor b (%lld) at non-singleton dimension %d", (long long)sa,
                            (long long)sb, (int)i);
        shape[i] = sa == 1 ? sb : sa;
    }
    *nb = n;
    return PT_OK;
}

/* The general case: 1-D operands become a row / a column, the batch dims broadcast by stride-0
 * views, and the result loses the added dims again. */
static pt_status matmul_batched(const pt_tensor *a, const pt_tensor *b, int32_t d1, int32_t d2,
                                pt_tensor **out)
{
    int32_t nb = 0;
    int64_t shape[PT_MAX_DIMS + 2], batch = 1;
    PT_TRY(batch_shape(a, b, &nb, shape));
    for (int32_t i = 0; i < nb; i++) batch *= shape[i];
    int64_t m = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1], n = b->sizes[b->ndim - 1];
    if (b->sizes[b->ndim - 2] != k)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected size for first two dimensions of batch2 tensor "
                        "to be: [%lld, %lld] but got: [%lld, %lld].", (long long)batch,
                        (long long)k, (long long)batch, (long long)b->sizes[b->ndim - 2]);
    PT_TRY(batch_dtype_check(a, b));
    const pt_tensor *ts[2] = {a, b};
    int32_t device = result_device(2, ts);
    PT_TRY(check_bool("bmm", a->dtype, device, batch * m * n > 0 && k > 0));
    pt_tensor *ax = NULL, *bx = NULL, *r = NULL;
    shape[nb] = m;
    shape[nb + 1] = k;
    pt_status st = pt_tensor_expand(a, nb + 2, shape, &ax);
    shape[nb] = k;
    shape[nb + 1] = n;
    if (st == PT_OK) st = pt_tensor_expand(b, nb + 2, shape, &bx);
    shape[nb] = m;
    pt_device dev = {device, 0};
    if (st == PT_OK) st = pt_tensor_empty(nb + 2, shape, a->dtype, dev, &r);
    product p = {false, NULL, &scalar_zero};
    if (st == PT_OK) st = run(r, ax, bx, &p);
    pt_tensor_release(ax);
    pt_tensor_release(bx);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    int32_t nd = nb;
    if (d1 > 1) shape[nd++] = m;
    if (d2 > 1) shape[nd++] = n;
    return reshaped(r, nd, shape, out);
}

static pt_status matmul_functional(const pt_tensor *a, const pt_tensor *b, pt_tensor **out)
{
    int32_t d1 = a->ndim, d2 = b->ndim;
    if (d1 == 1 && d2 == 1) return dot("dot", false, a, b, NULL, out);
    if (d1 == 2 && d2 == 1) return mv(a, b, NULL, out);
    if (d1 == 2 && d2 == 2) return mm(a, b, NULL, out);
    pt_tensor *row = NULL, *col = NULL, *r = NULL;
    if (d1 == 1 && d2 == 2) {
        PT_TRY(pt_tensor_unsqueeze(a, 0, &row));
        pt_status st = mm(row, b, NULL, &r);
        pt_tensor_release(row);
        if (st != PT_OK) return st;
        return reshaped(r, 1, &b->sizes[1], out);
    }
    if (d1 >= 3 && d2 <= 2) {
        bool done;
        PT_TRY(matmul_fold(a, b, &done, out));
        if (done) return PT_OK;
    }
    if (d1 == 1) PT_TRY(pt_tensor_unsqueeze(a, 0, &row));
    pt_status st = d2 == 1 ? pt_tensor_unsqueeze(b, 1, &col) : PT_OK;
    if (st == PT_OK) st = matmul_batched(row ? row : a, col ? col : b, d1, d2, out);
    pt_tensor_release(row);
    pt_tensor_release(col);
    return st;
}

static pt_status matmul(const pt_tensor *self, const pt_tensor *other, pt_tensor *out_arg,
                        pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, other, out_arg};
    PT_TRY(check_operands("matmul", out_arg ? 3 : 2, ts,
                          (const char *const[]){"self", "other", "out"}));
    if (self->ndim == 0 || other->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, but they "
                        "are %dD and %dD", (int)self->ndim, (int)other->ndim);
    if (!out_arg) return matmul_functional(self, other, out);
    /* out=: the result is computed first, so out may alias the inputs. */
    pt_tensor *r = NULL;
    PT_TRY(matmul_functional(self, other, &r));
    int msg = self->ndim == 1 && other->ndim == 1 ? OUT_MSG_DOT : OUT_MSG_MM;
    pt_status st = check_out("matmul", out_arg, r->ndim, r->sizes, r->dtype, r->device.type, msg);
    if (st == PT_OK && r->device.type == PT_DEV_CPU) st = pt_tensor_copy_(out_arg, r);
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(out_arg);
    *out = out_arg;
    return PT_OK;
}

pt_status pt_kernel_matmul(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return matmul(self, other, NULL, ret);
}

pt_status pt_kernel_matmul_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                               pt_tensor **ret)
{
    return matmul(self, other, out, ret);
}

/* ---------------------------------------------------------------- outer, ger */

/* torch's outer: self as a column times vec2, through mul, whose type promotion and out= rules
 * it takes (outer of bool or of mixed dtypes works, unlike the products above). */
static pt_status outer_column(const pt_tensor *self, const pt_tensor *vec2, pt_tensor **col)
{
    if (!self || !vec2) return PT_ERROR(PT_ERR_VALUE, "outer: arguments must be tensors, got NULL");
    if (self->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D",
                        (int)self->ndim);
    if (vec2->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D",
                        (int)vec2->ndim);
    int64_t sizes[2] = {self->sizes[0], 1};
    *col = pt_call_reshape(self, 2, sizes);
    return *col ? PT_OK : pt_error_code();
}

static pt_status outer(const pt_tensor *self, const pt_tensor *vec2, pt_tensor *out_arg,
                       pt_tensor **ret)
{
    pt_tensor *col = NULL;
    PT_TRY(outer_column(self, vec2, &col));
    pt_tensor *r = out_arg ? pt_call_mul_out(col, vec2, out_arg) : pt_call_mul_Tensor(col, vec2);
    pt_tensor_release(col);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

pt_status pt_native_outer(const pt_tensor *self, const pt_tensor *vec2, pt_tensor **ret)
{
    return outer(self, vec2, NULL, ret);
}

pt_status pt_native_outer_out(const pt_tensor *self, const pt_tensor *vec2, pt_tensor *out,
                              pt_tensor **ret)
{
    return outer(self, vec2, out, ret);
}
