/* pt_python.c - the few Python objects whose speed decides the cost of a small operator: the
 * Tensor base type, the callers of operator functions and methods, and the Tensor number slots.
 *
 * This file is not part of the core library: tools/build_cffi.py includes it in the source of the
 * cffi module pytensor._C._core, after cffi's own prelude, so that it can use the CPython API and
 * cffi's conversions between cdata pointers and C pointers. Everything else Python does with the
 * core still goes through cffi's `lib`; pt_py_install() adds the objects below to the module.
 *
 * Note [Python fast paths]
 * A cffi call costs 50-120 ns, a Python function frame ~50 ns, and a Python `__del__` ~100 ns
 * plus the release call, which together put `a + b` on 1-element tensors near 0.6 us however
 * cheap the C side is. So, as PyTorch does with torch._C.TensorBase and its generated bindings:
 *  - _TensorBase holds the tensor's reference as a C pointer and releases it in tp_dealloc (no
 *    Python frame); `t._h`, the `pt_tensor *` cdata every Python wrapper passes to cffi, is made
 *    from that pointer on first read and kept. pytensor.Tensor is a Python subclass.
 *  - tools/gen_ops.py writes, per operator overload whose common call needs no parsing, a thunk
 *    (pt_pyfast.c) that checks the exact types of the required positional arguments, passes the
 *    defaults as C constants and calls the unboxed entry point pt_call_<op> directly. A thunk
 *    returns NULL without an exception to decline; the caller then runs the Python binding made
 *    by pytensor/_opsgen.py, which gives the same result for the same arguments and owns every
 *    error message. _FastFunction / _FastMethod (vectorcall; the method form is a method
 *    descriptor, so `t.add(u)` creates no bound method) pair a thunk with that binding. A
 *    function's caller may hold a second thunk, its out= overload's, for `f(a, b, out=o)`.
 *  - The number slots of _TensorBase (`+ - * / // % ** @ & | ^ << >>`, their reflected and
 *    in-place forms, unary `- ~ abs()`) and its comparisons (`== != < <= > >=`) run through the
 *    thunks of the operators pytensor._tensor names for them, wrapping a Python number as a 0-dim
 *    "wrapped number" tensor in C; anything else goes to a Python fallback.
 * The GIL stays held for small work (releasing and taking it back costs more than adding two
 * numbers) and is released when the tensor arguments hold PTPY_RELEASE_GIL_ELEMENTS or more
 * elements, so long kernels let other Python threads run. Python kernels reached from a thunk
 * re-enter through cffi's callbacks, which take the GIL recursively.
 */
#include <stddef.h>

/* ---------------------------------------------------------------- the Tensor base type */
typedef struct {
    PyObject_HEAD
    pt_tensor *ptr;     /* owned reference, NULL until set */
    PyObject *cdata;    /* the 'pt_tensor *' cdata made from ptr (or given), or NULL */
    PyObject *weakrefs;
} ptpy_tensor;

static PyTypeObject ptpy_tensor_type;
static PyTypeObject *ptpy_tensor_cls;       /* pytensor.Tensor: the class of new results */
static PyObject *ptpy_tensor_ctype;         /* ffi.typeof("pt_tensor *") */
static PyObject *ptpy_fail_fn;              /* raises the thread's last C error */
static PyObject *ptpy_operator_fallback_fn; /* fallback(dunder, self[, other]) */
static PyTypeObject *ptpy_size_cls;         /* pytensor.Size (a tuple subclass) */
static PyObject *ptpy_dtypes;               /* list: dtype id -> pytensor.dtype */
static PyObject *ptpy_device_fn;            /* device(type id, index) -> pytensor.device */

/* 2^15 elements: a float32 add of this size takes a few microseconds, well above the ~0.1 us
 * that dropping and retaking the GIL costs; below it the GIL is kept. */
#define PTPY_RELEASE_GIL_ELEMENTS ((int64_t)1 << 15)

/* The C tensor of a Tensor object, or NULL when o is something else (or an empty shell). */
static inline pt_tensor *ptpy_tensor_of(PyObject *o)
{
    if (Py_TYPE(o) == ptpy_tensor_cls || PyObject_TypeCheck(o, &ptpy_tensor_type))
        return ((ptpy_tensor *)o)->ptr;
    return NULL;
}

/* Raises the error of the failed C call through Python (pytensor._ops._fail), so that the
 * exception classes and Note [Python kernel exceptions] stay in one place. */
static PyObject *ptpy_fail(void)
{
    if (!PyErr_Occurred()) {
        if (ptpy_fail_fn) {
            PyObject *r = PyObject_CallNoArgs(ptpy_fail_fn);
            Py_XDECREF(r);
        }
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "pytensor: an operator failed without an error");
    }
    return NULL;
}

/* A new Tensor object adopting the reference r (NULL: raises the C error). */
static PyObject *ptpy_wrap(pt_tensor *r)
{
    if (!r) return ptpy_fail();
    PyTypeObject *cls = ptpy_tensor_cls ? ptpy_tensor_cls : &ptpy_tensor_type;
    ptpy_tensor *t = (ptpy_tensor *)cls->tp_alloc(cls, 0);
    if (!t) {
        pt_tensor_release(r);
        return NULL;
    }
    t->ptr = r;
    return (PyObject *)t;
}

/* The result of an operator whose return is its argument `self_obj` written in place: the
 * entry point's reference is dropped and the argument's object returned. */
static PyObject *ptpy_alias(pt_tensor *r, PyObject *self_obj)
{
    if (!r) return ptpy_fail();
    pt_tensor_release(r);
    Py_INCREF(self_obj);
    return self_obj;
}

static inline int ptpy_heavy(int64_t elements) { return elements >= PTPY_RELEASE_GIL_ELEMENTS; }

/* Argument readers of the thunks: 1 = read, 0 = decline (no exception set). Exact types only, as
 * the Python fast paths check `type(x) is int`; anything else takes the general path. */
static inline int ptpy_int_arg(PyObject *o, int64_t *out)
{
    if (!PyLong_CheckExact(o)) return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    *out = (int64_t)v;
    return 1;
}

static inline int ptpy_float_arg(PyObject *o, double *out)
{
    if (!PyFloat_CheckExact(o)) return 0;
    *out = PyFloat_AS_DOUBLE(o);
    return 1;
}

static inline int ptpy_bool_arg(PyObject *o, int32_t *out)
{
    if (o == Py_True) *out = 1;
    else if (o == Py_False) *out = 0;
    else return 0;
    return 1;
}

