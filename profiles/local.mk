# profiles/: see Makefile.am
EXTRA_DIST += profiles/h200.profile profiles/h200-calibrated.profile \
	profiles/h100-calibrated.profile
