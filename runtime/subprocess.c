/*
 * subprocess.c - posix_spawn wrapper used by the ncu cross-check, the GPU
 * tests and the hazard catalogue (which needs a time limit: a kernel that
 * deadlocks must not stop the run).
 */
#include "subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The signal memprobe received while it waited with a limit (0 = none). */
static volatile sig_atomic_t got_signal;

static void note_signal(int sig)
{
    got_signal = sig;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int status_of(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 127;
}

/* Kills the process group of leader `pid` (not yet reaped, so the id is
 * still ours) and reaps the leader. */
static void kill_group(pid_t pid)
{
    int status;
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

/* Polls the child every 10 ms until it ends, the limit runs out or a
 * signal arrives. */
static int wait_limited(pid_t pid, double seconds)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = note_signal;
    sigemptyset(&sa.sa_mask);
    got_signal = 0;
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);

    double deadline = now_seconds() + seconds;
    int rc = MP_SPAWN_TIMEOUT, status = 0;
    for (;;) {
        /* WNOWAIT: the ended child stays a zombie, so its pid (= the
         * group's id) cannot be reused before the group is killed. */
        siginfo_t info;
        memset(&info, 0, sizeof info);
        int r = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
        if (r == 0 && info.si_pid == pid) {
            /* Anything the program left running in its group goes too. */
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            rc = status_of(status);
            break;
        }
        if (r < 0 && errno != EINTR) {
            rc = 127;
            break;
        }
        if (got_signal || now_seconds() >= deadline) {
            kill_group(pid);
            rc = MP_SPAWN_TIMEOUT;
            break;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }

    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    if (got_signal)
        raise(got_signal);
    return rc;
}

int mp_spawn_wait_timeout(char *const argv[], const char *log_path,
                          double seconds)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (log_path) {
        posix_spawn_file_actions_addopen(&fa, 1, log_path,
                                         O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    /* With a limit: a process group of its own (its id = the child's pid),
     * so that a kill reaches every process it started. Without one the
     * child stays in ours and gets the terminal's Ctrl-C as before. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (seconds > 0) {
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        return 127;
    if (seconds > 0)
        return wait_limited(pid, seconds);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    return status_of(status);
}

int mp_spawn_wait(char *const argv[], const char *log_path)
{
    return mp_spawn_wait_timeout(argv, log_path, 0);
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
