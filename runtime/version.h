/* version.h - memprobe's version, written into every CSV row. */
#ifndef MP_VERSION_H
#define MP_VERSION_H
#define MP_VERSION "0.1.0"
#endif
