/* norm_common.c - what the normalization fronts share: the compute dtype and the contiguous
 * operands in it, the dtype checks, and the split of rows into a fixed number of chunks (so that
 * per-chunk partial sums are added in one order whatever the threads do: results do not depend on
 * scheduling). */
#include <stdio.h>

#include "cpu_stub.h"
#include "iter.h"
#include "nn/norm.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(nn_norm, pt_norm_table, "batch, layer and group norm loops (float32, float64)")

const pt_norm_table *pt_norm_loops(void) { return PT_CPU_KERNELS(nn_norm, pt_norm_table); }

void pt_norm_format_sizes(char *buf, size_t cap, int32_t n, const int64_t *s)
{
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int32_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)s[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* torch's CPU norms take parameters of the input's dtype, or float32 ones for a float16 /
 * bfloat16 input (its "mixed dtype" path). */
pt_status pt_norm_check_param(const pt_tensor *input, const pt_tensor *p)
{
    if (!p || p->dtype == input->dtype) return PT_OK;
    if (input->dtype == PT_FLOAT64 || !pt_is_floating(p->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "mixed dtype (CPU): all inputs must share same datatype.");
    if (p->dtype != PT_FLOAT32)
        return PT_ERROR(PT_ERR_RUNTIME, "mixed dtype (CPU): expect parameter to have scalar type "
                        "of Float");
    return PT_OK;
}

int32_t pt_norm_compute_dtype(int32_t dtype)
{
    return dtype == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32;
}

pt_status pt_norm_contig(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    *out = NULL;
    if (!t) return PT_OK;
    if (t->dtype == dtype && pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS)) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_empty(t->ndim, t->sizes, dtype, t->device, &c));
    if (t->device.type != PT_DEV_META && t->numel) {
        const pt_status st = pt_tensor_copy_(c, t);
        if (st != PT_OK) {
            pt_tensor_release(c);
            return st;
        }
    }
    *out = c;
    return PT_OK;
}

int64_t pt_norm_chunks(int64_t n, int64_t grain)
{
    if (grain < 1) grain = 1;
    int64_t chunks = pt_get_num_threads();
    if (chunks > n / grain) chunks = n / grain;
    return chunks < 1 ? 1 : chunks;
}

typedef struct chunk_job {
    void (*fn)(int64_t k, void *ctx);
    void *ctx;
} chunk_job;

static void run_chunk_range(int64_t begin, int64_t end, void *arg)
{
    const chunk_job *j = arg;
    for (int64_t k = begin; k < end; k++) j->fn(k, j->ctx);
}

void pt_norm_run_chunks(int64_t chunks, void (*fn)(int64_t k, void *ctx), void *ctx)
{
    chunk_job j = {fn, ctx};
    pt_parallel_for(chunks, 1, run_chunk_range, &j);
}

pt_status pt_norm_check_dtype(const pt_tensor *t, const char *kernel)
{
    if (pt_is_floating(t->dtype)) return PT_OK;
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                    pt_iter_type_name(t->dtype));
}

pt_status pt_norm_result(pt_tensor *r, int32_t dtype, pt_tensor **out)
{
    if (r->dtype == dtype) {
        *out = r;
        return PT_OK;
    }
    const pt_status st = pt_tensor_to(r, dtype, r->device, 0, out);
    pt_tensor_release(r);
    return st;
}

pt_status pt_norm_placeholders(pt_tensor **t, int n, const pt_tensor *like)
{
    const int64_t zero = 0;
    for (int i = 0; i < n; i++)
        if (!t[i]) PT_TRY(pt_tensor_empty(1, &zero, like->dtype, like->device, &t[i]));
    return PT_OK;
}
