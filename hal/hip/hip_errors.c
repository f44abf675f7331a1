/*
 * hip_errors.c - the runtime's error codes, translated into hc_status.
 *
 * Three code spaces reach this backend: hipError_t (AMD), cudaError_t (the
 * CUDA runtime) and CUresult (the CUDA driver, for modules and launches on
 * NVIDIA).  Most numbers coincide, but not all (201 is hipErrorInvalidContext
 * and cudaErrorDeviceUninitialized; 500 hipErrorNotFound and
 * cudaErrorSymbolNotFound; 1052/1053 exist only in HIP), so each space has
 * its own explicit table.  The rule is the same in all three: out of memory
 * becomes HC_ERR_OOM (core answers it with cleanup-and-retry), capture order
 * violations (9xx) HC_ERR_STATE, "no driver / no device" HC_ERR_NO_RUNTIME,
 * everything else HC_ERR_DEVICE.  The runtime's own code and name travel in
 * the thread's error detail; the name comes from the runtime itself when it
 * can say, else from these tables.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

#include "hal/hip/hip_rt.h"

#define D HC_ERR_DEVICE
#define E_(sym, st) { (int)(sym), #sym, st }

const struct hip_err_entry hip_err_table_hip[] = {
	E_(hipSuccess, HC_OK),
	E_(hipErrorInvalidValue, D),
	E_(hipErrorOutOfMemory, HC_ERR_OOM),
	E_(hipErrorNotInitialized, D),
	E_(hipErrorDeinitialized, D),
	E_(hipErrorProfilerDisabled, D),
	E_(hipErrorProfilerNotInitialized, D),
	E_(hipErrorProfilerAlreadyStarted, D),
	E_(hipErrorProfilerAlreadyStopped, D),
	E_(hipErrorInvalidConfiguration, D),
	E_(hipErrorInvalidPitchValue, D),
	E_(hipErrorInvalidSymbol, D),
	E_(hipErrorInvalidDevicePointer, D),
	E_(hipErrorInvalidMemcpyDirection, D),
	E_(hipErrorInsufficientDriver, HC_ERR_NO_RUNTIME),
	E_(hipErrorMissingConfiguration, D),
	E_(hipErrorPriorLaunchFailure, D),
	E_(hipErrorInvalidDeviceFunction, D),
	E_(hipErrorNoDevice, HC_ERR_NO_RUNTIME),
	E_(hipErrorInvalidDevice, D),
	E_(hipErrorInvalidImage, D),
	E_(hipErrorInvalidContext, D),
	E_(hipErrorContextAlreadyCurrent, D),
	E_(hipErrorMapFailed, D),
	E_(hipErrorUnmapFailed, D),
	E_(hipErrorArrayIsMapped, D),
	E_(hipErrorAlreadyMapped, D),
	E_(hipErrorNoBinaryForGpu, D),
	E_(hipErrorAlreadyAcquired, D),
	E_(hipErrorNotMapped, D),
	E_(hipErrorNotMappedAsArray, D),
	E_(hipErrorNotMappedAsPointer, D),
	E_(hipErrorECCNotCorrectable, D),
	E_(hipErrorUnsupportedLimit, D),
	E_(hipErrorContextAlreadyInUse, D),
	E_(hipErrorPeerAccessUnsupported, D),
	E_(hipErrorInvalidKernelFile, D),
	E_(hipErrorInvalidGraphicsContext, D),
	E_(hipErrorInvalidSource, D),
	E_(hipErrorFileNotFound, D),
	E_(hipErrorSharedObjectSymbolNotFound, D),
	E_(hipErrorSharedObjectInitFailed, D),
	E_(hipErrorOperatingSystem, D),
	E_(hipErrorInvalidHandle, D),
	E_(hipErrorIllegalState, D),
	E_(hipErrorNotFound, D),
	E_(hipErrorNotReady, D),
	E_(hipErrorIllegalAddress, D),
	E_(hipErrorLaunchOutOfResources, D),
	E_(hipErrorLaunchTimeOut, D),
	E_(hipErrorPeerAccessAlreadyEnabled, D),
	E_(hipErrorPeerAccessNotEnabled, D),
	E_(hipErrorSetOnActiveProcess, D),
	E_(hipErrorContextIsDestroyed, D),
	E_(hipErrorAssert, D),
	E_(hipErrorHostMemoryAlreadyRegistered, D),
	E_(hipErrorHostMemoryNotRegistered, D),
	E_(hipErrorLaunchFailure, D),
	E_(hipErrorCooperativeLaunchTooLarge, D),
	E_(hipErrorNotSupported, D),
	E_(hipErrorStreamCaptureUnsupported, HC_ERR_STATE),
	E_(hipErrorStreamCaptureInvalidated, HC_ERR_STATE),
	E_(hipErrorStreamCaptureMerge, HC_ERR_STATE),
	E_(hipErrorStreamCaptureUnmatched, HC_ERR_STATE),
	E_(hipErrorStreamCaptureUnjoined, HC_ERR_STATE),
	E_(hipErrorStreamCaptureIsolation, HC_ERR_STATE),
	E_(hipErrorStreamCaptureImplicit, HC_ERR_STATE),
	E_(hipErrorCapturedEvent, HC_ERR_STATE),
	E_(hipErrorStreamCaptureWrongThread, HC_ERR_STATE),
	E_(hipErrorGraphExecUpdateFailure, D),
	E_(hipErrorUnknown, D),
	E_(hipErrorRuntimeMemory, D),
	E_(hipErrorRuntimeOther, D),
	{ 0, NULL, HC_OK },
};
#undef E_

/* CUDA's enums are not available here (no CUDA headers at build time), so
 * the values are written out; they are CUDA 12/13's. */
