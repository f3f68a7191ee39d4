/* functions.h - the helpers that formulas in csrc/ops/derivatives.yaml call by name (PyTorch's
 * FunctionsManual), and the small utilities the generated autograd kernels use. Each helper
 * returns a new tensor reference, or NULL with the error recorded. They call operators through
 * their entry points, so what they compute is differentiable; the few that write into a buffer
 * (select_backward, ...) record a node that refuses double backward instead. */
#ifndef PT_AUTOGRAD_FUNCTIONS_H
#define PT_AUTOGRAD_FUNCTIONS_H

#include "autograd.h"

/* utilities of the generated kernels */
bool pt_ag_differentiable(const pt_tensor *t);
static inline bool pt_ag_is_complex(const pt_tensor *t)
{
    return t->dtype == PT_COMPLEX64 || t->dtype == PT_COMPLEX128;
}
/* Copies n ints (n = -1: None) into a fresh block (freed with the node). */
pt_status pt_ag_copy_ints(int32_t n, const int64_t *v, int32_t *len, int64_t **out);
/* Saves a copy of t: the value an in-place kernel overwrites. */
pt_status pt_ag_save_copy(pt_saved_var *v, const pt_tensor *t);

bool pt_ag_any_requires_grad(int32_t n, pt_tensor *const *ts);
/* Copies the sizes of n tensors: ndims[i] each, concatenated in sizes (freed with the node). */
pt_status pt_ag_copy_sizes_list(int32_t n, pt_tensor *const *ts, int32_t *count, int32_t **ndims,
                                int64_t **sizes);

/* Saves n tensors (NULL elements stay None) into a fresh array (freed with the node); the
 * release drops what the array holds. */
pt_status pt_ag_save_list(int32_t n, pt_tensor *const *ts, int32_t *count, pt_saved_var **vars);
void pt_ag_saved_list_release(int32_t n, pt_saved_var *vars);

/* formula helpers */
pt_tensor *pt_ag_zeros_like(const pt_tensor *grad);
pt_tensor *pt_ag_sum_to(const pt_tensor *grad, int32_t n, const int64_t *sizes);
pt_tensor *pt_ag_sum_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes, int32_t nd,
                              const int64_t *dims, int32_t keepdim);
pt_tensor *pt_ag_mean_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                               int32_t nd, const int64_t *dims, int32_t keepdim);
pt_tensor *pt_ag_mul_alpha(const pt_tensor *grad, const pt_scalar *alpha);
/* Note [gradients of column-major operands]: the gradients of mm's operands (given the other
 * operand and the sizes and strides of the one differentiated), laid out so that a
 * column-major operand gets a column-major gradient. */
pt_tensor *pt_ag_mm_mat1_backward(const pt_tensor *grad, const pt_tensor *mat2, int32_t n,
                                  const int64_t *sizes, int32_t ns, const int64_t *strides);
pt_tensor *pt_ag_mm_mat2_backward(const pt_tensor *grad, const pt_tensor *mat1, int32_t n,
                                  const int64_t *sizes, int32_t ns, const int64_t *strides);
pt_tensor *pt_ag_pow_backward(const pt_tensor *grad, const pt_tensor *self,
                              const pt_scalar *exponent);
pt_tensor *pt_ag_pow_backward_self(const pt_tensor *grad, const pt_tensor *self,
                                   const pt_tensor *exponent);
pt_tensor *pt_ag_pow_backward_exponent(const pt_tensor *grad, const pt_tensor *self,
                                       const pt_tensor *exponent, const pt_tensor *result);
pt_tensor *pt_ag_pow_backward_scalar_base(const pt_tensor *grad, const pt_scalar *base,
                                          const pt_tensor *exponent, const pt_tensor *result);
pt_tensor *pt_ag_minmax_binary_backward(const pt_tensor *grad, const pt_tensor *self,
                                        const pt_tensor *other, int32_t is_max);
pt_tensor *pt_ag_clamp_backward(const pt_tensor *grad, const pt_tensor *self,
                                const pt_scalar *min, const pt_scalar *max);
pt_tensor *pt_ag_clamp_backward_tensor(const pt_tensor *grad, const pt_tensor *self,
                                       const pt_tensor *min, const pt_tensor *max);
pt_tensor *pt_ag_clamp_backward_min_tensor(const pt_tensor *grad, const pt_tensor *self,
                                           const pt_tensor *min, const pt_tensor *max);
