#ifndef MODELGEN_CSPAWN_H
#define MODELGEN_CSPAWN_H

#include <sys/types.h>

/// Makes a pipe whose two ends are close-on-exec and numbered 3 or above, so that they can never
/// stand in for a standard stream (as they would when this process runs with one closed).
/// Returns 0, or an errno value.
int modelgen_spawn_pipe(int descriptors[2]);

/// Starts `path` (absolute) with `argv` and this process's environment. The child's descriptors
/// 0, 1 and 2 are `streams[0…2]`, or /dev/null where that is -1; every other descriptor is closed
/// in the child, so it holds nothing of this process open (a pipe of another test, say) however
/// long it or its own children live. It starts with no signal blocked and SIGPIPE at its default,
/// in `directory` when not NULL, and in a process group of its own (so that it can be killed with
/// whatever it starts).
/// Returns 0 and sets `pid`, or returns an errno value.
int modelgen_spawn(
    pid_t *pid, const char *path, char *const argv[], const char *directory, const int streams[3]);

#endif
