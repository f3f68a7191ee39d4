/* stack.c - the dispatcher stack's cleanup.
 *
 * A stack of pt_ivalue holds borrowed arguments on the way into a kernel and owned results on the
 * way out (Note [boxed values] and Note [stack ownership] in pytensor.h). pt_stack_clear is what a
 * receiver calls once it has read the results: it drops the references the kernel handed out and
 * frees the arrays and strings the kernel marked `owned`, then empties the stack, so that an
 * error path can clean up every result with one call whatever the op returned.
 */
#include <stdlib.h>

#include "internal.h"

static void clear_value(pt_ivalue *v)
{
    switch (v->tag) {
    case PT_IV_TENSOR:
        if (v->t) pt_tensor_release(v->t);
        break;
    case PT_IV_GENERATOR:
        if (v->g) pt_generator_release(v->g);
        break;
    case PT_IV_TENSOR_LIST:
    case PT_IV_OPT_TENSOR_LIST:
        /* The tensors of a result list are new references whether or not the array is owned. */
        for (int64_t i = 0; v->tensors && i < v->len; i++)
            if (v->tensors[i]) pt_tensor_release(v->tensors[i]);
        if (v->owned) free((void *)v->tensors);
        break;
    case PT_IV_STRING:
        if (v->owned) free((void *)v->s);
        break;
    case PT_IV_STRING_LIST:
        if (v->owned && v->strings) {
            for (int64_t i = 0; i < v->len; i++) free((void *)v->strings[i]);
            free((void *)v->strings);
        }
        break;
    case PT_IV_INT_LIST:
    case PT_IV_BOOL_LIST:
        if (v->owned) free((void *)v->ints);
        break;
    case PT_IV_DOUBLE_LIST:
        if (v->owned) free((void *)v->doubles);
        break;
    default: /* scalars hold nothing */
        break;
    }
    *v = (pt_ivalue){.tag = PT_IV_NONE};
}

void pt_stack_clear(pt_stack *stack)
{
    if (!stack) return;
    for (int32_t i = 0; i < stack->size; i++) clear_value(&stack->items[i]);
    stack->size = 0;
}
