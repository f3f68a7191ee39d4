/* device.c - device strings, device guards and the per-device tables read on hot paths.
 *
 * A device is a (type, index) pair. Everything a device type can do lives behind records in three
 * registries: a guard ("device_guard": how many devices, which one is current, synchronize), an
 * allocator ("allocator") and copy functions ("copy_bytes", keyed "src->dst"). Looking a record up
 * by string on every allocation would cost a hash per tensor, so pt_device_resolve_tables() copies
 * the records into three small arrays indexed by device type once, at init, and again whenever a
 * backend library has registered more records (the CUDA backend does so after pt_init has started).
 *
 * The CPU and meta guards live here: each has exactly one device, index 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

PT_DEFINE_REGISTRY("device_guard",
                   "per device type: device count, current device, set current, synchronize")

const pt_device_guard_impl *pt_device_guards[PT_DEV_TYPE_COUNT];

static const char *const type_names[PT_DEV_TYPE_COUNT] = {
    [PT_DEV_CPU] = "cpu",
    [PT_DEV_CUDA] = "cuda",
    [PT_DEV_META] = "meta",
};
/* How messages name a backend ("0 CUDA devices"), as torch's do. */
static const char *const type_titles[PT_DEV_TYPE_COUNT] = {
    [PT_DEV_CPU] = "CPU",
    [PT_DEV_CUDA] = "CUDA",
    [PT_DEV_META] = "meta",
};
_Static_assert(PT_DEV_TYPE_COUNT == 3, "name every device type above");

const char *pt_device_type_name(int32_t type)
{
    if (type < 0 || type >= PT_DEV_TYPE_COUNT) return NULL;
    return type_names[type];
}

/* ---------------------------------------------------------------- single-device guards */
static pt_status single_count(int32_t *out)
{
    *out = 1;
    return PT_OK;
}

static pt_status single_current(int32_t *out)
{
    *out = 0;
    return PT_OK;
}

static pt_status cpu_set_current(int32_t index)
{
    if (index != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "device: cpu:%d is not available (1 CPU device)", index);
    return PT_OK;
}

static pt_status meta_set_current(int32_t index)
{
    if (index != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "device: meta:%d is not available (1 meta device)", index);
    return PT_OK;
}

/* The CPU runs each call to completion on the calling thread: there is nothing to wait for. */
static pt_status single_synchronize(int32_t index)
{
    PT_UNUSED(index);
    return PT_OK;
}

static const pt_device_guard_impl cpu_guard = {
    .device_type = PT_DEV_CPU,
    .device_count = single_count,
    .current = single_current,
    .set_current = cpu_set_current,
    .synchronize = single_synchronize,
};
static const pt_device_guard_impl meta_guard = {
    .device_type = PT_DEV_META,
    .device_count = single_count,
    .current = single_current,
    .set_current = meta_set_current,
    .synchronize = single_synchronize,
};
PT_REGISTER("device_guard", "cpu", &cpu_guard, "the host: one device, always current")
PT_REGISTER("device_guard", "meta", &meta_guard,
            "shapes and dtypes without data: one device, nothing to synchronize")

/* ---------------------------------------------------------------- parsing */
static int type_from_name(const char *name, size_t len)
{
    for (int t = 0; t < PT_DEV_TYPE_COUNT; t++)
        if (strlen(type_names[t]) == len && memcmp(type_names[t], name, len) == 0) return t;
    return -1;
}

pt_status pt_device_parse(const char *text, pt_device *out)
{
    if (!text || !*text) return PT_ERROR(PT_ERR_RUNTIME, "Device string must not be empty");
    const char *colon = strchr(text, ':');
    size_t type_len = colon ? (size_t)(colon - text) : strlen(text);
    int type = type_from_name(text, type_len);
    if (type < 0)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Expected one of cpu, cuda, meta device type at start of device string: %s",
                        text);
    int64_t index = -1;
    if (colon) {
        /* torch's grammar: digits only, no sign, no leading zero, nothing after them. */
        const char *digits = colon + 1;
        size_t n = strlen(digits);
        if (n == 0 || strspn(digits, "0123456789") != n || (n > 1 && digits[0] == '0'))
            return PT_ERROR(PT_ERR_RUNTIME, "Invalid device string: '%s'", text);
        errno = 0;
        long long v = strtoll(digits, NULL, 10);
        if (errno == ERANGE || v > INT32_MAX)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "Could not parse device index '%s' in device string '%s'", digits, text);
        index = v;
    }
    out->type = type;
    out->index = (int32_t)index;
    return PT_OK;
}

