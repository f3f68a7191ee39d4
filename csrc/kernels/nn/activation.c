/* activation.c - the elementwise nn activations (elu, celu, leaky_relu, softplus, hardsigmoid,
 * hardswish, mish, softshrink, hardshrink, log_sigmoid_forward, hardtanh, rrelu_with_noise) and
 * the backward operators of these and of threshold/relu, gelu and silu, as torch computes them.
 *
 * Every operator here is one run of the iterator over its tensors (outputs first) with a loop of
 * cpu/nn_activation_kernels.c and its Scalars as the loop's parameters: the iterator does the
 * checks, broadcasting, out= and in-place rules, meta tensors, the float16/bfloat16 staging
 * through float32 and the split across threads above the grain (Note [elementwise grain]). The
 * loops exist for float32 and float64; any other dtype is refused with torch's
 * `"<kernel>" not implemented for '<Type>'`, torch's kernel names included (hardtanh_backward's
 * message names hardshrink_backward_cpu, as torch's does). Backward operators promote their
 * tensors as torch's TensorIterator does.
 *
 * hardtanh is clamp in torch, and here: integer inputs go through clamp's kernel.
 */
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "nn/activation.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "unary.h"

PT_CPU_STUB(nn_activation, pt_act_table, "nn activations, their backward and softmax backward rows")

const pt_act_table *pt_act_kernels(void) { return PT_CPU_KERNELS(nn_activation, pt_act_table); }

enum { FUNCTIONAL, INPLACE, OUT };

static double sv(const pt_scalar *s)
{
    if (!s) return 0.0;
    switch (s->kind) {
    case PT_SCALAR_FLOAT: case PT_SCALAR_COMPLEX: return s->re;
    default: return (double)s->i;
    }
}

/* One iterator run: nout outputs (given[k] or NULL to allocate; given[0] is self for INPLACE),
 * nin inputs; *out gets output 0 and *out1 (when not NULL) output 1. */
typedef struct act_call {
    const char *name, *kname;
    int32_t op;
    int mode;
    int nout, nin;
    pt_tensor *given[2];
    const pt_tensor *in[4];
    const char *in_names[4];
    pt_act_params params;
} act_call;

static pt_status act_run(act_call *c, pt_tensor **out, pt_tensor **out1)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", c->name);
    for (int k = 0; k < c->nin; k++)
        PT_TRY(pt_iter_check_operand(c->in[k], c->name, c->in_names[k]));
    for (int k = 0; k < c->nout; k++)
        if (c->given[k]) PT_TRY(pt_iter_check_operand(c->given[k], c->name, "out"));
    pt_iter it;
    int32_t flags = c->nin > 1 ? PT_ITER_PROMOTE : 0;
    if (c->mode == INPLACE) flags |= PT_ITER_INPLACE;
    pt_iter_init(&it, c->name, flags);
    if (c->nin == 1) it.common = c->in[0]->dtype;
    for (int k = 0; k < c->nout; k++)
        pt_iter_add_output(&it, c->given[k], c->mode == OUT ? "out" : "self");
    for (int k = 0; k < c->nin; k++) pt_iter_add_input(&it, c->in[k], c->in_names[k]);
    PT_TRY(pt_iter_build(&it));
    if (!pt_is_floating(it.common)) {
        const int32_t dt = it.common;
        pt_iter_cleanup(&it);
        return pt_unary_not_implemented(c->kname, dt);
    }
    const pt_act_table *t = pt_act_kernels();
    pt_iter_run(&it, t->fn[c->op][it.common == PT_FLOAT64], &c->params);
    if (out1) *out1 = pt_iter_output(&it, 1);
    return pt_iter_finish(&it, out);
}

/* The forward of one tensor in its three modes. */
static pt_status unary(const char *name, const char *kname, int32_t op, int mode,
                       const pt_tensor *self, pt_tensor *out_arg, pt_act_params p,
                       pt_tensor **out)
{
    act_call c = {name, kname, op, mode, 1, 1, {NULL, NULL}, {self}, {"self"}, p};
    c.given[0] = mode == INPLACE ? (pt_tensor *)self : mode == OUT ? out_arg : NULL;
    return act_run(&c, out, NULL);
}

