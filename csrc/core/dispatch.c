/* dispatch.c - the dispatcher: one entry per operator (name, overload), the registrations that
 * fill its table, and the call path that picks a kernel by dispatch key.
 *
 * Entries are found by hashing "ns::name.overload" into a chained table; they are created by the
 * first def or impl that names them (an impl may come first, as in PyTorch) and live for the
 * process, so a pt_op pointer never dangles. Each entry keeps its def (the parsed schema), its
 * kernels per registrable key (runtime and alias keys, newest first) and, for the call path, a
 * computed table: one slot per runtime key, a slot for the empty key set, and the mask of keys
 * whose slot is not a fallthrough. Every registration and every release recomputes the table of
 * the entry it touches (of every entry, for a backend fallback); the rules live in
 * dispatch_table.c.
 *
 * A call extracts the key set from its tensor arguments (the positions were found once, at def),
 * adds the thread-local included keys and BackendSelect, removes the thread-local excluded keys
 * and the op's fallthrough keys, and calls the slot of the highest key. That path reads atomics
 * only; registration takes one mutex (Note [lock-free slots]).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

/* Note [lock-free slots]
 * Registration is rare (start-up, a Python Library being built or dropped) and calls are hot and
 * may run on any thread while a registration happens. So registration serializes on one mutex
 * and publishes its result through atomics: each slot is an atomic pointer to an immutable
 * pt_kernel record, stored with release order and read with acquire order; the fallthrough mask
 * and the argument plan are published the same way. A reader sees either the old or the new
 * record, and both are complete. A record replaced while a call may still be running it cannot be
 * freed without knowing that no call holds it, and tracking that (hazard pointers, epochs) would
 * put work on the call path. Instead a released registration's kernel record, and a released
 * def's argument plan with its schema, move to a retired list that is never freed while the
 * process lives. The bound is the number of registrations ever made, each costing one small
 * record plus its debug string (about 100 bytes): a process that builds and drops a Python
 * Library a thousand times retires some hundred kilobytes. Recomputing a table allocates
 * nothing: slots point at records the registrations already own. */

pthread_mutex_t pt_dispatch_lock = PTHREAD_MUTEX_INITIALIZER;
pt_registration *pt_dispatch_fallbacks[PT_KEY_COUNT];

/* BackendSelect is always included, as in PyTorch: an op with a BackendSelect kernel reaches it
 * even with no tensor arguments; without one, the key is a fallthrough and drops out. */
static const uint64_t always_included = (uint64_t)1 << PT_KEY_BACKEND_SELECT;

static _Thread_local uint64_t tls_included, tls_excluded;
_Thread_local int32_t pt_version_guard;

/* The entries: a chained hash table (grown at load 3/4), every entry in creation order (for
 * recomputing all tables when a fallback changes), and the entries with a def in def order. */
static pt_op **buckets;
static size_t nbuckets;
static pt_op **entries;
static size_t nentries, entries_capacity;
static pt_op **defs;
static int32_t ndefs, defs_capacity;
/* Never freed: Note [lock-free slots]. */
static pt_kernel_record *retired_kernels;
static pt_arg_plan *retired_plans;

/* ---------------------------------------------------------------- entries */

/* A qualified name in pieces: "ns" "::" "base" ["." "overload"]. */
typedef struct op_key {
    const char *ns, *base, *overload;
    size_t ns_len, base_len, overload_len;
} op_key;

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t key_hash(const op_key *k)
{
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, k->ns, k->ns_len);
    h = fnv1a(h, "::", 2);
    h = fnv1a(h, k->base, k->base_len);
    if (k->overload_len) h = fnv1a(fnv1a(h, ".", 1), k->overload, k->overload_len);
    return h;
}

static bool key_matches(const pt_op *op, const op_key *k)
{
    const char *p = op->name;
    if (op->base_len != k->ns_len + 2 + k->base_len) return false;
    if (memcmp(p, k->ns, k->ns_len) != 0 || memcmp(p + k->ns_len, "::", 2) != 0) return false;
    if (memcmp(p + k->ns_len + 2, k->base, k->base_len) != 0) return false;
    return strlen(op->overload) == k->overload_len &&
           memcmp(op->overload, k->overload, k->overload_len) == 0;
}

