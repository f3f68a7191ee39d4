/* shm.c - CPU storages in POSIX shared memory, for sharing tensors between processes.
 *
 * Two kinds, torch's two sharing strategies. PT_SHM_FD: an anonymous memfd mapped MAP_SHARED, the
 * fd kept open for the life of the storage so that it can be sent to another process (which maps
 * a duplicate); the kernel frees the memory when the last mapping and fd go, so nothing can leak.
 * PT_SHM_FILENAME: a named segment (shm_open) with a header of per-process reference counts
 * (Note [shared segment header], shm.h); the process that drops the last reference unlinks it.
 *
 * A shared storage owns its bytes through the deleter of pt_storage (storage.c): the context below
 * is the deleter's. It also serves the weak references that multiprocessing's cache keeps: the
 * deleter clears `owner` under `weak_lock`, so a weak reference can take a new strong one only
 * while the storage is alive (its refcount, read under the lock, is above zero).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "shm.h"

typedef struct shm_ctx {
    pt_storage *owner;     /* NULL once the deleter ran (under weak_lock) */
    int64_t weak;          /* weak references, +1 while owner lives (under weak_lock) */
    int32_t kind;
    int fd;                /* PT_SHM_FD: kept open; else -1 */
    void *map;             /* the whole mapping (header included for PT_SHM_FILENAME) */
    size_t map_len;
    pt_shm_header *header; /* PT_SHM_FILENAME */
    pt_shm_slot *slot;     /* this process's slot, NULL when none was free */
    int32_t pid;           /* the process that mapped it (a forked child maps anew) */
    char name[64];
} shm_ctx;

static pthread_mutex_t weak_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int64_t name_counter;

static pt_status sys_error(const char *what, const char *name, int err)
{
    return PT_ERROR(PT_ERR_RUNTIME, "%s '%s': %s", what, name, strerror(err));
}

/* ---------------------------------------------------------------- per-process slots */
/* This process's slot in the header: the one with its pid, else a free one claimed. */
static pt_shm_slot *slot_for(pt_shm_header *h, int32_t pid, bool claim)
{
    for (int32_t i = 0; i < PT_SHM_SLOTS; i++)
        if (atomic_load(&h->slots[i].pid) == pid) return &h->slots[i];
    if (!claim) return NULL;
    for (int32_t i = 0; i < PT_SHM_SLOTS; i++) {
        int32_t expected = 0;
        if (atomic_compare_exchange_strong(&h->slots[i].pid, &expected, pid)) return &h->slots[i];
    }
    return NULL;
}

static int64_t header_total(pt_shm_header *h)
{
    int64_t total = 0;
    for (int32_t i = 0; i < PT_SHM_SLOTS; i++)
        if (atomic_load(&h->slots[i].pid) != 0) total += atomic_load(&h->slots[i].count);
    return total;
}

/* Adds delta to the slot of pid (this process's when pid == 0); unlinks the name when the total
 * reaches zero. A process that found no free slot counts nothing: the segment then lives until
 * the manager unlinks it. */
static void slot_add(shm_ctx *c, int32_t pid, int32_t delta)
{
    pt_shm_slot *slot = pid == 0 ? c->slot : slot_for(c->header, pid, false);
    if (!slot) return;
    atomic_fetch_add(&slot->count, delta);
    if (delta < 0 && header_total(c->header) <= 0) shm_unlink(c->name);
}

/* ---------------------------------------------------------------- contexts */
static void ctx_free(shm_ctx *c)
{
    if (c->map) munmap(c->map, c->map_len);
    if (c->fd >= 0) close(c->fd);
    free(c);
}

static void shm_deleter(void *ctx)
{
    shm_ctx *c = ctx;
    /* A forked child that inherited the storage never took a reference in the header. */
    if (c->kind == PT_SHM_FILENAME && c->pid == (int32_t)getpid()) slot_add(c, 0, -1);
    if (c->map) munmap(c->map, c->map_len);
    c->map = NULL;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    pthread_mutex_lock(&weak_lock);
    c->owner = NULL;
    bool last = --c->weak == 0;
    pthread_mutex_unlock(&weak_lock);
    if (last) free(c);
}

