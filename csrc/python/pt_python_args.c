/* pt_python_args.c - how the thunks of pt_pyfast.c read Python objects (Note [Python fast paths]
 * in pt_python.c): one reader per argument type, each taking only the exact types whose value
 * pytensor._opargs.convert gives the same way and declining (0, no exception) on the rest.
 *
 * Included by pt_python.c after the Tensor object's layout, before the thunks.
 */
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

static inline int ptpy_bool_arg(PyObject *o, int32_t *out)
{
    if (o == Py_True) *out = 1;
    else if (o == Py_False) *out = 0;
    else return 0;
    return 1;
}

/* What a thunk reads beyond its argument slots: the int-list varargs (`t.view(2, 3)`: the slot of
 * the list holds ptpy_sugar_mark and the ints are sugar[0 .. nsugar)) and whether a Tensor
 * argument takes a Python number as a wrapped number (the caller's group takes numbers, as
 * pytensor._ops.Group.numbers says). */
typedef struct {
    PyObject *const *sugar;
    Py_ssize_t nsugar;
    int numbers;
} ptpy_extra;

static const ptpy_extra ptpy_no_extra = {NULL, 0, 0};
static PyObject ptpy_sugar_object = {0}; /* only its address is used */
#define ptpy_sugar_mark (&ptpy_sugar_object)

static inline int64_t ptpy_numel(const pt_tensor *t) { return t ? pt_tensor_numel(t) : 0; }

/* A Tensor argument: the tensor of a Tensor object, or with x->numbers a plain Python number
 * wrapped as a 0-dim tensor (*wrapped gets the new object, which the thunk releases). */
static inline int ptpy_tensor_arg(PyObject *o, const ptpy_extra *x, PyObject **wrapped,
                                  pt_tensor **out)
{
    pt_tensor *t = ptpy_tensor_of(o);
    if (t) {
        *out = t;
        return 1;
    }
    if (!x->numbers) return 0;
    PyObject *w = ptpy_wrapped_number(o);
    if (!w) { /* not a number, or an int beyond int64: the binding decides */
        PyErr_Clear();
        return 0;
    }
    *wrapped = w;
    *out = ((ptpy_tensor *)w)->ptr;
    return 1;
}

/* A float argument: a float, or an int or bool as float(v) (pytensor._opargs._c_float). */
static inline int ptpy_number_arg(PyObject *o, double *out)
{
    if (PyFloat_CheckExact(o)) {
        *out = PyFloat_AS_DOUBLE(o);
        return 1;
    }
    if (o == Py_True || o == Py_False) {
        *out = o == Py_True;
        return 1;
    }
    if (!PyLong_CheckExact(o)) return 0;
    double v = PyLong_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = v;
    return 1;
}

/* A Scalar argument, as pytensor._args._scalar makes it (an int beyond int64 declines). */
static inline int ptpy_scalar_arg(PyObject *o, pt_scalar *out)
{
    memset(out, 0, sizeof *out);
    if (o == Py_True || o == Py_False) {
        out->kind = PT_SCALAR_BOOL;
        out->i = o == Py_True;
    } else if (PyLong_CheckExact(o)) {
        out->kind = PT_SCALAR_INT;
        return ptpy_int_arg(o, &out->i);
    } else if (PyFloat_CheckExact(o)) {
        out->kind = PT_SCALAR_FLOAT;
        out->re = PyFloat_AS_DOUBLE(o);
    } else if (PyComplex_CheckExact(o)) {
        out->kind = PT_SCALAR_COMPLEX;
        out->re = PyComplex_RealAsDouble(o);
        out->im = PyComplex_ImagAsDouble(o);
    } else {
        return 0;
    }
    return 1;
}

/* A dtype argument: one of the pytensor.dtype objects (Python's float, int, ... take the
 * binding's path). */
static inline int ptpy_dtype_arg(PyObject *o, int32_t *out)
{
    if (!ptpy_dtypes) return 0;
    const Py_ssize_t n = PyList_GET_SIZE(ptpy_dtypes);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_GET_ITEM(ptpy_dtypes, i) == o) {
            *out = (int32_t)i;
            return 1;
        }
    }
    return 0;
}

/* An int-list argument: the varargs ints, a tuple, list or Size of ints, or for a fixed-size
 * list (n_fixed > 0) one int repeated; at most cap of them. */
static inline int ptpy_ints_arg(PyObject *o, const ptpy_extra *x, int n_fixed, int64_t *buf,
                                int cap, int32_t *n)
{
    PyObject *const *items;
    Py_ssize_t len;
    if (o == ptpy_sugar_mark) {
        items = x->sugar;
        len = x->nsugar;
    } else if (PyTuple_CheckExact(o) || (ptpy_size_cls && Py_TYPE(o) == ptpy_size_cls)) {
        items = &PyTuple_GET_ITEM(o, 0);
        len = PyTuple_GET_SIZE(o);
    } else if (PyList_CheckExact(o)) {
        items = PySequence_Fast_ITEMS(o);
        len = PyList_GET_SIZE(o);
    } else if (n_fixed > 0 && n_fixed <= cap && PyLong_CheckExact(o)) {
        if (!ptpy_int_arg(o, &buf[0])) return 0;
        for (int i = 1; i < n_fixed; i++) buf[i] = buf[0];
        *n = n_fixed;
        return 1;
    } else {
        return 0;
    }
    if (len > cap) return 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (!ptpy_int_arg(items[i], &buf[i])) return 0;
    *n = (int32_t)len;
    return 1;
}