static size_t ident_len(const char *s)
{
    size_t n = 0;
    while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
           (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
        n++;
    return n;
}

/* "ns::name", "ns::name.overload", or either without "ns::" (namespace aten). An overload given
 * apart (def, find) replaces a missing one in the text; NULL or "" means none. */
static pt_status parse_op_name(const char *text, const char *overload, const char *what,
                               op_key *k)
{
    if (!text) return PT_ERROR(PT_ERR_VALUE, "%s: the operator name must not be NULL", what);
    const char *p = text;
    *k = (op_key){"aten", NULL, "", 4, 0, 0};
    size_t n = ident_len(p);
    if (p[n] == ':' && p[n + 1] == ':') {
        *k = (op_key){p, NULL, "", n, 0, 0};
        p += n + 2;
        n = ident_len(p);
    }
    k->base = p;
    k->base_len = n;
    p += n;
    bool dot = *p == '.';
    if (dot) {
        k->overload = p + 1;
        k->overload_len = ident_len(p + 1);
        p += 1 + k->overload_len;
    }
    bool ok = *p == '\0' && k->ns_len && k->base_len && (!dot || k->overload_len);
    if (ok && overload && *overload) {
        if (k->overload_len) ok = false; /* two overload names */
        k->overload = overload;
        k->overload_len = strlen(overload);
        ok = ok && ident_len(overload) == k->overload_len;
    }
    if (!ok)
        return PT_ERROR(PT_ERR_VALUE, "%s: '%s%s%s' is not an operator name (expected "
                        "'ns::name' or 'ns::name.overload')", what, text,
                        overload && *overload ? "' overload '" : "", overload ? overload : "");
    return PT_OK;
}

static pt_op *lookup(const op_key *k, uint64_t h)
{
    if (!nbuckets) return NULL;
    for (pt_op *op = buckets[h & (nbuckets - 1)]; op; op = op->chain)
        if (op->hash == h && key_matches(op, k)) return op;
    return NULL;
}

static pt_status grow_buckets(void)
{
    /* 64 buckets hold the first few dozen ops; the table doubles so that a few thousand
     * declarations cost about a dozen rehashes at start-up. */
    size_t n = nbuckets ? nbuckets * 2 : 64;
    pt_op **b = calloc(n, sizeof *b);
    if (!b) return PT_ERROR(PT_ERR_MEMORY, "dispatcher: out of memory growing the op table");
    for (size_t i = 0; i < nentries; i++) {
        pt_op *op = entries[i];
        op->chain = b[op->hash & (n - 1)];
        b[op->hash & (n - 1)] = op;
    }
    free(buckets);
    buckets = b;
    nbuckets = n;
    return PT_OK;
}

static pt_status reserve(void **array, size_t elem, size_t need, size_t *capacity)
{
    if (need <= *capacity) return PT_OK;
    size_t n = *capacity ? *capacity * 2 : 64;
    void *p = realloc(*array, n * elem);
    if (!p) return PT_ERROR(PT_ERR_MEMORY, "dispatcher: out of memory");
    *array = p;
    *capacity = n;
    return PT_OK;
}

/* The entry for k, created (with an all-missing table) when absent. Locked. */
static pt_status lookup_or_create(const op_key *k, pt_op **out)
{
    uint64_t h = key_hash(k);
    pt_op *op = lookup(k, h);
    if (op) {
        *out = op;
        return PT_OK;
    }
    PT_TRY(reserve((void **)&entries, sizeof *entries, nentries + 1, &entries_capacity));
    if ((nentries + 1) * 4 > nbuckets * 3) PT_TRY(grow_buckets());
    size_t len = k->ns_len + 2 + k->base_len + (k->overload_len ? 1 + k->overload_len : 0);
    op = calloc(1, sizeof *op);
    char *name = malloc(len + 1);
    if (!op || !name) {
        free(op);
        free(name);
        return PT_ERROR(PT_ERR_MEMORY, "dispatcher: out of memory creating an op entry");
    }
    snprintf(name, len + 1, "%.*s::%.*s%s%.*s", (int)k->ns_len, k->ns, (int)k->base_len, k->base,
             k->overload_len ? "." : "", (int)k->overload_len, k->overload);
    op->name = name;
    op->base_len = k->ns_len + 2 + k->base_len;
    op->overload = k->overload_len ? name + op->base_len + 1 : name + len;
    op->hash = h;
    op->def_index = -1;
    atomic_init(&op->variants, PT_VARIANT_FUNCTION);
    atomic_init(&op->plan, NULL);
    pt_dispatch_recompute_locked(op); /* fallbacks already registered apply to it */
    op->chain = buckets[h & (nbuckets - 1)];
    buckets[h & (nbuckets - 1)] = op;
    entries[nentries++] = op;
    *out = op;
    return PT_OK;
}

/* ---------------------------------------------------------------- registration */

static pt_status missing_boxed(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                               void *ctx)
{
    PT_UNUSED(keyset);
    PT_UNUSED(stack);
    PT_UNUSED(ctx);
    return pt_dispatch_missing(op, key);
}

const pt_kernel pt_dispatch_missing_kernel = {missing_boxed, NULL, NULL, "missing"};

/* A fallthrough slot is normally masked out of the key set, so this runs only when a call read
 * the mask just before a registration made its slot a fallthrough: it does what skipping the
 * key would have done. */
static pt_status fallthrough_boxed(const pt_op *op, int32_t key, uint64_t keyset,
                                   pt_stack *stack, void *ctx)
{
    PT_UNUSED(ctx);
    if (key < 0) return pt_dispatch_missing(op, key);
    return pt_dispatch_redispatch(op, key, keyset, stack);
}

static const char *debug_or_default(const char *debug)
{
    return debug && *debug ? debug : "(no debug string)";
}

static pt_status registration_new(int32_t kind, int32_t kidx, pt_boxed_fn fn, void *unboxed,
                                  void *ctx, const char *debug, pt_registration **out)
{
    debug = debug_or_default(debug);
    size_t n = strlen(debug) + 1;
    pt_registration *r = calloc(1, sizeof *r + (kind == PT_REG_DEF ? n : 0));
    pt_kernel_record *rec = kind == PT_REG_DEF ? NULL : malloc(sizeof *rec + n);
    if (!r || (kind != PT_REG_DEF && !rec)) {
        free(r);
        free(rec);
        return PT_ERROR(PT_ERR_MEMORY, "dispatcher: out of memory registering '%s'", debug);
    }
    r->kind = kind;
    r->kidx = kidx;
    if (rec) {
        memcpy(rec->debug, debug, n);
        rec->fallthrough = fn == NULL;
        rec->k = (pt_kernel){fn ? fn : fallthrough_boxed, unboxed, fn ? ctx : NULL, rec->debug};
        rec->retired_next = NULL;
        r->rec = rec;
    } else {
        memcpy(r->debug, debug, n);
    }
    *out = r;
    return PT_OK;
}

static void registration_free(pt_registration *r)
{
    free(r->rec);
    free(r);
}

static pt_status add_fallback(int32_t key, pt_boxed_fn fn, void *ctx, const char *debug,
                              pt_registration **out)
{
    if (key < 0 || key >= PT_KEY_COUNT) {
        const char *name = pt_dispatch_key_name(key);
        return PT_ERROR(PT_ERR_VALUE, "fallback: %d is not a runtime dispatch key%s%s%s; a "
                        "fallback is registered for one of CPU, CUDA, Meta, BackendSelect, "
                        "Python, Conjugate, Negative, AutogradCPU, AutogradCUDA, AutogradMeta",
                        (int)key,
                        name ? " (" : "", name ? name : "", name ? " is an alias key)" : "");
    }
    pt_registration *r;
    PT_TRY(registration_new(PT_REG_FALLBACK, key, fn, NULL, ctx, debug, &r));
    pthread_mutex_lock(&pt_dispatch_lock);
    r->next = pt_dispatch_fallbacks[key];
    pt_dispatch_fallbacks[key] = r;
    for (size_t i = 0; i < nentries; i++) pt_dispatch_recompute_locked(entries[i]);
    pthread_mutex_unlock(&pt_dispatch_lock);
    *out = r;
    return PT_OK;
}

/* The fallthrough fallbacks every process starts with, as PyTorch registers them: keys that
 * only some ops use (BackendSelect, Python, the autograd layer not built yet) drop out of the key
 * set of ops that have no kernel there. The math-bit fallbacks come with them
 * (dispatch_mathbits.c). Registered on the dispatcher's first use rather than in a
 * load-time constructor (Note [load-time records]); never released. */
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;
static pt_status builtins_status;
static pt_registration *builtins[5];

static void register_builtins(void)
{
    static const int32_t keys[] = {PT_KEY_BACKEND_SELECT, PT_KEY_PYTHON, PT_KEY_AUTOGRAD_CPU,
                                   PT_KEY_AUTOGRAD_CUDA, PT_KEY_AUTOGRAD_META};
    _Static_assert(sizeof keys / sizeof keys[0] == sizeof builtins / sizeof builtins[0], "");
    char debug[128];
    snprintf(debug, sizeof debug, "registered at %s:%d", pt_source_relative(__FILE__),
             __LINE__);
    for (size_t i = 0; builtins_status == PT_OK && i < sizeof keys / sizeof keys[0]; i++)
        builtins_status = add_fallback(keys[i], NULL, NULL, debug, &builtins[i]);
    if (builtins_status == PT_OK) builtins_status = pt_dispatch_mathbits_register();
}

static pt_status ensure_builtins(void)
{
    pthread_once(&builtins_once, register_builtins);
    if (builtins_status != PT_OK)
        return PT_ERROR(builtins_status, "dispatcher: the built-in fallthrough fallbacks "
                        "failed to register");
    return PT_OK;
}

/* The arguments a call extracts keys from: every one whose innermost type is Tensor (Tensor,
 * Tensor?, Tensor[], Tensor?[], Tensor[]?). */
static pt_status plan_new(pt_schema *schema, pt_arg_plan **out)
{
    int32_t nargs = pt_schema_num_arguments(schema);
    size_t n = (size_t)(nargs > 0 ? nargs : 0);
    pt_arg_plan *plan = malloc(sizeof *plan + n * sizeof plan->tensor_args[0]);
    if (!plan) return PT_ERROR(PT_ERR_MEMORY, "def: out of memory");
    *plan = (pt_arg_plan){schema, nargs, pt_schema_is_vararg(schema) != 0, 0, 0, NULL};
    for (int32_t i = 0; i < nargs; i++) {
        pt_schema_arg_info info;
        pt_status st = pt_schema_argument(schema, i, &info);
        if (st != PT_OK) {
            free(plan);
            return st;
        }
        if (info.elem_kind != PT_TYPE_TENSOR) continue;
        if (info.alias_is_write && !info.list && i < 64) plan->written |= (uint64_t)1 << i;
        plan->tensor_args[plan->ntensors++] = (pt_plan_arg){
            i, info.list != 0, info.optional != 0, info.optional_elems != 0, info.name};
    }
    *out = plan;
    return PT_OK;
}

static const char *schema_ns_prefix(const pt_schema *s)
{
    return strstr(pt_schema_name(s), "::") ? "" : "aten::";
}

/* Locked: puts op's def in the def-order list. */
static pt_status def_locked(pt_op *op, pt_registration *r, pt_arg_plan *plan)
{
    if (op->def) {
        const pt_schema *s = plan->schema;
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Tried to register an operator (%s%s) with the same name and overload "
                        "name multiple times. Each overload's schema should only be registered "
                        "with a single call to def(). Duplicate registration: %s. Original "
                        "registration: %s",
                        schema_ns_prefix(s), pt_schema_text(s), r->debug, op->def->debug);
    }
    size_t capacity = (size_t)defs_capacity;
    PT_TRY(reserve((void **)&defs, sizeof *defs, (size_t)ndefs + 1, &capacity));
    defs_capacity = (int32_t)capacity;
    op->def = r;
    op->def_index = ndefs;
    defs[ndefs++] = op;
    r->op = op;
    atomic_store_explicit(&op->plan, plan, memory_order_release);
    return PT_OK;
}