static shm_ctx *ctx_of(const pt_storage *s)
{
    return s->deleter == shm_deleter ? (shm_ctx *)s->deleter_ctx : NULL;
}

static pt_status check_args(int64_t nbytes, int32_t dtype)
{
    if (nbytes < 0)
        return PT_ERROR(PT_ERR_VALUE, "nbytes: expected a non-negative size, got %lld",
                        (long long)nbytes);
    if ((uint64_t)nbytes > SIZE_MAX - PT_SHM_HEADER_BYTES)
        return PT_ERROR(PT_ERR_RUNTIME, "shared memory: %lld bytes cannot be mapped",
                        (long long)nbytes);
    return pt_dtype_check(dtype, "dtype");
}

/* Maps fd for the kind: the whole length, data after the header for PT_SHM_FILENAME. */
static pt_status ctx_map(shm_ctx *c, size_t length)
{
    c->map_len = length;
    if (length == 0) return PT_OK;
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
    if (p == MAP_FAILED) return sys_error("shared memory: cannot map", c->name, errno);
    c->map = p;
    if (c->kind == PT_SHM_FILENAME) c->header = p;
    return PT_OK;
}

static pt_status ctx_new(int32_t kind, shm_ctx **out)
{
    if (kind != PT_SHM_FD && kind != PT_SHM_FILENAME)
        return PT_ERROR(PT_ERR_VALUE, "kind: expected PT_SHM_FD or PT_SHM_FILENAME, got %d",
                        (int)kind);
    shm_ctx *c = calloc(1, sizeof *c);
    if (!c) return PT_ERROR(PT_ERR_MEMORY, "shared memory: out of memory");
    c->kind = kind;
    c->fd = -1;
    c->weak = 1;
    c->pid = (int32_t)getpid();
    *out = c;
    return PT_OK;
}

