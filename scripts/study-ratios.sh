#!/usr/bin/env bash
# study-ratios.sh - compares two study CSVs by what does not depend on a
# launch's length: per configuration, the counted *_per_request columns
# (wavefronts, sectors, replays, excess; not times) and model_match.
# For a study whose launches changed length (configs/study.conf's shared
# sections at 2048 iterations against 16384), where `memprobe compare`
# would see every raw count differ by the ratio of the lengths.
#
#   scripts/study-ratios.sh OLD.csv NEW.csv [TOL [PREFIX]]
#
# Compares the configurations whose name starts with PREFIX (default
# "bank/": the sections whose length changed; `memprobe compare` judges
# the others by the counters' own tolerances). Prints each differing
# value (|old - new| above TOL x max(1, |old|), default 1e-3: an excess
# of 0.0001 wavefronts per request, a few extra wavefronts of the
# kernel's prologue over 8 times fewer requests, is not a finding) and a
# last line "N values differ of M compared, K configurations missing";
# exits 1 when N or K is not 0 or nothing was compared.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD.csv NEW.csv [REL]" >&2; exit 2; }
for f in "$1" "$2"; do
    [ -r "$f" ] || { echo "study-ratios: cannot read $f" >&2; exit 2; }
done
here=$(dirname "$0")
awk -v rel="${3:-1e-3}" -v prefix="${4:-bank/}" "$(cat "$here/csv.awk")"'
FNR == 1 { n = split_csv($0, h); delete col
           for (i = 1; i <= n; i++) col[h[i]] = i
           file++; next }
{ split_csv($0, f); cfg = f[col["config"]]
  if (substr(cfg, 1, length(prefix)) != prefix) next
  for (name in col) {
      if (name != "model_match" && (name !~ /_per_request$/ || name ~ /^(ns|cycles|clock64)/))
          continue
      v = f[col[name]]
      if (file == 1) old[cfg, name] = v
      else if ((cfg, name) in old) {
          o = old[cfg, name]; seen[cfg] = 1
          if (o == "" && v == "") continue
          m++
          if (name == "model_match") { if (o != v) { d++; print cfg, name, o, v } ; continue }
          a = o + 0; b = v + 0; s = (a < 0 ? -a : a); if (s < 1) s = 1
          if ((a - b) / s > rel || (b - a) / s > rel) { d++; print cfg, name, o, v }
      }
  }
  if (file == 1) cfgs[cfg] = 1 }
END { for (c in cfgs) if (!(c in seen)) k++
      printf "%d values differ of %d compared, %d configurations missing\n", d, m, k
      exit (d > 0 || k > 0 || m == 0) }' "$1" "$2"
