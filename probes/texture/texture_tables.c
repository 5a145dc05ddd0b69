/*
 * texture_tables.c - the texture family's report table: time, sectors and hit rate by source and access. report/table_spec.h says what a spec holds.
 */
#include "part.h"

/* ---- texture: source x access ---- */

PROBE_ROWS(tex_want, "texture")

static void tex_keys(const mp_rep_data *d, const mp_rep_row *r,
                     char k[][KEYLEN])
{
    config_token(k[0], txt(d, r, MP_F_CONFIG), "n");
    snprintf(k[1], KEYLEN, "%s", txt(d, r, MP_F_ACCESS));
}

/* Texture sources: the texture paths first, then the loads they race. */
static double source_rank(const char *s)
{
    static const char *const order[] = {"tex1d", "tex2d", "global", "ldg"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(order[i], s))
            return i;
    return 100;
}

static double source_group(const mp_rep_data *d, const mp_rep_row *r,
                           char *label)
{
    snprintf(label, KEYLEN, "%s", txt(d, r, MP_F_SOURCE));
    return source_rank(label);
}

static void tex_values(const mp_rep_data *d, const mp_rep_row *r,
                       char v[][KEYLEN], int *mark)
{
    int tex = is(d, r, MP_F_SOURCE, "tex1d") || is(d, r, MP_F_SOURCE, "tex2d");
    if (put_wrong(v[0], d, r))
        return;
    put_us(v[0], d, r);
    put_measured(v[1], &mark[1], d, r, MP_F_SECTORS, 4);
    /* The model is claimed for the global paths only (model_match empty
     * for the texture ones). */
    if (txt(d, r, MP_F_MATCH)[0])
        put_count(v[2], d, r, MP_F_MODEL_SECTORS, 4);
    double hits = num(d, r, tex ? MP_F_TEX_HITS : MP_F_LSU_HITS);
    double sectors = num(d, r, tex ? MP_F_TEX_SECTORS : MP_F_LSU_SECTORS);
    put_value(v[3], sectors > 0 ? 100.0 * hits / sectors : NAN, 1);
}

const mp_rep_spec mp_rep_spec_texture = {
    "texture",
    "Texture: time of one launch, sectors per request (texture paths: per "
    "TEX request), the model (global and ldg loads only) and L1 hit rate, by "
    "array side n (n x n floats), access and source",
    HEADERS("n", "access"), HEADERS("us", "sectors", "model", "hit %"), NULL,
    tex_want, tex_keys, source_group, tex_values
};