/* (grad_output, self) -> grad_input. */
static pt_status backward(const char *name, const char *kname, int32_t op, const pt_tensor *g,
                          const char *gname, const pt_tensor *x, const char *xname,
                          pt_act_params p, pt_tensor **out)
{
    act_call c = {name, kname, op, FUNCTIONAL, 1, 2, {NULL, NULL}, {g, x}, {gname, xname}, p};
    return act_run(&c, out, NULL);
}

#define P(...) ((pt_act_params){{__VA_ARGS__}})

/* The three modes of a forward whose parameters come from PARAMS (an expression over the
 * kernel's Scalar arguments), after CHECK (a statement that may return). */
#define FORWARD_OPS(NAME, OP, KNAME, DECL, ARGS, CHECK, PARAMS)                                   \
    pt_status pt_kernel_##NAME(const pt_tensor *self DECL, pt_tensor **out)                        \
    {                                                                                              \
        CHECK;                                                                                     \
        return unary(#NAME, KNAME, OP, FUNCTIONAL, self, NULL, PARAMS, out);                       \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self DECL, pt_tensor *out_arg,               \
                                     pt_tensor **out)                                              \
    {                                                                                              \
        CHECK;                                                                                     \
        return unary(#NAME, KNAME, OP, OUT, self, out_arg, PARAMS, out);                           \
    }
#define INPLACE_OP(NAME, OP, KNAME, DECL, CHECK, PARAMS)                                           \
    pt_status pt_kernel_##NAME##_(pt_tensor *self DECL, pt_tensor **out)                           \
    {                                                                                              \
        CHECK;                                                                                     \
        return unary(#NAME "_", KNAME, OP, INPLACE, self, NULL, PARAMS, out);                      \
    }
#define NONE (void)0
#define COMMA ,

/* ---------------------------------------------------------------- elu, celu */
#define ELU_DECL , const pt_scalar *alpha, const pt_scalar *scale, const pt_scalar *input_scale
#define ELU_PARAMS P(sv(alpha) * sv(scale), sv(scale), sv(input_scale))
FORWARD_OPS(elu, PT_ACT_ELU, "elu_cpu", ELU_DECL, , NONE, ELU_PARAMS)
INPLACE_OP(elu, PT_ACT_ELU, "elu_cpu", ELU_DECL, NONE, ELU_PARAMS)

pt_status pt_kernel_elu_backward(const pt_tensor *grad_output, const pt_scalar *alpha,
                                 const pt_scalar *scale, const pt_scalar *input_scale,
                                 int32_t is_result, const pt_tensor *self_or_result,
                                 pt_tensor **out)
{
    if (is_result && sv(alpha) < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "In-place elu backward calculation is triggered with a "
                        "negative slope which is not supported. This is caused by calling "
                        "in-place forward function with a negative slope, please call "
                        "out-of-place version instead.");
    return backward("elu_backward", "elu_backward_cpu",
                    is_result ? PT_ACT_ELU_BW_RESULT : PT_ACT_ELU_BW, grad_output, "grad_output",
                    self_or_result, "self_or_result", ELU_PARAMS, out);
}

#define CELU_CHECK                                                                                 \
    if (sv(alpha) == 0)                                                                            \
    return PT_ERROR(PT_ERR_RUNTIME, "ZeroDivisionError: alpha cannot be 0 for CELU")
#define CELU_PARAMS P(sv(alpha), 1.0, 1.0 / sv(alpha))
pt_status pt_kernel_celu(const pt_tensor *self, const pt_scalar *alpha, pt_tensor **out)
{
    CELU_CHECK;
    return unary("celu", "elu_cpu", PT_ACT_ELU, FUNCTIONAL, self, NULL, CELU_PARAMS, out);
}
INPLACE_OP(celu, PT_ACT_ELU, "elu_cpu", COMMA const pt_scalar *alpha, CELU_CHECK, CELU_PARAMS)

/* ---------------------------------------------------------------- leaky_relu */
#define SLOPE_DECL , const pt_scalar *negative_slope
FORWARD_OPS(leaky_relu, PT_ACT_LEAKY_RELU, "leaky_relu_cpu", SLOPE_DECL, , NONE,
            P(sv(negative_slope)))
INPLACE_OP(leaky_relu, PT_ACT_LEAKY_RELU, "leaky_relu_cpu", SLOPE_DECL, NONE,
           P(sv(negative_slope)))

static pt_status leaky_relu_backward(const pt_tensor *g, const pt_tensor *self, double slope,
                                     int32_t self_is_result, pt_tensor **out)
{
    if (self_is_result && slope < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "In-place leakyReLu backward calculation is triggered "
                        "with a negative slope which is not supported. This is caused by calling "
                        "in-place forward function with a negative slope, please call "
                        "out-of-place version instead. File an issue at "
                        "https://github.com/pytorch/pytorch if you do require supporting in-place "
                        "leakRelu backward calculation with negative slope");
    return backward("leaky_relu_backward", "leaky_relu_backward_cpu", PT_ACT_LEAKY_RELU_BW, g,
                    "grad_output", self, "self", P(slope), out);
}

pt_status pt_kernel_leaky_relu_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                        const pt_scalar *negative_slope, int32_t self_is_result,
                                        pt_tensor **out)
{
    return leaky_relu_backward(grad_output, self, sv(negative_slope), self_is_result, out);
}

/* ---------------------------------------------------------------- softplus, mish */
#define SOFTPLUS_DECL , const pt_scalar *beta, const pt_scalar *threshold
FORWARD_OPS(softplus, PT_ACT_SOFTPLUS, "softplus_cpu", SOFTPLUS_DECL, , NONE,
            P(sv(beta), sv(threshold)))

pt_status pt_kernel_softplus_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                      const pt_scalar *beta, const pt_scalar *threshold,
                                      pt_tensor **out)
{
    return backward("softplus_backward", "softplus_backward_cpu", PT_ACT_SOFTPLUS_BW, grad_output,
                    "grad_output", self, "self", P(sv(beta), sv(threshold)), out);
}

FORWARD_OPS(mish, PT_ACT_MISH, "mish_cpu", , , NONE, P(0))
INPLACE_OP(mish, PT_ACT_MISH, "mish_cpu", , NONE, P(0))

pt_status pt_kernel_mish_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                  pt_tensor **out)
{
    return backward("mish_backward", "mish_backward_cpu", PT_ACT_MISH_BW, grad_output,
                    "grad_output", self, "self", P(0), out);
}

