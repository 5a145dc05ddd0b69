/*
 * link_model.c - PCIe and NVLink ceilings (see link_model.h).
 */
#include "link_model.h"

double mp_pcie_gts(int gen)
{
    static const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
    return gen >= 1 && gen <= 6 ? gts[gen] : 0;
}

double mp_pcie_encoding(int gen)
{
    if (gen == 1 || gen == 2)
        return 8.0 / 10.0;
    if (gen >= 3 && gen <= 5)
        return 128.0 / 130.0;
    if (gen == 6)
        return 242.0 / 256.0;
    return 0;
}

double mp_pcie_gbs(int gen, int width)
{
    if (width <= 0)
        return 0;
    return mp_pcie_gts(gen) * width * mp_pcie_encoding(gen) / 8.0;
}

double mp_nvlink_link_gbs(int version)
{
    static const double gbs[] = {0, 20, 25, 25, 25, 25, 25, 50};
    return version >= 1 && version <= 7 ? gbs[version] : 0;
}

const char *mp_nvlink_name(int version)
{
    static const char *const names[] = {"?", "1.0", "2.0", "2.2", "3.0",
                                        "3.1", "4.0", "5.0"};
    return version >= 1 && version <= 7 ? names[version] : "?";
}

double mp_nvlink_gbs(int version, int links)
{
    return links > 0 ? links * mp_nvlink_link_gbs(version) : 0;
}
