/* engine.c - backward: runs the graph from the roots' grad_fns to the leaves (PyTorch's Engine,
 * on the calling thread).
 *
 * Note [the engine]
 *  1. Each root tensor gives an edge (its grad_fn and output number, or its AccumulateGrad); the
 *     root gradients go into those nodes' input buffers.
 *  2. A walk from the roots counts, for every reachable node, the edges that point at it: a node
 *     is ready when all its producers have run.
 *  3. With `inputs` (autograd.grad, or backward(inputs=)), only nodes on a path to one of the
 *     inputs' edges run; the gradient arriving at an input's edge is captured there (grad) or
 *     accumulated into its .grad (backward).
 *  4. Ready nodes run latest-created first (by sequence number; AccumulateGrad first of all).
 *     A node gets one gradient per output (NULL: none arrived), its hooks run, then its apply
 *     with grad mode = create_graph. Each result is checked against what the next node expects
 *     (summed over broadcast dims, cast to its dtype; an impossible shape is an error naming
 *     the node) and summed into that node's buffer. Without retain_graph a node frees its saved
 *     variables once it has run.
 *
 * Note [node hooks]
 * The hooks around one node run in torch's order: the tensor hooks of its outputs (for
 * AccumulateGrad, the leaf's hooks), then retain_grad's copies into .grad, then the node's
 * pre hooks (grad_fn.register_prehook), each seeing what the one before left, then the node,
 * then its post hooks (grad_fn.register_hook) with the node's results, which they may replace,
 * and the gradients it was given. A leaf's post-accumulate hooks run inside AccumulateGrad once
 * .grad is updated. A hook removed while backward runs is skipped from then on.
 *
 * Note [hooks of captured gradients]
 * autograd.grad() returns for each input the gradient that reaches the input's edge. When the
 * node at that edge does not run itself (a leaf's AccumulateGrad always, a non-leaf's grad_fn
 * when nothing else wanted lies beyond it), the tensor hooks and retain_grad copies that would
 * have run before it run anyway, and the gradient is captured after them: x.register_hook(fn)
 * changes what grad(y, x) returns, each hook given what the one before returned (None keeps
 * it), while .grad stays untouched and post-accumulate hooks do not run. A node that runs
 * because something beyond it is wanted gives the gradient as it arrived, before its hooks
 * (torch's engine does the same). backward(inputs=) retains the grad of its non-leaf inputs
 * (pytensor.autograd.backward), so such an input's .grad is the hooked gradient too.
 * Everything the run allocates belongs to this call, so backward calls on independent graphs from
 * several threads do not interact; AccumulateGrad serialises its writes to .grad.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "functions.h"
#include "pt_ops.h"

typedef struct {
    pt_node *node; /* NULL: empty slot */
    int32_t deps;
    bool run;       /* on a path to what is wanted (always true without inputs) */
    bool target;    /* an input's edge ends here: its gradient is captured when ready */
    bool wanted;    /* must run itself (a wanted leaf's accumulator) */
    bool decided;   /* run computed */
    bool on_stack;
    bool queued;
    pt_tensor **buffer; /* node->n_inputs gradients */
} node_info;

typedef struct {
    node_info *slots;
    size_t cap, count;
} node_map;

static size_t hash_ptr(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull); }

static node_info *map_find(node_map *m, const pt_node *n)
{
    size_t i = hash_ptr(n) & (m->cap - 1);
    while (m->slots[i].node) {
        if (m->slots[i].node == n) return &m->slots[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

static pt_status map_grow(node_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    node_info *slots = calloc(cap, sizeof *slots);
    if (!slots) return PT_ERROR(PT_ERR_MEMORY, "backward: out of memory");
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].node) continue;
        size_t j = hash_ptr(m->slots[i].node) & (cap - 1);
        while (slots[j].node) j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return PT_OK;
}

/* The entry of n, made when absent (*created says so). */
static pt_status map_get(node_map *m, pt_node *n, node_info **out, bool *created)
{
    *created = false;
    if ((m->count + 1) * 2 > m->cap) PT_TRY(map_grow(m));
    size_t i = hash_ptr(n) & (m->cap - 1);
    while (m->slots[i].node) {
        if (m->slots[i].node == n) {
            *out = &m->slots[i];
            return PT_OK;
        }
        i = (i + 1) & (m->cap - 1);
    }
    node_info *e = &m->slots[i];
    memset(e, 0, sizeof *e);
    if (n->n_inputs > 0) {
        e->buffer = calloc((size_t)n->n_inputs, sizeof *e->buffer);
        if (!e->buffer) return PT_ERROR(PT_ERR_MEMORY, "backward: out of memory");
    }
    e->node = n;
    m->count++;
    *created = true;
    *out = e;
    return PT_OK;
}

static void map_free(node_map *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        node_info *e = &m->slots[i];
        if (!e->node) continue;
        for (int32_t k = 0; e->buffer && k < e->node->n_inputs; k++)
            pt_tensor_release(e->buffer[k]);
        free(e->buffer);
    }
    free(m->slots);
}

