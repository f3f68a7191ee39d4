/* lapack.c - the link to LAPACK (through LAPACKE) and the shared layer of the operators on it:
 * start-up, torch's argument and info checks, the column-major working copies. The
 * factorizations themselves are in lapack_factor.c, the functions composed from them in
 * lapack_ops.c.
 *
 * Every operator copies its input into a fresh column-major batch (pt_lapack_colmajor: the copy
 * resolves strides, negative strides, the conjugate bit and the dtype in one pass), runs one
 * LAPACK routine per matrix of the batch on that copy, and returns it (or tensors made from it).
 * The copy is also torch's result layout: torch's CPU linalg results are column-major too.
 *
 * Note [LAPACK off]
 * A build without LAPACKE (none found, or PYTENSOR_LAPACK=0 at build time) and a start-up with
 * PYTENSOR_LAPACK=0 keep every operator declared: each runs torch's argument checks and then
 * raises RuntimeError naming the missing library, so code that checks its arguments first sees
 * the same errors on every build. pytensor.has_lapack says which case holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapack.h"

#ifdef PT_HAVE_LAPACK
#include <lapacke.h>
#endif

static bool lapack_on; /* set at pt_lapack_init (Note [LAPACK off]) */

pt_status pt_lapack_init(int64_t *count, const char **detail)
{
    static char line[160];
#ifdef PT_HAVE_LAPACK
    const char *env = getenv("PYTENSOR_LAPACK");
    lapack_on = !(env && strcmp(env, "0") == 0);
    lapack_int major = 0, minor = 0, patch = 0;
    LAPACKE_ilaver(&major, &minor, &patch);
    /* LAPACKE's own NaN scan would refuse a matrix holding NaN with an argument error; torch
     * lets LAPACK compute with it (NaN results), and so does pytensor. */
    LAPACKE_set_nancheck(0);
    snprintf(line, sizeof line, "LAPACKE over LAPACK %d.%d.%d, found at build time%s", (int)major,
             (int)minor, (int)patch, lapack_on ? "" : "; turned off (PYTENSOR_LAPACK=0)");
    *count = 1;
    *detail = line;
    return pt_config_set("lapack", lapack_on ? line : "no (turned off: PYTENSOR_LAPACK=0)");
#else
    lapack_on = false;
    snprintf(line, sizeof line, "not found at build time (torch.linalg's decompositions raise)");
    *count = 0;
    *detail = line;
    return pt_config_set("lapack", "no");
#endif
}

pt_status pt_lapack_require(void)
{
#ifdef PT_HAVE_LAPACK
    if (lapack_on) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "pytensor's LAPACK is turned off (PYTENSOR_LAPACK=0 at "
                    "start-up): unset it to use this function");
#else
    return PT_ERROR(PT_ERR_RUNTIME, "pytensor was built without LAPACK: install liblapacke-dev "
                    "and rebuild");
#endif
}

static const char *legacy(int32_t dtype) { return pt_dtype_info_of(dtype)->legacy_name; }

static bool lapack_dtype(int32_t dt)
{
    return dt == PT_FLOAT32 || dt == PT_FLOAT64 || dt == PT_COMPLEX64 || dt == PT_COMPLEX128;
}

int32_t pt_lapack_real_dtype(int32_t dtype)
{
    if (dtype == PT_COMPLEX64) return PT_FLOAT32;
    if (dtype == PT_COMPLEX128) return PT_FLOAT64;
    return dtype;
}

pt_status pt_lapack_check_input(const char *api, const pt_tensor *A, unsigned flags,
                                const char *kernel)
{
    if (!A) return PT_ERROR(PT_ERR_VALUE, "%s: A must be a tensor, got None", api);
    if (A->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: The input tensor A must have at least 2 dimensions.",
                        api);
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    if ((flags & PT_LP_SQUARE) && m != n)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: A must be batches of square matrices, but they are "
                        "%lld by %lld matrices", api, (long long)m, (long long)n);
    int32_t dt = A->dtype;
    bool fc = dt == PT_FLOAT16 || dt == PT_BFLOAT16 || lapack_dtype(dt);
    if ((flags & PT_LP_FLOATING) && !fc)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as input. "
                        "Got %s", api, legacy(dt));
    if ((flags & PT_LP_NO_LOW) && (dt == PT_FLOAT16 || dt == PT_BFLOAT16))
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Low precision dtypes not supported. Got %s", api,
                        legacy(dt));
    if (!lapack_dtype(dt))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                        legacy(dt));
    if (A->device.type != PT_DEV_CPU)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: pytensor computes it on the CPU only", api);
    return PT_OK;
}

