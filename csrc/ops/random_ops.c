/* random_ops.c - the random operators' adapters and composites: the in-place fills (uniform_,
 * normal_, random_ in its three forms) given their schemas, the factories built on them (rand,
 * randn, randint, randperm, normal, the *_like forms with and without a generator), and the
 * operators torch builds from other operators: bernoulli's functional and out= forms, normal with
 * tensor mean or std, and dropout.
 *
 * The numbers come from csrc/kernels/random.c (Note [Philox stream] there); these kernels only
 * give the fills their schemas — an in-place op returns a new reference to self — and make the
 * factories "empty, then fill", which is how torch builds them too, so a seed gives the same
 * numbers through rand(...) and through empty(...).uniform_(). random_'s bounds when `to` is None
 * follow torch: every integer the dtype holds exactly ([from, 2^mantissa] for floating dtypes,
 * [from, max] for integers, where int64's max itself is left out so that [from, to) fits int64).
 *
 * The composites call the operators through their entry points, as torch's do:
 *   bernoulli(self)          empty_like(self).bernoulli_(self); bernoulli(self, p) likewise.
 *   normal(Tensor, float)    empty(mean's shape and dtype).normal_(0, std).add_(mean)
 *   normal(*, Tensor std)    empty(broadcast shape, mean's dtype - std's for a number mean)
 *                            .normal_(0, 1).mul_(std).add_(mean)
 *   dropout(x, p, train)     x * (empty_like(x).bernoulli_(1 - p) * (1 / (1 - p) in x's dtype)),
 *                            x * 0 for p = 1, and x itself when not training or p = 0, as torch's
 *                            _dropout_impl (so NaN stays NaN where dropped).
 * Deviation: an out= tensor of the wrong shape is resized only when it holds no elements (torch
 * resizes any, with a warning that this will stop), as the binary operators do.
 */
#include <string.h>

#include "native.h"

/* ---------------------------------------------------------------- in-place fills */
pt_status pt_native_uniform_(pt_tensor *self, double from, double to, pt_generator *generator,
                             pt_tensor **ret)
{
    PT_TRY(pt_tensor_uniform_(self, from, to, generator));
    return pt_native_self(self, ret);
}

pt_status pt_native_normal_(pt_tensor *self, double mean, double std, pt_generator *generator,
                            pt_tensor **ret)
{
    PT_TRY(pt_tensor_normal_(self, mean, std, generator));
    return pt_native_self(self, ret);
}

/* One past the largest value random_ draws when `to` is None. */
static pt_status default_to(const pt_tensor *t, int64_t *out)
{
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    if (!info || (info->kind & PT_KIND_OPAQUE))
        return PT_ERROR(PT_ERR_TYPE,
                        "random_ expects an integer, bool or floating dtype, but got %s",
                        info ? info->name : "an unknown dtype");
    if (info->kind & (PT_KIND_FLOAT | PT_KIND_COMPLEX))
        *out = ((int64_t)1 << info->mantissa_bits) + 1;
    else if (info->kind & PT_KIND_BOOL)
        *out = 2;
    else
        *out = info->imax < INT64_MAX ? info->imax + 1 : INT64_MAX;
    return PT_OK;
}

pt_status pt_native_random__from(pt_tensor *self, int64_t from, const int64_t *to,
                                  pt_generator *generator, pt_tensor **ret)
{
    int64_t hi = 0;
    if (to) hi = *to;
    else PT_TRY(default_to(self, &hi));
    PT_TRY(pt_tensor_random_(self, from, hi, generator));
    return pt_native_self(self, ret);
}

pt_status pt_native_random__to(pt_tensor *self, int64_t to, pt_generator *generator,
                               pt_tensor **ret)
{
    return pt_native_random__from(self, 0, &to, generator, ret);
}

pt_status pt_native_random_(pt_tensor *self, pt_generator *generator, pt_tensor **ret)
{
    return pt_native_random__from(self, 0, NULL, generator, ret);
}

/* ---------------------------------------------------------------- factories */
typedef enum { FILL_UNIFORM, FILL_NORMAL, FILL_INTEGERS } fill_kind;

typedef struct fill_spec {
    fill_kind kind;
    double a, b;      /* uniform bounds, normal mean and std */
    int64_t lo, hi;   /* integer bounds [lo, hi) */
} fill_spec;

