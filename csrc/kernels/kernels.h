/* kernels.h - the unboxed C kernels that the generated registration code (from
 * csrc/ops/native_functions.yaml) wraps for the dispatcher, one prototype per `dispatch:` entry.
 *
 * The parameters follow the schema in order: Tensor -> pt_tensor *, Scalar -> const pt_scalar *
 * (never NULL from the generated code; NULL means the schema default where one exists), the
 * out= tensor of an `.out` overload -> pt_tensor *out_arg, and the single return -> pt_tensor
 * **out, which receives a NEW reference (for in-place and out= overloads, to self / out_arg, as
 * the `Tensor(a!)` return aliases it). Arguments are borrowed.
 *
 * The kernels serve the CPU and Meta keys (Meta computes shapes and dtypes only); CUDA tensors
 * fail with PT_ERR_NOT_IMPLEMENTED until the CUDA backend registers its own.
 */
#ifndef PT_KERNELS_H
#define PT_KERNELS_H

#include "internal.h"

/* ---------------------------------------------------------------- binary arithmetic (binary.c)
 * add: self + alpha * other; sub: self - alpha * other; mul: self * other. Broadcasting, type
 * promotion (with wrapped numbers), alpha and out= rules as torch's. */
pt_status pt_kernel_add(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                        pt_tensor **out);
pt_status pt_kernel_add_(pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                         pt_tensor **out);
pt_status pt_kernel_add_out(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                            pt_tensor *out_arg, pt_tensor **out);
pt_status pt_kernel_sub(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                        pt_tensor **out);
pt_status pt_kernel_sub_(pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                         pt_tensor **out);
pt_status pt_kernel_sub_out(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                            pt_tensor *out_arg, pt_tensor **out);
pt_status pt_kernel_mul(const pt_tensor *self, const pt_tensor *other, pt_tensor **out);
pt_status pt_kernel_mul_(pt_tensor *self, const pt_tensor *other, pt_tensor **out);
pt_status pt_kernel_mul_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out_arg,
                            pt_tensor **out);

#endif
