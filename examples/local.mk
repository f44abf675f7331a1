EXTRA_DIST += examples/service.c examples/Makefile
