/* embedding_bag_composite.c - embedding_bag's two overloads (CompositeImplicitAutograd, as in
 * torch): the padding_idx overload checks and wraps a negative padding_idx; both call
 * _embedding_bag (EmbeddingBagBackward0) when a gradient will be recorded and
 * _embedding_bag_forward_only otherwise.
 */
#include "autograd.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

static pt_status bag(const pt_tensor *weight, const pt_tensor *indices, const pt_tensor *offsets,
                     int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
                     const pt_tensor *per_sample_weights, int32_t include_last_offset,
                     int64_t padding_idx, pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2,
                     pt_tensor **ret3)
{
    const bool grad = pt_grad_mode_enabled() &&
                      (pt_requires_grad(weight) ||
                       (per_sample_weights && pt_requires_grad(per_sample_weights)));
    return grad ? pt_call__embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                                         per_sample_weights, include_last_offset, padding_idx,
                                         ret0, ret1, ret2, ret3)
                : pt_call__embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq,
                                                      mode, sparse, per_sample_weights,
                                                      include_last_offset, padding_idx, ret0,
                                                      ret1, ret2, ret3);
}

pt_status pt_native_embedding_bag(const pt_tensor *weight, const pt_tensor *indices,
                                  const pt_tensor *offsets, int32_t scale_grad_by_freq,
                                  int64_t mode, int32_t sparse,
                                  const pt_tensor *per_sample_weights, int32_t include_last_offset,
                                  pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2,
                                  pt_tensor **ret3)
{
    return bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
               include_last_offset, -1, ret0, ret1, ret2, ret3);
}

pt_status pt_native_embedding_bag_padding_idx(const pt_tensor *weight, const pt_tensor *indices,
                                              const pt_tensor *offsets,
                                              int32_t scale_grad_by_freq, int64_t mode,
                                              int32_t sparse, const pt_tensor *per_sample_weights,
                                              int32_t include_last_offset,
                                              const int64_t *padding_idx, pt_tensor **ret0,
                                              pt_tensor **ret1, pt_tensor **ret2,
                                              pt_tensor **ret3)
{
    int64_t pad = -1;
    if (padding_idx) {
        if (weight->ndim < 1)
            return PT_ERROR(PT_ERR_RUNTIME, "weight has to be a 2D Tensor, but got Tensor of "
                            "dimension %d", (int)weight->ndim);
        const int64_t N = weight->sizes[0];
        pad = *padding_idx;
        if (pad < -N || pad >= N)
            return PT_ERROR(PT_ERR_RUNTIME, "padding_idx must be within the number of embeddings, "
                            "-%lld through %lld, but got %lld", (long long)N, (long long)(N - 1),
                            (long long)pad);
        if (pad < 0) pad += N;
    }
    return bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
               include_last_offset, pad, ret0, ret1, ret2, ret3);
}