static pt_status fill(pt_tensor *t, const fill_spec *f, pt_generator *g)
{
    switch (f->kind) {
    case FILL_UNIFORM: return pt_tensor_uniform_(t, f->a, f->b, g);
    case FILL_NORMAL: return pt_tensor_normal_(t, f->a, f->b, g);
    default: return pt_tensor_random_(t, f->lo, f->hi, g);
    }
}

static pt_status filled_tensor(pt_tensor *t, const fill_spec *f, pt_generator *g, pt_tensor **ret)
{
    const pt_status st = fill(t, f, g);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *ret = t;
    return PT_OK;
}

static pt_status random_factory(const char *op, int32_t n, const int64_t *size, const fill_spec *f,
                                pt_generator *g, int32_t dtype, int32_t default_dtype,
                                int32_t layout, const pt_device *device, int32_t pin_memory,
                                pt_tensor **ret)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options(op, dtype, default_dtype, layout, device, pin_memory, &dt, &dev));
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(n, size, dt, dev, &t));
    return filled_tensor(t, f, g, ret);
}

static const fill_spec uniform01 = {FILL_UNIFORM, 0.0, 1.0, 0, 0};
static const fill_spec normal01 = {FILL_NORMAL, 0.0, 1.0, 0, 0};

pt_status pt_native_rand_generator(int32_t size_len, const int64_t *size, pt_generator *generator,
                                   int32_t dtype, int32_t layout, const pt_device *device,
                                   int32_t pin_memory, pt_tensor **ret)
{
    return random_factory("rand", size_len, size, &uniform01, generator, dtype,
                          pt_native_default_float(), layout, device, pin_memory, ret);
}

