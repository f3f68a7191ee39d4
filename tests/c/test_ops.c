/* The declared operators (csrc/ops/native_functions.yaml through tools/gen_ops.py): every
 * declaration is def'ed and its kernels sit in the slots PyTorch's rules give them; the unboxed
 * entry points call those kernels (factories through their generated BackendSelect kernel); the
 * boxed path gives the same results; a boxed-only kernel registered over an operator is boxed and
 * called by the entry point; and the adapters in csrc/ops keep torch's semantics for the options
 * they resolve. Tests that register kernels release them before they end. */
#include "pt_test.h"

#include "pt_ops.h"
#include "pt_ops_internal.h"

#define BIT(k) ((uint64_t)1 << (k))

static const pt_device cpu = {PT_DEV_CPU, 0};
static const pt_device meta = {PT_DEV_META, 0};

/* float32 [0, 1, ..., n-1] on the CPU */
static pt_tensor *frange(int64_t n)
{
    const pt_scalar end = {.kind = PT_SCALAR_INT, .i = n};
    return pt_call_arange(&end, PT_FLOAT32, -1, NULL, -1);
}

static float fat(const pt_tensor *t, int64_t i) { return ((const float *)pt_tensor_data(t))[i]; }

static pt_scalar ival(int64_t v) { return (pt_scalar){.kind = PT_SCALAR_INT, .i = v}; }
static pt_scalar dval(double v) { return (pt_scalar){.kind = PT_SCALAR_FLOAT, .re = v}; }

/* ---------------------------------------------------------------- registration */
PT_TEST(ops_every_declaration_is_registered_with_its_schema_and_variants)
{
    CHECK(pt_ops_decl_count() >= 60);
    for (int32_t i = 0; i < pt_ops_decl_count(); i++) {
        pt_op *op = pt_ops_decl_op(i);
        CHECK(op != NULL);
        const pt_schema *s = pt_op_schema(op);
        CHECK(s != NULL);
        pt_op *found = NULL;
        CHECK_OK(pt_dispatch_find(pt_schema_name(s), pt_schema_overload(s), &found));
        CHECK(found == op);
        CHECK(strncmp(pt_op_name(op), "aten::", 6) == 0);
        CHECK(pt_op_variants(op) == pt_ops_decl_variants(i));
    }
    pt_op *op;
    CHECK_OK(pt_dispatch_find("aten::add", "Tensor", &op));
    CHECK(pt_op_variants(op) == (PT_VARIANT_FUNCTION | PT_VARIANT_METHOD));
    CHECK_OK(pt_dispatch_find("aten::view", "", &op));
    CHECK(pt_op_variants(op) == PT_VARIANT_METHOD);
    CHECK(strcmp(pt_schema_text(pt_op_schema(op)),
                 "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)") == 0);
}

/* The unboxed function a backend slot should hold given the declared kernels of declaration d:
 * the key's own kernel, else CompositeExplicitAutograd's, else CompositeImplicitAutograd's. */
static const void *expected_backend_kernel(int32_t d, int32_t key)
{
    const void *own = NULL, *explicit_ = NULL, *implicit = NULL;
    for (int32_t i = 0; i < pt_ops_impl_count(); i++) {
        int32_t decl, k;
        const void *fn;
        const char *debug;
        pt_ops_impl(i, &decl, &k, &fn, &debug);
        if (decl != d) continue;
        if (k == key) own = fn;
        if (k == PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD) explicit_ = fn;
        if (k == PT_KEY_COMPOSITE_IMPLICIT_AUTOGRAD) implicit = fn;
    }
    return own ? own : explicit_ ? explicit_ : implicit;
}

