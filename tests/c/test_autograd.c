/* test_autograd.c - autograd in C: metadata only where needed, version counters, recorded
 * graphs, the engine, saved-variable checks, hooks, custom nodes, the fallback for operators
 * without a formula, and the release of long graphs. Run under ASan/UBSan, these also check that
 * graphs free everything they hold. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "autograd.h"
#include "pt_ops.h"
#include "pt_test.h"

static const pt_device CPU = {PT_DEV_CPU, 0};

/* A float64 vector holding v[0..n). */
static pt_tensor *vec(int64_t n, const double *v)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(1, &n, PT_FLOAT64, CPU, &t) != PT_OK) return NULL;
    memcpy(pt_tensor_data(t), v, sizeof(double) * (size_t)n);
    return t;
}

static pt_tensor *scalar_one(void)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(0, NULL, PT_FLOAT64, CPU, &t) != PT_OK) return NULL;
    *(double *)pt_tensor_data(t) = 1.0;
    return t;
}

static const double *values(const pt_tensor *t) { return (const double *)pt_tensor_data(t); }

static pt_status backward1(pt_tensor *root, int32_t retain)
{
    pt_tensor *g = scalar_one();
    pt_status st = pt_autograd_backward(1, &root, &g, retain, 0, 0, NULL, 1, 0, NULL);
    pt_tensor_release(g);
    return st;
}

PT_TEST(autograd_plain_tensors_carry_no_metadata_and_no_autograd_key)
{
    const double v[3] = {1, 2, 3};
    pt_tensor *x = vec(3, v);
    CHECK(x);
    pt_tensor *y = pt_call_mul_Tensor(x, x);
    CHECK(y);
    CHECK(x->autograd == NULL && y->autograd == NULL);
    CHECK(pt_tensor_keys(y) == ((uint64_t)1 << PT_KEY_CPU));
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    CHECK(pt_tensor_keys(x) & ((uint64_t)1 << PT_KEY_AUTOGRAD_CPU));
    pt_tensor_release(y);
    pt_tensor_release(x);
}

