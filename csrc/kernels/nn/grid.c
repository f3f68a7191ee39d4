/* grid.c - grid sampling (grid_sampler, grid_sampler_2d and its backward) and the affine grids
 * that feed it (affine_grid_generator and its backward), with torch's checks and messages.
 *
 * grid_sampler is torch's composite: it picks the 2-D kernel for 4-D inputs (5-D inputs, torch's
 * grid_sampler_3d, are refused: pytensor has no 3-D kernel yet). The kernels' arithmetic is in
 * cpu/nn_sample_kernels.c; here the arguments are checked, results allocated (contiguous, as
 * torch's CPU kernels make them) and the work split: the forward over output points, the
 * backward over batches, since the points of one batch add into the same grad_input.
 *
 * affine_grid_generator is torch's composition written out: the base grid holds, per output
 * pixel, its normalized coordinates (x, y, 1) (torch's linspace(-1, 1), scaled by (n - 1) / n
 * without align_corners), and each batch's grid is base @ theta^T; the backward is the adjoint,
 * theta's gradient = sum over pixels of grad (outer) base.
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

static pt_status check_2d(const pt_tensor *input, const pt_tensor *grid, int64_t mode,
                          int64_t padding)
{
    PT_TRY(check_common(input, grid));
    if (input->ndim != 4) {
        char is[256], gs[256];
        pt_sample_format_sizes(is, sizeof is, input->ndim, input->sizes);
        pt_sample_format_sizes(gs, sizeof gs, grid->ndim, grid->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): expected 4D input and grid with same "
                        "number of dimensions, but got input with sizes %s and grid with sizes "
                        "%s", is, gs);
    }
    if (mode < 0 || mode > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): unknown interpolation mode %lld",
                        (long long)mode);
    if (padding < 0 || padding > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): unknown padding mode %lld",
                        (long long)padding);
    const int32_t dt = input->dtype;
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"grid_sampler_2d_cpu_kernel_impl\" not "
                        "implemented for '%s'", pt_iter_type_name(dt));
    if (grid->dtype != dt)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(dt), pt_iter_type_name(grid->dtype));
    return PT_OK;
}

/* ---------------------------------------------------------------- grid_sampler_2d */

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
    j->f64 = input->dtype == PT_FLOAT64;
    a->input = pt_tensor_data(input);
    a->grid = pt_tensor_data(grid);
    a->n = input->sizes[0];
    a->c = input->sizes[1];
    a->in_size[0] = a->out_size[0] = 1;
    a->in_size[1] = input->sizes[2];
    a->in_size[2] = input->sizes[3];
    a->out_size[1] = grid->sizes[1];
    a->out_size[2] = grid->sizes[2];
    copy_strides(a->in_s, input);
    copy_strides(a->grid_s, grid);
    a->nd = 2;
    a->mode = (int32_t)mode;
    a->padding = (int32_t)padding;
    a->align_corners = align_corners != 0;
}

