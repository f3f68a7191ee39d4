/* grid.c - grid sampling (grid_sampler, grid_sampler_2d, grid_sampler_3d and their backward
 * kernels) and the affine grids that feed it (affine_grid_generator and its backward, 2-D and
 * 3-D), with torch's checks and messages.
 *
 * grid_sampler is torch's composite: the 2-D kernel for 4-D inputs, the 3-D one for 5-D inputs.
 * The kernels' arithmetic is in cpu/nn_sample_kernels.c; here the arguments are checked, results
 * allocated (contiguous, as torch's CPU kernels make them) and the work split: the forward over
 * output points, the backward over batches, since the points of one batch add into the same
 * grad_input.
 *
 * affine_grid_generator is torch's composition written out: the base grid holds, per output
 * pixel, its normalized coordinates (x, y[, z], 1) (torch's linspace(-1, 1), scaled by
 * (n - 1) / n without align_corners), and each batch's grid is base @ theta^T; the backward is
 * the adjoint, theta's gradient = sum over pixels of grad (outer) base.
 */
#include <stdio.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "native.h"
#include "nn/nn_sample.h"

PT_CPU_STUB_DECLARE(nn_sample);

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- checks */

static pt_status check_common(const pt_tensor *input, const pt_tensor *grid)
{
    char is[256], gs[256];
    pt_sample_format_sizes(is, sizeof is, input->ndim, input->sizes);
    pt_sample_format_sizes(gs, sizeof gs, grid->ndim, grid->sizes);
    if (input->device.type != grid->device.type || input->device.index != grid->device.index)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected input and grid to be on same "
                        "device");
    if (input->ndim != grid->ndim || input->ndim < 3)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected 4D or 5D input and grid with "
                        "same number of dimensions, but got input with sizes %s and grid with "
                        "sizes %s", is, gs);
    if (input->sizes[0] != grid->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected grid and input to have same "
                        "batch size, but got input with sizes %s and grid with sizes %s", is, gs);
    if (grid->sizes[grid->ndim - 1] != input->ndim - 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected grid to have size %d in last "
                        "dimension, but got grid with sizes %s", (int)(input->ndim - 2), gs);
    for (int32_t d = 2; d < input->ndim; d++)
        if (input->sizes[d] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected input to have non-empty "
                            "spatial dimensions, but input has sizes %s with dimension %d being "
                            "empty", is, (int)d);
    return PT_OK;
}

/* torch's check_grid_sampler_2d / _3d, with the kernels' dtype checks. */
static pt_status check_nd(int32_t nd, const pt_tensor *input, const pt_tensor *grid, int64_t mode,
                          int64_t padding)
{
    PT_TRY(check_common(input, grid));
    if (input->ndim != nd + 2) {
        char is[256], gs[256];
        pt_sample_format_sizes(is, sizeof is, input->ndim, input->sizes);
        pt_sample_format_sizes(gs, sizeof gs, grid->ndim, grid->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected %dD input and grid with same "
                        "number of dimensions, but got input with sizes %s and grid with sizes "
                        "%s", (int)(nd + 2), is, gs);
    }
    if (nd == 3 && mode == 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): bicubic interpolation only supports 4D "
                        "input");
    if (mode < 0 || mode > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): unknown interpolation mode %lld",
                        (long long)mode);
    if (padding < 0 || padding > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): unknown padding mode %lld",
                        (long long)padding);
    const int32_t dt = input->dtype;
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64 && !pt_sample_is_half(dt))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                        nd == 2 ? "grid_sampler_2d_cpu_kernel_impl" : "grid_sampler3d_cpu",
                        pt_iter_type_name(dt));
    if (grid->dtype != dt)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(dt), pt_iter_type_name(grid->dtype));
    return PT_OK;
}

/* ---------------------------------------------------------------- grid_sampler_{2,3}d */

typedef struct grid_job {
    pt_grid_args a;
    int32_t f64;
} grid_job;

static void grid_fwd_units(int64_t begin, int64_t end, void *arg)
{
    const grid_job *j = arg;
    PT_CPU_KERNELS(nn_sample, pt_nn_sample_table)->grid_fwd[j->f64](&j->a, begin, end);
}

static void grid_bwd_units(int64_t begin, int64_t end, void *arg)
{
    const grid_job *j = arg;
    PT_CPU_KERNELS(nn_sample, pt_nn_sample_table)->grid_bwd[j->f64](&j->a, begin, end);
}

static void copy_strides(int64_t *dst, const pt_tensor *t)
{
    for (int32_t d = 0; d < t->ndim; d++) dst[d] = t->strides[d];
}

