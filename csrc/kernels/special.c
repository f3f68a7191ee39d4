/* special.c - the special functions of one or two tensors (lgamma, digamma, polygamma, mvlgamma,
 * erfinv, i0, sinc, logit, xlogy, igamma, igammac and torch.special's entr, erfcx, i0e, i1, i1e,
 * ndtri, log_ndtr, xlog1py, zeta): functional, in-place and out= forms, each one pass of the
 * iterator over a loop of cpu/special_kernels.c (math in special_math.h).
 *
 * Note [special dtypes]
 *   The functions of one tensor compute in self's dtype, integers and bool in the default float
 *   dtype (torch's int-to-float promotion); float16 and bfloat16 in float32, rounded once.
 *   xlogy, xlog1py and zeta promote their two inputs and then integers to float, as torch's
 *   binary_float_op; igamma and igammac promote without the int-to-float step, so torch refuses
 *   integer pairs (`"igamma_cpu" not implemented for 'Long'`). Complex inputs are refused
 *   with torch's kernel names, except for sinc, which has complex loops as torch's does.
 */
#include "special.h"

#include "binary.h"
#include "cpu_stub.h"
#include "iter.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(special, pt_special_table, "lgamma, digamma, erfinv, igamma, ... by loop dtype")

static const pt_special_table *table(void) { return PT_CPU_KERNELS(special, pt_special_table); }

typedef struct spec {
    int32_t op;
    const char *name;
    const char *kname; /* torch's kernel name in "not implemented" messages */
    int32_t flags;     /* iterator flags of the two-input ops */
} spec;

/* One pass of spec's loop over target = f(a[, b]) in the given mode. */
static pt_status run(const spec *sp, int mode, const pt_tensor *a, const pt_tensor *b,
                     pt_tensor *out_arg, pt_special_params *params, pt_tensor **out)
{
    PT_TRY(pt_binary_check(sp->name, mode, a, b, out_arg, out));
    pt_iter it;
    int32_t common = -1, flags = sp->flags;
    if (!b) {
        common = pt_is_integral(a->dtype, true) ? pt_dtype_default() : a->dtype;
        flags = 0;
        if (!table()->fn[sp->op][pt_opmath_dtype(common)])
            return pt_binary_unsupported(sp->kname, common);
    }
    PT_TRY(pt_binary_build(&it, sp->name, flags, common, -1, mode, a, b, out_arg));
    pt_loop_fn fn = table()->fn[sp->op][pt_opmath_dtype(it.common)];
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported(sp->kname, it.common);
    }
    pt_special_params none = {0.0, 0};
    pt_iter_run(&it, fn, params ? params : &none);
    return pt_iter_finish(&it, out);
}

