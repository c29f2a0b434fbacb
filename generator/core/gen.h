/* gen.h: the generator core. Runs the embedded Lua modules (the modules of generator/lua) inside a
 * fresh Lua 5.4 state per call; used by the attngen CLI and by the runtime's JIT. */
#ifndef ATTNGEN_GEN_H
#define ATTNGEN_GEN_H
#include "variant.h"

/* The generator's version (stamps of generated files, the JIT cache key): the library's,
 * ATTNGEN_VERSION_STRING of attngen.h, which the build passes down (CMakeLists.txt). */
#ifndef ATTNGEN_GENERATOR_VERSION
#error "ATTNGEN_GENERATOR_VERSION is defined by the build from attngen.h (CMakeLists.txt)"
#endif

/* Runs the work of a generator command (generator/lua/cli.lua: "generate", "list") on its
 * parsed options: n (name, value) pairs, a flag's value NULL. Returns the exit code (0 ok,
 * 1 failure) or 2 with a malloc'd usage-error message in *usage_out (the caller prints it). */
int attngen__gen_command(const char *command, const char *const *names,
                         const char *const *values, int n, char **usage_out);

/* Generates the source of one variant by canonical name. On success returns 0 and a
 * malloc'd NUL-terminated source in *source_out; on failure returns nonzero and a malloc'd
 * message in *error_out (either out pointer may be NULL). */
int attngen__gen_source(const char *variant_name, char **source_out, char **error_out);

/* Parses and validates a variant name and fills its descriptor (axis values and derived
 * launch geometry). desc->name is set to variant_name (the caller keeps it alive).
 * Returns 0 on success, else nonzero and a malloc'd message in *error_out. */
int attngen__gen_variant_desc(const char *variant_name, attngen__variant_desc *desc,
                              char **error_out);

/* Both from one generator state: the descriptor as attngen__gen_variant_desc and, when
 * source_out is not NULL and the descriptor was made, the source as attngen__gen_source
 * (the runtime's JIT describes a variant and later compiles it). The return value is the
 * descriptor's (0 ok, else nonzero with *error_out); a failed source leaves *source_out
 * NULL and its message in *source_error_out (either error pointer may be NULL). */
int attngen__gen_variant(const char *variant_name, attngen__variant_desc *desc,
                         char **source_out, char **error_out, char **source_error_out);

/* How many times this process has generated a variant's source (attngen__gen_source, or
 * attngen__gen_variant asked for one), for tests: a context's plan carries the source made
 * when its variant was described, so the JIT does not generate it again. */
unsigned long attngen__gen_source_count(void);

/* Lists the canonical names of the tuning search space for a target ("gfx942"|"sm90"):
 * a malloc'd array of malloc'd strings; returns the count, or -1 with *error_out set. */
int attngen__gen_search_space(const char *target, char ***names_out, char **error_out);
void attngen__gen_free_names(char **names, int count);

/* Runs a Lua chunk in a generator state (modules available through require) and returns
 * tostring of its first result in *result_out (malloc'd). For tests and tools. */
int attngen__gen_eval(const char *lua_code, char **result_out, char **error_out);

#endif /* ATTNGEN_GEN_H */