PT_TEST(ops_kernels_fill_the_slots_the_declarations_name)
{
    static const int32_t backends[] = {PT_KEY_CPU, PT_KEY_CUDA, PT_KEY_META};
    int32_t selects = 0;
    for (int32_t d = 0; d < pt_ops_decl_count(); d++) {
        const pt_op *op = pt_ops_decl_op(d);
        for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
            int32_t key = -1;
            const pt_kernel *k = pt_dispatch_slot(op, BIT(backends[b]), &key);
            CHECK(key == backends[b]);
            CHECK(k->unboxed == expected_backend_kernel(d, backends[b]));
        }
    }
    for (int32_t i = 0; i < pt_ops_impl_count(); i++) {
        int32_t decl, key;
        const void *fn;
        const char *debug;
        pt_ops_impl(i, &decl, &key, &fn, &debug);
        /* Every kernel names its declaration; only boxed-only operators lack an unboxed one. */
        CHECK(debug != NULL && strstr(debug, ".yaml:"));
        if (key != PT_KEY_BACKEND_SELECT) continue;
        CHECK(fn != NULL);
        int32_t got = -1;
        const pt_kernel *k = pt_dispatch_slot(pt_ops_decl_op(decl), BIT(key), &got);
        CHECK(got == PT_KEY_BACKEND_SELECT && k->unboxed == fn);
        selects++;
    }
    CHECK(selects >= 20); /* every factory: empty, zeros, ..., randperm.generator */
    pt_op *op;
    CHECK_OK(pt_dispatch_find("aten::add", "Tensor", &op));
    int32_t key;
    CHECK(pt_dispatch_slot(op, BIT(PT_KEY_CPU), &key)->unboxed == (void *)pt_kernel_add);
    CHECK(pt_dispatch_slot(op, BIT(PT_KEY_META), &key)->unboxed == (void *)pt_kernel_add);
    CHECK(pt_dispatch_slot(op, BIT(PT_KEY_CUDA), &key)->unboxed == NULL);
    CHECK_OK(pt_dispatch_find("aten::view", "", &op));
    CHECK(pt_dispatch_slot(op, BIT(PT_KEY_CUDA), &key)->unboxed == (void *)pt_tensor_view);
}

PT_TEST(ops_dump_names_the_kernels_with_their_declaration_lines)
{
    const char *text;
    CHECK_OK(pt_dispatch_dump("aten::zeros", &text));
    CHECK(strstr(text, "debug: csrc/ops/native_functions.yaml:"));
    CHECK(strstr(text, "BackendSelect: backend select on 'device', generated for "
                       "csrc/ops/native_functions.yaml:"));
    CHECK(strstr(text, "CompositeExplicitAutograd[alias]: pt_native_zeros (csrc/ops/"));
    CHECK_OK(pt_dispatch_dump("aten::add.Tensor", &text));
    CHECK(strstr(text, "CPU: pt_kernel_add (csrc/ops/native_functions.yaml:"));
}

PT_TEST(ops_init_report_counts_the_declared_schemas)
{
    int32_t found = 0;
    for (int32_t i = 0; i < pt_init_phase_count(); i++) {
        pt_init_phase_info p;
        CHECK_OK(pt_init_phase(i, &p));
        if (strcmp(p.name, "operators") != 0) continue;
        found = 1;
        CHECK(p.count == pt_ops_decl_count());
        CHECK(strstr(p.detail, "schemas and") && strstr(p.detail, "declaration file"));
    }
    CHECK(found);
}

/* ---------------------------------------------------------------- unboxed entry points */
PT_TEST(ops_view_entry_point_returns_a_view_of_the_same_storage)
{
    pt_tensor *t = frange(6);
    CHECK(t != NULL);
    const int64_t shape[2] = {3, 2};
    pt_tensor *v = pt_call_view(t, 2, shape);
    CHECK(v != NULL);
    CHECK(pt_tensor_ndim(v) == 2 && pt_tensor_sizes(v)[0] == 3 && pt_tensor_sizes(v)[1] == 2);
    CHECK(pt_tensor_storage(v) == pt_tensor_storage(t));
    const int64_t bad[1] = {4};
    CHECK(pt_call_view(t, 1, bad) == NULL);
    CHECK(strstr(pt_error_message(), "invalid for input of size 6"));
    pt_tensor_release(v);
    pt_tensor_release(t);
}

PT_TEST(ops_fill__returns_self_as_a_new_reference)
{
    pt_tensor *t = frange(3);
    CHECK(t != NULL);
    const int64_t refs = pt_tensor_refcount(t);
    const pt_scalar seven = ival(7);
    pt_tensor *r = pt_call_fill__Scalar(t, &seven);
    CHECK(r == t);
    CHECK(pt_tensor_refcount(t) == refs + 1);
    CHECK(fat(t, 0) == 7.0f && fat(t, 2) == 7.0f);
    pt_tensor_release(r);
    pt_tensor *z = pt_call_zero_(t);
    CHECK(z == t && fat(t, 1) == 0.0f);
    pt_tensor_release(z);
    pt_tensor_release(t);
}

