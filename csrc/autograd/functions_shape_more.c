/* functions_shape_more.c - the backward helpers of the shape_more family's formulas
 * (csrc/ops/derivatives_shape.yaml) that no operator expresses. */
#include "functions_internal.h"

/* block_diag placed input i (as a matrix: a vector as one row, a 0-d tensor as 1 x 1) at the
 * running (row, column) corner; its gradient is that block of grad, in the input's own shape. */
pt_status pt_ag_block_diag_backward(const pt_tensor *grad, int32_t n, const int32_t *ndims,
                                    const int64_t *sizes, int32_t nout, pt_tensor **outs)
{
    const int64_t *at = sizes;
    int64_t row = 0, col = 0;
    for (int32_t i = 0; i < n && i < nout; i++) {
        const int64_t *sz = at;
        at += ndims[i];
        const int64_t rows = ndims[i] == 2 ? sz[0] : 1;
        const int64_t cols = ndims[i] == 2 ? sz[1] : ndims[i] == 1 ? sz[0] : 1;
        pt_tensor *r = pt_call_narrow(grad, 0, row, rows), *c = NULL;
        if (r) c = pt_call_narrow(r, 1, col, cols);
        pt_tensor_release(r);
        if (!c) return pt_error_code();
        outs[i] = ndims[i] == 2 ? c : pt_call_reshape(c, ndims[i], sz);
        if (ndims[i] != 2) pt_tensor_release(c);
        if (!outs[i]) return pt_error_code();
        row += rows;
        col += cols;
    }
    return PT_OK;
}
