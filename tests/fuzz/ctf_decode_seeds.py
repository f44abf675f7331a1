#!/usr/bin/env python3
# tests/fuzz/ctf_decode_seeds.py DIR - writes fuzz_ctf_decode's seed corpus
# (tests/fuzz/corpus/ctf_decode/) in the byte format described at the top of
# tests/fuzz/fuzz_ctf_decode.c.  The seeds are committed; this is how they
# were made, to read or change them.
import os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
def var(v):
    b = bytearray()
    while True:
        x = v & 0x7f; v >>= 7
        if v: b.append(x | 0x80)
        else: b.append(x); return bytes(b)
def svar(v):
    return var((v << 1) ^ (v >> 63) if v >= 0 else ((-v - 1) << 1) | 1)
U = lambda bits=64: bytes([0, bits - 1])
S = lambda bits=64: bytes([4, bits - 1])
UE = lambda bits=64: bytes([6, bits - 1])
SE = lambda bits=64: bytes([7, bits - 1])
B = bytes([8]); STR = bytes([9]); REAL = bytes([10, 0])
def SA(n, el): return bytes([11, n]) + el
def DA(el): return bytes([12]) + el
def ST(*members): return bytes([13, len(members)]) + b''.join(bytes([m]) + t for m, t in members)
def OPT(el): return bytes([15]) + el
def payload(*members): return bytes([1, len(members)]) + b''.join(bytes([m]) + t for m, t in members)
NOPAY = bytes([0])
M = dict(stream_id=0, stream=1, buffer_id=2, buffer=3, size=4, bytes=5, offset=6, property=7,
         duration_ns=8, duration=9, info_words=10, info_size=11, graph_id=12, graph=13, status=14,
         ordinal=15, device=16, backend=17, bindings=18, binding_buffer=19, binding_offset=20,
         binding_size=21, binding_access=22, kind=23, key=24, access=25, x=28, empty=30)
E = dict(stream_open=0, alloc=1, free=2, write=3, read=4, launch=5, sync=6, graph_prepare=7,
         graph_begin=8, graph_end=9, graph_replay=10, graph_destroy=11, alloc_failure=12, cache=13,
         kernel_time=14, device_open=15, unknown=18, noprovider=20, empty=23, noname=24)
def header(flags, classes, clock=b''):
    h = bytes([flags]) + clock + bytes([len(classes) - 1])
    for name, pay in classes:
        h += bytes([E[name]]) + pay
    return h
def ev(cls, *vals, stream=None, dt=None):
    b = bytes([cls])
    if stream is not None: b += bytes([stream])
    if dt is not None: b += var(dt)
    return b + b''.join(vals)

seeds = {}
# 1: a clock, stream_open/alloc/write/launch with an array of binding structures
# (3 bindings, then 70: more than HS_REV_MAX_BINDINGS, a reader error).
clock = bytes([0]) + svar(1700000000) + var(5)
cls = [('stream_open', payload((M['stream_id'], U()), (M['device'], U()))),
       ('alloc', payload((M['stream_id'], U()), (M['buffer_id'], U()), (M['size'], U()), (M['status'], S(32)))),
       ('write', payload((M['stream_id'], U()), (M['buffer_id'], U()), (M['offset'], U()), (M['size'], U()), (M['property'], U(32)))),
       ('launch', payload((M['stream_id'], U()), (M['duration_ns'], U()), (M['info_words'], U(32)),
                          (M['bindings'], DA(ST((M['buffer_id'], U()), (M['offset'], U()), (M['size'], U()), (M['access'], U(8)))))))]
bind = lambda n: var(n) + b''.join(var(10 + i) + var(0) + var(4096) + var(3) for i in range(n))
s = header(0x01, cls, clock)
s += ev(0, var(7), var(1), dt=100)
s += ev(1, var(7), var(10), var(4096), svar(0), dt=10)
s += ev(1, var(7), var(11), var(1 << 40), svar(-2), dt=10)
s += ev(2, var(7), var(10), var(0), var(4096), var(1), dt=10)
s += ev(3, var(7), var(5000), var(2), bind(3), dt=10)
s += ev(3, var(8), var(5000), var(2), bind(70), dt=10)
seeds['launch_bindings'] = s