pt_status pt_dispatch_def(const char *schema, const char *debug, pt_registration **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "def: out is NULL");
    *out = NULL;
    if (!schema) return PT_ERROR(PT_ERR_VALUE, "def: schema is NULL");
    PT_TRY(ensure_builtins());
    pt_schema *s;
    PT_TRY(pt_schema_parse(schema, &s));
    pt_arg_plan *plan = NULL;
    pt_registration *r = NULL;
    op_key k;
    pt_status st = plan_new(s, &plan);
    if (st == PT_OK) st = registration_new(PT_REG_DEF, -1, NULL, NULL, NULL, debug, &r);
    if (st == PT_OK) st = parse_op_name(pt_schema_name(s), pt_schema_overload(s), "def", &k);
    if (st == PT_OK) {
        pthread_mutex_lock(&pt_dispatch_lock);
        pt_op *op;
        st = lookup_or_create(&k, &op);
        if (st == PT_OK) st = def_locked(op, r, plan);
        pthread_mutex_unlock(&pt_dispatch_lock);
    }
    if (st != PT_OK) {
        free(plan);
        if (r) registration_free(r);
        pt_schema_release(s);
        return st;
    }
    *out = r;
    return PT_OK;
}

static pt_status add_impl(const char *opname, int32_t key, pt_boxed_fn fn, void *unboxed,
                          void *ctx, const char *debug, pt_registration **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "impl: out is NULL");
    *out = NULL;
    op_key k;
    PT_TRY(parse_op_name(opname, NULL, "impl", &k));
    int32_t kidx = pt_dispatch_key_index(key);
    if (kidx < 0)
        return PT_ERROR(PT_ERR_VALUE, "impl: %d is not a dispatch key for '%s' (expected a "
                        "runtime key 0..%d, an alias key %d..%d, or %d for none)", (int)key,
                        opname, PT_KEY_COUNT - 1, PT_KEY_AUTOGRAD,
                        PT_KEY_COMPOSITE_EXPLICIT_AUTOGRAD, PT_KEY_NONE);
    PT_TRY(ensure_builtins());
    return pt_dispatch_register_impl(&k, kidx, fn, unboxed, ctx, debug, out);
}

