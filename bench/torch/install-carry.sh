# install-carry.sh - sourced (`. bench/torch/install-carry.sh`) by the
# scripts that run ON the GPU machine from what bench/torch/make-carry.sh
# gathered in $carry (run-gpu.sh, tests/gpu/sim-on-device.sh): copies the
# install tree to /opt/hipcore, the prefix it was built for, and unpacks
# the Debian packages the machine lacks into /opt/carry, once.  Sets C and
# L: the packages' root and their library directory.  Exits 2 when $carry
# has no install tree.
test -d "$carry/root/opt/hipcore" ||
	{ echo "${0##*/}: no $carry/root (run bench/torch/make-carry.sh here)" >&2; exit 2; }
rm -rf /opt/hipcore && cp -a "$carry/root/opt/hipcore" /opt/hipcore
if ! test -x /opt/carry/usr/bin/lttng; then
	for f in "$carry"/debs/*.deb; do dpkg -x "$f" /opt/carry; done
fi
C=/opt/carry L=/opt/carry/usr/lib/x86_64-linux-gnu
