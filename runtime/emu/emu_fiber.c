/* emu_fiber.c: context switch for the emulator's work-item fibers (see emu_fiber.h). */
#include "emu_fiber.h"

#include <stdint.h>

#if defined(__SANITIZE_ADDRESS__)
#define ATTNGEN__FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNGEN__FIBER_ASAN 1
#endif
#endif

#ifdef ATTNGEN__FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
/* A stack slot reused for a new fiber may still carry the poisoned frames of a fiber that
 * never returned (a run stopped on a report): clear them, or ASan reports false overflows. */
static void asan_fresh_stack(void *stack, size_t size) { __asan_unpoison_memory_region(stack, size); }
/* Bounds of the stack that switched to the current fiber (for switching back to a fiber
 * whose bounds are unknown: the thread's own stack). */
static __thread const void *tl_prev_bottom;
static __thread size_t tl_prev_size;
static void asan_start(attngen__fiber *from, attngen__fiber *to) {
  const void *lo = to->stack_lo ? to->stack_lo : tl_prev_bottom;
  size_t size = to->stack_lo ? to->stack_size : tl_prev_size;
  __sanitizer_start_switch_fiber(&from->asan_fake_stack, lo, size);
}
static void asan_finish(attngen__fiber *self) {
  __sanitizer_finish_switch_fiber(self ? self->asan_fake_stack : 0, &tl_prev_bottom,
                                  &tl_prev_size);
}
#else
static void asan_start(attngen__fiber *from, attngen__fiber *to) {
  (void)from;
  (void)to;
}
static void asan_finish(attngen__fiber *self) { (void)self; }
static void asan_fresh_stack(void *stack, size_t size) {
  (void)stack;
  (void)size;
}
#endif

/* First code of every fiber: completes the sanitizer's switch, then runs the entry. */
static void fiber_main(attngen__fiber *f) {
  asan_finish(0);
  f->entry(f->arg);
}

#if defined(__x86_64__) && !defined(ATTNGEN_EMU_UCONTEXT)

/* attngen__fiber_swap(void **save_sp, void *new_sp): pushes the System V callee-saved
 * registers, MXCSR and the x87 control word, stores rsp, loads new_sp and pops the same. */
void attngen__fiber_swap(void **save_sp, void *new_sp);
void attngen__fiber_trampoline(void);
__asm__(".text\n"
        ".p2align 4\n"
        ".globl attngen__fiber_swap\n"
        ".hidden attngen__fiber_swap\n"
        ".type attngen__fiber_swap,@function\n"
        "attngen__fiber_swap:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size attngen__fiber_swap, .-attngen__fiber_swap\n"
        ".p2align 4\n"
        ".globl attngen__fiber_trampoline\n"
        ".hidden attngen__fiber_trampoline\n"
        ".type attngen__fiber_trampoline,@function\n"
        "attngen__fiber_trampoline:\n"
        "  movq %r13, %rdi\n"
        "  callq *%r12\n"
        "  ud2\n"
        ".size attngen__fiber_trampoline, .-attngen__fiber_trampoline\n");

void attngen__fiber_init(attngen__fiber *f, void *stack, size_t size, attngen__fiber_entry entry,
                         void *arg) {
  asan_fresh_stack(stack, size);
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *slot = (uint64_t *)(top - 24); /* return address; rsp = top - 16 after ret */
  uint32_t mxcsr;
  uint16_t fpucw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpucw));
  slot[0] = (uint64_t)(uintptr_t)attngen__fiber_trampoline;
  slot[-1] = 0;                       /* rbp */
  slot[-2] = 0;                       /* rbx */
  f->entry = entry;
  f->arg = arg;
  f->stack_lo = stack;
  f->stack_size = size;
  f->asan_fake_stack = 0;
  slot[-3] = (uint64_t)(uintptr_t)fiber_main; /* r12 */
  slot[-4] = (uint64_t)(uintptr_t)f;          /* r13 */
  slot[-5] = 0;                       /* r14 */
  slot[-6] = 0;                       /* r15 */
  slot[-7] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
  f->sp = &slot[-7];
}

void attngen__fiber_switch(attngen__fiber *from, attngen__fiber *to) {
  asan_start(from, to);
  attngen__fiber_swap(&from->sp, to->sp);
  asan_finish(from);
}

#else

/* makecontext passes int arguments only: the fiber pointer travels in two halves. */
static void fiber_start(unsigned lo, unsigned hi) {
  uint64_t p = ((uint64_t)hi << 32) | lo;
  fiber_main((attngen__fiber *)(uintptr_t)p);
}

void attngen__fiber_init(attngen__fiber *f, void *stack, size_t size, attngen__fiber_entry entry,
                         void *arg) {
  uint64_t p = (uint64_t)(uintptr_t)f;
  asan_fresh_stack(stack, size);
  f->entry = entry;
  f->arg = arg;
  f->stack_lo = stack;
  f->stack_size = size;
  f->asan_fake_stack = 0;
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = stack;
  f->uc.uc_stack.ss_size = size;
  f->uc.uc_link = 0;
  makecontext(&f->uc, (void (*)(void))fiber_start, 2, (unsigned)p, (unsigned)(p >> 32));
}

void attngen__fiber_switch(attngen__fiber *from, attngen__fiber *to) {
  asan_start(from, to);
  swapcontext(&from->uc, &to->uc);
  asan_finish(from);
}

#endif