pt_status pt_native_rand(int32_t size_len, const int64_t *size, int32_t dtype, int32_t layout,
                         const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    return pt_native_rand_generator(size_len, size, NULL, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_randn_generator(int32_t size_len, const int64_t *size, pt_generator *generator,
                                    int32_t dtype, int32_t layout, const pt_device *device,
                                    int32_t pin_memory, pt_tensor **ret)
{
    return random_factory("randn", size_len, size, &normal01, generator, dtype,
                          pt_native_default_float(), layout, device, pin_memory, ret);
}

pt_status pt_native_randn(int32_t size_len, const int64_t *size, int32_t dtype, int32_t layout,
                          const pt_device *device, int32_t pin_memory, pt_tensor **ret)
{
    return pt_native_randn_generator(size_len, size, NULL, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_randint_low_generator(int64_t low, int64_t high, int32_t size_len,
                                          const int64_t *size, pt_generator *generator,
                                          int32_t dtype, int32_t layout, const pt_device *device,
                                          int32_t pin_memory, pt_tensor **ret)
{
    const fill_spec f = {FILL_INTEGERS, 0, 0, low, high};
    return random_factory("randint", size_len, size, &f, generator, dtype, PT_INT64, layout,
                          device, pin_memory, ret);
}

pt_status pt_native_randint_low(int64_t low, int64_t high, int32_t size_len, const int64_t *size,
                                int32_t dtype, int32_t layout, const pt_device *device,
                                int32_t pin_memory, pt_tensor **ret)
{
    return pt_native_randint_low_generator(low, high, size_len, size, NULL, dtype, layout, device,
                                           pin_memory, ret);
}

pt_status pt_native_randint_generator(int64_t high, int32_t size_len, const int64_t *size,
                                      pt_generator *generator, int32_t dtype, int32_t layout,
                                      const pt_device *device, int32_t pin_memory,
                                      pt_tensor **ret)
{
    return pt_native_randint_low_generator(0, high, size_len, size, generator, dtype, layout,
                                           device, pin_memory, ret);
}

pt_status pt_native_randint(int64_t high, int32_t size_len, const int64_t *size, int32_t dtype,
                            int32_t layout, const pt_device *device, int32_t pin_memory,
                            pt_tensor **ret)
{
    return pt_native_randint_low_generator(0, high, size_len, size, NULL, dtype, layout, device,
                                           pin_memory, ret);
}

pt_status pt_native_randperm_generator(int64_t n, pt_generator *generator, int32_t dtype,
                                       int32_t layout, const pt_device *device,
                                       int32_t pin_memory, pt_tensor **ret)
{
    int32_t dt = 0;
    pt_device dev = {0, 0};
    PT_TRY(pt_native_options("randperm", dtype, PT_INT64, layout, device, pin_memory, &dt, &dev));
    return pt_tensor_randperm(n, dt, dev, generator, ret);
}

pt_status pt_native_randperm(int64_t n, int32_t dtype, int32_t layout, const pt_device *device,
                             int32_t pin_memory, pt_tensor **ret)
{
    return pt_native_randperm_generator(n, NULL, dtype, layout, device, pin_memory, ret);
}

pt_status pt_native_normal_float_float(double mean, double std, int32_t size_len,
                                       const int64_t *size, pt_generator *generator,
                                       int32_t dtype, int32_t layout, const pt_device *device,
                                       int32_t pin_memory, pt_tensor **ret)
{
    const fill_spec f = {FILL_NORMAL, mean, std, 0, 0};
    return random_factory("normal", size_len, size, &f, generator, dtype, pt_native_default_float(),
                          layout, device, pin_memory, ret);
}

/* ---------------------------------------------------------------- *_like */
/* torch's dtype checks of the fill behind each *_like, made before anything is allocated. */
static pt_status like_dtype_check(fill_kind kind, int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if (!info) return pt_dtype_check(dtype, "dtype");
    if (kind == FILL_INTEGERS) {
        if (info->kind & (PT_KIND_COMPLEX | PT_KIND_OPAQUE))
            return PT_ERROR(PT_ERR_RUNTIME, "check_random_bounds handles only integral, "
                            "floating-point and boolean types");
        return PT_OK;
    }
    if (info->kind & (PT_KIND_FLOAT | PT_KIND_COMPLEX)) return PT_OK; /* complex: the real view */
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                    kind == FILL_UNIFORM ? "check_uniform_bounds" : "normal_kernel_cpu",
                    info->legacy_name[0] ? info->legacy_name : info->name);
}

static pt_status random_like(const char *op, const pt_tensor *self, const fill_spec *f,
                             pt_generator *g, int32_t dtype, int32_t layout,
                             const pt_device *device, int32_t pin_memory, int32_t memory_format,
                             pt_tensor **ret)
{
    PT_TRY(like_dtype_check(f->kind, dtype >= 0 ? dtype : self->dtype));
    pt_tensor *t = NULL;
    PT_TRY(pt_native_like(op, self, dtype, layout, device, pin_memory, memory_format, &t));
    return filled_tensor(t, f, g, ret);
}

pt_status pt_native_rand_like_generator(const pt_tensor *self, pt_generator *generator,
                                        int32_t dtype, int32_t layout, const pt_device *device,
                                        int32_t pin_memory, int32_t memory_format,
                                        pt_tensor **ret)
{
    return random_like("rand_like", self, &uniform01, generator, dtype, layout, device,
                       pin_memory, memory_format, ret);
}

pt_status pt_native_rand_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                              const pt_device *device, int32_t pin_memory, int32_t memory_format,
                              pt_tensor **ret)
{
    return pt_native_rand_like_generator(self, NULL, dtype, layout, device, pin_memory,
                                         memory_format, ret);
}

pt_status pt_native_randn_like_generator(const pt_tensor *self, pt_generator *generator,
                                         int32_t dtype, int32_t layout, const pt_device *device,
                                         int32_t pin_memory, int32_t memory_format,
                                         pt_tensor **ret)
{
    return random_like("randn_like", self, &normal01, generator, dtype, layout, device,
                       pin_memory, memory_format, ret);
}

pt_status pt_native_randn_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                               const pt_device *device, int32_t pin_memory, int32_t memory_format,
                               pt_tensor **ret)
{
    return pt_native_randn_like_generator(self, NULL, dtype, layout, device, pin_memory,
                                          memory_format, ret);
}

pt_status pt_native_randint_like_low_generator_dtype(const pt_tensor *self, int64_t low,
                                                     int64_t high, pt_generator *generator,
                                                     int32_t dtype, int32_t layout,
                                                     const pt_device *device, int32_t pin_memory,
                                                     int32_t memory_format, pt_tensor **ret)
{
    const fill_spec f = {FILL_INTEGERS, 0, 0, low, high};
    return random_like("randint_like", self, &f, generator, dtype, layout, device, pin_memory,
                       memory_format, ret);
}

pt_status pt_native_randint_like_low_dtype(const pt_tensor *self, int64_t low, int64_t high,
                                           int32_t dtype, int32_t layout, const pt_device *device,
                                           int32_t pin_memory, int32_t memory_format,
                                           pt_tensor **ret)
{
    return pt_native_randint_like_low_generator_dtype(self, low, high, NULL, dtype, layout,
                                                      device, pin_memory, memory_format, ret);
}

pt_status pt_native_randint_like_generator(const pt_tensor *self, int64_t high,
                                           pt_generator *generator, int32_t dtype, int32_t layout,
                                           const pt_device *device, int32_t pin_memory,
                                           int32_t memory_format, pt_tensor **ret)
{
    return pt_native_randint_like_low_generator_dtype(self, 0, high, generator, dtype, layout,
                                                      device, pin_memory, memory_format, ret);
}

pt_status pt_native_randint_like(const pt_tensor *self, int64_t high, int32_t dtype,
                                 int32_t layout, const pt_device *device, int32_t pin_memory,
                                 int32_t memory_format, pt_tensor **ret)
{
    return pt_native_randint_like_low_generator_dtype(self, 0, high, NULL, dtype, layout, device,
                                                      pin_memory, memory_format, ret);
}

/* ---------------------------------------------------------------- composites: shared */
/* An entry point's result (a new reference, or NULL with the error set) released: the in-place
 * calls' results are the tensor the composite already holds. */
static pt_status called(pt_tensor *r)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_tensor_release(r);
    return PT_OK;
}

