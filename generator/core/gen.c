/* gen.c: embeds the Lua 5.4 interpreter for the generator. Every entry point creates a
 * fresh state, loads the embedded modules through a `require` searcher, and runs all Lua
 * work inside lua_pcall with a traceback handler. C exposes one luaL_Reg table (`host`). */
#include "gen.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "fsutil.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* host.read_embedded(name) -> string | nil */
static int host_read_embedded(lua_State *L) {
  const attngen__embedded_file *f = attngen__embedded_find(luaL_checkstring(L, 1));
  if (!f) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushlstring(L, (const char *)f->data, f->size);
  return 1;
}

/* host.embedded_names() -> array of every embedded file name */
static int host_embedded_names(lua_State *L) {
  lua_createtable(L, (int)attngen__embedded_sources_count, 0);
  for (size_t i = 0; i < attngen__embedded_sources_count; i++) {
    lua_pushstring(L, attngen__embedded_sources[i].name);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* host.read_file(path) -> string | nil, message */
static int host_read_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char *data;
  size_t len;
  if (attngen__fs_read_file(path, 0, &data, &len) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushlstring(L, data, len);
  free(data);
  return 1;
}

/* host.write_file(path, content) -> true | nil, message. Atomic: temp file + rename. */
static int host_write_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  size_t len;
  const char *data = luaL_checklstring(L, 2, &len);
  if (attngen__fs_write_atomic(path, data, len, 0) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* host.list_dir(path) -> sorted array of entry names | nil, message */
static int host_list_dir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  DIR *d = opendir(path);
  if (!d) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_newtable(L);
  int i = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, -2, ++i);
  }
  closedir(d);
  return 1;
}

/* host.mkdir_p(path) -> true | nil, message */
static int host_mkdir_p(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  if (attngen__fs_mkdir_p(path, 0777) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* host.remove(path) -> true | nil, message */
static int host_remove(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  if (remove(path) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* host.is_dir(path) -> boolean */
static int host_is_dir(lua_State *L) {
  struct stat st;
  lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0 && S_ISDIR(st.st_mode));
  return 1;
}

/* host.stderr(text): diagnostics go to stderr unbuffered. */
static int host_stderr(lua_State *L) {
  fputs(luaL_checkstring(L, 1), stderr);
  return 0;
}

static const luaL_Reg host_functions[] = {
  {"read_embedded", host_read_embedded},
  {"embedded_names", host_embedded_names},
  {"read_file", host_read_file},
  {"write_file", host_write_file},
  {"list_dir", host_list_dir},
  {"mkdir_p", host_mkdir_p},
  {"remove", host_remove},
  {"is_dir", host_is_dir},
  {"stderr", host_stderr},
  {NULL, NULL},
};

/* package.searchers entry: modules are looked up only among the embedded files. */
static int embedded_searcher(lua_State *L) {
  const char *mod = luaL_checkstring(L, 1);
  char name[512];
  snprintf(name, sizeof name, "generator/lua/%s.lua", mod);
  const attngen__embedded_file *f = attngen__embedded_find(name);
  if (!f) {
    lua_pushfstring(L, "no embedded module '%s'", name);
    return 1;
  }
  char chunkname[520];
  snprintf(chunkname, sizeof chunkname, "=%s", name);
  if (luaL_loadbufferx(L, (const char *)f->data, f->size, chunkname, "t") != LUA_OK)
    return lua_error(L);
  lua_pushstring(L, name);
  return 2;
}

static int traceback_handler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) msg = "(error object is not a string)";
  /* Errors raised on purpose by the generator are tables or start with "attngen:": no
   * traceback for those; everything else is an internal bug and gets one. */
  if (strncmp(msg, "attngen: ", 9) == 0) {
    lua_pushstring(L, msg + 9);
    return 1;
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  if (!L) return NULL;
  luaL_openlibs(L);
  /* Only our searcher: no modules from disk, no C modules. */
  lua_getglobal(L, "package");
  lua_newtable(L);
  lua_pushcfunction(L, embedded_searcher);
  lua_rawseti(L, -2, 1);
  lua_setfield(L, -2, "searchers");
  lua_pop(L, 1);
  luaL_newlib(L, host_functions);
  lua_pushstring(L, ATTNGEN_GENERATOR_VERSION);
  lua_setfield(L, -2, "version");
  lua_setfield(L, LUA_REGISTRYINDEX, "attngen.host");
  /* Modules reach the host table through require("host"). */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getfield(L, LUA_REGISTRYINDEX, "attngen.host");
  lua_setfield(L, -2, "host");
  lua_pop(L, 2);
  return L;
}

/* Calls require(module)[fn] with the values already pushed after the handler; nargs
 * arguments, nres results. Returns LUA_OK or an error with the message on the stack. */
static int call_module(lua_State *L, const char *module, const char *fn, int nargs, int nres) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, traceback_handler);
  lua_insert(L, base + 1);
  lua_getglobal(L, "require");
  lua_pushstring(L, module);
  int rc = lua_pcall(L, 1, 1, base + 1);
  if (rc != LUA_OK) return rc;
  lua_getfield(L, -1, fn);
  lua_remove(L, -2);
  lua_insert(L, base + 2);
  rc = lua_pcall(L, nargs, nres, base + 1);
  lua_remove(L, base + 1);
  return rc;
}