PT_TEST(autograd_mul_then_sum_gives_twice_x)
{
    const double v[3] = {1, -2, 3.5};
    pt_tensor *x = vec(3, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_tensor *y = pt_call_mul_Tensor(x, x);
    pt_tensor *s = y ? pt_call_sum(y, -1) : NULL;
    CHECK(s);
    pt_node *fn = pt_autograd_grad_fn(s);
    CHECK(fn && strcmp(pt_node_name(fn), "SumBackward0") == 0);
    pt_node_release(fn);
    CHECK_OK(backward1(s, 0));
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(g);
    for (int i = 0; i < 3; i++) CHECK(values(g)[i] == 2 * v[i]);
    /* MulBackward0 freed what it saved: a second backward through it is refused */
    CHECK_ERR(backward1(s, 0), PT_ERR_RUNTIME,
              "Trying to backward through the graph a second time");
    pt_tensor_release(g);
    pt_tensor_release(s);
    pt_tensor_release(y);
    pt_tensor_release(x);
}

PT_TEST(autograd_retain_graph_lets_gradients_accumulate)
{
    const double v[2] = {0.5, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_tensor *e = pt_call_exp(x);
    pt_tensor *s = e ? pt_call_sum(e, -1) : NULL;
    CHECK(s);
    CHECK_OK(backward1(s, 1));
    CHECK_OK(backward1(s, 0));
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(g);
    for (int i = 0; i < 2; i++) CHECK(fabs(values(g)[i] - 2 * exp(v[i])) < 1e-12);
    pt_tensor_release(g);
    pt_tensor_release(s);
    pt_tensor_release(e);
    pt_tensor_release(x);
}

PT_TEST(autograd_views_share_the_version_counter_and_in_place_calls_bump_it)
{
    const double v[4] = {1, 2, 3, 4};
    pt_tensor *x = vec(4, v);
    CHECK(x);
    CHECK(pt_autograd_version(x) == 0);
    pt_tensor *view = pt_call_narrow(x, 0, 1, 2);
    CHECK(view);
    pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0};
    pt_tensor *r = pt_call_mul__Scalar(view, &two);
    CHECK(r);
    pt_tensor_release(r);
    CHECK(pt_autograd_version(x) == 1 && pt_autograd_version(view) == 1);
    pt_tensor *d;
    CHECK_OK(pt_autograd_detach(x, &d));
    r = pt_call_mul__Scalar(d, &two);
    CHECK(r);
    pt_tensor_release(r);
    CHECK(pt_autograd_version(x) == 2);
    pt_tensor *data;
    CHECK_OK(pt_autograd_data(x, &data)); /* .data has a counter of its own */
    r = pt_call_mul__Scalar(data, &two);
    CHECK(r);
    pt_tensor_release(r);
    CHECK(pt_autograd_version(x) == 2 && pt_autograd_version(data) == 1);
    pt_tensor_release(data);
    pt_tensor_release(d);
    pt_tensor_release(view);
    pt_tensor_release(x);
}

PT_TEST(autograd_saved_tensor_changed_in_place_is_refused_at_backward)
{
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_tensor *e = pt_call_exp(x); /* ExpBackward0 saves its result */
    CHECK(e);
    pt_scalar one = {PT_SCALAR_INT, 1, 0.0, 0.0};
    pt_tensor *r = pt_call_add__Scalar(e, &one, &one);
    CHECK(r);
    pt_tensor_release(r);
    pt_tensor *s = pt_call_sum(e, -1);
    CHECK(s);
    CHECK_ERR(backward1(s, 0), PT_ERR_RUNTIME,
              "modified by an inplace operation: [pytensor.DoubleTensor [2]]");
    pt_tensor_release(s);
    pt_tensor_release(e);
    pt_tensor_release(x);
}

PT_TEST(autograd_in_place_on_a_leaf_that_requires_grad_is_refused)
{
    const double v[1] = {1};
    pt_tensor *x = vec(1, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0};
    CHECK(pt_call_mul__Scalar(x, &two) == NULL);
    CHECK(strstr(pt_error_message(), "a leaf Variable that requires grad"));
    pt_autograd_set_grad_enabled(0);
    pt_tensor *r = pt_call_mul__Scalar(x, &two); /* allowed under no_grad */
    pt_autograd_set_grad_enabled(1);
    CHECK(r && values(x)[0] == 2);
    pt_tensor_release(r);
    pt_tensor_release(x);
}

PT_TEST(autograd_grad_mode_off_records_nothing)
{
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_autograd_set_grad_enabled(0);
    pt_tensor *y = pt_call_mul_Tensor(x, x);
    pt_autograd_set_grad_enabled(1);
    CHECK(y && !pt_autograd_requires_grad(y) && y->autograd == NULL);
    pt_tensor_release(y);
    pt_tensor_release(x);
}

static pt_status double_hook(void *ctx, pt_tensor *grad, pt_tensor **replacement)
{
    ++*(int *)ctx;
    pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0};
    *replacement = pt_call_mul_Scalar(grad, &two);
    return *replacement ? PT_OK : pt_error_code();
}

PT_TEST(autograd_hooks_replace_gradients_and_can_be_removed)
{
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    int calls = 0;
    pt_hook *leaf_hook;
    CHECK_OK(pt_autograd_register_hook(x, double_hook, &calls, NULL, &leaf_hook));
    pt_tensor *y = pt_call_mul_Tensor(x, x);
    CHECK(y);
    pt_hook *inner_hook;
    CHECK_OK(pt_autograd_register_hook(y, double_hook, &calls, NULL, &inner_hook));
    pt_tensor *s = pt_call_sum(y, -1);
    CHECK(s);
    CHECK_OK(backward1(s, 1));
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(g && calls == 2 && values(g)[0] == 8 && values(g)[1] == 16); /* 2x, doubled twice */
    pt_tensor_release(g);
    pt_hook_remove(leaf_hook);
    pt_hook_remove(inner_hook);
    CHECK_OK(pt_autograd_set_grad(x, NULL));
    CHECK_OK(backward1(s, 0));
    g = pt_autograd_grad(x);
    CHECK(g && calls == 2 && values(g)[0] == 2);
    pt_tensor_release(g);
    pt_hook_release(leaf_hook);
    pt_hook_release(inner_hook);
    pt_tensor_release(s);
    pt_tensor_release(y);
    pt_tensor_release(x);
}

static pt_status triple_apply(void *ctx, int32_t n_grads, pt_tensor *const *grads, int32_t n_outs,
                              pt_tensor **outs)
{
    (void)ctx;
    if (n_grads != 1 || n_outs != 1) return PT_ERROR(PT_ERR_RUNTIME, "unexpected arity");
    pt_scalar three = {PT_SCALAR_INT, 3, 0.0, 0.0};
    outs[0] = pt_call_mul_Scalar(grads[0], &three);
    return outs[0] ? PT_OK : pt_error_code();
}

static int released;
static void count_release(void *ctx)
{
    (void)ctx;
    released++;
}

