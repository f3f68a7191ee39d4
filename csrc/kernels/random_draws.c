/* random_draws.c - the fills that draw from a distribution (exponential_, cauchy_, log_normal_,
 * geometric_, bernoulli_ with a number) and bernoulli_ with a tensor of probabilities, which reads
 * one input elementwise. Each is one block of the Philox stream per element (Note [Philox
 * stream], random.c): it checks its arguments with torch's messages, then describes its draw to
 * the stream's one row function (pt_random_dist_row) and fills through pt_random_fill.
 *
 * Note [distributions]
 *   exponential_  -log1p(-u) / lambd (u < 1, so the value is finite; lambd = inf gives 0).
 *   cauchy_       median + sigma * tan(pi * (u - 1/2)).
 *   log_normal_   exp(mean + std * z), z the first normal of the element's block as normal_
 *                 computes it (pt_random_std_normal_f32/f64).
 *   geometric_    ceil(log(v) / log1p(-p)) with v = (53 bits + 1/2) * 2^-53 in (0, 1), so the
 *                 value is at least 1; integer outputs saturate at the dtype's largest value.
 *   bernoulli     u < p with u from 53 bits whatever the dtypes, so p = 0 never and p = 1 always
 *                 gives 1, and a float32 p and its float64 copy draw the same values.
 * These compute in double and round once into the output, through per-dtype load and store
 * functions: a function call per element is small beside the Philox block. normal with tensor
 * mean or std and dropout are built from these fills in csrc/ops/random_ops.c, as torch builds
 * them.
 *
 * Meta tensors are checked like others and then left alone, without advancing the generator.
 * The fills run on other devices through the CPU (pt_random_fill); bernoulli_ with a tensor reads
 * its input and is registered for the CPU and meta keys only.
 */
#include <math.h>
#include <string.h>

#include "native.h"
#include "random_internal.h"

/* ---------------------------------------------------------------- element loads and stores
 * Stores receive values the output holds: 0/1, or integers the caller clamped, for the integer
 * dtypes (a double out of an integer type's range does not convert). */
#define STORE(tag, ctype)                                                                          \
    static void store_##tag(char *p, double v) { *(ctype *)(void *)p = (ctype)v; }
STORE(u8, uint8_t)
STORE(i8, int8_t)
STORE(i16, int16_t)
STORE(i32, int32_t)
STORE(i64, int64_t)
STORE(f32, float)
STORE(f64, double)
static double load_f32(const char *p) { return *(const float *)(const void *)p; }
static double load_f64(const char *p) { return *(const double *)(const void *)p; }
static void store_bool(char *p, double v) { *(_Bool *)(void *)p = v != 0.0; }
static double load_f16(const char *p) { return pt_half_to_float(*(const uint16_t *)(const void *)p); }
static void store_f16(char *p, double v) { *(uint16_t *)(void *)p = pt_float_to_half((float)v); }
static double load_bf16(const char *p)
{
    return pt_bfloat16_to_float(*(const uint16_t *)(const void *)p);
}
static void store_bf16(char *p, double v)
{
    *(uint16_t *)(void *)p = pt_float_to_bfloat16((float)v);
}

static const pt_random_load_fn loads[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = load_f16, [PT_BFLOAT16] = load_bf16, [PT_FLOAT32] = load_f32,
    [PT_FLOAT64] = load_f64,
};
static const pt_random_store_fn stores[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_BOOL] = store_bool, [PT_UINT8] = store_u8,     [PT_INT8] = store_i8,
    [PT_INT16] = store_i16, [PT_INT32] = store_i32,    [PT_INT64] = store_i64,
    [PT_FLOAT16] = store_f16, [PT_BFLOAT16] = store_bf16, [PT_FLOAT32] = store_f32,
    [PT_FLOAT64] = store_f64,
};
_Static_assert(PT_DTYPE_BUILTIN_COUNT == 12, "the tables above cover the builtin dtypes");

/* bool, the integers and the floating dtypes: what the distributions may store to. */
static bool is_real(int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT && stores[dtype];
}

/* torch's names in messages: "Float", "Long". */
static const char *legacy_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info && info->legacy_name[0] ? info->legacy_name : pt_random_dtype_name(dtype);
}

/* ---------------------------------------------------------------- the draws of Note [distributions] */
static inline double unit(const pt_random_ctx *c, const uint32_t w[4])
{
    return c->f64 ? pt_random_u53(w[0], w[1]) : (double)pt_random_u24(w[0]);
}

static inline double std_normal(const pt_random_ctx *c, const uint32_t w[4])
{
    return c->f64 ? pt_random_std_normal_f64(w) : (double)pt_random_std_normal_f32(w);
}

