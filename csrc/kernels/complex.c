/* complex.c - the elementwise kernels between real and complex numbers: _conj_physical (and
 * conj_physical_, conj_physical.out), angle, polar and complex, as torch computes them.
 *
 * They run through the iterator (broadcasting, out= checks, meta tensors, float16 staging) with
 * portable loops: each is a handful of flops per element or less, so memory bandwidth, not the
 * instruction set, bounds them and one variant serves every CPU capability. Dtypes:
 *   - _conj_physical keeps self's dtype; for non-complex dtypes it is a copy (conj_physical_ a
 *     no-op), and out= must have self's dtype exactly (torch's "Found dtype ... but expected").
 *   - angle: complex -> its real dtype (atan2(imag, real)); floating -> same dtype (pi for
 *     negative numbers, 0 otherwise, NaN stays NaN); integers and bool compute in the default
 *     float dtype, as torch's int-to-float rule.
 *   - polar(abs, angle) and complex(real, imag): two float or two double tensors (the same
 *     dtype, torch's messages otherwise) giving complex64 or complex128; their out= must have
 *     that complex dtype exactly. float16 would give complex32, which pytensor does not have.
 */
#include <math.h>
#include <string.h>

#include "iter.h"
#include "pt_ops_internal.h"

static int32_t real_of(int32_t dtype)
{
    return dtype == PT_COMPLEX64 ? PT_FLOAT32 : dtype == PT_COMPLEX128 ? PT_FLOAT64 : dtype;
}

static int32_t complex_of(int32_t dtype)
{
    return dtype == PT_FLOAT32 ? PT_COMPLEX64 : dtype == PT_FLOAT64 ? PT_COMPLEX128 : -1;
}

/* ---------------------------------------------------------------- loops */
/* A complex element is two reals, real part first (C's and torch's layout). */
#define LOOP1(NAME, T, OUT_STMT)                                                                   \
    static void NAME(char **data, const int64_t *strides, int64_t n, void *ctx)                    \
    {                                                                                              \
        (void)ctx;                                                                                 \
        char *o = data[0];                                                                         \
        const char *a = data[1];                                                                   \
        for (int64_t i = 0; i < n; i++, o += strides[0], a += strides[1]) {                        \
            const T *x = (const T *)a;                                                             \
            T *r = (T *)o;                                                                         \
            OUT_STMT;                                                                              \
        }                                                                                          \
    }

#define LOOP2(NAME, T, OUT_STMT)                                                                   \
    static void NAME(char **data, const int64_t *strides, int64_t n, void *ctx)                    \
    {                                                                                              \
        (void)ctx;                                                                                 \
        char *o = data[0];                                                                         \
        const char *a = data[1], *b = data[2];                                                     \
        for (int64_t i = 0; i < n; i++, o += strides[0], a += strides[1], b += strides[2]) {       \
            const T x = *(const T *)a, y = *(const T *)b;                                          \
            T *r = (T *)o;                                                                         \
            OUT_STMT;                                                                              \
        }                                                                                          \
    }

static const double PI = 3.14159265358979323846;

LOOP1(conj_c64, float, (r[0] = x[0], r[1] = -x[1]))
LOOP1(conj_c128, double, (r[0] = x[0], r[1] = -x[1]))
/* torch's angle of a real number: NaN stays NaN, negative numbers give pi */
LOOP1(angle_f32, float, r[0] = isnan(x[0]) ? x[0] : x[0] < 0 ? (float)PI : 0.0f)
LOOP1(angle_f64, double, r[0] = isnan(x[0]) ? x[0] : x[0] < 0 ? PI : 0.0)
LOOP1(angle_c64, float, r[0] = atan2f(x[1], x[0]))
LOOP1(angle_c128, double, r[0] = atan2(x[1], x[0]))
LOOP2(complex_f32, float, (r[0] = x, r[1] = y))
LOOP2(complex_f64, double, (r[0] = x, r[1] = y))
LOOP2(polar_f32, float, (r[0] = x * cosf(y), r[1] = x * sinf(y)))
LOOP2(polar_f64, double, (r[0] = x * cos(y), r[1] = x * sin(y)))

/* A copy of elements of ctx's size (the conj of a non-complex dtype). */
static void copy_items(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const size_t size = *(const size_t *)ctx;
    char *o = data[0];
    const char *a = data[1];
    for (int64_t i = 0; i < n; i++, o += strides[0], a += strides[1]) memcpy(o, a, size);
}

/* ---------------------------------------------------------------- conj_physical */
enum { FUNCTIONAL, INPLACE, OUT };

static pt_status conj_physical(int mode, const pt_tensor *self, pt_tensor *out_arg,
                               pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(self, "conj_physical", "self"));
    if (mode == OUT) {
        PT_TRY(pt_iter_check_operand(out_arg, "conj_physical", "out"));
        if (out_arg->dtype != self->dtype)
            return PT_ERROR(PT_ERR_RUNTIME, "Found dtype %s but expected %s",
                            pt_iter_type_name(out_arg->dtype), pt_iter_type_name(self->dtype));
    }
    if (mode == INPLACE && !pt_is_complex(self->dtype)) { /* nothing to conjugate */
        pt_tensor_retain((pt_tensor *)self);
        *out = (pt_tensor *)self;
        return PT_OK;
    }
    pt_iter it;
    pt_iter_init(&it, "conj_physical", mode == INPLACE ? PT_ITER_INPLACE : 0);
    it.common = self->dtype;
    pt_iter_add_output(&it, mode == INPLACE ? (pt_tensor *)self : out_arg,
                       mode == OUT ? "out" : "self");
    pt_iter_add_input(&it, self, "self");
    PT_TRY(pt_iter_build(&it));
    /* the bytes move as they are: no float16 staging for a copy */
    it.loop_dtype[0] = it.loop_dtype[1] = self->dtype;
    size_t size = pt_dtype_info_of(self->dtype)->itemsize;
    pt_loop_fn fn = self->dtype == PT_COMPLEX64    ? conj_c64
                    : self->dtype == PT_COMPLEX128 ? conj_c128
                                                   : copy_items;
    pt_iter_run(&it, fn, &size);
    return pt_iter_finish(&it, out);
}

