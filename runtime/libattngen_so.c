/* libattngen_so.c: the shared library's own translation unit. libattngen.so is the whole
 * static archive (see CMakeLists.txt); this file only gives the target a source. */
const char attngen__library_kind[] = "shared";