/* A new segment of nbytes, zeroed (ftruncate gives zero pages). */
static pt_status ctx_create(int32_t kind, int64_t nbytes, shm_ctx **out)
{
    shm_ctx *c = NULL;
    PT_TRY(ctx_new(kind, &c));
    int64_t n = atomic_fetch_add(&name_counter, 1);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned rnd = (unsigned)(ts.tv_nsec ^ (ts.tv_sec << 20) ^ ((uint64_t)(uintptr_t)c >> 4));
    snprintf(c->name, sizeof c->name, "/pytensor_%d_%lld_%u", (int)c->pid, (long long)n,
             rnd % 1000000000u);
    size_t length = (size_t)nbytes;
    pt_status st = PT_OK;
    if (kind == PT_SHM_FD) {
        c->fd = memfd_create(c->name + 1, MFD_CLOEXEC);
        if (c->fd < 0) st = sys_error("shared memory: cannot create", c->name, errno);
    } else {
        length += PT_SHM_HEADER_BYTES;
        c->fd = shm_open(c->name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (c->fd < 0) st = sys_error("shared memory: cannot create", c->name, errno);
    }
    if (st == PT_OK && ftruncate(c->fd, (off_t)length) != 0)
        st = sys_error("shared memory: cannot size", c->name, errno);
    if (st == PT_OK) st = ctx_map(c, length);
    if (st == PT_OK && kind == PT_SHM_FILENAME) {
        c->header->magic = PT_SHM_MAGIC;
        c->header->nbytes = nbytes;
        c->header->nslots = PT_SHM_SLOTS;
        c->slot = slot_for(c->header, c->pid, true);
        if (c->slot) atomic_store(&c->slot->count, 1);
        /* The name alone reaches the segment from now on. */
        close(c->fd);
        c->fd = -1;
    }
    if (st != PT_OK) {
        if (kind == PT_SHM_FILENAME && c->fd >= 0) shm_unlink(c->name);
        ctx_free(c);
        return st;
    }
    *out = c;
    return PT_OK;
}

static void *ctx_data(const shm_ctx *c)
{
    if (!c->map) return NULL;
    return c->kind == PT_SHM_FILENAME ? (char *)c->map + PT_SHM_HEADER_BYTES : c->map;
}

static pt_status wrap(shm_ctx *c, int64_t nbytes, int32_t dtype, pt_storage **out)
{
    pt_storage *s = NULL;
    pt_status st = pt_storage_from_external(ctx_data(c), nbytes, dtype, (pt_device){PT_DEV_CPU, 0},
                                            shm_deleter, c, 1, &s);
    if (st != PT_OK) {
        shm_deleter(c);
        return st;
    }
    s->shared = true;
    c->owner = s;
    *out = s;
    return PT_OK;
}

/* ---------------------------------------------------------------- storages */
pt_status pt_storage_new_shared(int32_t kind, int64_t nbytes, int32_t dtype, pt_storage **out)
{
    PT_TRY(check_args(nbytes, dtype));
    shm_ctx *c = NULL;
    PT_TRY(ctx_create(kind, nbytes, &c));
    return wrap(c, nbytes, dtype, out);
}

pt_status pt_storage_new_shared_fd(int32_t fd, int64_t nbytes, int32_t dtype, pt_storage **out)
{
    PT_TRY(check_args(nbytes, dtype));
    shm_ctx *c = NULL;
    PT_TRY(ctx_new(PT_SHM_FD, &c));
    snprintf(c->name, sizeof c->name, "fd %d", (int)fd);
    c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    pt_status st = PT_OK;
    struct stat sb;
    if (c->fd < 0) st = sys_error("shared memory: cannot duplicate", c->name, errno);
    else if (fstat(c->fd, &sb) != 0) st = sys_error("shared memory: cannot stat", c->name, errno);
    else if ((int64_t)sb.st_size < nbytes)
        st = PT_ERROR(PT_ERR_RUNTIME, "shared memory: fd %d holds %lld bytes, %lld were asked for",
                      (int)fd, (long long)sb.st_size, (long long)nbytes);
    if (st == PT_OK) st = ctx_map(c, (size_t)nbytes);
    if (st != PT_OK) {
        ctx_free(c);
        return st;
    }
    return wrap(c, nbytes, dtype, out);
}

pt_status pt_storage_new_shared_filename(const char *name, int64_t nbytes, int32_t dtype,
                                         pt_storage **out)
{
    if (!name) return PT_ERROR(PT_ERR_VALUE, "name: expected a segment name, got NULL");
    PT_TRY(check_args(nbytes, dtype));
    shm_ctx *c = NULL;
    PT_TRY(ctx_new(PT_SHM_FILENAME, &c));
    snprintf(c->name, sizeof c->name, "%s", name);
    pt_status st = PT_OK;
    c->fd = shm_open(name, O_RDWR, 0);
    if (c->fd < 0) st = sys_error("shared memory: cannot open", name, errno);
    if (st == PT_OK) st = ctx_map(c, (size_t)nbytes + PT_SHM_HEADER_BYTES);
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    if (st == PT_OK && (c->header->magic != PT_SHM_MAGIC || c->header->nbytes != nbytes))
        st = PT_ERROR(PT_ERR_RUNTIME, "shared memory: '%s' is not a pytensor segment of %lld "
                      "bytes", name, (long long)nbytes);
    if (st != PT_OK) {
        ctx_free(c);
        return st;
    }
    c->slot = slot_for(c->header, c->pid, true);
    if (c->slot) atomic_fetch_add(&c->slot->count, 1);
    return wrap(c, nbytes, dtype, out);
}

/* Note [moving a storage into shared memory]
 * share_memory_ keeps the storage object (tensors point at it) and swaps its bytes: a new segment
 * gets a copy, then the old bytes go back the way they came. Memory lent to a reader outside
 * pytensor (pt_storage_lend: an allocator's block marked not resizable) is left allocated rather
 * than freed under that reader. */
pt_status pt_storage_share(pt_storage *s, int32_t kind)
{
    if (s->device.type != PT_DEV_CPU)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: only available on CPU",
                        kind == PT_SHM_FD ? "_share_fd_" : "_share_filename_");
    shm_ctx *old = ctx_of(s);
    if (old && old->kind == kind) return PT_OK;
    shm_ctx *c = NULL;
    PT_TRY(check_args(s->nbytes, s->dtype));
    PT_TRY(ctx_create(kind, s->nbytes, &c));
    if (s->nbytes > 0) memcpy(ctx_data(c), s->data, (size_t)s->nbytes);
    if (s->allocator) {
        if (s->data && s->resizable)
            s->allocator->free(s->allocator->ctx, s->device.index, s->data, s->nbytes);
    } else if (s->deleter) {
        s->deleter(s->deleter_ctx);
    } else if (s->mmap_length > 0) {
        munmap(s->data, (size_t)s->mmap_length);
    }
    s->data = ctx_data(c);
    s->allocator = NULL;
    s->mmap_length = 0;
    s->deleter = shm_deleter;
    s->deleter_ctx = c;
    s->resizable = false;
    s->shared = true;
    c->owner = s;
    return PT_OK;
}

