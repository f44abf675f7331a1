// raise.cc - the one C++ piece of the plug-in: a refused allocation becomes
// a C++ exception, which is how PyTorch learns of it.
//
// PyTorch 2.11's CUDAPluggableAllocator takes whatever alloc returns: a
// NULL for a non-empty tensor was accepted as a tensor at address 0
// (bench/torch/probe.py, cases memory_fraction and refused_alloc), and the
// first kernel on it would fault.  Its allocator interface is C++, and an
// exception thrown from the alloc function unwinds through PyTorch's
// allocator into its Python bindings, which raise it as a RuntimeError
// carrying the message.  hipcore_torch_alloc is C: it calls this with no
// lock held, and its object is built with unwind tables (-fexceptions), so
// the exception passes through its frame.
#include <stdexcept>

extern "C" __attribute__((visibility("hidden"))) void hipcore_torch_throw(const char *message)
{
	throw std::runtime_error(message);
}
