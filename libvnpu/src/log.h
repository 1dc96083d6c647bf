/* The shim's one logging macro: "[vnpu <level> pid N] message" on stderr, filtered by log.level. */
#ifndef VNPU_LOG_H
#define VNPU_LOG_H

#include <stdio.h>
#include <unistd.h>

enum vnpu_log_level { VNPU_LOG_ERROR = 0, VNPU_LOG_WARN = 1, VNPU_LOG_INFO = 2, VNPU_LOG_DEBUG = 3 };

extern int vnpu_log_threshold;

#define VNPU_LOG(level, ...)                                                                       \
    do {                                                                                           \
        if ((level) <= vnpu_log_threshold) {                                                       \
            static const char *const vnpu_level_names[] = {"error", "warn", "info", "debug"};      \
            fprintf(stderr, "[vnpu %s pid %d] ", vnpu_level_names[level], (int)getpid());          \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#endif
