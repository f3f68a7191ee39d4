/* registry.c - named registries of string key -> record, and the registry of registries.
 *
 * Records arrive two ways: at load time, through the static records that PT_REGISTER links into
 * one list (Note [load-time records] in internal.h), which pt_init() turns into registries once;
 * and at run time through pt_registry_add (backend libraries, runtime dtypes). Each registry keeps
 * its entries sorted by key in a growable array, so listings come out in key order and lookups are
 * a binary search. The registry of registries is itself a registry, named "registry", whose
 * entries are the registries; it lists itself.
 *
 * Registries are consulted at start-up and by introspection, never on an operator's hot path (the
 * subsystems resolve what they need into plain tables at init), so one mutex guards everything.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct entry {
    const char *key;
    const void *creator;
    const char *help;
    const char *file;
    int32_t line;
} entry;

typedef struct registry {
    const char *name;
    entry *entries;
    int32_t size, capacity;
} registry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static registry *registries;
static int32_t nregistries, registries_capacity;
static pt_record *_Atomic record_list;

static const char ROOT_NAME[] = "registry";

void pt_record_link(pt_record *record)
{
    /* Constructors may in principle run on several threads (a dlopen racing another); a CAS push
     * keeps the list intact either way. */
    pt_record *head = atomic_load(&record_list);
    do {
        record->next = head;
    } while (!atomic_compare_exchange_weak(&record_list, &head, record));
}

pt_record *pt_record_list(void) { return atomic_load(&record_list); }

static registry *find_registry(const char *name)
{
    for (int32_t i = 0; i < nregistries; i++)
        if (strcmp(registries[i].name, name) == 0) return &registries[i];
    return NULL;
}

/* Index of key, or -(insertion point) - 1 when absent. */
static int32_t search(const registry *r, const char *key)
{
    int32_t lo = 0, hi = r->size;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->entries[mid].key, key);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -lo - 1;
}

static pt_status insert(registry *r, entry e)
{
    int32_t at = search(r, e.key);
    if (at >= 0) {
        const entry *old = &r->entries[at];
        return PT_ERROR(PT_ERR_RUNTIME,
                        "registry '%s': key '%s' registered twice: first at %s:%d, again at %s:%d",
                        r->name, e.key, old->file, (int)old->line, e.file, (int)e.line);
    }
    at = -at - 1;
    if (r->size == r->capacity) {
        int32_t cap = r->capacity ? 2 * r->capacity : 8;
        entry *grown = realloc(r->entries, (size_t)cap * sizeof *grown);
        if (!grown) return PT_ERROR(PT_ERR_MEMORY, "registry '%s': out of memory", r->name);
        r->entries = grown;
        r->capacity = cap;
    }
    memmove(&r->entries[at + 1], &r->entries[at], (size_t)(r->size - at) * sizeof(entry));
    r->entries[at] = e;
    r->size++;
    return PT_OK;
}

/* Creates the registry and its entry in the registry of registries. Caller holds the lock. */
static pt_status define_locked(const char *name, const char *help, const char *file, int32_t line)
{
    if (!name || !*name) return PT_ERROR(PT_ERR_VALUE, "registry: name must be a non-empty string");
    if (!registries) {
        registries = calloc(8, sizeof *registries);
        if (!registries) return PT_ERROR(PT_ERR_MEMORY, "registry: out of memory");
        registries_capacity = 8;
        registries[0].name = ROOT_NAME;
        nregistries = 1;
        entry self = {ROOT_NAME, NULL, "the registry of registries", "csrc/core/registry.c",
                      __LINE__};
        PT_TRY(insert(&registries[0], self));
    }
    if (strcmp(name, ROOT_NAME) == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "registry: '%s' is the registry of registries (%s:%d)",
                        name, file, (int)line);
    entry e = {name, NULL, help ? help : "", pt_source_relative(file), line};
    PT_TRY(insert(&registries[0], e)); /* reports a duplicate registry with both sites */
    if (nregistries == registries_capacity) {
        registry *grown = realloc(registries, (size_t)(2 * registries_capacity) * sizeof *grown);
        if (!grown) return PT_ERROR(PT_ERR_MEMORY, "registry: out of memory");
        registries = grown;
        registries_capacity *= 2;
    }
    registries[nregistries++] = (registry){name, NULL, 0, 0};
    return PT_OK;
}

