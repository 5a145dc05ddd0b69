/*
 * subprocess.h - run another program (ncu, or memprobe itself) and wait for it.
 */
#ifndef MP_SUBPROCESS_H
#define MP_SUBPROCESS_H

/* Runs argv[0] (searched in PATH) with argv, stdout and stderr going to
 * log_path (appended; NULL = inherit). Returns the exit status, 127 if it
 * could not be started, 128+N if killed by signal N. */
int mp_spawn_wait(char *const argv[], const char *log_path);

/* Path of the running executable (for re-running memprobe), or "memprobe". */
const char *mp_self_path(void);

#endif