static void ptpy_tensor_dealloc(PyObject *self)
{
    ptpy_tensor *t = (ptpy_tensor *)self;
    if (t->weakrefs) PyObject_ClearWeakRefs(self);
    Py_CLEAR(t->cdata);
    pt_tensor *p = t->ptr;
    t->ptr = NULL;
    if (p && PyErr_Occurred()) {
        /* The release may run Python (the owner of memory lent to C, e.g. a NumPy array, through
         * pt_py_release_handle), which must not see the exception that is unwinding. */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        pt_tensor_release(p);
        PyErr_Restore(type, value, traceback);
    } else if (p) {
        pt_tensor_release(p);
    }
    Py_TYPE(self)->tp_free(self);
}

/* _TensorBase.__new__(cls): an empty shell whose `_h` is set next (pytensor._tensor._wrap). */
static PyObject *ptpy_tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    return type->tp_alloc(type, 0);
}

static PyObject *ptpy_tensor_get_h(PyObject *self, void *closure)
{
    (void)closure;
    ptpy_tensor *t = (ptpy_tensor *)self;
    if (!t->cdata) {
        if (!t->ptr || !ptpy_tensor_ctype) {
            PyErr_SetString(PyExc_AttributeError, "_h");
            return NULL;
        }
        t->cdata = _cffi_from_c_pointer((char *)t->ptr,
                                        (struct _cffi_ctypedescr *)ptpy_tensor_ctype);
        if (!t->cdata) return NULL;
    }
    Py_INCREF(t->cdata);
    return t->cdata;
}

/* `t._h = p` adopts the reference p (a 'pt_tensor *' cdata); one already held is released. */
static int ptpy_tensor_set_h(PyObject *self, PyObject *value, void *closure)
{
    (void)closure;
    ptpy_tensor *t = (ptpy_tensor *)self;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "_h: a Tensor's handle can't be deleted");
        return -1;
    }
    if (!ptpy_tensor_ctype) {
        PyErr_SetString(PyExc_RuntimeError, "_h: pytensor._C is not set up yet");
        return -1;
    }
    char *p = _cffi_to_c_pointer(value, (struct _cffi_ctypedescr *)ptpy_tensor_ctype);
    if (!p) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_h: expected a non-NULL 'pt_tensor *'");
        return -1;
    }
    pt_tensor *old = t->ptr;
    PyObject *old_cdata = t->cdata;
    Py_INCREF(value);
    t->cdata = value;
    t->ptr = (pt_tensor *)p;
    Py_XDECREF(old_cdata);
    if (old) pt_tensor_release(old);
    return 0;
}

/* The metadata reads that user code makes all the time, without a cffi call each. */
static pt_tensor *ptpy_live(PyObject *self)
{
    pt_tensor *t = ((ptpy_tensor *)self)->ptr;
    if (!t) PyErr_SetString(PyExc_RuntimeError, "this Tensor holds no tensor (it was never set)");
    return t;
}

static PyObject *ptpy_tensor_shape(PyObject *self, void *closure)
{
    (void)closure;
    pt_tensor *t = ptpy_live(self);
    if (!t) return NULL;
    const int32_t n = pt_tensor_ndim(t);
    const int64_t *sizes = pt_tensor_sizes(t);
    PyTypeObject *cls = ptpy_size_cls ? ptpy_size_cls : &PyTuple_Type;
    PyObject *r = cls == &PyTuple_Type ? PyTuple_New(n) : cls->tp_alloc(cls, n);
    if (!r) return NULL;
    for (int32_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(sizes[i]);
        if (!v) {
            Py_DECREF(r);
            return NULL;
        }
        PyTuple_SET_ITEM(r, i, v);
    }
    return r;
}

static PyObject *ptpy_tensor_dtype(PyObject *self, void *closure)
{
    (void)closure;
    pt_tensor *t = ptpy_live(self);
    if (!t) return NULL;
    const int32_t id = pt_tensor_dtype(t);
    if (!ptpy_dtypes || id < 0 || id >= PyList_GET_SIZE(ptpy_dtypes) ||
        PyList_GET_ITEM(ptpy_dtypes, id) == Py_None)
        return PyErr_Format(PyExc_RuntimeError, "dtype: id %d has no pytensor.dtype", (int)id);
    PyObject *d = PyList_GET_ITEM(ptpy_dtypes, id);
    Py_INCREF(d);
    return d;
}

/* One object per device: the common ones cached here, the others made by Python (which keeps
 * one per value as well). */
enum { PTPY_DEVICE_TYPES = 8, PTPY_DEVICE_INDICES = 64 };
static PyObject *ptpy_device_cache[PTPY_DEVICE_TYPES][PTPY_DEVICE_INDICES + 1];

static PyObject *ptpy_tensor_device(PyObject *self, void *closure)
{
    (void)closure;
    pt_tensor *t = ptpy_live(self);
    if (!t) return NULL;
    const pt_device d = pt_tensor_device(t);
    const int cached = d.type >= 0 && d.type < PTPY_DEVICE_TYPES && d.index >= -1 &&
                       d.index < PTPY_DEVICE_INDICES;
    PyObject **slot = cached ? &ptpy_device_cache[d.type][d.index + 1] : NULL;
    if (slot && *slot) {
        Py_INCREF(*slot);
        return *slot;
    }
    if (!ptpy_device_fn) {
        PyErr_SetString(PyExc_RuntimeError, "device: pytensor._C is not set up yet");
        return NULL;
    }
    PyObject *r = PyObject_CallFunction(ptpy_device_fn, "ii", (int)d.type, (int)d.index);
    if (r && slot) {
        Py_INCREF(r);
        *slot = r;
    }
    return r;
}

static PyObject *ptpy_tensor_ndim(PyObject *self, void *closure)
{
    (void)closure;
    pt_tensor *t = ptpy_live(self);
    return t ? PyLong_FromLong(pt_tensor_ndim(t)) : NULL;
}

static PyObject *ptpy_tensor_dim(PyObject *self, PyObject *unused)
{
    (void)unused;
    return ptpy_tensor_ndim(self, NULL);
}

static PyObject *ptpy_tensor_numel(PyObject *self, PyObject *unused)
{
    (void)unused;
    pt_tensor *t = ptpy_live(self);
    return t ? PyLong_FromLongLong(pt_tensor_numel(t)) : NULL;
}