/* ---------------------------------------------------------------- guard calls */
static pt_status guard_of(int32_t type, const pt_device_guard_impl **out)
{
    if (type < 0 || type >= PT_DEV_TYPE_COUNT)
        return PT_ERROR(PT_ERR_VALUE, "device: unknown device type %d", type);
    if (!pt_device_guards[type])
        return PT_ERROR(PT_ERR_RUNTIME,
                        "device: the %s backend is not loaded (no %s library or device was "
                        "found when pytensor started)",
                        type_titles[type], type_titles[type]);
    *out = pt_device_guards[type];
    return PT_OK;
}

pt_status pt_device_count(int32_t type, int32_t *out)
{
    const pt_device_guard_impl *g = NULL;
    PT_TRY(guard_of(type, &g));
    return g->device_count(out);
}

pt_status pt_device_current(int32_t type, int32_t *out)
{
    const pt_device_guard_impl *g = NULL;
    PT_TRY(guard_of(type, &g));
    return g->current(out);
}

pt_status pt_device_resolve(pt_device device, pt_device *out)
{
    const pt_device_guard_impl *g = NULL;
    if (device.type >= 0 && device.type < PT_DEV_TYPE_COUNT && !pt_device_guards[device.type]) {
        char name[32];
        if (device.index >= 0) snprintf(name, sizeof name, "%s:%d", type_names[device.type], (int)device.index);
        else snprintf(name, sizeof name, "%s", type_names[device.type]);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "device: %s is not available: the %s backend is not loaded (no %s library "
                        "or device was found when pytensor started)",
                        name, type_titles[device.type], type_titles[device.type]);
    }
    PT_TRY(guard_of(device.type, &g));
    int32_t index = device.index;
    if (index == -1) {
        PT_TRY(g->current(&index));
    } else if (index < -1) {
        return PT_ERROR(PT_ERR_RUNTIME, "Device index must be -1 or non-negative, got %d", index);
    } else {
        int32_t count = 0;
        PT_TRY(g->device_count(&count));
        if (index >= count)
            return PT_ERROR(PT_ERR_RUNTIME, "device: %s:%d is not available (%d %s device%s)",
                            type_names[device.type], index, count, type_titles[device.type],
                            count == 1 ? "" : "s");
    }
    out->type = device.type;
    out->index = index;
    return PT_OK;
}

pt_status pt_device_set_current(int32_t type, int32_t index)
{
    pt_device d = {type, index}; /* set on success; initialized for the compiler's sake */
    PT_TRY(pt_device_resolve((pt_device){type, index}, &d));
    return pt_device_guards[type]->set_current(d.index);
}

pt_status pt_device_synchronize(int32_t type, int32_t index)
{
    pt_device d = {type, index}; /* set on success; initialized for the compiler's sake */
    PT_TRY(pt_device_resolve((pt_device){type, index}, &d));
    return pt_device_guards[type]->synchronize(d.index);
}

/* ---------------------------------------------------------------- table resolution */
/* "cpu->cuda" -> (cpu, cuda); 0 when the key is not two known type names around "->". */
static int parse_pair(const char *key, int *src, int *dst)
{
    const char *arrow = strstr(key, "->");
    if (!arrow) return 0;
    *src = type_from_name(key, (size_t)(arrow - key));
    *dst = type_from_name(arrow + 2, strlen(arrow + 2));
    return *src >= 0 && *dst >= 0;
}

static pt_status unknown_key(const pt_registry_entry_info *e, const char *expected)
{
    return PT_ERROR(PT_ERR_RUNTIME, "%s: key '%s' (registered at %s:%d) is not %s", e->registry,
                    e->key, e->file, (int)e->line, expected);
}

static pt_status mismatched(const pt_registry_entry_info *e, int32_t declared)
{
    return PT_ERROR(PT_ERR_RUNTIME,
                    "%s: the record under key '%s' (registered at %s:%d) declares device type %d",
                    e->registry, e->key, e->file, (int)e->line, declared);
}

