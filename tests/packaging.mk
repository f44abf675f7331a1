# tests/packaging.mk: what a user of the installed package meets.
# static-link.sh links examples/service.c against libhipcore.a with the
# private libraries of hipcore.pc; installcheck (run by distcheck) runs the
# installed hipsim with an installed profile found by name.
TESTS += tests/static-link.sh
EXTRA_DIST += tests/static-link.sh
AM_TESTS_ENVIRONMENT += CC='$(CC)' CFLAGS='$(CFLAGS)' LDFLAGS='$(LDFLAGS)'; export CC CFLAGS LDFLAGS;

# Only for an install without DESTDIR: the profiles' directory is compiled
# into hipsim.
installcheck-local:
	@if test -n "$(DESTDIR)"; then echo "installcheck: skipped under DESTDIR"; exit 0; fi; \
	out=`$(bindir)/hipsim run --profile h100-calibrated --steps 3` || exit 1; \
	case "$$out" in *"H100"*"profile $(pkgdatadir)/profiles/h100-calibrated.profile"*) \
		echo "installcheck: hipsim found the installed profile h100-calibrated";; \
	*) echo "installcheck: hipsim --profile h100-calibrated: $$out"; exit 1;; esac
