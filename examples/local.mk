# examples/: see Makefile.am
