#!/bin/sh
# builtin-kernels.sh - the checked-in device code of the built-in kernels
# is what hal/hip/builtin_kernels.cu makes, and has what the HIP backend
# launches (hal/hip/hip_builtins.h).
#
# 1. the PTX and the AMD bundle record this source's SHA-256, and the
#    bundle is the one its record names (scripts/gen-builtin-kernels --check);
# 2. the PTX defines fill, copy and add, each with six .u64 parameters, for
#    an ISA a CUDA 11 driver takes (.version 7.0, .target sm_80);
# 3. the bundle holds a code object per target it lists, each defining the
#    three kernels (their ".kd" descriptors);
# 4. with nvcc here, the PTX this nvcc makes from the source is the one
#    checked in (the comment lines aside), when it is the nvcc recorded.
set -u
srcdir=${top_srcdir:-.}
ptx="$srcdir/hal/hip/builtin_kernels.ptx"
co="$srcdir/hal/hip/builtin_kernels.amdgcn"
fail=0
bad() { echo "builtin-kernels.sh: $*"; fail=1; }

sh "$srcdir/scripts/gen-builtin-kernels" --check "$srcdir" || fail=1

grep -q '^\.version 7\.0$' "$ptx" || bad "PTX: .version is not 7.0"
grep -q '^\.target sm_80$' "$ptx" || bad "PTX: .target is not sm_80"
for k in fill copy add; do
	n=$(awk -v k="$k" '$0 ~ "^\\.visible \\.entry " k "\\(" { on = 1; next }
		on && /\)/ { on = 0 } on && /\.param \.u64/ { n++ } END { print n + 0 }' "$ptx")
	[ "$n" -eq 6 ] || bad "PTX: entry $k has $n .u64 parameters, not 6"
done

targets=$(sed -n 's/^Command: //p' "$srcdir/hal/hip/builtin_kernels.amdgcn.txt" |
	tr ' ' '\n' | sed -n 's/^--offload-arch=//p')
[ -n "$targets" ] || bad "AMD bundle: no targets recorded"
for t in $targets; do
	grep -aq "hipv4-amdgcn-amd-amdhsa--$t" "$co" || bad "AMD bundle: no code object for $t"
done
for k in fill copy add; do
	n=$(grep -ao "$k\.kd" "$co" | wc -l)
	# each code object names its descriptor in .dynstr and .strtab
	[ "$n" -ge "$(echo "$targets" | wc -w)" ] || bad "AMD bundle: $k.kd appears $n times"
done

if command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
	want=$(sed -n 's|^// \(Cuda compilation tools.*\)$|\1|p' "$ptx" | head -n 1)
	have=$("${NVCC:-nvcc}" --version | tail -n 2 | head -n 1)
	if [ "$want" = "$have" ]; then
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/hc-bk.XXXXXX")
		mkdir -p "$tmp/hal/hip"
		cp "$srcdir/hal/hip/builtin_kernels.cu" "$tmp/hal/hip/"
		if sh "$srcdir/scripts/gen-builtin-kernels" --ptx "$tmp" >/dev/null; then
			grep -v '^//' "$tmp/hal/hip/builtin_kernels.ptx" >"$tmp/new"
			grep -v '^//' "$ptx" >"$tmp/old"
			cmp -s "$tmp/new" "$tmp/old" || bad "PTX: $have makes other PTX from the source"
		else
			bad "nvcc failed on the source"
		fi
		rm -rf "$tmp"
	else
		echo "builtin-kernels.sh: nvcc here is '$have', the PTX says '$want': not remade"
	fi
fi
[ $fail -eq 0 ] && echo "builtin-kernels.sh: ok"
exit $fail