/* ---------------------------------------------------------------- hardsigmoid, hardswish */
FORWARD_OPS(hardsigmoid, PT_ACT_HARDSIGMOID, "hardsigmoid_cpu", , , NONE, P(0))
INPLACE_OP(hardsigmoid, PT_ACT_HARDSIGMOID, "hardsigmoid_cpu", , NONE, P(0))
FORWARD_OPS(hardswish, PT_ACT_HARDSWISH, "hardswish_cpu", , , NONE, P(0))
INPLACE_OP(hardswish, PT_ACT_HARDSWISH, "hardswish_cpu", , NONE, P(0))

pt_status pt_kernel_hardsigmoid_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                         pt_tensor **out)
{
    return backward("hardsigmoid_backward", "hardsigmoid_backward", PT_ACT_HARDSIGMOID_BW,
                    grad_output, "grad_output", self, "self", P(0), out);
}

pt_status pt_kernel_hardswish_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                       pt_tensor **out)
{
    return backward("hardswish_backward", "hardswish_backward_cpu", PT_ACT_HARDSWISH_BW,
                    grad_output, "grad_output", self, "self", P(0), out);
}

/* ---------------------------------------------------------------- softshrink, hardshrink */
#define LAMBD_DECL , const pt_scalar *lambd
#define SOFTSHRINK_CHECK PT_TRY(softshrink_check(self, lambd))
/* lambd in [0, the dtype's largest value], as torch checks before it looks at the dtype's loop. */
static pt_status softshrink_check(const pt_tensor *self, const pt_scalar *lambd)
{
    if (!self || !pt_is_floating(self->dtype)) return PT_OK;
    const double big = self->dtype == PT_FLOAT64   ? 1.7976931348623157e308
                       : self->dtype == PT_FLOAT16 ? 65504.0
                       : self->dtype == PT_FLOAT32 ? 3.4028234663852886e38
                                                   : 3.3895313892515355e38;
    if (!(sv(lambd) >= 0 && sv(lambd) <= big))
        return PT_ERROR(PT_ERR_RUNTIME, "lambda must be in range [0, %g] for input dtype %s, but "
                        "found %g", big, pt_iter_type_name(self->dtype), sv(lambd));
    return PT_OK;
}
FORWARD_OPS(softshrink, PT_ACT_SOFTSHRINK, "softshrink_check", LAMBD_DECL, , SOFTSHRINK_CHECK,
            P(sv(lambd)))