pt_tensor *pt_ag_clamp_backward_max_tensor(const pt_tensor *grad, const pt_tensor *self,
                                           const pt_tensor *min, const pt_tensor *max);
pt_tensor *pt_ag_prod_backward(const pt_tensor *grad, const pt_tensor *self,
                               const pt_tensor *result);
pt_tensor *pt_ag_prod_dim_backward(const pt_tensor *grad, const pt_tensor *self,
                                   const pt_tensor *result, int64_t dim, int32_t keepdim);
pt_tensor *pt_ag_value_selecting_backward(const pt_tensor *grad, int64_t dim,
                                          const pt_tensor *indices, int32_t n,
                                          const int64_t *sizes, int32_t keepdim);
pt_tensor *pt_ag_evenly_distribute_backward(const pt_tensor *grad, const pt_tensor *self,
                                            const pt_tensor *result);
pt_tensor *pt_ag_amax_amin_backward(const pt_tensor *grad, const pt_tensor *self,
                                    const pt_tensor *result, int32_t nd, const int64_t *dims,
                                    int32_t keepdim);
pt_tensor *pt_ag_logsumexp_backward(const pt_tensor *grad, const pt_tensor *self,
                                    const pt_tensor *result, int32_t nd, const int64_t *dims,
                                    int32_t keepdim);
pt_tensor *pt_ag_var_backward(const pt_tensor *grad, const pt_tensor *self, int32_t nd,
                              const int64_t *dims, const pt_scalar *correction, int32_t keepdim);
pt_tensor *pt_ag_std_backward(const pt_tensor *grad, const pt_tensor *self,
                              const pt_tensor *result, int32_t nd, const int64_t *dims,
                              const pt_scalar *correction, int32_t keepdim);
pt_tensor *pt_ag_norm_backward(const pt_tensor *grad, const pt_tensor *self,
                               const pt_tensor *result, const pt_scalar *p, int32_t nd,
                               const int64_t *dims, int32_t keepdim);
pt_tensor *pt_ag_cumsum_backward(const pt_tensor *grad, int64_t dim);
pt_tensor *pt_ag_cumprod_backward(const pt_tensor *grad, const pt_tensor *self, int64_t dim,
                                  const pt_tensor *result);
pt_tensor *pt_ag_matmul_backward_self(const pt_tensor *grad, const pt_tensor *self,
                                      const pt_tensor *other);
pt_tensor *pt_ag_matmul_backward_other(const pt_tensor *grad, const pt_tensor *self,
                                       const pt_tensor *other);
pt_tensor *pt_ag_permute_backward(const pt_tensor *grad, int32_t n, const int64_t *dims);
pt_tensor *pt_ag_select_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dim, int64_t index);
pt_tensor *pt_ag_slice_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                int64_t dim, const int64_t *start, const int64_t *end,
                                int64_t step);
pt_tensor *pt_ag_narrow_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dim, int64_t start, int64_t length);
pt_tensor *pt_ag_index_select_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                       int64_t dim, const pt_tensor *index);
pt_tensor *pt_ag_gather_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dim, const pt_tensor *index);

/* functions_shape.c */
pt_tensor *pt_ag_div_mode_backward_self(const pt_tensor *grad, const pt_tensor *other,
                                        const char *rounding_mode);
pt_tensor *pt_ag_div_mode_backward_other(const pt_tensor *grad, const pt_tensor *self,
                                         const pt_tensor *other, const char *rounding_mode);
pt_tensor *pt_ag_div_scalar_mode_backward(const pt_tensor *grad, const pt_scalar *other,
                                          const char *rounding_mode);
pt_tensor *pt_ag_var_mean_backward(const pt_tensor *gvar, const pt_tensor *gmean,
                                   const pt_tensor *self, int32_t nd, const int64_t *dims,
                                   const pt_scalar *correction, int32_t keepdim);
pt_tensor *pt_ag_std_mean_backward(const pt_tensor *gstd, const pt_tensor *gmean,
                                   const pt_tensor *self, const pt_tensor *std, int32_t nd,
                                   const int64_t *dims, const pt_scalar *correction,
                                   int32_t keepdim);
pt_tensor *pt_ag_roll_backward(const pt_tensor *grad, int32_t ns, const int64_t *shifts,
                               int32_t nd, const int64_t *dims);
pt_tensor *pt_ag_repeat_backward(const pt_tensor *grad, int32_t nr, const int64_t *repeats,
                                 int32_t n, const int64_t *sizes);
pt_tensor *pt_ag_tile_backward(const pt_tensor *grad, int32_t nr, const int64_t *reps,
                               int32_t n, const int64_t *sizes);
