/*
 * bank_family.c - the bank family's descriptor (probes/family.h): the probe (bank.c, bank.cu), its tables (bank_tables.c, matrix_tables.c), the study's shared-memory claims and swizzle section (bank_study.c, matrix_study.c) and its plot data (bank_plotdata.c).
 */
#include "family.h"

extern const mp_probe mp_probe_bank;
extern const mp_rep_spec mp_rep_spec_bank, mp_rep_spec_padding;
extern const mp_rep_spec mp_rep_spec_matrix, mp_rep_spec_matrix_free;
extern const mp_study_group mp_study_shared;
void mp_study_matrix(const mp_rep_data *d, FILE *out);
int mp_bank_plot_data(const mp_rep_data *d, const char *dir, char *err,
                      size_t errlen);

static const mp_rep_table_def tables[] = {
    {.spec = &mp_rep_spec_bank},
    {.spec = &mp_rep_spec_padding},
    {.spec = &mp_rep_spec_matrix, .split = 4,
     .legend = "the measured value differs from the model at the "
               "precision shown"},
    {.spec = &mp_rep_spec_matrix_free,
     .legend = "the model makes another set of the measured modes "
               "conflict-free"},
};

static void study_section(const mp_rep_data *d, const char *dir, FILE *out)
{
    (void)dir;
    mp_study_matrix(d, out);
}

static const char *const plot_files[] = {"bank-heatmap.dat",
                                         "bank-cycles.dat",
                                         "matrix-swizzle.dat", NULL};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_STRIDE, MP_COL_BASE,
    MP_COL_GROUP, MP_COL_PERIOD, MP_COL_PAD, MP_COL_ACCESS, MP_COLS_LAUNCH,
    MP_COL_ITERATIONS, MP_COLS_PER_REQUEST, MP_COLS_BANDWIDTH,
    MP_COL_MODEL_WAVEFRONTS, MP_COL_MODEL_IDEAL, MP_COL_MODEL_CONFLICT_WAYS,
    MP_COL_WAVEFRONTS_PER_REQUEST, MP_COL_EXCESS_WAVEFRONTS,
    MP_COL_MODEL_MATCH,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "bank/bank-sweep.csv",
    "bank/bank-pads.csv",
    "bank/matrix.csv",
    "bank/ldsm.csv",
    NULL,
};

/* The report fields a CSV with its rows must have. */
static const int needs[] = {
    MP_F_OP, MP_F_WIDTH, MP_F_STRIDE, MP_F_BASE, MP_F_GROUP,
    MP_F_PERIOD, MP_F_PAD, MP_F_CYCLES, MP_F_MODEL_WF, MP_F_WF,
    MP_F_MODEL_WAYS, MP_F_MATCH, MP_F_VERIFIED, MP_F_COUNTERS, -1};

const mp_family mp_family_bank = {
    MP_FAMILY_BASE(bank),
    .summary = "shared-memory bank conflicts: stride, width, broadcast, "
               "padding",
    .ncu_check_args = "--op ld,st --width 4,8,16 "
                      "--stride 0,1,2,3,4,8,16,17,32,33 --group 1,2 "
                      "--iterations 256",
    .report = {.needs = needs,
               .mismatch_measured = MP_F_WF, .mismatch_model = MP_F_MODEL_WF,
               .mismatch_unit = "wavefronts",
               .study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .claims = &mp_study_shared, .section = study_section,
               .section_order = 30, .plot_data = mp_bank_plot_data,
               .plot_files = plot_files},
    .doc = "docs/bank.md",
};
