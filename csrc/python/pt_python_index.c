/* pt_python_index.c - `t[index]` and `t[index] = number` for the common index forms, as the
 * mapping slots of _TensorBase.
 *
 * Note [indexing in C]
 * pytensor.Tensor's indexing is Python (pytensor/_indexing.py, through _tensor._getitem), whose
 * frame alone costs more than the view it makes. The slots here take the forms that need no
 * decision Python makes, on exact pytensor.Tensor objects, and compute them with the same calls
 * the Python path makes, so results, views and dispatch are the same:
 *   t[i]               an int in range: select(0, i) through select.int's thunk, as
 *                      Tensor._getitem calls it (the call stays visible to dispatch);
 *   t[i, j, ...]       ints in range, at most ndim of them: one as_strided view
 *                      (_indexing._select_many);
 *   t[a:b:c], t[i, a:b, ...]   slices of ints or None with a positive step and ints in range,
 *                      at most ndim entries: pt_tensor_slice and pt_tensor_select per entry
 *                      (_indexing.getitem's walk);
 *   t[i] = x, t[i, j] = x      those views (made as _indexing.setitem makes them) filled with
 *                      a Python int or float through fill_.Scalar, as Tensor.fill_ does.
 * Everything else - other index types, ints beyond int64 or out of range, a non-positive step,
 * too many indices, an index naming every element, subclasses of Tensor, other values - and any
 * C call that fails goes to the Python functions with nothing done, so they raise their own
 * errors. Deleting (`del t[i]`) raises what a class without __delitem__ raises.
 */
static PyObject *ptpy_getitem_fn; /* pytensor._tensor._getitem(t, index) */
static PyObject *ptpy_setitem_fn; /* pytensor._indexing.setitem(t, index, value) */
static PyObject *ptpy_zero;       /* the int 0: select's dim */

/* The most entries a tuple index may have here (more go to Python). */
enum { PTPY_INDEX_MAX = 16 };

typedef struct {
    int is_int;          /* an int; else a slice */
    int full;            /* a slice naming the whole dimension (`:`) */
    int64_t i, start, stop, step;
} ptpy_index_entry;

/* A slice bound or step: None gives `none`, an exact int (clamped to +-INT64_MAX as
 * _indexing._slice clamps); 0 for anything else, ints beyond int64 included. */
static int ptpy_slice_part(PyObject *o, int64_t none, int64_t *out)
{
    if (o == Py_None) {
        *out = none;
        return 1;
    }
    if (!ptpy_int_arg(o, out)) return 0;
    if (*out < -INT64_MAX) *out = -INT64_MAX;
    return 1;
}

/* One entry of an index, as _indexing reads it; 0 for the forms Python handles. */
static int ptpy_index_entry_read(PyObject *o, ptpy_index_entry *e)
{
    memset(e, 0, sizeof *e);
    if (PyLong_CheckExact(o)) {
        e->is_int = 1;
        return ptpy_int_arg(o, &e->i);
    }
    if (!PySlice_Check(o)) return 0;
    PySliceObject *s = (PySliceObject *)o;
    e->full = s->start == Py_None && s->stop == Py_None && s->step == Py_None;
    return ptpy_slice_part(s->step, 1, &e->step) && e->step > 0 &&
           ptpy_slice_part(s->start, 0, &e->start) &&
           ptpy_slice_part(s->stop, INT64_MAX, &e->stop);
}

/* t[i, j, ...] with n ints (0 < n <= ndim): one view of the remaining dims
 * (_indexing._select_many); NULL when an int is out of range or the call fails. */
static pt_tensor *ptpy_select_many(const pt_tensor *t, const ptpy_index_entry *e, Py_ssize_t n)
{
    const int32_t ndim = pt_tensor_ndim(t);
    const int64_t *sizes = pt_tensor_sizes(t), *strides = pt_tensor_strides(t);
    int64_t offset = pt_tensor_offset(t);
    for (Py_ssize_t d = 0; d < n; d++) {
        const int64_t size = sizes[d], i = e[d].i;
        if (i < -size || i >= size) return NULL;
        offset += (i < 0 ? i + size : i) * strides[d];
    }
    pt_tensor *r = NULL;
    if (pt_tensor_as_strided(t, ndim - (int32_t)n, sizes + n, strides + n, offset, &r) != PT_OK) {
        pt_error_clear();
        return NULL;
    }
    return r;
}

/* The entries applied one by one (_indexing.getitem's walk): an int selects, a slice narrows.
 * NULL when an int is out of range, a call fails, or no entry changes the view (Python returns
 * an alias for that). */