pt_status pt_kernel__conj_physical(const pt_tensor *self, pt_tensor **out)
{
    return conj_physical(FUNCTIONAL, self, NULL, out);
}

pt_status pt_kernel_conj_physical_(pt_tensor *self, pt_tensor **out)
{
    return conj_physical(INPLACE, self, NULL, out);
}

pt_status pt_kernel_conj_physical_out(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    return conj_physical(OUT, self, out_arg, out);
}

/* ---------------------------------------------------------------- angle */
static pt_status angle_run(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(self, "angle", "self"));
    if (out_arg) PT_TRY(pt_iter_check_operand(out_arg, "angle", "out"));
    pt_iter it;
    pt_iter_init(&it, "angle", 0);
    it.common = pt_is_integral(self->dtype, true) ? pt_dtype_default() : self->dtype;
    it.out_dtype = real_of(it.common);
    pt_iter_add_output(&it, out_arg, out_arg ? "out" : "self");
    pt_iter_add_input(&it, self, "self");
    PT_TRY(pt_iter_build(&it));
    pt_loop_fn fn = NULL;
    switch (it.loop_dtype[1]) {
    case PT_FLOAT32: fn = angle_f32; break;
    case PT_FLOAT64: fn = angle_f64; break;
    case PT_COMPLEX64: fn = angle_c64; break;
    case PT_COMPLEX128: fn = angle_c128; break;
    default:
        pt_iter_cleanup(&it);
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"angle_cpu\" not implemented for '%s'",
                        pt_iter_type_name(self->dtype));
    }
    it.loop_dtype[0] = real_of(it.loop_dtype[1]);
    pt_iter_run(&it, fn, NULL);
    return pt_iter_finish(&it, out);
}

pt_status pt_kernel_angle(const pt_tensor *self, pt_tensor **out)
{
    return angle_run(self, NULL, out);
}

pt_status pt_kernel_angle_out(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    return angle_run(self, out_arg, out);
}

/* ---------------------------------------------------------------- polar, complex */
/* torch's complex_check_dtype and the exact out= dtype of complex() and polar(). */
static pt_status check_parts(const char *op, const pt_tensor *a, const pt_tensor *b,
                             const pt_tensor *out_arg)
{
    PT_TRY(pt_iter_check_operand(a, op, "real"));
    PT_TRY(pt_iter_check_operand(b, op, "imag"));
    const bool fa = a->dtype == PT_FLOAT16 || a->dtype == PT_FLOAT32 || a->dtype == PT_FLOAT64;
    const bool fb = b->dtype == PT_FLOAT16 || b->dtype == PT_FLOAT32 || b->dtype == PT_FLOAT64;
    if (!fa || !fb)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Expected both inputs to be Half, Float or Double tensors but got %s "
                        "and %s",
                        pt_iter_type_name(a->dtype), pt_iter_type_name(b->dtype));
    if (a->dtype != b->dtype)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Expected object of scalar type %s but got scalar type %s for second "
                        "argument",
                        pt_iter_type_name(a->dtype), pt_iter_type_name(b->dtype));
    if (a->dtype == PT_FLOAT16)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: float16 parts would give complex32 (chalf), "
                        "which pytensor does not support", op);
    if (out_arg) {
        PT_TRY(pt_iter_check_operand(out_arg, op, "out"));
        if (out_arg->dtype != complex_of(a->dtype))
            return PT_ERROR(PT_ERR_RUNTIME,
                            "Expected object of scalar type %s but got scalar type %s for "
                            "argument 'out'",
                            pt_iter_type_name(complex_of(a->dtype)),
                            pt_iter_type_name(out_arg->dtype));
    }
    return PT_OK;
}

static pt_status combine(const char *op, pt_loop_fn f32, pt_loop_fn f64, const pt_tensor *a,
                         const pt_tensor *b, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(check_parts(op, a, b, out_arg));
    pt_iter it;
    pt_iter_init(&it, op, 0);
    it.common = a->dtype;
    it.out_dtype = complex_of(a->dtype);
    pt_iter_add_output(&it, out_arg, out_arg ? "out" : "self");
    pt_iter_add_input(&it, a, "real");
    pt_iter_add_input(&it, b, "imag");
    PT_TRY(pt_iter_build(&it));
    pt_iter_run(&it, a->dtype == PT_FLOAT32 ? f32 : f64, NULL);
    return pt_iter_finish(&it, out);
}

pt_status pt_kernel_complex(const pt_tensor *real, const pt_tensor *imag, pt_tensor **out)
{
    return combine("complex", complex_f32, complex_f64, real, imag, NULL, out);
}

pt_status pt_kernel_complex_out(const pt_tensor *real, const pt_tensor *imag, pt_tensor *out_arg,
                                pt_tensor **out)
{
    return combine("complex", complex_f32, complex_f64, real, imag, out_arg, out);
}

pt_status pt_kernel_polar(const pt_tensor *r, const pt_tensor *theta, pt_tensor **out)
{
    return combine("polar", polar_f32, polar_f64, r, theta, NULL, out);
}

pt_status pt_kernel_polar_out(const pt_tensor *r, const pt_tensor *theta, pt_tensor *out_arg,
                              pt_tensor **out)
{
    return combine("polar", polar_f32, polar_f64, r, theta, out_arg, out);
}