/* ---------------------------------------------------------------- functions of one tensor */
#define SF_UNARY_OPS(OP, NAME, KNAME)                                                              \
    static const spec spec_##NAME = {PT_SPECIAL_##OP, #NAME, KNAME, 0};                            \
    pt_status pt_kernel_##NAME(const pt_tensor *self, pt_tensor **ret)                             \
    {                                                                                              \
        return run(&spec_##NAME, PT_BINARY_FUNCTIONAL, self, NULL, NULL, NULL, ret);               \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)       \
    {                                                                                              \
        return run(&spec_##NAME, PT_BINARY_OUT, self, NULL, out, NULL, ret);                       \
    }
#define SF_INPLACE(NAME)                                                                           \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, pt_tensor **ret)                                \
    {                                                                                              \
        return run(&spec_##NAME, PT_BINARY_INPLACE, self, NULL, NULL, NULL, ret);                  \
    }

SF_UNARY_OPS(LGAMMA, lgamma, "lgamma_vml_cpu")
SF_INPLACE(lgamma)
SF_UNARY_OPS(DIGAMMA, digamma, "digamma")
SF_INPLACE(digamma)
SF_UNARY_OPS(ERFINV, erfinv, "erfinv_vml_cpu")
SF_INPLACE(erfinv)
SF_UNARY_OPS(I0, i0, "i0_vml_cpu")
SF_INPLACE(i0)
SF_UNARY_OPS(SINC, sinc, "sinc_cpu")
SF_INPLACE(sinc)
SF_UNARY_OPS(ENTR, special_entr, "entr_cpu")
SF_UNARY_OPS(ERFCX, special_erfcx, "erfcx_cpu")
SF_UNARY_OPS(I0E, special_i0e, "i0e_cpu")
SF_UNARY_OPS(I1, special_i1, "i1_cpu")
SF_UNARY_OPS(I1E, special_i1e, "i1e_cpu")
SF_UNARY_OPS(NDTRI, special_ndtri, "ndtri_cpu")
SF_UNARY_OPS(LOG_NDTR, special_log_ndtr, "log_ndtr_cpu")

/* ---------------------------------------------------------------- polygamma, mvlgamma */
static const spec spec_polygamma = {PT_SPECIAL_POLYGAMMA, "polygamma", "polygamma", 0};
static const spec spec_trigamma = {PT_SPECIAL_POLYGAMMA, "polygamma", "trigamma", 0};

/* torch names the digamma and trigamma kernels for n = 0 and 1 in its refusals. */
static pt_status polygamma(int mode, int64_t n, const pt_tensor *self, pt_tensor *out_arg,
                           pt_tensor **ret)
{
    if (n < 0) return PT_ERROR(PT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    pt_special_params p = {0.0, n};
    const spec *sp = n == 0 ? &spec_digamma : n == 1 ? &spec_trigamma : &spec_polygamma;
    const spec named = {PT_SPECIAL_POLYGAMMA, "polygamma", sp->kname, 0};
    return run(&named, mode, self, NULL, out_arg, &p, ret);
}

pt_status pt_kernel_polygamma(int64_t n, const pt_tensor *self, pt_tensor **ret)
{
    return polygamma(PT_BINARY_FUNCTIONAL, n, self, NULL, ret);
}

pt_status pt_kernel_polygamma_(pt_tensor *self, int64_t n, pt_tensor **ret)
{
    return polygamma(PT_BINARY_INPLACE, n, self, NULL, ret);
}

pt_status pt_kernel_polygamma_out(int64_t n, const pt_tensor *self, pt_tensor *out,
                                  pt_tensor **ret)
{
    return polygamma(PT_BINARY_OUT, n, self, out, ret);
}

/* torch builds mvlgamma from arange, whose kernel refuses complex first */
static const spec spec_mvlgamma = {PT_SPECIAL_MVLGAMMA, "mvlgamma", "arange_cpu", 0};

/* Note [mvlgamma's terms]
 * torch computes mvlgamma by materializing x.unsqueeze(-1) + arange(p) terms, so a p whose
 * arange's bytes overflow is its "Storage size calculation overflowed" error, and a large one an
 * allocation that fails. The kernel here sums the p terms per element without that memory, at
 * ~20 ns a term: numel * p above MVLGAMMA_MAX_TERMS (2^28, ~5 s of one core; 1 GiB of float32
 * terms in torch's form) is refused rather than left to run for minutes or hours. */
#define MVLGAMMA_MAX_TERMS ((int64_t)1 << 28)

static pt_status mvlgamma_check_terms(const pt_tensor *self, int64_t p)
{
    int64_t bytes, terms;
    if (__builtin_mul_overflow(p, (int64_t)pt_dtype_itemsize(self->dtype), &bytes))
        return PT_ERROR(PT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=[%lld]",
                        (long long)p);
    if (__builtin_mul_overflow(self->numel, p, &terms) || terms > MVLGAMMA_MAX_TERMS)
        return PT_ERROR(PT_ERR_MEMORY, "mvlgamma: p = %lld over %lld elements is more than the "
                        "%lld terms it computes (torch materializes every term)", (long long)p,
                        (long long)self->numel, (long long)MVLGAMMA_MAX_TERMS);
    return PT_OK;
}

static pt_status mvlgamma(int mode, const pt_tensor *self, int64_t p, pt_tensor *out_arg,
                          pt_tensor **ret)
{
    if (p < 1) return PT_ERROR(PT_ERR_RUNTIME, "p has to be greater than or equal to 1");
    PT_TRY(mvlgamma_check_terms(self, p));
    pt_special_params params = {0.0, p};
    return run(&spec_mvlgamma, mode, self, NULL, out_arg, &params, ret);
}

pt_status pt_kernel_mvlgamma(const pt_tensor *self, int64_t p, pt_tensor **ret)
{
    return mvlgamma(PT_BINARY_FUNCTIONAL, self, p, NULL, ret);
}

pt_status pt_kernel_mvlgamma_(pt_tensor *self, int64_t p, pt_tensor **ret)
{
    return mvlgamma(PT_BINARY_INPLACE, self, p, NULL, ret);
}

pt_status pt_kernel_mvlgamma_out(const pt_tensor *self, int64_t p, pt_tensor *out,
                                 pt_tensor **ret)
{
    return mvlgamma(PT_BINARY_OUT, self, p, out, ret);
}

/* ---------------------------------------------------------------- logit */
static const spec spec_logit = {PT_SPECIAL_LOGIT, "logit", "logit_cpu", 0};
static const spec spec_logit_backward = {PT_SPECIAL_LOGIT_BACKWARD, "logit_backward",
                                         "logit_backward_cpu",
                                         PT_ITER_PROMOTE | PT_ITER_INT_TO_FLOAT};

/* torch passes eps = None to its kernels as -1: no clamping (any negative eps means the same). */
static pt_special_params logit_params(const double *eps)
{
    pt_special_params p = {eps ? *eps : -1.0, 0};
    return p;
}

pt_status pt_kernel_logit(const pt_tensor *self, const double *eps, pt_tensor **ret)
{
    pt_special_params p = logit_params(eps);
    return run(&spec_logit, PT_BINARY_FUNCTIONAL, self, NULL, NULL, &p, ret);
}

pt_status pt_kernel_logit_(pt_tensor *self, const double *eps, pt_tensor **ret)
{
    pt_special_params p = logit_params(eps);
    return run(&spec_logit, PT_BINARY_INPLACE, self, NULL, NULL, &p, ret);
}

pt_status pt_kernel_logit_out(const pt_tensor *self, const double *eps, pt_tensor *out,
                              pt_tensor **ret)
{
    pt_special_params p = logit_params(eps);
    return run(&spec_logit, PT_BINARY_OUT, self, NULL, out, &p, ret);
}

pt_status pt_kernel_logit_backward(const pt_tensor *grad_output, const pt_tensor *self,
                                   const double *eps, pt_tensor **ret)
{
    pt_special_params p = logit_params(eps);
    return run(&spec_logit_backward, PT_BINARY_FUNCTIONAL, grad_output, self, NULL, &p, ret);
}

pt_status pt_kernel_logit_backward_grad_input(const pt_tensor *grad_output, const pt_tensor *self,
                                              const double *eps, pt_tensor *grad_input,
                                              pt_tensor **ret)
{
    pt_special_params p = logit_params(eps);
    return run(&spec_logit_backward, PT_BINARY_OUT, grad_output, self, grad_input, &p, ret);
}

/* ---------------------------------------------------------------- functions of two tensors */
#define SF_BINARY_OPS(OP, NAME, KNAME, FLAGS)                                                      \
    static const spec spec_##NAME = {PT_SPECIAL_##OP, #NAME, KNAME, PT_ITER_PROMOTE | (FLAGS)};    \
    pt_status pt_kernel_##NAME(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)     \
    {                                                                                              \
        return run(&spec_##NAME, PT_BINARY_FUNCTIONAL, self, other, NULL, NULL, ret);              \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, const pt_tensor *other,                \
                                     pt_tensor *out, pt_tensor **ret)                              \
    {                                                                                              \
        return run(&spec_##NAME, PT_BINARY_OUT, self, other, out, NULL, ret);                      \
    }
#define SF_BINARY_INPLACE(NAME)                                                                    \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)        \
    {                                                                                              \
        return run(&spec_##NAME, PT_BINARY_INPLACE, self, other, NULL, NULL, ret);                 \
    }

SF_BINARY_OPS(XLOGY, xlogy, "xlogy_cpu", PT_ITER_INT_TO_FLOAT)
SF_BINARY_INPLACE(xlogy)
SF_BINARY_OPS(IGAMMA, igamma, "igamma_cpu", 0)
SF_BINARY_INPLACE(igamma)
SF_BINARY_OPS(IGAMMAC, igammac, "igammac_cpu", 0)
SF_BINARY_INPLACE(igammac)
SF_BINARY_OPS(XLOG1PY, special_xlog1py, "xlog1py_cpu", PT_ITER_INT_TO_FLOAT)
SF_BINARY_OPS(ZETA, special_zeta, "zeta_cpu", PT_ITER_INT_TO_FLOAT)
