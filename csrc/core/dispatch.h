/* dispatch.h - what dispatch.c (entries, registration, the call path) and dispatch_table.c (the
 * table each entry computes from its registrations, the dump and the "could not run" message)
 * share. Nothing here leaves the two files: the rest of the core sees internal.h's "dispatcher
 * internals" only.
 *
 * An entry (struct pt_op) keeps its registrations per registrable key in lists, newest first,
 * and a computed table: one atomic slot per runtime key plus one for the empty key set
 * ("Undefined", as PyTorch calls it). Slots point at kernel records, which are immutable once
 * made and never freed while the process lives, so the call path reads a slot with one acquire
 * load and no lock (Note [lock-free slots] in dispatch.c).
 */
#ifndef PT_DISPATCH_H
#define PT_DISPATCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"

/* Registrable keys as dense indices: the runtime keys keep their number, the three alias keys
 * follow them. */
enum {
    PT_KIDX_AUTOGRAD = PT_KEY_COUNT,
    PT_KIDX_COMPOSITE_IMPLICIT = PT_KEY_COUNT + 1,
    PT_KIDX_COMPOSITE_EXPLICIT = PT_KEY_COUNT + 2,
    PT_KIDX_COUNT = PT_KEY_COUNT + 3
};
_Static_assert(PT_KEY_COUNT <= 63, "a key set is one 64-bit word");

#define PT_KEY_BIT(k) (((uint64_t)1) << (k))
#define PT_RUNTIME_KEYS_MASK (PT_KEY_BIT(PT_KEY_COUNT) - 1)
/* PyTorch's alias-key sets over our runtime keys: CompositeExplicitAutograd fills the backends
 * (and the empty key set); CompositeImplicitAutograd fills the backends and their autograd keys
 * (and the empty key set); Autograd fills the autograd keys. BackendSelect and Python are in none:
 * only their own kernels and fallbacks fill them. */
#define PT_BACKEND_KEYS (PT_KEY_BIT(PT_KEY_CPU) | PT_KEY_BIT(PT_KEY_CUDA) | PT_KEY_BIT(PT_KEY_META))
#define PT_MATH_BIT_KEYS (PT_KEY_BIT(PT_KEY_CONJUGATE) | PT_KEY_BIT(PT_KEY_NEGATIVE))
#define PT_AUTOGRAD_KEYS                                                                           \
    (PT_KEY_BIT(PT_KEY_AUTOGRAD_CPU) | PT_KEY_BIT(PT_KEY_AUTOGRAD_CUDA) |                          \
     PT_KEY_BIT(PT_KEY_AUTOGRAD_META))

/* An immutable kernel as table slots see it. `k` comes first so that a slot's pt_kernel pointer
 * is also the record's. Owned by its registration until that is released, then retired
 * (Note [lock-free slots]). */
typedef struct pt_kernel_record {
    pt_kernel k;
    int32_t fallthrough;
    struct pt_kernel_record *retired_next;
    char debug[]; /* k.debug points here */
} pt_kernel_record;

/* What a call needs from the schema, computed once at def: where the tensor-holding arguments
 * sit and what they may hold. Immutable; retired (with its schema reference) when the def is
 * released. */
typedef struct pt_plan_arg {
    int32_t index;          /* argument position */
    int32_t list;           /* Tensor[] / Tensor?[] rather than Tensor / Tensor? */
    int32_t optional;       /* None may stand in its place: Tensor?, Tensor[]? */
    int32_t optional_elems; /* Tensor?[] */
    const char *name;       /* borrowed from the schema the plan holds */
} pt_plan_arg;
typedef struct pt_arg_plan {
    pt_schema *schema;
    int32_t nargs;
    int32_t vararg;
    int32_t ntensors;
    uint64_t written; /* bit i: argument i is a written tensor (`Tensor(a!)`), i < 64 */
    struct pt_arg_plan *retired_next;
    pt_plan_arg tensor_args[];
} pt_arg_plan;

enum { PT_REG_DEF = 0, PT_REG_IMPL = 1, PT_REG_FALLBACK = 2 };