#define C_(code, name, st) { code, name, st }

const struct hip_err_entry hip_err_table_cudart[] = {
	C_(0, "cudaSuccess", HC_OK),
	C_(1, "cudaErrorInvalidValue", D),
	C_(2, "cudaErrorMemoryAllocation", HC_ERR_OOM),
	C_(3, "cudaErrorInitializationError", D),
	C_(4, "cudaErrorCudartUnloading", D),
	C_(5, "cudaErrorProfilerDisabled", D),
	C_(9, "cudaErrorInvalidConfiguration", D),
	C_(12, "cudaErrorInvalidPitchValue", D),
	C_(13, "cudaErrorInvalidSymbol", D),
	C_(16, "cudaErrorInvalidHostPointer", D),
	C_(17, "cudaErrorInvalidDevicePointer", D),
	C_(18, "cudaErrorInvalidTexture", D),
	C_(21, "cudaErrorInvalidMemcpyDirection", D),
	C_(35, "cudaErrorInsufficientDriver", HC_ERR_NO_RUNTIME),
	C_(36, "cudaErrorCallRequiresNewerDriver", HC_ERR_NO_RUNTIME),
	C_(46, "cudaErrorDevicesUnavailable", D),
	C_(52, "cudaErrorMissingConfiguration", D),
	C_(98, "cudaErrorInvalidDeviceFunction", D),
	C_(100, "cudaErrorNoDevice", HC_ERR_NO_RUNTIME),
	C_(101, "cudaErrorInvalidDevice", D),
	C_(200, "cudaErrorInvalidKernelImage", D),
	C_(201, "cudaErrorDeviceUninitialized", D),
	C_(209, "cudaErrorNoKernelImageForDevice", D),
	C_(214, "cudaErrorECCUncorrectable", D),
	C_(218, "cudaErrorInvalidPtx", D),
	C_(222, "cudaErrorUnsupportedPtxVersion", D),
	C_(300, "cudaErrorInvalidSource", D),
	C_(301, "cudaErrorFileNotFound", D),
	C_(400, "cudaErrorInvalidResourceHandle", D),
	C_(401, "cudaErrorIllegalState", D),
	C_(500, "cudaErrorSymbolNotFound", D),
	C_(600, "cudaErrorNotReady", D),
	C_(700, "cudaErrorIllegalAddress", D),
	C_(701, "cudaErrorLaunchOutOfResources", D),
	C_(702, "cudaErrorLaunchTimeout", D),
	C_(709, "cudaErrorContextIsDestroyed", D),
	C_(710, "cudaErrorAssert", D),
	C_(712, "cudaErrorHostMemoryAlreadyRegistered", D),
	C_(713, "cudaErrorHostMemoryNotRegistered", D),
	C_(716, "cudaErrorMisalignedAddress", D),
	C_(719, "cudaErrorLaunchFailure", D),
	C_(720, "cudaErrorCooperativeLaunchTooLarge", D),
	C_(801, "cudaErrorNotSupported", D),
	C_(803, "cudaErrorSystemDriverMismatch", HC_ERR_NO_RUNTIME),
	C_(900, "cudaErrorStreamCaptureUnsupported", HC_ERR_STATE),
	C_(901, "cudaErrorStreamCaptureInvalidated", HC_ERR_STATE),
	C_(902, "cudaErrorStreamCaptureMerge", HC_ERR_STATE),
	C_(903, "cudaErrorStreamCaptureUnmatched", HC_ERR_STATE),
	C_(904, "cudaErrorStreamCaptureUnjoined", HC_ERR_STATE),
	C_(905, "cudaErrorStreamCaptureIsolation", HC_ERR_STATE),
	C_(906, "cudaErrorStreamCaptureImplicit", HC_ERR_STATE),
	C_(907, "cudaErrorCapturedEvent", HC_ERR_STATE),
	C_(908, "cudaErrorStreamCaptureWrongThread", HC_ERR_STATE),
	C_(999, "cudaErrorUnknown", D),
	{ 0, NULL, HC_OK },
};

