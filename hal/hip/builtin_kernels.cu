// builtin_kernels.cu - the built-in kernels (fill, copy, add) as device
// code, for the HIP backend's module_load with image NULL.  Their semantics
// are hal/builtins.h's, which the simulator applies on host memory; a
// change here is a change there.
//
// Plain CUDA/HIP C++: nvcc makes the PTX for NVIDIA, clang (-x hip, no HIP
// headers needed) the AMD code objects; scripts/gen-builtin-kernels runs
// both and says how (the generated files record the command and this
// file's hash, and the build embeds them: hal/hip/hip_builtins.c).
//
// Launch convention (hal/hip/hip_builtins.c packs it): six 64-bit
// parameters, the device addresses of the kernel's first three parameters
// and the sizes of the ranges bound to them; unused ones are 0.  The
// caller's grid and block are kept: every kernel is a grid-stride loop, so
// any grid covers its range.  Each takes a fast path on 16-byte aligned
// addresses and sizes that are whole vectors, and works byte by byte (or
// element by element) otherwise.

typedef unsigned long long u64;
typedef unsigned int u32;

#if defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDACC__)
// clang -x hip without the HIP headers: its own spellings.
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
static __device__ inline u64 hc_thread(void)
{
	return (u64)__builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
	       __builtin_amdgcn_workitem_id_x();
}
static __device__ inline u64 hc_threads(void)
{
	return __builtin_amdgcn_grid_size_x(); // work-items, not groups
}
static __device__ inline bool hc_first_block(void)
{
	return __builtin_amdgcn_workgroup_id_x() == 0;
}
static __device__ inline u64 hc_lane(void)
{
	return __builtin_amdgcn_workitem_id_x();
}
static __device__ inline u64 hc_lanes(void)
{
	return __builtin_amdgcn_workgroup_size_x();
}
static __device__ inline void hc_barrier(void) // what HIP's __syncthreads is
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
	__builtin_amdgcn_s_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
struct hc_u32x4 {
	u32 x, y, z, w;
} __attribute__((aligned(16)));
#else
static __device__ inline u64 hc_thread(void)
{
	return (u64)blockIdx.x * blockDim.x + threadIdx.x;
}
static __device__ inline u64 hc_threads(void)
{
	return (u64)gridDim.x * blockDim.x;
}
static __device__ inline bool hc_first_block(void)
{
	return blockIdx.x == 0;
}
static __device__ inline u64 hc_lane(void)
{
	return threadIdx.x;
}
static __device__ inline u64 hc_lanes(void)
{
	return blockDim.x;
}
static __device__ inline void hc_barrier(void)
{
	__syncthreads();
}
typedef uint4 hc_u32x4;
#endif

static __device__ inline bool hc_aligned16(u64 a)
{
	return (a & 15) == 0;
}

// fill(dst, info): byte i of dst is byte i % 4 of the value (width 4) or
// its low byte (width 1); any other width writes nothing (the simulator
// fails the stream instead: a kernel has no way to say so).
extern "C" __global__ void fill(u64 dst, u64 info, u64, u64 n, u64 info_bytes, u64)
{
	const unsigned char *ip = (const unsigned char *)info;
	u32 value = ip[0] | (u32)ip[1] << 8 | (u32)ip[2] << 16 | (u32)ip[3] << 24;
	u32 width = 4;
	u64 i = hc_thread(), step = hc_threads();
	unsigned char *d = (unsigned char *)dst;

	if (info_bytes >= 8)
		width = ip[4] | (u32)ip[5] << 8 | (u32)ip[6] << 16 | (u32)ip[7] << 24;
	if (width == 1)
		value = (value & 0xffu) * 0x01010101u;
	else if (width != 4)
		return;
	if (hc_aligned16(dst)) { // whole vectors, then the tail byte by byte
		hc_u32x4 v;
		u64 nv = n / 16;

		v.x = v.y = v.z = v.w = value;
		for (u64 k = i; k < nv; k += step)
			((hc_u32x4 *)dst)[k] = v;
		for (u64 k = nv * 16 + i; k < n; k += step)
			d[k] = (unsigned char)(value >> (8 * (k % 4)));
		return;
	}
	for (u64 k = i; k < n; k += step)
		d[k] = (unsigned char)(value >> (8 * (k % 4)));
}

// copy(src, dst): n = dst's size.  Ranges that overlap are copied by the
// first block alone, in chunks of its threads, in the direction memmove
// would take (a barrier between chunks), so every byte is read before it is
// overwritten; other blocks return at once.
extern "C" __global__ void copy(u64 src, u64 dst, u64, u64, u64 n, u64)
{
	const unsigned char *s = (const unsigned char *)src;
	unsigned char *d = (unsigned char *)dst;
	u64 i = hc_thread(), step = hc_threads();

	if (src < dst + n && dst < src + n && src != dst) {
		u64 lanes = hc_lanes(), lane = hc_lane();

		if (!hc_first_block())
			return;
		for (u64 base = 0; base < n; base += lanes) {
			// forward when dst is below src, else from the end
			u64 k = dst < src ? base + lane : n - 1 - (base + lane);
			unsigned char c = 0;
			bool mine = base + lane < n;

			if (mine)
				c = s[k];
			hc_barrier();
			if (mine)
				d[k] = c;
			hc_barrier();
		}
		return;
	}
	if (src == dst)
		return;
	if (hc_aligned16(src) && hc_aligned16(dst)) {
		u64 nv = n / 16;

		for (u64 k = i; k < nv; k += step)
			((hc_u32x4 *)dst)[k] = ((const hc_u32x4 *)src)[k];
		for (u64 k = nv * 16 + i; k < n; k += step)
			d[k] = s[k];
		return;
	}
	for (u64 k = i; k < n; k += step)
		d[k] = s[k];
}

static __device__ inline u32 hc_load32(const unsigned char *p)
{
	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static __device__ inline void hc_store32(unsigned char *p, u32 v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

// add(a, b, out): out[k] = a[k] + b[k] on uint32, k < out's size / 4.
// out may be a or b itself (each element is read before it is written by
// the same thread); other overlaps give what the threads' order gives.
extern "C" __global__ void add(u64 a, u64 b, u64 out, u64, u64, u64 out_bytes)
{
	u64 n = out_bytes / 4, i = hc_thread(), step = hc_threads();

	if (hc_aligned16(a) && hc_aligned16(b) && hc_aligned16(out)) {
		u64 nv = n / 4;

		for (u64 k = i; k < nv; k += step) {
			hc_u32x4 x = ((const hc_u32x4 *)a)[k], y = ((const hc_u32x4 *)b)[k], z;

			z.x = x.x + y.x;
			z.y = x.y + y.y;
			z.z = x.z + y.z;
			z.w = x.w + y.w;
			((hc_u32x4 *)out)[k] = z;
		}
		for (u64 k = nv * 4 + i; k < n; k += step)
			((u32 *)out)[k] = ((const u32 *)a)[k] + ((const u32 *)b)[k];
		return;
	}
	for (u64 k = i; k < n; k += step)
		hc_store32((unsigned char *)out + 4 * k,
			   hc_load32((const unsigned char *)a + 4 * k) +
				   hc_load32((const unsigned char *)b + 4 * k));
}
