# profiles/: see Makefile.am
EXTRA_DIST += profiles/h200.profile
