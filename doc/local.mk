# doc/: see Makefile.am
