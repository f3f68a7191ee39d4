/* shape_more.h - what the kernels of the shape_more family (shape_more.c, shape_index.c,
 * shape_products.c) share: handing a result (or an out= copy of it) back, and a new reference
 * to an input returned as it is.
 */
#ifndef PT_SHAPE_MORE_H
#define PT_SHAPE_MORE_H

#include "shape_common.h"

/* r (a new reference, or NULL with the error set) as a kernel's result. */
static inline pt_status give(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* The result r written into out (resized to r's shape, as torch's out= does), r released. */
static inline pt_status give_out(const char *op, pt_tensor *r, pt_tensor *out, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_status st = pt_shape_out_dtype(out, r->dtype);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    return pt_shape_finish_out(op, r, out, true, ret);
}

/* A new reference to t, a result that is the input itself (atleast_1d of a vector). */
static inline pt_tensor *self_ref(const pt_tensor *t)
{
    pt_tensor *r = NULL;
    return pt_native_self((pt_tensor *)t, &r) == PT_OK ? r : NULL;
}

#endif