pt_status pt_dispatch_register_impl(const struct op_key *kp, int32_t kidx, pt_boxed_fn fn,
                                    void *unboxed, void *ctx, const char *debug,
                                    pt_registration **out)
{
    op_key k = *kp;
    pt_registration *r = NULL;
    PT_TRY(registration_new(PT_REG_IMPL, kidx, fn, unboxed, ctx, debug, &r));
    pthread_mutex_lock(&pt_dispatch_lock);
    pt_op *op;
    pt_status st = lookup_or_create(&k, &op);
    if (st == PT_OK) {
        r->op = op;
        r->next = op->kernels[kidx];
        op->kernels[kidx] = r;
        pt_dispatch_recompute_locked(op);
    }
    pthread_mutex_unlock(&pt_dispatch_lock);
    if (st != PT_OK) {
        registration_free(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_dispatch_impl(const char *op, int32_t key, pt_boxed_fn fn, void *ctx,
                           const char *debug, pt_registration **out)
{
    return pt_dispatch_impl_unboxed(op, key, fn, NULL, ctx, debug, out);
}

pt_status pt_dispatch_impl_unboxed(const char *op, int32_t key, pt_boxed_fn fn, void *unboxed,
                                   void *ctx, const char *debug, pt_registration **out)
{
    if (!fn) {
        if (out) *out = NULL;
        return PT_ERROR(PT_ERR_VALUE, "impl: the boxed kernel for '%s' is NULL (a fallthrough "
                        "is registered with pt_dispatch_impl_fallthrough)", op ? op : "(null)");
    }
    return add_impl(op, key, fn, unboxed, ctx, debug, out);
}

pt_status pt_dispatch_impl_fallthrough(const char *op, int32_t key, const char *debug,
                                       pt_registration **out)
{
    return add_impl(op, key, NULL, NULL, NULL, debug, out);
}

pt_status pt_dispatch_builtin_impl(const char *opname, int32_t key, pt_boxed_fn fn, void *ctx,
                                   const char *debug, pt_registration **out)
{
    op_key k;
    PT_TRY(parse_op_name(opname, NULL, "impl", &k));
    return pt_dispatch_register_impl(&k, pt_dispatch_key_index(key), fn, NULL, ctx, debug, out);
}

pt_status pt_dispatch_builtin_fallback(int32_t key, pt_boxed_fn fn, void *ctx, const char *debug,
                                       pt_registration **out)
{
    return add_fallback(key, fn, ctx, debug, out);
}

pt_status pt_dispatch_fallback(int32_t key, pt_boxed_fn fn, void *ctx, const char *debug,
                               pt_registration **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "fallback: out is NULL");
    *out = NULL;
    PT_TRY(ensure_builtins());
    return add_fallback(key, fn, ctx, debug, out);
}

/* Unlinks r from a newest-first list. */
static void unlink_from(pt_registration **head, pt_registration *r)
{
    for (pt_registration **p = head; *p; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            return;
        }
    }
}

static void release_def_locked(pt_registration *r)
{
    pt_op *op = r->op;
    op->def = NULL;
    memmove(&defs[op->def_index], &defs[op->def_index + 1],
            (size_t)(ndefs - op->def_index - 1) * sizeof *defs);
    ndefs--;
    for (int32_t i = op->def_index; i < ndefs; i++) defs[i]->def_index = i;
    op->def_index = -1;
    pt_arg_plan *plan = (pt_arg_plan *)atomic_exchange_explicit(&op->plan, NULL,
                                                                memory_order_acq_rel);
    plan->retired_next = retired_plans;
    retired_plans = plan;
    atomic_store_explicit(&op->variants, PT_VARIANT_FUNCTION, memory_order_relaxed);
}

void pt_registration_release(pt_registration *r)
{
    if (!r) return;
    pthread_mutex_lock(&pt_dispatch_lock);
    if (r->kind == PT_REG_DEF) {
        release_def_locked(r);
    } else {
        if (r->kind == PT_REG_IMPL) {
            unlink_from(&r->op->kernels[r->kidx], r);
            pt_dispatch_recompute_locked(r->op);
        } else {
            unlink_from(&pt_dispatch_fallbacks[r->kidx], r);
            for (size_t i = 0; i < nentries; i++) pt_dispatch_recompute_locked(entries[i]);
        }
        r->rec->retired_next = retired_kernels;
        retired_kernels = r->rec;
        r->rec = NULL;
    }
    pthread_mutex_unlock(&pt_dispatch_lock);
    registration_free(r);
}

/* ---------------------------------------------------------------- lookup and introspection */

/* PyTorch's words for an operator without a def (Dispatcher::findSchemaOrThrow). */
static pt_status no_schema(const char *name)
{
    return PT_ERROR(PT_ERR_RUNTIME, "Could not find schema for %s", name);
}

pt_status pt_dispatch_find(const char *name, const char *overload, pt_op **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "find: out must not be NULL");
    op_key k;
    PT_TRY(parse_op_name(name, overload, "find", &k));
    pthread_mutex_lock(&pt_dispatch_lock);
    pt_op *op = lookup(&k, key_hash(&k));
    bool has_def = op && op->def;
    pthread_mutex_unlock(&pt_dispatch_lock);
    if (has_def) {
        *out = op;
        return PT_OK;
    }
    char full[512];
    snprintf(full, sizeof full, "%.*s::%.*s%s%.*s", (int)k.ns_len, k.ns, (int)k.base_len, k.base,
             k.overload_len ? "." : "", (int)k.overload_len, k.overload);
    return no_schema(full);
}

