# torch/: libhipcore as PyTorch's GPU allocator (include/hipcore/torch.h,
# doc/torch.md).  The plug-in is a module PyTorch dlopen()s by path; it
# links the public library only, and exports hipcore_torch_* alone.  It
# compiles in util/env.c (hidden), to read its variables from the one table.
pkglib_LTLIBRARIES += libhipcore-torch.la
libhipcore_torch_la_SOURCES = torch/hipcore_torch.c torch/ptrmap.c torch/ptrmap.h torch/raise.cc \
	util/env.c util/env.h
# hipcore_torch_alloc's frame must let torch/raise.cc's exception through.
libhipcore_torch_la_CFLAGS = $(AM_CFLAGS) -fexceptions
libhipcore_torch_la_CXXFLAGS = -fvisibility=hidden -Wall -Wextra
libhipcore_torch_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^hipcore_torch_'
libhipcore_torch_la_LIBADD = libhipcore.la
pkginclude_HEADERS += include/hipcore/torch.h

# hipcore_torch.py beside the plug-in: it finds the .so next to itself.
torchpydir = $(pkglibdir)
dist_torchpy_DATA = torch/hipcore_torch.py
dist_doc_DATA += doc/torch.md
