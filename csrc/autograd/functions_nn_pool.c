/* functions_nn_pool.c - formula helpers of the pooling operators' double backward. Each returns
 * a new reference or NULL with the error recorded; temporaries live in an arena.
 *
 * The backward of a max pool (and the forward of max unpooling) moves each output gradient to the
 * input element its index names, so its own derivative with respect to the incoming gradient
 * reads the gradient back at those indices: a gather over the flattened spatial dims. The backward
 * of an adaptive average pool is linear in its gradient, with the forward pool as its adjoint. */
#include "functions_internal.h"

pt_tensor *pt_ag_max_pool_double_backward(const pt_tensor *grad, const pt_tensor *indices,
                                          int64_t dim)
{
    arena ar = {0};
    pt_tensor *g, *i, *r, *v;
    K(g, pt_call_flatten_using_ints(grad, -dim, -1));
    K(i, pt_call_flatten_using_ints(indices, -dim, -1));
    K(r, pt_call_gather(g, -1, i, 0));
    K(v, pt_call_view(r, indices->ndim, indices->sizes));
    return finish(&ar, v);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_adaptive_avg_pool_double_backward(const pt_tensor *grad, int32_t n,
                                                   const int64_t *grad_output_sizes, int64_t dim)
{
    const int64_t *out = grad_output_sizes + n - dim;
    return dim == 2 ? pt_call__adaptive_avg_pool2d(grad, 2, out)
                    : pt_call__adaptive_avg_pool3d(grad, 3, out);
}
