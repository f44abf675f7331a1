# sim/: see Makefile.am
