#!/bin/sh
# make-carry.sh - gather what bench/torch/run-gpu.sh needs on the GPU
# machine into _carry/torch/ (git-ignored; name it in the device tool's
# carry).  Run here, from the repository root:
#
#   bench/torch/make-carry.sh
#
# Builds libhipcore, the PyTorch plug-in and hipsim with LTTng into an
# install tree for prefix /opt/hipcore (run-gpu.sh copies it there, so the
# compiled-in paths hold), and downloads the Debian packages of LTTng and
# babeltrace2 that the GPU machine lacks (it can install nothing).
set -eu
top=$(pwd)
test -f bench/torch/run-gpu.sh || { echo "make-carry: run from the repository root" >&2; exit 2; }
dest=$top/_carry/torch
build=$top/_build/torch
mkdir -p "$build"
test -x configure || autoreconf -fi >/dev/null
(cd "$build" && test -f Makefile ||
	"$top/configure" -q --prefix=/opt/hipcore --with-lttng=yes CFLAGS="-O2 -g") >/dev/null
make -C "$build" -j"$(nproc)" >/dev/null
rm -rf "$dest"
mkdir -p "$dest/debs"
make -C "$build" install DESTDIR="$dest/root" >/dev/null
# The GPU machine has PyTorch, CUDA and libjansson; these it lacks.
(cd "$dest/debs" && apt-get download -q lttng-tools liblttng-ctl0 liblttng-ust1 \
	liblttng-ust-common1 liblttng-ust-ctl5 liburcu8 libpopt0 libnuma1 libkmod2 libxml2 \
	libicu72 babeltrace2 libbabeltrace2-0 libglib2.0-0 libelf1 libdw1 >/dev/null)
du -sh "$dest"
