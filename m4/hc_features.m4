dnl Optional features.  Each sets a summary variable printed by configure.ac.

dnl --- HIP headers (types and prototypes for hal/hip/; the runtime is dlopen()ed).
dnl --without-hip builds the simulator alone: hal/hip/ is not compiled, and
dnl the "hip" backend answers HC_ERR_NO_RUNTIME (hal/hip_none.c).
AC_ARG_WITH([hip],
  [AS_HELP_STRING([--without-hip], [the simulator backend only, without HIP headers])],
  [], [with_hip=yes])
AS_CASE([$with_hip], [yes|no], [], [AC_MSG_ERROR([--with-hip takes yes or no, not '$with_hip'])])
AC_ARG_WITH([hip-include],
  [AS_HELP_STRING([--with-hip-include=DIR], [HIP headers (default /usr/include)])],
  [HIP_CPPFLAGS="-I$withval"], [HIP_CPPFLAGS=""])
hc_hip_headers=no
AS_IF([test "x$with_hip" = xyes], [
  save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $HIP_CPPFLAGS -D__HIP_PLATFORM_AMD__"
  AC_CHECK_HEADER([hip/hip_runtime_api.h], [hc_hip_headers=yes], [hc_hip_headers=no])
  CPPFLAGS=$save_CPPFLAGS
  AS_IF([test "x$hc_hip_headers" = xno],
    [AC_MSG_ERROR([HIP headers not found: install libamdhip64-dev, pass --with-hip-include=DIR, or configure --without-hip for the simulator alone])])
  AC_DEFINE([HIPCORE_WITH_HIP], [1], [Define when the HIP backend is compiled in])
  hc_backends_summary="sim, hip (runtime bound at run time)"],
  [HIP_CPPFLAGS=""
   hc_hip_headers="not used (--without-hip)"
   hc_backends_summary="sim only (--without-hip: \"hip\" answers HC_ERR_NO_RUNTIME)"])
AM_CONDITIONAL([HIPCORE_HIP], [test "x$with_hip" = xyes])
AC_SUBST([HIP_CPPFLAGS])

dnl --- LTTng-UST
AC_ARG_WITH([lttng],
  [AS_HELP_STRING([--with-lttng@<:@=auto|yes|no@:>@], [LTTng-UST tracepoints (default auto)])],
  [], [with_lttng=auto])
have_lttng=no
AS_CASE([$with_lttng], [auto|yes|no], [], [AC_MSG_ERROR([--with-lttng takes auto, yes or no])])
AS_IF([test "x$with_lttng" != xno],
  [PKG_CHECK_MODULES([LTTNG_UST], [lttng-ust >= 2.13], [have_lttng=yes],
    [AS_IF([test "x$with_lttng" = xyes],
      [AC_MSG_ERROR([--with-lttng=yes but lttng-ust >= 2.13 was not found (install liblttng-ust-dev)])])])])
AS_IF([test "x$have_lttng" = xyes],
  [AC_DEFINE([HIPCORE_WITH_LTTNG], [1], [Define to compile the LTTng-UST call sites in])
   hc_lttng_summary="yes (provider module libhipcore-lttng.so)"],
  [hc_lttng_summary="no (call sites compiled out; --with-lttng=yes to require it)"])
AM_CONDITIONAL([HIPCORE_LTTNG], [test "x$have_lttng" = xyes])

dnl --- babeltrace2, for hipsim's CTF reader
AC_ARG_WITH([babeltrace2],
  [AS_HELP_STRING([--with-babeltrace2@<:@=auto|yes|no@:>@], [CTF trace reading in hipsim (default auto)])],
  [], [with_babeltrace2=auto])
have_bt2=no
AS_IF([test "x$with_babeltrace2" != xno],
  [PKG_CHECK_MODULES([BABELTRACE2], [babeltrace2 >= 2.0], [have_bt2=yes],
    [AS_IF([test "x$with_babeltrace2" = xyes],
      [AC_MSG_ERROR([babeltrace2 >= 2.0 not found (install libbabeltrace2-dev)])])])])
AS_IF([test "x$have_bt2" = xyes],
  [AC_DEFINE([HIPCORE_WITH_BABELTRACE2], [1], [Define when hipsim can read CTF traces])
   hc_bt2_summary=yes], [hc_bt2_summary="no (--with-babeltrace2=yes to require it)"])
AM_CONDITIONAL([HIPCORE_BT2], [test "x$have_bt2" = xyes])

dnl --- make check's rendering of hipsim's SVG plots: rsvg-convert draws them,
dnl tests/png_probe (libpng) reads the pixels back.  Without either the test
dnl skips (tests/hipsim-outputs.sh).
PKG_CHECK_MODULES([LIBPNG], [libpng >= 1.6], [have_libpng=yes], [have_libpng=no])
AM_CONDITIONAL([HAVE_LIBPNG], [test "x$have_libpng" = xyes])
AC_PATH_PROG([RSVG_CONVERT], [rsvg-convert], [])
AS_IF([test "x$have_libpng" = xyes && test -n "$RSVG_CONVERT"],
  [hc_svg_render_summary=yes],
  [hc_svg_render_summary="no (install librsvg2-bin and libpng-dev)"])