pt_status pt_kernel_grid_sampler_2d(const pt_tensor *input, const pt_tensor *grid,
                                    int64_t interpolation_mode, int64_t padding_mode,
                                    int32_t align_corners, pt_tensor **ret)
{
    PT_TRY(check_2d(input, grid, interpolation_mode, padding_mode));
    const int64_t sizes[4] = {input->sizes[0], input->sizes[1], grid->sizes[1], grid->sizes[2]};
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(4, sizes, input->dtype, input->device, &r));
    if (input->device.type == PT_DEV_CPU && r->numel) {
        grid_job j;
        grid_args(&j, input, grid, interpolation_mode, padding_mode, align_corners);
        j.a.output = pt_tensor_data(r);
        copy_strides(j.a.out_s, r);
        const int64_t points = sizes[0] * sizes[2] * sizes[3], per = sizes[1] * 8;
        pt_parallel_for(points, (PT_GRAIN + per - 1) / per, grid_fwd_units, &j);
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel_grid_sampler_2d_backward(const pt_tensor *grad_output, const pt_tensor *input,
                                             const pt_tensor *grid, int64_t interpolation_mode,
                                             int64_t padding_mode, int32_t align_corners,
                                             int32_t output_mask_len, const int64_t *output_mask,
                                             pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(check_2d(input, grid, interpolation_mode, padding_mode));
    const int64_t want[4] = {input->sizes[0], input->sizes[1], grid->sizes[1], grid->sizes[2]};
    bool ok = grad_output->ndim == 4 && grad_output->dtype == input->dtype;
    for (int32_t d = 0; ok && d < 4; d++) ok = grad_output->sizes[d] == want[d];
    if (!ok) {
        char gs[256], ws[256];
        pt_sample_format_sizes(gs, sizeof gs, grad_output->ndim, grad_output->sizes);
        pt_sample_format_sizes(ws, sizeof ws, 4, want);
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler_2d_backward: expected grad_output of sizes "
                        "%s and dtype %s, but got sizes %s and dtype %s", ws,
                        pt_iter_type_name(input->dtype), gs,
                        pt_iter_type_name(grad_output->dtype));
    }
    if (output_mask_len != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler_2d_backward: output_mask must have 2 "
                        "elements, got %d", (int)output_mask_len);
    pt_tensor *gi = NULL, *gg = NULL;
    PT_TRY(pt_tensor_empty(4, input->sizes, input->dtype, input->device, &gi));
    pt_status st = pt_tensor_empty(4, grid->sizes, grid->dtype, grid->device, &gg);
    if (st != PT_OK) {
        pt_tensor_release(gi);
        return st;
    }
    if (input->device.type == PT_DEV_CPU) {
        grid_job j;
        grid_args(&j, input, grid, interpolation_mode, padding_mode, align_corners);
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
            const int64_t per = want[1] * want[2] * want[3] * 8;
            pt_parallel_for(want[0], (PT_GRAIN + per - 1) / (per ? per : 1), grid_bwd_units, &j);
        }
    }
    *ret0 = gi;
    *ret1 = gg;
    return PT_OK;
}

pt_status pt_native_grid_sampler(const pt_tensor *input, const pt_tensor *grid,
                                 int64_t interpolation_mode, int64_t padding_mode,
                                 int32_t align_corners, pt_tensor **ret)
{
    PT_TRY(check_common(input, grid));
    if (input->ndim == 5) {
        if (interpolation_mode == 2)
            return PT_ERROR(PT_ERR_RUNTIME, "grid_sampler(): bicubic interpolation only supports "
                            "4D input");
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "grid_sampler(): 5D input (grid_sampler_3d) is "
                        "not supported by pytensor yet");
    }
    return returned(pt_call_grid_sampler_2d(input, grid, interpolation_mode, padding_mode,
                                            align_corners),
                    ret);
}

/* ---------------------------------------------------------------- affine_grid_generator */

/* torch's linspace(-1, 1, n) (halves computed from either end), times (n - 1) / n without
 * align_corners; 0 for n <= 1. */
