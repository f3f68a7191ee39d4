/* boxing.c - reading a boxed stack into C kernel arguments and back (see boxing.h).
 *
 * The generated boxed wrappers call one helper per argument; each checks the value's tag against
 * the schema type and hands out the C form without copying (lists and devices point into the
 * stack, which the caller keeps alive for the call: Note [stack ownership] in pytensor.h). The
 * checks accept what Python would: an int where a float is expected, a bool where an int is, an
 * int for a dtype/layout/memory format. A mismatch names the operator and the argument with its
 * 1-based position and schema type, as PyTorch's argument parser does.
 *
 * pt_box_take_results is the other direction for the unboxed entry points, which may find a
 * boxed-only kernel (a Python one, a fallback) in their slot: it moves the results into the
 * caller's out-parameters and, when they are not what the schema promises, releases them all so
 * that a misbehaving kernel cannot leak.
 */
#include <stdarg.h>
#include <string.h>

#include "boxing.h"

static const char *const tag_names[PT_IV_TAG_COUNT] = {
    [PT_IV_NONE] = "None",
    [PT_IV_BOOL] = "bool",
    [PT_IV_INT] = "int",
    [PT_IV_DOUBLE] = "float",
    [PT_IV_COMPLEX] = "complex",
    [PT_IV_STRING] = "str",
    [PT_IV_TENSOR] = "Tensor",
    [PT_IV_INT_LIST] = "int[]",
    [PT_IV_DOUBLE_LIST] = "float[]",
    [PT_IV_BOOL_LIST] = "bool[]",
    [PT_IV_TENSOR_LIST] = "Tensor[]",
    [PT_IV_OPT_TENSOR_LIST] = "Tensor?[]",
    [PT_IV_STRING_LIST] = "str[]",
    [PT_IV_DTYPE] = "ScalarType",
    [PT_IV_DEVICE] = "Device",
    [PT_IV_LAYOUT] = "Layout",
    [PT_IV_MEMORY_FORMAT] = "MemoryFormat",
    [PT_IV_GENERATOR] = "Generator",
};
_Static_assert(PT_IV_TAG_COUNT == 18, "name every tag");

static const char *tag_name(int32_t tag)
{
    return tag >= 0 && tag < PT_IV_TAG_COUNT ? tag_names[tag] : "an unknown value";
}

pt_status pt_ops_refuse(const char *op_name, const pt_op *op, ...)
{
    if (!op)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: the operators are not registered (pt_init() has not run or failed)",
                        op_name);
    va_list ap;
    va_start(ap, op);
    const char *name;
    while ((name = va_arg(ap, const char *)) != NULL) {
        const pt_tensor *t = va_arg(ap, const pt_tensor *);
        if (!t) {
            va_end(ap);
            return PT_ERROR(PT_ERR_TYPE, "%s(): argument '%s' must be Tensor, not NULL", op_name,
                            name);
        }
    }
    va_end(ap);
    return PT_ERROR(PT_ERR_RUNTIME, "%s(): the call was refused", op_name);
}

static const char *op_name(const pt_op *op)
{
    const char *n = op ? pt_op_name(op) : NULL;
    return n ? n : "operator";
}

/* "aten::view(): argument 'size' (position 2) must be int[], not Tensor" */
static pt_status type_error(const pt_op *op, const pt_ivalue *a, int32_t i, const char *detail)
{
    pt_schema_arg_info info;
    const pt_schema *s = op ? pt_op_schema(op) : NULL;
    if (s && pt_schema_argument(s, i, &info) == PT_OK)
        return PT_ERROR(PT_ERR_TYPE, "%s(): argument '%s' (position %d) must be %s, not %s%s",
                        op_name(op), info.name, (int)i + 1, info.type, tag_name(a[i].tag),
                        detail ? detail : "");
    return PT_ERROR(PT_ERR_TYPE, "%s(): argument %d has the wrong type (%s)%s", op_name(op),
                    (int)i + 1, tag_name(a[i].tag), detail ? detail : "");
}

