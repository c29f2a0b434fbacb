/* cmd_generate.c: `attngen generate` and `attngen list`, the generator's commands. Their
 * options are parsed here like every command's (cli.h); the work runs in the embedded Lua
 * generator (generator/lua/cli.lua) on the parsed options. */
#include <stdio.h>
#include <stdlib.h>

#include "attngen.h"
#include "cli.h"

static const attngen__cli_option generate_options[] = {
    {"--target", ATTNGEN__CLI_CHOICE, "T", "only this target (default: all targets)",
     .choices = attngen__target_names, .nchoices = ATTNGEN__TARGET_COUNT},
    {"--variant", ATTNGEN__CLI_TEXT, "NAME",
     "one variant by canonical name (may be outside the default set)", .max_len = 255,
     .excludes = "--filter"},
    {"--filter", ATTNGEN__CLI_TEXT, "GLOB", "only default-set variants whose name matches GLOB (* and ?)"},
    {"-o", ATTNGEN__CLI_TEXT, "DIR", "output directory (default: generated)", .max_len = 4000},
    {"-q", ATTNGEN__CLI_FLAG, NULL, "print only the summary line"},
    {NULL}};

static const attngen__cli_option list_options[] = {
    {"--target", ATTNGEN__CLI_CHOICE, "T", "only this target (default: all targets)",
     .choices = attngen__target_names, .nchoices = ATTNGEN__TARGET_COUNT},
    {"--filter", ATTNGEN__CLI_TEXT, "GLOB", "only variants whose name matches GLOB (* and ?)"},
    {"--search-space", ATTNGEN__CLI_FLAG, NULL, "the tuning search space instead of the default set"},
    {NULL}};

/* Hands the given options, by name, to the generator's Lua function of the same name. */
static int run_in_generator(const attngen__cli_args *args) {
  const char *names[ATTNGEN__CLI_MAX_OPTIONS], *values[ATTNGEN__CLI_MAX_OPTIONS];
  int n = 0;
  for (int k = 0; args->cmd->options[k].name; k++) {
    if (!args->v[k].given) continue;
    names[n] = args->cmd->options[k].name;
    values[n++] = args->v[k].text; /* NULL for a flag */
  }
  char *usage = NULL;
  const int rc = attngen__gen_command(args->cmd->name, names, values, n, &usage);
  if (rc == 2) attngen__cli_usage_error(args->cmd, "%s", usage ? usage : "usage error");
  free(usage);
  return rc;
}

const attngen__cli_command attngen__cli_cmd_generate = {
    "generate", "expand templates into generated sources + manifest",
    "[--target T] [--variant NAME | --filter GLOB] [-o DIR] [-q]",
    "Expands the kernel templates into one source file per variant, DIR/<target>/<name>.<ext>,\n"
    "plus DIR/manifest.c (the C table of the default set). Without --variant/--filter the\n"
    "whole default set is generated and stale sources in DIR/<target>/ are removed. Files are\n"
    "rewritten only when their content changes. If any variant fails, every error is printed\n"
    "and nothing is written.\n",
    generate_options, NULL, NULL, 0, 0, "0 ok, 1 failure", run_in_generator};

const attngen__cli_command attngen__cli_cmd_list = {
    "list", "list the default variant set (or the search space)",
    "[--target T] [--filter GLOB] [--search-space]",
    "Prints the default variant set (or the tuning search space), one line per variant: the\n"
    "canonical name and its axis values.\n",
    list_options, NULL, NULL, 0, 0, "0 ok, 1 failure", run_in_generator};
