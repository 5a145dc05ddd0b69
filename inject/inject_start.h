/*
 * inject_start.h - the library's start before it subscribes
 * (inject_start.c).
 */
#ifndef MP_INJECT_START_H
#define MP_INJECT_START_H

/* Reads the settings (inject_start.c's steps 1 to 5); 1 when profiling,
 * 0 when not (said why). */
int start_settings(void);

#endif