PT_TEST(autograd_custom_nodes_call_their_apply_and_release_their_context)
{
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_tensor *out;
    CHECK_OK(pt_autograd_detach(x, &out));
    pt_node *n;
    released = 0;
    CHECK_OK(pt_autograd_custom_node("TripleBackward", triple_apply, &released, count_release, 1,
                                     &x, 1, &n));
    CHECK_OK(pt_autograd_set_history(out, n, 0));
    pt_node_release(n);
    CHECK(strcmp(pt_node_name(pt_autograd_grad_fn(out)), "TripleBackward") == 0);
    pt_node_release(out->autograd->grad_fn); /* the reference pt_autograd_grad_fn gave */
    pt_tensor *s = pt_call_sum(out, -1);
    CHECK(s);
    CHECK_OK(backward1(s, 0));
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(g && values(g)[0] == 3 && values(g)[1] == 3);
    pt_tensor_release(g);
    pt_tensor_release(s);
    CHECK(released == 0);
    pt_tensor_release(out);
    CHECK(released == 1);
    pt_tensor_release(x);
}

static pt_status plain_kernel(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                              void *ctx)
{
    (void)op, (void)key, (void)keyset, (void)ctx;
    pt_tensor *in = stack->items[stack->size - 1].t;
    pt_tensor *r;
    PT_TRY(pt_tensor_clone(in, PT_MEMORY_FORMAT_CONTIGUOUS, &r));
    stack->size--;
    stack->items[stack->size].tag = PT_IV_TENSOR;
    stack->items[stack->size].t = r;
    stack->items[stack->size].owned = 0;
    stack->size++;
    return PT_OK;
}

PT_TEST(autograd_operators_without_formula_fail_at_backward_not_forward)
{
    pt_registration *def, *impl;
    CHECK_OK(pt_dispatch_def("tag::noformula(Tensor x) -> Tensor", "test", &def));
    CHECK_OK(pt_dispatch_impl("tag::noformula", PT_KEY_CPU, plain_kernel, NULL, "test cpu", &impl));
    pt_op *op;
    CHECK_OK(pt_dispatch_find("tag::noformula", "", &op));
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_ivalue items[2] = {{.tag = PT_IV_TENSOR, .t = x}};
    pt_stack stack = {items, 1, 2};
    CHECK_OK(pt_dispatch_call(op, &stack));
    pt_tensor *y = items[0].t;
    CHECK(y && pt_autograd_requires_grad(y));
    pt_tensor *s = pt_call_sum(y, -1);
    CHECK(s);
    CHECK_ERR(backward1(s, 0), PT_ERR_NOT_IMPLEMENTED,
              "the derivative for 'tag::noformula' is not implemented.");
    pt_tensor_release(s);
    pt_tensor_release(y);
    pt_tensor_release(x);
    pt_registration_release(impl);
    pt_registration_release(def);
}

