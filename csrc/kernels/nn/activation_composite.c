/* activation_composite.c - the activations torch writes as compositions of other operators
 * (CompositeImplicitAutograd): relu6 (hardtanh), selu (elu with its constants), rrelu
 * (rrelu_with_noise with a fresh noise tensor), log_sigmoid (log_sigmoid_forward's output), prelu
 * (weight reshaped to broadcast over the channels, then _prelu_kernel), and the dropout variants
 * feature_dropout, alpha_dropout and feature_alpha_dropout.
 *
 * They call operators through the dispatcher, so autograd records what torch records (selu's
 * grad_fn is EluBackward0, relu6's HardtanhBackward0, a dropout's MulBackward0 or AddBackward0).
 *
 * The dropout variants follow torch's _dropout_impl: p outside [0, 1] is refused; p == 0, not
 * training or an empty input return the input itself; p == 1 multiplies by a zero; otherwise a
 * noise tensor (self's shape, or (N, C, 1, ...) for the feature variants: one draw per channel)
 * takes bernoulli(1 - p) through the default generator and is scaled by 1 / (1 - p) (dropout), or
 * for the alpha variants by a and shifted by b = (noise - 1) * alpha' * a + alpha' * a * p, so
 * that a unit-variance input keeps its mean and variance (alpha' = SELU's alpha * scale).
 */
#include <math.h>

#include "iter.h"
#include "native.h"

static pt_status called(pt_tensor *t, pt_tensor **out)
{
    if (!t) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *out = t;
    return PT_OK;
}

static pt_scalar dbl(double v) { return (pt_scalar){PT_SCALAR_FLOAT, 0, v, 0.0}; }
static pt_scalar num(int64_t v) { return (pt_scalar){PT_SCALAR_INT, v, 0.0, 0.0}; }

/* ---------------------------------------------------------------- relu6, selu */
pt_status pt_native_relu6(const pt_tensor *self, pt_tensor **ret)
{
    const pt_scalar lo = num(0), hi = num(6);
    return called(pt_call_hardtanh(self, &lo, &hi), ret);
}

pt_status pt_native_relu6_(pt_tensor *self, pt_tensor **ret)
{
    const pt_scalar lo = num(0), hi = num(6);
    return called(pt_call_hardtanh_(self, &lo, &hi), ret);
}

static const double SELU_ALPHA = 1.6732632423543772848170429916717;
static const double SELU_SCALE = 1.0507009873554804934193349852946;

pt_status pt_native_selu(const pt_tensor *self, pt_tensor **ret)
{
    const pt_scalar a = dbl(SELU_ALPHA), s = dbl(SELU_SCALE), one = num(1);
    return called(pt_call_elu(self, &a, &s, &one), ret);
}

pt_status pt_native_selu_(pt_tensor *self, pt_tensor **ret)
{
    const pt_scalar a = dbl(SELU_ALPHA), s = dbl(SELU_SCALE), one = num(1);
    return called(pt_call_elu_(self, &a, &s, &one), ret);
}

/* ---------------------------------------------------------------- rrelu, log_sigmoid */
static pt_status rrelu(bool inplace, pt_tensor *self, const pt_scalar *lower,
                       const pt_scalar *upper, int32_t training, pt_generator *generator,
                       pt_tensor **ret)
{
    if (!self) return PT_ERROR(PT_ERR_VALUE, "rrelu: self must be a tensor, got NULL");
    pt_tensor *noise = NULL;
    PT_TRY(called(pt_call_empty_like(self, -1, -1, NULL, -1, PT_MEMORY_FORMAT_CONTIGUOUS),
                  &noise));
    pt_tensor *r = inplace ? pt_call_rrelu_with_noise_(self, noise, lower, upper, training,
                                                        generator)
                           : pt_call_rrelu_with_noise(self, noise, lower, upper, training,
                                                       generator);
    pt_tensor_release(noise);
    return called(r, ret);
}

pt_status pt_native_rrelu(const pt_tensor *self, const pt_scalar *lower, const pt_scalar *upper,
                          int32_t training, pt_generator *generator, pt_tensor **ret)
{
    return rrelu(false, (pt_tensor *)self, lower, upper, training, generator, ret);
}

pt_status pt_native_rrelu_(pt_tensor *self, const pt_scalar *lower, const pt_scalar *upper,
                           int32_t training, pt_generator *generator, pt_tensor **ret)
{
    return rrelu(true, self, lower, upper, training, generator, ret);
}

pt_status pt_native_log_sigmoid(const pt_tensor *self, pt_tensor **ret)
{
    pt_tensor *out = NULL, *buffer = NULL;
    PT_TRY(pt_call_log_sigmoid_forward(self, &out, &buffer));
    pt_tensor_release(buffer);
    *ret = out;
    return PT_OK;
}

