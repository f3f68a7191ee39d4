/* The dispatcher: key priority, PyTorch's rules for filling slots from alias keys, fallbacks,
 * fallthroughs, newest-first registrations, impl before def, def release, the thread-local key
 * sets, key extraction from every kind of tensor argument, the error texts, and calls racing with
 * registrations. Each test uses its own operator names (entries live for the process) and
 * releases what it registers. Kernels here append a label to a per-thread trace; leaf kernels pop
 * their arguments and push one int, pass-on kernels redispatch below their key. */
#include "pt_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define BIT(k) ((uint64_t)1 << (k))

static _Thread_local char trace[256];
static _Thread_local int32_t last_key;

static void trace_add(const char *label)
{
    size_t n = strlen(trace);
    snprintf(trace + n, sizeof trace - n, "%s%s", n ? " " : "", label);
}

/* A leaf kernel: ctx is its label. */
static pt_status leaf(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack, void *ctx)
{
    PT_UNUSED(keyset);
    trace_add(ctx);
    last_key = key;
    stack->size -= pt_schema_num_arguments(pt_op_schema(op));
    stack->items[stack->size++] = (pt_ivalue){.tag = PT_IV_INT, .i = 42};
    return PT_OK;
}

/* A layer above the backends (Python, Autograd): notes itself and passes the call on. */
static pt_status pass_on(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack, void *ctx)
{
    trace_add(ctx);
    return pt_dispatch_redispatch(op, key, keyset, stack);
}

/* A BackendSelect kernel for `f(int n, Device? device=None)`: the device argument picks the key. */
static pt_status select_backend(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                void *ctx)
{
    trace_add(ctx);
    const pt_ivalue *device = &stack->items[stack->size - 1];
    int32_t type = device->tag == PT_IV_DEVICE ? device->device.type : PT_DEV_CPU;
    return pt_dispatch_redispatch(op, key, keyset | BIT(type), stack);
}

static pt_tensor *cpu_tensor, *meta_tensor;
static pt_tensor cuda_tensor; /* a CPU tensor's metadata with the CUDA device: only keys are read */

static int make_tensors(void)
{
    if (cpu_tensor) return 1;
    int64_t size = 2;
    if (pt_tensor_empty(1, &size, PT_FLOAT32, (pt_device){PT_DEV_CPU, 0}, &cpu_tensor) != PT_OK)
        return 0;
    if (pt_tensor_empty(1, &size, PT_FLOAT32, (pt_device){PT_DEV_META, 0}, &meta_tensor) != PT_OK)
        return 0;
    cuda_tensor = *cpu_tensor;
    cuda_tensor.device = (pt_device){PT_DEV_CUDA, 0};
    return 1;
}

static pt_ivalue T(pt_tensor *t)
{
    return (pt_ivalue){.tag = t ? PT_IV_TENSOR : PT_IV_NONE, .t = t};
}
static pt_ivalue I(int64_t i) { return (pt_ivalue){.tag = PT_IV_INT, .i = i}; }

/* Calls op with n arguments; returns the trace, or "error: <message>". */
static const char *call(const pt_op *op, int32_t n, const pt_ivalue *args)
{
    static _Thread_local char out[1200];
    pt_ivalue items[8];
    memcpy(items, args, (size_t)n * sizeof *items);
    pt_stack stack = {items, n, 8};
    trace[0] = '\0';
    if (pt_dispatch_call(op, &stack) != PT_OK) {
        snprintf(out, sizeof out, "error: %s", pt_error_message());
        return out;
    }
    if (stack.size != 1 || items[0].tag != PT_IV_INT) return "error: bad stack after the call";
    return trace;
}
#define CALL1(op, a) call((op), 1, (const pt_ivalue[]){a})

static pt_op *define(const char *schema, pt_registration **reg)
{
    if (pt_dispatch_def(schema, "def in tests/c/test_dispatch.c", reg) != PT_OK) return NULL;
    pt_schema *s;
    if (pt_schema_parse(schema, &s) != PT_OK) return NULL;
    pt_op *op = NULL;
    char name[128];
    snprintf(name, sizeof name, "%s", pt_schema_name(s));
    const char *overload = pt_schema_overload(s);
    pt_dispatch_find(name, overload, &op);
    pt_schema_release(s);
    return op;
}

static pt_registration *impl(const char *op, int32_t key, pt_boxed_fn fn, const char *label)
{
    pt_registration *r = NULL;
    char debug[64];
    snprintf(debug, sizeof debug, "impl %s", label);
    if (pt_dispatch_impl(op, key, fn, (void *)label, debug, &r) != PT_OK) return NULL;
    return r;
}

static const char *dump(const char *op)
{
    const char *text = "";
    if (pt_dispatch_dump(op, &text) != PT_OK) return "";
    return text;
}

static void release_all(pt_registration **regs, int n)
{
    for (int i = n - 1; i >= 0; i--) pt_registration_release(regs[i]);
}

/* ---------------------------------------------------------------- keys */