pt_tensor *pt_ag_unfold_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dimension, int64_t size, int64_t step);
pt_tensor *pt_ag_take_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                               const pt_tensor *index);
pt_tensor *pt_ag_masked_select_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                        const pt_tensor *mask);
pt_tensor *pt_ag_cross_backward(const pt_tensor *a, const pt_tensor *b, int32_t n,
                                const int64_t *self_sizes, const int64_t *dim);
pt_tensor *pt_ag_narrow_tensor_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                        int64_t dim, const pt_tensor *start, int64_t length);

/* List helpers: fill outs[0..nout) with one new reference (or NULL: no gradient) per element
 * of the Tensor[] input whose sizes were saved as (n, ndims, sizes). */
pt_status pt_ag_cat_tensors_backward(const pt_tensor *grad, int32_t n, const int32_t *ndims,
                                     const int64_t *sizes, int64_t dim, int32_t nout,
                                     pt_tensor **outs);
pt_status pt_ag_stack_tensors_backward(const pt_tensor *grad, int32_t n, const int32_t *ndims,
                                       const int64_t *sizes, int64_t dim, int32_t nout,
                                       pt_tensor **outs);

/* advanced indexing: the indices come as the node's saved list (n, vars, owner) */
pt_tensor *pt_ag_index_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                int32_t ni, pt_saved_var *indices, pt_node *owner);
pt_tensor *pt_ag_index_put_backward_self(const pt_tensor *grad, int32_t ni,
                                         pt_saved_var *indices, pt_node *owner,
                                         int32_t accumulate);
pt_tensor *pt_ag_index_put_backward_values(const pt_tensor *grad, int32_t ni,
                                           pt_saved_var *indices, pt_node *owner);

pt_tensor *pt_ag_native_dropout_backward(const pt_tensor *grad, const pt_tensor *mask, double p,
                                         int32_t train);

/* multi-output nodes (functions_multi.c; Note [undefined gradients of multi-output nodes]) */
/* grad (retained) or, when it is undefined, zeros shaped as node input i. */
pt_tensor *pt_ag_grad_or_zeros(const pt_node *node, int32_t i, pt_tensor *grad);
/* Gradients of a Tensor[] result (node input i: piece i; NULL ones count as zeros). */
pt_tensor *pt_ag_split_backward(const pt_node *node, pt_tensor *const *grads, int64_t dim,
                                int64_t ndim);
pt_tensor *pt_ag_unbind_backward(const pt_node *node, pt_tensor *const *grads, int64_t dim);
/* complex numbers (functions_complex.c) */
pt_tensor *pt_ag_view_as_real_backward(const pt_tensor *grad);
pt_tensor *pt_ag_view_as_complex_backward(const pt_tensor *grad);
pt_tensor *pt_ag_sgn_backward(const pt_tensor *self, const pt_tensor *grad,
                              const pt_tensor *result);
pt_tensor *pt_ag_angle_backward(const pt_tensor *grad, const pt_tensor *self);
pt_tensor *pt_ag_polar_backward_abs(const pt_tensor *grad, const pt_tensor *result);
pt_tensor *pt_ag_polar_backward_angle(const pt_tensor *grad, const pt_tensor *result);

/* nn: conv (functions_nn_conv.c). `which` picks one output of _convolution_double_backward. */
pt_tensor *pt_ag_convolution_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggW, const pt_tensor *ggb, const pt_tensor *gO,
    const pt_tensor *weight, const pt_tensor *input, int32_t ns, const int64_t *stride, int32_t np,
    const int64_t *padding, int32_t nd, const int64_t *dilation, int32_t transposed, int32_t nop,
    const int64_t *output_padding, int64_t groups, int64_t which);

/* im2col's gradient: col2im of grad into self's last two sizes. */
pt_tensor *pt_ag_im2col_backward(const pt_tensor *grad, int32_t n, const int64_t *self_sizes,
                                 int32_t nk, const int64_t *kernel_size, int32_t nd,
                                 const int64_t *dilation, int32_t np, const int64_t *padding,
                                 int32_t ns, const int64_t *stride);

/* nn: sample (functions_nn_sample.c) */
pt_tensor *pt_ag_constant_pad_nd_backward(const pt_tensor *grad, int32_t n, const int64_t *pad);
pt_tensor *pt_ag_grid_sampler_2d_backward_input(const pt_tensor *grad, const pt_tensor *input,
                                                const pt_tensor *grid, int64_t mode,
                                                int64_t padding, int32_t align_corners);
