/* pt_python_callers.c - _FastFunction and _FastMethod: the callers that pair an operator
 * function's or method's generated thunk (and its out= overload's) with the Python binding that
 * serves every call the thunk declines (Note [Python fast paths] in pt_python.c).
 *
 * Part of the cffi module's one translation unit: tools/build_cffi.py includes pt_python.c, this
 * file and pt_python_module.c in that order, so each sees what the ones before it define.
 */
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