int32_t pt_dispatch_op_count(void)
{
    pthread_mutex_lock(&pt_dispatch_lock);
    int32_t n = ndefs;
    pthread_mutex_unlock(&pt_dispatch_lock);
    return n;
}

pt_status pt_dispatch_op_at(int32_t index, pt_op **out)
{
    pthread_mutex_lock(&pt_dispatch_lock);
    int32_t n = ndefs;
    if (index >= 0 && index < n) *out = defs[index];
    pthread_mutex_unlock(&pt_dispatch_lock);
    if (index < 0 || index >= n)
        return PT_ERROR(PT_ERR_INDEX, "op index %d is out of range (%d operators)", (int)index,
                        (int)n);
    return PT_OK;
}

const pt_schema *pt_op_schema(const pt_op *op)
{
    const pt_arg_plan *plan = atomic_load_explicit(&op->plan, memory_order_acquire);
    return plan ? plan->schema : NULL;
}

const char *pt_op_name(const pt_op *op) { return op->name; }

int32_t pt_op_variants(const pt_op *op)
{
    return atomic_load_explicit(&op->variants, memory_order_relaxed);
}

void pt_op_set_variants(pt_op *op, int32_t variants)
{
    atomic_store_explicit(&op->variants, variants, memory_order_relaxed);
}