static PyGetSetDef ptpy_tensor_getset[] = {
    {"_h", ptpy_tensor_get_h, ptpy_tensor_set_h,
     "the 'pt_tensor *' this object holds one reference to", NULL},
    {"shape", ptpy_tensor_shape, NULL, "the sizes, as a pytensor.Size", NULL},
    {"dtype", ptpy_tensor_dtype, NULL, "the element type", NULL},
    {"device", ptpy_tensor_device, NULL, "the device holding the elements", NULL},
    {"ndim", ptpy_tensor_ndim, NULL, "the number of dimensions", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef ptpy_tensor_methods[] = {
    {"dim", ptpy_tensor_dim, METH_NOARGS,
     "The number of dimensions.\n\n>>> pytensor.zeros(2, 3).dim()\n2"},
    {"numel", ptpy_tensor_numel, METH_NOARGS,
     "The number of elements.\n\n>>> pytensor.zeros(2, 3).numel()\n6"},
    {NULL, NULL, 0, NULL},
};

/* ---------------------------------------------------------------- thunks */
typedef PyObject *(*ptpy_thunk)(PyObject *const *args);

typedef struct {
    const char *ident;   /* pt_call_<ident> */
    const char *name;    /* "aten::add.Tensor" */
    ptpy_thunk fn;
    int32_t nargs;       /* required positional arguments, in schema order */
    int32_t self_first;  /* the first argument is `Tensor self` (usable as a method) */
    int32_t out_kw;      /* an out= overload: args[nargs] is the value of the keyword `out` */
} ptpy_thunk_entry;

#include "pt_pyfast.c" /* generated: static const ptpy_thunk_entry ptpy_thunks[] */

static const ptpy_thunk_entry *ptpy_find_thunk(const char *ident)
{
    for (size_t i = 0; i < sizeof ptpy_thunks / sizeof ptpy_thunks[0]; i++)
        if (ptpy_thunks[i].fn && strcmp(ptpy_thunks[i].ident, ident) == 0) return &ptpy_thunks[i];
    return NULL;
}

/* ---------------------------------------------------------------- number slots */
/* Note [Tensor number slots]
 * CPython calls nb_add(a, b) for both `a + b` and, when a does not handle it, the reflected
 * `b.__radd__(a)`; the slot tells the two apart by which operand is the Tensor. Each dunder has
 * a form (how its operator takes the operands, as pytensor._opsgen._form describes) and, once
 * pytensor._tensor has looked its operator up, a thunk. */
enum { PTPY_BINARY, PTPY_REFLECTED, PTPY_COMMUTED, PTPY_INPLACE, PTPY_UNARY };
/* Each binary operator's three dunders in a row: forward, reflected, in place. */
#define PTPY_TRIPLE(NAME) PTPY_##NAME, PTPY_R##NAME, PTPY_I##NAME
enum {
    PTPY_TRIPLE(ADD), PTPY_TRIPLE(SUB), PTPY_TRIPLE(MUL), PTPY_TRIPLE(TRUEDIV),
    PTPY_TRIPLE(FLOORDIV), PTPY_TRIPLE(MOD), PTPY_TRIPLE(POW), PTPY_TRIPLE(MATMUL),
    PTPY_TRIPLE(AND), PTPY_TRIPLE(OR), PTPY_TRIPLE(XOR), PTPY_TRIPLE(LSHIFT), PTPY_TRIPLE(RSHIFT),
    PTPY_NEG, PTPY_INVERT, PTPY_ABS,
    PTPY_LT, PTPY_LE, PTPY_EQ, PTPY_NE, PTPY_GT, PTPY_GE, /* in the order of Py_LT .. Py_GE */
    PTPY_OPERATOR_COUNT
};
typedef struct {
    const char *dunder;
    int form;
    ptpy_thunk thunk; /* set by _set_operator */
} ptpy_operator;

/* REFL is the form of the reflected dunder: commuted where the operator is symmetric. */
#define PTPY_DUNDERS(NAME, name, REFL)                                                            \
    [PTPY_##NAME] = {"__" name "__", PTPY_BINARY, NULL},                                          \
    [PTPY_R##NAME] = {"__r" name "__", REFL, NULL},                                               \
    [PTPY_I##NAME] = {"__i" name "__", PTPY_INPLACE, NULL}
static ptpy_operator ptpy_operators[PTPY_OPERATOR_COUNT] = {
    PTPY_DUNDERS(ADD, "add", PTPY_COMMUTED),
    PTPY_DUNDERS(SUB, "sub", PTPY_REFLECTED),
    PTPY_DUNDERS(MUL, "mul", PTPY_COMMUTED),
    PTPY_DUNDERS(TRUEDIV, "truediv", PTPY_REFLECTED),
    PTPY_DUNDERS(FLOORDIV, "floordiv", PTPY_REFLECTED),
    PTPY_DUNDERS(MOD, "mod", PTPY_REFLECTED),
    PTPY_DUNDERS(POW, "pow", PTPY_REFLECTED),
    PTPY_DUNDERS(MATMUL, "matmul", PTPY_REFLECTED),
    PTPY_DUNDERS(AND, "and", PTPY_COMMUTED),
    PTPY_DUNDERS(OR, "or", PTPY_COMMUTED),
    PTPY_DUNDERS(XOR, "xor", PTPY_COMMUTED),
    PTPY_DUNDERS(LSHIFT, "lshift", PTPY_REFLECTED),
    PTPY_DUNDERS(RSHIFT, "rshift", PTPY_REFLECTED),
    [PTPY_NEG] = {"__neg__", PTPY_UNARY, NULL},
    [PTPY_INVERT] = {"__invert__", PTPY_UNARY, NULL},
    [PTPY_ABS] = {"__abs__", PTPY_UNARY, NULL},
    [PTPY_LT] = {"__lt__", PTPY_BINARY, NULL},
    [PTPY_LE] = {"__le__", PTPY_BINARY, NULL},
    [PTPY_EQ] = {"__eq__", PTPY_BINARY, NULL},
    [PTPY_NE] = {"__ne__", PTPY_BINARY, NULL},
    [PTPY_GT] = {"__gt__", PTPY_BINARY, NULL},
    [PTPY_GE] = {"__ge__", PTPY_BINARY, NULL},
};
_Static_assert(Py_LT == 0 && Py_LE == 1 && Py_EQ == 2 && Py_NE == 3 && Py_GT == 4 && Py_GE == 5,
               "the comparison dunders follow CPython's operator numbers");

/* A Python bool, int, float or complex as a 0-dim CPU "wrapped number" tensor object (PyTorch's
 * scalar_to_tensor: bool, int64, float64, complex128); an int beyond int64 raises OverflowError
 * as torch does; NULL without an exception for anything else. pytensor._opargs.wrapped_number
 * calls this too (through _wrapped_number), so both paths make the same tensor. */
static PyObject *ptpy_wrapped_number(PyObject *o)
{
    int32_t dtype;
    union {
        uint8_t b;
        int64_t i;
        double d;
        double c[2];
    } v;
    if (o == Py_True || o == Py_False) {
        dtype = PT_BOOL;
        v.b = o == Py_True;
    } else if (PyLong_CheckExact(o)) {
        if (!ptpy_int_arg(o, &v.i))
            return PyErr_Format(PyExc_OverflowError, "int too big to convert");
        dtype = PT_INT64;
    } else if (PyFloat_CheckExact(o)) {
        dtype = PT_FLOAT64;
        v.d = PyFloat_AS_DOUBLE(o);
    } else if (PyComplex_CheckExact(o)) {
        dtype = PT_COMPLEX128;
        v.c[0] = PyComplex_RealAsDouble(o);
        v.c[1] = PyComplex_ImagAsDouble(o);
    } else {
        return NULL;
    }
    pt_tensor *t = NULL;
    pt_device cpu = {PT_DEV_CPU, 0};
    if (pt_tensor_empty(0, NULL, dtype, cpu, &t) != PT_OK) return ptpy_fail();
    memcpy(pt_tensor_data(t), &v, dtype == PT_BOOL ? 1 : dtype == PT_COMPLEX128 ? 16 : 8);
    pt_tensor_set_wrapped_number(t, 1);
    return ptpy_wrap(t);
}

static PyObject *ptpy_operator_fallback(int which, PyObject *self, PyObject *other)
{
    if (!ptpy_operator_fallback_fn) Py_RETURN_NOTIMPLEMENTED;
    PyObject *name = PyUnicode_InternFromString(ptpy_operators[which].dunder);
    if (!name) return NULL;
    PyObject *r = PyObject_CallFunctionObjArgs(ptpy_operator_fallback_fn, name, self, other, NULL);
    Py_DECREF(name);
    return r;
}

/* self <op> other for dunder `which` (self is the Tensor). */
static PyObject *ptpy_binary(int which, PyObject *self, PyObject *other)
{
    const ptpy_operator *o = &ptpy_operators[which];
    if (o->thunk) {
        PyObject *wrapped = NULL;
        if (!ptpy_tensor_of(other)) {
            wrapped = ptpy_wrapped_number(other);
            if (!wrapped && PyErr_Occurred()) return NULL;
        }
        if (wrapped || ptpy_tensor_of(other)) {
            PyObject *operand = wrapped ? wrapped : other;
            PyObject *args[2] = {self, operand};
            if (o->form == PTPY_REFLECTED) {
                args[0] = operand;
                args[1] = self;
            }
            PyObject *r = o->thunk(args);
            Py_XDECREF(wrapped);
            if (r || PyErr_Occurred()) return r;
        }
    }
    return ptpy_operator_fallback(which, self, other);
}

#define PTPY_BINARY_SLOT(slot, NAME)                                                              \
    static PyObject *slot(PyObject *a, PyObject *b)                                               \
    {                                                                                             \
        return ptpy_tensor_of(a) ? ptpy_binary(PTPY_##NAME, a, b)                                 \
                                 : ptpy_binary(PTPY_R##NAME, b, a);                               \
    }                                                                                             \
    static PyObject *slot##_inplace(PyObject *a, PyObject *b)                                     \
    {                                                                                             \
        return ptpy_binary(PTPY_I##NAME, a, b);                                                   \
    }
PTPY_BINARY_SLOT(ptpy_nb_add, ADD)
PTPY_BINARY_SLOT(ptpy_nb_subtract, SUB)
PTPY_BINARY_SLOT(ptpy_nb_multiply, MUL)
PTPY_BINARY_SLOT(ptpy_nb_true_divide, TRUEDIV)
PTPY_BINARY_SLOT(ptpy_nb_floor_divide, FLOORDIV)
PTPY_BINARY_SLOT(ptpy_nb_remainder, MOD)
PTPY_BINARY_SLOT(ptpy_nb_matrix_multiply, MATMUL)
PTPY_BINARY_SLOT(ptpy_nb_and, AND)
PTPY_BINARY_SLOT(ptpy_nb_or, OR)
PTPY_BINARY_SLOT(ptpy_nb_xor, XOR)
PTPY_BINARY_SLOT(ptpy_nb_lshift, LSHIFT)
PTPY_BINARY_SLOT(ptpy_nb_rshift, RSHIFT)

/* pow(a, b, modulo) has no tensor form: only the two-argument power is served. */
static PyObject *ptpy_nb_power(PyObject *a, PyObject *b, PyObject *modulo)
{
    if (modulo != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return ptpy_tensor_of(a) ? ptpy_binary(PTPY_POW, a, b) : ptpy_binary(PTPY_RPOW, b, a);
}

static PyObject *ptpy_nb_inplace_power(PyObject *a, PyObject *b, PyObject *modulo)
{
    if (modulo != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return ptpy_binary(PTPY_IPOW, a, b);
}

/* a <op> b for Python's comparison number op; a is the Tensor (CPython reflects `2 < t` into
 * `t > 2` before it gets here). NotImplemented for other operands lets `t == None` be False. */
static PyObject *ptpy_richcompare(PyObject *a, PyObject *b, int op)
{
    static const int reflected[6] = {Py_GT, Py_GE, Py_EQ, Py_NE, Py_LT, Py_LE};
    if (op < Py_LT || op > Py_GE) Py_RETURN_NOTIMPLEMENTED;
    if (!ptpy_tensor_of(a)) {
        if (!ptpy_tensor_of(b)) Py_RETURN_NOTIMPLEMENTED;
        return ptpy_binary(PTPY_LT + reflected[op], b, a);
    }
    return ptpy_binary(PTPY_LT + op, a, b);
}

/* `symbol a` through the dunder's operator; a TypeError naming the operator when it is not
 * declared. */
static PyObject *ptpy_unary(int which, PyObject *a, const char *symbol)
{
    const ptpy_operator *o = &ptpy_operators[which];
    if (o->thunk) {
        PyObject *args[1] = {a};
        PyObject *r = o->thunk(args);
        if (r || PyErr_Occurred()) return r;
    }
    PyObject *r = ptpy_operator_fallback(which, a, NULL);
    if (r == Py_NotImplemented) {
        Py_DECREF(r);
        return PyErr_Format(PyExc_TypeError, "bad operand type for %s: '%.200s'", symbol,
                            Py_TYPE(a)->tp_name);
    }
    return r;
}

static PyObject *ptpy_nb_negative(PyObject *a) { return ptpy_unary(PTPY_NEG, a, "unary -"); }
static PyObject *ptpy_nb_absolute(PyObject *a) { return ptpy_unary(PTPY_ABS, a, "abs()"); }

/* torch's ~ refuses floating and complex tensors before bitwise_not sees them, in its words. */
static PyObject *ptpy_nb_invert(PyObject *a)
{
    pt_tensor *t = ptpy_tensor_of(a);
    int32_t dt = t ? pt_tensor_dtype(t) : PT_BOOL;
    if (dt != PT_BOOL && !(dt >= PT_UINT8 && dt <= PT_INT64))
        return PyErr_Format(PyExc_TypeError, "~ (operator.invert) is only implemented on integer "
                            "and Boolean-type tensors");
    return ptpy_unary(PTPY_INVERT, a, "unary ~");
}

#define PTPY_NUMBER_SLOTS(slot, name) .nb_##slot = ptpy_nb_##name, \
    .nb_inplace_##slot = ptpy_nb_##name##_inplace
static PyNumberMethods ptpy_tensor_number = {
    PTPY_NUMBER_SLOTS(add, add),
    PTPY_NUMBER_SLOTS(subtract, subtract),
    PTPY_NUMBER_SLOTS(multiply, multiply),
    PTPY_NUMBER_SLOTS(true_divide, true_divide),
    PTPY_NUMBER_SLOTS(floor_divide, floor_divide),
    PTPY_NUMBER_SLOTS(remainder, remainder),
    PTPY_NUMBER_SLOTS(matrix_multiply, matrix_multiply),
    PTPY_NUMBER_SLOTS(and, and),
    PTPY_NUMBER_SLOTS(or, or),
    PTPY_NUMBER_SLOTS(xor, xor),
    PTPY_NUMBER_SLOTS(lshift, lshift),
    PTPY_NUMBER_SLOTS(rshift, rshift),
    .nb_power = ptpy_nb_power,
    .nb_inplace_power = ptpy_nb_inplace_power,
    .nb_negative = ptpy_nb_negative,
    .nb_absolute = ptpy_nb_absolute,
    .nb_invert = ptpy_nb_invert,
};

static PyTypeObject ptpy_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pytensor._C._TensorBase",
    .tp_doc = "The C part of pytensor.Tensor: one reference to a pt_tensor, released with the "
              "object, and the number slots and comparisons (Note [Python fast paths]).",
    .tp_basicsize = sizeof(ptpy_tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = ptpy_tensor_new,
    .tp_dealloc = ptpy_tensor_dealloc,
    .tp_weaklistoffset = offsetof(ptpy_tensor, weakrefs),
    .tp_getset = ptpy_tensor_getset,
    .tp_methods = ptpy_tensor_methods,
    .tp_as_number = &ptpy_tensor_number,
    .tp_richcompare = ptpy_richcompare,
};

/* ---------------------------------------------------------------- fast callers */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    ptpy_thunk thunk;
    Py_ssize_t nargs;
    ptpy_thunk out_thunk; /* the out= overload's, for `f(..., out=t)`; or NULL */
    Py_ssize_t out_nargs;
    PyObject *slow; /* the Python binding: every call the thunk declines */
} ptpy_fastfn;

static PyObject *ptpy_str_out; /* "out", interned */

static PyObject *ptpy_fastfn_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames)
{
    ptpy_fastfn *f = (ptpy_fastfn *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (!kwnames) {
        if (n == f->nargs) {
            PyObject *r = f->thunk(args);
            if (r || PyErr_Occurred()) return r;
        }
    } else if (f->out_thunk && n == f->out_nargs && PyTuple_GET_SIZE(kwnames) == 1) {
        PyObject *kw = PyTuple_GET_ITEM(kwnames, 0);
        if (kw == ptpy_str_out || PyUnicode_Compare(kw, ptpy_str_out) == 0) {
            PyObject *r = f->out_thunk(args); /* the keyword's value follows the positionals */
            if (r || PyErr_Occurred()) return r;
        }
    }
    return PyObject_Vectorcall(f->slow, args, nargsf, kwnames);
}

static int ptpy_fastfn_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((ptpy_fastfn *)self)->slow);
    return 0;
}

static int ptpy_fastfn_clear(PyObject *self)
{
    Py_CLEAR(((ptpy_fastfn *)self)->slow);
    return 0;
}

static void ptpy_fastfn_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    ptpy_fastfn_clear(self);
    PyObject_GC_Del(self);
}

/* Attributes not found on the caller (`__name__`, `__doc__`, `_source`, ...) are the
 * binding's, so that the caller reads like the function it speeds up. */
static PyObject *ptpy_fastfn_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    PyErr_Clear();
    PyObject *slow = ((ptpy_fastfn *)self)->slow;
    if (!slow) return PyErr_Format(PyExc_AttributeError, "%U", name);
    return PyObject_GetAttr(slow, name);
}

#define PTPY_FORWARD(fname, attr)                                                                 \
    static PyObject *fname(PyObject *self, void *closure)                                         \
    {                                                                                             \
        (void)closure;                                                                            \
        PyObject *slow = ((ptpy_fastfn *)self)->slow;                                             \
        if (!slow) Py_RETURN_NONE;                                                                \
        return PyObject_GetAttrString(slow, attr);                                                \
    }
PTPY_FORWARD(ptpy_fastfn_doc, "__doc__")
PTPY_FORWARD(ptpy_fastfn_name, "__name__")
PTPY_FORWARD(ptpy_fastfn_qualname, "__qualname__")
PTPY_FORWARD(ptpy_fastfn_module, "__module__")

static PyObject *ptpy_fastfn_wrapped(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *slow = ((ptpy_fastfn *)self)->slow;
    if (!slow) Py_RETURN_NONE;
    Py_INCREF(slow);
    return slow;
}

static PyObject *ptpy_fastfn_has_out(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((ptpy_fastfn *)self)->out_thunk != NULL);
}

static PyGetSetDef ptpy_fastfn_getset[] = {
    {"_has_out_thunk", ptpy_fastfn_has_out, NULL, "whether `out=` calls have a thunk too", NULL},
    {"__doc__", ptpy_fastfn_doc, NULL, NULL, NULL},
    {"__name__", ptpy_fastfn_name, NULL, NULL, NULL},
    {"__qualname__", ptpy_fastfn_qualname, NULL, NULL, NULL},
    {"__module__", ptpy_fastfn_module, NULL, NULL, NULL},
    {"__wrapped__", ptpy_fastfn_wrapped, NULL, "the Python binding this caller speeds up", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *ptpy_fastfn_repr(PyObject *self)
{
    PyObject *slow = ((ptpy_fastfn *)self)->slow;
    return slow ? PyObject_Repr(slow) : PyUnicode_FromString("<pytensor fast caller>");
}

/* As a class attribute a method caller binds like a function. */
static PyObject *ptpy_fastmethod_get(PyObject *self, PyObject *obj, PyObject *type)
{
    (void)type;
    if (!obj || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyTypeObject ptpy_fastfn_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pytensor._C._FastFunction",
    .tp_doc = "An operator function: a generated C path for its common call, the Python "
              "binding for the rest (Note [Python fast paths]).",
    .tp_basicsize = sizeof(ptpy_fastfn),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(ptpy_fastfn, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_dealloc = ptpy_fastfn_dealloc,
    .tp_traverse = ptpy_fastfn_traverse,
    .tp_clear = ptpy_fastfn_clear,
    .tp_getattro = ptpy_fastfn_getattro,
    .tp_getset = ptpy_fastfn_getset,
    .tp_repr = ptpy_fastfn_repr,
};

/* A subtype of _FastFunction: only binding differs; PyType_Ready copies the other slots (but
 * wants a GC type's traverse and clear given). */
static PyTypeObject ptpy_fastmethod_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pytensor._C._FastMethod",
    .tp_doc = "A Tensor method of an operator (a method descriptor): a generated C path for its "
              "common call, the Python binding for the rest.",
    .tp_base = &ptpy_fastfn_type,
    .tp_basicsize = sizeof(ptpy_fastfn),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_vectorcall_offset = offsetof(ptpy_fastfn, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_traverse = ptpy_fastfn_traverse,
    .tp_clear = ptpy_fastfn_clear,
    .tp_descr_get = ptpy_fastmethod_get,
};

/* ---------------------------------------------------------------- Python kernels */
/* Note [Python kernels in C]
 * pytensor.library registers a Python kernel with this trampoline as its boxed function and the
 * kernel's cell (library._Cell, kept alive for the life of the process) as its context. For the
 * common shape — every argument a plain Tensor without default, one Tensor result — it wraps the
 * stack's tensors, calls the kernel and pushes its result without leaving C. Anything else (other
 * argument types, a result that must be converted or checked) goes to the cffi trampoline
 * pt_py_boxed_kernel (pytensor/library.py) with the cell's cffi handle, or, once the kernel has
 * run, to library._finish_kernel; so every rule and message stays in one place. An exception
 * raised by the kernel is handed to pytensor._C._stash_exception (Note [Python kernel
 * exceptions]). */
static PyObject *ptpy_finish_kernel_fn; /* library._finish_kernel(op, stack, base, result) */
static PyObject *ptpy_stash_fn;         /* pytensor._C._stash_exception(exc) -> status */
static PyObject *ptpy_str_fn, *ptpy_str_handle;

enum { PTPY_KERNEL_MAX_ARGS = 8 }; /* arguments the C path takes on its C stack */

static pt_status pt_py_boxed_kernel(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                    void *ctx);

/* The number of arguments when every one is a plain Tensor and there is one Tensor result;
 * -1 otherwise. */
static int32_t ptpy_plain_tensor_schema(const pt_op *op)
{
    const pt_schema *s = pt_op_schema(op);
    if (!s || pt_schema_num_returns(s) != 1) return -1;
    const int32_t n = pt_schema_num_arguments(s);
    if (n > PTPY_KERNEL_MAX_ARGS) return -1;
    pt_schema_arg_info info;
    for (int32_t i = 0; i <= n; i++) {
        pt_status st = i < n ? pt_schema_argument(s, i, &info) : pt_schema_return(s, 0, &info);
        if (st != PT_OK) {
            pt_error_clear();
            return -1;
        }
        if (info.kind != PT_TYPE_TENSOR || info.optional || info.list || info.has_default ||
            info.kwarg_only)
            return -1;
    }
    return n;
}

/* Hands the pending Python exception to _stash_exception; returns the status it gives. */
static pt_status ptpy_stash_exception(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb) PyException_SetTraceback(value, tb);
    long st = PT_ERR_RUNTIME;
    PyObject *r = value && ptpy_stash_fn ? PyObject_CallOneArg(ptpy_stash_fn, value) : NULL;
    if (r) st = PyLong_AsLong(r);
    if (!r || st <= 0) {
        PyErr_Clear();
        st = pt_error_raise(PT_ERR_RUNTIME, "<Python kernel>", 0,
                            "a Python kernel failed and its exception could not be kept");
    }
    Py_XDECREF(r);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return (pt_status)st;
}

/* The cell's cffi handle, for the general trampoline. */
static void *ptpy_cell_handle(PyObject *cell)
{
    PyObject *h = PyObject_GetAttr(cell, ptpy_str_handle);
    void *p = h ? PyLong_AsVoidPtr(h) : NULL;
    Py_XDECREF(h);
    if (PyErr_Occurred()) PyErr_Clear();
    return p;
}

static pt_status ptpy_run_kernel(PyObject *cell, const pt_op *op, pt_stack *stack, int32_t n,
                                 int *handled)
{
    const int32_t base = stack->size - n;
    pt_ivalue *items = stack->items;
    for (int32_t i = 0; i < n; i++)
        if (items[base + i].tag != PT_IV_TENSOR || !items[base + i].t) return PT_OK;
    PyObject *fn = PyObject_GetAttr(cell, ptpy_str_fn);
    if (!fn || fn == Py_None) { /* deregistered: the general path says so */
        Py_XDECREF(fn);
        PyErr_Clear();
        return PT_OK;
    }
    *handled = 1;
    PyObject *args[PTPY_KERNEL_MAX_ARGS];
    int32_t made = 0;
    pt_status st = PT_OK;
    for (; made < n; made++) { /* stack arguments are borrowed: each Tensor gets its own ref */
        pt_tensor *t = items[base + made].t;
        pt_tensor_retain(t);
        args[made] = ptpy_wrap(t);
        if (!args[made]) break;
    }
    PyObject *result = NULL;
    if (made == n) {
        stack->size = base;
        result = PyObject_Vectorcall(fn, args, (size_t)n, NULL);
    }
    for (int32_t i = 0; i < made; i++) Py_DECREF(args[i]);
    Py_DECREF(fn);
    if (!result) return ptpy_stash_exception();
    pt_tensor *r = ptpy_tensor_of(result);
    if (r && stack->capacity > base) {
        pt_tensor_retain(r);
        memset(&items[base], 0, sizeof items[base]);
        items[base].tag = PT_IV_TENSOR;
        items[base].t = r;
        stack->size = base + 1;
    } else {
        PyObject *rv = PyObject_CallFunction(ptpy_finish_kernel_fn, "KKiO",
                                             (unsigned long long)(uintptr_t)op,
                                             (unsigned long long)(uintptr_t)stack, (int)base,
                                             result);
        if (!rv) {
            st = ptpy_stash_exception();
        } else {
            st = (pt_status)PyLong_AsLong(rv);
            Py_DECREF(rv);
        }
    }
    Py_DECREF(result);
    return st;
}

static pt_status pt_py_fast_kernel(const pt_op *op, int32_t key, uint64_t keyset,
                                   pt_stack *stack, void *ctx)
{
    PyObject *cell = ctx;
    PyGILState_STATE gil = PyGILState_Ensure();
    pt_status st = PT_OK;
    int handled = 0;
    const int32_t n = ptpy_finish_kernel_fn ? ptpy_plain_tensor_schema(op) : -1;
    if (n >= 0 && stack->size >= n) st = ptpy_run_kernel(cell, op, stack, n, &handled);
    if (!handled) st = pt_py_boxed_kernel(op, key, keyset, stack, ptpy_cell_handle(cell));
    PyGILState_Release(gil);
    return st;
}

/* ---------------------------------------------------------------- module functions */
/* _fast_function(ident, slow, method, out_ident=None) -> the caller of pt_call_<ident>'s thunk
 * with `slow` as its general path, or None when the generator made no thunk for it (or, for a
 * method, when its first argument is not `self`). out_ident names an out= overload's thunk that
 * serves calls whose only keyword is `out` (ignored when there is no such thunk). */
static PyObject *ptpy_make_fast_function(PyObject *module, PyObject *args)
{
    (void)module;
    const char *ident, *out_ident = NULL;
    PyObject *slow;
    int method;
    if (!PyArg_ParseTuple(args, "sOp|z:_fast_function", &ident, &slow, &method, &out_ident))
        return NULL;
    if (!PyCallable_Check(slow)) return PyErr_Format(PyExc_TypeError, "slow: not callable");
    const ptpy_thunk_entry *e = ptpy_find_thunk(ident);
    if (!e || e->out_kw || (method && !e->self_first)) Py_RETURN_NONE;
    const ptpy_thunk_entry *o = out_ident && !method ? ptpy_find_thunk(out_ident) : NULL;
    if (o && !o->out_kw) o = NULL;
    if (!ptpy_str_out && !(ptpy_str_out = PyUnicode_InternFromString("out"))) return NULL;
    ptpy_fastfn *f = PyObject_GC_New(ptpy_fastfn, method ? &ptpy_fastmethod_type
                                                         : &ptpy_fastfn_type);
    if (!f) return NULL;
    f->vectorcall = ptpy_fastfn_vectorcall;
    f->thunk = e->fn;
    f->nargs = e->nargs;
    f->out_thunk = o ? o->fn : NULL;
    f->out_nargs = o ? o->nargs : -1;
    Py_INCREF(slow);
    f->slow = slow;
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
}

/* _set_operator(dunder, ident or None): the thunk the number slot of dunder uses. */
static PyObject *ptpy_set_operator(PyObject *module, PyObject *args)
{
    (void)module;
    const char *dunder, *ident;
    if (!PyArg_ParseTuple(args, "sz:_set_operator", &dunder, &ident)) return NULL;
    for (int i = 0; i < PTPY_OPERATOR_COUNT; i++) {
        if (strcmp(ptpy_operators[i].dunder, dunder) != 0) continue;
        const ptpy_thunk_entry *e = ident ? ptpy_find_thunk(ident) : NULL;
        if (ident && !e) return PyErr_Format(PyExc_ValueError, "ident: no thunk for %s", ident);
        ptpy_operators[i].thunk = e ? e->fn : NULL;
        Py_RETURN_NONE;
    }
    return PyErr_Format(PyExc_ValueError, "dunder: %s has no number slot", dunder);
}

static void ptpy_keep(PyObject **slot, PyObject *value)
{
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(old);
}

/* _python_setup(Tensor, ctype, fail, operator_fallback, Size, dtypes, device): the objects the
 * fast paths use. */
static PyObject *ptpy_python_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *cls, *ctype, *fail, *fallback, *size, *dtypes, *device;
    if (!PyArg_ParseTuple(args, "O!OOOO!O!O:_python_setup", &PyType_Type, &cls, &ctype, &fail,
                          &fallback, &PyType_Type, &size, &PyList_Type, &dtypes, &device))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)cls, &ptpy_tensor_type))
        return PyErr_Format(PyExc_TypeError, "Tensor: must subclass _TensorBase");
    if (!PyType_IsSubtype((PyTypeObject *)size, &PyTuple_Type))
        return PyErr_Format(PyExc_TypeError, "Size: must subclass tuple");
    ptpy_keep((PyObject **)&ptpy_size_cls, size);
    ptpy_keep(&ptpy_dtypes, dtypes);
    ptpy_keep(&ptpy_device_fn, device);
    ptpy_keep((PyObject **)&ptpy_tensor_cls, cls);
    ptpy_keep(&ptpy_tensor_ctype, ctype);
    ptpy_keep(&ptpy_fail_fn, fail);
    ptpy_keep(&ptpy_operator_fallback_fn, fallback);
    Py_RETURN_NONE;
}

/* _kernel_setup(finish_kernel, stash_exception): the Python halves of the kernel trampoline. */
static PyObject *ptpy_kernel_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *finish, *stash;
    if (!PyArg_ParseTuple(args, "OO:_kernel_setup", &finish, &stash)) return NULL;
    if (!ptpy_str_fn) {
        ptpy_str_fn = PyUnicode_InternFromString("fn");
        ptpy_str_handle = PyUnicode_InternFromString("handle_addr");
        if (!ptpy_str_fn || !ptpy_str_handle) return NULL;
    }
    ptpy_keep(&ptpy_stash_fn, stash);
    ptpy_keep(&ptpy_finish_kernel_fn, finish);
    Py_RETURN_NONE;
}

/* _dispatch_tensors(op address, values, capacity): pt_dispatch_call with every argument a
 * Tensor, for operators without an unboxed entry point (those defined from Python) whose
 * arguments and results are all plain Tensors; returns the list of results. */
enum { PTPY_DISPATCH_MAX = 16 };

static PyObject *ptpy_dispatch_tensors(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyList_Check(args[1]))
        return PyErr_Format(PyExc_TypeError, "_dispatch_tensors(op, values: list, capacity)");
    const pt_op *op = PyLong_AsVoidPtr(args[0]);
    const Py_ssize_t n = PyList_GET_SIZE(args[1]);
    const long capacity = PyLong_AsLong(args[2]);
    if (PyErr_Occurred()) return NULL;
    if (!op || capacity < n || capacity > PTPY_DISPATCH_MAX)
        return PyErr_Format(PyExc_ValueError, "_dispatch_tensors: bad operator or capacity");
    pt_ivalue items[PTPY_DISPATCH_MAX];
    memset(items, 0, sizeof items);
    for (Py_ssize_t i = 0; i < n; i++) {
        pt_tensor *t = ptpy_tensor_of(PyList_GET_ITEM(args[1], i));
        if (!t) return PyErr_Format(PyExc_TypeError, "_dispatch_tensors: value %zd is no Tensor", i);
        items[i].tag = PT_IV_TENSOR;
        items[i].t = t; /* borrowed, as the boxed convention passes arguments */
    }
    pt_stack stack = {items, (int32_t)n, (int32_t)capacity};
    if (pt_dispatch_call(op, &stack) != PT_OK) return ptpy_fail();
    PyObject *out = PyList_New(stack.size);
    for (int32_t i = 0; out && i < stack.size; i++) {
        PyObject *v;
        if (items[i].tag == PT_IV_TENSOR && items[i].t) {
            items[i].tag = PT_IV_NONE; /* the reference passes to the object */
            v = ptpy_wrap(items[i].t);
        } else if (items[i].tag == PT_IV_NONE) {
            Py_INCREF(Py_None);
            v = Py_None;
        } else {
            v = PyErr_Format(PyExc_RuntimeError, "a kernel returned a value of tag %d where its "
                             "schema promises a Tensor", (int)items[i].tag);
        }
        if (!v) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, v);
    }
    pt_stack_clear(&stack); /* what was not handed over */
    return out;
}