PT_TEST(ops_zeros_on_the_meta_device_goes_through_backend_select)
{
    const int64_t size[2] = {2, 3};
    pt_tensor *m = pt_call_zeros(2, size, -1, -1, &meta, -1);
    CHECK(m != NULL);
    CHECK(pt_tensor_device(m).type == PT_DEV_META);
    CHECK(pt_tensor_dtype(m) == pt_dtype_default());
    CHECK(pt_tensor_numel(m) == 6);
    pt_tensor_release(m);
    pt_tensor *c = pt_call_zeros(2, size, PT_INT32, -1, NULL, -1);
    CHECK(c != NULL && pt_tensor_device(c).type == PT_DEV_CPU && pt_tensor_dtype(c) == PT_INT32);
    CHECK(((const int32_t *)pt_tensor_data(c))[5] == 0);
    pt_tensor_release(c);
}

/* A boxed kernel that counts its calls (ctx) and answers with an empty meta tensor. */
static pt_status counting_factory(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                  void *ctx)
{
    PT_UNUSED(key);
    PT_UNUSED(keyset);
    ++*(int *)ctx;
    stack->size -= pt_schema_num_arguments(pt_op_schema(op));
    pt_tensor *t;
    PT_TRY(pt_tensor_empty(0, NULL, PT_FLOAT32, meta, &t));
    stack->items[stack->size++] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = t};
    return PT_OK;
}

PT_TEST(ops_backend_select_routes_a_factory_to_its_devices_key)
{
    int calls = 0;
    pt_registration *r;
    CHECK_OK(pt_dispatch_impl("aten::ones", PT_KEY_META, counting_factory, &calls,
                              "test_ops.c: counting meta ones", &r));
    const int64_t size[1] = {4};
    pt_tensor *m = pt_call_ones(1, size, -1, -1, &meta, -1);
    pt_tensor *c = pt_call_ones(1, size, -1, -1, &cpu, -1);
    pt_registration_release(r);
    CHECK(m != NULL && c != NULL);
    CHECK(calls == 1);
    CHECK(pt_tensor_ndim(m) == 0); /* the counting kernel's answer */
    CHECK(pt_tensor_ndim(c) == 1 && fat(c, 3) == 1.0f);
    pt_tensor_release(m);
    pt_tensor_release(c);
    m = pt_call_ones(1, size, -1, -1, &meta, -1);
    CHECK(m != NULL && pt_tensor_ndim(m) == 1 && calls == 1);
    pt_tensor_release(m);
}

PT_TEST(ops_add_entry_points_compute_with_alpha_and_in_place)
{
    pt_tensor *a = frange(4), *b = frange(4);
    CHECK(a && b);
    const pt_scalar two = ival(2);
    pt_tensor *c = pt_call_add_Tensor(a, b, &two);
    CHECK(c != NULL);
    CHECK(fat(c, 3) == 9.0f && pt_tensor_dtype(c) == PT_FLOAT32);
    pt_tensor *d = pt_call_add__Tensor(a, b, &two);
    CHECK(d == a && fat(a, 1) == 3.0f);
    pt_tensor_release(d);
    pt_tensor *e = pt_call_mul_Tensor(b, b);
    CHECK(e != NULL && fat(e, 3) == 9.0f);
    pt_tensor *o = pt_call_sub_out(c, b, &two, e);
    CHECK(o == e && fat(e, 3) == 3.0f);
    pt_tensor_release(o);
    pt_tensor_release(e);
    pt_tensor_release(c);
    pt_tensor_release(b);
    pt_tensor_release(a);
}

