/* functions_nn_bag.c - the formula helper of embedding_bag: its weight gradient needs the table's
 * row count, which the formula language reads as weight.sizes(). Same contract as functions.c: a
 * new reference, or NULL with the error recorded. */
#include "functions_internal.h"

pt_tensor *pt_ag_embedding_bag_backward(const pt_tensor *grad, const pt_tensor *indices,
                                        const pt_tensor *offsets, const pt_tensor *offset2bag,
                                        const pt_tensor *bag_size, const pt_tensor *max_indices,
                                        int32_t nsizes, const int64_t *weight_sizes,
                                        int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
                                        const pt_tensor *per_sample_weights, int64_t padding_idx)
{
    const int64_t num_weights = nsizes > 0 ? weight_sizes[0] : 0;
    return pt_call__embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size,
                                           max_indices, num_weights, scale_grad_by_freq, mode,
                                           sparse, per_sample_weights, padding_idx);
}
