/* dispatch_table.c - the dispatch keys (names, the "dispatch_key" registry), how an operator
 * entry turns its registrations into a dispatch table, and the texts that show it:
 * pt_dispatch_dump's and the "could not run" error's.
 *
 * Each runtime key's slot is filled by the first rule that applies (PyTorch's
 * computeDispatchTableEntryWithDebug over our keys; Note [filling a slot]). The table is
 * recomputed for one entry when one of its registrations changes, and for every entry when a
 * backend fallback changes; each new slot value is published with a release store, and the key's
 * bit in the entry's fallthrough mask says whether the slot is a fallthrough. Everything here runs
 * under pt_dispatch_lock except the slot loads of pt_dispatch_missing's key list.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

static const char *const source_names[] = {
    [PT_SLOT_KERNEL] = "kernel",
    [PT_SLOT_DEFAULT_BACKEND] = "default backend kernel",
    [PT_SLOT_MATH] = "math kernel",
    [PT_SLOT_AUTOGRAD] = "autograd kernel",
    [PT_SLOT_FALLBACK] = "backend fallback",
    [PT_SLOT_MISSING] = "missing",
};

/* ---------------------------------------------------------------- keys */

static const char *const key_names[PT_KIDX_COUNT] = {
    [PT_KEY_CPU] = "CPU",
    [PT_KEY_CUDA] = "CUDA",
    [PT_KEY_META] = "Meta",
    [PT_KEY_BACKEND_SELECT] = "BackendSelect",
    [PT_KEY_PYTHON] = "Python",
    [PT_KEY_CONJUGATE] = "Conjugate",
    [PT_KEY_NEGATIVE] = "Negative",
    [PT_KEY_AUTOGRAD_CPU] = "AutogradCPU",
    [PT_KEY_AUTOGRAD_CUDA] = "AutogradCUDA",
    [PT_KEY_AUTOGRAD_META] = "AutogradMeta",
    [PT_KIDX_AUTOGRAD] = "Autograd",
    [PT_KIDX_COMPOSITE_IMPLICIT] = "CompositeImplicitAutograd",
    [PT_KIDX_COMPOSITE_EXPLICIT] = "CompositeExplicitAutograd",
};
_Static_assert(sizeof key_names / sizeof key_names[0] == PT_KIDX_COUNT, "one name per key");

static const int32_t key_values[PT_KIDX_COUNT] = {
    PT_KEY_CPU,          PT_KEY_CUDA,          PT_KEY_META,
    PT_KEY_BACKEND_SELECT, PT_KEY_PYTHON,      PT_KEY_CONJUGATE,
    PT_KEY_NEGATIVE,     PT_KEY_AUTOGRAD_CPU,
    PT_KEY_AUTOGRAD_CUDA, PT_KEY_AUTOGRAD_META, PT_KEY_AUTOGRAD,
    PT_KEY_COMPOSITE_IMPLICIT_AUTOGRAD, PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD,
};

PT_DEFINE_REGISTRY("dispatch_key", "dispatch keys: runtime keys (bit = priority) and alias keys")
PT_REGISTER("dispatch_key", "CPU", &key_values[0], "runtime key 0 (lowest priority): CPU tensors")
PT_REGISTER("dispatch_key", "CUDA", &key_values[1], "runtime key 1: CUDA tensors")
PT_REGISTER("dispatch_key", "Meta", &key_values[2], "runtime key 2: meta tensors (no data)")
PT_REGISTER("dispatch_key", "BackendSelect", &key_values[3],
            "runtime key 3: always included; picks a backend for ops without tensor arguments")
PT_REGISTER("dispatch_key", "Python", &key_values[4], "runtime key 4: Python dispatch modes")
PT_REGISTER("dispatch_key", "Conjugate", &key_values[5],
            "runtime key 5: tensors with the conjugate bit (Note [math bits])")
PT_REGISTER("dispatch_key", "Negative", &key_values[6],
            "runtime key 6: tensors with the negative bit (Note [math bits])")
PT_REGISTER("dispatch_key", "AutogradCPU", &key_values[7], "runtime key 7: autograd over CPU")
PT_REGISTER("dispatch_key", "AutogradCUDA", &key_values[8], "runtime key 8: autograd over CUDA")
PT_REGISTER("dispatch_key", "AutogradMeta", &key_values[9],
            "runtime key 9 (highest priority): autograd over Meta")
PT_REGISTER("dispatch_key", "Autograd", &key_values[10], "alias key: every Autograd<backend> key")
PT_REGISTER("dispatch_key", "CompositeImplicitAutograd", &key_values[11],
            "alias key: backend, math-bit and autograd slots without their own kernel (impl "
            "with no key)")