pt_tensor *pt_ag_grid_sampler_2d_backward_grid(const pt_tensor *grad, const pt_tensor *input,
                                               const pt_tensor *grid, int64_t mode,
                                               int64_t padding, int32_t align_corners);
pt_tensor *pt_ag_grid_sampler_3d_backward_input(const pt_tensor *grad, const pt_tensor *input,
                                                const pt_tensor *grid, int64_t mode,
                                                int64_t padding, int32_t align_corners);
pt_tensor *pt_ag_grid_sampler_3d_backward_grid(const pt_tensor *grad, const pt_tensor *input,
                                               const pt_tensor *grid, int64_t mode,
                                               int64_t padding, int32_t align_corners);
pt_tensor *pt_ag_channel_shuffle_backward(const pt_tensor *grad, int64_t groups);

/* nn losses (functions_nn_loss.c): the derivatives torch writes in FunctionsManual */
pt_tensor *pt_ag_mse_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                          int64_t reduction);
pt_tensor *pt_ag_smooth_l1_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                                const pt_tensor *target, int64_t reduction,
                                                double beta);
pt_tensor *pt_ag_huber_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                            const pt_tensor *target, int64_t reduction,
                                            double delta);
pt_tensor *pt_ag_soft_margin_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                                  const pt_tensor *target, int64_t reduction);
pt_tensor *pt_ag_soft_margin_loss_double_backward_grad_output(const pt_tensor *grad,
                                                              const pt_tensor *grad_output,
                                                              const pt_tensor *self,
                                                              const pt_tensor *target,
                                                              int64_t reduction);
pt_tensor *pt_ag_binary_cross_entropy_target_backward(const pt_tensor *grad, const pt_tensor *self,
                                                      const pt_tensor *target,
                                                      const pt_tensor *weight, int64_t reduction);
pt_tensor *pt_ag_binary_cross_entropy_double_backward(const pt_tensor *grad_output,
                                                      const pt_tensor *grad, const pt_tensor *self,
                                                      const pt_tensor *target,
                                                      const pt_tensor *weight, int64_t reduction);
pt_tensor *pt_ag_binary_cross_entropy_double_backward_target(const pt_tensor *grad,
                                                             const pt_tensor *grad_output,
                                                             const pt_tensor *self,
                                                             const pt_tensor *target,
                                                             const pt_tensor *weight,
                                                             int64_t reduction);
pt_tensor *pt_ag_binary_cross_entropy_double_backward_grad_output(const pt_tensor *grad,
                                                                  const pt_tensor *self,
                                                                  const pt_tensor *target,
                                                                  const pt_tensor *weight,
                                                                  int64_t reduction);
pt_tensor *pt_ag_binary_cross_entropy_with_logits_backward(const pt_tensor *grad,
                                                           const pt_tensor *self,
                                                           const pt_tensor *target,
                                                           const pt_tensor *weight,
                                                           const pt_tensor *pos_weight,
                                                           int64_t reduction);
pt_tensor *pt_ag_binary_cross_entropy_with_logits_target_backward(const pt_tensor *grad,
                                                                  const pt_tensor *self,
                                                                  const pt_tensor *target,
                                                                  const pt_tensor *weight,
                                                                  const pt_tensor *pos_weight,
                                                                  int64_t reduction);

/* pooling (functions_nn_pool.c) */
pt_tensor *pt_ag_max_pool_double_backward(const pt_tensor *grad, const pt_tensor *indices,
                                          int64_t dim);
pt_tensor *pt_ag_adaptive_avg_pool_double_backward(const pt_tensor *grad, int32_t n,
                                                   const int64_t *grad_output_sizes, int64_t dim);

/* nn: norm (functions_nn_norm.c): one gradient (which: 0 input, 1 weight, 2 grad_out) of the
 * normalizations' fused backward operators' inputs, from the gradients ggI, ggG, ggB of their
 * outputs (each NULL when undefined); embedding's gradients. */
pt_tensor *pt_ag_batch_norm_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggG, const pt_tensor *ggB, const pt_tensor *grad_out,
    const pt_tensor *input, const pt_tensor *weight, const pt_tensor *running_mean,
    const pt_tensor *running_var, const pt_tensor *save_mean, const pt_tensor *save_invstd,
    int32_t train, double eps, int64_t which);
