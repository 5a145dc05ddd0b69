/*
 * runner.h - measures a list of configurations of one probe: verification,
 * timing, hardware counters, one CSV row each.
 */
#ifndef MP_RUNNER_H
#define MP_RUNNER_H

#include "configs.h"

typedef enum { MP_COUNTERS_MODE_AUTO, MP_COUNTERS_MODE_ON,
               MP_COUNTERS_MODE_OFF } mp_counters_mode;

typedef struct {
    int warmup;              /* untimed launches before timing */
    int runs;                /* timed launches; 0 = verify only */
    const char *output;      /* CSV file, "-" for stdout */
    mp_counters_mode counters;
    int device;
    int check_model;         /* exit 1 if measured counters != model */
    int batch;               /* configurations per profiled batch */
} mp_run_options;

/* Runs every configuration. Returns the exit status (check.h): 0, 1 when a
 * verification or model check failed, 3 with no GPU (after printing the
 * model's prediction), 4 when --counters on cannot be honoured. */
int mp_run(const mp_config_list *configs, const mp_run_options *o);

/* Prints the model's prediction for every configuration as a table
 * (csv = 0) or CSV with a header (csv = 1). No GPU is touched. */
void mp_print_predictions(const mp_config_list *configs, int csv, FILE *out);

#endif
