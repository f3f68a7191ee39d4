/* The random operators of csrc/ops/random.yaml through their entry points: the values against
 * the Philox stream (Note [Philox stream] in csrc/kernels/random.c, Note [distributions] in
 * random_draws.c), the generator offsets each op consumes, meta tensors that draw nothing, and
 * the argument checks. */
#include "pt_test.h"

#include <math.h>

#include "pt_ops.h"

static const pt_device cpu = {PT_DEV_CPU, 0};
static const pt_device meta = {PT_DEV_META, 0};

/* 53-bit u in [0, 1) of block `block` for `seed`: what element (block - first offset) draws. */
static double u53_of(uint64_t seed, uint64_t block)
{
    const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t w[4];
    pt_philox4x32_10(ctr, key, w);
    return (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
}

static pt_generator *seeded(uint64_t seed)
{
    pt_generator *g = NULL;
    if (pt_generator_new(cpu, &g) != PT_OK) return NULL;
    pt_generator_manual_seed(g, seed);
    return g;
}

static pt_tensor *filled(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device dev,
                         double value)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(ndim, sizes, dtype, dev, &t) != PT_OK) return NULL;
    const pt_scalar v = {.kind = PT_SCALAR_FLOAT, .re = value};
    if (pt_tensor_fill_(t, &v) != PT_OK) {
        pt_tensor_release(t);
        return NULL;
    }
    return t;
}

/* The entry point's status: the in-place result released. */
static pt_status inplace(pt_tensor *r)
{
    if (!r) return pt_error_code();
    pt_tensor_release(r);
    return PT_OK;
}