pt_tensor *pt_ag_layer_norm_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggG, const pt_tensor *ggB, const pt_tensor *grad_out,
    const pt_tensor *input, int32_t nshape, const int64_t *normalized_shape,
    const pt_tensor *mean, const pt_tensor *rstd, const pt_tensor *weight, int64_t which);
pt_tensor *pt_ag_group_norm_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggG, const pt_tensor *ggB, const pt_tensor *grad_out,
    const pt_tensor *input, const pt_tensor *mean, const pt_tensor *rstd,
    const pt_tensor *weight, int64_t N, int64_t C, int64_t HxW, int64_t group, int64_t which);
pt_tensor *pt_ag_embedding_backward(const pt_tensor *grad, const pt_tensor *indices,
                                    int32_t nsizes, const int64_t *weight_sizes,
                                    int64_t padding_idx, int32_t scale_grad_by_freq,
                                    int32_t sparse);
pt_tensor *pt_ag_embedding_dense_double_backward(const pt_tensor *grad, const pt_tensor *indices,
                                                 int64_t padding_idx);

/* nn activations (functions_nn_activation.c): the second derivatives of their backward
 * operators, and the helpers that pick one result of a two-result backward operator */
pt_tensor *pt_ag_elu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                     const pt_scalar *alpha, const pt_scalar *scale,
                                     const pt_scalar *input_scale, int32_t is_result,
                                     const pt_tensor *self_or_result);
pt_tensor *pt_ag_celu_backward(const pt_tensor *grad, const pt_scalar *alpha, int32_t is_result,
                               const pt_tensor *self_or_result);
pt_tensor *pt_ag_softplus_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                          const pt_scalar *beta, const pt_scalar *threshold);
pt_tensor *pt_ag_mish_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                      const pt_tensor *self);
pt_tensor *pt_ag_gelu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                      const pt_tensor *self, const char *approximate);
pt_tensor *pt_ag_silu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                      const pt_tensor *self);
pt_tensor *pt_ag_glu_double_backward_grad_output(const pt_tensor *grad, const pt_tensor *self,
                                                 int64_t dim);
pt_tensor *pt_ag_glu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                     const pt_tensor *self, int64_t dim);
pt_tensor *pt_ag_softmax_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                         int64_t dim, const pt_tensor *output);
pt_tensor *pt_ag_log_softmax_double_backward_grad_output(const pt_tensor *grad,
                                                         const pt_tensor *output, int64_t dim);
pt_tensor *pt_ag_log_softmax_double_backward_output(const pt_tensor *grad,
                                                    const pt_tensor *grad_output, int64_t dim,
                                                    const pt_tensor *output);

/* nn bag (functions_nn_bag.c): embedding_bag's weight gradient, with the table's row count */
pt_tensor *pt_ag_embedding_bag_backward(const pt_tensor *grad, const pt_tensor *indices,
                                        const pt_tensor *offsets, const pt_tensor *offset2bag,
                                        const pt_tensor *bag_size, const pt_tensor *max_indices,
                                        int32_t nsizes, const int64_t *weight_sizes,
                                        int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
                                        const pt_tensor *per_sample_weights, int64_t padding_idx);

/* special functions (functions_special.c) */
pt_tensor *pt_ag_not_implemented(const char *what);
pt_tensor *pt_ag_mvlgamma_backward(const pt_tensor *grad, const pt_tensor *self, int64_t p);
pt_tensor *pt_ag_zero_where_self_zero_unless_above(const pt_tensor *term, const pt_tensor *self,
                                                   const pt_scalar *other, double bound);
pt_tensor *pt_ag_zeta_self_scalar_backward(const pt_tensor *grad, const pt_scalar *self,
                                           const pt_tensor *other);
/* fft (functions_fft.c) */
pt_tensor *pt_ag_fft_c2c_backward(const pt_tensor *grad, int32_t nd, const int64_t *dim,
                                  int64_t normalization, int32_t forward);
pt_tensor *pt_ag_fft_r2c_backward(const pt_tensor *grad, int32_t nd, const int64_t *dim,
                                  int64_t normalization, int32_t onesided, int32_t ns,
                                  const int64_t *self_sizes);
pt_tensor *pt_ag_fft_c2r_backward(const pt_tensor *grad, int32_t nd, const int64_t *dim,
                                  int64_t normalization);
/* block_diag (csrc/autograd/functions_shape_more.c): each input's block of the gradient. */
pt_status pt_ag_block_diag_backward(const pt_tensor *grad, int32_t n, const int32_t *ndims,
                                    const int64_t *sizes, int32_t nout, pt_tensor **outs);

#endif
