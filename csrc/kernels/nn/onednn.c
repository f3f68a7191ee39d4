/* onednn.c - convolution passes on oneDNN (Debian's libdnnl, C API), when the build found it
 * (tools/build_config.py defines PT_HAVE_ONEDNN), and the switch that turns it off at run time
 * (pytensor.backends.onednn.enabled).
 *
 * Each pass of a plain convolution (conv.h) is one oneDNN primitive: convolution forward
 * (forward_training), backward data, backward weights; the backward ones are made with the
 * forward primitive descriptor as their hint, as oneDNN requires. The primitives choose their own
 * memory layouts (format_tag_any: blocked layouts such as nChw16c, where oneDNN's fastest
 * kernels run); pytensor's contiguous buffers are reordered into them and the result out of
 * them, by reorder primitives made with the convolution. Channels-last data (conv.h's g->cl) is
 * given to the primitive in its own layout (nhwc: Note [oneDNN on channels-last data]).
 *
 * Note [oneDNN primitive cache]
 * Making a primitive costs far more than running a small one (its kernel is generated), so the
 * primitives and reorders of a problem are kept in a cache of CACHE_SIZE entries keyed by the
 * whole problem (pass, dtype, sizes, stride, padding, dilation, groups), the least recently used
 * one evicted first: a training loop finds its layers' primitives from the second step on. The
 * cache is guarded by a mutex that is held while a primitive runs (an evicted entry is never one
 * in use; convolutions from several Python threads run one at a time here).
 *
 * Threads: Debian's oneDNN uses the OpenMP runtime, the one pytensor's kernels and BLIS use; its
 * primitives run on omp_get_max_threads() threads, which pytensor.set_num_threads sets
 * (omp_set_num_threads, iter_run.c), so one pool serves all three.
 *
 * A problem oneDNN refuses (a primitive it cannot make) runs on the GEMM path instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

static int onednn_on = 1;

#ifdef PT_HAVE_ONEDNN

#include <dnnl.h>
#include <pthread.h>
#include <dlfcn.h>

/* Note [oneDNN loaded on first use]
 * The module does not link libdnnl: loading it (and the C++ runtime it pulls in) is most of a
 * millisecond budget that `import pytensor` should not pay when no convolution runs. The build
 * records the library's SONAME (tools/build_config.py); the first convolution that would run on
 * oneDNN, or pytensor.backends.onednn.is_available(), dlopens it and looks its entry points up
 * (once, under pthread_once, so threads that race to it wait for one load). The config key
 * "onednn" says it was found at build time; "onednn_loaded" appears after the load and says
 * whether it succeeded, with the loader's reason when not. A library that fails to load (absent,
 * or missing an entry point) serves nothing: every convolution takes the GEMM path. The variable
 * PYTENSOR_ONEDNN_LIBRARY names another file to load instead (a test runs the no-oneDNN paths of a
 * build that has it by naming one that does not exist).
 */
#define ONEDNN_STR_(x) #x
#define ONEDNN_STR(x) ONEDNN_STR_(x)
#define ONEDNN_SONAME ONEDNN_STR(PT_ONEDNN_SONAME)

/* The entry points used, each looked up by its name dnnl_<name>. */
#define ONEDNN_API(X) \
    X(primitive_destroy) \
    X(memory_desc_init_by_tag) \
    X(dilated_convolution_forward_desc_init) \
    X(dilated_convolution_backward_data_desc_init) \
    X(dilated_convolution_backward_weights_desc_init) \
    X(memory_desc_equal) \
    X(reorder_primitive_desc_create) \
    X(primitive_create) \
    X(primitive_desc_destroy) \
    X(engine_create) \
    X(stream_create) \
    X(primitive_desc_create) \
    X(primitive_desc_query_md) \
    X(primitive_execute) \
    X(memory_create) \
    X(memory_desc_get_size) \
    X(stream_wait) \
    X(memory_destroy) \
    X(version)