PT_TEST(dispatch_key_names_round_trip)
{
    static const char *const names[] = {"CPU",         "CUDA",         "Meta",
                                        "BackendSelect", "Python",     "Conjugate",
                                        "Negative",    "AutogradCPU",  "AutogradCUDA",
                                        "AutogradMeta"};
    for (int32_t k = 0; k < PT_KEY_COUNT; k++) {
        CHECK(strcmp(pt_dispatch_key_name(k), names[k]) == 0);
        int32_t back = -2;
        CHECK_OK(pt_dispatch_key_from_name(names[k], &back));
        CHECK(back == k);
    }
    int32_t key;
    CHECK_OK(pt_dispatch_key_from_name("Autograd", &key));
    CHECK(key == PT_KEY_AUTOGRAD);
    CHECK_OK(pt_dispatch_key_from_name("CompositeImplicitAutograd", &key));
    CHECK(key == PT_KEY_COMPOSITE_IMPLICIT_AUTOGRAD);
    CHECK_OK(pt_dispatch_key_from_name("CompositeExplicitAutograd", &key));
    CHECK(key == PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD);
    CHECK(strcmp(pt_dispatch_key_name(PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD),
                 "CompositeExplicitAutograd") == 0);
    CHECK(pt_dispatch_key_name(PT_KEY_COUNT) == NULL);
    CHECK(pt_dispatch_key_name(35) == NULL);
    CHECK(pt_dispatch_key_name(PT_KEY_NONE) == NULL);
    CHECK_ERR(pt_dispatch_key_from_name("XLA", &key), PT_ERR_VALUE, "unknown dispatch key 'XLA'");
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_find("dispatch_key", "AutogradMeta", &e));
    CHECK(strstr(e.help, "runtime key 9"));
    int32_t n = 0;
    CHECK_OK(pt_registry_size("dispatch_key", &n));
    CHECK(n == 13);
}

PT_TEST(dispatch_invalid_keys_names_and_kernels_are_refused)
{
    pt_registration *r = NULL;
    CHECK_ERR(pt_dispatch_impl("tdk::bad", 17, leaf, NULL, "", &r), PT_ERR_VALUE,
              "impl: 17 is not a dispatch key for 'tdk::bad'");
    const char *not_a_key = "not a dispatch key";
    CHECK_ERR(pt_dispatch_impl("tdk::bad", 35, leaf, NULL, "", &r), PT_ERR_VALUE, not_a_key);
    CHECK_ERR(pt_dispatch_impl("tdk::bad", -2, leaf, NULL, "", &r), PT_ERR_VALUE, not_a_key);
    CHECK_ERR(pt_dispatch_impl_fallthrough("tdk::bad", PT_KEY_COUNT, "", &r), PT_ERR_VALUE,
              not_a_key);
    CHECK_ERR(pt_dispatch_fallback(PT_KEY_AUTOGRAD, leaf, NULL, "", &r), PT_ERR_VALUE,
              "fallback: 32 is not a runtime dispatch key");
    CHECK_ERR(pt_dispatch_fallback(PT_KEY_NONE, leaf, NULL, "", &r), PT_ERR_VALUE,
              "not a runtime dispatch key");
    CHECK_ERR(pt_dispatch_impl("tdk::bad name", PT_KEY_CPU, leaf, NULL, "", &r), PT_ERR_VALUE,
              "'tdk::bad name' is not an operator name");
    CHECK_ERR(pt_dispatch_impl("tdk::bad.", PT_KEY_CPU, leaf, NULL, "", &r), PT_ERR_VALUE,
              "is not an operator name");
    CHECK_ERR(pt_dispatch_impl("::bad", PT_KEY_CPU, leaf, NULL, "", &r), PT_ERR_VALUE,
              "is not an operator name");
    CHECK_ERR(pt_dispatch_impl("tdk::bad", PT_KEY_CPU, NULL, NULL, "", &r), PT_ERR_VALUE,
              "the boxed kernel for 'tdk::bad' is NULL");
    CHECK_ERR(pt_dispatch_def("tdk::bad(Tensor x) -> Tensor", "", NULL), PT_ERR_VALUE, "NULL");
    CHECK(r == NULL);
}

/* ---------------------------------------------------------------- priority, missing kernels */

PT_TEST(dispatch_highest_priority_key_wins_and_missing_names_the_backends)
{
    CHECK(make_tensors());
    pt_registration *regs[4];
    pt_op *op = define("tdp::prio(Tensor[] xs) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tdp::prio", PT_KEY_CPU, leaf, "cpu")));
    CHECK((regs[2] = impl("tdp::prio", PT_KEY_META, leaf, "meta")));
    pt_tensor *both[] = {cpu_tensor, meta_tensor}, *cpu_cuda[] = {cpu_tensor, &cuda_tensor};
    pt_ivalue list = {.tag = PT_IV_TENSOR_LIST, .len = 1, .tensors = both};
    CHECK(strcmp(CALL1(op, list), "cpu") == 0);
    CHECK(last_key == PT_KEY_CPU);
    list.len = 2;
    CHECK(strcmp(CALL1(op, list), "meta") == 0);
    CHECK(last_key == PT_KEY_META);
    list.tensors = cpu_cuda;
    const char *msg = CALL1(op, list);
    CHECK(strstr(msg, "error: Could not run 'tdp::prio' with arguments from the 'CUDA' backend. "
                      "This could be because the operator doesn't exist for this backend"));
    CHECK(strstr(msg, "'tdp::prio' is only available for these backends: [CPU, Meta, "
                      "BackendSelect, Python, Conjugate, Negative, AutogradCPU, AutogradCUDA, "
                      "AutogradMeta]."));
    CHECK(strstr(msg, "\n\nCPU: impl cpu [kernel]\nMeta: impl meta [kernel]\n"));
    CHECK(pt_error_code() == PT_ERR_NOT_IMPLEMENTED);
    CHECK(strcmp(pt_error_file(), "csrc/core/dispatch_table.c") == 0);
    /* No tensors and nothing for the empty key set: PyTorch's "no tensor arguments" text. */
    list.len = 0;
    msg = CALL1(op, list);
    CHECK(strstr(msg, "error: There were no tensor arguments to this function (e.g., you passed an "
                      "empty list of Tensors), but no fallback function is registered for schema "
                      "tdp::prio.  This usually means"));
    CHECK(strstr(msg, "Available functions are [CPU, Meta, BackendSelect"));
    release_all(regs, 3);
}