/* ---------------------------------------------------------------- a growable pointer array */
typedef struct {
    pt_node **v;
    size_t n, cap;
} node_vec;

static pt_status vec_push(node_vec *s, pt_node *n)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        pt_node **v = realloc(s->v, cap * sizeof *v);
        if (!v) return PT_ERROR(PT_ERR_MEMORY, "backward: out of memory");
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = n;
    return PT_OK;
}

/* The ready queue: a max-heap on sequence numbers. */
static pt_status heap_push(node_vec *h, pt_node *n)
{
    PT_TRY(vec_push(h, n));
    size_t i = h->n - 1;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->v[p]->seq >= h->v[i]->seq) break;
        pt_node *t = h->v[p];
        h->v[p] = h->v[i];
        h->v[i] = t;
        i = p;
    }
    return PT_OK;
}

static pt_node *heap_pop(node_vec *h)
{
    pt_node *top = h->v[0];
    h->v[0] = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->v[l]->seq > h->v[m]->seq) m = l;
        if (r < h->n && h->v[r]->seq > h->v[m]->seq) m = r;
        if (m == i) break;
        pt_node *t = h->v[m];
        h->v[m] = h->v[i];
        h->v[i] = t;
        i = m;
    }
    return top;
}

/* ---------------------------------------------------------------- gradients */
static bool expandable(int32_t n, const int64_t *from, int32_t m, const int64_t *to)
{
    if (n > m) return false;
    for (int32_t i = 1; i <= n; i++) {
        int64_t a = from[n - i], b = to[m - i];
        if (a != b && a != 1) return false;
    }
    return true;
}

pt_status pt_validate_grad(const pt_node *producer, int32_t index, const pt_input_meta *meta,
                           pt_tensor *grad, pt_tensor **out)
{
    *out = NULL;
    pt_tensor *g = grad;
    pt_tensor_retain(g);
    if (meta->ndim < 0) {
        *out = g;
        return PT_OK;
    }
    const char *name = producer ? producer->name : "backward";
    bool same = g->ndim == meta->ndim &&
                (meta->ndim == 0 ||
                 memcmp(g->sizes, meta->sizes, sizeof(int64_t) * (size_t)meta->ndim) == 0);
    if (!same) {
        if (!expandable(meta->ndim, meta->sizes, g->ndim, g->sizes)) {
            char got[256], want[256];
            pt_format_ints(got, sizeof got, g->ndim, g->sizes);
            pt_format_ints(want, sizeof want, meta->ndim, meta->sizes);
            pt_tensor_release(g);
            return PT_ERROR(PT_ERR_RUNTIME,
                            "Function %s returned an invalid gradient at index %d - got %s but "
                            "expected shape compatible with %s",
                            name, (int)index, got, want);
        }
        pt_tensor *r = pt_ag_sum_to(g, meta->ndim, meta->sizes);
        pt_tensor_release(g);
        if (!r) return pt_error_code();
        g = r;
    }
    if (g->device.type != meta->device.type || g->device.index != meta->device.index) {
        pt_tensor_release(g);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Function %s returned an invalid gradient at index %d - expected device "
                        "type %d but got %d",
                        name, (int)index, (int)meta->device.type, (int)grad->device.type);
    }
    /* a real input of an operator with complex results gets the real part of its gradient
       (torch's handle_r_to_c; Note [conjugate Wirtinger gradients] in derivatives.yaml) */
    if (pt_ag_is_complex(g) && meta->dtype != PT_COMPLEX64 && meta->dtype != PT_COMPLEX128) {
        pt_tensor *r = pt_call_real(g);
        pt_tensor_release(g);
        if (!r) return pt_error_code();
        g = r;
    }
    if (g->dtype != meta->dtype) {
        pt_tensor *r = pt_call_to_dtype(g, meta->dtype, 0, 0, -1);
        pt_tensor_release(g);
        if (!r) return pt_error_code();
        g = r;
    }
    *out = g;
    return PT_OK;
}

