#ifndef TESSERA_CMIMALLOC_SHIM_H
#define TESSERA_CMIMALLOC_SHIM_H

/* mimalloc, linked into the tessera executable: as a shared library before libc in the executable's list, its malloc
 * and free serve the whole process (the Swift runtime, OpenSSL, libpq, libuv). docs/operations.md says why. */
#include <mimalloc.h>

#endif