/* t as the result when st is PT_OK, else t released. */
/* An operator's result kept in *out, or its error. */
static pt_status called_keep(pt_tensor *r, pt_tensor **out)
{
    *out = r;
    return r ? PT_OK : pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
}

static pt_status result_or_release(pt_status st, pt_tensor *t, pt_tensor **ret)
{
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *ret = t;
    return PT_OK;
}

static bool is_floating(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info && (info->kind & PT_KIND_FLOAT) && !(info->kind & PT_KIND_OPAQUE);
}

static const char *legacy_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return !info ? "unknown" : info->legacy_name[0] ? info->legacy_name : info->name;
}

/* An out= tensor of shape [nd, shape]: as it is, or resized when it holds no elements. */
static pt_status out_shape(const char *op, pt_tensor *out, int32_t nd, const int64_t *shape)
{
    if (out->ndim == nd && (nd == 0 || !memcmp(out->sizes, shape, sizeof(int64_t) * (size_t)nd)))
        return PT_OK;
    if (out->numel != 0) {
        char have[256], want[256];
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: out with shape %s doesn't match the result's shape %s; only an out "
                        "tensor with no elements is resized (resize_(0) it first)",
                        op, pt_format_ints(have, sizeof have, out->ndim, out->sizes),
                        pt_format_ints(want, sizeof want, nd, shape));
    }
    return pt_tensor_resize_(out, nd, shape);
}

/* ---------------------------------------------------------------- bernoulli */
/* out.bernoulli_(p) with p a tensor, or the number *pf. */
static pt_status bernoulli_into(pt_tensor *out, const pt_tensor *p, const double *pf,
                                pt_generator *g)
{
    return called(p ? pt_call_bernoulli__Tensor(out, p, g) : pt_call_bernoulli__float(out, *pf, g));
}

static pt_status bernoulli_new(const pt_tensor *self, const pt_tensor *p, const double *pf,
                               pt_generator *g, pt_tensor **ret)
{
    pt_tensor *t = NULL;
    PT_TRY(pt_native_like("bernoulli", self, -1, -1, NULL, -1, -1, &t));
    return result_or_release(bernoulli_into(t, p, pf, g), t, ret);
}

static pt_status bernoulli_out(const pt_tensor *self, const pt_tensor *p, const double *pf,
                               pt_generator *g, pt_tensor *out, pt_tensor **ret)
{
    PT_TRY(out_shape("bernoulli", out, self->ndim, self->sizes));
    PT_TRY(bernoulli_into(out, p, pf, g));
    return pt_native_self(out, ret);
}

pt_status pt_native_bernoulli(const pt_tensor *self, pt_generator *generator, pt_tensor **ret)
{
    return bernoulli_new(self, self, NULL, generator, ret);
}

