/* pt_python.c - the few Python objects whose speed decides the cost of a small operator: the
 * Tensor base type and its number slots here, the callers of operator functions and methods in
 * pt_python_callers.c, the module's functions in pt_python_module.c.
 *
 * These files are not part of the core library: tools/build_cffi.py includes them, in that order,
 * in the source of the cffi module pytensor._C._core, after cffi's own prelude, so that they can
 * use the CPython API and cffi's conversions between cdata pointers and C pointers. Everything
 * else Python does with the core still goes through cffi's `lib`; pt_py_install()
 * (pt_python_module.c) adds the objects to the module.
 *
 * Note [Python fast paths]
 * A cffi call costs 50-120 ns, a Python function frame ~50 ns, and a Python `__del__` ~100 ns
 * plus the release call, which together put `a + b` on 1-element tensors near 0.6 us however
 * cheap the C side is. So, as PyTorch does with torch._C.TensorBase and its generated bindings:
 *  - _TensorBase holds the tensor's reference as a C pointer and releases it in tp_dealloc (no
 *    Python frame); `t._h`, the `pt_tensor *` cdata every Python wrapper passes to cffi, is made
 *    from that pointer on first read and kept. pytensor.Tensor is a Python subclass.
 *  - tools/gen_pyfast.py writes, per operator overload, a thunk (pt_pyfast.c) that reads the
 *    objects given for its arguments by exact type, passes the others' defaults as C constants
 *    and calls the unboxed entry point pt_call_<op> directly. A thunk returns NULL without an
 *    exception to decline; the caller then runs the Python binding (made by pytensor/_opsgen.py,
 *    or written by hand for the factories and a few Tensor methods), which gives the same result
 *    for the same arguments and owns every error message. _FastFunction / _FastMethod
 *    (vectorcall; the method form is a method descriptor, so `t.add(u)` creates no bound
 *    method) walk a name's overloads as the binding would, keywords and int-list sugar
 *    included, and run the thunk of the one the call reaches (Note [overload chains] in
 *    pt_python_callers.c).
 *  - The mapping slots of _TensorBase take `t[i]`, `t[i, j]`, slices and `t[i] = x` in C (Note
 *    [indexing in C] in pt_python_index.c), the other index forms in Python.
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

/* Note [one Python object per tensor]
 * As torch keeps one PyObject per TensorImpl, a C tensor has at most one live Tensor object: the
 * tensor's slot (pt_tensor_pyobj_offset, pytensor.h) holds the address of the object wrapping it, a
 * borrowed pointer set when the object adopts the tensor and cleared when the object goes. A C
 * tensor handed to Python again (a saved variable, a view's base, .grad, an operator returning its
 * input, a hook's argument) finds its object there and comes back as that object, with its
 * attributes and its class (a subclass instance stays one); the reference that came with it is
 * dropped, since the object holds one already. The object owns the C tensor and the slot does not
 * own the object, so there is no cycle: a Tensor is freed by reference counting as before, and
 * wrapping a fresh result costs one load of a NULL slot.
 *  - Objects take the slot when they adopt a tensor: in ptpy_wrap (results, Python's `_wrap`) and
 *    in the `_h` setter (Tensor.as_subclass makes an instance of a subclass that way).
 *  - The GIL guards the slot: it is read and written only by code holding it (a C thread of the
 *    core never touches it), so threads wrapping the same tensor get the same object. Python
 *    code can still run inside a wrap, when allocating the object starts the cyclic collector
 *    (finalizers, weak reference callbacks), so the slot is read again after the allocation.
 *  - An object being deallocated (reference count 0) is still in the slot while its weak
 *    references' callbacks and its attributes' destructors run, and those may hand the same C
 *    tensor to Python (another view's ._base): such a call gets a new object, which takes the slot,
 *    and the dying one clears the slot only if it still holds it.
 *  - Unlike torch, an object is not kept ("resurrected") when its last Python reference goes while
 *    C still holds the tensor: a later return makes a new object, without the old attributes. */
static size_t ptpy_slot_offset; /* pt_tensor_pyobj_offset(), read by pt_py_install */
#define PTPY_SLOT(r) (*(PyObject **)((char *)(r) + ptpy_slot_offset))

static inline PyObject *ptpy_existing(pt_tensor *r)
{
    PyObject *o = PTPY_SLOT(r);
    return o && Py_REFCNT(o) > 0 ? o : NULL;
}

/* A new object t (NULL: its allocation failed) adopts the reference r and its `_h` cdata (or NULL)
 * and takes r's slot, unless the allocation ran Python (the cyclic collector: finalizers, weak
 * reference callbacks) that gave r an object meanwhile: then that one is returned and t dropped. */
static PyObject *ptpy_adopt(ptpy_tensor *t, pt_tensor *r, PyObject *cdata)
{
    PyObject *o = t ? ptpy_existing(r) : NULL;
    if (!t || o) {
        Py_XDECREF(t);
        pt_tensor_release(r);
        Py_XINCREF(o);
        return o;
    }
    Py_XINCREF(cdata);
    t->cdata = cdata;
    t->ptr = r;
    PTPY_SLOT(r) = (PyObject *)t;
    return (PyObject *)t;
}

