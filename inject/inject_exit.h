/*
 * inject_exit.h - the program's end (inject_exit.c).
 */
#ifndef MP_INJECT_EXIT_H
#define MP_INJECT_EXIT_H

/* Installs the writers at exit and on fatal signals, and the fork
 * handler (a child without exec writes nothing). */
void exit_install(void);

#endif
