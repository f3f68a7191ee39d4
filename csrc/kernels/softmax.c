/* softmax.c - softmax and log_softmax along one dim (softmax.int, log_softmax.int with their
 * dtype= argument, and torch's _softmax / _log_softmax with half_to_float), functional and out=.
 *
 * The tensor is seen as rows along `dim`: every index of the other dims is one row of size(dim)
 * elements, `stride(dim)` apart. A row that is contiguous in float32 or float64, in the input and
 * in the output, is handed to the row kernel (cpu/softmax_kernels.c) in place; any other row
 * (strided, or float16/bfloat16, which compute in float32 as torch does) is gathered into a
 * buffer in the compute dtype, computed there and written back, rounded once; a contiguous tensor
 * along a dim that is not its last goes by columns instead (Note [softmax across columns]). Rows
 * are split across threads. dtype= converts the input first (as torch's softmax does); integer,
 * bool and complex inputs without it are refused with torch's message. Results are new contiguous
 * tensors of the input's shape; an out= tensor must have the result's dtype and shape (an empty
 * one is resized).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "pt_ops_internal.h"
#include "softmax.h"

PT_CPU_STUB(softmax, pt_softmax_table, "softmax and log_softmax rows (float32, float64)")

typedef struct job {
    const pt_tensor *in;
    pt_tensor *out;
    int32_t dim, log, compute;
    int64_t size; /* elements per row */
    _Atomic int failed;
} job;

/* Element offsets of row r in t (the row-major index over every dim but `dim`). */
static int64_t row_offset(const pt_tensor *t, int32_t dim, int64_t r)
{
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (d == dim) continue;
        off += (r % t->sizes[d]) * t->strides[d];
        r /= t->sizes[d];
    }
    return off;
}

static void run_row(const pt_softmax_table *tab, const job *j, void *out, const void *in)
{
    if (j->compute == PT_FLOAT32) tab->f32[j->log](out, in, j->size);
    else tab->f64[j->log](out, in, j->size);
}

static void run_rows(int64_t begin, int64_t end, void *arg)
{
    job *j = arg;
    const pt_softmax_table *tab = PT_CPU_KERNELS(softmax, pt_softmax_table);
    const int32_t dt = j->in->dtype, csz = pt_dtype_itemsize(j->compute);
    const int64_t isz = pt_dtype_itemsize(dt);
    const int64_t is = j->in->ndim ? j->in->strides[j->dim] : 1;
    const int64_t os = j->out->ndim ? j->out->strides[j->dim] : 1;
    const bool direct = dt == j->compute && is == 1 && os == 1;
    char *buf = NULL;
    if (!direct && !(buf = malloc((size_t)(j->size * csz)))) {
        atomic_store(&j->failed, 1);
        return;
    }
    pt_cast_fn to = pt_iter_cast_fn(dt, j->compute), from = pt_iter_cast_fn(j->compute, dt);
    char *ibase = (char *)pt_tensor_data(j->in), *obase = pt_tensor_data(j->out);
    for (int64_t r = begin; r < end; r++) {
        char *ip = ibase + row_offset(j->in, j->dim, r) * isz;
        char *op = obase + row_offset(j->out, j->dim, r) * isz;
        if (direct) {
            run_row(tab, j, op, ip);
            continue;
        }
        to(buf, csz, ip, is * isz, j->size);
        run_row(tab, j, buf, buf);
        from(op, os * isz, buf, csz, j->size);
    }
    free(buf);
}

/* Note [softmax across columns] (cpu/softmax_kernels.c): a contiguous tensor softmaxed along a
 * dim that is not its last, seen as (outer, size, inner), in tasks of up to PT_SOFTMAX_COLS
 * neighbouring columns of one outer index. */
typedef struct col_job {
    const job *j;
    int64_t inner, blocks; /* blocks of columns per outer index */
} col_job;

static void run_cols(int64_t begin, int64_t end, void *arg)
{
    const col_job *cj = arg;
    const job *j = cj->j;
    const pt_softmax_table *tab = PT_CPU_KERNELS(softmax, pt_softmax_table);
    const int64_t n = j->size, inner = cj->inner;
    for (int64_t t = begin; t < end; t++) {
        const int64_t o = t / cj->blocks, c0 = (t - o * cj->blocks) * PT_SOFTMAX_COLS;
        const int64_t w = inner - c0 < PT_SOFTMAX_COLS ? inner - c0 : PT_SOFTMAX_COLS;
        const int64_t off = o * n * inner + c0;
        if (j->compute == PT_FLOAT32)
            tab->f32_cols[j->log]((float *)pt_tensor_data(j->out) + off,
                                  (const float *)pt_tensor_data(j->in) + off, n, inner, w);
        else
            tab->f64_cols[j->log]((double *)pt_tensor_data(j->out) + off,
                                  (const double *)pt_tensor_data(j->in) + off, n, inner, w);
    }
}

/* Whether the column path of Note [softmax across columns] takes the job. */
static bool by_columns(const job *j, int64_t *inner)
{
    const pt_tensor *in = j->in;
    *inner = 1;
    for (int32_t d = j->dim + 1; d < in->ndim; d++) *inner *= in->sizes[d];
    return *inner > 1 && j->size > 1 && in->dtype == j->compute &&
           pt_tensor_is_contiguous(in, PT_MEMORY_FORMAT_CONTIGUOUS) &&
           pt_tensor_is_contiguous(j->out, PT_MEMORY_FORMAT_CONTIGUOUS);
}

/* ---------------------------------------------------------------- checks and outputs */