pt_status pt_native_bernoulli_out(const pt_tensor *self, pt_generator *generator, pt_tensor *out,
                                  pt_tensor **ret)
{
    return bernoulli_out(self, self, NULL, generator, out, ret);
}

pt_status pt_native_bernoulli_Tensor(const pt_tensor *self, const pt_tensor *p,
                                     pt_generator *generator, pt_tensor **ret)
{
    return bernoulli_new(self, p, NULL, generator, ret);
}

pt_status pt_native_bernoulli_Tensor_out(const pt_tensor *self, const pt_tensor *p,
                                         pt_generator *generator, pt_tensor *out, pt_tensor **ret)
{
    return bernoulli_out(self, p, NULL, generator, out, ret);
}

pt_status pt_native_bernoulli_p(const pt_tensor *self, double p, pt_generator *generator,
                                pt_tensor **ret)
{
    return bernoulli_new(self, NULL, &p, generator, ret);
}

pt_status pt_native_bernoulli_float_out(const pt_tensor *self, double p, pt_generator *generator,
                                        pt_tensor *out, pt_tensor **ret)
{
    return bernoulli_out(self, NULL, &p, generator, out, ret);
}

/* ---------------------------------------------------------------- normal with tensors */
static pt_status normal_dtype(int32_t dtype)
{
    if (is_floating(dtype) || dtype == PT_COMPLEX64 || dtype == PT_COMPLEX128) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"normal_kernel_cpu\" not implemented for '%s'",
                    legacy_name(dtype));
}

