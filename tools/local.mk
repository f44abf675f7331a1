# tools/: see Makefile.am