/* _wrapped_number(v): ptpy_wrapped_number for Python, None for what is not a plain number. */
static PyObject *ptpy_wrapped_number_py(PyObject *module, PyObject *v)
{
    (void)module;
    PyObject *r = ptpy_wrapped_number(v);
    if (r || PyErr_Occurred()) return r;
    Py_RETURN_NONE;
}

/* _wrap(p): a Tensor adopting the new reference p (a 'pt_tensor *' cdata). */
static PyObject *ptpy_wrap_cdata(PyObject *module, PyObject *p)
{
    (void)module;
    PyTypeObject *cls = ptpy_tensor_cls ? ptpy_tensor_cls : &ptpy_tensor_type;
    PyObject *t = cls->tp_alloc(cls, 0);
    if (!t) return NULL;
    if (ptpy_tensor_set_h(t, p, NULL) != 0) {
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

static PyObject *ptpy_fast_thunks(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *r = PyList_New(0);
    for (size_t i = 0; r && i < sizeof ptpy_thunks / sizeof ptpy_thunks[0]; i++) {
        const ptpy_thunk_entry *e = &ptpy_thunks[i];
        if (!e->fn) continue;
        PyObject *row = Py_BuildValue("(ssiii)", e->ident, e->name, (int)e->nargs,
                                      (int)e->self_first, (int)e->out_kw);
        if (!row || PyList_Append(r, row) < 0) Py_CLEAR(r);
        Py_XDECREF(row);
    }
    return r;
}

static PyMethodDef ptpy_functions[] = {
    {"_fast_function", ptpy_make_fast_function, METH_VARARGS,
     "_fast_function(ident, slow, method, out_ident=None): a C caller for pt_call_<ident>, "
     "or None"},
    {"_set_operator", ptpy_set_operator, METH_VARARGS,
     "_set_operator(dunder, ident): the operator a Tensor number slot calls"},
    {"_python_setup", ptpy_python_setup, METH_VARARGS,
     "_python_setup(Tensor, ctype, fail, operator_fallback, Size, dtypes, device)"},
    {"_fast_thunks", ptpy_fast_thunks, METH_NOARGS,
     "_fast_thunks(): (ident, operator, required arguments, self first) of every thunk"},
    {"_wrap", ptpy_wrap_cdata, METH_O, "_wrap(p): a Tensor adopting the reference p"},
    {"_wrapped_number", ptpy_wrapped_number_py, METH_O,
     "_wrapped_number(v): a Python number as a 0-dim wrapped-number tensor, or None"},
    {"_dispatch_tensors", (PyCFunction)(void (*)(void))ptpy_dispatch_tensors, METH_FASTCALL,
     "_dispatch_tensors(op address, values, capacity): a boxed call of Tensors only"},
    {"_kernel_setup", ptpy_kernel_setup, METH_VARARGS,
     "_kernel_setup(finish_kernel, stash_exception): Note [Python kernels in C]"},
    {NULL, NULL, 0, NULL},
};

/* Adds _TensorBase, _FastFunction, _FastMethod and the functions above to pytensor._C._core.
 * cffi calls this with the GIL released; a failure is printed and reported as -1. */
static int pt_py_install(void)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int rc = -1;
    PyObject *module = PyImport_ImportModule("pytensor._C._core");
    if (!module) goto done;
    /* A type with tp_richcompare and no tp_hash is unhashable; a Tensor hashes by identity, as
     * torch's does. */
    ptpy_tensor_type.tp_hash = PyBaseObject_Type.tp_hash;
    if (PyType_Ready(&ptpy_tensor_type) < 0 || PyType_Ready(&ptpy_fastfn_type) < 0 ||
        PyType_Ready(&ptpy_fastmethod_type) < 0)
        goto done;
    if (PyObject_SetAttrString(module, "_TensorBase", (PyObject *)&ptpy_tensor_type) < 0 ||
        PyObject_SetAttrString(module, "_FastFunction", (PyObject *)&ptpy_fastfn_type) < 0 ||
        PyObject_SetAttrString(module, "_FastMethod", (PyObject *)&ptpy_fastmethod_type) < 0 ||
        PyModule_AddFunctions(module, ptpy_functions) < 0)
        goto done;
    rc = 0;
done:
    if (rc != 0) PyErr_Print();
    Py_XDECREF(module);
    PyGILState_Release(gil);
    return rc;
}
