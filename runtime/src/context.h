/* context.h: the state behind an attngen_context, shared by the files of the public API
 * (api.c: contexts, planning, attngen_fwd; memory.c: memory, events, timing). */
#ifndef ATTNGEN_CONTEXT_H
#define ATTNGEN_CONTEXT_H

#include <pthread.h>

#include "attngen.h"
#include "backend.h"
#include "env.h"
#include "tuning.h"

struct kernel;     /* a variant loaded into the context (api.c) */
struct workspace;  /* split-partials workspace of one stream (api.c) */
struct plan_memo;  /* the last call's plan (api.c) */
struct described;  /* a variant described by name: descriptor and source (api.c) */

struct attngen_context {
  attngen__env env;            /* ATTNGEN_* as read at attngen_create */
  const attngen__backend_ops *be;
  void *bs;
  attngen_device_props props;
  int runs_target;             /* the device can run the backend's kernels */
  char target_problem[512];
  attngen__tuning_file *tuning;
  pthread_mutex_t mutex;       /* guards kernels, workspaces, memo and described */
  struct kernel *kernels;
  struct workspace *workspaces;
  struct workspace *retired;
  struct plan_memo *memo;      /* the last call's plan (see cached_plan), guarded by mutex */
  struct described *described; /* variants named outside the built-in set, guarded by mutex
                                  (entries live until attngen_destroy: plans point at them) */
};

#endif /* ATTNGEN_CONTEXT_H */