#define LINSPACE(SUF, T)                                                                           \
    static T base_coord_##SUF(int64_t i, int64_t n, int ac)                                        \
    {                                                                                              \
        if (n <= 1) return 0;                                                                      \
        const T step = (T)2 / (T)(n - 1);                                                          \
        const T v = i < n / 2 ? (T)-1 + step * (T)i : (T)1 - step * (T)(n - i - 1);                \
        return ac ? v : v * (T)(n - 1) / (T)n;                                                     \
    }                                                                                              \
    static void affine_fwd_##SUF(const pt_tensor *theta, T *out, int64_t N, int64_t H, int64_t W, \
                                 int ac)                                                           \
    {                                                                                              \
        const T *t = pt_tensor_data(theta);                                                        \
        const int64_t s0 = theta->strides[0], s1 = theta->strides[1], s2 = theta->strides[2];      \
        for (int64_t n = 0; n < N; n++)                                                            \
            for (int64_t h = 0; h < H; h++) {                                                      \
                const T y = base_coord_##SUF(h, H, ac);                                            \
                for (int64_t w = 0; w < W; w++) {                                                  \
                    const T x = base_coord_##SUF(w, W, ac);                                        \
                    T *o = out + ((n * H + h) * W + w) * 2;                                        \
                    for (int j = 0; j < 2; j++) {                                                  \
                        const T *r = t + n * s0 + j * s1;                                          \
                        o[j] = x * r[0] + y * r[s2] + r[2 * s2];                                   \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
    }                                                                                              \
    static void affine_bwd_##SUF(const pt_tensor *grad, T *out, int64_t N, int64_t H, int64_t W,  \
                                 int ac)                                                           \
    {                                                                                              \
        const T *g = pt_tensor_data(grad);                                                         \
        const int64_t *s = grad->strides;                                                          \
        for (int64_t n = 0; n < N; n++) {                                                          \
            T acc[2][3] = {{0, 0, 0}, {0, 0, 0}};                                                  \
            for (int64_t h = 0; h < H; h++) {                                                      \
                const T y = base_coord_##SUF(h, H, ac);                                            \
                for (int64_t w = 0; w < W; w++) {                                                  \
                    const T x = base_coord_##SUF(w, W, ac);                                        \
                    const T *p = g + n * s[0] + h * s[1] + w * s[2];                               \
                    for (int j = 0; j < 2; j++) {                                                  \
                        const T v = p[j * s[3]];                                                   \
                        acc[j][0] += x * v;                                                        \
                        acc[j][1] += y * v;                                                        \
                        acc[j][2] += v;                                                            \
                    }                                                                              \
                }                                                                              \
            }                                                                                      \
            for (int j = 0; j < 2; j++)                                                            \
                for (int k = 0; k < 3; k++) out[(n * 2 + j) * 3 + k] = acc[j][k];                  \
        }                                                                                          \
    }

LINSPACE(f4, float)
LINSPACE(f8, double)

static pt_status affine_size(const char *name, int32_t size_len, const int64_t *size)
{
    if (size_len == 5)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: 5-d sizes (3-D affine grids) are not "
                        "supported by pytensor yet", name);
    if (size_len != 4)
        return PT_ERROR(PT_ERR_RUNTIME, "AffineGridGenerator needs 4d (spatial) or 5d "
                        "(volumetric) inputs.");
    for (int32_t d = 0; d < 4; d++)
        if (size[d] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: negative size %lld", name, (long long)size[d]);
    return PT_OK;
}

static pt_status affine_dtype(const char *name, int32_t dt)
{
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        pt_iter_type_name(dt));
    return PT_OK;
}

pt_status pt_kernel_affine_grid_generator(const pt_tensor *theta, int32_t size_len,
                                          const int64_t *size, int32_t align_corners,
                                          pt_tensor **ret)
{
    PT_TRY(affine_size("affine_grid_generator", size_len, size));
    PT_TRY(affine_dtype("affine_grid_generator", theta->dtype));
    if (theta->ndim != 3 || theta->sizes[0] != size[0] || theta->sizes[1] != 2 ||
        theta->sizes[2] != 3) {
        char ts[256];
        pt_sample_format_sizes(ts, sizeof ts, theta->ndim, theta->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "affine_grid_generator: expected theta of sizes [%lld, "
                        "2, 3], but got %s", (long long)size[0], ts);
    }
    const int64_t sizes[4] = {size[0], size[2], size[3], 2};
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(4, sizes, theta->dtype, theta->device, &r));
    if (theta->device.type == PT_DEV_CPU && r->numel) {
        if (theta->dtype == PT_FLOAT64)
            affine_fwd_f8(theta, pt_tensor_data(r), size[0], size[2], size[3], align_corners);
        else
            affine_fwd_f4(theta, pt_tensor_data(r), size[0], size[2], size[3], align_corners);
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel_affine_grid_generator_backward(const pt_tensor *grad, int32_t size_len,
                                                   const int64_t *size, int32_t align_corners,
                                                   pt_tensor **ret)
{
    PT_TRY(affine_size("affine_grid_generator_backward", size_len, size));
    PT_TRY(affine_dtype("affine_grid_generator_backward", grad->dtype));
    if (grad->ndim != 4 || grad->sizes[0] != size[0] || grad->sizes[1] != size[2] ||
        grad->sizes[2] != size[3] || grad->sizes[3] != 2) {
        char gs[256];
        pt_sample_format_sizes(gs, sizeof gs, grad->ndim, grad->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "affine_grid_generator_backward: expected grad of sizes "
                        "[%lld, %lld, %lld, 2], but got %s", (long long)size[0],
                        (long long)size[2], (long long)size[3], gs);
    }
    const int64_t sizes[3] = {size[0], 2, 3};
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(3, sizes, grad->dtype, grad->device, &r));
    if (grad->device.type == PT_DEV_CPU && r->numel) {
        if (grad->dtype == PT_FLOAT64)
            affine_bwd_f8(grad, pt_tensor_data(r), size[0], size[2], size[3], align_corners);
        else
            affine_bwd_f4(grad, pt_tensor_data(r), size[0], size[2], size[3], align_corners);
    }
    *ret = r;
    return PT_OK;
}
