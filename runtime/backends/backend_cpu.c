/* backend_cpu.c: the CPU backend: host memory, and attngen_fwd runs the fp32 reference of
 * docs/NUMERICS.md (numerics.h) on all cores. Always available; the fallback of "auto". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "status.h"
#include "numerics.h"

static int cpu_state_token;

static attngen_status cpu_open(int device, void **state, attngen_device_props *props) {
  if (device != 0)
    return attngen__fail(ATTNGEN_STATUS_NO_DEVICE, "cpu: device %d does not exist (allowed: 0)",
                         device);
  memset(props, 0, sizeof *props);
  snprintf(props->backend, sizeof props->backend, "cpu");
  snprintf(props->name, sizeof props->name, "host CPU (fp32 reference)");
  snprintf(props->arch, sizeof props->arch, "host");
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  props->compute_units = n > 0 ? (int)n : 1;
  props->device_count = 1;
  *state = &cpu_state_token;
  return ATTNGEN_STATUS_OK;
}

static void cpu_close(void *st) {}

static attngen_status cpu_reference(void *st, const attngen_fwd_args *a) {
  const attngen__ref_args r = attngen__ref_args_of_call(a);
  return attngen__reference_fwd(&r);
}

const attngen__backend_ops attngen__backend_cpu = {
  .name = "cpu",
  .kind = ATTNGEN__BACKEND_CPU,
  .target = -1,
  .open = cpu_open,
  .close = cpu_close,
  ATTNGEN__HOST_BACKEND_OPS,
  .module_load = NULL,
  .module_unload = NULL,
  .function = NULL,
  .launch = NULL,
  .reference = cpu_reference,
};