PT_TEST(autograd_a_long_chain_runs_and_frees_without_deep_recursion)
{
    const double v[1] = {1};
    pt_tensor *x = vec(1, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_scalar k = {PT_SCALAR_FLOAT, 0, 1.0, 0.0};
    pt_tensor *y = x;
    pt_tensor_retain(y);
    for (int i = 0; i < 100000; i++) {
        pt_tensor *z = pt_call_mul_Scalar(y, &k);
        pt_tensor_release(y);
        CHECK(z);
        y = z;
    }
    pt_tensor *s = pt_call_sum(y, -1);
    CHECK(s);
    CHECK_OK(backward1(s, 0));
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(g && values(g)[0] == 1);
    pt_tensor_release(g);
    pt_tensor_release(s);
    pt_tensor_release(y); /* frees 100000 nodes one after the other */
    pt_tensor_release(x);
}

PT_TEST(autograd_engine_refuses_roots_without_history)
{
    const double v[1] = {1};
    pt_tensor *x = vec(1, v);
    CHECK(x);
    CHECK_ERR(backward1(x, 0), PT_ERR_RUNTIME,
              "element 0 of tensors does not require grad and does not have a grad_fn");
    pt_tensor_release(x);
    int64_t n = 2;
    pt_tensor *ints;
    CHECK_OK(pt_tensor_empty(1, &n, PT_INT64, CPU, &ints));
    CHECK_ERR(pt_autograd_set_requires_grad(ints, 1), PT_ERR_RUNTIME,
              "only Tensors of floating point and complex dtype can require gradients");
    pt_tensor_release(ints);
}

/* ---------------------------------------------------------------- views (views.c) */
static const char *grad_fn_name(const pt_tensor *t)
{
    pt_node *n = pt_autograd_grad_fn(t);
    const char *name = n ? pt_node_name(n) : "";
    pt_node_release(n); /* the tensor keeps it */
    return name;
}

PT_TEST(autograd_views_record_their_root_base_and_how_they_were_made)
{
    const double v[4] = {1, 2, 3, 4};
    pt_tensor *x = vec(4, v);
    CHECK(x);
    pt_tensor *a = pt_call_narrow(x, 0, 1, 3);
    CHECK(a);
    pt_tensor *b = pt_call_select_int(a, 0, 1); /* a view of a view points at the first base */
    CHECK(b);
    CHECK(a->view_base == x && b->view_base == x && pt_autograd_is_view(b));
    CHECK(a->view_creation == PT_VIEW_DEFAULT);
    /* a plain base gives its views no metadata and no autograd key */
    CHECK(a->autograd == NULL && b->autograd == NULL);
    CHECK(pt_tensor_keys(b) == ((uint64_t)1 << PT_KEY_CPU));
    pt_autograd_set_grad_enabled(0);
    pt_tensor *c = pt_call_narrow(a, 0, 0, 1);
    pt_autograd_set_grad_enabled(1);
    CHECK(c && c->view_creation == PT_VIEW_NO_GRAD_MODE && c->view_base == x);
    pt_tensor *d;
    CHECK_OK(pt_autograd_detach(a, &d)); /* detach is not a view */
    CHECK(d->view_base == NULL && !pt_autograd_is_view(d));
    pt_tensor *base = pt_autograd_view_base(c);
    CHECK(base == x);
    pt_tensor_release(base);
    pt_tensor_release(d);
    pt_tensor_release(c);
    pt_tensor_release(a); /* b keeps x, not a */
    CHECK(values(b)[0] == 3);
    pt_tensor_release(x);
    pt_tensor_release(b);
}

PT_TEST(autograd_in_place_on_a_view_gives_the_base_a_copy_slices_node)
{
    const double v[4] = {1, 2, 3, 4};
    pt_tensor *w = vec(4, v);
    CHECK(w);
    CHECK_OK(pt_autograd_set_requires_grad(w, 1));
    pt_tensor *x = pt_call_clone(w, PT_MEMORY_FORMAT_CONTIGUOUS);
    CHECK(x);
    pt_tensor *view = pt_call_narrow(x, 0, 1, 2);
    CHECK(view);
    pt_scalar three = {PT_SCALAR_INT, 3, 0.0, 0.0};
    pt_tensor *r = pt_call_mul__Scalar(view, &three);
    CHECK(r);
    pt_tensor_release(r);
    CHECK(strcmp(grad_fn_name(x), "CopySlices") == 0);
    CHECK(strcmp(grad_fn_name(view), "AsStridedBackward0") == 0);
    pt_tensor *sq = pt_call_mul_Tensor(x, x);
    pt_tensor *s = sq ? pt_call_sum(sq, -1) : NULL;
    CHECK(s);
    CHECK_OK(backward1(s, 0));
    /* d/dw sum(x^2) with x = w * [1, 3, 3, 1]: 2 * w * [1, 9, 9, 1] */
    pt_tensor *g = pt_autograd_grad(w);
    CHECK(g && values(g)[0] == 2 && values(g)[1] == 36 && values(g)[2] == 54 && values(g)[3] == 8);
    pt_tensor_release(g);
    pt_tensor_release(s);
    pt_tensor_release(sq);
    pt_tensor_release(view);
    pt_tensor_release(x);
    pt_tensor_release(w);
}

PT_TEST(autograd_writing_a_tensor_that_requires_grad_into_a_plain_view_tracks_the_base)
{
    int64_t n = 3;
    pt_tensor *x = pt_call_zeros(1, &n, PT_FLOAT64, PT_LAYOUT_STRIDED, &CPU, 0);
    pt_tensor *y = scalar_one();
    CHECK(x && y);
    CHECK_OK(pt_autograd_set_requires_grad(y, 1));
    pt_tensor *view = pt_call_select_int(x, 0, 1);
    CHECK(view && !pt_autograd_requires_grad(x));
    pt_tensor *r = pt_call_copy_(view, y, 0);
    CHECK(r);
    pt_tensor_release(r);
    CHECK(pt_autograd_requires_grad(x) && strcmp(grad_fn_name(x), "CopySlices") == 0);
    const double c[3] = {5, 7, 11};
    pt_tensor *k = vec(3, c);
    pt_tensor *m = k ? pt_call_mul_Tensor(x, k) : NULL;
    pt_tensor *s = m ? pt_call_sum(m, -1) : NULL;
    CHECK(s);
    CHECK_OK(backward1(s, 0));
    pt_tensor *g = pt_autograd_grad(y);
    CHECK(g && values(g)[0] == 7);
    pt_tensor_release(g);
    pt_tensor_release(s);
    pt_tensor_release(m);
    pt_tensor_release(k);
    pt_tensor_release(view);
    pt_tensor_release(y);
    pt_tensor_release(x);
}

PT_TEST(autograd_a_view_read_after_its_base_changed_regenerates_its_history)
{
    const double v[4] = {1, 2, 3, 4};
    pt_tensor *w = vec(4, v);
    CHECK(w);
    CHECK_OK(pt_autograd_set_requires_grad(w, 1));
    pt_tensor *x = pt_call_clone(w, PT_MEMORY_FORMAT_CONTIGUOUS);
    pt_tensor *view = x ? pt_call_narrow(x, 0, 1, 2) : NULL;
    CHECK(view);
    CHECK(strcmp(grad_fn_name(view), "SliceBackward0") == 0);
    pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0};
    pt_tensor *r = pt_call_mul__Scalar(x, &two);
    CHECK(r);
    pt_tensor_release(r);
    CHECK(strcmp(grad_fn_name(view), "AsStridedBackward0") == 0);
    pt_tensor *s = pt_call_sum(view, -1);
    CHECK(s);
    CHECK_OK(backward1(s, 0));
    pt_tensor *g = pt_autograd_grad(w);
    CHECK(g && values(g)[0] == 0 && values(g)[1] == 2 && values(g)[2] == 2 && values(g)[3] == 0);
    pt_tensor_release(g);
    pt_tensor_release(s);
    pt_tensor_release(view);
    pt_tensor_release(x);
    pt_tensor_release(w);
}

