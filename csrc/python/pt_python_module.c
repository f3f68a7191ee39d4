/* pt_python_module.c - the C side of Python kernels (Note [Python kernels in C]) and the functions
 * pt_py_install() adds to pytensor._C._core: making the fast callers, the operators behind the
 * Tensor number slots, the setup calls of the Python layer, and the install itself.
 *
 * Part of the cffi module's one translation unit, after pt_python.c and pt_python_callers.c
 * (tools/build_cffi.py).
 */
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
static ptpy_fastfn *ptpy_fastfn_new(PyObject *slow, int method, Py_ssize_t n)
{
    if (!PyCallable_Check(slow)) return (ptpy_fastfn *)PyErr_Format(PyExc_TypeError,
                                                                    "slow: not callable");
    if (!ptpy_str_out) {
        ptpy_str_out = PyUnicode_InternFromString("out");
        ptpy_str_axis = PyUnicode_InternFromString("axis");
        ptpy_str_keepdims = PyUnicode_InternFromString("keepdims");
        if (!ptpy_str_out || !ptpy_str_axis || !ptpy_str_keepdims) return NULL;
    }
    ptpy_overload *o = PyMem_Calloc((size_t)(n ? n : 1), sizeof *o);
    if (!o) return (ptpy_fastfn *)PyErr_NoMemory();
    ptpy_fastfn *f = PyObject_GC_New(ptpy_fastfn, method ? &ptpy_fastmethod_type
                                                         : &ptpy_fastfn_type);
    if (!f) {
        PyMem_Free(o);
        return NULL;
    }
    f->vectorcall = ptpy_fastfn_vectorcall;
    f->n = n;
    f->overloads = o;
    f->keywords = 0;
    f->same_self = 0;
    f->has_out = 0;
    f->spec = NULL;
    Py_INCREF(slow);
    f->slow = slow;
    return f;
}

/* _fast_function(ident, slow, method) -> a caller of pt_call_<ident>'s thunk for positional
 * calls of its required arguments, with `slow` for every other call; None when the generator
 * made no thunk for it (or, for a method, when its first argument is not `self`). */
static PyObject *ptpy_make_fast_function(PyObject *module, PyObject *args)
{
    (void)module;
    const char *ident;
    PyObject *slow;
    int method;
    if (!PyArg_ParseTuple(args, "sOp:_fast_function", &ident, &slow, &method)) return NULL;
    if (!PyCallable_Check(slow)) return PyErr_Format(PyExc_TypeError, "slow: not callable");
    const ptpy_thunk_entry *e = ptpy_find_thunk(ident);
    if (!e || e->out_kw || (method && !e->self_first)) Py_RETURN_NONE;
    ptpy_fastfn *f = ptpy_fastfn_new(slow, method, 1);
    if (!f) return NULL;
    ptpy_overload *o = &f->overloads[0];
    o->thunk = e->fn;
    o->nslots = e->nslots;
    o->self_slot = method ? 0 : -1;
    o->nparams = o->npos = e->nargs - (method ? 1 : 0);
    for (int32_t j = 0; j < o->nparams; j++) {
        o->slot[j] = (int8_t)(j + (method ? 1 : 0));
        o->required[j] = 1;
    }
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
}

static int ptpy_small_int(PyObject *v, long lo, long hi, int32_t *out)
{
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return 0;
    if (x < lo || x > hi) {
        PyErr_Format(PyExc_ValueError, "_fast_caller: %ld is out of range", x);
        return 0;
    }
    *out = (int32_t)x;
    return 1;
}

/* Reads one overload of _fast_caller's spec: (ident or None, names, slots, flags, npos,
 * self_slot, varargs, numbers); a parameter's flags: 1 required, 2 a Tensor that no Python
 * number binds to. */
