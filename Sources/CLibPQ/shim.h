#ifndef TESSERA_CLIBPQ_SHIM_H
#define TESSERA_CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