PT_TEST(autograd_a_view_made_under_no_grad_is_not_written_in_place_with_grad_on)
{
    const double v[2] = {1, 2};
    pt_tensor *w = vec(2, v);
    CHECK(w);
    CHECK_OK(pt_autograd_set_requires_grad(w, 1));
    pt_tensor *x = pt_call_clone(w, PT_MEMORY_FORMAT_CONTIGUOUS);
    CHECK(x);
    pt_autograd_set_grad_enabled(0);
    pt_tensor *view = pt_call_select_int(x, 0, 0);
    pt_autograd_set_grad_enabled(1);
    CHECK(view && pt_autograd_requires_grad(view));
    pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0};
    CHECK(pt_call_mul__Scalar(view, &two) == NULL);
    CHECK(strstr(pt_error_message(), "A view was created in no_grad mode and is being modified "
                                     "inplace with grad mode enabled."));
    pt_tensor *leaf_view = pt_call_select_int(w, 0, 1);
    CHECK(leaf_view);
    CHECK(pt_call_mul__Scalar(leaf_view, &two) == NULL);
    CHECK(strstr(pt_error_message(), "a view of a leaf Variable that requires grad"));
    pt_tensor_release(leaf_view);
    pt_tensor_release(view);
    pt_tensor_release(x);
    pt_tensor_release(w);
}

PT_TEST(autograd_as_strided_backward_sums_overlapping_views_and_shares_overlapping_inputs)
{
    const double v[3] = {1, 2, 3};
    pt_tensor *grad = NULL;
    int64_t gs[2] = {2, 3};
    CHECK_OK(pt_tensor_empty(2, gs, PT_FLOAT64, CPU, &grad));
    double *gd = (double *)pt_tensor_data(grad);
    for (int i = 0; i < 6; i++) gd[i] = i + 1;
    /* the view expands a 3-vector to 2 x 3 (stride 0): each element gets its column's sum */
    const int64_t in_size[1] = {3}, in_stride[1] = {1};
    const int64_t out_stride[2] = {0, 1};
    pt_tensor *r = pt_ag_as_strided_backward(grad, 1, in_size, in_stride, 0, 2, gs, out_stride, 0);
    CHECK(r && values(r)[0] == 5 && values(r)[1] == 7 && values(r)[2] == 9);
    pt_tensor_release(r);
    /* an input whose two elements share one storage element splits that element's gradient */
    pt_tensor *g1 = vec(3, v);
    const int64_t in2_size[1] = {2}, in2_stride[1] = {0};
    const int64_t out2_size[1] = {1}, out2_stride[1] = {1};
    CHECK(g1);
    pt_tensor *one = NULL;
    CHECK_OK(pt_tensor_select(g1, 0, 2, &one));
    pt_tensor *flat = NULL;
    CHECK_OK(pt_tensor_unsqueeze(one, 0, &flat));
    r = pt_ag_as_strided_backward(flat, 1, in2_size, in2_stride, 0, 1, out2_size, out2_stride, 0);
    CHECK(r);
    const double *rv = (const double *)pt_tensor_data(r);
    CHECK(pt_tensor_ndim(r) == 1 && pt_tensor_sizes(r)[0] == 2 && rv[0] == 1.5 &&
          pt_tensor_strides(r)[0] == 0);
    pt_tensor_release(r);
    pt_tensor_release(flat);
    pt_tensor_release(one);
    pt_tensor_release(g1);
    pt_tensor_release(grad);
}