static int ptpy_read_overload(PyObject *row, ptpy_overload *o, int *has_out)
{
    if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 8) {
        PyErr_SetString(PyExc_TypeError, "_fast_caller: each overload is an 8-tuple");
        return 0;
    }
    PyObject *ident = PyTuple_GET_ITEM(row, 0), *names = PyTuple_GET_ITEM(row, 1);
    PyObject *slots = PyTuple_GET_ITEM(row, 2), *req = PyTuple_GET_ITEM(row, 3);
    if (!PyTuple_Check(names) || !PyTuple_Check(slots) || !PyTuple_Check(req) ||
        PyTuple_GET_SIZE(slots) != PyTuple_GET_SIZE(names) ||
        PyTuple_GET_SIZE(req) != PyTuple_GET_SIZE(names) ||
        PyTuple_GET_SIZE(names) > PTPY_MAX_SLOTS) {
        PyErr_SetString(PyExc_ValueError, "_fast_caller: names, slots and required differ");
        return 0;
    }
    o->nparams = (int32_t)PyTuple_GET_SIZE(names);
    o->names = &PyTuple_GET_ITEM(names, 0);
    for (int32_t j = 0; j < o->nparams; j++) {
        PyObject *name = PyTuple_GET_ITEM(names, j);
        if (!PyUnicode_CheckExact(name)) {
            PyErr_SetString(PyExc_TypeError, "_fast_caller: names must be str");
            return 0;
        }
        int32_t s;
        if (!ptpy_small_int(PyTuple_GET_ITEM(slots, j), 0, PTPY_MAX_SLOTS - 1, &s)) return 0;
        o->slot[j] = (int8_t)s;
        int32_t flags;
        if (!ptpy_small_int(PyTuple_GET_ITEM(req, j), 0, 3, &flags)) return 0;
        o->required[j] = (int8_t)(flags & 1);
        o->tensor[j] = (int8_t)(flags >> 1);
    }
    if (!ptpy_small_int(PyTuple_GET_ITEM(row, 4), 0, o->nparams, &o->npos) ||
        !ptpy_small_int(PyTuple_GET_ITEM(row, 5), -1, PTPY_MAX_SLOTS - 1, &o->self_slot))
        return 0;
    o->varargs = PyObject_IsTrue(PyTuple_GET_ITEM(row, 6)) && o->npos >= 1;
    o->numbers = PyObject_IsTrue(PyTuple_GET_ITEM(row, 7));
    int32_t top = o->self_slot;
    for (int32_t j = 0; j < o->nparams; j++)
        if (o->slot[j] > top) top = o->slot[j];
    o->nslots = top + 1;
    o->thunk = NULL;
    if (ident != Py_None) {
        const char *s = PyUnicode_AsUTF8(ident);
        if (!s) return 0;
        const ptpy_thunk_entry *e = ptpy_find_thunk(s);
        if (e && e->nslots >= o->nslots) {
            o->thunk = e->fn;
            o->nslots = e->nslots;
            *has_out |= e->out_kw;
        }
    }
    return 1;
}

/* _fast_caller(slow, method, spec, keywords, same_self=False) -> a caller that walks the
 * overloads of spec in order (Note [overload chains]) and hands every call no thunk takes to
 * `slow`; keywords false: calls with keywords go to `slow` at once; same_self (a method): a result
 * holding self's tensor is self's object. The caller keeps spec (its names are borrowed). */
static PyObject *ptpy_make_fast_caller(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *slow, *spec;
    int method, keywords, same_self = 0;
    if (!PyArg_ParseTuple(args, "OpO!p|p:_fast_caller", &slow, &method, &PyTuple_Type, &spec,
                          &keywords, &same_self))
        return NULL;
    ptpy_fastfn *f = ptpy_fastfn_new(slow, method, PyTuple_GET_SIZE(spec));
    if (!f) return NULL;
    Py_INCREF(spec);
    f->spec = spec;
    f->keywords = keywords;
    f->same_self = method && same_self;
    for (Py_ssize_t i = 0; i < f->n; i++) {
        if (!ptpy_read_overload(PyTuple_GET_ITEM(spec, i), &f->overloads[i], &f->has_out)) {
            Py_DECREF(f);
            return NULL;
        }
    }
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
}

/* _set_operator(dunder, ident or None, number_ident=None): the thunk the number slot of dunder
 * uses, and the one it uses when the other operand is a Python number (None: the first, on the
 * number wrapped in a tensor). */
