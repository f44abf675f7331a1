#!/bin/sh
# tests/fuzz/replay_seeds.sh - writes fuzz_replay's seed corpus
# (tests/fuzz/corpus/replay/) from a CSV written here and the committed
# trace tests/data/ctf-small.  The first byte of each seed is fuzz_replay's
# mode byte (fuzz_replay.c): 0 a file, 1 CTF stream bytes.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$src/tests/fuzz/corpus/replay
ch0=$src/tests/data/ctf-small/ust/uid/0/64-bit/ch_0
mkdir -p "$out"
csv() {
	printf 'Thread,Time,Action,Pointer,Size,Stream\n'
	printf '1,10:00:00.000001,free,0x7f00,64,0x1\n'
	printf '1,10:00:00.000002,allocate,0x1000,4096,0x1\n'
	printf '2,10:00:00.000003,allocate,0x2000,1048576,0x2\n'
	printf '1,10:00:00.000004,allocate,0x1000,8192,0x1\n'
	printf '2,10:00:00.000005,allocate failure,(nil),99999999999999,0x2\n'
	printf '2,10:00:00.000006,free,0x2000,,0x2\n'
	printf '1,10:00:00.000007,free,0x1000,8192,0x1\n'
}
{ printf '\000'; csv; } >"$out/rmm_midrun"
{ printf '\002'; csv | gzip -n -9; } >"$out/rmm_gzip_strict"
# a CSV whose error quotes "SUMMARY: " (not a decoder child's report: there is none)
{ printf '\002'; csv | sed '2s/10:00:00.000001/1SUMMARY: x/'; } >"$out/rmm_summary_text"
{ printf '\001'; dd if="$ch0" bs=1 skip=96 2>/dev/null; } >"$out/ctf_small"
# the length 2 of the launch's binding_buffer (bindings 100 and 101), high byte 0x08
off=$(LC_ALL=C grep -obaP '\x02\x00\x00\x00\x64\x00\x00\x00\x00\x00\x00\x00\x65' "$out/ctf_small" | head -n 1 | cut -d: -f1)
cp "$out/ctf_small" "$out/ctf_flip"
printf '\010' | dd of="$out/ctf_flip" bs=1 seek=$((off + 3)) conv=notrunc 2>/dev/null
ls -l "$out"
