// kernels.cu - kernels for tests/gpu/check_hip_gpu.c and check_api_gpu.c,
// compiled to PTX by `nvcc -ptx` during `make check-gpu` (or by
// tests/gpu/run-on-device.sh on the GPU machine).
extern "C" __global__ void add_one(unsigned int *p, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += 1u;
}

// The public API's launch convention (include/hipcore/hipcore.h): one device
// pointer per binding, then a pointer to the info words.  info[0] = n,
// info[1] = the value added.  For tests/gpu/check_api_gpu.c.
extern "C" __global__ void api_add(const unsigned int *in, unsigned int *out,
				   const unsigned long long *info)
{
	unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;

	if (i < info[0])
		out[i] = in[i] + (unsigned int)info[1];
}

// In place: p[i] += info[1] for i < info[0].
extern "C" __global__ void api_inc(unsigned int *p, const unsigned long long *info)
{
	unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;

	if (i < info[0])
		p[i] += (unsigned int)info[1];
}