/* ---------------------------------------------------------------- alias keys */

/* The computed-table line for one key in the dump, e.g. "CPU: impl a [kernel]". */
static int has_line(const char *op, const char *line)
{
    char needle[256];
    snprintf(needle, sizeof needle, "\n%s\n", line);
    return strstr(dump(op), needle) != NULL;
}

PT_TEST(dispatch_composite_implicit_fills_backends_autograd_and_the_empty_key_set)
{
    CHECK(make_tensors());
    pt_registration *regs[2];
    pt_op *op = define("tda::ci(Tensor? x) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tda::ci", PT_KEY_NONE, leaf, "math")));
    const char *name = "tda::ci";
    CHECK(has_line(name, "Undefined: impl math [math kernel]"));
    CHECK(has_line(name, "CPU: impl math [math kernel]"));
    CHECK(has_line(name, "CUDA: impl math [math kernel]"));
    CHECK(has_line(name, "Meta: impl math [math kernel]"));
    CHECK(has_line(name, "AutogradCPU: impl math [math kernel]"));
    CHECK(has_line(name, "AutogradMeta: impl math [math kernel]"));
    CHECK(strstr(dump(name), "\nBackendSelect: fallthrough registered at csrc/core/dispatch.c:"));
    CHECK(strstr(dump(name), "[backend fallback]\nPython: fallthrough registered at"));
    CHECK(strstr(dump(name), "\n  CompositeImplicitAutograd[alias]: impl math [ boxed ]\n"));
    CHECK(strcmp(CALL1(op, T(&cuda_tensor)), "math") == 0);
    CHECK(last_key == PT_KEY_CUDA);
    CHECK(strcmp(CALL1(op, T(NULL)), "math") == 0); /* no tensors: the Undefined slot */
    CHECK(last_key == PT_KEY_NONE);
    release_all(regs, 2);
}

PT_TEST(dispatch_backend_kernel_keeps_math_out_of_its_own_autograd_slot)
{
    CHECK(make_tensors());
    pt_registration *regs[3];
    pt_op *op = define("tda::cib(Tensor x) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tda::cib", PT_KEY_COMPOSITE_IMPLICIT_AUTOGRAD, leaf, "math")));
    CHECK((regs[2] = impl("tda::cib", PT_KEY_CPU, leaf, "cpu")));
    CHECK(has_line("tda::cib", "CPU: impl cpu [kernel]"));
    CHECK(has_line("tda::cib", "CUDA: impl math [math kernel]"));
    CHECK(strstr(dump("tda::cib"), "\nAutogradCPU: autograd fallback: the derivative is not "
                                   "implemented (csrc/autograd/variable.c) [backend fallback]"));
    CHECK(has_line("tda::cib", "AutogradCUDA: impl math [math kernel]"));
    CHECK(strstr(dump("tda::cib"), "fallthrough keys: [BackendSelect, Python]\n"));
    /* With its autograd key included, a CPU call falls through AutogradCPU to the CPU kernel; a
     * CUDA call with AutogradCUDA included runs the decomposition at the autograd layer. (Key
     * sets are flat: an included autograd key applies to every call of the thread.) */
    pt_dispatch_tls_set(BIT(PT_KEY_AUTOGRAD_CPU), 0);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "cpu") == 0);
    CHECK(last_key == PT_KEY_CPU);
    pt_dispatch_tls_set(BIT(PT_KEY_AUTOGRAD_CUDA), 0);
    CHECK(strcmp(CALL1(op, T(&cuda_tensor)), "math") == 0);
    CHECK(last_key == PT_KEY_AUTOGRAD_CUDA);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "math") == 0);
    pt_dispatch_tls_set(0, 0);
    release_all(regs, 3);
}

PT_TEST(dispatch_composite_explicit_fills_backends_only)
{
    pt_registration *regs[3];
    CHECK(define("tda::ce(Tensor x) -> Tensor", &regs[0]));
    CHECK((regs[1] = impl("tda::ce", PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD, leaf, "explicit")));
    const char *name = "tda::ce";
    CHECK(has_line(name, "Undefined: impl explicit [default backend kernel]"));
    CHECK(has_line(name, "CPU: impl explicit [default backend kernel]"));
    CHECK(has_line(name, "CUDA: impl explicit [default backend kernel]"));
    CHECK(has_line(name, "Meta: impl explicit [default backend kernel]"));
    CHECK(strstr(dump(name), "\nAutogradCPU: autograd fallback"));
    /* A CompositeImplicitAutograd kernel beside it fills nothing: explicit wins the backends,
     * and the autograd keys keep their fallbacks. */
    CHECK((regs[2] = impl(name, PT_KEY_NONE, leaf, "math")));
    CHECK(has_line(name, "Undefined: impl explicit [default backend kernel]"));
    CHECK(has_line(name, "CPU: impl explicit [default backend kernel]"));
    CHECK(strstr(dump(name), "\nAutogradMeta: autograd fallback"));
    CHECK(!strstr(dump(name), "[math kernel]"));
    release_all(regs, 3);
}