static void grid_args(grid_job *j, const pt_tensor *input, const pt_tensor *grid, int64_t mode,
                      int64_t padding, int32_t align_corners)
{
    memset(j, 0, sizeof *j);
    pt_grid_args *a = &j->a;
    const int32_t nd = input->ndim - 2, lead = PT_SAMPLE_MAX_DIMS - nd;
    j->f64 = input->dtype == PT_FLOAT64;
    a->input = pt_tensor_data(input);
    a->grid = pt_tensor_data(grid);
    a->n = input->sizes[0];
    a->c = input->sizes[1];
    for (int32_t d = 0; d < PT_SAMPLE_MAX_DIMS; d++) {
        a->in_size[d] = d < lead ? 1 : input->sizes[2 + d - lead];
        a->out_size[d] = d < lead ? 1 : grid->sizes[1 + d - lead];
    }
    copy_strides(a->in_s, input);
    copy_strides(a->grid_s, grid);
    a->nd = nd;
    a->mode = (int32_t)mode;
    a->padding = (int32_t)padding;
    a->align_corners = align_corners != 0;
}

static pt_status sampler_forward(int32_t nd, const pt_tensor *input, const pt_tensor *grid,
                                 int64_t mode, int64_t padding, int32_t align_corners,
                                 pt_tensor **ret)
{
    PT_TRY(check_nd(nd, input, grid, mode, padding));
    if (pt_sample_is_half(input->dtype)) { /* Note [reduced precision sampling] */
        pt_tensor *fi, *fg, *r = NULL;
        PT_TRY(pt_sample_upcast(input, &fi));
        pt_status st = pt_sample_upcast(grid, &fg);
        if (st == PT_OK) {
            st = sampler_forward(nd, fi, fg, mode, padding, align_corners, &r);
            pt_tensor_release(fg);
        }
        pt_tensor_release(fi);
        return pt_sample_downcast(st, r, input->dtype, ret);
    }
    int64_t sizes[2 + PT_SAMPLE_MAX_DIMS] = {input->sizes[0], input->sizes[1]};
    int64_t points = sizes[0];
    for (int32_t d = 0; d < nd; d++) {
        sizes[2 + d] = grid->sizes[1 + d];
        points *= sizes[2 + d];
    }
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(nd + 2, sizes, input->dtype, input->device, &r));
    if (input->device.type == PT_DEV_CPU && r->numel) {
        grid_job j;
        grid_args(&j, input, grid, mode, padding, align_corners);
        j.a.output = pt_tensor_data(r);
        copy_strides(j.a.out_s, r);
        const int64_t per = sizes[1] * 8;
        pt_parallel_for(points, (PT_GRAIN + per - 1) / per, grid_fwd_units, &j);
    }
    *ret = r;
    return PT_OK;
}

