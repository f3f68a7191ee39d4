/* functions_nn_sample.c - the formula helpers of the sampling operators (padding, grid sampling,
 * shuffles): each is one operator call that the formula language cannot write by itself (a
 * negated list, one output of a two-output operator, a size divided by an argument). Same
 * contract as functions.c: a new reference, or NULL with the error recorded. */
#include <stdbool.h>

#include "functions_internal.h"

/* The adjoint of padding is padding by the negated amounts (negative padding crops). */
pt_tensor *pt_ag_constant_pad_nd_backward(const pt_tensor *grad, int32_t n, const int64_t *pad)
{
    int64_t neg[2 * PT_MAX_DIMS];
    if (n < 0 || n > 2 * PT_MAX_DIMS) {
        PT_ERROR(PT_ERR_RUNTIME, "constant_pad_nd_backward: %d padding values", (int)n);
        return NULL;
    }
    for (int32_t i = 0; i < n; i++) neg[i] = -pad[i];
    const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    return pt_call_constant_pad_nd(grad, n, neg, &zero);
}

/* One output of grid_sampler_{2,3}d_backward, asking the kernel for that one only. */
static pt_tensor *grid_backward(const pt_tensor *grad, const pt_tensor *input,
                                const pt_tensor *grid, int64_t mode, int64_t padding,
                                int32_t align_corners, int which, bool three)
{
    const int64_t mask[2] = {which == 0, which == 1};
    pt_tensor *r[2] = {NULL, NULL};
    const pt_status st =
        three ? pt_call_grid_sampler_3d_backward(grad, input, grid, mode, padding, align_corners,
                                                 2, mask, &r[0], &r[1])
              : pt_call_grid_sampler_2d_backward(grad, input, grid, mode, padding, align_corners,
                                                 2, mask, &r[0], &r[1]);
    if (st != PT_OK) return NULL;
    if (r[1 - which]) pt_tensor_release(r[1 - which]);
    return r[which];
}

pt_tensor *pt_ag_grid_sampler_2d_backward_input(const pt_tensor *grad, const pt_tensor *input,
                                                const pt_tensor *grid, int64_t mode,
                                                int64_t padding, int32_t align_corners)
{
    return grid_backward(grad, input, grid, mode, padding, align_corners, 0, false);
}

pt_tensor *pt_ag_grid_sampler_2d_backward_grid(const pt_tensor *grad, const pt_tensor *input,
                                               const pt_tensor *grid, int64_t mode,
                                               int64_t padding, int32_t align_corners)
{
    return grid_backward(grad, input, grid, mode, padding, align_corners, 1, false);
}

pt_tensor *pt_ag_grid_sampler_3d_backward_input(const pt_tensor *grad, const pt_tensor *input,
                                                const pt_tensor *grid, int64_t mode,
                                                int64_t padding, int32_t align_corners)
{
    return grid_backward(grad, input, grid, mode, padding, align_corners, 0, true);
}

pt_tensor *pt_ag_grid_sampler_3d_backward_grid(const pt_tensor *grad, const pt_tensor *input,
                                               const pt_tensor *grid, int64_t mode,
                                               int64_t padding, int32_t align_corners)
{
    return grid_backward(grad, input, grid, mode, padding, align_corners, 1, true);
}

/* Shuffling channels in g groups is undone by shuffling in C / g groups. */
pt_tensor *pt_ag_channel_shuffle_backward(const pt_tensor *grad, int64_t groups)
{
    return pt_call_channel_shuffle(grad, grad->sizes[1] / groups);
}