PT_REGISTER("dispatch_key", "CompositeExplicitAutograd", &key_values[12],
            "alias key: backend slots without their own kernel")

int32_t pt_dispatch_key_index(int32_t key)
{
    if (key >= 0 && key < PT_KEY_COUNT) return key;
    switch (key) {
    case PT_KEY_AUTOGRAD: return PT_KIDX_AUTOGRAD;
    case PT_KEY_NONE:
    case PT_KEY_COMPOSITE_IMPLICIT_AUTOGRAD: return PT_KIDX_COMPOSITE_IMPLICIT;
    case PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD: return PT_KIDX_COMPOSITE_EXPLICIT;
    default: return -1;
    }
}

const char *pt_dispatch_kidx_name(int32_t kidx)
{
    return kidx >= 0 && kidx < PT_KIDX_COUNT ? key_names[kidx] : NULL;
}

const char *pt_dispatch_key_name(int32_t key)
{
    int32_t i = key == PT_KEY_NONE ? -1 : pt_dispatch_key_index(key);
    return i < 0 ? NULL : key_names[i];
}

pt_status pt_dispatch_key_from_name(const char *name, int32_t *out)
{
    for (int32_t i = 0; name && i < PT_KIDX_COUNT; i++) {
        if (strcmp(name, key_names[i]) == 0) {
            *out = key_values[i];
            return PT_OK;
        }
    }
    return PT_ERROR(PT_ERR_VALUE,
                    "unknown dispatch key '%s'; expected one of CPU, CUDA, Meta, "
                    "BackendSelect, Python, Conjugate, Negative, AutogradCPU, AutogradCUDA, "
                    "AutogradMeta, Autograd, "
                    "CompositeImplicitAutograd, CompositeExplicitAutograd",
                    name ? name : "(null)");
}

/* ---------------------------------------------------------------- tables */

/* The backend whose autograd key `key` is (AutogradCPU -> CPU), or -1. */
static int32_t backend_of_autograd(int32_t key)
{
    switch (key) {
    case PT_KEY_AUTOGRAD_CPU: return PT_KEY_CPU;
    case PT_KEY_AUTOGRAD_CUDA: return PT_KEY_CUDA;
    case PT_KEY_AUTOGRAD_META: return PT_KEY_META;
    default: return -1;
    }
}

static const pt_kernel_record *newest(const pt_registration *r) { return r ? r->rec : NULL; }

/* Note [filling a slot]
 * For a runtime key, in order (PyTorch's rules; its dump words in quotes):
 *   1. the newest kernel registered for the key itself                       "kernel"
 *   2. backend keys (CPU, CUDA, Meta): the newest CompositeExplicitAutograd   "default backend kernel"
 *   3. backend and autograd keys: the newest CompositeImplicitAutograd, but for an autograd key
 *      only when neither its backend (AutogradCPU -> CPU) nor CompositeExplicitAutograd has a
 *      kernel: a backend kernel without an autograd formula must not be shadowed by the
 *      decomposition at the autograd layer; the math-bit keys (Conjugate, Negative) take it
 *      too, on the same condition for every backend: PyTorch's tensors always carry an autograd
 *      key, so there a decomposition runs before the math-bit fallback sees the operator, and
 *      its inner calls meet the bits (a view decomposition such as imag keeps them)
 *                                                                            "math kernel"
 *   4. autograd keys: the newest Autograd alias kernel                        "autograd kernel"
 *   5. the key's newest backend fallback                                      "backend fallback"
 *   6. otherwise missing.
 * The empty key set ("Undefined": no tensor arguments and nothing included) takes rule 2 or 3
 * only, as in PyTorch, so a composite op with no tensor arguments still runs. A fallthrough is a
 * kernel like any other here; a slot holding one drops the key from the entry's fallthrough mask
 * (pt_dispatch_recompute_locked), except in the Undefined slot, where there is nothing below to
 * fall to and the slot counts as missing. */