int attngen__gen_command(const char *command, const char *const *names,
                         const char *const *values, int n, char **usage_out) {
  *usage_out = NULL;
  lua_State *L = new_state();
  if (!L) {
    fprintf(stderr, "attngen %s: out of memory\n", command);
    return 1;
  }
  lua_createtable(L, 0, n);
  for (int i = 0; i < n; i++) {
    if (values[i])
      lua_pushstring(L, values[i]);
    else
      lua_pushboolean(L, 1);
    lua_setfield(L, -2, names[i]);
  }
  int code = 1;
  if (call_module(L, "cli", command, 1, 2) != LUA_OK) {
    fprintf(stderr, "attngen %s: error: %s\n", command, lua_tostring(L, -1));
  } else {
    code = (int)lua_tointeger(L, -2);
    if (code == 2) *usage_out = dup_str(luaL_optstring(L, -1, "usage error"));
  }
  lua_close(L);
  return code;
}

static int get_int_field(lua_State *L, int idx, const char *key) {
  lua_getfield(L, idx, key);
  int v = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* generate.desc_for_name in L into *desc; 0 ok, else 1 with *error_out (may be NULL). */
static int desc_in_state(lua_State *L, const char *variant_name, attngen__variant_desc *desc,
                         char **error_out) {
  const int top = lua_gettop(L);
  lua_pushstring(L, variant_name);
  int rc = call_module(L, "generate", "desc_for_name", 1, 2);
  int status = 1;
  if (rc != LUA_OK) {
    if (error_out) *error_out = dup_str(lua_tostring(L, -1));
  } else if (lua_isnil(L, -2)) {
    if (error_out) *error_out = dup_str(luaL_optstring(L, -1, "invalid variant"));
  } else {
    int t = lua_gettop(L) - 1;
    memset(desc, 0, sizeof *desc);
    desc->name = variant_name;
    /* The fields and their order come from generate.lua (generated/variant_axes.h). */
#define READ_FIELD(f) desc->f = get_int_field(L, t, #f);
    ATTNGEN__VARIANT_DESC_FIELDS(READ_FIELD)
#undef READ_FIELD
    status = 0;
  }
  lua_settop(L, top);
  return status;
}

/* generate.source_for_name in L into *source_out; 0 ok, else 1 with *error_out. */
/* Sources generated by the process (attngen__gen_source_count). */
static atomic_ulong sources_generated;

unsigned long attngen__gen_source_count(void) { return atomic_load(&sources_generated); }

static int source_in_state(lua_State *L, const char *variant_name, char **source_out,
                           char **error_out) {
  atomic_fetch_add(&sources_generated, 1);
  const int top = lua_gettop(L);
  lua_pushstring(L, variant_name);
  int rc = call_module(L, "generate", "source_for_name", 1, 2);
  int status = 1;
  if (rc != LUA_OK) {
    if (error_out) *error_out = dup_str(lua_tostring(L, -1));
  } else if (lua_isnil(L, -2)) {
    if (error_out) *error_out = dup_str(luaL_optstring(L, -1, "generation failed"));
  } else {
    if (source_out) *source_out = dup_str(lua_tostring(L, -2));
    status = 0;
  }
  lua_settop(L, top);
  return status;
}

int attngen__gen_source(const char *variant_name, char **source_out, char **error_out) {
  if (source_out) *source_out = NULL;
  if (error_out) *error_out = NULL;
  lua_State *L = new_state();
  if (!L) return 1;
  int status = source_in_state(L, variant_name, source_out, error_out);
  lua_close(L);
  return status;
}

int attngen__gen_variant_desc(const char *variant_name, attngen__variant_desc *desc,
                              char **error_out) {
  return attngen__gen_variant(variant_name, desc, NULL, error_out, NULL);
}

int attngen__gen_variant(const char *variant_name, attngen__variant_desc *desc,
                         char **source_out, char **error_out, char **source_error_out) {
  if (source_out) *source_out = NULL;
  if (error_out) *error_out = NULL;
  if (source_error_out) *source_error_out = NULL;
  lua_State *L = new_state();
  if (!L) return 1;
  int status = desc_in_state(L, variant_name, desc, error_out);
  if (status == 0 && source_out)
    source_in_state(L, variant_name, source_out, source_error_out);
  lua_close(L);
  return status;
}

int attngen__gen_search_space(const char *target, char ***names_out, char **error_out) {
  *names_out = NULL;
  if (error_out) *error_out = NULL;
  lua_State *L = new_state();
  if (!L) return -1;
  lua_pushstring(L, target);
  int count = -1;
  if (call_module(L, "generate", "search_space_names", 1, 2) != LUA_OK || lua_isnil(L, -2)) {
    if (error_out) *error_out = dup_str(luaL_optstring(L, -1, "no search space"));
  } else {
    int n = (int)luaL_len(L, -2);
    char **names = calloc((size_t)n + 1, sizeof *names);
    for (int i = 0; names && i < n; i++) {
      lua_rawgeti(L, -2, i + 1);
      names[i] = dup_str(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    if (names) {
      *names_out = names;
      count = n;
    }
  }
  lua_close(L);
  return count;
}

void attngen__gen_free_names(char **names, int count) {
  if (!names) return;
  for (int i = 0; i < count; i++) free(names[i]);
  free(names);
}

int attngen__gen_eval(const char *lua_code, char **result_out, char **error_out) {
  if (result_out) *result_out = NULL;
  if (error_out) *error_out = NULL;
  lua_State *L = new_state();
  if (!L) return 1;
  int status = 1;
  lua_pushcfunction(L, traceback_handler);
  if (luaL_loadbufferx(L, lua_code, strlen(lua_code), "=eval", "t") != LUA_OK) {
    if (error_out) *error_out = dup_str(lua_tostring(L, -1));
  } else if (lua_pcall(L, 0, 1, 1) != LUA_OK) {
    if (error_out) *error_out = dup_str(lua_tostring(L, -1));
  } else {
    if (result_out) *result_out = dup_str(luaL_tolstring(L, -1, NULL));
    status = 0;
  }
  lua_close(L);
  return status;
}
