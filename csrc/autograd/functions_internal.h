/* functions_internal.h - what the formula helper files share: a small arena of temporaries
 * released when a helper ends, the K() macro that keeps an operator's result in it or fails, and
 * dim wrapping, and the few helpers functions.c defines for the other files. Private to
 * csrc/autograd/functions*.c. */
#ifndef PT_AUTOGRAD_FUNCTIONS_INTERNAL_H
#define PT_AUTOGRAD_FUNCTIONS_INTERNAL_H

#include "functions.h"
#include "pt_ops.h"

/* ---------------------------------------------------------------- temporaries */
enum { ARENA_SLOTS = 48 };
typedef struct {
    pt_tensor *t[ARENA_SLOTS];
    int n;
} arena;

static inline pt_tensor *keep(arena *a, pt_tensor *t)
{
    if (!t) return NULL;
    if (a->n == ARENA_SLOTS) { /* never with the helpers below; fail rather than leak */
        pt_tensor_release(t);
        PT_ERROR(PT_ERR_RUNTIME, "autograd: too many temporaries in a formula helper");
        return NULL;
    }
    a->t[a->n++] = t;
    return t;
}

static inline void arena_free(arena *a)
{
    for (int i = 0; i < a->n; i++) pt_tensor_release(a->t[i]);
    a->n = 0;
}

/* The result of a helper: a new reference to r (kept in the arena), everything else released. */
static inline pt_tensor *finish(arena *a, const pt_tensor *r)
{
    if (r) pt_tensor_retain((pt_tensor *)r);
    arena_free(a);
    return (pt_tensor *)r;
}

#define K(var, expr)                                                                               \
    do {                                                                                           \
        var = keep(&ar, (expr));                                                                   \
        if (!var) goto fail;                                                                       \
    } while (0)

static const pt_scalar S_ZERO = {PT_SCALAR_INT, 0, 0.0, 0.0};
static const pt_scalar S_ONE = {PT_SCALAR_INT, 1, 0.0, 0.0};
static const pt_scalar S_TWO = {PT_SCALAR_INT, 2, 0.0, 0.0};

static inline pt_scalar s_double(double v) { return (pt_scalar){PT_SCALAR_FLOAT, 0, v, 0.0}; }

static inline double scalar_value(const pt_scalar *s)
{
    return s->kind == PT_SCALAR_FLOAT || s->kind == PT_SCALAR_COMPLEX ? s->re : (double)s->i;
}

/* Wraps dim against n dims (n = 0 takes 0 and -1). -1 on error (recorded). */
static inline int64_t wrap(int64_t dim, int32_t n)
{
    int32_t out;
    if (pt_wrap_dim(dim, n, &out) != PT_OK) return -1;
    return out;
}

/* Tensor of zeros with grad's dtype and device. */
static inline pt_tensor *zeros_for(const pt_tensor *grad, int32_t n, const int64_t *sizes)
{
    pt_device dev = grad->device;
    return pt_call_zeros(n, sizes, grad->dtype, -1, &dev, -1);
}

/* ---------------------------------------------------------------- shared helpers (functions.c) */
/* The reduced dims as a mask over n dims: none given (nd < 0) or empty means all. */
pt_status pt_ag_reduced_mask(int32_t n, int32_t nd, const int64_t *dims, bool *mask);
/* grad with the reduced dims put back (size 1) when the reduction dropped them (kept in a). */
pt_tensor *pt_ag_restore_dims(arena *a, const pt_tensor *grad, int32_t n, int32_t nd,
                              const int64_t *dims, int32_t keepdim);
/* r, given a node that refuses double backward when it was computed without history. */
pt_tensor *pt_ag_refuse_double_backward(pt_tensor *r, const char *name,
                                        const pt_tensor *input);

#endif