pt_status pt_box_check_stack(const pt_op *op, const pt_stack *stack, int32_t nargs, int32_t nrets)
{
    if (!stack || stack->size < nargs || stack->size > stack->capacity)
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): expected %d arguments on the stack, found %d",
                        op_name(op), (int)nargs, stack ? (int)stack->size : 0);
    if (stack->capacity - (stack->size - nargs) < nrets)
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): the stack has no room for %d results (capacity %d)",
                        op_name(op), (int)nrets, (int)stack->capacity);
    return PT_OK;
}

pt_status pt_unbox_tensor(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          pt_tensor **out)
{
    if (a[i].tag == PT_IV_TENSOR && a[i].t) {
        *out = a[i].t;
        return PT_OK;
    }
    if (optional && (a[i].tag == PT_IV_NONE || (a[i].tag == PT_IV_TENSOR && !a[i].t))) {
        *out = NULL;
        return PT_OK;
    }
    return type_error(op, a, i, a[i].tag == PT_IV_TENSOR ? " (a NULL tensor)" : NULL);
}

static pt_status list_length(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t *n)
{
    if (a[i].len < 0 || a[i].len > INT32_MAX)
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): argument %d: list length %lld is out of range",
                        op_name(op), (int)i + 1, (long long)a[i].len);
    *n = (int32_t)a[i].len;
    return PT_OK;
}

pt_status pt_unbox_tensor_list(const pt_op *op, const pt_ivalue *a, int32_t i,
                               int32_t optional_elems, int32_t *n, pt_tensor *const **out)
{
    const int32_t tag = a[i].tag;
    if (tag != PT_IV_TENSOR_LIST && !(optional_elems && tag == PT_IV_OPT_TENSOR_LIST))
        return type_error(op, a, i, NULL);
    PT_TRY(list_length(op, a, i, n));
    if (*n > 0 && !a[i].tensors) return type_error(op, a, i, " (a NULL array)");
    for (int32_t j = 0; !optional_elems && j < *n; j++)
        if (!a[i].tensors[j])
            return PT_ERROR(PT_ERR_TYPE, "%s(): argument %d: element %d is None, expected a Tensor",
                            op_name(op), (int)i + 1, (int)j);
    *out = a[i].tensors;
    return PT_OK;
}

pt_status pt_unbox_int(const pt_op *op, const pt_ivalue *a, int32_t i, int64_t *out)
{
    if (a[i].tag != PT_IV_INT && a[i].tag != PT_IV_BOOL) return type_error(op, a, i, NULL);
    *out = a[i].i;
    return PT_OK;
}

pt_status pt_unbox_opt_int(const pt_op *op, const pt_ivalue *a, int32_t i, int64_t *value,
                           const int64_t **out)
{
    if (a[i].tag == PT_IV_NONE) {
        *out = NULL;
        return PT_OK;
    }
    PT_TRY(pt_unbox_int(op, a, i, value));
    *out = value;
    return PT_OK;
}

pt_status pt_unbox_double(const pt_op *op, const pt_ivalue *a, int32_t i, double *out)
{
    switch (a[i].tag) {
    case PT_IV_DOUBLE: *out = a[i].d; return PT_OK;
    case PT_IV_INT:
    case PT_IV_BOOL: *out = (double)a[i].i; return PT_OK;
    default: return type_error(op, a, i, NULL);
    }
}

pt_status pt_unbox_opt_double(const pt_op *op, const pt_ivalue *a, int32_t i, double *value,
                              const double **out)
{
    if (a[i].tag == PT_IV_NONE) {
        *out = NULL;
        return PT_OK;
    }
    PT_TRY(pt_unbox_double(op, a, i, value));
    *out = value;
    return PT_OK;
}

pt_status pt_unbox_bool(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t *out)
{
    if (a[i].tag != PT_IV_BOOL) return type_error(op, a, i, NULL);
    *out = a[i].i != 0;
    return PT_OK;
}

pt_status pt_unbox_opt_bool(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t *out)
{
    if (a[i].tag == PT_IV_NONE) {
        *out = -1;
        return PT_OK;
    }
    return pt_unbox_bool(op, a, i, out);
}