/* ---------------------------------------------------------------- inference mode */
PT_TEST(autograd_inference_mode_makes_inference_tensors_without_versions)
{
    const double v[3] = {1, 2, 3};
    pt_tensor *normal = vec(3, v);
    CHECK(normal);
    pt_autograd_set_inference_mode(1);
    CHECK(pt_autograd_is_inference_mode_enabled() && !pt_autograd_is_grad_enabled());
    pt_tensor *inf = vec(3, v);
    pt_tensor *view = NULL, *normal_view = NULL, *r;
    int64_t three = 3;
    CHECK(inf);
    CHECK_OK(pt_tensor_view(inf, 1, &three, &view));
    CHECK_OK(pt_tensor_view(normal, 1, &three, &normal_view));
    CHECK(pt_tensor_is_inference(inf) && !pt_tensor_is_inference(normal));
    CHECK(pt_tensor_is_inference(view) && !pt_tensor_is_inference(normal_view));
    /* in-place inside: the inference tensor has nothing to bump, the normal one is bumped */
    CHECK((r = pt_call_add__Tensor(inf, normal, &pt_scalar_one)) != NULL);
    pt_tensor_release(r);
    CHECK((r = pt_call_add__Tensor(normal, normal, &pt_scalar_one)) != NULL);
    pt_tensor_release(r);
    CHECK(pt_autograd_version(normal) == 1 && atomic_load(&inf->version) == NULL);
    CHECK(atomic_load(&view->version) == NULL && pt_autograd_version(normal_view) == 1);
    pt_autograd_set_inference_mode(0);
    CHECK(!pt_autograd_is_inference_mode_enabled() && pt_autograd_is_grad_enabled());
    pt_tensor_release(view);
    pt_tensor_release(normal_view);
    /* outside: views stay inference tensors, writes and requires_grad are refused */
    pt_tensor *d = NULL;
    CHECK_OK(pt_autograd_detach(inf, &d));
    CHECK(pt_tensor_is_inference(d));
    pt_tensor_release(d);
    CHECK(!pt_call_add__Tensor(inf, normal, &pt_scalar_one));
    CHECK(pt_error_code() == PT_ERR_RUNTIME &&
          strstr(pt_error_message(), "Inplace update to inference tensor outside InferenceMode"));
    CHECK(values(inf)[0] == 4); /* as torch: the kernel wrote before the bump refused */
    CHECK_ERR(pt_autograd_set_requires_grad(inf, 1), PT_ERR_RUNTIME,
              "Setting requires_grad=True on inference tensor outside InferenceMode");
    CHECK_OK(pt_autograd_set_requires_grad(normal, 1));
    CHECK((r = pt_call_add_Tensor(normal, inf, &pt_scalar_one)) != NULL); /* nothing saved */
    pt_tensor_release(r);
    pt_tensor *bad = pt_call_mul_Tensor(normal, inf);
    CHECK(!bad && strstr(pt_error_message(), "Inference tensors cannot be saved for backward."));
    pt_tensor_release(inf);
    pt_tensor_release(normal);
}

static void *inference_in_thread(void *arg)
{
    int *out = arg;
    out[0] = pt_autograd_is_inference_mode_enabled();
    pt_tensor *t = scalar_one();
    out[1] = t ? pt_tensor_is_inference(t) : -1;
    pt_tensor_release(t);
    return NULL;
}

PT_TEST(autograd_inference_mode_is_thread_local)
{
    int seen[2] = {-1, -1};
    pthread_t th;
    pt_autograd_set_inference_mode(1);
    CHECK(pthread_create(&th, NULL, inference_in_thread, seen) == 0);
    pthread_join(th, NULL);
    pt_autograd_set_inference_mode(0);
    CHECK(seen[0] == 0 && seen[1] == 0);
}

