/*
 * latency_family.c - the latency family's descriptor (probes/family.h):
 * the probe (latency.c, latency.cu), the study's latency claims
 * (latency_claims.c) and hierarchy section (latency_study.c). Its model
 * (model/latency_model.c) stays in model/: report/hierarchy.c uses it
 * too.
 */
#include "family.h"

#include "latency_study.h"

extern const mp_probe mp_probe_latency;
extern const mp_study_group mp_study_latency;

static void study_section(const mp_rep_data *d, const char *dir, FILE *out)
{
    (void)d;
    mp_study_latency_section(dir, out);
}

const mp_family mp_family_latency = {
    .name = "latency",
    .probe = &mp_probe_latency,
    .report = {.claims = &mp_study_latency, .section = study_section,
               .section_order = 110},
    .sweep = "configs/latency.conf",
    .doc = "docs/latency.md",
};