PT_TEST(bernoulli_float_draws_u_below_p_from_each_elements_block)
{
    const int64_t n = 777;
    pt_generator *g = seeded(99);
    pt_tensor *t = filled(1, &n, PT_INT16, cpu, 5.0);
    CHECK(g && t);
    pt_generator_set_offset(g, 1000);
    CHECK_OK(inplace(pt_call_bernoulli__float(t, 0.35, g)));
    const int16_t *v = pt_tensor_data(t);
    for (int64_t i = 0; i < n; i++) CHECK(v[i] == (u53_of(99, 1000 + (uint64_t)i) < 0.35));
    CHECK(pt_generator_offset(g) == 1000 + (uint64_t)n);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(bernoulli_tensor_reads_p_broadcast_and_any_float_dtype)
{
    const int64_t shape[2] = {40, 3}, pshape[2] = {40, 1};
    pt_generator *g = seeded(7);
    pt_tensor *t = filled(2, shape, PT_FLOAT64, cpu, 0.0);
    pt_tensor *p = filled(2, pshape, PT_FLOAT16, cpu, 0.0);
    CHECK(g && t && p);
    uint16_t *pv = pt_tensor_data(p);
    for (int i = 0; i < 40; i++) pv[i] = pt_float_to_half((float)i / 40.0f);
    CHECK_OK(inplace(pt_call_bernoulli__Tensor(t, p, g)));
    const double *v = pt_tensor_data(t);
    for (int64_t i = 0; i < 120; i++) {
        const double prob = pt_half_to_float(pv[i / 3]);
        CHECK(v[i] == (u53_of(7, (uint64_t)i) < prob ? 1.0 : 0.0));
    }
    pt_tensor_release(p);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(exponential_is_exact_in_float64)
{
    const int64_t n = 300;
    pt_generator *g = seeded(3);
    pt_tensor *t = filled(1, &n, PT_FLOAT64, cpu, 0.0);
    CHECK(g && t);
    CHECK_OK(inplace(pt_call_exponential_(t, 4.0, g)));
    const double *v = pt_tensor_data(t);
    for (int64_t i = 0; i < n; i++) CHECK(v[i] == -log1p(-u53_of(3, (uint64_t)i)) / 4.0);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(multinomial_consumes_one_block_per_category_or_per_sample)
{
    const int64_t shape[2] = {4, 6};
    pt_generator *g = seeded(11);
    pt_tensor *p = filled(2, shape, PT_FLOAT32, cpu, 1.0);
    CHECK(g && p);
    pt_tensor *a = pt_call_multinomial(p, 6, 0, g);
    CHECK(a && a->ndim == 2 && a->sizes[0] == 4 && a->sizes[1] == 6 && a->dtype == PT_INT64);
    CHECK(pt_generator_offset(g) == 24);
    const int64_t *av = pt_tensor_data(a);
    for (int r = 0; r < 4; r++) { /* a permutation per row */
        int seen = 0;
        for (int j = 0; j < 6; j++) seen |= 1 << av[r * 6 + j];
        CHECK(seen == 63);
    }
    pt_tensor *b = pt_call_multinomial(p, 10, 1, g);
    CHECK(b && b->sizes[1] == 10 && pt_generator_offset(g) == 24 + 40);
    const int64_t *bv = pt_tensor_data(b);
    for (int i = 0; i < 40; i++) CHECK(bv[i] >= 0 && bv[i] < 6);
    pt_tensor_release(a);
    pt_tensor_release(b);
    pt_tensor_release(p);
    pt_generator_release(g);
}

PT_TEST(meta_tensors_are_shaped_and_draw_nothing)
{
    const int64_t shape[2] = {5, 7};
    pt_generator *g = seeded(1);
    pt_tensor *t = filled(2, shape, PT_FLOAT32, meta, 0.0);
    CHECK(g && t);
    CHECK_OK(inplace(pt_call_bernoulli__float(t, 0.5, g)));
    CHECK_OK(inplace(pt_call_bernoulli__Tensor(t, t, g)));
    CHECK_OK(inplace(pt_call_geometric_(t, 0.5, g)));
    pt_tensor *m = pt_call_multinomial(t, 3, 1, g);
    CHECK(m && m->device.type == PT_DEV_META && m->sizes[0] == 5 && m->sizes[1] == 3);
    CHECK(pt_generator_offset(g) == 0);
    pt_tensor_release(m);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(dropout_keeps_what_bernoulli_keeps_scaled)
{
    const int64_t n = 500;
    pt_generator *g = NULL;
    CHECK_OK(pt_generator_default(cpu, &g));
    pt_tensor *x = filled(1, &n, PT_FLOAT32, cpu, 3.0);
    CHECK(x);
    pt_generator_manual_seed(g, 5);
    pt_tensor *y = pt_call_dropout(x, 0.2, 1);
    CHECK(y);
    const float *v = pt_tensor_data(y), scale = 1.0f / (float)(1.0 - 0.2);
    for (int64_t i = 0; i < n; i++)
        CHECK(v[i] == (u53_of(5, (uint64_t)i) < 1.0 - 0.2 ? 3.0f * scale : 0.0f));
    pt_tensor_release(y);
    pt_tensor_release(x);
    pt_generator_release(g);
}

PT_TEST(random_ops_refuse_bad_arguments_before_drawing)
{
    const int64_t n = 3;
    pt_generator *g = seeded(1);
    pt_tensor *t = filled(1, &n, PT_FLOAT32, cpu, 9.0);
    pt_tensor *bad = filled(1, &n, PT_FLOAT32, cpu, 1.5);
    pt_tensor *ints = filled(1, &n, PT_INT64, cpu, 1.0);
    CHECK(g && t && bad && ints);
    CHECK(!pt_call_bernoulli__float(t, 2.0, g));
    CHECK(pt_error_code() == PT_ERR_RUNTIME && strstr(pt_error_message(), "p=2"));
    CHECK(!pt_call_bernoulli__Tensor(t, bad, g));
    CHECK(strstr(pt_error_message(), "p_in >= 0 && p_in <= 1"));
    CHECK(!pt_call_bernoulli__Tensor(t, ints, g));
    CHECK(pt_error_code() == PT_ERR_NOT_IMPLEMENTED && strstr(pt_error_message(), "'Long'"));
    CHECK(((const float *)pt_tensor_data(t))[0] == 9.0f);
    CHECK(!pt_call_multinomial(t, 4, 0, g));
    CHECK(strstr(pt_error_message(), "without replacement"));
    CHECK(!pt_call_multinomial(ints, 1, 0, g));
    CHECK(strstr(pt_error_message(), "got: Long"));
    CHECK(!pt_call_exponential_(t, -1.0, g));
    CHECK(!pt_call_geometric_(ints, 1.0, g));
    CHECK(!pt_call_dropout(t, 2.0, 0));
    CHECK(strstr(pt_error_message(), "dropout probability has to be between 0 and 1"));
    CHECK(pt_generator_offset(g) == 0);
    pt_tensor_release(ints);
    pt_tensor_release(bad);
    pt_tensor_release(t);
    pt_generator_release(g);
}