/* Each resolver walks its registry and files every record under its device type(s); a record
 * whose key and declared type disagree is a backend bug, reported with its registration site. */
static pt_status resolve_guards(const pt_device_guard_impl **table, int64_t *count)
{
    int32_t n = 0;
    PT_TRY(pt_registry_size("device_guard", &n));
    for (int32_t i = 0; i < n; i++) {
        pt_registry_entry_info e;
        PT_TRY(pt_registry_entry("device_guard", i, &e));
        int type = type_from_name(e.key, strlen(e.key));
        if (type < 0) return unknown_key(&e, "a device type (cpu, cuda, meta)");
        const pt_device_guard_impl *g = e.creator;
        if (!g || g->device_type != type) return mismatched(&e, g ? g->device_type : -1);
        table[type] = g;
        (*count)++;
    }
    return PT_OK;
}

static pt_status resolve_allocators(const pt_allocator_impl **table, int64_t *count)
{
    int32_t n = 0;
    PT_TRY(pt_registry_size("allocator", &n));
    for (int32_t i = 0; i < n; i++) {
        pt_registry_entry_info e;
        PT_TRY(pt_registry_entry("allocator", i, &e));
        int type = type_from_name(e.key, strlen(e.key));
        if (type < 0) return unknown_key(&e, "a device type (cpu, cuda, meta)");
        const pt_allocator_impl *a = e.creator;
        if (!a || a->device_type != type) return mismatched(&e, a ? a->device_type : -1);
        table[type] = a;
        (*count)++;
    }
    return PT_OK;
}

static pt_status resolve_copies(const pt_copy_bytes_impl *(*table)[PT_DEV_TYPE_COUNT],
                                int64_t *count)
{
    int32_t n = 0;
    PT_TRY(pt_registry_size("copy_bytes", &n));
    for (int32_t i = 0; i < n; i++) {
        pt_registry_entry_info e;
        PT_TRY(pt_registry_entry("copy_bytes", i, &e));
        int src, dst;
        if (!parse_pair(e.key, &src, &dst)) return unknown_key(&e, "of the form 'cpu->cuda'");
        const pt_copy_bytes_impl *c = e.creator;
        if (!c || !c->sync || c->src_type != src || c->dst_type != dst)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "copy_bytes: the record under key '%s' (registered at %s:%d) does not "
                            "copy %s to %s synchronously",
                            e.key, e.file, (int)e.line, type_names[src], type_names[dst]);
        table[src][dst] = c;
        (*count)++;
    }
    return PT_OK;
}

/* Builds the new tables aside and publishes them only when every record was valid, so a bad
 * backend record leaves the working tables as they were. */
static pt_status resolve_all(int64_t *count)
{
    const pt_device_guard_impl *guards[PT_DEV_TYPE_COUNT] = {0};
    const pt_allocator_impl *allocators[PT_DEV_TYPE_COUNT] = {0};
    const pt_copy_bytes_impl *copies[PT_DEV_TYPE_COUNT][PT_DEV_TYPE_COUNT] = {{0}};
    *count = 0;
    PT_TRY(resolve_guards(guards, count));
    PT_TRY(resolve_allocators(allocators, count));
    PT_TRY(resolve_copies(copies, count));
    memcpy(pt_device_guards, guards, sizeof guards);
    memcpy(pt_allocators, allocators, sizeof allocators);
    memcpy(pt_copy_bytes_table, copies, sizeof copies);
    return PT_OK;
}

pt_status pt_device_resolve_tables(void)
{
    int64_t count = 0;
    return resolve_all(&count);
}

pt_status pt_device_init(int64_t *count, const char **detail)
{
    /* The report names the device types that have a guard ("cpu meta"); static because the init
     * report keeps the pointer. */
    static char types[64];
    PT_TRY(resolve_all(count));
    types[0] = '\0';
    for (int t = 0; t < PT_DEV_TYPE_COUNT; t++) {
        if (!pt_device_guards[t]) continue;
        size_t len = strlen(types);
        snprintf(types + len, sizeof types - len, "%s%s", len ? " " : "", type_names[t]);
    }
    *detail = types;
    return PT_OK;
}