/* buffer[i] += g (g is consumed). */
static pt_status accumulate(pt_tensor **slot, pt_tensor *g)
{
    if (!*slot) {
        *slot = g;
        return PT_OK;
    }
    pt_tensor *s = pt_call_add_Tensor(*slot, g, &pt_scalar_one);
    pt_tensor_release(g);
    if (!s) return pt_error_code();
    pt_tensor_release(*slot);
    *slot = s;
    return PT_OK;
}

static pt_status check_nan(const pt_node *n, int32_t i, const pt_tensor *g)
{
    pt_tensor *m = pt_call_isnan(g);
    if (!m) return pt_error_code();
    pt_tensor *a = pt_call_any(m);
    pt_tensor_release(m);
    if (!a) return pt_error_code();
    pt_scalar v;
    pt_status st = pt_tensor_item(a, &v);
    pt_tensor_release(a);
    PT_TRY(st);
    if (v.i)
        return PT_ERROR(PT_ERR_RUNTIME, "Function '%s' returned nan values in its %dth output.%s%s",
                        n->name, (int)i,
                        n->anomaly_trace ? "\nThe forward call that created it:\n" : "",
                        n->anomaly_trace ? n->anomaly_trace : "");
    return PT_OK;
}

/* A failure inside node n: in anomaly mode the message gains the stack that created n. */
static pt_status with_trace(const pt_node *n, pt_status st)
{
    if (st == PT_OK || !n->anomaly_trace || !pt_anomaly_enabled()) return st;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", pt_error_message());
    return PT_ERROR(st, "%s\nError detected in %s. Traceback of forward call that caused the "
                    "error:\n%s", msg, n->name, n->anomaly_trace);
}

/* Gradients of all of a node's outputs when some are missing and its formulas read them all. */
static pt_status materialize(pt_node *n, pt_tensor **grads)
{
    bool any = false, missing = false;
    for (int32_t i = 0; i < n->n_inputs; i++) {
        any |= grads[i] != NULL;
        missing |= grads[i] == NULL;
    }
    if (!any || !missing) return PT_OK;
    for (int32_t i = 0; i < n->n_inputs; i++) {
        if (grads[i] || n->input_meta[i].ndim < 0) continue;
        pt_device dev = n->input_meta[i].device;
        grads[i] = pt_call_zeros(n->input_meta[i].ndim, n->input_meta[i].sizes,
                                 n->input_meta[i].dtype, -1, &dev, -1);
        if (!grads[i]) return pt_error_code();
    }
    return PT_OK;
}

/* m->grad += g for a non-leaf's .grad (retain_grad, backward(inputs=)): out of place, so a
 * .grad handed out before stays as it was. */
static pt_status add_into_grad(pt_autograd_meta *m, pt_tensor *g)
{
    pt_tensor *old = m->grad;
    if (!old) {
        pt_tensor_retain(g);
        m->grad = g;
        return PT_OK;
    }
    pt_tensor *s = pt_call_add_Tensor(old, g, &pt_scalar_one);
    if (!s) return pt_error_code();
    m->grad = s;
    pt_tensor_release(old);
    return PT_OK;
}

/* Runs one node: hooks, apply, checks. outs get n->n_next new references (or NULL). */
static pt_status run_node_hooks(struct pt_hook *list, int32_t n_in, pt_tensor **ins,
                                int32_t n_out, pt_tensor **outs)
{
    for (struct pt_hook *h = list; h; h = h->next) {
        pt_node_hook_fn fn = pt_hook_node_fn(h);
        if (fn) PT_TRY(fn(h->ctx, n_in, ins, n_out, outs));
    }
    return PT_OK;
}

/* Post hooks see the results as the next nodes will (torch validates before them), and the
 * gradients the node was given as they arrived (undefined ones as NULL, not the zeros that
 * materialize made for the node). */