static pt_status sampler_backward(int32_t nd, const pt_tensor *grad_output,
                                  const pt_tensor *input, const pt_tensor *grid, int64_t mode,
                                  int64_t padding, int32_t align_corners, int32_t output_mask_len,
                                  const int64_t *output_mask, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(check_nd(nd, input, grid, mode, padding));
    int64_t want[2 + PT_SAMPLE_MAX_DIMS] = {input->sizes[0], input->sizes[1]}, per_batch = 8;
    for (int32_t d = 0; d < nd; d++) {
        want[2 + d] = grid->sizes[1 + d];
        per_batch *= want[2 + d];
    }
    bool ok = grad_output->ndim == nd + 2 && grad_output->dtype == input->dtype;
    for (int32_t d = 0; ok && d < nd + 2; d++) ok = grad_output->sizes[d] == want[d];
    if (!ok) {
        char gs[256], ws[256];
        pt_sample_format_sizes(gs, sizeof gs, grad_output->ndim, grad_output->sizes);
        pt_sample_format_sizes(ws, sizeof ws, nd + 2, want);
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler_%dd_backward: expected grad_output of "
                        "sizes %s and dtype %s, but got sizes %s and dtype %s", (int)nd, ws,
                        pt_iter_type_name(input->dtype), gs,
                        pt_iter_type_name(grad_output->dtype));
    }
    if (output_mask_len != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler_%dd_backward: output_mask must have 2 "
                        "elements, got %d", (int)nd, (int)output_mask_len);
    if (pt_sample_is_half(input->dtype)) { /* Note [reduced precision sampling] */
        pt_tensor *f[3] = {NULL, NULL, NULL}, *gi = NULL, *gg = NULL;
        const pt_tensor *src[3] = {grad_output, input, grid};
        pt_status st = PT_OK;
        for (int k = 0; k < 3 && st == PT_OK; k++) st = pt_sample_upcast(src[k], &f[k]);
        if (st == PT_OK)
            st = sampler_backward(nd, f[0], f[1], f[2], mode, padding, align_corners,
                                  output_mask_len, output_mask, &gi, &gg);
        for (int k = 0; k < 3; k++)
            if (f[k]) pt_tensor_release(f[k]);
        if (st != PT_OK) return st;
        st = pt_sample_downcast(PT_OK, gi, input->dtype, ret0);
        if (st != PT_OK) {
            pt_tensor_release(gg);
            return st;
        }
        st = pt_sample_downcast(PT_OK, gg, input->dtype, ret1);
        if (st != PT_OK) pt_tensor_release(*ret0);
        return st;
    }
    pt_tensor *gi = NULL, *gg = NULL;
    PT_TRY(pt_tensor_empty(input->ndim, input->sizes, input->dtype, input->device, &gi));
    pt_status st = pt_tensor_empty(grid->ndim, grid->sizes, grid->dtype, grid->device, &gg);
    if (st != PT_OK) {
        pt_tensor_release(gi);
        return st;
    }
    if (input->device.type == PT_DEV_CPU) {
        grid_job j;
        grid_args(&j, input, grid, mode, padding, align_corners);
        j.a.grad_output = pt_tensor_data(grad_output);
        copy_strides(j.a.gout_s, grad_output);
        j.a.grad_input = output_mask[0] ? pt_tensor_data(gi) : NULL;
        j.a.grad_grid = output_mask[1] ? pt_tensor_data(gg) : NULL;
        copy_strides(j.a.gin_s, gi);
        copy_strides(j.a.ggrid_s, gg);
        /* what is not asked for is zeros, not computed */
        const size_t isz = (size_t)pt_dtype_itemsize(gi->dtype);
        if (!output_mask[0]) memset(pt_tensor_data(gi), 0, (size_t)gi->numel * isz);
        if (!output_mask[1]) memset(pt_tensor_data(gg), 0, (size_t)gg->numel * isz);
        if ((output_mask[0] || output_mask[1]) && gi->numel + gg->numel) {
            const int64_t per = per_batch * want[1];
            pt_parallel_for(want[0], (PT_GRAIN + per - 1) / (per ? per : 1), grid_bwd_units, &j);
        }
    }
    *ret0 = gi;
    *ret1 = gg;
    return PT_OK;
}

pt_status pt_kernel_grid_sampler_2d(const pt_tensor *input, const pt_tensor *grid,
                                    int64_t interpolation_mode, int64_t padding_mode,
                                    int32_t align_corners, pt_tensor **ret)
{
    return sampler_forward(2, input, grid, interpolation_mode, padding_mode, align_corners, ret);
}

pt_status pt_kernel_grid_sampler_3d(const pt_tensor *input, const pt_tensor *grid,
                                    int64_t interpolation_mode, int64_t padding_mode,
                                    int32_t align_corners, pt_tensor **ret)
{
    return sampler_forward(3, input, grid, interpolation_mode, padding_mode, align_corners, ret);
}

pt_status pt_kernel_grid_sampler_2d_backward(const pt_tensor *grad_output, const pt_tensor *input,
                                             const pt_tensor *grid, int64_t interpolation_mode,
                                             int64_t padding_mode, int32_t align_corners,
                                             int32_t output_mask_len, const int64_t *output_mask,
                                             pt_tensor **ret0, pt_tensor **ret1)
{
    return sampler_backward(2, grad_output, input, grid, interpolation_mode, padding_mode,
                            align_corners, output_mask_len, output_mask, ret0, ret1);
}

pt_status pt_kernel_grid_sampler_3d_backward(const pt_tensor *grad_output, const pt_tensor *input,
                                             const pt_tensor *grid, int64_t interpolation_mode,
                                             int64_t padding_mode, int32_t align_corners,
                                             int32_t output_mask_len, const int64_t *output_mask,
                                             pt_tensor **ret0, pt_tensor **ret1)
{
    return sampler_backward(3, grad_output, input, grid, interpolation_mode, padding_mode,
                            align_corners, output_mask_len, output_mask, ret0, ret1);
}

pt_status pt_native_grid_sampler(const pt_tensor *input, const pt_tensor *grid,
                                 int64_t interpolation_mode, int64_t padding_mode,
                                 int32_t align_corners, pt_tensor **ret)
{
    PT_TRY(check_common(input, grid));
    if (input->ndim == 4)
        return returned(pt_call_grid_sampler_2d(input, grid, interpolation_mode, padding_mode,
                                                align_corners),
                        ret);
    return returned(pt_call_grid_sampler_3d(input, grid, interpolation_mode, padding_mode,
                                            align_corners),
                    ret);
}

