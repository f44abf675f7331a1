// kernels.cu - kernels for tests/gpu/check_hip_gpu.c, compiled to PTX by
// `nvcc -ptx` during `make check-gpu`.
extern "C" __global__ void add_one(unsigned int *p, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += 1u;
}
