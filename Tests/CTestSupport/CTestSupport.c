#define _GNU_SOURCE
#include <stddef.h>
#include <sys/resource.h>
#include "CTestSupport.h"

int tt_set_file_size_limit(pid_t pid, long long bytes) {
    struct rlimit limit = { (rlim_t)bytes, (rlim_t)bytes };
    return prlimit(pid, RLIMIT_FSIZE, &limit, NULL);
}

/* The soft limit only, so that it can be lifted again without privilege: -1 lifts it to the
   hard limit. */
int tt_set_soft_file_size_limit(pid_t pid, long long bytes) {
    struct rlimit old;
    if (prlimit(pid, RLIMIT_FSIZE, NULL, &old) != 0) return -1;
    struct rlimit limit = { bytes < 0 ? old.rlim_max : (rlim_t)bytes, old.rlim_max };
    return prlimit(pid, RLIMIT_FSIZE, &limit, NULL);
}
