/* main.c: the attngen program: the table of its commands (each defined with its options in
 * cli/cmd_<name>.c) and main, which hands the command line to the one parser (cli.c). */
#include "cli.h"

const attngen__cli_command *const attngen__cli_commands[] = {
    &attngen__cli_cmd_generate, &attngen__cli_cmd_list,  &attngen__cli_cmd_info,
    &attngen__cli_cmd_run,      &attngen__cli_cmd_check, &attngen__cli_cmd_tune,
    &attngen__cli_cmd_bench,    &attngen__cli_cmd_cache, &attngen__cli_cmd_compile,
    &attngen__cli_cmd_report};
const size_t attngen__cli_command_count =
    sizeof attngen__cli_commands / sizeof attngen__cli_commands[0];

int main(int argc, char **argv) { return attngen__cli_main(argc, argv); }
