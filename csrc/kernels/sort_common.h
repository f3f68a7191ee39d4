/* sort_common.h - what the sorting kernels (sort.c) share with the distance kernels (distance.c):
 * the checks of an input tensor and the move of a computed result into an out= tensor, both
 * defined in sort.c. Hidden like the rest of the core.
 */
#ifndef PT_SORT_COMMON_H
#define PT_SORT_COMMON_H

#include "internal.h"

/* A strided, CPU or meta tensor of a builtin dtype: else PT_ERR_NOT_IMPLEMENTED (layouts, CUDA)
 * or PT_ERR_TYPE (opaque dtypes), naming `op` and `arg`. */
pt_status pt_sort_check_input(const pt_tensor *t, const char *op, const char *arg);

/* torch's names in its dtype messages: "Float", "ComplexFloat". */
const char *pt_sort_type_name(int32_t dtype);

/* Moves `result` (a fresh tensor, released here in every case) into the out= tensor `out_arg`
 * (argument `arg` of `op`): the dtypes and devices must agree, an out of another shape is resized
 * when it holds no elements (torch resizes any, with a warning that this will stop), and the
 * values are copied on the CPU. On success *ret is a new reference to out_arg. */
pt_status pt_sort_move_out(const char *op, const char *arg, pt_tensor *result, pt_tensor *out_arg,
                           pt_tensor **ret);

#endif
