# profiles/: simulator device profiles, installed in $(pkgdatadir)/profiles,
# where hipsim --profile NAME finds them (tools/hipsim/options.c).
profilesdir = $(pkgdatadir)/profiles
dist_profiles_DATA = profiles/h200.profile profiles/h200-calibrated.profile \
	profiles/h100-calibrated.profile
