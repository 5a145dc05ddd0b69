/*
 * clock_watch.h - did the SM clock move while a configuration was timed?
 * The runner reads the current SM clock from NVML (libnvidia-ml.so.1,
 * loaded with dlopen; absent: nothing is read) before the warm-up and
 * after the last timed launch, and the row's clock_note says so when the
 * two readings differ or sit below the clock the per-cycle columns use
 * (sm_clock_mhz, the device's maximum).
 */
#ifndef MP_CLOCK_WATCH_H
#define MP_CLOCK_WATCH_H

#include <stddef.h>

/* The current SM clock in MHz of CUDA device `ordinal`, or -1 when NVML
 * is missing or does not answer (then every later call returns -1 at
 * once). */
int mp_sm_clock_mhz(int ordinal);

/* The note for a row: "" when both readings equal the nominal clock (or
 * either reading is unknown, < 0); else e.g. "sm clock 1980->1755 MHz
 * during timing" or "sm clock 1755 MHz, below 1980". Returns buf. */
char *mp_clock_note(int before_mhz, int after_mhz, int nominal_mhz,
                    char *buf, size_t len);

#endif