pt_status pt_unbox_int_list(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t tag,
                            int32_t optional, int32_t *n, const int64_t **out)
{
    if (optional && a[i].tag == PT_IV_NONE) {
        *n = -1;
        *out = NULL;
        return PT_OK;
    }
    if (a[i].tag != tag) return type_error(op, a, i, NULL);
    PT_TRY(list_length(op, a, i, n));
    if (*n > 0 && !a[i].ints) return type_error(op, a, i, " (a NULL array)");
    *out = a[i].ints;
    return PT_OK;
}

pt_status pt_unbox_double_list(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                               int32_t *n, const double **out)
{
    if (optional && a[i].tag == PT_IV_NONE) {
        *n = -1;
        *out = NULL;
        return PT_OK;
    }
    if (a[i].tag != PT_IV_DOUBLE_LIST) return type_error(op, a, i, NULL);
    PT_TRY(list_length(op, a, i, n));
    if (*n > 0 && !a[i].doubles) return type_error(op, a, i, " (a NULL array)");
    *out = a[i].doubles;
    return PT_OK;
}

pt_status pt_unbox_scalar(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          pt_scalar *value, const pt_scalar **out)
{
    memset(value, 0, sizeof *value);
    switch (a[i].tag) {
    case PT_IV_BOOL: value->kind = PT_SCALAR_BOOL, value->i = a[i].i != 0; break;
    case PT_IV_INT: value->kind = PT_SCALAR_INT, value->i = a[i].i; break;
    case PT_IV_DOUBLE: value->kind = PT_SCALAR_FLOAT, value->re = a[i].d; break;
    case PT_IV_COMPLEX:
        value->kind = PT_SCALAR_COMPLEX, value->re = a[i].d, value->im = a[i].im;
        break;
    case PT_IV_NONE:
        if (optional) {
            *out = NULL;
            return PT_OK;
        }
        return type_error(op, a, i, NULL);
    default: return type_error(op, a, i, NULL);
    }
    *out = value;
    return PT_OK;
}

pt_status pt_unbox_enum(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t tag,
                        int32_t optional, int32_t *out)
{
    if (optional && a[i].tag == PT_IV_NONE) {
        *out = -1;
        return PT_OK;
    }
    if (a[i].tag != tag && a[i].tag != PT_IV_INT) return type_error(op, a, i, NULL);
    if (a[i].i < 0 || a[i].i > INT32_MAX)
        return PT_ERROR(PT_ERR_VALUE, "%s(): argument %d: %s %lld is out of range", op_name(op),
                        (int)i + 1, tag_name(tag), (long long)a[i].i);
    *out = (int32_t)a[i].i;
    return PT_OK;
}

pt_status pt_unbox_device(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          const pt_device **out)
{
    if (a[i].tag == PT_IV_DEVICE) {
        *out = &a[i].device;
        return PT_OK;
    }
    if (optional && a[i].tag == PT_IV_NONE) {
        *out = NULL;
        return PT_OK;
    }
    return type_error(op, a, i, NULL);
}

pt_status pt_unbox_generator(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                             pt_generator **out)
{
    if (a[i].tag == PT_IV_GENERATOR && a[i].g) {
        *out = a[i].g;
        return PT_OK;
    }
    if (optional && (a[i].tag == PT_IV_NONE || a[i].tag == PT_IV_GENERATOR)) {
        *out = NULL;
        return PT_OK;
    }
    return type_error(op, a, i, NULL);
}

pt_status pt_unbox_string(const pt_op *op, const pt_ivalue *a, int32_t i, int32_t optional,
                          const char **out)
{
    if (a[i].tag == PT_IV_STRING && a[i].s) {
        *out = a[i].s;
        return PT_OK;
    }
    if (optional && a[i].tag == PT_IV_NONE) {
        *out = NULL;
        return PT_OK;
    }
    return type_error(op, a, i, NULL);
}

