/* functions_nn_norm.c - the formula helpers of the normalizations and of embedding.
 *
 * batch, layer and group norm have a fused backward operator that returns the gradients of input,
 * weight and bias at once. A node's formulas run one per input that has an edge, so each asks the
 * operator for its own gradient only (an output mask with one true) and keeps that one: the
 * kernels skip the work of the gradients nobody asked for. Same contract as functions.c: a new
 * reference or NULL with the error recorded. */
#include "functions_internal.h"

static pt_tensor *pick(pt_status st, int64_t which, pt_tensor *r[3])
{
    if (st != PT_OK) return NULL;
    for (int i = 0; i < 3; i++)
        if (i != which && r[i]) pt_tensor_release(r[i]);
    return r[which];
}

pt_tensor *pt_ag_batch_norm_backward_part(const pt_tensor *grad, const pt_tensor *input,
                                          const pt_tensor *weight, const pt_tensor *running_mean,
                                          const pt_tensor *running_var, const pt_tensor *save_mean,
                                          const pt_tensor *save_invstd, int32_t training,
                                          double eps, int64_t which)
{
    int64_t mask[3] = {which == 0, which == 1, which == 2};
    pt_tensor *r[3] = {NULL, NULL, NULL};
    const pt_status st = pt_call_native_batch_norm_backward(
        grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps, 3,
        mask, &r[0], &r[1], &r[2]);
    return pick(st, which, r);
}

pt_tensor *pt_ag_layer_norm_backward_part(const pt_tensor *grad, const pt_tensor *input,
                                          int32_t nshape, const int64_t *normalized_shape,
                                          const pt_tensor *mean, const pt_tensor *rstd,
                                          const pt_tensor *weight, const pt_tensor *bias,
                                          int64_t which)
{
    int64_t mask[3] = {which == 0, which == 1, which == 2};
    pt_tensor *r[3] = {NULL, NULL, NULL};
    const pt_status st = pt_call_native_layer_norm_backward(
        grad, input, nshape, normalized_shape, mean, rstd, weight, bias, 3, mask, &r[0], &r[1],
        &r[2]);
    return pick(st, which, r);
}

pt_tensor *pt_ag_group_norm_backward_part(const pt_tensor *grad, const pt_tensor *input,
                                          const pt_tensor *mean, const pt_tensor *rstd,
                                          const pt_tensor *weight, int64_t N, int64_t C,
                                          int64_t HxW, int64_t group, int64_t which)
{
    int64_t mask[3] = {which == 0, which == 1, which == 2};
    pt_tensor *r[3] = {NULL, NULL, NULL};
    const pt_status st = pt_call_native_group_norm_backward(
        grad, input, mean, rstd, weight, N, C, HxW, group, 3, mask, &r[0], &r[1], &r[2]);
    return pick(st, which, r);
}

/* torch's embedding_backward: the dense kernel; sparse gradients need a layout pytensor lacks. */
pt_tensor *pt_ag_embedding_backward(const pt_tensor *grad, const pt_tensor *indices,
                                    int32_t nsizes, const int64_t *weight_sizes,
                                    int64_t padding_idx, int32_t scale_grad_by_freq,
                                    int32_t sparse)
{
    if (sparse) {
        PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "embedding: sparse=True needs sparse gradients, and "
                 "pytensor has no sparse layout; use sparse=False");
        return NULL;
    }
    const int64_t num_weights = nsizes > 0 ? weight_sizes[0] : 0;
    return pt_call_embedding_dense_backward(grad, indices, num_weights, padding_idx,
                                            scale_grad_by_freq);
}

/* embedding_dense_backward is linear in grad_output: its own gradient gathers grad's rows at
 * the indices (zero at padding_idx), shaped as grad_output (indices' shape + [dim]). */
pt_tensor *pt_ag_embedding_dense_double_backward(const pt_tensor *grad, const pt_tensor *indices,
                                                 int64_t padding_idx)
{
    pt_tensor *r = pt_call_embedding(grad, indices, -1, 0, 0);
    if (!r || padding_idx < 0) return r;
    pt_tensor *ne = NULL, *mask = NULL, *out = NULL;
    const pt_scalar pad = {PT_SCALAR_INT, padding_idx, 0.0, 0.0};
    if (!(ne = pt_call_ne_Scalar(indices, &pad))) goto done;
    if (!(mask = pt_call_unsqueeze(ne, -1))) goto done;
    out = pt_call_mul_Tensor(r, mask);
done:
    if (mask) pt_tensor_release(mask);
    if (ne) pt_tensor_release(ne);
    pt_tensor_release(r);
    return out;
}