PT_TEST(ops_scalar_overloads_promote_as_wrapped_numbers)
{
    const int64_t two[1] = {2};
    const pt_scalar one = ival(1);
    pt_tensor *i32 = pt_call_ones(1, two, PT_INT32, -1, NULL, -1);
    CHECK(i32 != NULL);
    const pt_scalar half = dval(2.5);
    pt_tensor *f = pt_call_add_Scalar(i32, &half, &one);
    CHECK(f != NULL && pt_tensor_dtype(f) == pt_dtype_default() && fat(f, 1) == 3.5f);
    pt_tensor *i8 = pt_call_ones(1, two, PT_INT8, -1, NULL, -1);
    const pt_scalar big = ival(1000);
    pt_tensor *g = pt_call_mul_Scalar(i8, &big);
    CHECK(g != NULL && pt_tensor_dtype(g) == PT_INT8);
    pt_tensor *h = pt_call_sub__Scalar(i32, &one, &one);
    CHECK(h == i32 && ((const int32_t *)pt_tensor_data(i32))[0] == 0);
    pt_tensor_release(h);
    pt_tensor_release(g);
    pt_tensor_release(i8);
    pt_tensor_release(f);
    pt_tensor_release(i32);
}

PT_TEST(ops_factories_infer_dtypes_like_torch)
{
    const pt_scalar five = ival(5), fivef = dval(5.0), yes = {.kind = PT_SCALAR_BOOL, .i = 1};
    pt_tensor *t = pt_call_arange(&five, -1, -1, NULL, -1);
    CHECK(t != NULL && pt_tensor_dtype(t) == PT_INT64 && pt_tensor_numel(t) == 5);
    pt_tensor_release(t);
    t = pt_call_arange(&fivef, -1, -1, NULL, -1);
    CHECK(t != NULL && pt_tensor_dtype(t) == pt_dtype_default());
    pt_tensor_release(t);
    const int64_t size[1] = {2};
    t = pt_call_full(1, size, &yes, -1, -1, NULL, -1);
    CHECK(t != NULL && pt_tensor_dtype(t) == PT_BOOL);
    pt_tensor_release(t);
    t = pt_call_full(1, size, &five, -1, -1, NULL, -1);
    CHECK(t != NULL && pt_tensor_dtype(t) == PT_INT64);
    pt_tensor_release(t);
    t = pt_call_randint(10, 1, size, -1, -1, NULL, -1);
    CHECK(t != NULL && pt_tensor_dtype(t) == PT_INT64);
    pt_tensor_release(t);
    t = pt_call_eye_m(2, 3, -1, -1, NULL, -1);
    CHECK(t != NULL && pt_tensor_sizes(t)[1] == 3 && fat(t, 4) == 1.0f);
    pt_tensor_release(t);
    CHECK(pt_call_zeros(1, size, -1, PT_LAYOUT_SPARSE_COO, NULL, -1) == NULL);
    CHECK(pt_error_code() == PT_ERR_NOT_IMPLEMENTED && strstr(pt_error_message(), "layout"));
    CHECK(pt_call_empty_strided(1, size, 0, NULL, -1, -1, NULL, -1) == NULL);
    CHECK(strstr(pt_error_message(), "dimensionality of sizes (1) must match"));
}

PT_TEST(ops_random_factories_draw_what_empty_then_fill_draws)
{
    pt_generator *g1, *g2;
    CHECK_OK(pt_generator_new(cpu, &g1));
    CHECK_OK(pt_generator_new(cpu, &g2));
    pt_generator_manual_seed(g1, 5);
    pt_generator_manual_seed(g2, 5);
    const int64_t size[1] = {8};
    pt_tensor *a = pt_call_rand_generator(1, size, g1, -1, -1, NULL, -1);
    pt_tensor *b = pt_call_empty_memory_format(1, size, -1, -1, NULL, -1, -1);
    CHECK(a && b);
    pt_tensor *r = pt_call_uniform_(b, 0.0, 1.0, g2);
    CHECK(r == b);
    pt_tensor_release(r);
    CHECK(memcmp(pt_tensor_data(a), pt_tensor_data(b), 8 * sizeof(float)) == 0);
    /* random_ without bounds draws integers a float32 holds exactly: [0, 2^24] */
    r = pt_call_random_(b, g1);
    CHECK(r == b);
    pt_tensor_release(r);
    for (int i = 0; i < 8; i++) CHECK(fat(b, i) >= 0 && fat(b, i) <= 16777216.0f);
    pt_tensor_release(a);
    pt_tensor_release(b);
    pt_generator_release(g1);
    pt_generator_release(g2);
}