/* ---------------------------------------------------------------- affine_grid_generator */

/* torch's linspace(-1, 1, n) (halves computed from either end), times (n - 1) / n without
 * align_corners; 0 for n <= 1. sp: the output's spatial sizes (D, H, W; D = 1 for 2-d grids);
 * nd coordinates (x, y[, z]) per point, the base point being (x, y[, z], 1). */
#define AFFINE(SUF, T)                                                                             \
    static T base_coord_##SUF(int64_t i, int64_t n, int ac)                                        \
    {                                                                                              \
        if (n <= 1) return 0;                                                                      \
        const T step = (T)2 / (T)(n - 1);                                                          \
        const T v = i < n / 2 ? (T)-1 + step * (T)i : (T)1 - step * (T)(n - i - 1);                \
        return ac ? v : v * (T)(n - 1) / (T)n;                                                     \
    }                                                                                              \
    static void base_point_##SUF(T *b, int32_t nd, const int64_t *sp, int64_t d, int64_t h,       \
                                 int64_t w, int ac)                                                \
    {                                                                                              \
        b[0] = base_coord_##SUF(w, sp[2], ac);                                                     \
        b[1] = base_coord_##SUF(h, sp[1], ac);                                                     \
        if (nd == 3) b[2] = base_coord_##SUF(d, sp[0], ac);                                        \
        b[nd] = 1;                                                                                 \
    }                                                                                              \
    static void affine_fwd_##SUF(const pt_tensor *theta, T *out, int32_t nd, int64_t N,            \
                                 const int64_t *sp, int ac)                                        \
    {                                                                                              \
        const T *t = pt_tensor_data(theta);                                                        \
        const int64_t s0 = theta->strides[0], s1 = theta->strides[1], s2 = theta->strides[2];      \
        for (int64_t n = 0; n < N; n++)                                                            \
            for (int64_t d = 0; d < sp[0]; d++)                                                    \
                for (int64_t h = 0; h < sp[1]; h++)                                                \
                    for (int64_t w = 0; w < sp[2]; w++) {                                          \
                        T b[4];                                                                    \
                        base_point_##SUF(b, nd, sp, d, h, w, ac);                                  \
                        T *o = out + (((n * sp[0] + d) * sp[1] + h) * sp[2] + w) * nd;             \
                        for (int j = 0; j < nd; j++) {                                             \
                            const T *r = t + n * s0 + j * s1;                                      \
                            T acc = 0;                                                             \
                            for (int k = 0; k <= nd; k++) acc += b[k] * r[k * s2];                 \
                            o[j] = acc;                                                            \
                        }                                                                          \
                    }                                                                              \
    }                                                                                              \
    static void affine_bwd_##SUF(const pt_tensor *grad, T *out, int32_t nd, int64_t N,             \
                                 const int64_t *sp, int ac)                                        \
    {                                                                                              \
        const T *g = pt_tensor_data(grad);                                                         \
        const int64_t *s = grad->strides;                                                          \
        const int32_t sd = nd == 3 ? 1 : 0;                                                        \
        for (int64_t n = 0; n < N; n++) {                                                          \
            T acc[3][4] = {{0}};                                                                   \
            for (int64_t d = 0; d < sp[0]; d++)                                                    \
                for (int64_t h = 0; h < sp[1]; h++)                                                \
                    for (int64_t w = 0; w < sp[2]; w++) {                                          \
                        T b[4];                                                                    \
                        base_point_##SUF(b, nd, sp, d, h, w, ac);                                  \
                        const T *p = g + n * s[0] + (sd ? d * s[1] : 0) + h * s[1 + sd] +          \
                                     w * s[2 + sd];                                                \
                        for (int j = 0; j < nd; j++) {                                             \
                            const T v = p[j * s[3 + sd]];                                          \
                            for (int k = 0; k <= nd; k++) acc[j][k] += b[k] * v;                   \
                        }                                                                          \
                    }                                                                              \
            for (int j = 0; j < nd; j++)                                                           \
                for (int k = 0; k <= nd; k++) out[(n * nd + j) * (nd + 1) + k] = acc[j][k];        \
        }                                                                                          \
    }

AFFINE(f4, float)
AFFINE(f8, double)

static pt_status affine_size(int32_t size_len, const int64_t *size)
{
    if (size_len != 4 && size_len != 5)
        return PT_ERROR(PT_ERR_RUNTIME, "AffineGridGenerator needs 4d (spatial) or 5d "
                        "(volumetric) inputs.");
    for (int32_t d = 0; d < size_len; d++)
        if (size[d] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "affine_grid_generator: negative size %lld",
                            (long long)size[d]);
    return PT_OK;
}

