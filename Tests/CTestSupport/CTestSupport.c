#define _GNU_SOURCE
#include <stddef.h>
#include <sys/resource.h>
#include "CTestSupport.h"

int tt_set_file_size_limit(pid_t pid, long long bytes) {
    struct rlimit limit = { (rlim_t)bytes, (rlim_t)bytes };
    return prlimit(pid, RLIMIT_FSIZE, &limit, NULL);
}