PT_TEST(ops_to_is_self_when_nothing_changes_and_a_copy_otherwise)
{
    pt_tensor *t = frange(3);
    CHECK(t != NULL);
    pt_tensor *same = pt_call_to_dtype(t, PT_FLOAT32, 0, 0, -1);
    CHECK(same == t);
    pt_tensor_release(same);
    same = pt_call_to_device(t, cpu, PT_FLOAT32, 0, 0, -1);
    CHECK(same == t);
    pt_tensor_release(same);
    pt_tensor *copy = pt_call_to_dtype(t, PT_FLOAT32, 0, 1, -1);
    CHECK(copy != NULL && copy != t && fat(copy, 2) == 2.0f);
    pt_tensor_release(copy);
    pt_tensor *d = pt_call_to_dtype_layout(t, PT_FLOAT64, -1, NULL, -1, 0, 0, -1);
    CHECK(d != NULL && pt_tensor_dtype(d) == PT_FLOAT64);
    CHECK(((const double *)pt_tensor_data(d))[2] == 2.0);
    pt_tensor *m = pt_call__to_copy(t, -1, -1, &meta, -1, 0, -1);
    CHECK(m != NULL && pt_tensor_device(m).type == PT_DEV_META);
    pt_tensor_release(m);
    pt_tensor_release(d);
    pt_tensor_release(t);
}

PT_TEST(ops_view_adapters_follow_torch)
{
    pt_tensor *t = frange(6);
    const int64_t s123[3] = {1, 2, 3};
    pt_tensor *v = pt_call_view(t, 3, s123);
    CHECK(t && v);
    pt_tensor *q = pt_call_squeeze_dims(v, 0, NULL); /* no dims: nothing squeezed */
    CHECK(q != NULL && pt_tensor_ndim(q) == 3);
    pt_tensor_release(q);
    q = pt_call_squeeze(v);
    CHECK(q != NULL && pt_tensor_ndim(q) == 2);
    CHECK(pt_call_t(v) == NULL && strstr(pt_error_message(), "t() expects a tensor with <= 2"));
    pt_tensor *tt = pt_call_t(q);
    CHECK(tt != NULL && pt_tensor_sizes(tt)[0] == 3 && pt_tensor_strides(tt)[0] == 1);
    const int64_t start = 1;
    pt_tensor *sl = pt_call_slice_Tensor(t, 0, &start, NULL, 2);
    CHECK(sl != NULL && pt_tensor_numel(sl) == 3 && fat(sl, 0) == 1.0f);
    const int64_t two[1] = {2}, one[1] = {1}, off = 4;
    pt_tensor *as = pt_call_as_strided(t, 1, two, 1, one, &off);
    CHECK(as != NULL && pt_tensor_offset(as) == 4);
    pt_tensor *as2 = pt_call_as_strided(sl, 1, two, 1, one, NULL); /* keeps sl's offset */
    CHECK(as2 != NULL && pt_tensor_offset(as2) == 1);
    pt_tensor_release(as2);
    pt_tensor_release(as);
    pt_tensor_release(sl);
    pt_tensor_release(tt);
    pt_tensor_release(q);
    pt_tensor_release(v);
    pt_tensor_release(t);
}

PT_TEST(ops_empty_like_keeps_the_memory_order)
{
    const int64_t size[2] = {2, 3};
    pt_tensor *t = pt_call_zeros(2, size, -1, -1, NULL, -1);
    pt_tensor *tt = pt_call_t(t);
    CHECK(t && tt);
    pt_tensor *e = pt_call_empty_like(tt, -1, -1, NULL, -1, -1);
    CHECK(e != NULL && pt_tensor_strides(e)[0] == 1 && pt_tensor_strides(e)[1] == 3);
    pt_tensor_release(e);
    e = pt_call_ones_like(tt, PT_INT64, -1, NULL, -1, PT_MEMORY_FORMAT_CONTIGUOUS);
    CHECK(e != NULL && pt_tensor_strides(e)[0] == 2 && pt_tensor_dtype(e) == PT_INT64);
    CHECK(((const int64_t *)pt_tensor_data(e))[5] == 1);
    pt_tensor_release(e);
    pt_tensor_release(tt);
    pt_tensor_release(t);
}