static struct {
#define ONEDNN_FIELD(name) __typeof__(&dnnl_##name) name;
    ONEDNN_API(ONEDNN_FIELD)
#undef ONEDNN_FIELD
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;

static void load(void)
{
    char line[320];
    const char *name = getenv("PYTENSOR_ONEDNN_LIBRARY");
    if (!name || !*name) name = ONEDNN_SONAME;
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;
    if (lib) {
#define ONEDNN_LOOKUP(name)                                                                      \
        if (!missing) {                                                                          \
            void *f = dlsym(lib, "dnnl_" #name);                                                 \
            if (f)                                                                               \
                memcpy(&api.name, &f, sizeof f);                                                 \
            else                                                                                 \
                missing = "dnnl_" #name;                                                         \
        }
        ONEDNN_API(ONEDNN_LOOKUP)
#undef ONEDNN_LOOKUP
    }
    if (lib && !missing) {
        const dnnl_version_t *v = api.version();
        snprintf(line, sizeof line, "oneDNN %d.%d.%d (%s), %s runtime", v->major, v->minor,
                 v->patch, name,
                 v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "not OpenMP");
        loaded = true;
    } else if (lib) {
        snprintf(line, sizeof line, "no: %s lacks %s (convolutions take the GEMM path)", name,
                 missing);
        dlclose(lib);
    } else {
        const char *why = dlerror();
        snprintf(line, sizeof line, "no: %s (convolutions take the GEMM path)",
                 why ? why : "dlopen failed");
    }
    if (pt_config_set("onednn_loaded", line) != PT_OK) pt_error_clear();
}

/* Whether the library is loaded (loading it the first time). */
static bool onednn_loaded(void)
{
    pthread_once(&load_once, load);
    return loaded;
}

/* 32 entries: a ResNet-50 training step has ~20 distinct convolution shapes, three passes each
 * on the fastest ones; 32 keeps the recent layers of a small network and bounds the memory the
 * generated kernels hold. */
enum { CACHE_SIZE = 32 };

typedef struct prim_key {
    int32_t pass, dtype, dims, cl;
    int64_t n, groups, cin, cout;
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
} prim_key;

/* What one pass needs: the primitive, the three user (plain) descriptors and the primitive's,
 * and a reorder for each operand whose layout differs (NULL when it does not). Operand 0 and 1 are
 * read, 2 is written. */
typedef struct prim_entry {
    bool used;
    uint64_t last;
    prim_key key;
    dnnl_primitive_t prim;
    dnnl_memory_desc_t user[3], own[3];
    dnnl_primitive_t reorder[3];
    int arg[3];
} prim_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static prim_entry cache[CACHE_SIZE];
static uint64_t clock_now;
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static bool broken; /* the engine could not be made: oneDNN serves nothing */

static void entry_clear(prim_entry *e)
{
    if (e->prim) api.primitive_destroy(e->prim);
    for (int i = 0; i < 3; i++)
        if (e->reorder[i]) api.primitive_destroy(e->reorder[i]);
    memset(e, 0, sizeof *e);
}

static prim_key key_of(const pt_conv_geom *g, int pass)
{
    prim_key k;
    memset(&k, 0, sizeof k);
    k.pass = pass, k.dtype = g->dtype, k.dims = g->dims, k.cl = g->cl;
    k.n = g->n, k.groups = g->groups, k.cin = g->cin, k.cout = g->cout;
    memcpy(k.in, g->in, sizeof k.in);
    memcpy(k.out, g->out, sizeof k.out);
    memcpy(k.k, g->k, sizeof k.k);
    memcpy(k.stride, g->stride, sizeof k.stride);
    memcpy(k.pad, g->pad, sizeof k.pad);
    memcpy(k.dil, g->dil, sizeof k.dil);
    return k;
}

static const dnnl_format_tag_t data_tags[4] = {dnnl_format_tag_undef, dnnl_ncw, dnnl_nchw,
                                               dnnl_ncdhw};
static const dnnl_format_tag_t weight_tags[4] = {dnnl_format_tag_undef, dnnl_oiw, dnnl_oihw,
                                                 dnnl_oidhw};
static const dnnl_format_tag_t group_tags[4] = {dnnl_format_tag_undef, dnnl_goiw, dnnl_goihw,
                                                dnnl_goidhw};
/* channels-last: (N, spatial, C) data, (Cout, k, Cin/G) weights */
static const dnnl_format_tag_t data_tags_cl[4] = {dnnl_format_tag_undef, dnnl_nwc, dnnl_nhwc,
                                                  dnnl_ndhwc};
static const dnnl_format_tag_t weight_tags_cl[4] = {dnnl_format_tag_undef, dnnl_owi, dnnl_ohwi,
                                                    dnnl_odhwi};
static const dnnl_format_tag_t group_tags_cl[4] = {dnnl_format_tag_undef, dnnl_gowi, dnnl_gohwi,
                                                   dnnl_godhwi};

/* The plain descriptors of x, w, y (tag) or the "any" ones (tag_any). */
static bool descs(const pt_conv_geom *g, bool any, dnnl_memory_desc_t *x, dnnl_memory_desc_t *w,
                  dnnl_memory_desc_t *y)
{
    const int d = g->dims, lead = 3 - d;
    dnnl_dims_t xd = {g->n, g->cin}, yd = {g->n, g->cout}, wd;
    for (int i = 0; i < d; i++) {
        xd[2 + i] = g->in[lead + i];
        yd[2 + i] = g->out[lead + i];
    }
    const bool grouped = g->groups > 1;
    int wn = 0;
    if (grouped) wd[wn++] = g->groups;
    wd[wn++] = g->cout / g->groups;
    wd[wn++] = g->cin / g->groups;
    for (int i = 0; i < d; i++) wd[wn++] = g->k[lead + i];
    const dnnl_data_type_t dt = dnnl_f32;
    const dnnl_format_tag_t dtag = any     ? dnnl_format_tag_any
                                   : g->cl ? data_tags_cl[d]
                                           : data_tags[d];
    const dnnl_format_tag_t wtag = any ? dnnl_format_tag_any
                                   : grouped ? (g->cl ? group_tags_cl[d] : group_tags[d])
                                             : (g->cl ? weight_tags_cl[d] : weight_tags[d]);
    return api.memory_desc_init_by_tag(x, d + 2, xd, dt, dtag) == dnnl_success &&
           api.memory_desc_init_by_tag(y, d + 2, yd, dt, dtag) == dnnl_success &&
           api.memory_desc_init_by_tag(w, wn, wd, dt, wtag) == dnnl_success;
}

static bool conv_desc(const pt_conv_geom *g, int pass, const dnnl_memory_desc_t *x,
                      const dnnl_memory_desc_t *w, const dnnl_memory_desc_t *y,
                      dnnl_convolution_desc_t *cd)
{
    const int d = g->dims, lead = 3 - d;
    dnnl_dims_t strides, dil, pl, pr;
    for (int i = 0; i < d; i++) {
        strides[i] = g->stride[lead + i];
        dil[i] = g->dil[lead + i] - 1;
        pl[i] = g->pad[lead + i];
        /* the right padding that makes the output exactly out: the rows past it are unread */
        const int64_t span = (g->k[lead + i] - 1) * g->dil[lead + i] + 1;
        pr[i] = (g->out[lead + i] - 1) * strides[i] + span - g->in[lead + i] - pl[i];
    }
    dnnl_status_t st;
    if (pass == PT_CONV_FORWARD || pass < 0)
        st = api.dilated_convolution_forward_desc_init(cd, dnnl_forward_training,
                                                        dnnl_convolution_direct, x, w, NULL, y,
                                                        strides, dil, pl, pr);
    else if (pass == PT_CONV_BACKWARD_DATA)
        st = api.dilated_convolution_backward_data_desc_init(cd, dnnl_convolution_direct, x, w,
                                                              y, strides, dil, pl, pr);
    else
        st = api.dilated_convolution_backward_weights_desc_init(cd, dnnl_convolution_direct, x,
                                                                 w, NULL, y, strides, dil, pl,
                                                                 pr);
    return st == dnnl_success;
}

/* A reorder from `from` to `to`, or NULL when the layouts agree (*ok false on failure). */
static dnnl_primitive_t make_reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                                     bool *ok)
{
    if (api.memory_desc_equal(from, to)) return NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t p = NULL;
    if (api.reorder_primitive_desc_create(&pd, from, engine, to, engine, NULL) != dnnl_success ||
        api.primitive_create(&p, pd) != dnnl_success)
        *ok = false;
    if (pd) api.primitive_desc_destroy(pd);
    return p;
}

static bool engine_ready(void)
{
    if (engine || broken) return !broken;
    if (api.engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
        api.stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success)
        broken = true;
    return !broken;
}

/* Makes the entry of (g, pass) into e; false when oneDNN refuses the problem. */
static bool entry_make(prim_entry *e, const pt_conv_geom *g, int pass)
{
    dnnl_memory_desc_t x, w, y, ax, aw, ay;
    if (!descs(g, false, &x, &w, &y) || !descs(g, true, &ax, &aw, &ay)) return false;
    /* Note [oneDNN on channels-last data]: the convolution runs on the channels-last buffers as
     * they are (oneDNN has nhwc kernels); only the weights are reordered */
    if (g->cl) ax = x, ay = y;
    dnnl_convolution_desc_t fd, cd;
    if (!conv_desc(g, -1, &ax, &aw, &ay, &fd) || !conv_desc(g, pass, &ax, &aw, &ay, &cd))
        return false;
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    bool ok = api.primitive_desc_create(&fpd, &fd, NULL, engine, NULL) == dnnl_success;
    if (ok && pass != PT_CONV_FORWARD)
        ok = api.primitive_desc_create(&pd, &cd, NULL, engine, fpd) == dnnl_success;
    const_dnnl_primitive_desc_t use = pass == PT_CONV_FORWARD ? fpd : pd;
    memset(e, 0, sizeof *e);
    if (ok) ok = api.primitive_create(&e->prim, use) == dnnl_success;
    if (ok) {
        /* operands in conv.h's order for each pass: (a, b) read, out written */
        static const dnnl_query_t q_x[3] = {dnnl_query_src_md, dnnl_query_diff_dst_md,
                                            dnnl_query_src_md};
        static const dnnl_query_t q_b[3] = {dnnl_query_weights_md, dnnl_query_weights_md,
                                            dnnl_query_diff_dst_md};
        static const dnnl_query_t q_o[3] = {dnnl_query_dst_md, dnnl_query_diff_src_md,
                                            dnnl_query_diff_weights_md};
        static const int args[3][3] = {
            {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
            {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC},
            {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS}};
        const dnnl_memory_desc_t *users[3][3] = {{&x, &w, &y}, {&y, &w, &x}, {&x, &y, &w}};
        const dnnl_query_t qs[3] = {q_x[pass], q_b[pass], q_o[pass]};
        for (int i = 0; i < 3 && ok; i++) {
            e->user[i] = *users[pass][i];
            const dnnl_memory_desc_t *own = api.primitive_desc_query_md(use, qs[i], 0);
            if (!own) {
                ok = false;
                break;
            }
            e->own[i] = *own;
            e->arg[i] = args[pass][i];
            e->reorder[i] = i < 2 ? make_reorder(&e->user[i], &e->own[i], &ok)
                                  : make_reorder(&e->own[i], &e->user[i], &ok);
        }
    }
    if (fpd) api.primitive_desc_destroy(fpd);
    if (pd) api.primitive_desc_destroy(pd);
    if (!ok) entry_clear(e);
    return ok;
}

/* The cached entry of (g, pass), made when missing; NULL when oneDNN refuses it. Called with the
 * lock held. */
static prim_entry *entry_get(const pt_conv_geom *g, int pass)
{
    const prim_key key = key_of(g, pass);
    prim_entry *victim = &cache[0];
    for (int i = 0; i < CACHE_SIZE; i++) {
        prim_entry *e = &cache[i];
        if (e->used && memcmp(&e->key, &key, sizeof key) == 0) {
            e->last = ++clock_now;
            return e;
        }
        if (!e->used || (victim->used && e->last < victim->last)) victim = e;
    }
    entry_clear(victim);
    if (!entry_make(victim, g, pass)) return NULL;
    victim->used = true;
    victim->key = key;
    victim->last = ++clock_now;
    return victim;
}

static bool run_reorder(dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to)
{
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    return api.primitive_execute(r, stream, 2, args) == dnnl_success;
}

/* Runs e on the user buffers (a, b read; out written); false on a oneDNN failure. */
static bool entry_run(const prim_entry *e, const void *a, const void *b, void *out)
{
    void *user_ptr[3] = {(void *)a, (void *)b, out};
    dnnl_memory_t user[3] = {NULL}, own[3] = {NULL};
    void *buf[3] = {NULL};
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        ok = api.memory_create(&user[i], &e->user[i], engine, user_ptr[i]) == dnnl_success;
        if (ok && e->reorder[i]) {
            buf[i] = aligned_alloc(64, (api.memory_desc_get_size(&e->own[i]) + 63) & ~(size_t)63);
            ok = buf[i] && api.memory_create(&own[i], &e->own[i], engine, buf[i]) ==
                               dnnl_success;
        }
    }
    for (int i = 0; i < 2 && ok; i++)
        if (e->reorder[i]) ok = run_reorder(e->reorder[i], user[i], own[i]);
    if (ok) {
        dnnl_exec_arg_t args[3];
        for (int i = 0; i < 3; i++) {
            args[i].arg = e->arg[i];
            args[i].memory = e->reorder[i] ? own[i] : user[i];
        }
        ok = api.primitive_execute(e->prim, stream, 3, args) == dnnl_success;
    }
    if (ok && e->reorder[2]) ok = run_reorder(e->reorder[2], own[2], user[2]);
    if (ok) ok = api.stream_wait(stream) == dnnl_success;
    for (int i = 0; i < 3; i++) {
        if (user[i]) api.memory_destroy(user[i]);
        if (own[i]) api.memory_destroy(own[i]);
        free(buf[i]);
    }
    return ok;
}

bool pt_onednn_built(void) { return true; }

/* See Note [convolution paths] in conv.c for the measurements behind this choice. */
bool pt_onednn_serves(const pt_conv_geom *g, int pass)
{
    PT_UNUSED(pass);
    if (!onednn_on || broken || g->dtype != PT_FLOAT32 || pt_conv_macs(g) == 0) return false;
    /* a pointwise convolution is one product on pytensor's buffers as they are, where oneDNN
     * reorders them into its blocked layout and back first */
    bool pointwise = g->groups == 1;
    for (int i = 0; i < 3; i++)
        pointwise = pointwise && g->k[i] == 1 && g->stride[i] == 1 && g->pad[i] == 0;
    return !pointwise && onednn_loaded();
}

pt_status pt_onednn_conv(const pt_conv_geom *g, int pass, const void *a, const void *b, void *out)
{
    pthread_mutex_lock(&cache_lock);
    const prim_entry *e = onednn_loaded() && engine_ready() ? entry_get(g, pass) : NULL;
    const bool ok = e && entry_run(e, a, b, out);
    pthread_mutex_unlock(&cache_lock);
    if (ok) return PT_OK;
    if (e) return PT_ERROR(PT_ERR_RUNTIME, "oneDNN failed to run a convolution");
    /* oneDNN refuses this problem: the GEMM path serves it */
    switch (pass) {
    case PT_CONV_FORWARD: return pt_conv_gemm_forward(g, a, b, out);
    case PT_CONV_BACKWARD_DATA: return pt_conv_gemm_backward_data(g, a, b, out);
    default: return pt_conv_gemm_backward_weight(g, a, b, out);
    }
}

pt_status pt_onednn_init(int64_t *count, const char **detail)
{
    static char line[160];
    const char *env = getenv("PYTENSOR_ONEDNN");
    if (env && strcmp(env, "0") == 0) onednn_on = 0;
    snprintf(line, sizeof line, "oneDNN (%s), found at build time, loaded on first use%s",
             ONEDNN_SONAME, onednn_on ? "" : "; disabled (PYTENSOR_ONEDNN=0)");
    *detail = line;
    *count = 1;
    return pt_config_set("onednn", line);
}

/* Whether the library loads (Note [oneDNN loaded on first use]). */
static bool usable(void) { return onednn_loaded(); }

#else /* no oneDNN */

bool pt_onednn_built(void) { return false; }

bool pt_onednn_serves(const pt_conv_geom *g, int pass)
{
    PT_UNUSED(g);
    PT_UNUSED(pass);
    return false;
}

pt_status pt_onednn_conv(const pt_conv_geom *g, int pass, const void *a, const void *b, void *out)
{
    PT_UNUSED(g);
    PT_UNUSED(pass);
    PT_UNUSED(a);
    PT_UNUSED(b);
    PT_UNUSED(out);
    return PT_ERROR(PT_ERR_RUNTIME, "pytensor was built without oneDNN");
}

pt_status pt_onednn_init(int64_t *count, const char **detail)
{
    *detail = "not found at build time (im2col + GEMM serves convolutions)";
    *count = 0;
    return pt_config_set("onednn", "no");
}

static bool usable(void) { return false; }

#endif

int32_t pt_onednn_is_available(void) { return usable(); }

int32_t pt_onednn_enabled(void) { return pt_onednn_built() && onednn_on; }

int32_t pt_onednn_set_enabled(int32_t on)
{
    const int32_t was = pt_onednn_enabled();
    onednn_on = on != 0;
    return was;
}
