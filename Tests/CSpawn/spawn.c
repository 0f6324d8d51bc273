#define _GNU_SOURCE
#include "cspawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

extern char **environ;

/// Moves `descriptor` to 3 or above (close-on-exec); returns the new number or -1.
static int above_standard_streams(int descriptor) {
    if (descriptor > 2) return descriptor;
    int moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    close(descriptor);
    errno = saved;
    return moved;
}

int modelgen_spawn_pipe(int descriptors[2]) {
    int raw[2];
#ifdef __APPLE__
    // No pipe2: this process's other spawns close every descriptor not named anyway.
    if (pipe(raw) != 0) return errno;
    fcntl(raw[0], F_SETFD, FD_CLOEXEC);
    fcntl(raw[1], F_SETFD, FD_CLOEXEC);
#else
    if (pipe2(raw, O_CLOEXEC) != 0) return errno;
#endif
    int read_end = above_standard_streams(raw[0]);
    int read_error = errno;
    int write_end = above_standard_streams(raw[1]);
    int write_error = errno;
    if (read_end < 0 || write_end < 0) {
        if (read_end >= 0) close(read_end);
        if (write_end >= 0) close(write_end);
        return read_end < 0 ? read_error : write_error;
    }
    descriptors[0] = read_end;
    descriptors[1] = write_end;
    return 0;
}

int modelgen_spawn(
    pid_t *pid, const char *path, char *const argv[], const char *directory, const int streams[3]) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int error = posix_spawn_file_actions_init(&actions);
    if (error != 0) return error;
    error = posix_spawnattr_init(&attributes);
    if (error != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    for (int fd = 0; fd < 3 && error == 0; fd++) {
        error = streams[fd] >= 0
            ? posix_spawn_file_actions_adddup2(&actions, streams[fd], fd)
            : posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
    }
#ifndef __APPLE__
    // After the dup2s, which leave 0, 1 and 2 without close-on-exec: nothing else is inherited.
    if (error == 0) error = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    if (error == 0 && directory != NULL) error = posix_spawn_file_actions_addchdir_np(&actions, directory);

    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP;
#ifdef __APPLE__
    flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;  // Darwin's way of inheriting only the streams named
#endif
    if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &none);
    if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &defaults);
    if (error == 0) error = posix_spawnattr_setpgroup(&attributes, 0);
    if (error == 0) error = posix_spawnattr_setflags(&attributes, flags);
    if (error == 0) error = posix_spawn(pid, path, &actions, &attributes, argv, environ);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return error;
}
