/*
 * Binds the shim's glibc symbols to their oldest versions, so that the shim loads in containers
 * whose glibc is as old as 2.17 (CentOS 7, openEuler 20.03, Ubuntu 18.04): an unmet symbol version
 * in /etc/ld.so.preload stops every process of the container. Newer glibc keeps these versions as
 * compatibility symbols; before 2.34 the pthread ones live in libpthread.so.0 and dlsym in
 * libdl.so.2, which the shim therefore names as needed libraries (Makefile). Every .c file of the
 * shim is compiled with this header first (-include); tests/check_glibc.sh fails the build on any
 * symbol newer than 2.17.
 */
#ifndef VNPU_GLIBC_COMPAT_H
#define VNPU_GLIBC_COMPAT_H

#if defined(__x86_64__)
#define VNPU_GLIBC_BASE "GLIBC_2.2.5"
#define VNPU_GLIBC_ROBUST "GLIBC_2.12"
#elif defined(__aarch64__)
#define VNPU_GLIBC_BASE "GLIBC_2.17"
#define VNPU_GLIBC_ROBUST "GLIBC_2.17"
#else
#error "libvnpu pins glibc symbol versions for x86_64 and aarch64 only"
#endif

#define VNPU_SYMVER(symbol, version) __asm__(".symver " #symbol "," #symbol "@" version)

VNPU_SYMVER(dlsym, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_create, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_mutex_trylock, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_mutex_timedlock, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_mutexattr_init, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_mutexattr_destroy, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_mutexattr_setpshared, VNPU_GLIBC_BASE);
VNPU_SYMVER(pthread_mutexattr_setrobust, VNPU_GLIBC_ROBUST);
VNPU_SYMVER(pthread_mutex_consistent, VNPU_GLIBC_ROBUST);

#endif
