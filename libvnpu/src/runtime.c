/* The runtime's own functions, found on first use with dlsym(RTLD_NEXT): the hooks call them. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "shim.h"

#define REAL(name)                                                                                 \
    static __typeof__(&name) real_##name;                                                          \
    __typeof__(&name) original_##name(void) {                                                      \
        if (real_##name == NULL) {                                                                 \
            real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name);                              \
        }                                                                                          \
        return real_##name;                                                                        \
    }
#define DECLARE_REAL(KIND, name, ...) REAL(name)
VNPU_RUNTIME_HOOKS(DECLARE_REAL)
REAL(rtGetDevice)
REAL(rtStreamDestroy)
REAL(rtStreamSynchronize)
REAL(rtEventCreate)
REAL(rtEventRecord)
REAL(rtEventSynchronize)
REAL(rtEventDestroy)
