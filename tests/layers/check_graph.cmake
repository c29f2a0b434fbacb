# check_graph.cmake (ctest layers_graph): cmake/check_layers.cmake passes on the source tree
# and fails on each fault planted in a copy of it, with the message that names the fault:
# an upward include, a private runtime header included from the CLI, two internal headers in
# one test, a parent path, a header name used twice, a circle of modules, a circle of folders. Run: cmake -DSOURCE_DIR=.. -DWORK=DIR -P ...
set(checker ${SOURCE_DIR}/cmake/check_layers.cmake)
execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${SOURCE_DIR} -DGRAPH=1 -P ${checker}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: the source tree breaks the layer order")
endif()

# A copy of the tree's sources (the layer folders' C files), then one fault at a time.
set(copy ${WORK}/tree)
file(REMOVE_RECURSE ${copy})
foreach(folder base templates generator generated runtime check cli tests cmake)
  file(COPY ${SOURCE_DIR}/${folder} DESTINATION ${copy}
       FILES_MATCHING PATTERN "*.c" PATTERN "*.h" PATTERN "*.cpp" PATTERN "*.cuh"
       PATTERN "*.cmake")
endforeach()

# fault: file, the line added at its top, the text the checker must print.
set(faults
  "base/log.c|#include \"verify.h\"|base/log.c (base): #include \"verify.h\" is check/verify.h, of the layer above (check)"
  "generator/core/gen.c|#include \"jit.h\"|generator/core/gen.c (generator): #include \"jit.h\" is runtime/src/jit.h, of the layer above (runtime)"
  "runtime/src/dispatch.c|#include \"cli.h\"|runtime/src/dispatch.c (runtime): #include \"cli.h\" is cli/cli.h, of the layer above (cli)"
  "cli/cmd_run.c|#include \"dispatch.h\"|cli/cmd_run.c: #include \"dispatch.h\" is runtime/src/dispatch.h, a private header of a lower layer"
  "tests/test_verify.c|#include \"attngen_internal.h\"|tests/test_verify.c: includes 2 internal headers"
  "runtime/backends/backend_emu.c|#include \"../emu/emu.h\"|runtime/backends/backend_emu.c: #include \"../emu/emu.h\": a parent path"
  "runtime/src/cache.c|#include \"x_dup.h\"|the name x_dup.h is also"
  "runtime/src/hash_user.c|#include \"jit.h\"|a circle of modules"
  "runtime/src/api.c|#include \"cuda_extra.h\"|a circle of folders: runtime/src -> runtime/backends -> runtime/src")
foreach(fault IN LISTS faults)
  string(REPLACE "|" ";" parts "${fault}")
  list(GET parts 0 file)
  list(GET parts 1 line)
  list(GET parts 2 expect)
  file(REMOVE_RECURSE ${WORK}/fault)
  file(COPY ${copy}/ DESTINATION ${WORK}/fault)
  if(file STREQUAL "runtime/src/cache.c")
    # two headers of one name
    file(WRITE ${WORK}/fault/runtime/src/x_dup.h "/* x_dup.h */\n")
    file(WRITE ${WORK}/fault/check/x_dup.h "/* x_dup.h */\n")
  endif()
  if(file STREQUAL "runtime/src/hash_user.c")
    # jit.c -> hash_user.h and hash_user.c -> jit.h: a circle jit <-> hash_user
    file(WRITE ${WORK}/fault/runtime/src/hash_user.h "/* hash_user.h */\n")
    file(READ ${WORK}/fault/runtime/src/jit.c text)
    file(WRITE ${WORK}/fault/runtime/src/jit.c "#include \"hash_user.h\"\n${text}")
    file(WRITE ${WORK}/fault/${file} "\n")
  endif()
  if(line MATCHES "cuda_extra")
    # runtime/src -> runtime/backends beside runtime/backends -> runtime/src (backend.h)
    file(WRITE ${WORK}/fault/runtime/backends/cuda_extra.h "/* cuda_extra.h */\n")
  endif()
  file(READ ${WORK}/fault/${file} text)
  file(WRITE ${WORK}/fault/${file} "${line}\n${text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK}/fault -P ${checker}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE "\n" " " flat "${out}${err}")
  string(REGEX REPLACE " +" " " flat "${flat}")
  string(REGEX REPLACE " +" " " want "${expect}")
  string(FIND "${flat}" "${want}" at)
  if(rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "FAIL: planted '${line}' in ${file}: exit ${rc}, expected a failure "
            "naming '${expect}'; output:\n${out}${err}")
  endif()
  message("ok: '${line}' in ${file} fails the check (${expect})")
endforeach()
file(REMOVE_RECURSE ${copy} ${WORK}/fault)