static pt_status add_locked(const char *name, const char *key, const void *creator, const char *help,
                            const char *file, int32_t line)
{
    if (!key || !*key)
        return PT_ERROR(PT_ERR_VALUE, "registry '%s': key must be a non-empty string (%s:%d)",
                        name ? name : "?", pt_source_relative(file), (int)line);
    registry *r = name ? find_registry(name) : NULL;
    if (!r)
        return PT_ERROR(PT_ERR_RUNTIME, "registry '%s' does not exist (key '%s' registered at %s:%d)",
                        name ? name : "(null)", key, pt_source_relative(file), (int)line);
    entry e = {key, creator, help ? help : "", pt_source_relative(file), line};
    return insert(r, e);
}

pt_status pt_registry_load_records(int64_t *count)
{
    pthread_mutex_lock(&lock);
    pt_status st = PT_OK;
    int64_t n = 0;
    /* Registries first, so that entries never depend on the order the loader ran constructors. */
    for (pt_record *r = pt_record_list(); r && st == PT_OK; r = r->next) {
        if (strcmp(r->registry, ROOT_NAME) != 0) continue;
        st = define_locked(r->key, r->help, r->file, r->line);
        n++;
    }
    for (pt_record *r = pt_record_list(); r && st == PT_OK; r = r->next) {
        if (strcmp(r->registry, ROOT_NAME) == 0) continue;
        st = add_locked(r->registry, r->key, r->creator, r->help, r->file, r->line);
        n++;
    }
    pthread_mutex_unlock(&lock);
    if (count) *count = n;
    return st;
}

pt_status pt_registry_define(const char *name, const char *help, const char *file, int32_t line)
{
    pthread_mutex_lock(&lock);
    pt_status st = define_locked(name, help, file, line);
    pthread_mutex_unlock(&lock);
    return st;
}

pt_status pt_registry_add(const char *name, const char *key, const void *creator, const char *help,
                          const char *file, int32_t line)
{
    pthread_mutex_lock(&lock);
    pt_status st = add_locked(name, key, creator, help, file, line);
    pthread_mutex_unlock(&lock);
    return st;
}

int32_t pt_registry_count(void)
{
    pthread_mutex_lock(&lock);
    int32_t n = nregistries;
    pthread_mutex_unlock(&lock);
    return n;
}

pt_status pt_registry_name(int32_t index, const char **out)
{
    pthread_mutex_lock(&lock);
    pt_status st = PT_OK;
    /* Names in key order: the root registry's entries are sorted. */
    if (index < 0 || !registries || index >= registries[0].size)
        st = PT_ERROR(PT_ERR_INDEX, "registry index %d is out of range (%d registries)", (int)index,
                      (int)nregistries);
    else
        *out = registries[0].entries[index].key;
    pthread_mutex_unlock(&lock);
    return st;
}

static pt_status lookup_locked(const char *name, registry **out)
{
    *out = name ? find_registry(name) : NULL;
    if (!*out) return PT_ERROR(PT_ERR_VALUE, "registry: no registry named '%s'", name ? name : "(null)");
    return PT_OK;
}

pt_status pt_registry_size(const char *name, int32_t *out)
{
    pthread_mutex_lock(&lock);
    registry *r;
    pt_status st = lookup_locked(name, &r);
    if (st == PT_OK) *out = r->size;
    pthread_mutex_unlock(&lock);
    return st;
}

static void fill_info(const registry *r, const entry *e, pt_registry_entry_info *out)
{
    out->registry = r->name;
    out->key = e->key;
    out->help = e->help;
    out->file = e->file;
    out->line = e->line;
    out->creator = e->creator;
}

pt_status pt_registry_entry(const char *name, int32_t index, pt_registry_entry_info *out)
{
    pthread_mutex_lock(&lock);
    registry *r;
    pt_status st = lookup_locked(name, &r);
    if (st == PT_OK && (index < 0 || index >= r->size))
        st = PT_ERROR(PT_ERR_INDEX, "registry '%s': index %d is out of range (size %d)", name,
                      (int)index, (int)r->size);
    if (st == PT_OK) fill_info(r, &r->entries[index], out);
    pthread_mutex_unlock(&lock);
    return st;
}

pt_status pt_registry_find(const char *name, const char *key, pt_registry_entry_info *out)
{
    pthread_mutex_lock(&lock);
    registry *r;
    pt_status st = lookup_locked(name, &r);
    int32_t at = -1;
    if (st == PT_OK) {
        at = key ? search(r, key) : -1;
        if (at < 0) st = PT_ERROR(PT_ERR_VALUE, "registry '%s': no key '%s'", name, key ? key : "(null)");
    }
    if (st == PT_OK) fill_info(r, &r->entries[at], out);
    pthread_mutex_unlock(&lock);
    return st;
}
