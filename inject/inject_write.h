/*
 * inject_write.h - writing the raw files from the tables (inject_write.c).
 */
#ifndef MP_INJECT_WRITE_H
#define MP_INJECT_WRITE_H

/* Writes every raw file now (status.PID ending "end END"). */
void write_all(const char *end);
/* write_all("flush") once N launches or T seconds passed since the last
 * write (MEMPROBE_FLUSH_LAUNCHES, MEMPROBE_FLUSH_SECONDS). */
void maybe_write(void);

#endif
