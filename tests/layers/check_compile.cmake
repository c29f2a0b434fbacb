# check_compile.cmake (ctest layers_compile): each layer's target compiles with the include
# directories of itself and the layers below it only (PRIVATE, CMakeLists.txt). With exactly
# the include path of a layer's target (given by the build), a file that includes one of the
# layer's own headers compiles, and a file that includes a header of a layer above fails with
# "No such file": a wrong-way include fails the build at the compiler. Cases are
# "target-name|include dirs ('|'-separated)|header|ok or fail", one per -DCASE<n>.
set(i 0)
set(failures "")
while(DEFINED CASE${i})
  string(REPLACE "@" ";" parts "${CASE${i}}")
  list(GET parts 0 target)
  list(GET parts 1 dirs)
  list(GET parts 2 header)
  list(GET parts 3 expect)
  string(REPLACE "|" ";" dirs "${dirs}")
  set(flags "")
  foreach(d IN LISTS dirs)
    list(APPEND flags "-I${d}")
  endforeach()
  set(src ${WORK}/probe_${i}.c)
  file(WRITE ${src} "#include \"${header}\"\nint attngen__probe_${i};\n")
  execute_process(COMMAND ${CC} -std=gnu11 -fsyntax-only -DATTNGEN_INTERNAL=1
    "-DATTNGEN_GENERATOR_VERSION=\"probe\"" ${flags} ${src}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect STREQUAL "ok")
    if(rc EQUAL 0)
      message("ok: ${target} includes ${header}")
    else()
      string(APPEND failures "  ${target} cannot include its own ${header}:\n${err}\n")
    endif()
  else()
    string(FIND "${err}" "${header}: No such file" at)
    if(NOT rc EQUAL 0 AND NOT at EQUAL -1)
      message("ok: ${target} cannot include ${header} (${expect}): No such file")
    else()
      string(APPEND failures "  ${target} includes ${header} of a layer above (exit ${rc}):"
             "\n${err}\n")
    endif()
  endif()
  math(EXPR i "${i} + 1")
endwhile()
if(i LESS 8)
  message(FATAL_ERROR "FAIL: only ${i} cases given")
endif()
if(NOT failures STREQUAL "")
  message(FATAL_ERROR "FAIL:\n${failures}")
endif()