/* ---------------------------------------------------------------- saved-tensor hooks */
typedef struct {
    int packs, unpacks, packed_freed, ctx_freed;
    bool unpack_null;
} hook_counts;

static hook_counts *counts_of_packed; /* release_packed gets the packed value alone */

static pt_status clone_pack(void *ctx, pt_tensor *t, void **packed)
{
    ((hook_counts *)ctx)->packs++;
    pt_tensor *c = pt_call_clone(t, PT_MEMORY_FORMAT_CONTIGUOUS);
    if (!c) return pt_error_code();
    *packed = c;
    return PT_OK;
}

static pt_status clone_unpack(void *ctx, void *packed, pt_tensor **out)
{
    hook_counts *c = ctx;
    c->unpacks++;
    if (c->unpack_null) return PT_OK;
    pt_tensor_retain(packed);
    *out = packed;
    return PT_OK;
}

static void free_packed(void *packed)
{
    counts_of_packed->packed_freed++;
    pt_tensor_release(packed);
}

static void free_hooks_ctx(void *ctx) { ((hook_counts *)ctx)->ctx_freed++; }

PT_TEST(autograd_saved_tensor_hooks_pack_unpack_and_free_with_the_graph)
{
    hook_counts c = {0};
    counts_of_packed = &c;
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    CHECK_OK(pt_autograd_saved_hooks_push(clone_pack, clone_unpack, free_packed, &c,
                                          free_hooks_ctx));
    pt_tensor *y = pt_call_mul_Tensor(x, x); /* saves x twice */
    CHECK_OK(pt_autograd_saved_hooks_pop());
    CHECK(y && c.packs == 2 && c.ctx_freed == 0); /* the graph still holds the pair */
    /* no version check through hooks: the clone is what backward reads */
    pt_autograd_set_grad_enabled(0);
    pt_tensor *r = pt_call_mul__Scalar(x, &pt_scalar_one);
    pt_autograd_set_grad_enabled(1);
    CHECK(r && pt_autograd_version(x) == 1);
    pt_tensor_release(r);
    pt_tensor *s = pt_call_sum(y, -1);
    CHECK(s);
    CHECK_OK(backward1(s, 0));
    CHECK(c.unpacks == 2 && c.packed_freed == 2 && c.ctx_freed == 1);
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(g && values(g)[0] == 2 && values(g)[1] == 4);
    pt_tensor_release(g);
    CHECK_ERR(backward1(s, 0), PT_ERR_RUNTIME, "backward through the graph a second time");
    pt_tensor_release(s);
    pt_tensor_release(y);
    pt_tensor_release(x);
    CHECK_ERR(pt_autograd_saved_hooks_pop(), PT_ERR_RUNTIME, "no hooks to pop");
}

PT_TEST(autograd_saved_tensor_hooks_errors_and_disabling)
{
    hook_counts c = {0};
    counts_of_packed = &c;
    c.unpack_null = true;
    const double v[2] = {1, 2};
    pt_tensor *x = vec(2, v);
    CHECK(x);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    CHECK_OK(pt_autograd_saved_hooks_push(clone_pack, clone_unpack, free_packed, &c, NULL));
    pt_tensor *y = pt_call_exp(x);
    pt_tensor *s = y ? pt_call_sum(y, -1) : NULL;
    CHECK_OK(pt_autograd_saved_hooks_pop());
    CHECK(s);
    CHECK_ERR(backward1(s, 1), PT_ERR_TYPE, "unpack_hook expected to be a Tensor");
    pt_tensor_release(s);
    pt_tensor_release(y); /* the graph and its packed value go */
    CHECK(c.packs == 1 && c.packed_freed == 1);
    CHECK_OK(pt_autograd_saved_hooks_disable("hooks are off here"));
    CHECK(strcmp(pt_autograd_saved_hooks_disabled_message(), "hooks are off here") == 0);
    CHECK_ERR(pt_autograd_saved_hooks_push(clone_pack, clone_unpack, NULL, &c, NULL),
              PT_ERR_RUNTIME, "hooks are off here");
    CHECK_OK(pt_autograd_saved_hooks_disable(NULL));
    CHECK(pt_autograd_saved_hooks_disabled_message() == NULL);
    CHECK_OK(pt_autograd_saved_hooks_push(clone_pack, clone_unpack, NULL, &c, NULL));
    CHECK_ERR(pt_autograd_saved_hooks_disable("late"), PT_ERR_RUNTIME, "late");
    CHECK_OK(pt_autograd_saved_hooks_pop());
    /* a saved variable on its own goes through them too */
    CHECK_OK(pt_autograd_saved_hooks_push(clone_pack, clone_unpack, free_packed, &c, NULL));
    c.unpack_null = false;
    pt_saved_tensor *sv = NULL;
    CHECK_OK(pt_saved_tensor_new(x, 0, &sv));
    CHECK_OK(pt_autograd_saved_hooks_pop());
    pt_tensor *u = NULL;
    CHECK_OK(pt_saved_tensor_unpack(sv, NULL, &u));
    CHECK(u && u != x && values(u)[1] == 2 && pt_autograd_requires_grad(u)); /* x's history */
    pt_tensor_release(u);
    pt_saved_tensor_release_data(sv);
    CHECK_ERR(pt_saved_tensor_unpack(sv, NULL, &u), PT_ERR_RUNTIME, "second time");
    pt_saved_tensor_free(sv);
    CHECK(c.packs == 2 && c.packed_freed == 2);
    pt_tensor_release(x);
}

