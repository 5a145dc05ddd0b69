/*
 * hazards_family.c - the hazards family's descriptor (probes/family.h):
 * the hazard catalogue (hazards.c, hazards.cu): the seeds' reduction
 * bugs under compute-sanitizer. Not an mp_probe: it runs through its
 * own command, memprobe hazards (cli/cmd_hazards.c).
 */
#include "family.h"

const mp_family mp_family_hazards = {
    .name = "hazards",
    .doc = "docs/hazards.md",
};