const pt_kernel_record *pt_dispatch_compute_entry(const pt_op *op, int32_t key,
                                                  pt_slot_source *source)
{
    const pt_kernel_record *cea = newest(op->kernels[PT_KIDX_COMPOSITE_EXPLICIT]);
    const pt_kernel_record *cia = newest(op->kernels[PT_KIDX_COMPOSITE_IMPLICIT]);
    if (key < 0) {
        const pt_kernel_record *r = cea ? cea : cia;
        if (r && !r->fallthrough) {
            *source = cea ? PT_SLOT_DEFAULT_BACKEND : PT_SLOT_MATH;
            return r;
        }
        *source = PT_SLOT_MISSING;
        return NULL;
    }
    uint64_t bit = PT_KEY_BIT(key);
    if (op->kernels[key]) {
        *source = PT_SLOT_KERNEL;
        return op->kernels[key]->rec;
    }
    if ((bit & PT_BACKEND_KEYS) && cea) {
        *source = PT_SLOT_DEFAULT_BACKEND;
        return cea;
    }
    int32_t backend = backend_of_autograd(key);
    bool has_backend_kernel = (backend >= 0 && op->kernels[backend]) || cea;
    if ((bit & PT_MATH_BIT_KEYS) && cia && !cea && !op->kernels[PT_KEY_CPU] &&
        !op->kernels[PT_KEY_CUDA] && !op->kernels[PT_KEY_META]) {
        *source = PT_SLOT_MATH;
        return cia;
    }
    if ((bit & (PT_BACKEND_KEYS | PT_AUTOGRAD_KEYS)) && cia && !has_backend_kernel) {
        *source = PT_SLOT_MATH;
        return cia;
    }
    if ((bit & PT_AUTOGRAD_KEYS) && op->kernels[PT_KIDX_AUTOGRAD]) {
        *source = PT_SLOT_AUTOGRAD;
        return op->kernels[PT_KIDX_AUTOGRAD]->rec;
    }
    if (pt_dispatch_fallbacks[key]) {
        *source = PT_SLOT_FALLBACK;
        return pt_dispatch_fallbacks[key]->rec;
    }
    *source = PT_SLOT_MISSING;
    return NULL;
}

/* Publishes every slot before the mask: a call that sees the new mask finds the new slots, and a
 * call with the old mask that reaches a slot which became a fallthrough is passed on by the
 * fallthrough record itself, so either order is safe for calls. */
void pt_dispatch_recompute_locked(pt_op *op)
{
    uint64_t mask = 0;
    pt_slot_source source;
    for (int32_t k = 0; k < PT_KEY_COUNT; k++) {
        const pt_kernel_record *r = pt_dispatch_compute_entry(op, k, &source);
        atomic_store_explicit(&op->slots[k], r ? &r->k : &pt_dispatch_missing_kernel,
                              memory_order_release);
        if (!r || !r->fallthrough) mask |= PT_KEY_BIT(k);
    }
    const pt_kernel_record *u = pt_dispatch_compute_entry(op, -1, &source);
    atomic_store_explicit(&op->undefined_slot, u ? &u->k : &pt_dispatch_missing_kernel,
                          memory_order_release);
    atomic_store_explicit(&op->nonfallthrough, mask, memory_order_release);
}

/* ---------------------------------------------------------------- text */

/* A growable string; on allocation failure it keeps what it has and stops growing (the texts are
 * for people, and a cut dump beats a failed one). */
typedef struct text {
    char *buf;
    size_t len, cap;
    bool failed;
} text;

