/*
 * link_model.h - the ceiling of the link a transfer crosses: PCIe from its
 * generation and width, NVLink from its link count and version. Pure C, no
 * CUDA, no NVML (runtime/nvml_link.c reads the numbers from the driver).
 *
 * PCIe, per direction: lanes x transfer rate x encoding / 8 bits.
 *   gen 1: 2.5 GT/s, gen 2: 5 GT/s (both 8b/10b);
 *   gen 3: 8, gen 4: 16, gen 5: 32 GT/s (128b/130b);
 *   gen 6: 64 GT/s (PAM4 with FLIT encoding, taken as 242/256).
 * Gen 5 x16: 32 x 16 x 128/130 / 8 = 63.0 GB/s each way. Packet headers
 * (TLPs of 256-byte payloads carry ~24 bytes of overhead) keep real copies
 * below this: the fraction of it is what the tables report.
 *
 * NVLink, per direction and link, by NVML's nvmlNvlinkVersion_t (what
 * nvmlDeviceGetNvLinkVersion returns: an enum, not the marketing number):
 * 1 (NVLink 1.0): 20 GB/s; 2, 3 (2.0, 2.2), 4, 5 (3.0, 3.1) and 6 (4.0):
 * 25 GB/s; 7 (5.0): 50 GB/s. NVLink 4.0 on H100/H200: 18 links x 25 =
 * 450 GB/s each way.
 */
#ifndef MP_LINK_MODEL_H
#define MP_LINK_MODEL_H

/* GT/s per lane of a PCIe generation, 0 for an unknown one. */
double mp_pcie_gts(int gen);
/* Payload fraction of the line encoding (0.8 or 128/130 ...), 0 unknown. */
double mp_pcie_encoding(int gen);
/* GB/s per direction of a gen x width link; 0 when either is unknown. */
double mp_pcie_gbs(int gen, int width);
/* GB/s per direction of one NVLink of NVML version enum `version`, 0
 * unknown; mp_nvlink_name: "4.0" for 6, "?" for unknown. */
double mp_nvlink_link_gbs(int version);
const char *mp_nvlink_name(int version);
/* GB/s per direction of `links` active links of `version`. */
double mp_nvlink_gbs(int version, int links);

/* The H200 SXM's links, for `memprobe predict` without a GPU. */
#define MP_H200_PCIE_GEN 5
#define MP_H200_PCIE_WIDTH 16
#define MP_H200_NVLINK_VERSION 6   /* NVLink 4.0 */
#define MP_H200_NVLINKS 18

#endif
