/*
 * subprocess.h - run another program (ncu, compute-sanitizer, or memprobe
 * itself) and wait for it, optionally with a time limit.
 */
#ifndef MP_SUBPROCESS_H
#define MP_SUBPROCESS_H

/* What mp_spawn_wait_timeout returns when the limit ran out and the
 * program was killed (distinct from every exit status and 128+signal). */
#define MP_SPAWN_TIMEOUT (-1)

/* Runs argv[0] (searched in PATH) with argv, stdout and stderr going to
 * log_path (appended; NULL = inherit). Returns the exit status, 127 if it
 * could not be started, 128+N if killed by signal N. No time limit: the
 * same as mp_spawn_wait_timeout(argv, log_path, 0). */
int mp_spawn_wait(char *const argv[], const char *log_path);

/* The same with a limit of `seconds` wall-clock seconds (0 = none). With a
 * limit the program runs in a process group of its own, so that whatever it
 * starts (compute-sanitizer starts the program it checks) is stopped with
 * it: when the limit runs out the whole group gets SIGKILL, is reaped, and
 * the call returns MP_SPAWN_TIMEOUT. If memprobe itself gets SIGINT,
 * SIGTERM or SIGHUP meanwhile, the group is killed first and the signal
 * then takes its usual course. */
int mp_spawn_wait_timeout(char *const argv[], const char *log_path,
                          double seconds);

/* Path of the running executable (for re-running memprobe), or "memprobe". */
const char *mp_self_path(void);

#endif