FORWARD_OPS(hardshrink, PT_ACT_HARDSHRINK, "hardshrink_cpu", LAMBD_DECL, , NONE, P(sv(lambd)))

pt_status pt_kernel_softshrink_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                        const pt_scalar *lambd, pt_tensor **out)
{
    return backward("softshrink_backward", "shrink_backward_cpu", PT_ACT_SHRINK_BW, grad_output,
                    "grad_output", self, "self", P(sv(lambd)), out);
}

pt_status pt_kernel_hardshrink_backward(const pt_tensor *grad_out, const pt_tensor *self,
                                        const pt_scalar *lambd, pt_tensor **out)
{
    return backward("hardshrink_backward", "shrink_backward_cpu", PT_ACT_SHRINK_BW, grad_out,
                    "grad_out", self, "self", P(sv(lambd)), out);
}

/* ---------------------------------------------------------------- log_sigmoid */
pt_status pt_kernel_log_sigmoid_forward(const pt_tensor *self, pt_tensor **ret0, pt_tensor **ret1)
{
    act_call c = {"log_sigmoid_forward", "log_sigmoid_cpu", PT_ACT_LOG_SIGMOID, FUNCTIONAL, 2, 1,
                  {NULL, NULL}, {self}, {"self"}, P(0)};
    return act_run(&c, ret0, ret1);
}

pt_status pt_kernel_log_sigmoid_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                         const pt_tensor *buffer, pt_tensor **out)
{
    act_call c = {"log_sigmoid_backward", "log_sigmoid_backward_cpu", PT_ACT_LOG_SIGMOID_BW,
                  FUNCTIONAL, 1, 3, {NULL, NULL}, {grad_output, self, buffer},
                  {"grad_output", "self", "buffer"}, P(0)};
    return act_run(&c, out, NULL);
}

/* ---------------------------------------------------------------- threshold, gelu, silu */
pt_status pt_kernel_threshold_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                       const pt_scalar *threshold, pt_tensor **out)
{
    return backward("threshold_backward", "threshold_cpu", PT_ACT_THRESHOLD_BW, grad_output,
                    "grad_output", self, "self", P(sv(threshold)), out);
}

pt_status pt_kernel_gelu_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                  const char *approximate, pt_tensor **out)
{
    int32_t op;
    if (!approximate || strcmp(approximate, "none") == 0) op = PT_ACT_GELU_BW;
    else if (strcmp(approximate, "tanh") == 0) op = PT_ACT_GELU_TANH_BW;
    else return PT_ERROR(PT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
    return backward("gelu_backward", "GeluBackwardKernelImpl", op, grad_output, "grad_output",
                    self, "self", P(0), out);
}

pt_status pt_kernel_silu_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                  pt_tensor **out)
{
    return backward("silu_backward", "silu_backward_cpu", PT_ACT_SILU_BW, grad_output,
                    "grad_output", self, "self", P(0), out);
}

/* ---------------------------------------------------------------- hardtanh */
static pt_status hardtanh_check(const pt_tensor *self, const pt_scalar *min_val)
{
    if (!self) return PT_ERROR(PT_ERR_VALUE, "hardtanh: self must be a tensor, got NULL");
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "Bool inputs not supported for hardtanh");
    if (self->dtype == PT_UINT8 && sv(min_val) < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "cannot do hardtanh on an unsigned type with negative "
                        "limits");
    return PT_OK;
}

pt_status pt_kernel_hardtanh(const pt_tensor *self, const pt_scalar *min_val,
                             const pt_scalar *max_val, pt_tensor **out)
{
    PT_TRY(hardtanh_check(self, min_val));
    return pt_kernel_clamp(self, min_val, max_val, out);
}

pt_status pt_kernel_hardtanh_(pt_tensor *self, const pt_scalar *min_val, const pt_scalar *max_val,
                              pt_tensor **out)
{
    PT_TRY(hardtanh_check(self, min_val));
    return pt_kernel_clamp_(self, min_val, max_val, out);
}

pt_status pt_kernel_hardtanh_out(const pt_tensor *self, const pt_scalar *min_val,
                                 const pt_scalar *max_val, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(hardtanh_check(self, min_val));
    return pt_kernel_clamp_out(self, min_val, max_val, out_arg, out);
}