static pt_status run_post_hooks(pt_node *n, pt_tensor **grads, pt_tensor **outs)
{
    for (int32_t j = 0; j < n->n_next; j++) {
        const pt_edge *e = &n->next[j];
        if (!outs[j] || !e->node) continue;
        pt_tensor *g;
        PT_TRY(pt_validate_grad(n, j, &e->node->input_meta[e->input_nr], outs[j], &g));
        pt_tensor_release(outs[j]);
        outs[j] = g;
    }
    return run_node_hooks(n->node_post_hooks, n->n_next, outs, n->n_inputs, grads);
}

/* The tensor hooks of n's outputs (for AccumulateGrad, the leaf's), then retain_grad's copies
 * into .grad: what runs on the gradients a node is given before the node's own hooks. */
static pt_status run_tensor_hooks(pt_node *n, pt_tensor **grads)
{
    if (n->n_inputs > 0) PT_TRY(pt_accumulate_leaf_hooks(n, &grads[0]));
    for (struct pt_hook *h = n->pre_hooks; h; h = h->next) {
        if (!h->fn || h->index < 0 || h->index >= n->n_inputs || !grads[h->index]) continue;
        pt_tensor *r = NULL;
        PT_TRY(h->fn(h->ctx, grads[h->index], &r));
        if (r) {
            pt_tensor_release(grads[h->index]);
            grads[h->index] = r;
        }
    }
    if (n->retains)
        for (int32_t i = 0; i < n->n_inputs; i++) {
            pt_autograd_meta *m = n->retains[i];
            if (m && m->alive && grads[i]) PT_TRY(add_into_grad(m, grads[i]));
        }
    return PT_OK;
}

static pt_status run_node(pt_node *n, pt_tensor **grads, pt_tensor **outs, bool keep_graph)
{
    PT_TRY(run_tensor_hooks(n, grads));
    if (n->node_pre_hooks)
        PT_TRY(run_node_hooks(n->node_pre_hooks, 0, NULL, n->n_inputs, grads));
    pt_tensor **given = NULL; /* borrowed from grads: what the post hooks see */
    if (n->node_post_hooks && n->n_inputs > 0) {
        given = malloc(sizeof *given * (size_t)n->n_inputs);
        if (!given) return PT_ERROR(PT_ERR_MEMORY, "backward: out of memory");
        memcpy(given, grads, sizeof *given * (size_t)n->n_inputs);
    }
    pt_status st = PT_OK;
    /* Generated nodes take undefined gradients as they come (Note [undefined gradients of
     * multi-output nodes] in functions_multi.c); custom Functions get zeros. */
    if (n->needs_all_grads) st = materialize(n, grads);
    if (st == PT_OK) st = n->vt->apply(n, grads, outs);
    if (st == PT_OK && n->node_post_hooks) st = run_post_hooks(n, given ? given : grads, outs);
    free(given);
    if (st == PT_OK && pt_anomaly_check_nan())
        for (int32_t i = 0; st == PT_OK && i < n->n_next; i++)
            if (outs[i]) st = check_nan(n, i, outs[i]);
    if (!keep_graph && n->vt->release_saved) {
        n->vt->release_saved(n);
        n->released = true;
    }
    return with_trace(n, st);
}

/* Whether n lies on a path to a wanted node (post-order walk, iterative). */
static pt_status decide_run(node_map *m, pt_node *root, node_vec *stack)
{
    node_info *ri = map_find(m, root);
    if (!ri || ri->decided) return PT_OK;
    stack->n = 0;
    PT_TRY(vec_push(stack, root));
    ri->on_stack = true;
    while (stack->n) {
        pt_node *n = stack->v[stack->n - 1];
        node_info *ni = map_find(m, n);
        bool pushed = false;
        for (int32_t j = 0; j < n->n_next; j++) {
            pt_node *c = n->next[j].node;
            if (!c) continue;
            node_info *ci = map_find(m, c);
            if (ci && !ci->decided && !ci->on_stack) {
                ci->on_stack = true;
                PT_TRY(vec_push(stack, c));
                pushed = true;
                break;
            }
        }
        if (pushed) continue;
        bool run = ni->wanted;
        for (int32_t j = 0; j < n->n_next && !run; j++) {
            pt_node *c = n->next[j].node;
            if (!c) continue;
            node_info *ci = map_find(m, c);
            run = ci && (ci->run || ci->target);
        }
        ni->run = run;
        ni->decided = true;
        ni->on_stack = false;
        stack->n--;
    }
    return PT_OK;
}

