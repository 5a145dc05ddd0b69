#!/usr/bin/env bash
# deps.sh - the three libraries memprobe builds against (libcsv, inih,
# cmocka), found or fetched without root. The Makefile runs it before
# building, unless DEPS=dir is given.
#
#   scripts/deps.sh CC DIR
#
# Prints on stdout what the Makefile should use: nothing when the compiler
# finds all three on the system; DIR when they are unpacked there (from an
# earlier run, or now: `apt-get download` of the Debian packages and
# `dpkg -x` into DIR, saying so in one line on stderr); or, when neither
# works, one line starting with "!" naming the packages to install (the
# Makefile stops with it). Exit status 0 in every case.
#
# Test hook (tests/test_make.c): MP_DEPS_HIDE_SYSTEM=1 acts as if the
# system had none of them.
set -u
cc=${1:-cc}
dir=${2:-.deps}
RUNTIME="libcsv3 libinih1 libcmocka0"
DEV="libcsv-dev libinih-dev libcmocka-dev"

# usable [DIR]: one program including the three headers links against the
# three libraries (from DIR when given).
usable() {
    local flags=()
    if [ -n "${1:-}" ]; then
        local h
        for h in csv.h ini.h cmocka.h; do
            [ -f "$1/usr/include/$h" ] || return 1
        done
        flags=(-I"$1/usr/include" -L"$1/usr/lib/x86_64-linux-gnu")
    fi
    printf '%s\n' '#include <stdarg.h>' '#include <stddef.h>' \
        '#include <stdint.h>' '#include <setjmp.h>' '#include <csv.h>' \
        '#include <ini.h>' '#include <cmocka.h>' 'int main(void) { return 0; }' |
        $cc "${flags[@]}" -x c - -o /dev/null -lcsv -linih -lcmocka >/dev/null 2>&1
}

if [ "${MP_DEPS_HIDE_SYSTEM:-}" != 1 ] && usable; then
    exit 0
fi
if [ -d "$dir" ] && usable "$dir"; then
    echo "$dir"
    exit 0
fi
if command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    if (cd "$tmp" && apt-get download $RUNTIME $DEV) >/dev/null 2>&1; then
        rm -rf "$dir" && mkdir -p "$dir"
        for f in "$tmp"/*.deb; do dpkg -x "$f" "$dir"; done
    fi
    rm -rf "$tmp"
    if usable "$dir"; then
        echo "make: libcsv, inih and cmocka are not installed: using the Debian packages ($DEV) unpacked into $dir/ (no root needed)" >&2
        echo "$dir"
        exit 0
    fi
fi
echo "!libcsv, inih and cmocka are missing and could not be fetched: install them (Debian/Ubuntu: sudo apt-get install $DEV)"