PT_TEST(ops_item_returns_the_scalar_through_an_out_parameter)
{
    pt_tensor *t = frange(1);
    CHECK(t != NULL);
    pt_scalar s = {0};
    CHECK_OK(pt_call_item(t, &s));
    CHECK(s.kind == PT_SCALAR_FLOAT && s.re == 0.0);
    pt_tensor_release(t);
}

PT_TEST(ops_entry_points_refuse_null_tensors)
{
    const int64_t size[1] = {1};
    CHECK(pt_call_view(NULL, 1, size) == NULL);
    CHECK(pt_error_code() == PT_ERR_TYPE);
    CHECK(strcmp(pt_error_message(),
                 "aten::view(): argument 'self' must be Tensor, not NULL") == 0);
    pt_tensor *t = frange(1);
    CHECK(pt_call_add_Tensor(t, NULL, NULL) == NULL);
    CHECK(strstr(pt_error_message(), "argument 'other' must be Tensor"));
    pt_scalar s;
    CHECK_ERR(pt_call_item(NULL, &s), PT_ERR_TYPE, "argument 'self' must be Tensor, not NULL");
    pt_tensor_release(t);
}

/* ---------------------------------------------------------------- boxed calls */
PT_TEST(ops_boxed_calls_give_the_entry_points_results)
{
    pt_tensor *t = frange(6);
    CHECK(t != NULL);
    pt_op *op;
    pt_ivalue items[8];
    pt_stack st = {items, 0, 8};
    const int64_t shape[2] = {2, 3};
    CHECK_OK(pt_dispatch_find("aten::view", "", &op));
    items[0] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = t};
    items[1] = (pt_ivalue){.tag = PT_IV_INT_LIST, .len = 2, .ints = shape};
    st.size = 2;
    CHECK_OK(pt_dispatch_call(op, &st));
    CHECK(st.size == 1 && items[0].tag == PT_IV_TENSOR);
    CHECK(pt_tensor_sizes(items[0].t)[1] == 3);
    CHECK(pt_tensor_storage(items[0].t) == pt_tensor_storage(t));
    pt_stack_clear(&st);

    /* a factory: BackendSelect takes the meta device from the stack */
    CHECK_OK(pt_dispatch_find("aten::zeros", "", &op));
    items[0] = (pt_ivalue){.tag = PT_IV_INT_LIST, .len = 2, .ints = shape};
    items[1] = (pt_ivalue){.tag = PT_IV_DTYPE, .i = PT_FLOAT64};
    items[2] = (pt_ivalue){.tag = PT_IV_NONE};
    items[3] = (pt_ivalue){.tag = PT_IV_DEVICE, .device = meta};
    items[4] = (pt_ivalue){.tag = PT_IV_NONE};
    st.size = 5;
    CHECK_OK(pt_dispatch_call(op, &st));
    CHECK(st.size == 1 && pt_tensor_device(items[0].t).type == PT_DEV_META);
    CHECK(pt_tensor_dtype(items[0].t) == PT_FLOAT64);
    pt_stack_clear(&st);

    /* add with an int alpha; a Scalar result */
    CHECK_OK(pt_dispatch_find("aten::add", "Tensor", &op));
    items[0] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = t};
    items[1] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = t};
    items[2] = (pt_ivalue){.tag = PT_IV_INT, .i = 3};
    st.size = 3;
    CHECK_OK(pt_dispatch_call(op, &st));
    CHECK(st.size == 1 && fat(items[0].t, 5) == 20.0f);
    pt_stack_clear(&st);
    CHECK_OK(pt_dispatch_find("aten::_local_scalar_dense", "", &op));
    pt_tensor *one = pt_call_select_int(t, 0, 4);
    items[0] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = one};
    st.size = 1;
    CHECK_OK(pt_dispatch_call(op, &st));
    CHECK(st.size == 1 && items[0].tag == PT_IV_DOUBLE && items[0].d == 4.0);
    pt_stack_clear(&st);
    pt_tensor_release(one);
    pt_tensor_release(t);
}

