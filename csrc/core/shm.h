/* shm.h - the layout of a named shared-memory segment (csrc/core/shm.c).
 *
 * Note [shared segment header]
 * A segment made for the file_system strategy starts with one page of header, then the storage's
 * bytes. The header counts references per process: a table of {pid, count} slots, each process
 * changing only its own slot (a reference it takes or drops) with atomic operations, so that the
 * segment's total is the sum of the slots. A process that takes the total to zero unlinks the
 * name. The manager (pytensor/multiprocessing/_manager.py) reads the same layout: when a client
 * dies without dropping its references (SIGKILL), it clears the dead process's slot and unlinks
 * the name if no other process holds a reference. A reference taken for another process in
 * transit (Storage._shared_incref before pickling) stays in the sender's slot until the receiver,
 * which learns the sender's pid from the pickle, drops it there (pt_storage_shared_decref_pid).
 * The offsets are fixed; the manager, which does not load the core, repeats them.
 */
#ifndef PT_SHM_H
#define PT_SHM_H

#include <stdint.h>

enum {
    PT_SHM_HEADER_BYTES = 4096, /* data starts one page in */
    PT_SHM_SLOTS_OFFSET = 64,
    PT_SHM_SLOTS = (PT_SHM_HEADER_BYTES - PT_SHM_SLOTS_OFFSET) / 8,
};
#define PT_SHM_MAGIC 0x31304d4853545050ULL /* "PPTSHM01" little-endian */

typedef struct pt_shm_slot {
    _Atomic int32_t pid; /* 0: free */
    _Atomic int32_t count;
} pt_shm_slot;

typedef struct pt_shm_header {
    uint64_t magic;
    int64_t nbytes; /* the data's size */
    int32_t nslots;
    char pad[PT_SHM_SLOTS_OFFSET - 20];
    pt_shm_slot slots[PT_SHM_SLOTS];
} pt_shm_header;

#endif