PT_TEST(dispatch_autograd_alias_fills_autograd_keys_after_the_math_rule)
{
    pt_registration *regs[4];
    const char *name = "tda::ag";
    CHECK(define("tda::ag(Tensor x) -> Tensor", &regs[0]));
    CHECK((regs[1] = impl(name, PT_KEY_AUTOGRAD, leaf, "ag")));
    CHECK(has_line(name, "AutogradCPU: impl ag [autograd kernel]"));
    CHECK(has_line(name, "AutogradCUDA: impl ag [autograd kernel]"));
    CHECK(has_line(name, "AutogradMeta: impl ag [autograd kernel]"));
    CHECK(has_line(name, "CPU: missing"));
    CHECK(has_line(name, "Undefined: missing"));
    /* Autograd + CompositeImplicitAutograd: math wins every autograd slot... */
    CHECK((regs[2] = impl(name, PT_KEY_NONE, leaf, "math")));
    CHECK(has_line(name, "AutogradCPU: impl math [math kernel]"));
    CHECK(has_line(name, "AutogradCUDA: impl math [math kernel]"));
    /* ...except the one whose backend has its own kernel. */
    CHECK((regs[3] = impl(name, PT_KEY_CUDA, leaf, "cuda")));
    CHECK(has_line(name, "CUDA: impl cuda [kernel]"));
    CHECK(has_line(name, "AutogradCUDA: impl ag [autograd kernel]"));
    CHECK(has_line(name, "AutogradCPU: impl math [math kernel]"));
    release_all(regs, 4);

    /* CompositeExplicitAutograd + Autograd + AutogradCPU (PyTorch's case h). */
    name = "tda::ag2";
    CHECK(define("tda::ag2(Tensor x) -> Tensor", &regs[0]));
    CHECK((regs[1] = impl(name, PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD, leaf, "explicit")));
    CHECK((regs[2] = impl(name, PT_KEY_AUTOGRAD, leaf, "ag")));
    CHECK((regs[3] = impl(name, PT_KEY_AUTOGRAD_CPU, leaf, "agcpu")));
    CHECK(has_line(name, "AutogradCPU: impl agcpu [kernel]"));
    CHECK(has_line(name, "AutogradCUDA: impl ag [autograd kernel]"));
    CHECK(has_line(name, "CPU: impl explicit [default backend kernel]"));
    release_all(regs, 4);
}

PT_TEST(dispatch_backend_select_kernel_picks_the_backend_of_calls_without_tensors)
{
    pt_registration *regs[5];
    pt_op *op = define("tdb::factory(int n, Device? device=None) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tdb::factory", PT_KEY_CPU, leaf, "cpu")));
    CHECK((regs[2] = impl("tdb::factory", PT_KEY_META, leaf, "meta")));
    /* Without a BackendSelect kernel nothing reaches a backend. */
    const char *msg = call(op, 2, (const pt_ivalue[]){I(3), T(NULL)});
    CHECK(strstr(msg, "There were no tensor arguments to this function"));
    CHECK((regs[3] = impl("tdb::factory", PT_KEY_BACKEND_SELECT, select_backend, "select")));
    CHECK(has_line("tdb::factory", "BackendSelect: impl select [kernel]"));
    CHECK(strcmp(call(op, 2, (const pt_ivalue[]){I(3), T(NULL)}), "select cpu") == 0);
    pt_ivalue meta = {.tag = PT_IV_DEVICE, .device = {PT_DEV_META, 0}};
    CHECK(strcmp(call(op, 2, (const pt_ivalue[]){I(3), meta}), "select meta") == 0);
    CHECK(last_key == PT_KEY_META);
    /* Excluding BackendSelect leaves the empty key set again. */
    pt_dispatch_tls_set(0, BIT(PT_KEY_BACKEND_SELECT));
    CHECK(strstr(call(op, 2, (const pt_ivalue[]){I(3), meta}), "no tensor arguments"));
    pt_dispatch_tls_set(0, 0);
    release_all(regs, 4);
}

/* ---------------------------------------------------------------- fallbacks and fallthrough */

PT_TEST(dispatch_fallback_fills_slots_without_kernels_and_release_restores)
{
    CHECK(make_tensors());
    pt_registration *regs[4];
    pt_op *op = define("tdf::fb(Tensor x) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tdf::fb", PT_KEY_CPU, leaf, "cpu")));
    CHECK(strstr(CALL1(op, T(meta_tensor)),
                 "Could not run 'tdf::fb' with arguments from the 'Meta'"));
    CHECK_OK(pt_dispatch_fallback(PT_KEY_META, leaf, (void *)"meta fallback", "fb meta", &regs[2]));
    CHECK(strcmp(CALL1(op, T(meta_tensor)), "meta fallback") == 0);
    CHECK(has_line("tdf::fb", "Meta: fb meta [backend fallback]"));
    CHECK(has_line("tdf::fb", "CPU: impl cpu [kernel]"));
    /* A newer fallback overrides the built-in Python fallthrough; its release restores it. */
    CHECK_OK(pt_dispatch_fallback(PT_KEY_PYTHON, pass_on, (void *)"py", "fb python", &regs[3]));
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "cpu") == 0); /* Python is in no tensor's keys */
    pt_dispatch_tls_set(BIT(PT_KEY_PYTHON), 0);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "py cpu") == 0);
    CHECK(strcmp(CALL1(op, T(meta_tensor)), "py meta fallback") == 0);
    pt_registration_release(regs[3]);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "cpu") == 0);
    CHECK(strstr(dump("tdf::fb"), "\nPython: fallthrough registered at csrc/core/dispatch.c:"));
    pt_dispatch_tls_set(0, 0);
    pt_registration_release(regs[2]);
    CHECK(strstr(CALL1(op, T(meta_tensor)), "Could not run 'tdf::fb'"));
    CHECK(has_line("tdf::fb", "Meta: missing"));
    release_all(regs, 2);
}

