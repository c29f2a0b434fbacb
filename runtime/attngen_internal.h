/* attngen_internal.h: the runtime's internal interface, the one header through which the
 * layers above the runtime (check/, cli/, tests/) reach what attngen.h does not offer: the
 * base (files, log, hash), the generator (variants, sources), the runtime's modules
 * (dispatch, JIT, cache, tuning database, backends, emulator, numerics). Lua's LUA_CORE idea:
 * it compiles only where ATTNGEN_INTERNAL is defined, which the build does for the targets
 * linked with attngen_internal (CMakeLists.txt); an application uses attngen.h alone. Files of
 * those layers include this header (or check/verify.h, which includes it), never a runtime
 * header by its own name: cmake/layers.cmake fails the build when one does. */
#ifndef ATTNGEN_INTERNAL_H
#define ATTNGEN_INTERNAL_H

#ifndef ATTNGEN_INTERNAL
#error "attngen_internal.h is attngen's internal interface: link the attngen_internal target"
#endif

#include "attngen.h"

/* base/ */
#include "fsutil.h"
#include "hash.h"
#include "log.h"

/* templates/common/ (the kernels' argument block, the bf16 rounding formulas, the job decode's divisions) */
#include "bf16_round.h"
#include "kargs.h"
#include "fastdiv.h"

/* generator/ */
#include "gen.h"
#include "variant.h"

/* runtime/ */
#include "api.h"
#include "axes.h"
#include "backend.h"
#include "cache.h"
#include "call_shape.h"
#include "dispatch.h"
#include "emu.h"
#include "emu_core.h"
#include "env.h"
#include "jit.h"
#include "jit_host.h"
#include "numerics.h"
#include "split_plan.h"
#include "status.h"
#include "tuning.h"
#include "tuning_db.h"

#endif /* ATTNGEN_INTERNAL_H */
