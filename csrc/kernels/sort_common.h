/* sort_common.h - what the sorting kernels (sort.c) share with the distance kernels (distance.c):
 * the move of a computed result into an out= tensor, defined in sort.c (operand checks and dtype
 * names are the iterator's, iter.h). Hidden like the rest of the core.
 */
#ifndef PT_SORT_COMMON_H
#define PT_SORT_COMMON_H

#include "internal.h"
#include "iter.h"

/* Moves `result` (a fresh tensor, released here in every case) into the out= tensor `out_arg`
 * (argument `arg` of `op`): the dtypes and devices must agree, an out of another shape is resized
 * when it holds no elements (torch resizes any, with a warning that this will stop), and the
 * values are copied on the CPU. On success *ret is a new reference to out_arg. */
pt_status pt_sort_move_out(const char *op, const char *arg, pt_tensor *result, pt_tensor *out_arg,
                           pt_tensor **ret);

#endif