static pt_tensor *ptpy_walk(pt_tensor *t, const ptpy_index_entry *e, Py_ssize_t n)
{
    pt_tensor *cur = t;
    int64_t dim = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        pt_tensor *next = NULL;
        pt_status st = PT_OK;
        if (e[k].is_int) {
            const int64_t size = pt_tensor_sizes(cur)[dim];
            if (e[k].i < -size || e[k].i >= size) goto fail;
            st = pt_tensor_select(cur, dim, e[k].i, &next);
        } else {
            if (!e[k].full) st = pt_tensor_slice(cur, dim, e[k].start, e[k].stop, e[k].step, &next);
            dim++;
        }
        if (st != PT_OK) {
            pt_error_clear();
            goto fail;
        }
        if (next) {
            if (cur != t) pt_tensor_release(cur);
            cur = next;
        }
    }
    if (cur != t) return cur;
fail:
    if (cur != t) pt_tensor_release(cur);
    return NULL;
}

/* The view t[index] for the forms of Note [indexing in C], as a new reference; NULL (no
 * exception) for the others. */
static pt_tensor *ptpy_basic_view(pt_tensor *t, PyObject *index)
{
    ptpy_index_entry e[PTPY_INDEX_MAX];
    const int32_t ndim = pt_tensor_ndim(t);
    /* The views made here go around the dispatcher: a tensor that autograd tracks takes the
     * Python path, whose views are operator calls that record history. */
    if (pt_autograd_requires_grad(t)) return NULL;
    if (!PyTuple_CheckExact(index)) {
        if (ndim == 0 || !ptpy_index_entry_read(index, &e[0])) return NULL;
        return ptpy_walk(t, e, 1); /* an int: _indexing._select */
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(index);
    if (n == 0 || n > ndim || n > PTPY_INDEX_MAX) return NULL;
    int ints = 1;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!ptpy_index_entry_read(PyTuple_GET_ITEM(index, k), &e[k])) return NULL;
        ints &= e[k].is_int;
    }
    return ints ? ptpy_select_many(t, e, n) : ptpy_walk(t, e, n);
}

static PyObject *ptpy_tensor_subscript(PyObject *self, PyObject *index)
{
    pt_tensor *t = ((ptpy_tensor *)self)->ptr;
    if (t && Py_TYPE(self) == ptpy_tensor_cls && ptpy_zero) {
        int64_t i;
        if (ptpy_int_arg(index, &i)) {
            const int64_t size = pt_tensor_ndim(t) ? pt_tensor_sizes(t)[0] : 0;
            if (i >= -size && i < size) {
                PyObject *args[3] = {self, ptpy_zero, index};
                PyObject *r = ptpy_thunk_select_int(args, &ptpy_no_extra);
                if (r || PyErr_Occurred()) return r;
            }
        } else {
            pt_tensor *v = ptpy_basic_view(t, index);
            if (v) return ptpy_wrap(v);
        }
    }
    if (!ptpy_getitem_fn)
        return PyErr_Format(PyExc_RuntimeError, "indexing: pytensor._C is not set up yet");
    PyObject *args[2] = {self, index};
    return PyObject_Vectorcall(ptpy_getitem_fn, args, 2, NULL);
}

/* t[index] = number on a view of the forms above; 1 done, 0 for Python, -1 raised. */
static int ptpy_fill_view(pt_tensor *t, PyObject *index, PyObject *value)
{
    pt_scalar s;
    if (!(PyFloat_CheckExact(value) || PyLong_CheckExact(value)) || !ptpy_scalar_arg(value, &s))
        return 0;
    if (!(PyLong_CheckExact(index) || PyTuple_CheckExact(index))) return 0;
    if (PyTuple_CheckExact(index)) { /* ints only, as _indexing.setitem sends slices elsewhere */
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(index); k++)
            if (!PyLong_CheckExact(PyTuple_GET_ITEM(index, k))) return 0;
    }
    pt_tensor *view = ptpy_basic_view(t, index);
    if (!view) return 0;
    pt_tensor *r;
    if (ptpy_heavy(pt_tensor_numel(view))) {
        Py_BEGIN_ALLOW_THREADS
        r = pt_call_fill__Scalar(view, &s);
        Py_END_ALLOW_THREADS
    } else {
        r = pt_call_fill__Scalar(view, &s);
    }
    pt_tensor_release(view);
    if (!r) {
        ptpy_fail();
        return -1;
    }
    pt_tensor_release(r);
    return 1;
}

static int ptpy_tensor_ass_subscript(PyObject *self, PyObject *index, PyObject *value)
{
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "__delitem__");
        return -1;
    }
    pt_tensor *t = ((ptpy_tensor *)self)->ptr;
    if (t && Py_TYPE(self) == ptpy_tensor_cls) {
        const int done = ptpy_fill_view(t, index, value);
        if (done) return done > 0 ? 0 : -1;
    }
    if (!ptpy_setitem_fn) {
        PyErr_SetString(PyExc_RuntimeError, "indexing: pytensor._C is not set up yet");
        return -1;
    }
    PyObject *args[3] = {self, index, value};
    PyObject *r = PyObject_Vectorcall(ptpy_setitem_fn, args, 3, NULL);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static PyMappingMethods ptpy_tensor_mapping = {
    .mp_subscript = ptpy_tensor_subscript,
    .mp_ass_subscript = ptpy_tensor_ass_subscript,
};
