/* boxing.h - what the generated operator code (build/generated/pt_ops.c) and the adapters in
 * csrc/ops share: reading kernel arguments off a boxed stack with type checks, putting results
 * back, the key of a device argument, and the generic BackendSelect kernel. Hidden like the rest
 * of the core.
 *
 * The unbox helpers read argument `i` of the `a` array (the stack's top `nargs` values, in schema
 * order) and fail with PT_ERR_TYPE naming the operator, the argument and what the stack held:
 * "aten::view(): argument 'size' (position 2) must be int[], not Tensor". Values they hand out
 * point into the stack (lists, devices) and are borrowed like the stack's arguments.
 */
#ifndef PT_OPS_BOXING_H
#define PT_OPS_BOXING_H

#include "internal.h"

#define PT_KEY_BIT(k) (((uint64_t)1) << (k))
#define PT_KEYS_BELOW_BACKEND_SELECT (PT_KEY_BIT(PT_KEY_BACKEND_SELECT) - 1)

/* The key set of a Tensor[] / Tensor?[] argument (NULL entries are None). */
static inline uint64_t pt_tensor_list_keys(int32_t n, pt_tensor *const *ts)
{
    uint64_t keys = 0;
    for (int32_t i = 0; i < n; i++) keys |= pt_tensor_keys(ts[i]);
    return keys;
}

/* The backend key of a Device? argument: the CPU's for None. A device type out of range gets the
 * CPU's too; the kernel then rejects the device with its own message. */
static inline uint64_t pt_device_keys(const pt_device *d)
{
    if (!d || d->type < 0 || d->type >= PT_DEV_TYPE_COUNT) return PT_KEY_BIT(PT_KEY_CPU);
    return PT_KEY_BIT(d->type);
}

/* The entry points' refusal of a call they cannot make: the operators are not registered (op is
 * NULL: pt_init has not run, or failed), or a required Tensor argument is NULL. The variadic part
 * is (const char *name, const pt_tensor *value) pairs ending with a NULL name. */
pt_status pt_ops_refuse(const char *op_name, const pt_op *op, ...);

/* Stack shape: at least nargs values, and room for nrets results where the arguments start. */
pt_status pt_box_check_stack(const pt_op *op, const pt_stack *stack, int32_t nargs, int32_t nrets);

pt_status pt_unbox_tensor(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          pt_tensor **out);
pt_status pt_unbox_tensor_list(const pt_op *op, const pt_ivalue *a, int32_t i,
                               int32_t optional_elems, int32_t *n, pt_tensor *const **out);
pt_status pt_unbox_int(const pt_op *op, const pt_ivalue *a, int32_t i, int64_t *out);
pt_status pt_unbox_opt_int(const pt_op *op, const pt_ivalue *a, int32_t i, int64_t *value,
                           const int64_t **out);
pt_status pt_unbox_double(const pt_op *op, const pt_ivalue *a, int32_t i, double *out);
pt_status pt_unbox_opt_double(const pt_op *op, const pt_ivalue *a, int32_t i, double *value,
                              const double **out);
pt_status pt_unbox_bool(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t *out);
/* -1 for None. */
pt_status pt_unbox_opt_bool(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t *out);
/* int[] (tag PT_IV_INT_LIST) or bool[] (PT_IV_BOOL_LIST); n = -1, NULL for None when optional. */
pt_status pt_unbox_int_list(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t tag,
                            int32_t optional, int32_t *n, const int64_t **out);
pt_status pt_unbox_double_list(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                               int32_t *n, const double **out);
/* A Scalar from a bool, int, double or complex value; *out = value, or NULL for None. */
pt_status pt_unbox_scalar(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          pt_scalar *value, const pt_scalar **out);
/* ScalarType / Layout / MemoryFormat (`tag`); an int is accepted too; -1 for None. */
pt_status pt_unbox_enum(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t tag,
                        int32_t optional, int32_t *out);
pt_status pt_unbox_device(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          const pt_device **out);
pt_status pt_unbox_generator(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                             pt_generator **out);
pt_status pt_unbox_string(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          const char **out);

/* Boxing C arguments (borrowed: nothing is retained or copied). None stands for NULL pointers,
 * negative list lengths, and -1 in the optional bool and enum forms. */
