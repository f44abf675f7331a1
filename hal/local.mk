# hal/: see Makefile.am
