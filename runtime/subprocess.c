/*
 * subprocess.c - posix_spawn wrapper used by the ncu cross-check.
 */
#include "subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int mp_spawn_wait(char *const argv[], const char *log_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (log_path) {
        posix_spawn_file_actions_addopen(&fa, 1, log_path,
                                         O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return 127;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 127;
}

const char *mp_self_path(void)
{
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return "memprobe";
    path[n] = '\0';
    return path;
}