pt_status pt_dispatch_dump(const char *name, const char **out)
{
    op_key k;
    PT_TRY(parse_op_name(name, NULL, "_dispatch_dump", &k));
    PT_TRY(ensure_builtins());
    pthread_mutex_lock(&pt_dispatch_lock);
    pt_op *op = lookup(&k, key_hash(&k));
    pthread_mutex_unlock(&pt_dispatch_lock);
    if (!op)
        return PT_ERROR(PT_ERR_RUNTIME, "_dispatch_dump: no operator '%s' (neither a def nor an "
                        "impl names it)", name);
    return pt_dispatch_dump_op(op, out);
}

/* ---------------------------------------------------------------- the call path */

uint64_t pt_dispatch_tls_included(void) { return tls_included; }
uint64_t pt_dispatch_tls_excluded(void) { return tls_excluded; }

void pt_dispatch_tls_set(uint64_t included, uint64_t excluded)
{
    tls_included = included & PT_RUNTIME_KEYS_MASK;
    tls_excluded = excluded & PT_RUNTIME_KEYS_MASK;
}

uint64_t pt_dispatch_compute_keyset(const pt_op *op, uint64_t tensor_keys)
{
    uint64_t keys = (tensor_keys | tls_included | always_included) & ~tls_excluded;
    return keys & atomic_load_explicit(&op->nonfallthrough, memory_order_acquire);
}