struct pt_registration {
    int32_t kind;
    int32_t kidx;                 /* IMPL and FALLBACK: the registrable key index */
    pt_op *op;                    /* DEF and IMPL */
    pt_kernel_record *rec;        /* IMPL and FALLBACK */
    struct pt_registration *next; /* the per-key list, newest first */
    char debug[];                 /* DEF: its debug string */
};

struct pt_op {
    /* Identity, fixed at creation: "ns::name" followed by ".overload" when there is one. */
    char *name;
    size_t base_len;      /* strlen("ns::name") */
    const char *overload; /* points into name, "" for the default overload */
    uint64_t hash;
    struct pt_op *chain; /* next entry in the same hash bucket */

    /* Registration state: read and written under pt_dispatch_lock. */
    pt_registration *def;
    int32_t def_index; /* position in the def-order list, -1 without a def */
    pt_registration *kernels[PT_KIDX_COUNT]; /* newest first */

    /* The call path: atomics only (Note [lock-free slots]). */
    _Atomic(const pt_kernel *) slots[PT_KEY_COUNT];
    _Atomic(const pt_kernel *) undefined_slot; /* the empty key set's slot */
    _Atomic uint64_t nonfallthrough;           /* runtime keys whose slot is not a fallthrough */
    _Atomic(const pt_arg_plan *) plan;         /* NULL without a def */
    _Atomic int32_t variants;
};

/* How a slot was filled, in the order the rules try them (PyTorch's words in the dump). */
typedef enum {
    PT_SLOT_KERNEL,          /* "kernel": registered for the key itself */
    PT_SLOT_DEFAULT_BACKEND, /* "default backend kernel": CompositeExplicitAutograd */
    PT_SLOT_MATH,            /* "math kernel": CompositeImplicitAutograd */
    PT_SLOT_AUTOGRAD,        /* "autograd kernel": the Autograd alias */
    PT_SLOT_FALLBACK,        /* "backend fallback" */
    PT_SLOT_MISSING          /* "missing" */
} pt_slot_source;

/* dispatch.c: the registration lock and what the table computation reads under it. */
extern pthread_mutex_t pt_dispatch_lock;
extern pt_registration *pt_dispatch_fallbacks[PT_KEY_COUNT]; /* per runtime key, newest first */
/* The slot a missing kernel occupies: its boxed function raises pt_dispatch_missing. */
extern const pt_kernel pt_dispatch_missing_kernel;

/* dispatch.c: registrations made while the built-in fallbacks are set up (they skip the
 * built-ins check that the public functions make). */
struct op_key;
pt_status pt_dispatch_register_impl(const struct op_key *k, int32_t kidx, pt_boxed_fn fn,
                                    void *unboxed, void *ctx, const char *debug,
                                    pt_registration **out);
/* fn NULL: a fallthrough. */
pt_status pt_dispatch_builtin_impl(const char *op, int32_t key, pt_boxed_fn fn, void *ctx,
                                   const char *debug, pt_registration **out);
pt_status pt_dispatch_builtin_fallback(int32_t key, pt_boxed_fn fn, void *ctx, const char *debug,
                                       pt_registration **out);
/* dispatch_mathbits.c: the Conjugate and Negative fallbacks and their fallthroughs. */
pt_status pt_dispatch_mathbits_register(void);

/* dispatch_table.c: keys. */
/* Dense index of a registrable key (PT_KEY_*), -1 for anything else. PT_KEY_NONE means
 * CompositeImplicitAutograd, as an impl without a key does in PyTorch. */
int32_t pt_dispatch_key_index(int32_t key);
/* The name of a registrable key index ("CPU", "Autograd", ...); NULL out of range. */
const char *pt_dispatch_kidx_name(int32_t kidx);

/* dispatch_table.c: tables; the caller holds pt_dispatch_lock. key -1 is the empty key set. */
/* The record that fills op's slot for key, NULL when missing; *source says by which rule. */
const pt_kernel_record *pt_dispatch_compute_entry(const pt_op *op, int32_t key,
                                                  pt_slot_source *source);
/* Recomputes every slot, the undefined slot and the fallthrough mask of op. */
void pt_dispatch_recompute_locked(pt_op *op);
/* pt_dispatch_dump's text for one entry (takes pt_dispatch_lock itself). */
pt_status pt_dispatch_dump_op(const pt_op *op, const char **out);

#endif