typedef struct {
    pt_edge edge;
    int32_t input; /* index into inputs */
} capture;

pt_status pt_autograd_backward(int32_t n, pt_tensor *const *tensors, pt_tensor *const *grads,
                               int32_t retain_graph, int32_t create_graph, int32_t n_inputs,
                               pt_tensor *const *inputs, int32_t accumulate_grad,
                               int32_t allow_unused, pt_tensor **out)
{
    if (n <= 0 || !tensors || !grads)
        return PT_ERROR(PT_ERR_VALUE, "backward: expected at least one tensor and its gradient");
    for (int32_t k = 0; k < n_inputs && out; k++) out[k] = NULL;
    pt_status st = PT_OK;
    node_map map = {0};
    node_vec stack = {0}, ready = {0};
    pt_edge *roots = calloc((size_t)n, sizeof *roots);
    capture *caps = n_inputs > 0 ? calloc((size_t)n_inputs, sizeof *caps) : NULL;
    pt_tensor **captured = n_inputs > 0 ? calloc((size_t)n_inputs, sizeof *captured) : NULL;
    pt_tensor **outs = NULL;
    const bool saved_mode = pt_grad_mode_enabled();
    if (!roots || (n_inputs > 0 && (!caps || !captured))) {
        st = PT_ERROR(PT_ERR_MEMORY, "backward: out of memory");
        goto done;
    }
    /* 1. root edges */
    for (int32_t i = 0; i < n; i++) {
        if (!tensors[i] || !grads[i]) {
            st = PT_ERROR(PT_ERR_VALUE, "backward: tensor %d or its gradient is missing", (int)i);
            goto done;
        }
        st = pt_gradient_edge(tensors[i], &roots[i]);
        if (st != PT_OK) goto done;
        if (!roots[i].node) {
            st = PT_ERROR(PT_ERR_RUNTIME, "element %d of tensors does not require grad and does "
                          "not have a grad_fn", (int)i);
            goto done;
        }
    }
    /* 2. dependencies */
    for (int32_t i = 0; i < n; i++) {
        node_info *e;
        bool created;
        st = map_get(&map, roots[i].node, &e, &created);
        if (st != PT_OK) goto done;
        if (created && (st = vec_push(&stack, roots[i].node)) != PT_OK) goto done;
    }
    while (stack.n) {
        pt_node *node = stack.v[--stack.n];
        for (int32_t j = 0; j < node->n_next; j++) {
            pt_node *c = node->next[j].node;
            if (!c) continue;
            node_info *e;
            bool created;
            st = map_get(&map, c, &e, &created);
            if (st != PT_OK) goto done;
            e->deps++;
            if (created && (st = vec_push(&stack, c)) != PT_OK) goto done;
        }
    }
    /* 3. what to run */
    for (int32_t k = 0; k < n_inputs; k++) {
        const pt_tensor *t = inputs[k];
        if (!pt_requires_grad(t)) {
            st = PT_ERROR(PT_ERR_RUNTIME, "One of the differentiated Tensors does not require "
                          "grad");
            goto done;
        }
        st = pt_gradient_edge(t, &caps[k].edge);
        if (st != PT_OK) goto done;
        caps[k].input = k;
    }
    if (n_inputs > 0) {
        for (int32_t k = 0; k < n_inputs; k++) {
            node_info *e = map_find(&map, caps[k].edge.node);
            if (!e) continue; /* not reached from the roots: unused */
            e->target = true;
            if (accumulate_grad && pt_autograd_is_leaf(inputs[k])) e->wanted = true;
        }
        for (int32_t i = 0; i < n; i++) {
            st = decide_run(&map, roots[i].node, &stack);
            if (st != PT_OK) goto done;
        }
    } else {
        for (size_t i = 0; i < map.cap; i++)
            if (map.slots[i].node) map.slots[i].run = true;
    }
    /* root gradients */
    for (int32_t i = 0; i < n; i++) {
        node_info *e = map_find(&map, roots[i].node);
        pt_tensor *g;
        st = pt_validate_grad(NULL, i, &roots[i].node->input_meta[roots[i].input_nr], grads[i],
                              &g);
        if (st != PT_OK) goto done;
        st = accumulate(&e->buffer[roots[i].input_nr], g);
        if (st != PT_OK) goto done;
    }
    for (int32_t i = 0; i < n; i++) {
        node_info *e = map_find(&map, roots[i].node);
        if (e->deps == 0 && !e->queued) {
            e->queued = true;
            st = heap_push(&ready, roots[i].node);
            if (st != PT_OK) goto done;
        }
    }
    /* 4. run */
    pt_autograd_set_grad_enabled(create_graph);
    while (ready.n) {
        pt_node *node = heap_pop(&ready);
        node_info *e = map_find(&map, node);
        /* Note [hooks of captured gradients] */
        if (e->target && !e->run) {
            st = run_tensor_hooks(node, e->buffer);
            if (st != PT_OK) break;
        }
        for (int32_t k = 0; k < n_inputs; k++) {
            if (caps[k].edge.node != node) continue;
            pt_tensor *g = e->buffer[caps[k].edge.input_nr];
            if (g) {
                pt_tensor_retain(g);
                pt_tensor_release(captured[k]);
                captured[k] = g;
            }
        }
        if (!e->run) continue;
        outs = node->n_next > 0 ? calloc((size_t)node->n_next, sizeof *outs) : NULL;
        if (node->n_next > 0 && !outs) {
            st = PT_ERROR(PT_ERR_MEMORY, "backward: out of memory");
            break;
        }
        st = run_node(node, e->buffer, outs, retain_graph != 0);
        for (int32_t k = 0; k < node->n_inputs; k++) {
            pt_tensor_release(e->buffer[k]);
            e->buffer[k] = NULL;
        }
        for (int32_t j = 0; st == PT_OK && j < node->n_next; j++) {
            pt_edge *edge = &node->next[j];
            if (!edge->node) continue;
            node_info *c = map_find(&map, edge->node);
            if (outs[j]) {
                pt_tensor *g;
                st = pt_validate_grad(node, j, &edge->node->input_meta[edge->input_nr], outs[j],
                                      &g);
                if (st == PT_OK) st = accumulate(&c->buffer[edge->input_nr], g);
            }
            if (st == PT_OK && --c->deps == 0) st = heap_push(&ready, edge->node);
        }
        for (int32_t j = 0; outs && j < node->n_next; j++) pt_tensor_release(outs[j]);
        free(outs);
        outs = NULL;
        if (st != PT_OK) break;
    }
    pt_autograd_set_grad_enabled(saved_mode);
    if (st != PT_OK) goto done;
    /* 5. results */
    for (int32_t k = 0; k < n_inputs; k++) {
        if (accumulate_grad) {
            /* a non-leaf that retains its grad got it when its node ran or, not running,
               had its tensor hooks run (Note [hooks of captured gradients]) */
            node_info *e = map_find(&map, caps[k].edge.node);
            const bool retained = pt_autograd_retains_grad(inputs[k]) && e;
            if (captured[k] && !pt_autograd_is_leaf(inputs[k]) && !retained) {
                st = add_into_grad(inputs[k]->autograd, captured[k]);
                if (st != PT_OK) goto done;
            }
            continue;
        }
        if (!captured[k] && !allow_unused) {
            st = PT_ERROR(PT_ERR_RUNTIME, "The differentiated Tensor at index %d appears to not "
                          "have been used in the graph. Set allow_unused=True if this is the "
                          "desired behavior.", (int)k);
            goto done;
        }
    }
    if (!accumulate_grad)
        for (int32_t k = 0; k < n_inputs; k++) {
            out[k] = captured[k];
            captured[k] = NULL;
        }
done:
    for (int32_t i = 0; roots && i < n; i++) pt_node_release(roots[i].node);
    for (int32_t k = 0; caps && k < n_inputs; k++) pt_node_release(caps[k].edge.node);
    for (int32_t k = 0; captured && k < n_inputs; k++) pt_tensor_release(captured[k]);
    map_free(&map);
    free(stack.v);
    free(ready.v);
    free(roots);
    free(caps);
    free(captured);
    return st;
}