PT_TEST(dispatch_fallthrough_skips_its_key_per_op_and_as_a_fallback)
{
    CHECK(make_tensors());
    pt_registration *regs[6];
    pt_op *op = define("tdf::ft(Tensor a, Tensor b) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tdf::ft", PT_KEY_CPU, leaf, "cpu")));
    CHECK((regs[2] = impl("tdf::ft", PT_KEY_PYTHON, pass_on, "py")));
    pt_dispatch_tls_set(BIT(PT_KEY_PYTHON), 0);
    const pt_ivalue args[] = {T(cpu_tensor), T(cpu_tensor)};
    CHECK(strcmp(call(op, 2, args), "py cpu") == 0);
    /* A per-op fallthrough at Python, newer than the Python kernel, removes the key from this op's
     * key sets; its release brings the kernel back. */
    CHECK_OK(pt_dispatch_impl_fallthrough("tdf::ft", PT_KEY_PYTHON, "ft python", &regs[3]));
    CHECK(strcmp(call(op, 2, args), "cpu") == 0);
    uint64_t ks = 0;
    pt_stack stack = {(pt_ivalue *)args, 2, 2};
    CHECK_OK(pt_dispatch_keyset(op, &stack, &ks));
    CHECK(ks == BIT(PT_KEY_CPU));
    CHECK(strstr(dump("tdf::ft"), "fallthrough keys: [BackendSelect, Python]"));
    CHECK(strstr(dump("tdf::ft"),
                 "\n  Python: fallthrough ft python [ ]\n  Python (inactive): impl py"));
    pt_registration_release(regs[3]);
    CHECK(strcmp(call(op, 2, args), "py cpu") == 0);
    pt_dispatch_tls_set(0, 0);
    /* A fallthrough fallback at Meta: a meta tensor beside a CPU one reaches the CPU kernel. */
    const pt_ivalue mixed[] = {T(meta_tensor), T(cpu_tensor)};
    CHECK(strstr(call(op, 2, mixed), "Could not run 'tdf::ft' with arguments from the 'Meta'"));
    CHECK_OK(pt_dispatch_fallback(PT_KEY_META, NULL, NULL, "ft meta", &regs[3]));
    CHECK(strcmp(call(op, 2, mixed), "cpu") == 0);
    CHECK(has_line("tdf::ft", "Meta: fallthrough ft meta [backend fallback]"));
    /* A kernel of the op's own at Meta beats the fallthrough fallback. */
    CHECK((regs[4] = impl("tdf::ft", PT_KEY_META, leaf, "meta")));
    CHECK(strcmp(call(op, 2, mixed), "meta") == 0);
    pt_registration_release(regs[4]);
    pt_registration_release(regs[3]);
    CHECK(strstr(call(op, 2, mixed), "Could not run"));
    release_all(regs, 3);
}

PT_TEST(dispatch_reregistration_overrides_and_release_restores_the_older_kernel)
{
    CHECK(make_tensors());
    pt_registration *regs[4];
    pt_op *op = define("tdr::rr(Tensor x) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tdr::rr", PT_KEY_CPU, leaf, "first")));
    CHECK((regs[2] = impl("tdr::rr", PT_KEY_CPU, leaf, "second")));
    CHECK((regs[3] = impl("tdr::rr", PT_KEY_CPU, leaf, "third")));
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "third") == 0);
    CHECK(strstr(dump("tdr::rr"), "\n  CPU: impl third [ boxed ]\n  CPU (inactive): impl second "
                                  "[ boxed ]\n  CPU (inactive): impl first [ boxed ]\n"));
    pt_registration_release(regs[2]); /* an inactive one: nothing changes for calls */
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "third") == 0);
    pt_registration_release(regs[3]);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "first") == 0);
    pt_registration_release(regs[1]);
    CHECK(strstr(CALL1(op, T(cpu_tensor)),
                 "Could not run 'tdr::rr' with arguments from the 'CPU'"));
    pt_registration_release(regs[0]);
    pt_registration_release(NULL);
}

/* ---------------------------------------------------------------- def and impl order */

PT_TEST(dispatch_impl_may_come_before_def)
{
    CHECK(make_tensors());
    pt_registration *regs[2];
    CHECK((regs[0] = impl("tdd::late.overload", PT_KEY_CPU, leaf, "cpu")));
    pt_op *op = NULL;
    CHECK_ERR(pt_dispatch_find("tdd::late", "overload", &op), PT_ERR_RUNTIME,
              "Could not find schema for tdd::late.overload");
    CHECK(strstr(dump("tdd::late.overload"), "name: tdd::late.overload\nschema: (no schema)\n"));
    CHECK(has_line("tdd::late.overload", "CPU: impl cpu [kernel]"));
    CHECK((op = define("tdd::late.overload(Tensor self) -> Tensor", &regs[1])));
    CHECK(strcmp(pt_op_name(op), "tdd::late.overload") == 0);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "cpu") == 0);
    pt_op *again = NULL;
    CHECK_OK(pt_dispatch_find("tdd::late.overload", NULL, &again));
    CHECK(again == op);
    release_all(regs, 2);
}

