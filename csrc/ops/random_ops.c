/* random_ops.c - the random operators' kernels: the in-place fills (uniform_, normal_, random_ in
 * its three forms) and the factories built on them (rand, randn, randint, randperm, normal, the
 * *_like forms).
 *
 * The numbers come from csrc/kernels/random.c (Note [Philox stream] there); these kernels only
 * give the fills their schemas — an in-place op returns a new reference to self — and make the
 * factories "empty, then fill", which is how torch builds them too, so a seed gives the same
 * numbers through rand(...) and through empty(...).uniform_(). random_'s bounds when `to` is None
 * follow torch: every integer the dtype holds exactly ([from, 2^mantissa] for floating dtypes,
 * [from, max] for integers, where int64's max itself is left out so that [from, to) fits int64).
 */
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
static pt_status random_like(const char *op, const pt_tensor *self, const fill_spec *f,
                             int32_t dtype, int32_t layout, const pt_device *device,
                             int32_t pin_memory, int32_t memory_format, pt_tensor **ret)
{
    pt_tensor *t = NULL;
    PT_TRY(pt_native_like(op, self, dtype, layout, device, pin_memory, memory_format, &t));
    return filled_tensor(t, f, NULL, ret);
}

pt_status pt_native_rand_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                              const pt_device *device, int32_t pin_memory, int32_t memory_format,
                              pt_tensor **ret)
{
    return random_like("rand_like", self, &uniform01, dtype, layout, device, pin_memory,
                       memory_format, ret);
}

pt_status pt_native_randn_like(const pt_tensor *self, int32_t dtype, int32_t layout,
                               const pt_device *device, int32_t pin_memory, int32_t memory_format,
                               pt_tensor **ret)
{
    return random_like("randn_like", self, &normal01, dtype, layout, device, pin_memory,
                       memory_format, ret);
}

pt_status pt_native_randint_like_low_dtype(const pt_tensor *self, int64_t low, int64_t high,
                                           int32_t dtype, int32_t layout, const pt_device *device,
                                           int32_t pin_memory, int32_t memory_format,
                                           pt_tensor **ret)
{
    const fill_spec f = {FILL_INTEGERS, 0, 0, low, high};
    return random_like("randint_like", self, &f, dtype, layout, device, pin_memory, memory_format,
                       ret);
}

pt_status pt_native_randint_like(const pt_tensor *self, int64_t high, int32_t dtype,
                                 int32_t layout, const pt_device *device, int32_t pin_memory,
                                 int32_t memory_format, pt_tensor **ret)
{
    return pt_native_randint_like_low_dtype(self, 0, high, dtype, layout, device, pin_memory,
                                            memory_format, ret);
}
