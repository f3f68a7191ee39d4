/* pt_python_callers.c - _FastFunction and _FastMethod: the callers that pair an operator
 * function's or method's generated thunk (and its out= overload's) with the Python binding that
 * serves every call the thunk declines (Note [Python fast paths] in pt_python.c).
 *
 * Part of the cffi module's one translation unit: tools/build_cffi.py includes pt_python.c, this
 * file and pt_python_module.c in that order, so each sees what the ones before it define.
 */
/* ---------------------------------------------------------------- fast callers */
/* Note [overload chains]
 * pytensor._opargs.resolve tries a name's overloads in order and calls the first whose bind
 * takes the arguments. A caller holds the same overloads in the same order (Python describes
 * each from its View: the parameter names, their schema slots, which are required, how many are
 * positional, the int-list varargs) and walks them the same way, with one rule: it moves past an
 * overload only when the arguments certainly do not bind to it by their shape alone — too many
 * positional arguments, a keyword it does not name, a required one missing, one given twice — for
 * then bind raises Mismatch whatever the values; so does a Python number for a Tensor parameter
 * of an overload that takes no numbers. The first overload the shape fits decides:
 * its thunk takes the call when every value has the exact type it reads; otherwise (no thunk,
 * or a value it does not read, such as a NumPy number or a list of tensors) the Python binding
 * takes the whole call and resolves it itself, so its semantics and every error stay its own.
 * NumPy's keyword names (axis=, keepdims=) and out=None, which resolve rewrites first, go to the
 * binding directly. */
typedef struct {
    ptpy_thunk thunk;      /* NULL: a call that reaches this overload goes to the binding */
    int32_t nslots;        /* the thunk's args: schema arguments */
    int32_t nparams;       /* parameters Python sees (a method's self excluded) */
    int32_t npos;          /* how many of them may be given positionally (they come first) */
    int32_t self_slot;     /* a method's self: its schema slot, else -1 */
    int32_t varargs;       /* params[0] is an int list that takes `f(2, 3)` */
    int32_t numbers;       /* Tensor parameters take Python numbers (wrapped) */
    PyObject *const *names;/* nparams interned names, borrowed from the caller's spec */
    int8_t slot[PTPY_MAX_SLOTS];
    int8_t required[PTPY_MAX_SLOTS];
    int8_t tensor[PTPY_MAX_SLOTS]; /* a Tensor parameter that no Python number binds to */
} ptpy_overload;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Py_ssize_t n;
    ptpy_overload *overloads; /* PyMem_Malloc'ed; n of them */
    int keywords;             /* 0: calls with keywords go to the binding */
    int has_out;              /* one of the thunks is an out= overload's */
    int same_self;            /* a result holding self's tensor is self's object */
    PyObject *spec;           /* what the overloads were read from (keeps the names alive) */
    PyObject *slow;           /* the Python binding: every call no thunk takes */
} ptpy_fastfn;

static PyObject *ptpy_str_out, *ptpy_str_axis, *ptpy_str_keepdims; /* interned */

static inline int ptpy_name_is(PyObject *a, PyObject *b)
{
    return a == b || (PyUnicode_GET_LENGTH(a) == PyUnicode_GET_LENGTH(b) &&
                      PyUnicode_Compare(a, b) == 0);
}

/* Keywords that pytensor._opargs.resolve rewrites before binding. */
static int ptpy_numpy_keywords(PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    const Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        if (ptpy_name_is(name, ptpy_str_axis) || ptpy_name_is(name, ptpy_str_keepdims))
            return 1;
        if (ptpy_name_is(name, ptpy_str_out) && args[n + k] == Py_None) return 1;
    }
    return 0;
}

enum { PTPY_NO_FIT = 0, PTPY_FITS = 1, PTPY_BINDING = 2 };