const struct hip_err_entry hip_err_table_cudrv[] = {
	C_(0, "CUDA_SUCCESS", HC_OK),
	C_(1, "CUDA_ERROR_INVALID_VALUE", D),
	C_(2, "CUDA_ERROR_OUT_OF_MEMORY", HC_ERR_OOM),
	C_(3, "CUDA_ERROR_NOT_INITIALIZED", D),
	C_(4, "CUDA_ERROR_DEINITIALIZED", D),
	C_(34, "CUDA_ERROR_STUB_LIBRARY", HC_ERR_NO_RUNTIME),
	C_(46, "CUDA_ERROR_DEVICE_UNAVAILABLE", D),
	C_(100, "CUDA_ERROR_NO_DEVICE", HC_ERR_NO_RUNTIME),
	C_(101, "CUDA_ERROR_INVALID_DEVICE", D),
	C_(200, "CUDA_ERROR_INVALID_IMAGE", D),
	C_(201, "CUDA_ERROR_INVALID_CONTEXT", D),
	C_(209, "CUDA_ERROR_NO_BINARY_FOR_GPU", D),
	C_(214, "CUDA_ERROR_ECC_UNCORRECTABLE", D),
	C_(218, "CUDA_ERROR_INVALID_PTX", D),
	C_(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", D),
	C_(300, "CUDA_ERROR_INVALID_SOURCE", D),
	C_(301, "CUDA_ERROR_FILE_NOT_FOUND", D),
	C_(302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", D),
	C_(303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", D),
	C_(304, "CUDA_ERROR_OPERATING_SYSTEM", D),
	C_(400, "CUDA_ERROR_INVALID_HANDLE", D),
	C_(401, "CUDA_ERROR_ILLEGAL_STATE", D),
	C_(500, "CUDA_ERROR_NOT_FOUND", D),
	C_(600, "CUDA_ERROR_NOT_READY", D),
	C_(700, "CUDA_ERROR_ILLEGAL_ADDRESS", D),
	C_(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", D),
	C_(702, "CUDA_ERROR_LAUNCH_TIMEOUT", D),
	C_(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", D),
	C_(710, "CUDA_ERROR_ASSERT", D),
	C_(716, "CUDA_ERROR_MISALIGNED_ADDRESS", D),
	C_(718, "CUDA_ERROR_INVALID_PC", D),
	C_(719, "CUDA_ERROR_LAUNCH_FAILED", D),
	C_(800, "CUDA_ERROR_NOT_PERMITTED", D),
	C_(801, "CUDA_ERROR_NOT_SUPPORTED", D),
	C_(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", HC_ERR_STATE),
	C_(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", HC_ERR_STATE),
	C_(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", HC_ERR_STATE),
	C_(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", HC_ERR_STATE),
	C_(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", HC_ERR_STATE),
	C_(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", HC_ERR_STATE),
	C_(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", HC_ERR_STATE),
	C_(907, "CUDA_ERROR_CAPTURED_EVENT", HC_ERR_STATE),
	C_(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", HC_ERR_STATE),
	C_(999, "CUDA_ERROR_UNKNOWN", D),
	{ 0, NULL, HC_OK },
};
#undef C_
#undef D

static const struct hip_err_entry *table_of(enum hip_space space)
{
	switch (space) {
	case HIP_SPACE_HIP:
		return hip_err_table_hip;
	case HIP_SPACE_CUDART:
		return hip_err_table_cudart;
	case HIP_SPACE_CUDRV:
		return hip_err_table_cudrv;
	}
	return NULL;
}

const struct hip_err_entry *hip_err_lookup(enum hip_space space, int code)
{
	const struct hip_err_entry *e = table_of(space);

	for (; e && e->name; e++)
		if (e->code == code)
			return e;
	return NULL;
}

hc_status hip_err_status(enum hip_space space, int code)
{
	const struct hip_err_entry *e = hip_err_lookup(space, code);

	return e ? e->status : HC_ERR_DEVICE;
}

/* The runtime's own name for @code, when the runtime is bound and says. */
static const char *runtime_name(enum hip_space space, int code)
{
	const char *name = NULL;

	if (space == HIP_SPACE_CUDRV) {
		if (HIP_HAVE(DrvGetErrorName) && HIP_CALL(DrvGetErrorName)(code, &name) != 0)
			name = NULL;
		return name;
	}
	if (HIP_HAVE(GetErrorName))
		name = HIP_CALL(GetErrorName)(code);
	return name;
}

hc_status hip_err_fail(enum hip_space space, int code, const char *what)
{
	const struct hip_err_entry *e = hip_err_lookup(space, code);
	hc_status st = e ? e->status : HC_ERR_DEVICE;
	const char *name = runtime_name(space, code);
	char unknown[48];

	if (st == HC_OK) /* a success passed here is a caller bug; report it as such */
		st = HC_ERR_DEVICE;
	if (!name || !name[0])
		name = e ? e->name : NULL;
	if (!name) {
		snprintf(unknown, sizeof(unknown), "unknown error %d", code);
		name = unknown;
	}
	return hc_hal_error(st, code, name, "%s failed: %s (%d)%s", what, name, code,
			    e ? "" : " (code not in libhipcore's table)");
}