static pt_status check_std(double std)
{
    if (!(std >= 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
    return PT_OK;
}

/* torch's CHECK_NORMAL_TENSOR_STD: real, and every element >= 0 (NaN is not). */
static pt_status check_std_tensor(const pt_tensor *std)
{
    const pt_dtype_info *info = pt_dtype_info_of(std->dtype);
    if (!info || (info->kind & (PT_KIND_COMPLEX | PT_KIND_OPAQUE)))
        return PT_ERROR(PT_ERR_RUNTIME, "normal expects standard deviation to be non-complex");
    if (std->numel == 0 || std->device.type != PT_DEV_CPU) return PT_OK;
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_contiguous(std, &c));
    const pt_cast_fn cast = pt_dtype_cast_fn(std->dtype, PT_FLOAT64);
    const char *data = pt_tensor_data(c);
    bool ok = true;
    for (int64_t i = 0; i < c->numel && ok; i++) {
        double v;
        cast((char *)&v, 0, data + i * info->itemsize, 0, 1);
        ok = v >= 0.0;
    }
    pt_tensor_release(c);
    return ok ? PT_OK : PT_ERROR(PT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
}

/* out.normal_(0, std_number).add_(mean) for a number std; out.normal_(0, 1).mul_(std).add_(mean)
 * for a tensor std. mean is a tensor or the number *mean_f. */
static pt_status normal_into(pt_tensor *out, const pt_tensor *mean, double mean_f,
                             const pt_tensor *std, double std_f, pt_generator *g)
{
    PT_TRY(normal_dtype(out->dtype));
    PT_TRY(called(pt_call_normal_(out, 0.0, std ? 1.0 : std_f, g)));
    if (std) PT_TRY(called(pt_call_mul__Tensor(out, std)));
    static const pt_scalar one = {PT_SCALAR_INT, 1, 0.0, 0.0};
    if (mean) return called(pt_call_add__Tensor(out, mean, &one));
    const pt_scalar m = {PT_SCALAR_FLOAT, 0, mean_f, 0.0};
    return called(pt_call_add__Scalar(out, &m, &one));
}

/* The result's shape (mean's and std's broadcast) and dtype, checked like the rest of the call
 * before anything is drawn. */
static pt_status normal_shape(const pt_tensor *mean, const pt_tensor *std, int32_t *nd,
                              int64_t *shape)
{
    const pt_tensor *a = mean ? mean : std, *b = std ? std : mean;
    return pt_broadcast_sizes(a->ndim, a->sizes, b->ndim, b->sizes, nd, shape);
}

/* The functional forms: a new contiguous tensor of mean's dtype (std's for a number mean). */
static pt_status normal_new(const pt_tensor *mean, double mean_f, const pt_tensor *std,
                            double std_f, pt_generator *g, pt_tensor **ret)
{
    const pt_tensor *like = mean ? mean : std;
    int32_t nd;
    int64_t shape[PT_MAX_DIMS];
    PT_TRY(normal_shape(mean, std, &nd, shape));
    PT_TRY(normal_dtype(like->dtype));
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(nd, shape, like->dtype, like->device, &t));
    return result_or_release(normal_into(t, mean, mean_f, std, std_f, g), t, ret);
}

static pt_status normal_out(const pt_tensor *mean, double mean_f, const pt_tensor *std,
                            double std_f, pt_generator *g, pt_tensor *out, pt_tensor **ret)
{
    int32_t nd;
    int64_t shape[PT_MAX_DIMS];
    PT_TRY(normal_shape(mean, std, &nd, shape));
    PT_TRY(normal_dtype(out->dtype));
    PT_TRY(out_shape("normal", out, nd, shape));
    PT_TRY(normal_into(out, mean, mean_f, std, std_f, g));
    return pt_native_self(out, ret);
}

pt_status pt_native_normal_Tensor_float(const pt_tensor *mean, double std, pt_generator *generator,
                                        pt_tensor **ret)
{
    PT_TRY(check_std(std));
    return normal_new(mean, 0.0, NULL, std, generator, ret);
}

pt_status pt_native_normal_Tensor_float_out(const pt_tensor *mean, double std,
                                            pt_generator *generator, pt_tensor *out,
                                            pt_tensor **ret)
{
    PT_TRY(check_std(std));
    return normal_out(mean, 0.0, NULL, std, generator, out, ret);
}

pt_status pt_native_normal_float_Tensor(double mean, const pt_tensor *std, pt_generator *generator,
                                        pt_tensor **ret)
{
    PT_TRY(check_std_tensor(std));
    return normal_new(NULL, mean, std, 0.0, generator, ret);
}

pt_status pt_native_normal_float_Tensor_out(double mean, const pt_tensor *std,
                                            pt_generator *generator, pt_tensor *out,
                                            pt_tensor **ret)
{
    PT_TRY(check_std_tensor(std));
    return normal_out(NULL, mean, std, 0.0, generator, out, ret);
}

pt_status pt_native_normal_Tensor_Tensor(const pt_tensor *mean, const pt_tensor *std,
                                         pt_generator *generator, pt_tensor **ret)
{
    PT_TRY(check_std_tensor(std));
    return normal_new(mean, 0.0, std, 0.0, generator, ret);
}

pt_status pt_native_normal_Tensor_Tensor_out(const pt_tensor *mean, const pt_tensor *std,
                                             pt_generator *generator, pt_tensor *out,
                                             pt_tensor **ret)
{
    PT_TRY(check_std_tensor(std));
    return normal_out(mean, 0.0, std, 0.0, generator, out, ret);
}

/* ---------------------------------------------------------------- dropout */
/* 1 / (1 - p) as torch's noise.div_(1 - p) leaves it in the dtype: the division in the dtype's
 * arithmetic (float for the 16-bit ones, whose result fill_ then rounds). */
static double dropout_scale(int32_t dtype, double p)
{
    if (dtype == PT_FLOAT64) return 1.0 / (1.0 - p);
    return (double)(1.0f / (float)(1.0 - p));
}

/* The scaled mask: empty_like(input).bernoulli_(1 - p) * scale, in input's dtype. */
static pt_status dropout_noise(const pt_tensor *input, double p, pt_tensor **out)
{
    pt_tensor *noise = NULL, *scale = NULL;
    PT_TRY(pt_native_like("dropout", input, -1, -1, NULL, -1, -1, &noise));
    pt_status st = called(pt_call_bernoulli__float(noise, 1.0 - p, NULL));
    if (st == PT_OK && !is_floating(input->dtype))
        st = PT_ERROR(PT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                      legacy_name(pt_native_default_float()), legacy_name(input->dtype));
    if (st == PT_OK) st = pt_tensor_empty(0, NULL, input->dtype, input->device, &scale);
    if (st == PT_OK) {
        const pt_scalar s = {PT_SCALAR_FLOAT, 0, dropout_scale(input->dtype, p), 0.0};
        st = pt_tensor_fill_(scale, &s);
    }
    if (st == PT_OK) st = called(pt_call_mul__Tensor(noise, scale));
    pt_tensor_release(scale);
    return result_or_release(st, noise, out);
}

static pt_status dropout(pt_tensor *input, double p, int32_t train, bool inplace, pt_tensor **ret)
{
    if (!(p >= 0.0 && p <= 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "dropout probability has to be between 0 and 1, but got %g",
                        p);
    if (p == 0.0 || !train || input->numel == 0) return pt_native_self(input, ret);
    pt_tensor *factor = NULL;
    if (p == 1.0) {
        factor = pt_call_zeros(0, NULL, input->dtype, -1, &input->device, -1);
        if (!factor) return called(NULL);
    } else {
        PT_TRY(dropout_noise(input, p, &factor));
    }
    pt_tensor *r = inplace ? pt_call_mul__Tensor(input, factor) : pt_call_mul_Tensor(input, factor);
    pt_tensor_release(factor);
    if (!r) return called(NULL);
    *ret = r;
    return PT_OK;
}

pt_status pt_native_dropout(const pt_tensor *input, double p, int32_t train, pt_tensor **ret)
{
    /* torch's is_fused_kernel_acceptable: the fused kernel serves devices other than the CPU */
    if (input->device.type != PT_DEV_CPU && train && p > 0 && p < 1 && input->numel > 0) {
        pt_tensor *mask = NULL;
        PT_TRY(pt_call_native_dropout(input, p, 1, ret, &mask));
        pt_tensor_release(mask);
        return PT_OK;
    }
    return dropout((pt_tensor *)input, p, train, false, ret);
}

/* (output, mask): the mask is bool (false where an element was dropped) and the output
 * input * mask / (1 - p), from the same draws as dropout's for one seed; not training, the
 * output is a copy and the mask all true; an empty input gives itself and an empty mask of its
 * dtype, as torch's CPU kernel. */
pt_status pt_native_native_dropout(const pt_tensor *input, double p, int32_t train,
                                   pt_tensor **ret0, pt_tensor **ret1)
{
    /* no check of p of its own, as torch's: bernoulli_ refuses a p outside [0, 1] */
    pt_tensor *out = NULL, *mask = NULL, *factor = NULL;
    pt_status st = PT_OK;
    if (input->numel == 0) {
        PT_TRY(pt_native_alias(input, &out));
        st = pt_native_like("native_dropout", input, -1, -1, NULL, -1, -1, &mask);
    } else if (train == 0) {
        st = called_keep(pt_call_clone(input, -1), &out);
        if (st == PT_OK)
            st = called_keep(pt_call_ones_like(input, PT_BOOL, -1, NULL, -1, -1), &mask);
    } else {
        if (p == 1.0) {
            st = called_keep(pt_call_zeros(0, NULL, input->dtype, -1, &input->device, -1),
                             &factor);
        } else {
            st = dropout_noise(input, p, &factor);
        }
        if (st == PT_OK) st = called_keep(pt_call_mul_Tensor(input, factor), &out);
        if (st == PT_OK && p == 1.0)
            st = called_keep(pt_call_zeros_like(input, PT_BOOL, -1, NULL, -1, -1), &mask);
        else if (st == PT_OK) {
            const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
            st = called_keep(pt_call_ne_Scalar(factor, &zero), &mask);
        }
        pt_tensor_release(factor);
    }
    if (st != PT_OK) {
        pt_tensor_release(out);
        pt_tensor_release(mask);
        return st;
    }
    *ret0 = out;
    *ret1 = mask;
    return PT_OK;
}

pt_status pt_native_native_dropout_backward(const pt_tensor *grad_output, const pt_tensor *mask,
                                            double scale, pt_tensor **ret)
{
    pt_tensor *kept = pt_call_mul_Tensor(grad_output, mask);
    if (!kept) return called(NULL);
    const pt_scalar s = {PT_SCALAR_FLOAT, 0, scale, 0.0};
    *ret = pt_call_mul_Scalar(kept, &s);
    pt_tensor_release(kept);
    return *ret ? PT_OK : called(NULL);
}

pt_status pt_native_dropout_(pt_tensor *self, double p, int32_t train, pt_tensor **ret)
{
    return dropout(self, p, train, true, ret);
}