static pt_status affine_dtype(const char *name, int32_t dt)
{
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        pt_iter_type_name(dt));
    return PT_OK;
}

/* The spatial sizes (D, H, W) of a 4-d or 5-d size. */
static void affine_spatial(int32_t size_len, const int64_t *size, int64_t *sp)
{
    sp[0] = size_len == 5 ? size[2] : 1;
    sp[1] = size[size_len - 2];
    sp[2] = size[size_len - 1];
}

pt_status pt_kernel_affine_grid_generator(const pt_tensor *theta, int32_t size_len,
                                          const int64_t *size, int32_t align_corners,
                                          pt_tensor **ret)
{
    PT_TRY(affine_size(size_len, size));
    if (pt_sample_is_half(theta->dtype)) { /* Note [reduced precision sampling] */
        pt_tensor *f, *r = NULL;
        PT_TRY(pt_sample_upcast(theta, &f));
        const pt_status st = pt_kernel_affine_grid_generator(f, size_len, size, align_corners, &r);
        pt_tensor_release(f);
        return pt_sample_downcast(st, r, theta->dtype, ret);
    }
    PT_TRY(affine_dtype("affine_grid_generator", theta->dtype));
    const int32_t nd = size_len - 2;
    if (theta->ndim != 3 || theta->sizes[0] != size[0] || theta->sizes[1] != nd ||
        theta->sizes[2] != nd + 1) {
        char ts[256];
        pt_sample_format_sizes(ts, sizeof ts, theta->ndim, theta->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "affine_grid_generator: expected theta of sizes [%lld, "
                        "%d, %d], but got %s", (long long)size[0], (int)nd, (int)(nd + 1), ts);
    }
    int64_t sp[3], sizes[5] = {size[0]};
    affine_spatial(size_len, size, sp);
    for (int32_t d = 0; d < nd; d++) sizes[1 + d] = sp[3 - nd + d];
    sizes[1 + nd] = nd;
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(nd + 2, sizes, theta->dtype, theta->device, &r));
    if (theta->device.type == PT_DEV_CPU && r->numel) {
        if (theta->dtype == PT_FLOAT64)
            affine_fwd_f8(theta, pt_tensor_data(r), nd, size[0], sp, align_corners);
        else
            affine_fwd_f4(theta, pt_tensor_data(r), nd, size[0], sp, align_corners);
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel_affine_grid_generator_backward(const pt_tensor *grad, int32_t size_len,
                                                   const int64_t *size, int32_t align_corners,
                                                   pt_tensor **ret)
{
    PT_TRY(affine_size(size_len, size));
    if (pt_sample_is_half(grad->dtype)) { /* Note [reduced precision sampling] */
        pt_tensor *f, *r = NULL;
        PT_TRY(pt_sample_upcast(grad, &f));
        const pt_status st = pt_kernel_affine_grid_generator_backward(f, size_len, size,
                                                                      align_corners, &r);
        pt_tensor_release(f);
        return pt_sample_downcast(st, r, grad->dtype, ret);
    }
    PT_TRY(affine_dtype("affine_grid_generator_backward", grad->dtype));
    const int32_t nd = size_len - 2;
    int64_t sp[3], want[5] = {size[0]};
    affine_spatial(size_len, size, sp);
    for (int32_t d = 0; d < nd; d++) want[1 + d] = sp[3 - nd + d];
    want[1 + nd] = nd;
    bool ok = grad->ndim == nd + 2;
    for (int32_t d = 0; ok && d < nd + 2; d++) ok = grad->sizes[d] == want[d];
    if (!ok) {
        char gs[256], ws[256];
        pt_sample_format_sizes(gs, sizeof gs, grad->ndim, grad->sizes);
        pt_sample_format_sizes(ws, sizeof ws, nd + 2, want);
        return PT_ERROR(PT_ERR_RUNTIME, "affine_grid_generator_backward: expected grad of sizes "
                        "%s, but got %s", ws, gs);
    }
    const int64_t sizes[3] = {size[0], nd, nd + 1};
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(3, sizes, grad->dtype, grad->device, &r));
    if (grad->device.type == PT_DEV_CPU && r->numel) {
        if (grad->dtype == PT_FLOAT64)
            affine_bwd_f8(grad, pt_tensor_data(r), nd, size[0], sp, align_corners);
        else
            affine_bwd_f4(grad, pt_tensor_data(r), nd, size[0], sp, align_corners);
    }
    *ret = r;
    return PT_OK;
}