PT_TEST(dispatch_def_release_drops_the_schema_and_keeps_the_kernels)
{
    CHECK(make_tensors());
    int32_t before = pt_dispatch_op_count();
    pt_registration *regs[4];
    pt_op *a = define("tdd::first(Tensor x) -> Tensor", &regs[0]);
    pt_op *b = define("tdd::second(Tensor x) -> Tensor", &regs[1]);
    CHECK(a && b);
    CHECK((regs[2] = impl("tdd::first", PT_KEY_CPU, leaf, "cpu")));
    CHECK(pt_dispatch_op_count() == before + 2);
    pt_op *at = NULL;
    CHECK_OK(pt_dispatch_op_at(before, &at));
    CHECK(at == a);
    CHECK_OK(pt_dispatch_op_at(before + 1, &at));
    CHECK(at == b);
    CHECK_ERR(pt_dispatch_op_at(before + 2, &at), PT_ERR_INDEX, "out of range");
    CHECK(pt_op_variants(a) == PT_VARIANT_FUNCTION);
    pt_op_set_variants(a, PT_VARIANT_FUNCTION | PT_VARIANT_METHOD);
    CHECK(pt_op_variants(a) == (PT_VARIANT_FUNCTION | PT_VARIANT_METHOD));
    CHECK(strstr(dump("tdd::first"), "\nvariants: function, method\n"));

    pt_registration_release(regs[0]);
    CHECK(pt_op_schema(a) == NULL);
    CHECK(pt_dispatch_op_count() == before + 1);
    CHECK_OK(pt_dispatch_op_at(before, &at));
    CHECK(at == b);
    CHECK_ERR(pt_dispatch_find("tdd::first", "", &at), PT_ERR_RUNTIME,
              "Could not find schema for tdd::first");
    CHECK(strstr(CALL1(a, T(cpu_tensor)), "Could not find schema for tdd::first"));
    CHECK(strstr(dump("tdd::first"), "schema: (no schema)"));
    CHECK(has_line("tdd::first", "CPU: impl cpu [kernel]"));
    /* A new def finds the kernels waiting; it is listed after the others. */
    CHECK(define("tdd::first(Tensor y) -> Tensor", &regs[0]) == a);
    CHECK(strcmp(CALL1(a, T(cpu_tensor)), "cpu") == 0);
    CHECK_OK(pt_dispatch_op_at(before + 1, &at));
    CHECK(at == a);
    release_all(regs, 3);
    CHECK(pt_dispatch_op_count() == before);
}

PT_TEST(dispatch_duplicate_def_names_both_registrations)
{
    pt_registration *r1 = NULL, *r2 = NULL;
    CHECK_OK(pt_dispatch_def("tdd::dup.bar(Tensor x) -> Tensor", "registered at a.py:1", &r1));
    CHECK_ERR(pt_dispatch_def("tdd::dup.bar(Tensor y) -> Tensor", "registered at b.py:2", &r2),
              PT_ERR_RUNTIME,
              "Tried to register an operator (tdd::dup.bar(Tensor y) -> Tensor) with the same name "
              "and overload name multiple times. Each overload's schema should only be registered "
              "with a single call to def(). Duplicate registration: registered at b.py:2. Original "
              "registration: registered at a.py:1");
    CHECK(r2 == NULL);
    /* The default namespace is aten, with or without it written. */
    CHECK_OK(pt_dispatch_def("tdd_nameless_op(Tensor x) -> Tensor", "one", &r2));
    pt_registration *r3 = NULL;
    CHECK_ERR(pt_dispatch_def("aten::tdd_nameless_op(Tensor x) -> Tensor", "two", &r3),
              PT_ERR_RUNTIME, "(aten::tdd_nameless_op(Tensor x) -> Tensor)");
    pt_op *op = NULL;
    CHECK_OK(pt_dispatch_find("tdd_nameless_op", "", &op));
    CHECK(strcmp(pt_op_name(op), "aten::tdd_nameless_op") == 0);
    CHECK(strstr(dump("aten::tdd_nameless_op"), "schema: aten::tdd_nameless_op(Tensor x)"));
    pt_registration_release(r2);
    pt_registration_release(r1);
}

/* ---------------------------------------------------------------- key sets */

PT_TEST(dispatch_tls_include_and_exclude_steer_the_call)
{
    CHECK(make_tensors());
    pt_registration *regs[4];
    pt_op *op = define("tdt::tls(Tensor x) -> Tensor", &regs[0]);
    CHECK(op);
    CHECK((regs[1] = impl("tdt::tls", PT_KEY_CPU, leaf, "cpu")));
    CHECK((regs[2] = impl("tdt::tls", PT_KEY_PYTHON, pass_on, "py")));
    CHECK((regs[3] = impl("tdt::tls", PT_KEY_META, leaf, "meta")));
    CHECK(pt_dispatch_tls_included() == 0 && pt_dispatch_tls_excluded() == 0);
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "cpu") == 0);
    pt_dispatch_tls_set(BIT(PT_KEY_PYTHON) | ((uint64_t)1 << 40), 0);
    CHECK(pt_dispatch_tls_included() == BIT(PT_KEY_PYTHON)); /* bits past the keys are dropped */
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "py cpu") == 0);
    /* Excluded beats included. */
    pt_dispatch_tls_set(BIT(PT_KEY_PYTHON), BIT(PT_KEY_PYTHON));
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "cpu") == 0);
    /* Excluding a backend: the included Meta key is all that is left. */
    pt_dispatch_tls_set(BIT(PT_KEY_META), BIT(PT_KEY_CPU));
    CHECK(strcmp(CALL1(op, T(cpu_tensor)), "meta") == 0);
    pt_dispatch_tls_set(0, BIT(PT_KEY_CPU));
    CHECK(strstr(CALL1(op, T(cpu_tensor)), "There were no tensor arguments"));
    CHECK(pt_dispatch_compute_keyset(op, BIT(PT_KEY_CPU) | BIT(PT_KEY_META)) == BIT(PT_KEY_META));
    pt_dispatch_tls_set(0, 0);
    /* The sets are per thread. */
    CHECK(pt_dispatch_compute_keyset(op, BIT(PT_KEY_CPU)) == BIT(PT_KEY_CPU));
    release_all(regs, 4);
}

