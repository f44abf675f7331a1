// torch_raise.cc - a refused allocation of libhipcore-torch.so in raise mode
// reaches a C++ caller as std::runtime_error, as PyTorch's allocator would
// see it: over the memory fraction, then out of range devices.  Exit 0 when
// every case threw (or did not) as it should.
#include <cstdio>
#include <cstring>
#include <stdexcept>

extern "C" {
#include "tests/torch_plugin.h"
}

static int failures;

static void expect_throw(struct torch_plugin *p, ssize_t size, int device, const char *needle)
{
	try {
		void *ptr = p->alloc(size, device, (void *)0x10);
		std::printf("FAIL: %zd bytes on device %d returned %p instead of throwing\n", size,
			    device, ptr);
		failures++;
	} catch (const std::runtime_error &e) {
		if (!std::strstr(e.what(), needle)) {
			std::printf("FAIL: message '%s' lacks '%s'\n", e.what(), needle);
			failures++;
		} else {
			std::printf("ok: %s\n", e.what());
		}
	}
}

int main()
{
	struct torch_plugin p;
	struct hipcore_torch_stats s = {};
	int (*set_raise)(int);

	setenv("HIPCORE_TORCH_BACKEND", "sim", 1);
	if (torch_plugin_load(&p) != 0)
		return 1;
	*(void **)&set_raise = dlsym(p.so, "hipcore_torch_set_raise");
	if (!set_raise || set_raise(1) != 0)
		return 1;
	void *small = p.alloc(4096, 0, (void *)0x10);
	if (!small)
		return 1;
	s.struct_size = sizeof(s);
	p.stats(0, &s);
	p.set_memory_fraction((double)(64 << 20) / (double)s.total_memory, 0);
	expect_throw(&p, (ssize_t)256 << 20, 0, "device memory limit");
	expect_throw(&p, 16, 64, "out of range");
	set_raise(0);
	if (p.alloc((ssize_t)256 << 20, 0, (void *)0x10) != NULL) {
		std::printf("FAIL: NULL mode allocated past the cap\n");
		failures++;
	}
	p.free(small, 4096, 0, (void *)0x10);
	p.shutdown();
	std::printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
