# util/: the bottom layer, libc alone; core/, hal/, the backends and trace/
# may use it.  env.c: the one table of HIPCORE_* environment variables
# (util/env.h), compiled into the plug-in and the probe module too.
libhipcore_internal_la_SOURCES += \
	util/env.h \
	util/env.c
