# tools/: hipsim.
bin_PROGRAMS += tools/hipsim/hipsim
tools_hipsim_hipsim_SOURCES = \
	tools/hipsim/hipsim.h \
	tools/hipsim/main.c \
	tools/hipsim/driver.h \
	tools/hipsim/driver.c \
	tools/hipsim/report.c \
	tools/hipsim/run.c \
	tools/hipsim/workloads.h \
	tools/hipsim/workloads.c
tools_hipsim_hipsim_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tools_hipsim_hipsim_LDADD = libhipcore.la $(JANSSON_LIBS)
