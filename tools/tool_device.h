/* tool_device.h - the CUDA device a benchmark subcommand runs on: the driver, the device's
 * primary context made current, and driver calls checked with a message. */
#ifndef ZIPFFT_TOOL_TOOL_DEVICE_H
#define ZIPFFT_TOOL_TOOL_DEVICE_H

#include "backend/cuda_api.h"
#include "tool_common.h"

typedef struct zipfft_tool_device {
  const char *tool; /* prefix of every message */
  const zipfft__cuda_api *cu;
  int ordinal;
  CUdevice device;
  CUcontext context;
  int context_retained, context_pushed;
  char name[128], arch[16]; /* arch: "sm_90" */
  int driver_version;
  int failed; /* a driver call failed: later device work is skipped */
} zipfft_tool_device;

/* Returns 1 when result is CUDA_SUCCESS; otherwise prints "tool: what failed: reason",
 * marks the device as failed and returns 0. */
int zipfft_tool_cu_ok(zipfft_tool_device *d, CUresult result, const char *what);
/* Loads the driver, checks that device `ordinal` exists, reads its name, driver version and
 * architecture, retains its primary context and makes it current. Returns
 * ZIPFFT_TOOL_OK, ZIPFFT_TOOL_NO_DEVICE or ZIPFFT_TOOL_FAILED (messages
 * printed, prefixed by tool). *d is cleared first; zipfft_tool_device_close undoes whatever
 * was reached. */
int zipfft_tool_device_open(zipfft_tool_device *d, const char *tool, int ordinal);
/* Pops and releases the primary context taken by zipfft_tool_device_open. */
void zipfft_tool_device_close(zipfft_tool_device *d);

#endif
