/* emu_fiber.h: minimal cooperative fibers for the emulator: one per work-item. On x86-64 a
 * hand-written switch saves only the callee-saved registers (a few ns per switch); other
 * architectures fall back to ucontext. */
#ifndef ATTNGEN_EMU_FIBER_H
#define ATTNGEN_EMU_FIBER_H

#include <stddef.h>
#if !defined(__x86_64__) || defined(ATTNGEN_EMU_UCONTEXT)
#include <ucontext.h>
#endif

typedef void (*attngen__fiber_entry)(void *arg);

/* A fiber; zero-initialized, it stands for the thread's own stack (the scheduler). The
 * stack bounds also feed AddressSanitizer's fiber annotations in ASan builds. */
typedef struct attngen__fiber {
#if defined(__x86_64__) && !defined(ATTNGEN_EMU_UCONTEXT)
  void *sp;
#else
  ucontext_t uc;
#endif
  attngen__fiber_entry entry;
  void *arg;
  void *stack_lo;
  size_t stack_size;
  void *asan_fake_stack;
} attngen__fiber;

/* Prepares f to run entry(arg) on the stack [stack, stack + size) at its first switch-in.
 * entry must never return (it switches away for good). */
void attngen__fiber_init(attngen__fiber *f, void *stack, size_t size, attngen__fiber_entry entry,
                         void *arg);
/* Saves the current context into from and resumes to. */
void attngen__fiber_switch(attngen__fiber *from, attngen__fiber *to);

#endif /* ATTNGEN_EMU_FIBER_H */