static void text_printf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(text *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->len;
        int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->buf && (size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 256;
        while (cap - t->len <= (size_t)n) cap *= 2;
        char *grown = realloc(t->buf, cap);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
}

static const char *key_label(int32_t key)
{
    const char *name = key < 0 ? "Undefined" : pt_dispatch_kidx_name(key);
    return name ? name : "(unknown key)";
}

/* "CPU: registered at x.c:3 [kernel]" per slot, Undefined first, as PyTorch's computed table. */
static void print_table(text *t, const pt_op *op, bool with_missing)
{
    for (int32_t k = -1; k < PT_KEY_COUNT; k++) {
        pt_slot_source source;
        const pt_kernel_record *r = pt_dispatch_compute_entry(op, k, &source);
        if (!r) {
            if (with_missing) text_printf(t, "%s: missing\n", key_label(k));
            continue;
        }
        text_printf(t, "%s: %s%s [%s]\n", key_label(k), r->fallthrough ? "fallthrough " : "",
                    r->k.debug, source_names[source]);
    }
}

static const char *variants_text(int32_t variants)
{
    switch (variants) {
    case PT_VARIANT_FUNCTION | PT_VARIANT_METHOD: return "function, method";
    case PT_VARIANT_METHOD: return "method";
    case PT_VARIANT_FUNCTION: return "function";
    case PT_VARIANT_NN: return "function in _C._nn";
    case PT_VARIANT_NN | PT_VARIANT_METHOD: return "function in _C._nn, method";
    default: return "none";
    }
}

static void print_state(text *t, const pt_op *op)
{
    const pt_schema *schema = pt_op_schema(op);
    text_printf(t, "name: %s\nschema: ", op->name);
    /* The namespace PyTorch prints even when the declaration left it out. */
    if (schema)
        text_printf(t, "%s%s", strstr(pt_schema_name(schema), "::") ? "" : "aten::",
                    pt_schema_text(schema));
    else
        text_printf(t, "(no schema)");
    text_printf(t, "\ndebug: %s\n", op->def ? op->def->debug : "(no def)");
    text_printf(t, "variants: %s\n", variants_text(pt_op_variants(op)));
    text_printf(t, "registered kernels (newest first):\n");
    for (int32_t k = 0; k < PT_KIDX_COUNT; k++) {
        int32_t i = 0;
        for (const pt_registration *r = op->kernels[k]; r; r = r->next, i++)
            text_printf(t, "  %s%s%s: %s%s [ %s]\n", pt_dispatch_kidx_name(k),
                        k >= PT_KEY_COUNT ? "[alias]" : "", i ? " (inactive)" : "",
                        r->rec->fallthrough ? "fallthrough " : "", r->rec->k.debug,
                        r->rec->fallthrough   ? ""
                        : r->rec->k.unboxed ? "boxed unboxed "
                                            : "boxed ");
    }
    text_printf(t, "fallthrough keys: [");
    uint64_t mask = atomic_load_explicit(&op->nonfallthrough, memory_order_acquire);
    const char *sep = "";
    for (int32_t k = 0; k < PT_KEY_COUNT; k++) {
        if (mask & PT_KEY_BIT(k)) continue;
        text_printf(t, "%s%s", sep, pt_dispatch_kidx_name(k));
        sep = ", ";
    }
    text_printf(t, "]\ncomputed table:\n");
    print_table(t, op, true);
}

/* One dump per thread stays alive until that thread's next dump (the ABI's borrowed text); the
 * key's destructor frees it when the thread ends. */
static pthread_key_t dump_key;
static pthread_once_t dump_key_once = PTHREAD_ONCE_INIT;
static void dump_key_make(void) { pthread_key_create(&dump_key, free); }

pt_status pt_dispatch_dump_op(const pt_op *op, const char **out)
{
    pthread_once(&dump_key_once, dump_key_make);
    text t = {0};
    pthread_mutex_lock(&pt_dispatch_lock);
    print_state(&t, op);
    pthread_mutex_unlock(&pt_dispatch_lock);
    if (t.failed || !t.buf) {
        free(t.buf);
        return PT_ERROR(PT_ERR_MEMORY, "_dispatch_dump: out of memory");
    }
    free(pthread_getspecific(dump_key));
    pthread_setspecific(dump_key, t.buf);
    *out = t.buf;
    return PT_OK;
}

/* "[CPU, Meta, BackendSelect, ...]": the runtime keys whose slot is not missing, as PyTorch lists
 * them (fallbacks and fallthroughs included). Lock-free: it runs on a failing call. */
static void print_available(text *t, const pt_op *op)
{
    text_printf(t, "[");
    const char *sep = "";
    for (int32_t k = 0; k < PT_KEY_COUNT; k++) {
        const pt_kernel *s = atomic_load_explicit(&op->slots[k], memory_order_acquire);
        if (s == &pt_dispatch_missing_kernel) continue;
        text_printf(t, "%s%s", sep, pt_dispatch_kidx_name(k));
        sep = ", ";
    }
    text_printf(t, "]");
}

pt_status pt_dispatch_missing(const pt_op *op, int32_t key)
{
    text t = {0};
    if (key < 0 || key >= PT_KEY_COUNT)
        text_printf(&t,
                    "There were no tensor arguments to this function (e.g., you passed an empty "
                    "list of Tensors), but no fallback function is registered for schema %s.  This "
                    "usually means that this function requires a non-empty list of Tensors, or "
                    "that you (the operator writer) forgot to register a fallback function.  "
                    "Available functions are ",
                    op->name);
    else
        text_printf(&t,
                    "Could not run '%s' with arguments from the '%s' backend. This could be "
                    "because the operator doesn't exist for this backend, or was omitted during "
                    "the selective/custom build process (if using custom build). '%s' is only "
                    "available for these backends: ",
                    op->name, key_label(key), op->name);
    print_available(&t, op);
    text_printf(&t, ".\n\n");
    /* The computed table, as PyTorch appends it; an error path, so taking the lock is fine. */
    pthread_mutex_lock(&pt_dispatch_lock);
    print_table(&t, op, false);
    pthread_mutex_unlock(&pt_dispatch_lock);
    pt_status st = t.failed ? PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "Could not run '%s' (key %d)",
                                       op->name, (int)key)
                            : PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s", t.buf);
    free(t.buf);
    return st;
}
