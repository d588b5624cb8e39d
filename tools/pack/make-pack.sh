#!/bin/bash
# Writes the pack (see README.md beside this script): called by the `pack`
# target of cmake/TIRxPack.cmake.
#   make-pack.sh --out T.tar.xz --tirx BIN --tirx-run BIN --source DIR --version V
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2 ;; --tirx) tirx=$2 ;; --tirx-run) runner=$2 ;;
    --source) src=$2 ;; --version) version=$2 ;;
    *) echo "make-pack.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
: "${out:?--out}" "${tirx:?--tirx}" "${runner:?--tirx-run}" "${src:?--source}" "${version:?--version}"

stage=$(mktemp -d "${out%/*}/.tirx-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/tirx-pack
mkdir -p "$root/bin" "$root/python"
install -m 755 "$tirx" "$root/bin/tirx"
ln -s tirx "$root/bin/tirx-opt"          # the multicall binary, by its name
install -m 755 "$runner" "$root/bin/tirx-run"
cp -r "$src/python/tirx" "$root/python/"
rm -rf "$root/python/tirx/__pycache__"
cp -r "$src/examples" "$root/examples"
install -m 644 "$src/tools/pack/env.sh" "$root/env.sh"
install -m 644 "$src/tools/pack/README.md" "$root/README.md"
echo "$version" > "$root/VERSION"
(cd "$root" && find . -type f ! -name SHA256SUMS -print0 | LC_ALL=C sort -z |
   xargs -0 sha256sum > SHA256SUMS)

# Reproducible: names sorted, owner and times fixed. xz -9 with two threads
# (blocks of 64 MiB) keeps the archive near what one thread gives.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
    -C "$stage" -cf - tirx-pack | xz -9 -T2 > "$out.tmp"
mv "$out.tmp" "$out"
bytes=$(stat -c %s "$out")
echo "tirx-pack: $out: $((bytes / 1024 / 1024)).$(((bytes % (1024 * 1024)) * 10 / 1024 / 1024)) MiB"
