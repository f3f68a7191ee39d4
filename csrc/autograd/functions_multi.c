/* functions_multi.c - the formula helpers of nodes with several outputs: the gradient that stands
 * for an undefined one where a formula needs a tensor, and the backward of the operators whose
 * result is a Tensor[] (split, split_with_sizes, unbind), which take the node's gradients whole.
 * Same contract as functions.c: operator calls through the entry points, a new reference or NULL
 * with the error recorded.
 *
 * Note [undefined gradients of multi-output nodes]
 * A node with several outputs runs when a gradient reached at least one of them; the others
 * arrive undefined (NULL), as in PyTorch. The engine does not turn them into zeros: a formula
 * that can do without one takes it as an optional tensor (std_mean_backward skips the std term,
 * which would be nan * 0 for a single element), and the generated code gives a formula that
 * needs a tensor zeros of the output's shape (pt_ag_grad_or_zeros), made only then. The backward
 * of a Tensor[] result likewise fills the pieces that got no gradient with zeros only inside the
 * helper, as PyTorch's split_backward does. */
#include <stdlib.h>
#include <string.h>

#include "functions_internal.h"

/* Zeros shaped as node input i (the forward output it stands for). */
static pt_tensor *zeros_of_input(const pt_node *node, int32_t i)
{
    const pt_input_meta *m = &node->input_meta[i];
    if (m->ndim < 0) {
        PT_ERROR(PT_ERR_RUNTIME, "%s: output %d has no gradient to stand in for", node->name,
                 (int)i);
        return NULL;
    }
    pt_device dev = m->device;
    return pt_call_zeros(m->ndim, m->sizes, m->dtype, -1, &dev, -1);
}

pt_tensor *pt_ag_grad_or_zeros(const pt_node *node, int32_t i, pt_tensor *grad)
{
    if (grad) {
        pt_tensor_retain(grad);
        return grad;
    }
    return zeros_of_input(node, i);
}

/* The node's gradients, zeros for the undefined ones (new references in `all`). */
static pt_status defined_grads(const pt_node *node, pt_tensor *const *grads, pt_tensor **all)
{
    for (int32_t i = 0; i < node->n_inputs; i++) {
        all[i] = pt_ag_grad_or_zeros(node, i, grads[i]);
        if (!all[i]) {
            while (i > 0) pt_tensor_release(all[--i]);
            return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        }
    }
    return PT_OK;
}

/* cat (stack = false) or stack (stack = true) of the node's gradients along dim. */
static pt_tensor *join_grads(const pt_node *node, pt_tensor *const *grads, int64_t dim, bool stack)
{
    const int32_t n = node->n_inputs;
    pt_tensor **all = calloc((size_t)(n > 0 ? n : 1), sizeof *all);
    if (!all) {
        PT_ERROR(PT_ERR_MEMORY, "%s: out of memory for %d gradients", node->name, (int)n);
        return NULL;
    }
    pt_tensor *r = NULL;
    if (defined_grads(node, grads, all) == PT_OK) {
        r = stack ? pt_call_stack(n, all, dim) : pt_call_cat(n, all, dim);
        for (int32_t i = 0; i < n; i++) pt_tensor_release(all[i]);
    }
    free(all);
    return r;
}

/* split / split_with_sizes / chunk: the pieces lie side by side along dim, so the gradient is
 * their gradients joined back (each piece's shape is its node input's). */
pt_tensor *pt_ag_split_backward(const pt_node *node, pt_tensor *const *grads, int64_t dim,
                                int64_t ndim)
{
    const int64_t d = wrap(dim, (int32_t)ndim);
    if (d < 0) return NULL;
    return join_grads(node, grads, d, false);
}

/* unbind: piece i is the slice at index i of dim, so the gradient stacks theirs at dim. */
pt_tensor *pt_ag_unbind_backward(const pt_node *node, pt_tensor *const *grads, int64_t dim)
{
    const int32_t rank = node->n_inputs > 0 ? node->input_meta[0].ndim + 1 : 1;
    const int64_t d = wrap(dim, rank);
    if (d < 0) return NULL;
    return join_grads(node, grads, d, true);
}