# 2: no clock, two streams, parallel binding arrays (static and dynamic),
# plain-id binding array, a cache event, graph events, discarded events.
cls = [('launch', payload((M['stream'], U()), (M['binding_buffer'], DA(U())), (M['binding_offset'], SA(2, U(16))),
                          (M['binding_size'], DA(S())), (M['binding_access'], DA(B)))),
       ('cache', payload((M['stream_id'], U()), (M['kind'], UE(8)), (M['key'], U()))),
       ('launch', payload((M['stream_id'], S()), (M['bindings'], SA(2, U())))),
       ('graph_end', payload((M['stream_id'], U()), (M['graph_id'], U()))),
       ('graph_replay', payload((M['stream_id'], U()), (M['graph'], S(16)))),
       ('free', payload((M['buffer'], U()), (M['bytes'], U())))]
s = header(0x18, cls)
s += ev(1, var(3), var(1), var(0xabc), stream=0)
s += ev(0, var(3), var(2) + var(1) + var(2), var(0) + var(64), var(2) + svar(8) + svar(-1), var(2) + b'\x01\x00', stream=0)
s += ev(2, svar(4), var(5) + var(6), stream=1)
s += b'\xfe' + bytes([1]) + var(12)
s += ev(3, var(4), var(99), stream=1)
s += ev(4, var(4), svar(99), stream=1)
s += ev(5, var(5), var(4096), stream=0)
seeds['parallel_arrays'] = s

# 3: kernel times: a device_open on another backend, then launches whose
# durations come from hipcore:kernel_time (the first pass runs).
cls = [('device_open', payload((M['device'], U()), (M['backend'], U(8)))),
       ('stream_open', payload((M['stream_id'], U()), (M['device'], U()))),
       ('launch', payload((M['stream_id'], U()), (M['status'], S(32)), (M['duration_ns'], U()))),
       ('kernel_time', payload((M['ordinal'], U()), (M['duration_ns'], U())))]
s = header(0x07, cls, bytes([0]) + svar(0) + var(0))
s += ev(0, var(0x10), var(2), dt=1)
s += ev(1, var(1), var(0x10), dt=1)
s += ev(2, var(1), svar(0), var(111), dt=1)
s += ev(2, var(1), svar(0), var(222), dt=1)
s += ev(3, var(1), var(5555), dt=1)
s += ev(3, var(2), var(6666), dt=1)
seeds['kernel_time'] = s

# 3b: the same on the simulator backend (no first pass needed).
seeds['kernel_time_sim'] = header(0x07, cls, bytes([0]) + svar(0) + var(0)) + \
    ev(0, var(0x10), var(1), dt=1) + ev(1, var(1), var(0x10), dt=1) + ev(2, var(1), svar(0), var(111), dt=1)

# 4: other types and names: unknown and nameless classes, strings, reals,
# options, nested structures, enumerations, AGAIN, then the source fails.
cls = [('unknown', payload((M['x'], STR), (M['stream_id'], U()))),
       ('noname', NOPAY),
       ('alloc', payload((M['size'], OPT(U())), (M['stream_id'], REAL), (M['buffer_id'], ST((M['x'], U()))),
                         (M['empty'], SE(3)), (M['status'], B))),
       ('sync', payload((M['stream_id'], SE(5)), (M['duration'], S(64)))),
       ('launch', payload((M['bindings'], DA(DA(U(8)))), (M['stream_id'], U(1))))]
s = header(0x13, cls, bytes([1]) + svar(-5) + var(3))
s += ev(0, bytes([5]) + b'hello', var(1), stream=0, dt=1)
s += ev(1, stream=1, dt=2)
s += ev(2, b'\x01' + var(64), b'\x00' * 7 + b'\x40', var(9), svar(-4), b'\x01', stream=1, dt=0)
s += b'\xfd'
s += ev(3, svar(-16), svar(-1), stream=0, dt=1)
s += ev(4, var(2) + var(1) + var(7) + var(0), var(1), stream=1, dt=1)
s += b'\xff'
seeds['types_again_error'] = s

# 5: the clock passes int64 nanoseconds (a muxer error, not a crash).
cls = [('sync', payload((M['stream_id'], U()),))]
s = header(0x01, cls, bytes([1]) + svar(-5) + var(3))
s += ev(0, var(1), dt=10) + ev(0, var(1), dt=1 << 62) + ev(0, var(1), dt=1 << 62)
seeds['clock_overflow'] = s

# 6: regression (check_readers): the first pass for kernel times fails (the
# source fails after a launch on a stream of no simulated device); the
# reader must stay failed, not hand out the launch queued before it.
cls = [('launch', payload((M['stream_id'], U()), (M['status'], S(32))))]
seeds['regress-prescan-stays-failed'] = header(0x04, cls) + ev(0, var(1), svar(0)) + b'\xff'

for name, data in seeds.items():
    open(os.path.join(out, name), 'wb').write(data)
    print(name, len(data))
