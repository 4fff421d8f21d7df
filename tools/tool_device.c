/* tool_device.c - the CUDA device of the benchmark subcommands (see tool_device.h). */
#include "tool_device.h"

#include <stdio.h>
#include <string.h>

int zipfft_tool_cu_ok(zipfft_tool_device *d, CUresult result, const char *what) {
  if (result == 0) return 1;
  printf("%s: %s failed: %s\n", d->tool, what, zipfft__cuda_error_text(result));
  d->failed = 1;
  return 0;
}

/* Prints the no-device message and returns ZIPFFT_TOOL_NO_DEVICE. */
static int report_no_device(const zipfft_tool_device *d, const char *reason) {
  printf("%s: no CUDA device (%s)\n", d->tool, reason);
  return ZIPFFT_TOOL_NO_DEVICE;
}

/* Reads the device's name, driver version and architecture. Returns 1 on success. */
static int read_device_info(zipfft_tool_device *d) {
  int major = 0, minor = 0;
  if (!zipfft_tool_cu_ok(d, d->cu->cuDeviceGetName(d->name, (int)sizeof d->name, d->device),
                         "cuDeviceGetName") ||
      !zipfft_tool_cu_ok(d, d->cu->cuDriverGetVersion(&d->driver_version), "cuDriverGetVersion") ||
      !zipfft_tool_cu_ok(d, d->cu->cuDeviceGetAttribute(&major, ZIPFFT_CU_ATTR_CC_MAJOR, d->device),
                         "cuDeviceGetAttribute (major)") ||
      !zipfft_tool_cu_ok(d, d->cu->cuDeviceGetAttribute(&minor, ZIPFFT_CU_ATTR_CC_MINOR, d->device),
                         "cuDeviceGetAttribute (minor)"))
    return 0;
  snprintf(d->arch, sizeof d->arch, "sm_%d%d", major, minor);
  return 1;
}

int zipfft_tool_device_open(zipfft_tool_device *d, const char *tool, int ordinal) {
  int count = 0;
  char reason[128];
  memset(d, 0, sizeof *d);
  d->tool = tool;
  d->ordinal = ordinal;
  d->cu = zipfft__cuda_api_get();
  if (!d->cu)
    return report_no_device(d, "the CUDA driver libcuda.so.1 could not be loaded or initialised");
  if (d->cu->cuDeviceGetCount(&count) != 0 || count <= 0)
    return report_no_device(d, "the driver reports no device");
  if (ordinal >= count) {
    snprintf(reason, sizeof reason, "device %d requested, %d present", ordinal, count);
    return report_no_device(d, reason);
  }
  if (!zipfft_tool_cu_ok(d, d->cu->cuDeviceGet(&d->device, ordinal), "cuDeviceGet") ||
      !read_device_info(d) ||
      !zipfft_tool_cu_ok(d, d->cu->cuDevicePrimaryCtxRetain(&d->context, d->device),
                         "cuDevicePrimaryCtxRetain"))
    return ZIPFFT_TOOL_FAILED;
  d->context_retained = 1;
  if (!zipfft_tool_cu_ok(d, d->cu->cuCtxPushCurrent(d->context), "cuCtxPushCurrent"))
    return ZIPFFT_TOOL_FAILED;
  d->context_pushed = 1;
  return ZIPFFT_TOOL_OK;
}

void zipfft_tool_device_close(zipfft_tool_device *d) {
  CUcontext popped = NULL;
  if (d->context_pushed) zipfft_tool_cu_ok(d, d->cu->cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
  if (d->context_retained)
    zipfft_tool_cu_ok(d, d->cu->cuDevicePrimaryCtxRelease(d->device), "cuDevicePrimaryCtxRelease");
  d->context_pushed = d->context_retained = 0;
}
