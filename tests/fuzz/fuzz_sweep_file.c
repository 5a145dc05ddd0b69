/*
 * fuzz_sweep_file.c - libFuzzer target: sweep files (runtime/sweep_file.c,
 * INI read by inih, values by runtime/params.c, every configuration
 * checked by its probe).
 *
 * Any bytes: a parsed sweep (whose configurations are then all named and
 * predicted, as `sweep --list` and `--predict` do) or a one-line reason,
 * without a crash, a leak or undefined behaviour.
 */
#include "fuzz_util.h"
#include "probe.h"
#include "sweep_file.h"

#include <stdint.h>

int fuzz_sweep_file(const uint8_t *data, size_t size)
{
    char path[64], err[512] = "";
    int fd = fuzz_file(data, size, "fuzz.conf", path, sizeof path);
    mp_sweep s;
    if (mp_sweep_read(path, &s, err, sizeof err) == 0) {
        char name[256];
        for (int i = 0; i < s.nsections; i++) {
            const mp_sweep_section *sec = &s.sections[i];
            for (int k = 0; k < sec->configs.n; k++) {
                mp_prediction p;
                sec->probe->label(sec->configs.v[k], name, sizeof name);
                sec->probe->predict(sec->configs.v[k], &p);
            }
        }
    } else {
        fuzz_check_reason(err);
    }
    mp_sweep_free(&s);
    fuzz_file_close(fd);
    return 0;
}

MP_FUZZ_ENTRY(fuzz_sweep_file)