const pt_kernel *pt_dispatch_slot(const pt_op *op, uint64_t keyset, int32_t *key)
{
    keyset &= PT_RUNTIME_KEYS_MASK;
    if (!keyset) {
        *key = PT_KEY_NONE;
        return atomic_load_explicit(&op->undefined_slot, memory_order_acquire);
    }
    int32_t k = 63 - __builtin_clzll(keyset);
    *key = k;
    return atomic_load_explicit(&op->slots[k], memory_order_acquire);
}

static const char *const tag_names[PT_IV_TAG_COUNT] = {
    [PT_IV_NONE] = "None",
    [PT_IV_BOOL] = "bool",
    [PT_IV_INT] = "int",
    [PT_IV_DOUBLE] = "float",
    [PT_IV_COMPLEX] = "complex",
    [PT_IV_STRING] = "str",
    [PT_IV_TENSOR] = "Tensor",
    [PT_IV_INT_LIST] = "a list of ints",
    [PT_IV_DOUBLE_LIST] = "a list of floats",
    [PT_IV_BOOL_LIST] = "a list of bools",
    [PT_IV_TENSOR_LIST] = "a list of Tensors",
    [PT_IV_OPT_TENSOR_LIST] = "a list of optional Tensors",
    [PT_IV_STRING_LIST] = "a list of strs",
    [PT_IV_DTYPE] = "dtype",
    [PT_IV_DEVICE] = "Device",
    [PT_IV_LAYOUT] = "layout",
    [PT_IV_MEMORY_FORMAT] = "memory_format",
    [PT_IV_GENERATOR] = "Generator",
};

/* An error path: what was on the stack where the schema wants a tensor or a list of them. */
static pt_status wrong_value(const pt_op *op, const pt_plan_arg *a, const pt_ivalue *v)
{
    int32_t tag = v->tag == PT_IV_TENSOR && !v->t ? PT_IV_NONE : v->tag;
    const char *got = tag >= 0 && tag < PT_IV_TAG_COUNT ? tag_names[tag] : "an unknown value";
    return PT_ERROR(PT_ERR_TYPE, "%s(): argument '%s' (position %d) must be %s, not %s",
                    op->name, a->name, (int)a->index + 1,
                    !a->list            ? "Tensor"
                    : a->optional_elems ? "a list of optional Tensors"
                                        : "a list of Tensors",
                    got);
}

/* The keys of one tensor-holding argument. The check is a tag compare per argument: cheap next
 * to a kernel, and it keeps a wrong value from being read as a tensor. */
static pt_status argument_keys(const pt_op *op, const pt_plan_arg *a, const pt_ivalue *v,
                               uint64_t *keys)
{
    if (v->tag == PT_IV_NONE || (v->tag == PT_IV_TENSOR && !v->t))
        return a->optional ? PT_OK : wrong_value(op, a, v);
    if (!a->list) {
        if (v->tag != PT_IV_TENSOR) return wrong_value(op, a, v);
        *keys |= pt_tensor_keys(v->t);
        return PT_OK;
    }
    if (v->tag != PT_IV_TENSOR_LIST && v->tag != PT_IV_OPT_TENSOR_LIST)
        return wrong_value(op, a, v);
    for (int64_t i = 0; v->tensors && i < v->len; i++) *keys |= pt_tensor_keys(v->tensors[i]);
    return PT_OK;
}

