# layers.cmake: runs cmake/check_layers.cmake on the source tree as part of the build (target
# attngen_layers, a dependency of the base layer): an include against the layer order fails
# the build with the file, the line's include and the rule it breaks.
file(GLOB_RECURSE ATTNGEN_LAYER_FILES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/base/*.[ch] ${CMAKE_SOURCE_DIR}/generator/*.[ch]
  ${CMAKE_SOURCE_DIR}/runtime/*.[ch] ${CMAKE_SOURCE_DIR}/check/*.[ch]
  ${CMAKE_SOURCE_DIR}/cli/*.[ch] ${CMAKE_SOURCE_DIR}/tests/*.[ch]
  ${CMAKE_SOURCE_DIR}/tests/*.cpp ${CMAKE_SOURCE_DIR}/templates/*.h
  ${CMAKE_SOURCE_DIR}/templates/*.cuh)
file(GLOB ATTNGEN_LAYER_GENERATED CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/generated/*.[ch])
set(ATTNGEN_LAYERS_STAMP ${CMAKE_BINARY_DIR}/layers.stamp)
add_custom_command(OUTPUT ${ATTNGEN_LAYERS_STAMP}
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${ATTNGEN_LAYERS_STAMP}
          -P ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake
  DEPENDS ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake ${ATTNGEN_LAYER_FILES}
          ${ATTNGEN_LAYER_GENERATED}
  COMMENT "Checking the include graph against the layers" VERBATIM)
add_custom_target(attngen_layers ALL DEPENDS ${ATTNGEN_LAYERS_STAMP})
add_dependencies(attngen_base attngen_layers)