/* The Tensor object of the reference r: the live one when r has one (Note [one Python object per
 * tensor]; r's reference is dropped), else a new object adopting r. NULL: raises the C error. */
static PyObject *ptpy_wrap(pt_tensor *r)
{
    if (!r) return ptpy_fail();
    PyObject *o = ptpy_existing(r);
    if (o) {
        pt_tensor_release(r);
        Py_INCREF(o);
        return o;
    }
    PyTypeObject *cls = ptpy_tensor_cls ? ptpy_tensor_cls : &ptpy_tensor_type;
    ptpy_tensor *t = (ptpy_tensor *)cls->tp_alloc(cls, 0);
    return ptpy_adopt(t, r, NULL);
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

static PyObject *ptpy_dtypes;       /* list: dtype id -> pytensor.dtype */
static PyTypeObject *ptpy_size_cls; /* pytensor.Size (a tuple subclass) */
static PyObject *ptpy_wrapped_number(PyObject *o);

#include "pt_python_args.c" /* the thunks' argument readers */

static void ptpy_tensor_dealloc(PyObject *self)
{
    ptpy_tensor *t = (ptpy_tensor *)self;
    /* First, before weak reference callbacks can run Python (Note [one Python object per tensor]). */
    if (t->ptr && PTPY_SLOT(t->ptr) == self) PTPY_SLOT(t->ptr) = NULL;
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
    /* The slot of the tensor it held is given up, and the object takes the new tensor's slot
     * unless another live object holds it (Note [one Python object per tensor]). */
    if (old && PTPY_SLOT(old) == self) PTPY_SLOT(old) = NULL;
    if (!ptpy_existing(t->ptr)) PTPY_SLOT(t->ptr) = self;
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
/* args[i] is the object given for schema argument i, NULL where it was left at its default. */
typedef PyObject *(*ptpy_thunk)(PyObject *const *args, const ptpy_extra *x);

typedef struct {
    const char *ident;   /* pt_call_<ident> */
    const char *name;    /* "aten::add.Tensor" */
    ptpy_thunk fn;
    int32_t nargs;       /* required positional arguments, in schema order */
    int32_t self_first;  /* the first argument is `Tensor self` (usable as a method) */
    int32_t out_kw;      /* an out= overload (its keyword-only `out` is required) */
    int32_t nslots;      /* schema arguments: the length of the thunk's args */
} ptpy_thunk_entry;

enum { PTPY_MAX_SLOTS = 24 }; /* tools/gen_pyfast.py MAX_SLOTS */

#include "pt_pyfast.c" /* generated: static const ptpy_thunk_entry ptpy_thunks[] */

/* t.item() of a float or integer tensor (the others, and errors, decline to Tensor.item). The
 * generator makes thunks of Tensor results only; this one returns the Python number that
 * Tensor.item makes from the same pt_scalar. */
static PyObject *ptpy_thunk_item(PyObject *const *args, const ptpy_extra *x)
{
    (void)x;
    pt_tensor *t = ptpy_tensor_of(args[0]);
    pt_scalar s;
    if (!t || pt_call_item(t, &s) != PT_OK) {
        pt_error_clear();
        return NULL;
    }
    if (s.kind == PT_SCALAR_FLOAT) return PyFloat_FromDouble(s.re);
    if (s.kind == PT_SCALAR_INT) return PyLong_FromLongLong(s.i);
    return NULL;
}

/* pytensor.tensor(data) of a flat list or tuple of Python numbers of one kind: floats (ints
 * among them are read as floats) in the default dtype when that is float32 or float64, ints in
 * int64, bools in bool, as pytensor._factory.tensor infers and packs them. Anything else (nesting,
 * complex numbers, an empty list, another default dtype) declines to that function. */
static PyObject *ptpy_thunk_tensor_list(PyObject *const *args, const ptpy_extra *x)
{
    (void)x;
    PyObject *o = args[0];
    if (!PyList_CheckExact(o) && !PyTuple_CheckExact(o)) return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject **items = PySequence_Fast_ITEMS(o);
    if (n == 0) return NULL;
    int floats = 0, ints = 0, bools = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = items[i];
        if (PyFloat_CheckExact(v)) floats = 1;
        else if (PyLong_CheckExact(v)) ints = 1;
        else if (v == Py_True || v == Py_False) bools = 1;
        else return NULL;
    }
    if (bools && (floats || ints)) return NULL;
    int32_t dtype = bools ? PT_BOOL : floats ? pt_dtype_default() : PT_INT64;
    if (dtype != PT_BOOL && dtype != PT_INT64 && dtype != PT_FLOAT32 && dtype != PT_FLOAT64)
        return NULL;
    const int64_t size = n;
    pt_tensor *t = NULL;
    pt_device cpu = {PT_DEV_CPU, 0};
    if (pt_tensor_empty(1, &size, dtype, cpu, &t) != PT_OK) {
        pt_error_clear();
        return NULL;
    }
    void *data = pt_tensor_data(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = items[i];
        int64_t iv = 0;
        double dv = 0.0;
        if (dtype == PT_BOOL) {
            ((uint8_t *)data)[i] = v == Py_True;
            continue;
        }
        if (PyFloat_CheckExact(v)) {
            dv = PyFloat_AS_DOUBLE(v);
        } else if (dtype == PT_INT64 ? !ptpy_int_arg(v, &iv) : !ptpy_number_arg(v, &dv)) {
            pt_tensor_release(t); /* an int beyond int64 (or a double) */
            return NULL;
        }
        if (dtype == PT_INT64) ((int64_t *)data)[i] = iv;
        else if (dtype == PT_FLOAT64) ((double *)data)[i] = dv;
        else ((float *)data)[i] = (float)dv;
    }
    return ptpy_wrap(t);
}

/* Thunks written here rather than generated, found by ident as the generated ones are. */
static const ptpy_thunk_entry ptpy_written_thunks[] = {
    {"item", "aten::item", ptpy_thunk_item, 1, 1, 0, 1},
    {"tensor_list", "pytensor.tensor", ptpy_thunk_tensor_list, 1, 0, 0, 1},
};

#include "pt_python_index.c" /* the mapping slots: t[index], t[index] = value */

static const ptpy_thunk_entry *ptpy_find_thunk(const char *ident)
{
    for (size_t i = 0; i < sizeof ptpy_thunks / sizeof ptpy_thunks[0]; i++)
        if (ptpy_thunks[i].fn && strcmp(ptpy_thunks[i].ident, ident) == 0) return &ptpy_thunks[i];
    for (size_t i = 0; i < sizeof ptpy_written_thunks / sizeof ptpy_written_thunks[0]; i++)
        if (strcmp(ptpy_written_thunks[i].ident, ident) == 0) return &ptpy_written_thunks[i];
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
    /* The overload that takes the other operand as a Scalar, for a Python number (torch's
     * `x ** 3` calls pow.Tensor_Scalar): NULL where the wrapped-number tensor form serves. */
    ptpy_thunk number_thunk;
} ptpy_operator;

/* Schema arguments of an operator a number slot calls (its others are left at their defaults). */
enum { PTPY_OPERATOR_SLOTS = 4 };

/* REFL is the form of the reflected dunder: commuted where the operator is symmetric. */
#define PTPY_DUNDERS(NAME, name, REFL)                                                            \
    [PTPY_##NAME] = {"__" name "__", PTPY_BINARY, NULL},                                          \
    [PTPY_R##NAME] = {"__r" name "__", REFL, NULL},                                               \
    [PTPY_I##NAME] = {"__i" name "__", PTPY_INPLACE, NULL}
static ptpy_operator ptpy_operators[PTPY_OPERATOR_COUNT] = {
    PTPY_DUNDERS(ADD, "add", PTPY_COMMUTED),
    PTPY_DUNDERS(SUB, "sub", PTPY_BINARY), /* __rsub__ is rsub(self, other), as torch's */
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
    if (o->number_thunk && (PyLong_CheckExact(other) || PyFloat_CheckExact(other) ||
                            PyBool_Check(other) || PyComplex_CheckExact(other))) {
        PyObject *args[PTPY_OPERATOR_SLOTS] = {self, other};
        if (o->form == PTPY_REFLECTED) {
            args[0] = other;
            args[1] = self;
        }
        PyObject *r = o->number_thunk(args, &ptpy_no_extra);
        if (r || PyErr_Occurred()) return r;
    }
    if (o->thunk) {
        PyObject *wrapped = NULL;
        if (!ptpy_tensor_of(other)) {
            wrapped = ptpy_wrapped_number(other);
            if (!wrapped && PyErr_Occurred()) return NULL;
        }
        if (wrapped || ptpy_tensor_of(other)) {
            PyObject *operand = wrapped ? wrapped : other;
            PyObject *args[PTPY_OPERATOR_SLOTS] = {self, operand};
            if (o->form == PTPY_REFLECTED) {
                args[0] = operand;
                args[1] = self;
            }
            PyObject *r = o->thunk(args, &ptpy_no_extra);
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
        PyObject *args[PTPY_OPERATOR_SLOTS] = {a};
        PyObject *r = o->thunk(args, &ptpy_no_extra);
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
              "object, the number slots, comparisons and indexing (Note [Python fast paths]).",
    .tp_basicsize = sizeof(ptpy_tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = ptpy_tensor_new,
    .tp_dealloc = ptpy_tensor_dealloc,
    .tp_weaklistoffset = offsetof(ptpy_tensor, weakrefs),
    .tp_getset = ptpy_tensor_getset,
    .tp_methods = ptpy_tensor_methods,
    .tp_as_number = &ptpy_tensor_number,
    .tp_as_mapping = &ptpy_tensor_mapping,
    .tp_richcompare = ptpy_richcompare,
};
