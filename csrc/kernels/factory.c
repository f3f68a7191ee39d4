/* factory.c - arange, linspace and eye, computed the way torch's CPU kernels compute them, so that
 * the same arguments give the same elements bit for bit (one caveat: Note [fused multiply-add]).
 *
 * arange: the length is ceil((end - start) / step) in double, except for int64 results, where
 * torch truncates the three scalars to int64 first and divides exactly in integers. Element i is
 * start + step * i in the accumulate type of the result (int64 for integers, double for float32
 * and float64, float for float16/bfloat16), then converted once. linspace: torch's symmetric form,
 * start + step * i for the first half and end - step * (steps - 1 - i) for the second, so both
 * endpoints are exact; the arithmetic is done in the result's own type (float16 and bfloat16 round
 * after every operation, as c10::Half does), in double for integer results. Python numbers become
 * elements through the same overflow check as fill_.
 *
 * Values are computed on the CPU, a chunk at a time in an exact carrier type (int64, double or
 * complex double) and then cast into the result; other devices get a copy (through copy_), meta
 * tensors get none.
 *
 * Note [fused multiply-add]: torch's CPU kernels are built with contraction on, so on machines with
 * FMA (every x86-64 since Haswell) `start + step * i` is one fused operation, rounded once. We call
 * fma() explicitly so the result is that one on every machine and with any compiler flags. torch's
 * vectorized arange restarts from a rounded base every vector width, so for float32 and float64
 * ranges with inexact steps its elements past the first vector may differ from ours in the last
 * bit; linspace (a scalar kernel in torch) matches exactly.
 */
#include <math.h>
#include <string.h>

#include "internal.h"


static const pt_device cpu_device = {PT_DEV_CPU, 0};

/* torch's AT_DISPATCH refusal, which Python sees as NotImplementedError. */
static pt_status check_dtype(const char *op, int32_t dtype, bool allow_complex)
{
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if ((info->kind & (PT_KIND_OPAQUE | PT_KIND_BOOL)) ||
        (!allow_complex && (info->kind & PT_KIND_COMPLEX)))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        info->legacy_name[0] ? info->legacy_name : info->name);
    return PT_OK;
}

static pt_status check_scalar(const char *op, const char *arg, const pt_scalar *s)
{
    if (!s) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a number, got NULL", op, arg);
    if (s->kind < PT_SCALAR_BOOL || s->kind > PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_VALUE, "%s: %s has unknown scalar kind %d", op, arg, (int)s->kind);
    return PT_OK;
}

/* The scalar as the given dtype would hold it, read back as a double / int64 (after the overflow
 * check, so the conversion is the defined one of the cast table). */
static pt_status scalar_as(int32_t dtype, const pt_scalar *s, pt_scalar *out)
{
    PT_TRY(pt_dtype_scalar_check(dtype, s));
    unsigned char elem[16];
    pt_dtype_scalar_to(dtype)(s, elem);
    pt_dtype_scalar_from(dtype)(elem, out);
    return PT_OK;
}

static double real_part(const pt_scalar *s)
{
    return s->kind == PT_SCALAR_FLOAT || s->kind == PT_SCALAR_COMPLEX ? s->re : (double)s->i;
}

/* Generators write elements [first, first + count) into buf as their carrier dtype (int64,
 * float64 or complex128, which hold every value exactly); generate() then casts each chunk into
 * the result with the cast table, the same conversion a scalar gets in fill_. */
typedef void (*gen_fn)(int64_t first, int64_t count, void *buf, const void *state);

/* 512 complex128 carriers are 8 KiB: the chunk is still in L1 when the cast reads it. */
enum { GEN_CHUNK = 512 };

static pt_status generate(int64_t n, int32_t dtype, int32_t carrier, gen_fn gen, const void *state,
                          pt_tensor **out)
{
    pt_tensor *t;
    PT_TRY(pt_tensor_empty(1, &n, dtype, cpu_device, &t));
    pt_cast_fn cast = pt_dtype_cast_fn(carrier, dtype);
    int64_t isz = pt_dtype_itemsize(dtype), csz = pt_dtype_itemsize(carrier);
    char *p = pt_tensor_data(t);
    double buf[2 * GEN_CHUNK];
    for (int64_t i = 0; i < n; i += GEN_CHUNK) {
        int64_t count = n - i < GEN_CHUNK ? n - i : GEN_CHUNK;
        gen(i, count, buf, state);
        cast(p + i * isz, isz, (const char *)buf, csz, count);
    }
    *out = t;
    return PT_OK;
}