/* ---------------------------------------------------------------- node hooks */
static pt_status scale_first(void *ctx, int32_t n_in, pt_tensor **ins, int32_t n_out,
                             pt_tensor **outs)
{
    int *calls = ctx;
    ++*calls;
    pt_tensor **arr = n_in > 0 ? ins : outs;
    if ((n_in > 0 ? n_in : n_out) < 1 || !arr[0]) return PT_OK;
    pt_scalar ten = {PT_SCALAR_INT, 10, 0.0, 0.0};
    pt_tensor *r = pt_call_mul_Scalar(arr[0], &ten);
    if (!r) return pt_error_code();
    pt_tensor_release(arr[0]);
    arr[0] = r;
    return PT_OK;
}

static pt_status see_leaf(void *ctx, pt_tensor *leaf, pt_tensor **replacement)
{
    (void)replacement;
    pt_tensor *g = pt_autograd_grad(leaf);
    *(double *)ctx = g ? values(g)[0] : -1;
    pt_tensor_release(g);
    return PT_OK;
}

PT_TEST(autograd_node_pre_and_post_hooks_replace_gradients_in_order)
{
    const double v[2] = {1, 2}, w[2] = {3, 4};
    pt_tensor *x = vec(2, v), *k = vec(2, w);
    CHECK(x && k);
    CHECK_OK(pt_autograd_set_requires_grad(x, 1));
    pt_tensor *y = pt_call_mul_Tensor(x, k);
    pt_tensor *s = y ? pt_call_sum(y, -1) : NULL;
    CHECK(s);
    pt_node *fn = pt_autograd_grad_fn(y);
    int pre = 0, post = 0;
    double seen = 0;
    pt_hook *hp, *hq, *ha;
    CHECK_OK(pt_node_register_hook(fn, PT_NODE_PRE_HOOK, scale_first, &pre, NULL, &hp));
    CHECK_OK(pt_node_register_hook(fn, PT_NODE_POST_HOOK, scale_first, &post, NULL, &hq));
    CHECK_ERR(pt_node_register_hook(fn, 7, scale_first, &post, NULL, &ha), PT_ERR_VALUE, "kind");
    CHECK_ERR(pt_autograd_register_post_accumulate_hook(y, see_leaf, &seen, NULL, &ha),
              PT_ERR_RUNTIME, "non-leaf");
    CHECK_OK(pt_autograd_register_post_accumulate_hook(x, see_leaf, &seen, NULL, &ha));
    CHECK_OK(backward1(s, 1));
    pt_tensor *g = pt_autograd_grad(x);
    CHECK(pre == 1 && post == 1 && g && values(g)[0] == 300 && values(g)[1] == 400);
    CHECK(seen == 300); /* after accumulation */
    pt_tensor_release(g);
    pt_hook_remove(hp);
    pt_hook_remove(hq);
    pt_hook_remove(ha);
    CHECK_OK(pt_autograd_set_grad(x, NULL));
    CHECK_OK(backward1(s, 0));
    g = pt_autograd_grad(x);
    CHECK(pre == 1 && post == 1 && seen == 300 && g && values(g)[0] == 3);
    pt_tensor_release(g);
    pt_hook_release(hp);
    pt_hook_release(hq);
    pt_hook_release(ha);
    pt_node_release(fn);
    pt_tensor_release(s);
    pt_tensor_release(y);
    pt_tensor_release(k);
    pt_tensor_release(x);
}