static void *read_tls(void *arg)
{
    *(uint64_t *)arg = pt_dispatch_tls_included() | pt_dispatch_tls_excluded();
    return NULL;
}

PT_TEST(dispatch_tls_sets_belong_to_their_thread)
{
    pt_dispatch_tls_set(BIT(PT_KEY_PYTHON), BIT(PT_KEY_META));
    uint64_t seen = 99;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, read_tls, &seen) == 0);
    pthread_join(t, NULL);
    pt_dispatch_tls_set(0, 0);
    CHECK(seen == 0);
}

PT_TEST(dispatch_keys_come_from_every_kind_of_tensor_argument)
{
    CHECK(make_tensors());
    pt_registration *reg;
    pt_op *op = define("tdt::keys(int n, Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, "
                       "Tensor[]? e) -> Tensor",
                       &reg);
    CHECK(op);
    pt_tensor *none[] = {NULL, NULL}, *metas[] = {NULL, meta_tensor}, *cudas[] = {&cuda_tensor};
    pt_ivalue args[6] = {I(1), T(cpu_tensor), T(NULL), {.tag = PT_IV_TENSOR_LIST, .len = 0},
                         {.tag = PT_IV_OPT_TENSOR_LIST, .len = 2, .tensors = none}, T(NULL)};
    pt_stack stack = {args, 6, 6};
    const uint64_t bs = BIT(PT_KEY_BACKEND_SELECT);
    uint64_t ks = 0;
    CHECK_OK(pt_dispatch_keyset(op, &stack, &ks));
    CHECK(ks == BIT(PT_KEY_CPU)); /* BackendSelect is included and then dropped (fallthrough) */
    args[2] = T(meta_tensor);
    CHECK_OK(pt_dispatch_keyset(op, &stack, &ks));
    CHECK(ks == (BIT(PT_KEY_CPU) | BIT(PT_KEY_META)));
    args[2] = T(NULL);
    args[4].tensors = metas;
    CHECK_OK(pt_dispatch_keyset(op, &stack, &ks));
    CHECK(ks == (BIT(PT_KEY_CPU) | BIT(PT_KEY_META)));
    args[3] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .len = 1, .tensors = cudas};
    CHECK_OK(pt_dispatch_keyset(op, &stack, &ks));
    CHECK(ks == (BIT(PT_KEY_CPU) | BIT(PT_KEY_CUDA) | BIT(PT_KEY_META)));
    args[3].len = 0;
    args[4].tensors = none;
    args[5] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .len = 1, .tensors = cudas};
    CHECK_OK(pt_dispatch_keyset(op, &stack, &ks));
    CHECK(ks == (BIT(PT_KEY_CPU) | BIT(PT_KEY_CUDA)));
    /* Values below the arguments (a caller's own) are not read: only the last six are. */
    pt_ivalue longer[7] = {T(meta_tensor)};
    memcpy(&longer[1], args, sizeof args);
    pt_stack deeper = {longer, 7, 7};
    CHECK_OK(pt_dispatch_keyset(op, &deeper, &ks));
    CHECK(ks == (BIT(PT_KEY_CPU) | BIT(PT_KEY_CUDA)));
    CHECK(!(ks & bs));
    /* Wrong values where the schema says Tensor, and too few values. */
    args[1] = I(3);
    CHECK_ERR(pt_dispatch_keyset(op, &stack, &ks), PT_ERR_TYPE,
              "tdt::keys(): argument 'a' (position 2) must be Tensor, not int");
    args[1] = T(NULL);
    CHECK_ERR(pt_dispatch_keyset(op, &stack, &ks), PT_ERR_TYPE, "must be Tensor, not None");
    args[1] = T(cpu_tensor);
    args[3] = T(NULL);
    CHECK_ERR(pt_dispatch_keyset(op, &stack, &ks), PT_ERR_TYPE,
              "argument 'c' (position 4) must be a list of Tensors, not None");
    stack.size = 5;
    CHECK_ERR(pt_dispatch_keyset(op, &stack, &ks), PT_ERR_RUNTIME,
              "tdt::keys() expected 6 arguments on the stack but found 5");
    CHECK_ERR(pt_dispatch_call(NULL, &stack), PT_ERR_VALUE, "must not be NULL");
    pt_registration_release(reg);
}