static double draw_exponential(const pt_random_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    return -log1p(-unit(c, w)) / c->a;
}

static double draw_cauchy(const pt_random_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    return c->a + c->b * tan(3.141592653589793 * (unit(c, w) - 0.5));
}

static double draw_log_normal(const pt_random_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    return exp(c->a + c->b * std_normal(c, w));
}

static double draw_geometric(const pt_random_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    const double v = ((double)((((uint64_t)w[0] << 32) | w[1]) >> 11) + 0.5) * 0x1p-53;
    const double k = ceil(log(v) / c->b); /* c->b = log1p(-p) < 0 */
    return k < c->max ? k : c->max;
}

/* x: the probability (an element of p, or the constant x0). */
static double draw_bernoulli(const pt_random_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(c);
    return pt_random_u53(w[0], w[1]) < x ? 1.0 : 0.0;
}

/* ---------------------------------------------------------------- the other fills */
/* A fill through pt_random_dist_row into self; returns a new reference to self. */
static pt_status dist_fill(const char *op, pt_tensor *self, pt_generator *g, pt_random_ctx *c,
                           pt_tensor **out)
{
    c->store = stores[self->dtype];
    c->f64 = self->dtype == PT_FLOAT64;
    PT_TRY(pt_random_fill(op, self, g, c, pt_random_dist_row));
    return pt_native_self(self, out);
}

