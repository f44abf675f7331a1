# profiles/: see Makefile.am
