// C helpers for tests that Swift cannot call directly.
#ifndef TRANSFERTOP_CTESTSUPPORT_H
#define TRANSFERTOP_CTESTSUPPORT_H

#include <sys/types.h>

// Sets the file-size limit (RLIMIT_FSIZE, soft and hard) of a running process: prlimit(2),
// which glibc declares only under _GNU_SOURCE and Swift's Glibc module does not import.
// Returns 0 or -1 with errno set.
int tt_set_file_size_limit(pid_t pid, long long bytes);
int tt_set_soft_file_size_limit(pid_t pid, long long bytes);

#endif
