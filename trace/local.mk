# trace/: see Makefile.am