PT_TEST(ops_boxed_calls_reject_wrong_types_naming_the_argument)
{
    pt_tensor *t = frange(2);
    pt_op *op;
    pt_ivalue items[4];
    pt_stack st = {items, 0, 4};
    CHECK_OK(pt_dispatch_find("aten::view", "", &op));
    items[0] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = t};
    items[1] = (pt_ivalue){.tag = PT_IV_DOUBLE, .d = 1.5};
    st.size = 2;
    CHECK_ERR(pt_dispatch_call(op, &st), PT_ERR_TYPE,
              "aten::view(): argument 'size' (position 2) must be SymInt[], not float");
    CHECK_OK(pt_dispatch_find("aten::fill_", "Scalar", &op));
    items[0] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = t};
    items[1] = (pt_ivalue){.tag = PT_IV_NONE};
    st.size = 2;
    CHECK_ERR(pt_dispatch_call(op, &st), PT_ERR_TYPE, "argument 'value' (position 2)");
    pt_tensor_release(t);
}

/* A boxed-only kernel for view, as a Python kernel is: counts its calls (ctx), answers with a new
 * reference to self. */
static pt_status boxed_view(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                            void *ctx)
{
    PT_UNUSED(op);
    PT_UNUSED(key);
    PT_UNUSED(keyset);
    ++*(int *)ctx;
    pt_tensor *self = stack->items[stack->size - 2].t;
    pt_tensor_retain(self);
    stack->size -= 2;
    stack->items[stack->size++] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = self};
    return PT_OK;
}

PT_TEST(ops_boxed_only_kernel_over_an_op_is_boxed_and_called_by_the_entry_point)
{
    pt_tensor *t = frange(6);
    CHECK(t != NULL);
    int calls = 0;
    pt_registration *r;
    CHECK_OK(pt_dispatch_impl("aten::view", PT_KEY_CPU, boxed_view, &calls,
                              "test_ops.c: boxed view", &r));
    const int64_t shape[2] = {2, 3};
    pt_tensor *v = pt_call_view(t, 2, shape);
    pt_registration_release(r);
    CHECK(calls == 1 && v == t);
    pt_tensor_release(v);
    v = pt_call_view(t, 2, shape); /* the release restored the core's view */
    CHECK(calls == 1 && v != NULL && v != t && pt_tensor_ndim(v) == 2);
    pt_tensor_release(v);
    pt_tensor_release(t);
}

/* Boxed kernels that break the schema's promise about results (ctx picks how). */
static pt_status bad_results(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                             void *ctx)
{
    PT_UNUSED(op);
    PT_UNUSED(key);
    PT_UNUSED(keyset);
    pt_tensor *self = stack->items[stack->size - 2].t;
    stack->size -= 2;
    if (*(int *)ctx == 0) {
        stack->items[stack->size++] = (pt_ivalue){.tag = PT_IV_DOUBLE, .d = 1.0};
    } else {
        pt_tensor_retain(self);
        pt_tensor_retain(self);
        stack->items[stack->size++] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = self};
        stack->items[stack->size++] = (pt_ivalue){.tag = PT_IV_TENSOR, .t = self};
    }
    return PT_OK;
}

PT_TEST(ops_boxed_kernel_with_wrong_results_fails_and_releases_them)
{
    pt_tensor *t = frange(2);
    CHECK(t != NULL);
    const int64_t refs = pt_tensor_refcount(t);
    int mode = 0;
    pt_registration *r;
    CHECK_OK(pt_dispatch_impl("aten::view", PT_KEY_CPU, bad_results, &mode,
                              "test_ops.c: bad results", &r));
    const int64_t shape[1] = {2};
    pt_tensor *v = pt_call_view(t, 1, shape);
    const int code0 = pt_error_code();
    char msg0[256];
    snprintf(msg0, sizeof msg0, "%s", pt_error_message());
    mode = 1;
    pt_tensor *w = pt_call_view(t, 1, shape);
    pt_registration_release(r);
    CHECK(v == NULL && code0 == PT_ERR_RUNTIME);
    CHECK(strstr(msg0, "aten::view(): result 0 of the kernel is float, expected Tensor"));
    CHECK(w == NULL && strstr(pt_error_message(), "returned 2 values, the schema declares 1"));
    CHECK(pt_tensor_refcount(t) == refs);
    pt_tensor_release(t);
}