int64_t pt_lapack_batch(const pt_tensor *t)
{
    int64_t b = 1;
    for (int32_t i = 0; i + 2 < t->ndim; i++) b *= t->sizes[i];
    return b;
}

pt_status pt_lapack_empty_colmajor(int32_t ndim, const int64_t *sizes, int32_t dtype,
                                   pt_tensor **out)
{
    int64_t strides[PT_MAX_DIMS];
    if (ndim < 2 || ndim > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg: a matrix batch has 2 to %d dims, got %d",
                        PT_MAX_DIMS, (int)ndim);
    int64_t m = sizes[ndim - 2], n = sizes[ndim - 1];
    strides[ndim - 2] = 1;
    strides[ndim - 1] = m > 0 ? m : 1;
    int64_t step = m * n;
    for (int32_t i = ndim - 3; i >= 0; i--) {
        strides[i] = step > 0 ? step : 1;
        step *= sizes[i];
    }
    pt_device cpu = {PT_DEV_CPU, 0};
    return pt_tensor_empty_strided(ndim, sizes, strides, dtype, cpu, out);
}

pt_status pt_lapack_colmajor(const pt_tensor *A, int32_t dtype, pt_tensor **out)
{
    pt_tensor *t = NULL;
    PT_TRY(pt_lapack_empty_colmajor(A->ndim, A->sizes, dtype, &t));
    pt_status st = pt_tensor_copy_(t, A);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *out = t;
    return PT_OK;
}

/* The sentence after "api: " for a positive info, by the kind of api (torch's texts). */
static void info_sentence(const char *api, int32_t info, char *buf, size_t cap)
{
    if (strstr(api, "inv"))
        snprintf(buf, cap, "The diagonal element %d is zero, the inversion could not be completed "
                 "because the input matrix is singular.", (int)info);
    else if (strstr(api, "solve"))
        snprintf(buf, cap, "The solver failed because the input matrix is singular.");
    else if (strstr(api, "cholesky"))
        snprintf(buf, cap, "The factorization could not be completed because the input is not "
                 "positive-definite (the leading minor of order %d is not positive-definite).",
                 (int)info);
    else if (strstr(api, "svd"))
        snprintf(buf, cap, "The algorithm failed to converge because the input matrix is "
                 "ill-conditioned or has too many repeated singular values (error code: %d).",
                 (int)info);
    else if (strstr(api, "eig"))
        snprintf(buf, cap, "The algorithm failed to converge because the input matrix is "
                 "ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                 (int)info);
    else if (strstr(api, "lstsq"))
        snprintf(buf, cap, "The least squares solution could not be computed because the input "
                 "matrix does not have full rank (error code: %d).", (int)info);
    else if (strstr(api, "lu_factor"))
        snprintf(buf, cap, "U[%d,%d] is zero and using it on lu_solve would result in a division "
                 "by zero. If you still want to perform the factorization, consider calling "
                 "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)", (int)info, (int)info);
    else
        snprintf(buf, cap, "Unknown error code: %d.", (int)info);
}

pt_status pt_lapack_check_info(const pt_tensor *info, const char *api, bool batched)
{
    const int32_t *v = pt_tensor_data(info);
    for (int64_t i = 0; i < info->numel; i++) {
        if (v[i] == 0) continue;
        char prefix[64] = "", sentence[320];
        if (batched) snprintf(prefix, sizeof prefix, "(Batch element %lld): ", (long long)i);
        if (v[i] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: %sArgument %d has illegal value. Most certainly "
                            "there is a bug in the implementation calling the backend library.",
                            api, prefix, (int)-v[i]);
        info_sentence(api, v[i], sentence, sizeof sentence);
        return PT_ERROR(PT_ERR_RUNTIME, "%s: %s%s", api, prefix, sentence);
    }
    return PT_OK;
}