static PyObject *ptpy_set_operator(PyObject *module, PyObject *args)
{
    (void)module;
    const char *dunder, *ident, *number_ident = NULL;
    if (!PyArg_ParseTuple(args, "sz|z:_set_operator", &dunder, &ident, &number_ident))
        return NULL;
    for (int i = 0; i < PTPY_OPERATOR_COUNT; i++) {
        if (strcmp(ptpy_operators[i].dunder, dunder) != 0) continue;
        const ptpy_thunk_entry *e = ident ? ptpy_find_thunk(ident) : NULL;
        const ptpy_thunk_entry *ne = number_ident ? ptpy_find_thunk(number_ident) : NULL;
        if (ident && !e) return PyErr_Format(PyExc_ValueError, "ident: no thunk for %s", ident);
        if (number_ident && !ne)
            return PyErr_Format(PyExc_ValueError, "number_ident: no thunk for %s", number_ident);
        if ((e && e->nslots > PTPY_OPERATOR_SLOTS) || (ne && ne->nslots > PTPY_OPERATOR_SLOTS))
            return PyErr_Format(PyExc_ValueError, "ident: %s takes too many arguments for a "
                                "number slot", ne && ne->nslots > PTPY_OPERATOR_SLOTS
                                               ? number_ident : ident);
        ptpy_operators[i].thunk = e ? e->fn : NULL;
        ptpy_operators[i].number_thunk = ne ? ne->fn : NULL;
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

/* _indexing_setup(getitem, setitem): the Python functions that index where the mapping slots
 * do not (Note [indexing in C]). */
static PyObject *ptpy_indexing_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *getitem, *setitem;
    if (!PyArg_ParseTuple(args, "OO:_indexing_setup", &getitem, &setitem)) return NULL;
    if (!PyCallable_Check(getitem) || !PyCallable_Check(setitem))
        return PyErr_Format(PyExc_TypeError, "_indexing_setup: expected two callables");
    if (!ptpy_zero && !(ptpy_zero = PyLong_FromLong(0))) return NULL;
    ptpy_keep(&ptpy_getitem_fn, getitem);
    ptpy_keep(&ptpy_setitem_fn, setitem);
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

/* _wrap(p): the Tensor of the new reference p (a 'pt_tensor *' cdata): the tensor's live object
 * (p's reference dropped) or a new one adopting p (Note [one Python object per tensor]). */
static PyObject *ptpy_wrap_cdata(PyObject *module, PyObject *p)
{
    (void)module;
    if (!ptpy_tensor_ctype) {
        PyErr_SetString(PyExc_RuntimeError, "_wrap: pytensor._C is not set up yet");
        return NULL;
    }
    pt_tensor *r = (pt_tensor *)_cffi_to_c_pointer(p, (struct _cffi_ctypedescr *)ptpy_tensor_ctype);
    if (!r) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_wrap: expected a non-NULL 'pt_tensor *'");
        return NULL;
    }
    PyObject *o = ptpy_existing(r);
    if (o) {
        pt_tensor_release(r);
        Py_INCREF(o);
        return o;
    }
    PyTypeObject *cls = ptpy_tensor_cls ? ptpy_tensor_cls : &ptpy_tensor_type;
    return ptpy_adopt((ptpy_tensor *)cls->tp_alloc(cls, 0), r, p); /* p kept as its `_h` */
}

static PyObject *ptpy_has_thunk(PyObject *module, PyObject *ident)
{
    (void)module;
    const char *s = PyUnicode_AsUTF8(ident);
    if (!s) return NULL;
    return PyBool_FromLong(ptpy_find_thunk(s) != NULL);
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
     "_fast_function(ident, slow, method): a C caller for pt_call_<ident>'s positional calls, "
     "or None"},
    {"_fast_caller", ptpy_make_fast_caller, METH_VARARGS,
     "_fast_caller(slow, method, spec, keywords, same_self=False): a C caller of a chain of overloads "
     "(Note [overload chains])"},
    {"_set_operator", ptpy_set_operator, METH_VARARGS,
     "_set_operator(dunder, ident): the operator a Tensor number slot calls"},
    {"_python_setup", ptpy_python_setup, METH_VARARGS,
     "_python_setup(Tensor, ctype, fail, operator_fallback, Size, dtypes, device)"},
    {"_fast_thunks", ptpy_fast_thunks, METH_NOARGS,
     "_fast_thunks(): (ident, operator, required arguments, self first) of every thunk"},
    {"_has_thunk", ptpy_has_thunk, METH_O, "_has_thunk(ident): whether pt_call_<ident> has one"},
    {"_wrap", ptpy_wrap_cdata, METH_O, "_wrap(p): a Tensor adopting the reference p"},
    {"_wrapped_number", ptpy_wrapped_number_py, METH_O,
     "_wrapped_number(v): a Python number as a 0-dim wrapped-number tensor, or None"},
    {"_dispatch_tensors", (PyCFunction)(void (*)(void))ptpy_dispatch_tensors, METH_FASTCALL,
     "_dispatch_tensors(op address, values, capacity): a boxed call of Tensors only"},
    {"_indexing_setup", ptpy_indexing_setup, METH_VARARGS,
     "_indexing_setup(getitem, setitem): Note [indexing in C]"},
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
    ptpy_slot_offset = pt_tensor_pyobj_offset(); /* before any Tensor is made */
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