/* torch's check for the continuous distributions: a floating self. */
static pt_status continuous_dtype(const char *dist, const pt_tensor *self)
{
    if (!pt_random_is_floating(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s distribution is a continuous probability distribution. dtype must be a "
                        "floating point but you specified %s",
                        dist, legacy_name(self->dtype));
    return PT_OK;
}

pt_status pt_kernel_exponential_(pt_tensor *self, double lambd, pt_generator *generator,
                                 pt_tensor **out)
{
    PT_TRY(continuous_dtype("Exponential", self));
    if (!(lambd > 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "exponential_ expects lambda > 0.0, but found lambda=%g",
                        lambd);
    pt_random_ctx c = {.a = lambd, .draw = draw_exponential};
    return dist_fill("exponential_", self, generator, &c, out);
}

pt_status pt_kernel_cauchy_(pt_tensor *self, double median, double sigma,
                            pt_generator *generator, pt_tensor **out)
{
    PT_TRY(continuous_dtype("Cauchy", self));
    if (!(sigma > 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "cauchy_ expects sigma > 0.0, but found sigma=%g", sigma);
    pt_random_ctx c = {.a = median, .b = sigma, .draw = draw_cauchy};
    return dist_fill("cauchy_", self, generator, &c, out);
}

pt_status pt_kernel_log_normal_(pt_tensor *self, double mean, double std, pt_generator *generator,
                                pt_tensor **out)
{
    if (!pt_random_is_floating(self->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"log_normal_cpu\" not implemented for '%s'",
                        legacy_name(self->dtype));
    if (!(std > 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "log_normal_ expects std > 0.0, but found std=%g", std);
    pt_random_ctx c = {.a = mean, .b = std, .draw = draw_log_normal};
    return dist_fill("log_normal_", self, generator, &c, out);
}

pt_status pt_kernel_geometric_(pt_tensor *self, double p, pt_generator *generator, pt_tensor **out)
{
    if (!is_real(self->dtype) || self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"geometric_cpu\" not implemented for '%s'",
                        legacy_name(self->dtype));
    if (!(p > 0.0 && p < 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%g", p);
    const pt_dtype_info *info = pt_dtype_info_of(self->dtype);
    pt_random_ctx c = {.b = log1p(-p), .draw = draw_geometric};
    c.max = pt_random_is_floating(self->dtype) ? INFINITY : (double)info->imax;
    if (self->dtype == PT_INT64) c.max = 0x1p63 - 1024.0; /* the largest double below 2^63 */
    return dist_fill("geometric_", self, generator, &c, out);
}

/* bernoulli_'s and dropout's probability check. */
static pt_status check_p(double p)
{
    if (!(p >= 0.0 && p <= 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    return PT_OK;
}

static pt_status bernoulli_dtype(const char *what, int32_t dtype)
{
    if (!is_real(dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", what,
                        legacy_name(dtype));
    return PT_OK;
}

pt_status pt_kernel_bernoulli__float(pt_tensor *self, double p, pt_generator *generator,
                                     pt_tensor **out)
{
    PT_TRY(bernoulli_dtype("bernoulli_scalar_cpu_", self->dtype));
    PT_TRY(check_p(p));
    pt_random_ctx c = {.x0 = p, .draw = draw_bernoulli};
    return dist_fill("bernoulli_", self, generator, &c, out);
}

/* ---------------------------------------------------------------- ops that read tensors */
static pt_status check_input(const char *op, const char *arg, const pt_tensor *t)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    if (t->device.type != PT_DEV_CPU && t->device.type != PT_DEV_META)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "%s: %s is a %s tensor; this kernel computes on the CPU and meta devices "
                        "only", op, arg, pt_device_type_name(t->device.type));
    return PT_OK;
}

/* Note [reading what is written]
 * An element reads its inputs before its own store, so an input that is the written tensor
 * itself (same view) is safe; an input that shares the written tensor's memory any other way is
 * copied first, where torch would refuse the partial overlap or race. */
static bool same_view(const pt_tensor *x, const pt_tensor *y)
{
    return x->storage == y->storage && x->offset == y->offset && x->ndim == y->ndim &&
           x->dtype == y->dtype &&
           (x->ndim == 0 || (!memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->ndim) &&
                             !memcmp(x->strides, y->strides, sizeof(int64_t) * (size_t)x->ndim)));
}

/* in expanded to out's shape, as a new reference; a copy where Note [reading what is written]
 * asks for one. */
static pt_status operand(const pt_tensor *out, const pt_tensor *in, pt_tensor **ret)
{
    pt_tensor *src = (pt_tensor *)in;
    const bool shared = in->storage == out->storage ||
                        (in->storage->data && in->storage->data == out->storage->data);
    if (shared && in->numel > 0 && !same_view(in, out))
        PT_TRY(pt_tensor_clone(in, PT_MEMORY_FORMAT_CONTIGUOUS, &src));
    else
        pt_tensor_retain(src);
    const pt_status st = pt_tensor_expand(src, out->ndim, out->sizes, ret);
    pt_tensor_release(src);
    return st;
}

/* torch's check of a probability tensor, made before anything is drawn (torch checks as it
 * draws, leaving the output partly written). */
static pt_status check_p_tensor(const pt_tensor *p)
{
    if (p->numel == 0) return PT_OK;
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_contiguous(p, &c));
    const char *data = pt_tensor_data(c);
    const pt_random_load_fn load = loads[p->dtype];
    const int64_t itemsize = pt_dtype_itemsize(p->dtype);
    bool ok = true;
    for (int64_t i = 0; i < c->numel && ok; i++) {
        const double v = load(data + i * itemsize);
        ok = v >= 0.0 && v <= 1.0;
    }
    pt_tensor_release(c);
    if (!ok)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got "
                        "false. (bernoulli_: an element of p is outside [0, 1])");
    return PT_OK;
}

/* bernoulli_(p) on the CPU: p's elements broadcast to self's shape, one block per element of
 * self as the fills draw them (Note [Philox stream]). */
static pt_status bernoulli_tensor_cpu(pt_tensor *self, const pt_tensor *p, pt_generator *g)
{
    PT_TRY(check_p_tensor(p));
    pt_generator *gen = NULL;
    PT_TRY(pt_random_generator_for(self->device, g, &gen));
    pt_tensor *in = NULL;
    const pt_status st = operand(self, p, &in);
    if (st == PT_OK) {
        pt_random_ctx c = {.draw = draw_bernoulli, .load = loads[p->dtype],
                           .store = stores[self->dtype]};
        pt_random_run_cpu(PT_RANDOM_MAX_OPERANDS, (const pt_tensor *[]){self, in}, gen, &c,
                          pt_random_dist_row);
    }
    pt_tensor_release(in);
    pt_generator_release(gen);
    return st;
}

pt_status pt_kernel_bernoulli__Tensor(pt_tensor *self, const pt_tensor *p, pt_generator *generator,
                                      pt_tensor **out)
{
    PT_TRY(check_input("bernoulli_", "self", self));
    PT_TRY(check_input("bernoulli_", "p", p));
    PT_TRY(pt_random_check_written("bernoulli_", self));
    if (p->device.type != self->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor on device %s is not on the expected device %s!",
                        pt_device_type_name(p->device.type),
                        pt_device_type_name(self->device.type));
    PT_TRY(bernoulli_dtype("bernoulli_tensor_cpu_self_", self->dtype));
    if (!pt_random_is_floating(p->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"bernoulli_tensor_cpu_p_\" not implemented for "
                        "'%s'", legacy_name(p->dtype));
    pt_tensor *view = NULL; /* torch's expand_inplace check, with its message */
    PT_TRY(pt_tensor_expand(p, self->ndim, self->sizes, &view));
    pt_tensor_release(view);
    if (self->device.type == PT_DEV_CPU) PT_TRY(bernoulli_tensor_cpu(self, p, generator));
    return pt_native_self(self, out);
}
