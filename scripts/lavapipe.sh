#!/usr/bin/env bash
# Fetches Mesa 25's lavapipe from Debian's bookworm-backports without installing anything
# system-wide, and prints the path of an ICD file for it on its last line:
#
#   shaderstep --driver "$(scripts/lavapipe.sh | tail -1)" exec blur.comp --check-driver
#
# How: apt's own download under a private apt configuration (its lists and cache under the
# cache directory below) that adds bookworm-backports; `dpkg-deb -x` of mesa-vulkan-drivers and
# of the libraries it needs that this machine's are too old for (as apt itself decides, from
# this machine's dpkg status) into ${XDG_CACHE_HOME:-~/.cache}/shaderstep/lavapipe-VERSION/;
# an ICD file there whose library_path is that copy. shaderstep puts the copy's library
# directory first on LD_LIBRARY_PATH of the worker process that loads the driver, so the newer
# libraries are found beside it.
#
# A second run prints the cached ICD file at once (no network). `--update` fetches again.
set -euo pipefail

cache="${XDG_CACHE_HOME:-$HOME/.cache}/shaderstep"
mirror="${SHADERSTEP_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
package=mesa-vulkan-drivers

if [ "${1:-}" != "--update" ]; then
    for icd in $(ls -d "$cache"/lavapipe-*/lvp_icd.json 2>/dev/null | sort -V -r); do
        if [ -f "$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$icd")" ]; then
            echo "$icd"
            exit 0
        fi
    done
fi

for tool in apt-get apt-cache dpkg-deb; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "lavapipe.sh: $tool not found: this script takes lavapipe from Debian's packages (bookworm)" >&2
        exit 1
    fi
done

apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
signed=""
[ -f "$keyring" ] && signed="[signed-by=$keyring] "
cat >"$apt_dir/sources.list" <<EOF
deb ${signed}$mirror bookworm main
deb ${signed}$mirror bookworm-updates main
deb ${signed}$mirror bookworm-backports main
EOF
apt_options=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)"
)

echo "lavapipe.sh: reading bookworm-backports' package lists" >&2
apt-get "${apt_options[@]}" update -qq >&2
version=$(apt-cache "${apt_options[@]}" madison "$package" |
    awk -F'|' '$3 ~ /bookworm-backports/ { gsub(/ /, "", $2); print $2; exit }')
if [ -z "$version" ]; then
    echo "lavapipe.sh: bookworm-backports has no $package" >&2
    exit 1
fi
case "$version" in
2[5-9].* | [3-9][0-9].*) ;;
*)
    echo "lavapipe.sh: bookworm-backports' $package is $version, not Mesa 25 or later" >&2
    exit 1
    ;;
esac

# What apt would install for it here: the driver, and those of its direct dependencies that this
# machine lacks or has too old (other packages apt would upgrade with it are left out).
depends=$(apt-cache "${apt_options[@]}" show "$package=$version" |
    sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' | sed 's/^ *//; s/[ :(].*//')
wanted=$(apt-get "${apt_options[@]}" install -s -t bookworm-backports "$package" 2>/dev/null |
    awk '/^Inst / { name = $2; v = $0; sub(/^[^(]*\(/, "", v); sub(/ .*/, "", v); print name "=" v }' |
    while IFS== read -r name v; do
        if [ "$name" = "$package" ] || grep -qx "$name" <<<"$depends"; then
            echo "$name=$v"
        fi
    done)
if ! grep -q "^$package=" <<<"$wanted"; then
    wanted="$package=$version
$wanted"
fi

dir="$cache/lavapipe-$version"
work=$(mktemp -d "$cache/.lavapipe-XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "lavapipe.sh: downloading $(echo $wanted)" >&2
(cd "$work" && apt-get "${apt_options[@]}" download $wanted >&2)
for deb in "$work"/*.deb; do
    dpkg-deb -x "$deb" "$work/root"
done
library=$(find "$work/root" -name libvulkan_lvp.so -print -quit)
if [ -z "$library" ]; then
    echo "lavapipe.sh: $package $version has no libvulkan_lvp.so" >&2
    exit 1
fi
rm -f "$work"/*.deb
rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
library="$dir/${library#"$work"/}"
cat >"$dir/lvp_icd.json" <<EOF
{
    "file_format_version": "1.0.0",
    "ICD": {
        "library_path": "$library",
        "api_version": "1.4.305"
    }
}
EOF
echo "$dir/lvp_icd.json"
