/* main.c: the attngen command line. One table maps each command to its implementation:
 * generate and list run in the embedded Lua generator, the others in C (cmd_<name>.c). */
#include <stdio.h>
#include <string.h>

#include "attngen.h"
#include "attngen_internal.h"

typedef int (*command_fn)(int argc, char **argv);

/* Commands implemented in C, one file each. Weak so that a build without one of them
 * still links and reports the command as unavailable. */
#define ATTNGEN_C_COMMANDS(X) X(check) X(info) X(cache) X(run) X(report) X(tune) X(bench) X(compile)
#define DECLARE(name) __attribute__((weak)) int attngen__cmd_##name(int argc, char **argv);
ATTNGEN_C_COMMANDS(DECLARE)
#undef DECLARE

typedef struct {
  const char *name;
  command_fn fn;
  const char *summary;
} command;

static const command commands[] = {
  {"generate", attngen__gen_run_command, "expand templates into generated sources + manifest"},
  {"list", attngen__gen_run_command, "list the default variant set (or the search space)"},
  {"info", NULL, "backends, devices, cache and embedded variants"},
  {"run", NULL, "run one attention call with random inputs and time it"},
  {"check", NULL, "check a backend against the numerics contract"},
  {"tune", NULL, "measure candidate variants and record the winners"},
  {"bench", NULL, "benchmark variants on a device"},
  {"cache", NULL, "list, clear or verify the JIT cache"},
  {"compile", NULL, "JIT-compile variants without a device (hiprtc / NVRTC) into the cache"},
  {"report", NULL, "static report of built " ATTNGEN__TARGET_GFX942_NAME " code objects"},
};

static command_fn c_command(const char *name) {
#define MATCH(n) if (strcmp(name, #n) == 0) return attngen__cmd_##n;
  ATTNGEN_C_COMMANDS(MATCH)
#undef MATCH
  return NULL;
}

static void usage(FILE *f) {
  fprintf(f, "usage: attngen <command> [options]   (attngen <command> --help for details)\n\n"
             "attngen %s: generated bf16 forward attention kernels (head_dim 128) for\n"
             "AMD " ATTNGEN__TARGET_GFX942_NAME " (MI300X) and NVIDIA " ATTNGEN__TARGET_SM90_NAME
             " (H100/H200).\n\ncommands:\n",
          ATTNGEN_VERSION_STRING);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\n  --version  print the version\n  --help     this text\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("attngen %s (generator %s)\n", ATTNGEN_VERSION_STRING, ATTNGEN_GENERATOR_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(cmd, commands[i].name) != 0) continue;
    command_fn fn = commands[i].fn ? commands[i].fn : c_command(cmd);
    if (!fn) {
      fprintf(stderr, "attngen: command '%s' is not available in this build\n", cmd);
      return 1;
    }
    fflush(stdout);
    int rc = fn(argc - 1, argv + 1);
    fflush(stdout);
    return rc;
  }
  fprintf(stderr, "attngen: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return 2;
}