/* ---------------------------------------------------------------- prelu */
pt_status pt_native_prelu(const pt_tensor *self, const pt_tensor *weight, pt_tensor **ret)
{
    if (!self || !weight) return PT_ERROR(PT_ERR_VALUE, "prelu: NULL tensor");
    if (self->dtype != weight->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "prelu: Type promoting not supported. Got %s and %s",
                        pt_iter_type_name(self->dtype),
                        pt_iter_type_name(weight->dtype));
    if (weight->numel != 1) {
        if (self->ndim == 0) return PT_ERROR(PT_ERR_RUNTIME, "Not allow zero-dim input tensor.");
        const int64_t channels = self->ndim > 1 ? self->sizes[1] : 1;
        if (channels != weight->numel)
            return PT_ERROR(PT_ERR_RUNTIME, "Mismatch of parameter numbers and input channel "
                            "size. Found parameter numbers = %lld and channel size = %lld.",
                            (long long)weight->numel, (long long)channels);
    }
    if (weight->ndim > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "prelu: Expected `weight` to be a scalar or 1D tensor, "
                        "but got: ndim = %d", (int)weight->ndim);
    if (self->ndim == weight->ndim) return called(pt_call__prelu_kernel(self, weight), ret);
    int64_t dims[PT_MAX_DIMS];
    for (int32_t d = 0; d < self->ndim; d++) dims[d] = 1;
    if (self->ndim > 1) dims[1] = weight->numel;
    pt_tensor *w = NULL;
    PT_TRY(called(pt_call_reshape(weight, self->ndim, dims), &w));
    pt_tensor *r = pt_call__prelu_kernel(self, w);
    pt_tensor_release(w);
    return called(r, ret);
}

/* ---------------------------------------------------------------- dropout variants */
static const double ALPHA_PRIME = 1.7580993408473766;

static pt_status check_p(double p)
{
    if (!(p >= 0.0 && p <= 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "dropout probability has to be between 0 and 1, but got %g",
                        p);
    return PT_OK;
}

/* empty noise: self's shape, or (N, C, 1, ...) for the feature variants. */
static pt_status make_noise(const pt_tensor *input, bool feature, pt_tensor **out)
{
    int64_t sizes[PT_MAX_DIMS];
    int32_t n = input->ndim;
    if (feature) {
        if (input->ndim < 2)
            return PT_ERROR(PT_ERR_RUNTIME, "Feature dropout requires at least 2 dimensions in "
                            "the input");
        for (int32_t d = 0; d < n; d++) sizes[d] = d < 2 ? input->sizes[d] : 1;
    } else {
        for (int32_t d = 0; d < n; d++) sizes[d] = input->sizes[d];
    }
    return pt_tensor_empty(n, sizes, input->dtype, input->device, out);
}

static pt_tensor *multiply(bool inplace, pt_tensor *input, const pt_tensor *factor)
{
    return inplace ? pt_call_mul__Tensor(input, factor) : pt_call_mul_Tensor(input, factor);
}

static pt_status dropout_impl(bool feature, bool alpha, bool inplace, pt_tensor *input, double p,
                              int32_t train, pt_tensor **ret)
{
    if (!input) return PT_ERROR(PT_ERR_VALUE, "dropout: input must be a tensor, got NULL");
    PT_TRY(check_p(p));
    if (p == 0.0 || !train || input->numel == 0) return pt_native_self(input, ret);
    if (p == 1.0) {
        pt_tensor *z = NULL;
        PT_TRY(called(pt_call_zeros(0, NULL, input->dtype, -1, &input->device, -1), &z));
        pt_tensor *r = multiply(inplace, input, z);
        pt_tensor_release(z);
        return called(r, ret);
    }
    pt_tensor *noise = NULL, *b = NULL, *t = NULL;
    PT_TRY(make_noise(input, feature, &noise));
    pt_status st = called(pt_call_bernoulli__float(noise, 1.0 - p, NULL), &t);
    if (t) pt_tensor_release(t), t = NULL;
    if (st == PT_OK && alpha) {
        const double a = 1.0 / sqrt((ALPHA_PRIME * ALPHA_PRIME * p + 1) * (1 - p));
        const pt_scalar m1 = num(-1), one = num(1), sa = dbl(ALPHA_PRIME * a),
                        sb = dbl(ALPHA_PRIME * a * p), sca = dbl(a);
        st = called(pt_call_add_Scalar(noise, &m1, &one), &b);
        if (st == PT_OK) st = called(pt_call_mul__Scalar(b, &sa), &t);
        if (t) pt_tensor_release(t), t = NULL;
        if (st == PT_OK) st = called(pt_call_add__Scalar(b, &sb, &one), &t);
        if (t) pt_tensor_release(t), t = NULL;
        if (st == PT_OK) st = called(pt_call_mul__Scalar(noise, &sca), &t);
        if (t) pt_tensor_release(t), t = NULL;
    } else if (st == PT_OK) {
        const pt_scalar keep = dbl(1.0 - p);
        st = called(pt_call_div__Scalar(noise, &keep), &t);
        if (t) pt_tensor_release(t), t = NULL;
    }
    pt_tensor *r = NULL;
    if (st == PT_OK) st = called(multiply(inplace, input, noise), &r);
    if (st == PT_OK && alpha) {
        const pt_scalar one = num(1);
        st = called(pt_call_add__Tensor(r, b, &one), &t);
        if (t) pt_tensor_release(t), t = NULL;
    }
    pt_tensor_release(noise);
    if (b) pt_tensor_release(b);
    if (st != PT_OK) {
        if (r) pt_tensor_release(r);
        return st;
    }
    *ret = r;
    return PT_OK;
}

#define DROPOUT_OPS(NAME, FEATURE, ALPHA)                                                          \
    pt_status pt_native_##NAME(const pt_tensor *input, double p, int32_t train, pt_tensor **ret)   \
    {                                                                                              \
        return dropout_impl(FEATURE, ALPHA, false, (pt_tensor *)input, p, train, ret);             \
    }                                                                                              \
    pt_status pt_native_##NAME##_(pt_tensor *self, double p, int32_t train, pt_tensor **ret)       \
    {                                                                                              \
        return dropout_impl(FEATURE, ALPHA, true, self, p, train, ret);                            \
    }
DROPOUT_OPS(feature_dropout, true, false)
DROPOUT_OPS(alpha_dropout, false, true)
DROPOUT_OPS(feature_alpha_dropout, true, true)