/* Hands the CPU result over on `device` (a copy there unless it is the CPU). */
static pt_status place(pt_tensor *cpu, pt_device device, pt_tensor **out)
{
    if (device.type == PT_DEV_CPU) {
        *out = cpu;
        return PT_OK;
    }
    pt_tensor *r;
    pt_status st = pt_tensor_empty(cpu->ndim, cpu->sizes, cpu->dtype, device, &r);
    if (st == PT_OK) st = pt_tensor_copy_(r, cpu);
    pt_tensor_release(cpu);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- arange */

typedef struct arange_state {
    int64_t istart, istep;
    double dstart, dstep;
    float fstart, fstep;
} arange_state;

static void arange_int(int64_t first, int64_t count, void *buf, const void *state)
{
    const arange_state *s = state;
    int64_t *out = buf;
    for (int64_t k = 0; k < count; k++) {
        /* wraps as torch's int64 arithmetic does on hardware, without C's signed overflow */
        uint64_t v = (uint64_t)s->istart + (uint64_t)s->istep * (uint64_t)(first + k);
        out[k] = v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
    }
}

static void arange_double(int64_t first, int64_t count, void *buf, const void *state)
{
    const arange_state *s = state;
    double *out = buf;
    for (int64_t k = 0; k < count; k++) out[k] = fma(s->dstep, (double)(first + k), s->dstart);
}

static void arange_float(int64_t first, int64_t count, void *buf, const void *state)
{
    const arange_state *s = state;
    double *out = buf;
    for (int64_t k = 0; k < count; k++) out[k] = fmaf(s->fstep, (float)(first + k), s->fstart);
}

/* Exact ceil((end - start) / step) for int64, whose difference may not fit int64. */
static pt_status arange_int64_size(int64_t start, int64_t end, int64_t step, int64_t *n)
{
    if (step == 0) return PT_ERROR(PT_ERR_VALUE, "step must be nonzero");
    uint64_t dist = step > 0 ? (uint64_t)end - (uint64_t)start : (uint64_t)start - (uint64_t)end;
    uint64_t astep = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
    uint64_t q = dist / astep + (dist % astep != 0);
    if (q > (uint64_t)INT64_MAX)
        return PT_ERROR(PT_ERR_RUNTIME, "invalid size, possible overflow?");
    *n = (int64_t)q;
    return PT_OK;
}

pt_status pt_tensor_arange(const pt_scalar *start, const pt_scalar *end, const pt_scalar *step,
                           int32_t dtype, pt_device device, pt_tensor **out)
{
    PT_TRY(check_scalar("arange", "start", start));
    PT_TRY(check_scalar("arange", "end", end));
    PT_TRY(check_scalar("arange", "step", step));
    PT_TRY(check_dtype("arange", dtype, false));
    if (start->kind == PT_SCALAR_COMPLEX || end->kind == PT_SCALAR_COMPLEX ||
        step->kind == PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "arange: complex start, end or step are not supported");
    double ds = real_part(start), de = real_part(end), dst = real_part(step);
    if (!(dst > 0 || dst < 0)) return PT_ERROR(PT_ERR_VALUE, "step must be nonzero");
    if (!isfinite(ds) || !isfinite(de))
        return PT_ERROR(PT_ERR_VALUE, "unsupported range: %g -> %g", ds, de);
    if (!((dst > 0 && de >= ds) || (dst < 0 && de <= ds)))
        return PT_ERROR(PT_ERR_VALUE, "upper bound and lower bound inconsistent with step sign");

    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    arange_state s = {0};
    gen_fn gen;
    int32_t carrier = PT_FLOAT64;
    int64_t n = 0;
    if (info->kind & PT_KIND_INTEGER) {
        pt_scalar a, c;
        PT_TRY(scalar_as(PT_INT64, start, &a));
        if (dtype == PT_INT64) {
            pt_scalar b;
            PT_TRY(scalar_as(PT_INT64, end, &b));
            PT_TRY(scalar_as(PT_INT64, step, &c));
            PT_TRY(arange_int64_size(a.i, b.i, c.i, &n));
        } else {
            PT_TRY(scalar_as(PT_INT64, step, &c));
        }
        s.istart = a.i;
        s.istep = c.i;
        gen = arange_int;
        carrier = PT_INT64;
    } else if (dtype == PT_FLOAT16 || dtype == PT_BFLOAT16) {
        pt_scalar a, c;
        PT_TRY(scalar_as(PT_FLOAT32, start, &a));
        PT_TRY(scalar_as(PT_FLOAT32, step, &c));
        s.fstart = (float)a.re;
        s.fstep = (float)c.re;
        gen = arange_float;
    } else {
        s.dstart = ds;
        s.dstep = dst;
        gen = arange_double;
    }
    if (dtype != PT_INT64) {
        double size_d = ceil((de - ds) / dst);
        if (!(size_d >= 0 && size_d < 0x1p63))
            return PT_ERROR(PT_ERR_RUNTIME, "invalid size, possible overflow?");
        n = (int64_t)size_d;
    }

    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    if (dev.type == PT_DEV_META) return pt_tensor_empty(1, &n, dtype, dev, out);
    pt_tensor *cpu;
    PT_TRY(generate(n, dtype, carrier, gen, &s, &cpu));
    return place(cpu, dev, out);
}

/* ---------------------------------------------------------------- linspace */

typedef struct linspace_state {
    int32_t dtype;
    int64_t steps, halfway;
    double start, end, step;          /* integers and float64; real parts of complex */
    double start_im, end_im, step_im; /* complex */
} linspace_state;

/* Rounds to the 16-bit type, as each c10::Half / c10::BFloat16 operation does. */
static float round16(int32_t dtype, float v)
{
    return dtype == PT_FLOAT16 ? pt_half_to_float(pt_float_to_half(v))
                               : pt_bfloat16_to_float(pt_float_to_bfloat16(v));
}

/* start + step * k or end - step * k, rounded once (Note [fused multiply-add]). */
static float linspace_f(double step, int64_t k, double start, double end, bool first)
{
    float fk = (float)k;
    return first ? fmaf((float)step, fk, (float)start) : fmaf(-(float)step, fk, (float)end);
}

static double linspace_d(double step, int64_t k, double start, double end, bool first)
{
    return first ? fma(step, (double)k, start) : fma(-step, (double)k, end);
}

static pt_scalar linspace_elem(const linspace_state *s, int64_t i)
{
    bool first = i < s->halfway;
    int64_t k = first ? i : s->steps - i - 1;
    switch (s->dtype) {
    case PT_FLOAT16:
    case PT_BFLOAT16: {
        float step_k = round16(s->dtype, (float)s->step * round16(s->dtype, (float)k));
        float v = first ? (float)s->start + step_k : (float)s->end - step_k;
        return (pt_scalar){PT_SCALAR_FLOAT, 0, round16(s->dtype, v), 0};
    }
    case PT_FLOAT32:
        return (pt_scalar){PT_SCALAR_FLOAT, 0, linspace_f(s->step, k, s->start, s->end, first), 0};
    case PT_COMPLEX64:
        return (pt_scalar){PT_SCALAR_COMPLEX, 0, linspace_f(s->step, k, s->start, s->end, first),
                           linspace_f(s->step_im, k, s->start_im, s->end_im, first)};
    case PT_COMPLEX128:
        return (pt_scalar){PT_SCALAR_COMPLEX, 0, linspace_d(s->step, k, s->start, s->end, first),
                           linspace_d(s->step_im, k, s->start_im, s->end_im, first)};
    default: /* float64 and, in double, the integers */
        return (pt_scalar){PT_SCALAR_FLOAT, 0, linspace_d(s->step, k, s->start, s->end, first), 0};
    }
}

static void linspace_gen(int64_t first, int64_t count, void *buf, const void *state)
{
    const linspace_state *s = state;
    double *out = buf;
    bool complex = s->dtype == PT_COMPLEX64 || s->dtype == PT_COMPLEX128;
    for (int64_t k = 0; k < count; k++) {
        pt_scalar v = linspace_elem(s, first + k);
        if (complex) {
            out[2 * k] = v.re;
            out[2 * k + 1] = v.im;
        } else {
            out[k] = v.re;
        }
    }
}

/* step = (end - start) / (steps - 1) in the type torch computes it in. */
static void linspace_step(linspace_state *s)
{
    double div = (double)(s->steps - 1);
    switch (s->dtype) {
    case PT_FLOAT16:
    case PT_BFLOAT16: {
        float diff = round16(s->dtype, (float)s->end - (float)s->start);
        s->step = round16(s->dtype, diff / round16(s->dtype, (float)div));
        break;
    }
    case PT_FLOAT32:
    case PT_COMPLEX64:
        s->step = ((float)s->end - (float)s->start) / (float)div;
        s->step_im = ((float)s->end_im - (float)s->start_im) / (float)div;
        break;
    default:
        s->step = (s->end - s->start) / div;
        s->step_im = (s->end_im - s->start_im) / div;
        break;
    }
}

pt_status pt_tensor_linspace(const pt_scalar *start, const pt_scalar *end, int64_t steps,
                             int32_t dtype, pt_device device, pt_tensor **out)
{
    PT_TRY(check_scalar("linspace", "start", start));
    PT_TRY(check_scalar("linspace", "end", end));
    PT_TRY(check_dtype("linspace", dtype, true));
    if (steps < 0) return PT_ERROR(PT_ERR_VALUE, "number of steps must be non-negative");
    linspace_state s = {.dtype = dtype, .steps = steps, .halfway = steps / 2};
    if (steps > 0) {
        pt_scalar a, b;
        PT_TRY(scalar_as(dtype, start, &a));
        PT_TRY(scalar_as(dtype, end, &b));
        s.start = a.kind == PT_SCALAR_INT ? (double)a.i : a.re;
        s.end = b.kind == PT_SCALAR_INT ? (double)b.i : b.re;
        s.start_im = a.kind == PT_SCALAR_COMPLEX ? a.im : 0;
        s.end_im = b.kind == PT_SCALAR_COMPLEX ? b.im : 0;
        if (steps > 1) linspace_step(&s);
        /* torch fills a single step with start (its formula would give end - 0 * nan) */
        else s.halfway = 1;
    }
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    if (dev.type == PT_DEV_META) return pt_tensor_empty(1, &steps, dtype, dev, out);
    pt_tensor *cpu;
    bool complex = dtype == PT_COMPLEX64 || dtype == PT_COMPLEX128;
    PT_TRY(generate(steps, dtype, complex ? PT_COMPLEX128 : PT_FLOAT64, linspace_gen, &s, &cpu));
    return place(cpu, dev, out);
}

/* ---------------------------------------------------------------- eye */

pt_status pt_tensor_eye(int64_t n, int64_t m, int32_t dtype, pt_device device, pt_tensor **out)
{
    if (n < 0)
        return PT_ERROR(PT_ERR_VALUE, "n must be greater or equal to 0, got %lld", (long long)n);
    if (m < 0)
        return PT_ERROR(PT_ERR_VALUE, "m must be greater or equal to 0, got %lld", (long long)m);
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if (info->kind & PT_KIND_OPAQUE)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"eye\" not implemented for '%s'", info->name);
    int64_t sizes[2] = {n, m};
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    if (dev.type == PT_DEV_META) return pt_tensor_empty(2, sizes, dtype, dev, out);
    pt_tensor *cpu;
    PT_TRY(pt_tensor_empty(2, sizes, dtype, cpu_device, &cpu));
    int64_t isz = info->itemsize;
    char *p = pt_tensor_data(cpu);
    if (p) {
        memset(p, 0, (size_t)(n * m * isz)); /* all-zero bytes are 0 in every builtin dtype */
        pt_scalar one = {PT_SCALAR_INT, 1, 0, 0};
        unsigned char elem[16];
        pt_dtype_scalar_to(dtype)(&one, elem);
        for (int64_t i = 0; i < n && i < m; i++) memcpy(p + i * (m + 1) * isz, elem, (size_t)isz);
    }
    return place(cpu, dev, out);
}