static inline void pt_box_none(pt_ivalue *v) { *v = (pt_ivalue){.tag = PT_IV_NONE}; }
static inline void pt_box_tensor(pt_ivalue *v, const pt_tensor *t)
{
    if (t) *v = (pt_ivalue){.tag = PT_IV_TENSOR, .t = (pt_tensor *)t};
    else pt_box_none(v);
}
static inline void pt_box_tensor_list(pt_ivalue *v, int32_t tag, int32_t n, pt_tensor *const *ts)
{
    *v = (pt_ivalue){.tag = tag, .len = n, .tensors = ts};
}
static inline void pt_box_int(pt_ivalue *v, int64_t x)
{
    *v = (pt_ivalue){.tag = PT_IV_INT, .i = x};
}
static inline void pt_box_opt_int(pt_ivalue *v, const int64_t *x)
{
    if (x) pt_box_int(v, *x);
    else pt_box_none(v);
}
static inline void pt_box_double(pt_ivalue *v, double x)
{
    *v = (pt_ivalue){.tag = PT_IV_DOUBLE, .d = x};
}
static inline void pt_box_opt_double(pt_ivalue *v, const double *x)
{
    if (x) pt_box_double(v, *x);
    else pt_box_none(v);
}
static inline void pt_box_bool(pt_ivalue *v, int32_t x)
{
    *v = (pt_ivalue){.tag = PT_IV_BOOL, .i = x != 0};
}
static inline void pt_box_opt_bool(pt_ivalue *v, int32_t x)
{
    if (x >= 0) pt_box_bool(v, x);
    else pt_box_none(v);
}
/* int[] / bool[] (tag) and float[]. */
static inline void pt_box_int_list(pt_ivalue *v, int32_t tag, int32_t n, const int64_t *x)
{
    if (n >= 0) *v = (pt_ivalue){.tag = tag, .len = n, .ints = x};
    else pt_box_none(v);
}
static inline void pt_box_double_list(pt_ivalue *v, int32_t n, const double *x)
{
    if (n >= 0) *v = (pt_ivalue){.tag = PT_IV_DOUBLE_LIST, .len = n, .doubles = x};
    else pt_box_none(v);
}
/* ScalarType / Layout / MemoryFormat (tag). */
static inline void pt_box_enum(pt_ivalue *v, int32_t tag, int32_t x)
{
    if (x >= 0) *v = (pt_ivalue){.tag = tag, .i = x};
    else pt_box_none(v);
}
static inline void pt_box_device(pt_ivalue *v, pt_device d)
{
    *v = (pt_ivalue){.tag = PT_IV_DEVICE, .device = d};
}
static inline void pt_box_opt_device(pt_ivalue *v, const pt_device *d)
{
    if (d) pt_box_device(v, *d);
    else pt_box_none(v);
}
static inline void pt_box_generator(pt_ivalue *v, pt_generator *g)
{
    if (g) *v = (pt_ivalue){.tag = PT_IV_GENERATOR, .g = g};
    else pt_box_none(v);
}
static inline void pt_box_string(pt_ivalue *v, const char *s)
{
    if (s) *v = (pt_ivalue){.tag = PT_IV_STRING, .s = s};
    else pt_box_none(v);
}
/* A Scalar as the value PyTorch boxes it as (bool, int, double or complex); NULL -> None. */
void pt_box_scalar(pt_ivalue *v, const pt_scalar *s);

/* What a boxed kernel's results must be for an unboxed caller. */
enum {
    PT_RES_TENSOR = 0, /* outs[i]: pt_tensor ** (the reference moves to the caller) */
    PT_RES_SCALAR = 1, /* pt_scalar * */
    PT_RES_INT = 2,    /* int64_t * */
    PT_RES_DOUBLE = 3, /* double * */
    PT_RES_BOOL = 4,   /* int32_t * */
    PT_RES_DTYPE = 5   /* int32_t * */
};
/* Moves a boxed kernel's n results off the stack into outs (in order). A wrong count or kind
 * releases every result and fails naming the operator. The stack is empty afterwards. */
pt_status pt_box_take_results(const pt_op *op, pt_stack *stack, int32_t n, const int32_t *kinds,
                              void *const *outs);

/* The generated BackendSelect kernel in its boxed form (Note [generated BackendSelect] in
 * tools/gen_ops.py): ctx = PT_BACKEND_SELECT_CTX(number of arguments, index of the Device one). */
#define PT_BACKEND_SELECT_CTX(nargs, device_index)                                                 \
    (((uintptr_t)(nargs) << 16) | (uintptr_t)(device_index))
pt_status pt_backend_select_boxed(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                  void *ctx);

#endif
