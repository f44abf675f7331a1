#!/bin/sh
# make-carry.sh - gather what tests/gpu/run-on-device.sh needs on the GPU
# machine into _carry/gpu/ of the repository root (git-ignored; name it in
# the device tool's `carry`).  Run here, from the repository root, after a
# build:  tests/gpu/make-carry.sh [BUILD_DIR]   (default _build/d)
#
# Carried: the real binaries of the GPU programs (linked -no-install, so no
# libtool wrapper), tests/gpu/kernels.cu, a PTX file when nvcc is present
# here, and every shared library the binaries need that is neither glibc's
# nor the GPU runtime's (the GPU machine cannot install packages).
set -eu
build=${1:-_build/d}
dest=_carry/gpu
progs="tests/gpu/check_hip_gpu tests/gpu/check_api_gpu bench/gpu/bench_hip_gpu
       bench/gpu/bench_api_gpu bench/gpu/bench_write_gpu bench/gpu/bench_vmm_gpu
       bench/probes/hostcopy bench/probes/callmix"

test -f tests/gpu/kernels.cu || { echo "make-carry: run from the repository root" >&2; exit 2; }
test -f "$build/Makefile" || { echo "make-carry: no build in $build" >&2; exit 2; }
# shellcheck disable=SC2086
(cd "$build" && make -j2 $progs) >/dev/null
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
for p in $progs; do
	f="$build/$p"
	if head -c 4 "$f" | grep -q ELF; then
		cp "$f" "$dest/bin/"
	elif test -x "$build/$(dirname "$p")/.libs/$(basename "$p")"; then
		cp "$build/$(dirname "$p")/.libs/$(basename "$p")" "$dest/bin/"
	else
		echo "make-carry: $f is a wrapper and has no .libs binary" >&2
		exit 1
	fi
done
cp tests/gpu/kernels.cu "$dest/"
if command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
	"${NVCC:-nvcc}" -ptx -arch=compute_80 -o "$dest/kernels.ptx" tests/gpu/kernels.cu
fi
# Libraries outside glibc, the compiler's runtime and the GPU runtime.
for f in "$dest"/bin/*; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
	case "$(basename "$lib")" in
	libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux* | \
	libgcc_s.so* | libstdc++.so* | libcuda.so* | libcudart.so* | libamdhip64.so*) ;;
	*) cp -L "$lib" "$dest/lib/" ;;
	esac
done
du -sh "$dest"
ls -l "$dest/bin" "$dest/lib"