static uint64_t any_value_keys(const pt_ivalue *v)
{
    uint64_t keys = 0;
    if (v->tag == PT_IV_TENSOR) return pt_tensor_keys(v->t);
    if (v->tag == PT_IV_TENSOR_LIST || v->tag == PT_IV_OPT_TENSOR_LIST)
        for (int64_t i = 0; v->tensors && i < v->len; i++) keys |= pt_tensor_keys(v->tensors[i]);
    return keys;
}

static pt_status tensor_keys_of(const pt_op *op, const pt_stack *stack, uint64_t *out)
{
    if (!op) return PT_ERROR(PT_ERR_VALUE, "dispatch: op must not be NULL");
    if (!stack || (!stack->items && stack->size))
        return PT_ERROR(PT_ERR_VALUE, "%s(): the stack must not be NULL", op->name);
    const pt_arg_plan *plan = atomic_load_explicit(&op->plan, memory_order_acquire);
    if (!plan) return no_schema(op->name);
    if (stack->size < plan->nargs || stack->size > stack->capacity)
        return PT_ERROR(PT_ERR_RUNTIME, "%s() expected %d arguments on the stack but found %d",
                        op->name, (int)plan->nargs, (int)stack->size);
    uint64_t keys = 0;
    if (plan->vararg) {
        /* Where the call's values start is the kernel's business: look at every value. */
        for (int32_t i = 0; i < stack->size; i++) keys |= any_value_keys(&stack->items[i]);
    } else {
        /* The arguments are the top nargs values; anything below them is the caller's. */
        const pt_ivalue *args = stack->items + (stack->size - plan->nargs);
        for (int32_t i = 0; i < plan->ntensors; i++) {
            const pt_plan_arg *a = &plan->tensor_args[i];
            PT_TRY(argument_keys(op, a, &args[a->index], &keys));
        }
    }
    *out = keys;
    return PT_OK;
}

pt_status pt_dispatch_keyset(const pt_op *op, const pt_stack *stack, uint64_t *out)
{
    uint64_t keys;
    PT_TRY(tensor_keys_of(op, stack, &keys));
    *out = pt_dispatch_compute_keyset(op, keys);
    return PT_OK;
}

pt_status pt_dispatch_call(const pt_op *op, pt_stack *stack)
{
    uint64_t keys;
    PT_TRY(tensor_keys_of(op, stack, &keys));
    uint64_t keyset = pt_dispatch_compute_keyset(op, keys);
    int32_t key;
    const pt_kernel *k = pt_dispatch_slot(op, keyset, &key);
    const pt_arg_plan *plan = atomic_load_explicit(&op->plan, memory_order_acquire);
    if (!plan->written || (keyset & PT_AUTOGRAD_KEYS) || pt_version_guard)
        return k->boxed(op, key, keyset, stack, k->ctx);
    /* Below autograd, a call that writes bumps the written tensors' versions (Note [version
     * counters] in csrc/autograd/autograd.h). The arguments are borrowed: keep them. */
    pt_tensor *written[8];
    int32_t nw = 0;
    const pt_ivalue *args = stack->items + (stack->size - plan->nargs);
    for (int32_t i = 0; i < plan->nargs && i < 64 && nw < 8; i++)
        if ((plan->written >> i) & 1 && args[i].tag == PT_IV_TENSOR && args[i].t)
            written[nw++] = args[i].t;
    pt_version_guard++;
    pt_status st = k->boxed(op, key, keyset, stack, k->ctx);
    pt_version_guard--;
    PT_TRY(st);
    for (int32_t i = 0; i < nw; i++) PT_TRY(pt_version_bump_tensor(written[i]));
    return PT_OK;
}

pt_status pt_dispatch_redispatch(const pt_op *op, int32_t below_key, uint64_t keyset,
                                 pt_stack *stack)
{
    if (below_key < 0 || below_key > PT_KEY_COUNT)
        return PT_ERROR(PT_ERR_VALUE, "redispatch: below_key %d is not a runtime dispatch key",
                        (int)below_key);
    keyset &= (((uint64_t)1 << below_key) - 1) &
              atomic_load_explicit(&op->nonfallthrough, memory_order_acquire);
    int32_t key;
    const pt_kernel *k = pt_dispatch_slot(op, keyset, &key);
    return k->boxed(op, key, keyset, stack, k->ctx);
}