void pt_box_scalar(pt_ivalue *v, const pt_scalar *s)
{
    if (!s) {
        *v = (pt_ivalue){.tag = PT_IV_NONE};
        return;
    }
    switch (s->kind) {
    case PT_SCALAR_BOOL: *v = (pt_ivalue){.tag = PT_IV_BOOL, .i = s->i != 0}; break;
    case PT_SCALAR_INT: *v = (pt_ivalue){.tag = PT_IV_INT, .i = s->i}; break;
    case PT_SCALAR_COMPLEX: *v = (pt_ivalue){.tag = PT_IV_COMPLEX, .d = s->re, .im = s->im}; break;
    default: *v = (pt_ivalue){.tag = PT_IV_DOUBLE, .d = s->re}; break;
    }
}

static bool result_fits(int32_t kind, const pt_ivalue *v)
{
    switch (kind) {
    case PT_RES_TENSOR: return v->tag == PT_IV_TENSOR && v->t;
    case PT_RES_SCALAR:
        return v->tag == PT_IV_BOOL || v->tag == PT_IV_INT || v->tag == PT_IV_DOUBLE ||
               v->tag == PT_IV_COMPLEX;
    case PT_RES_INT: return v->tag == PT_IV_INT || v->tag == PT_IV_BOOL;
    case PT_RES_DOUBLE: return v->tag == PT_IV_DOUBLE || v->tag == PT_IV_INT;
    case PT_RES_BOOL: return v->tag == PT_IV_BOOL;
    case PT_RES_DTYPE: return v->tag == PT_IV_DTYPE || v->tag == PT_IV_INT;
    default: return false;
    }
}

static const char *const result_names[] = {"Tensor", "Scalar", "int", "float", "bool",
                                           "ScalarType"};

pt_status pt_box_take_results(const pt_op *op, pt_stack *stack, int32_t n, const int32_t *kinds,
                              void *const *outs)
{
    if (stack->size != n) {
        const int32_t got = stack->size;
        pt_stack_clear(stack);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s(): the kernel returned %d values, the schema declares %d", op_name(op),
                        (int)got, (int)n);
    }
    for (int32_t i = 0; i < n; i++) {
        if (!result_fits(kinds[i], &stack->items[i])) {
            const int32_t tag = stack->items[i].tag;
            pt_stack_clear(stack);
            return PT_ERROR(PT_ERR_RUNTIME, "%s(): result %d of the kernel is %s, expected %s",
                            op_name(op), (int)i, tag_name(tag), result_names[kinds[i]]);
        }
    }
    for (int32_t i = 0; i < n; i++) {
        pt_ivalue *v = &stack->items[i];
        switch (kinds[i]) {
        case PT_RES_TENSOR:
            *(pt_tensor **)outs[i] = v->t;
            *v = (pt_ivalue){.tag = PT_IV_NONE}; /* the reference moved to the caller */
            break;
        case PT_RES_SCALAR: {
            pt_scalar *s = outs[i];
            memset(s, 0, sizeof *s);
            if (v->tag == PT_IV_BOOL) s->kind = PT_SCALAR_BOOL, s->i = v->i != 0;
            else if (v->tag == PT_IV_INT) s->kind = PT_SCALAR_INT, s->i = v->i;
            else if (v->tag == PT_IV_DOUBLE) s->kind = PT_SCALAR_FLOAT, s->re = v->d;
            else s->kind = PT_SCALAR_COMPLEX, s->re = v->d, s->im = v->im;
            break;
        }
        case PT_RES_INT: *(int64_t *)outs[i] = v->i; break;
        case PT_RES_DOUBLE: *(double *)outs[i] = v->tag == PT_IV_INT ? (double)v->i : v->d; break;
        default: *(int32_t *)outs[i] = (int32_t)v->i; break;
        }
    }
    pt_stack_clear(stack);
    return PT_OK;
}

pt_status pt_backend_select_boxed(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                  void *ctx)
{
    const int32_t nargs = (int32_t)((uintptr_t)ctx >> 16);
    const int32_t index = (int32_t)((uintptr_t)ctx & 0xffff);
    PT_TRY(pt_box_check_stack(op, stack, nargs, 0));
    const pt_device *device = NULL;
    PT_TRY(pt_unbox_device(op, stack->items + stack->size - nargs, index, 1, &device));
    const uint64_t ks = pt_dispatch_compute_keyset(op, keyset | pt_device_keys(device));
    return pt_dispatch_redispatch(op, key, ks, stack);
}