int32_t pt_storage_shm_kind(const pt_storage *s)
{
    shm_ctx *c = ctx_of(s);
    return c ? c->kind : PT_SHM_NONE;
}

int32_t pt_storage_shm_fd(const pt_storage *s)
{
    shm_ctx *c = ctx_of(s);
    return c ? c->fd : -1;
}

const char *pt_storage_shm_name(const pt_storage *s)
{
    shm_ctx *c = ctx_of(s);
    return c && c->kind == PT_SHM_FILENAME ? c->name : NULL;
}

static pt_status named_ctx(const pt_storage *s, const char *what, shm_ctx **out)
{
    shm_ctx *c = ctx_of(s);
    if (!c || c->kind != PT_SHM_FILENAME || !c->header)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the storage is not in a shared-memory segment "
                        "shared by name (share_memory_ under the file_system strategy)", what);
    int32_t pid = (int32_t)getpid();
    if (c->pid != pid) {
        /* Inherited through fork: the child takes a reference of its own, which its deleter drops. */
        c->pid = pid;
        c->slot = slot_for(c->header, pid, true);
        if (c->slot) atomic_fetch_add(&c->slot->count, 1);
    }
    *out = c;
    return PT_OK;
}

pt_status pt_storage_shared_incref(pt_storage *s)
{
    shm_ctx *c = NULL;
    PT_TRY(named_ctx(s, "_shared_incref", &c));
    slot_add(c, 0, 1);
    return PT_OK;
}

pt_status pt_storage_shared_decref(pt_storage *s)
{
    shm_ctx *c = NULL;
    PT_TRY(named_ctx(s, "_shared_decref", &c));
    slot_add(c, 0, -1);
    return PT_OK;
}

pt_status pt_storage_shared_decref_pid(pt_storage *s, int32_t pid)
{
    shm_ctx *c = NULL;
    PT_TRY(named_ctx(s, "_shared_decref", &c));
    slot_add(c, pid == (int32_t)getpid() ? 0 : pid, -1);
    return PT_OK;
}

int64_t pt_storage_shared_refcount(const pt_storage *s)
{
    shm_ctx *c = ctx_of(s);
    return c && c->header ? header_total(c->header) : 0;
}

/* ---------------------------------------------------------------- weak references */
void *pt_storage_weak_ref(pt_storage *s)
{
    shm_ctx *c = ctx_of(s);
    if (!c) return NULL;
    pthread_mutex_lock(&weak_lock);
    c->weak++;
    pthread_mutex_unlock(&weak_lock);
    return c;
}

void pt_storage_weak_free(void *w)
{
    if (!w) return;
    shm_ctx *c = w;
    pthread_mutex_lock(&weak_lock);
    bool last = --c->weak == 0;
    pthread_mutex_unlock(&weak_lock);
    if (last) free(c);
}

pt_storage *pt_storage_weak_lock(void *w)
{
    if (!w) return NULL;
    shm_ctx *c = w;
    pt_storage *s = NULL;
    pthread_mutex_lock(&weak_lock);
    if (c->owner) {
        /* The struct lives until the deleter clears owner, which needs this lock. */
        int64_t n = atomic_load(&c->owner->refcount);
        while (n > 0 && !atomic_compare_exchange_weak(&c->owner->refcount, &n, n + 1)) {
        }
        if (n > 0) s = c->owner;
    }
    pthread_mutex_unlock(&weak_lock);
    return s;
}

int32_t pt_storage_weak_expired(void *w)
{
    pt_storage *s = pt_storage_weak_lock(w);
    if (!s) return 1;
    pt_storage_release(s);
    return 0;
}
