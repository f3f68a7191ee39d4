/* shape_common.h - what the shape and indexing kernels (shape_ops.c, index_ops.c, index_adv.c)
 * share: the argument checks every front makes in the same words, torch's dtype names for its
 * messages, broadcasting, the out= tail, and the element arithmetic of the accumulating forms
 * (scatter's reduce, scatter_add, index_put with accumulate=True).
 *
 * The kernels only move elements, so most of them are itemsize-generic: a memcpy of itemsize
 * bytes per element, over pt_loop_nd or a walker of their own. Typed code is kept to what compares
 * or adds values (pt_shape_accumulate, the nonzero test). The functions are in shape_common.c.
 */
#ifndef PT_SHAPE_COMMON_H
#define PT_SHAPE_COMMON_H

#include <string.h>

#include "iter.h"
#include "native.h"

enum { PT_SHAPE_CHARS = 256 };

static inline bool pt_shape_same(int32_t na, const int64_t *a, int32_t nb, const int64_t *b)
{
    return na == nb && (na == 0 || memcmp(a, b, sizeof(int64_t) * (size_t)na) == 0);
}

/* NULL, a layout other than strided, and CUDA tensors (no kernels here) are refused, naming the
 * operator and the argument. */
pt_status pt_shape_check_tensor(const pt_tensor *t, const char *op, const char *arg);

/* Whether the call computes on the meta device: any tensor of `ts` (NULL entries skipped) on
 * meta. CPU and meta tensors do not mix (torch's "not on the expected device" message). */
pt_status pt_shape_device(int32_t n, const pt_tensor *const *ts, bool *meta);

/* torch's C++ name of a dtype ("float", "long int", "c10::Half") and its legacy name ("Float"). */
const char *pt_shape_cpp_name(int32_t dtype);
const char *pt_shape_legacy_name(int32_t dtype);

/* torch's broadcast of two shapes, with its message ("The size of tensor a (3) must match the size
 * of tensor b (2) at non-singleton dimension 0"). */
pt_status pt_shape_broadcast(int32_t na, const int64_t *a, int32_t nb, const int64_t *b,
                             int32_t *nd, int64_t *shape);
/* t's element strides over a shape it broadcasts to (0 where it is broadcast). */
void pt_shape_broadcast_strides(const pt_tensor *t, int32_t nd, const int64_t *shape,
                                int64_t *strides);

/* The storage of a tensor about to be written: PT_ERR_RUNTIME when it is read-only. */
pt_status pt_shape_check_writable(const pt_tensor *t, const char *op);

/* The structured kernels' out= dtype rule: out's dtype must be `dtype` ("Expected out tensor to
 * have dtype float, but got double instead"). */
pt_status pt_shape_out_dtype(const pt_tensor *out, int32_t dtype);

/* The out= tail: `result` (a fresh tensor, released here) goes into out_arg, which is resized to
 * its shape when it has none of its own - when it holds no elements, or always when
 * `resize_any` (results whose shape depends on the data). The dtypes must already agree (copy_
 * would cast). *out receives a new reference to out_arg. */
pt_status pt_shape_finish_out(const char *op, pt_tensor *result, pt_tensor *out_arg,
                              bool resize_any, pt_tensor **out);

/* An empty contiguous tensor on the CPU or the meta device. */
pt_status pt_shape_empty(int32_t ndim, const int64_t *sizes, int32_t dtype, bool meta,
                         pt_tensor **out);

/* Accumulation of one element into another of the same dtype: *dst = *dst + *src (PT_ACC_ADD)
 * or *dst * *src (PT_ACC_MUL); bool adds as `or` and multiplies as `and`, float16/bfloat16
 * compute in float32, integers wrap. Builtin dtypes only. */
enum { PT_ACC_NONE = 0, PT_ACC_ADD = 1, PT_ACC_MUL = 2 };
void pt_shape_accumulate(int32_t dtype, int op, char *dst, const char *src);

/* Reads element `p` of an index tensor of dtype int64, int32, int16, int8 or uint8. */
static inline int64_t pt_shape_read_index(const char *p, int32_t dtype)
{
    switch (dtype) {
    case PT_INT64: return *(const int64_t *)p;
    case PT_INT32: return *(const int32_t *)p;
    case PT_INT16: return *(const int16_t *)p;
    case PT_INT8: return *(const int8_t *)p;
    default: return *(const uint8_t *)p;
    }
}

#endif