/* Fills args' slots for overload o by the shape of the call (Note [overload chains]). */
static int ptpy_fit(const ptpy_overload *o, PyObject *const *args, Py_ssize_t n,
                    PyObject *kwnames, PyObject **slots, ptpy_extra *x)
{
    memset(slots, 0, (size_t)o->nslots * sizeof *slots);
    Py_ssize_t first = 0;
    if (o->self_slot >= 0) {
        /* the binding takes a method's self as it is, never as a wrapped number */
        if (n < 1 || !ptpy_tensor_of(args[0])) return PTPY_BINDING;
        slots[o->self_slot] = args[0];
        first = 1;
    }
    PyObject *const *pos = args + first;
    Py_ssize_t npos = n - first;
    const Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (o->varargs && npos >= 1 && !PyTuple_Check(pos[0]) && !PyList_Check(pos[0])) {
        if (!PyLong_CheckExact(pos[0])) return PTPY_BINDING; /* an __index__ object, or not */
        x->sugar = pos;
        x->nsugar = npos;
        slots[o->slot[0]] = ptpy_sugar_mark;
        npos = 1;
        pos = NULL;
    }
    if (npos > o->npos) return PTPY_NO_FIT;
    for (Py_ssize_t i = 0; pos && i < npos; i++) slots[o->slot[i]] = pos[i];
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int32_t j = 0;
        while (j < o->nparams && o->names[j] != name) j++;
        if (j == o->nparams) /* names are interned, kwnames usually are: compare text too */
            for (j = 0; j < o->nparams && !ptpy_name_is(o->names[j], name); j++) {}
        if (j == o->nparams || j < npos) return PTPY_NO_FIT; /* unknown, or given twice */
        slots[o->slot[j]] = args[n + k];
    }
    for (int32_t j = 0; j < o->nparams; j++) {
        PyObject *v = slots[o->slot[j]];
        if (o->required[j] && !v) return PTPY_NO_FIT;
        /* bind refuses a number for such a parameter, whatever its value (`clamp(min=0)` is
         * not clamp.Tensor's) */
        if (o->tensor[j] && v && (PyLong_CheckExact(v) || PyFloat_CheckExact(v) ||
                                  PyBool_Check(v) || PyComplex_CheckExact(v)))
            return PTPY_NO_FIT;
    }
    return PTPY_FITS;
}

static PyObject *ptpy_fastfn_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames)
{
    ptpy_fastfn *f = (ptpy_fastfn *)self;
    const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames && PyTuple_GET_SIZE(kwnames) == 0) kwnames = NULL;
    if (!kwnames || (f->keywords && !ptpy_numpy_keywords(args, n, kwnames))) {
        PyObject *slots[PTPY_MAX_SLOTS];
        for (Py_ssize_t i = 0; i < f->n; i++) {
            const ptpy_overload *o = &f->overloads[i];
            ptpy_extra x = {NULL, 0, o->numbers};
            const int fit = ptpy_fit(o, args, n, kwnames, slots, &x);
            if (fit == PTPY_NO_FIT) continue;
            if (fit == PTPY_FITS && o->thunk) {
                PyObject *r = o->thunk(slots, &x);
                if (r && f->same_self && ptpy_tensor_of(r) == ptpy_tensor_of(args[0])) {
                    Py_DECREF(r);
                    Py_INCREF(args[0]);
                    return args[0];
                }
                if (r || PyErr_Occurred()) return r;
            }
            break;
        }
    }
    if (!f->slow) return PyErr_Format(PyExc_TypeError, "this operator caller was cleared");
    return PyObject_Vectorcall(f->slow, args, nargsf, kwnames);
}

static int ptpy_fastfn_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((ptpy_fastfn *)self)->slow);
    Py_VISIT(((ptpy_fastfn *)self)->spec);
    return 0;
}

/* The overloads borrow the spec's names, so both go together (only the collector clears a
 * caller; one cleared answers every call with TypeError). */
static int ptpy_fastfn_clear(PyObject *self)
{
    ptpy_fastfn *f = (ptpy_fastfn *)self;
    f->n = 0;
    PyMem_Free(f->overloads);
    f->overloads = NULL;
    Py_CLEAR(f->spec);
    Py_CLEAR(f->slow);
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
    return PyBool_FromLong(((ptpy_fastfn *)self)->has_out);
}

/* (slow, spec, keywords, same_self), or None for a caller made by _fast_function: what
 * _fast_caller takes to make the same chain again (the tests pair it with another binding). */
static PyObject *ptpy_fastfn_chain(PyObject *self, void *closure)
{
    (void)closure;
    ptpy_fastfn *f = (ptpy_fastfn *)self;
    if (!f->spec || !f->slow) Py_RETURN_NONE;
    return Py_BuildValue("(OOii)", f->slow, f->spec, f->keywords, f->same_self);
}

static PyGetSetDef ptpy_fastfn_getset[] = {
    {"_chain", ptpy_fastfn_chain, NULL, "(binding, overloads, keywords, same_self)", NULL},
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