static pt_status check_out(const char *name, const pt_tensor *self, int32_t dtype, pt_tensor *out)
{
    PT_TRY(pt_iter_check_operand(out, name, "out"));
    if (out->dtype != dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected out tensor to have dtype %s, but got %s "
                        "instead", name, pt_dtype_info_of(dtype)->name,
                        pt_dtype_info_of(out->dtype)->name);
    if ((out->device.type == PT_DEV_META) != (self->device.type == PT_DEV_META))
        return PT_ERROR(PT_ERR_RUNTIME, "%s: out is on another device than self", name);
    const bool same = out->ndim == self->ndim &&
                      (self->ndim == 0 || memcmp(out->sizes, self->sizes,
                                                 sizeof(int64_t) * (size_t)self->ndim) == 0);
    if (same) return pt_iter_check_write(out, self);
    if (out->numel != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: out has shape of %lld elements that does not match "
                        "self's; only an out tensor with no elements is resized", name,
                        (long long)out->numel);
    return pt_tensor_resize_(out, self->ndim, self->sizes);
}

/* Computes into out (given) or a new contiguous tensor. self already has the result dtype. */
static pt_status softmax_run(const char *name, const char *kname, const pt_tensor *self,
                             int64_t dim, int log, pt_tensor *out_arg, pt_tensor **out)
{
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    const int32_t dt = self->dtype;
    if (!pt_is_floating(dt)) return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for "
                                             "'%s'", kname, pt_iter_type_name(dt));
    pt_tensor *r = out_arg;
    if (r) {
        PT_TRY(check_out(name, self, dt, r));
        pt_tensor_retain(r);
    } else {
        PT_TRY(pt_tensor_empty(self->ndim, self->sizes, dt, self->device, &r));
    }
    if (self->device.type != PT_DEV_CPU || self->numel == 0) {
        *out = r;
        return PT_OK;
    }
    job j = {self, r, d, log, dt == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32,
             self->ndim ? self->sizes[d] : 1, 0};
    const int64_t rows = self->numel / j.size;
    int64_t inner;
    if (by_columns(&j, &inner)) {
        col_job cj = {&j, inner, (inner + PT_SOFTMAX_COLS - 1) / PT_SOFTMAX_COLS};
        const int64_t per_task = j.size * PT_SOFTMAX_COLS;
        pt_parallel_for(rows / inner * cj.blocks, (PT_GRAIN + per_task - 1) / per_task, run_cols,
                        &cj);
    } else {
        pt_parallel_for(rows, (PT_GRAIN + j.size - 1) / j.size, run_rows, &j);
    }
    if (atomic_load(&j.failed)) {
        pt_tensor_release(r);
        return PT_ERROR(PT_ERR_MEMORY, "%s: could not allocate a row buffer of %lld elements",
                        name, (long long)j.size);
    }
    *out = r;
    return PT_OK;
}

static const char *kernel_name(const pt_tensor *self, int64_t dim, int log)
{
    const bool last = self->ndim == 0 || dim == -1 || dim == self->ndim - 1;
    if (log) return last ? "log_softmax_lastdim_kernel_impl" : "log_softmax_kernel_impl";
    return last ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl";
}

static pt_status softmax_common(int log, const pt_tensor *self, int64_t dim, int32_t dtype,
                                int32_t half_to_float, pt_tensor *out_arg, pt_tensor **out)
{
    const char *name = log ? "log_softmax" : "softmax";
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", name);
    PT_TRY(pt_iter_check_operand(self, name, "self"));
    if (half_to_float > 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s with half to float conversion is not supported on CPU",
                        name);
    if (dtype < 0 || dtype == self->dtype)
        return softmax_run(name, kernel_name(self, dim, log), self, dim, log, out_arg, out);
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    pt_tensor *converted;
    PT_TRY(pt_tensor_to(self, dtype, self->device, 0, &converted));
    const pt_status st = softmax_run(name, kernel_name(self, dim, log), converted, dim, log,
                                     out_arg, out);
    pt_tensor_release(converted);
    return st;
}

/* ---------------------------------------------------------------- entry points */

pt_status pt_kernel_softmax_int(const pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor **out)
{
    return softmax_common(0, self, dim, dtype, 0, NULL, out);
}

pt_status pt_kernel_softmax_int_out(const pt_tensor *self, int64_t dim, int32_t dtype,
                                    pt_tensor *out_arg, pt_tensor **out)
{
    return softmax_common(0, self, dim, dtype, 0, out_arg, out);
}

pt_status pt_kernel_log_softmax_int(const pt_tensor *self, int64_t dim, int32_t dtype,
                                    pt_tensor **out)
{
    return softmax_common(1, self, dim, dtype, 0, NULL, out);
}

pt_status pt_kernel_log_softmax_int_out(const pt_tensor *self, int64_t dim, int32_t dtype,
                                        pt_tensor *out_arg, pt_tensor **out)
{
    return softmax_common(1, self, dim, dtype, 0, out_arg, out);
}

pt_status pt_kernel__softmax(const pt_tensor *self, int64_t dim, int32_t half_to_float,
                             pt_tensor **out)
{
    return softmax_common(0, self, dim, -1, half_to_float, NULL, out);
}

pt_status pt_kernel__softmax_out(const pt_tensor *self, int64_t dim, int32_t half_to_float,
                                 pt_tensor *out_arg, pt_tensor **out)
{
    return softmax_common(0, self, dim, -1, half_to_float, out_arg, out);
}

pt_status pt_kernel__log_softmax(const pt_tensor *self, int64_t dim, int32_t half_to_float,
                                 pt_tensor **out)
{
    return softmax_common(1, self, dim, -1, half_to_float, NULL, out);
}

pt_status pt_kernel__log_softmax_out(const pt_tensor *self, int64_t dim, int32_t half_to_float,
                                     pt_tensor *out_arg, pt_tensor **out)
{
    return softmax_common(1, self, dim, -1, half_to_float, out_arg, out);
}