pt_status pt_kernel_hardtanh_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                      const pt_scalar *min_val, const pt_scalar *max_val,
                                      pt_tensor **out)
{
    return backward("hardtanh_backward", "hardshrink_backward_cpu", PT_ACT_HARDTANH_BW,
                    grad_output, "grad_output", self, "self", P(sv(min_val), sv(max_val)), out);
}

/* ---------------------------------------------------------------- rrelu_with_noise
 * Training draws one uniform number per element through the generator (uniform_, so a seed
 * reproduces it); a negative element is scaled by lower + u * (upper - lower) and the noise
 * records the factor (1 for the others), which the backward multiplies by. Not training, it is
 * leaky_relu with the mean slope, as torch. */
static pt_status rrelu_check(const pt_scalar *lower, const pt_scalar *upper)
{
    if (!(sv(lower) <= sv(upper)))
        return PT_ERROR(PT_ERR_RUNTIME, "Lower bound should be less than or equal to the upper "
                        "bound");
    return PT_OK;
}

static pt_status rrelu(int mode, pt_tensor *self, pt_tensor *noise, const pt_scalar *lower,
                       const pt_scalar *upper, int32_t training, pt_generator *generator,
                       pt_tensor **out)
{
    if (!self || !noise) return PT_ERROR(PT_ERR_VALUE, "rrelu_with_noise: NULL tensor");
    PT_TRY(rrelu_check(lower, upper));
    const double lo = sv(lower), hi = sv(upper);
    if (!training) {
        const pt_act_params p = P((lo + hi) / 2);
        return unary(mode == INPLACE ? "rrelu_with_noise_" : "rrelu_with_noise",
                     "leaky_relu_cpu", PT_ACT_LEAKY_RELU, mode, self, NULL, p, out);
    }
    PT_TRY(pt_iter_check_operand(self, "rrelu_with_noise", "self"));
    if (!pt_is_floating(self->dtype)) return pt_unary_not_implemented("rrelu_with_noise_out_cpu",
                                                                      self->dtype);
    pt_tensor *u = NULL;
    PT_TRY(pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &u));
    pt_tensor *drawn = self->numel ? pt_call_uniform_(u, 0.0, 1.0, generator) : NULL;
    if (self->numel && !drawn) {
        pt_tensor_release(u);
        return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    }
    if (drawn) pt_tensor_release(drawn);
    act_call c = {"rrelu_with_noise", "rrelu_with_noise_out_cpu", PT_ACT_RRELU_TRAIN, mode, 2, 2,
                  {mode == INPLACE ? self : NULL, noise}, {self, u}, {"self", "u"}, P(lo, hi)};
    pt_tensor *noise_ret = NULL;
    const pt_status st = act_run(&c, out, &noise_ret);
    if (noise_ret) pt_tensor_release(noise_ret);
    pt_tensor_release(u);
    return st;
}

pt_status pt_kernel_rrelu_with_noise(const pt_tensor *self, const pt_tensor *noise,
                                     const pt_scalar *lower, const pt_scalar *upper,
                                     int32_t training, pt_generator *generator, pt_tensor **out)
{
    return rrelu(FUNCTIONAL, (pt_tensor *)self, (pt_tensor *)noise, lower, upper, training,
                 generator, out);
}

pt_status pt_kernel_rrelu_with_noise_(pt_tensor *self, const pt_tensor *noise,
                                      const pt_scalar *lower, const pt_scalar *upper,
                                      int32_t training, pt_generator *generator, pt_tensor **out)
{
    return rrelu(INPLACE, self, (pt_tensor *)noise, lower, upper, training, generator, out);
}

pt_status pt_kernel_rrelu_with_noise_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                              const pt_tensor *noise, const pt_scalar *lower,
                                              const pt_scalar *upper, int32_t training,
                                              int32_t self_is_result, pt_tensor **out)
{
    const double lo = sv(lower), hi = sv(upper);
    if (training && hi - lo > 1e-6) {
        pt_tensor *r = pt_call_mul_Tensor(grad_output, noise);
        if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        *out = r;
        return PT_OK;
    }
    return leaky_relu_backward(grad_output, self, (lo + hi) / 2, self_is_result, out);
}
