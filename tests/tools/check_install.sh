#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_install.sh BUILD_DIR VERSION CC [CFLAGS]: installs BUILD_DIR into a scratch
# prefix and checks pkg-config and a program built against the install.
set -euo pipefail
build=$1 version=$2 cc=$3 cflags=${4:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libdoca_gpunetio.so' -printf '%h\n' | head -n1)
export PKG_CONFIG_PATH=$libdir/pkgconfig

gpunetio=$(pkg-config --modversion doca-gpunetio)
common=$(pkg-config --modversion doca-common)
echo "doca-gpunetio $gpunetio, doca-common $common"
[ "$gpunetio" = "$version" ] || { echo "doca-gpunetio reports $gpunetio, expected $version"; exit 1; }
[ "$common" = "$gpunetio" ] || { echo "doca-common $common differs from doca-gpunetio $gpunetio"; exit 1; }

for header in doca_error.h device/doca_gpunetio_verbs_def.h device/impl/gdaki_platform.h; do
    [ -f "$prefix/include/doca-gpunetio-open/$header" ] || { echo "$header not installed"; exit 1; }
done

cat >"$prefix/user.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <doca_error.h>
#include <doca_gpunetio_verbs_def.h>
int main(void)
{
    const char *name = doca_error_get_name(DOCA_ERROR_NOT_SUPPORTED);
    puts(name);
    return strcmp(name, "DOCA_ERROR_NOT_SUPPORTED") != 0;
}
PROG
# shellcheck disable=SC2046
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $cflags -o "$prefix/user" "$prefix/user.c" $(pkg-config --cflags --libs doca-gpunetio)
LD_LIBRARY_PATH=$libdir "$prefix/user"
echo "install ok"
