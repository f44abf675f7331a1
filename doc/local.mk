# doc/: see Makefile.am
dist_man_MANS = doc/hipsim.1