PT_TEST(dispatch_slot_and_redispatch_serve_unboxed_entry_points)
{
    CHECK(make_tensors());
    pt_registration *regs[3];
    pt_op *op = define("tdu::un(Tensor x) -> Tensor", &regs[0]);
    CHECK(op);
    static int unboxed_marker;
    CHECK_OK(pt_dispatch_impl_unboxed("tdu::un", PT_KEY_CPU, leaf, &unboxed_marker, (void *)"cpu",
                                      "unboxed cpu", &regs[1]));
    CHECK((regs[2] = impl("tdu::un", PT_KEY_PYTHON, pass_on, "py")));
    int32_t key = -5;
    uint64_t ks = pt_dispatch_compute_keyset(op, pt_tensor_keys(cpu_tensor));
    CHECK(ks == BIT(PT_KEY_CPU));
    const pt_kernel *k = pt_dispatch_slot(op, ks, &key);
    CHECK(key == PT_KEY_CPU && k->unboxed == &unboxed_marker);
    CHECK(strcmp(k->debug, "unboxed cpu") == 0);
    CHECK(strstr(dump("tdu::un"), "\n  CPU: unboxed cpu [ boxed unboxed ]\n"));
    k = pt_dispatch_slot(op, ks | BIT(PT_KEY_PYTHON), &key);
    CHECK(key == PT_KEY_PYTHON && k->unboxed == NULL);
    k = pt_dispatch_slot(op, BIT(PT_KEY_CUDA), &key);
    CHECK(key == PT_KEY_CUDA && k->boxed != NULL && k->unboxed == NULL);
    CHECK_ERR(pt_dispatch_missing(op, PT_KEY_CUDA), PT_ERR_NOT_IMPLEMENTED,
              "Could not run 'tdu::un' with arguments from the 'CUDA' backend");
    k = pt_dispatch_slot(op, 0, &key);
    CHECK(key == PT_KEY_NONE && k->boxed != NULL);
    /* Redispatch looks strictly below the key it is given. */
    pt_ivalue items[2] = {T(cpu_tensor)};
    pt_stack stack = {items, 1, 2};
    trace[0] = '\0';
    CHECK_OK(pt_dispatch_redispatch(op, PT_KEY_META, BIT(PT_KEY_PYTHON) | BIT(PT_KEY_CPU), &stack));
    CHECK(strcmp(trace, "cpu") == 0);
    stack.size = 1;
    items[0] = T(cpu_tensor);
    CHECK_ERR(pt_dispatch_redispatch(op, PT_KEY_CPU, BIT(PT_KEY_CPU), &stack),
              PT_ERR_NOT_IMPLEMENTED, "There were no tensor arguments");
    release_all(regs, 3);
}

/* ---------------------------------------------------------------- threads */

enum { CALLERS = 3, STRESS_MS = 300 };
typedef struct stress_state {
    pt_op *op;
    _Atomic int stop;
    _Atomic long calls, bad;
} stress_state;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static pt_status stress_kernel(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                               void *ctx)
{
    PT_UNUSED(op);
    PT_UNUSED(key);
    PT_UNUSED(keyset);
    stack->items[stack->size - 1] = (pt_ivalue){.tag = PT_IV_INT, .i = (int64_t)(intptr_t)ctx};
    return PT_OK;
}

static void *stress_caller(void *arg)
{
    stress_state *s = arg;
    pt_ivalue items[2];
    while (!atomic_load(&s->stop)) {
        for (int i = 0; i < 64; i++) {
            items[0] = T(cpu_tensor);
            pt_stack stack = {items, 1, 2};
            pt_status st = pt_dispatch_call(s->op, &stack);
            int64_t id = items[0].i;
            if (st != PT_OK || stack.size != 1 || items[0].tag != PT_IV_INT || id < 1 || id > 3)
                atomic_fetch_add(&s->bad, 1);
            atomic_fetch_add(&s->calls, 1);
        }
    }
    return NULL;
}

PT_TEST(dispatch_calls_stay_correct_while_other_threads_register_and_release)
{
    CHECK(make_tensors());
    pt_registration *def, *base, *explicit_;
    stress_state s = {.op = define("tds::stress(Tensor x) -> Tensor", &def)};
    CHECK(s.op);
    CHECK_OK(pt_dispatch_impl("tds::stress", PT_KEY_CPU, stress_kernel, (void *)(intptr_t)1,
                              "base", &base));
    /* Fills the empty key set that a fallthrough at CPU leaves (below). */
    CHECK_OK(pt_dispatch_impl("tds::stress", PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD, stress_kernel,
                              (void *)(intptr_t)3, "explicit", &explicit_));
    pthread_t callers[CALLERS];
    for (int i = 0; i < CALLERS; i++)
        CHECK(pthread_create(&callers[i], NULL, stress_caller, &s) == 0);
    double t0 = now_ms();
    long rounds = 0;
    int failed = 0;
    while (now_ms() - t0 < STRESS_MS && rounds < 20000) {
        pt_registration *over = NULL, *ft = NULL, *fb = NULL;
        failed |= pt_dispatch_impl("tds::stress", PT_KEY_CPU, stress_kernel, (void *)(intptr_t)2,
                                   "override", &over) != PT_OK;
        /* A fallthrough at CPU, newest: calls fall to the empty key set. */
        failed |= pt_dispatch_impl_fallthrough("tds::stress", PT_KEY_CPU, "ft", &ft) != PT_OK;
        /* Fallbacks recompute every entry; a Meta one changes nothing for CPU calls. */
        if (rounds % 16 == 0)
            failed |= pt_dispatch_fallback(PT_KEY_META, stress_kernel, NULL, "fb", &fb) != PT_OK;
        pt_registration_release(ft);
        pt_registration_release(over);
        pt_registration_release(fb);
        rounds++;
    }
    atomic_store(&s.stop, 1);
    for (int i = 0; i < CALLERS; i++) pthread_join(callers[i], NULL);
    CHECK(!failed);
    CHECK(rounds > 10);
    CHECK(atomic_load(&s.calls) > 1000);
    CHECK(atomic_load(&s.bad) == 0);
    const pt_ivalue one[] = {T(cpu_tensor)};
    pt_ivalue items[2] = {one[0]};
    pt_stack stack = {items, 1, 2};
    CHECK_OK(pt_dispatch_call(s.op, &stack));
    CHECK(items[0].tag == PT_IV_INT && items[0].i == 1);
    pt_registration_release(explicit_);
    pt_registration_release(base);
    pt_registration_release(def);
}
