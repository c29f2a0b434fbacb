# kernels.cmake: compile the committed generated/ sources into code objects (gfx942,
# clang-19) and cubins (sm90, nvcc) when the compilers exist, and embed them into the
# library through the attngen__code_objects table.
file(GLOB ATTNGEN_GFX942_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/generated/gfx942/*.hip)
file(GLOB ATTNGEN_SM90_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/generated/sm90/*.cu)
set(ATTNGEN_KERNEL_DIR ${CMAKE_BINARY_DIR}/kernels)
file(MAKE_DIRECTORY ${ATTNGEN_KERNEL_DIR}/gfx942 ${ATTNGEN_KERNEL_DIR}/sm90)
set(ATTNGEN_KERNEL_ARGS "")
set(ATTNGEN_KERNEL_FILES "")

set(ATTNGEN_GFX942_FLAGS -x hip --offload-arch=gfx942 -nogpulib -nogpuinc -O3 -ffp-contract=off
    --cuda-device-only --no-gpu-bundle-output -c)
set(ATTNGEN_SM90_FLAGS -cubin -gencode arch=compute_90a,code=sm_90a -O3)

if(ATTNGEN_CLANG19)
  foreach(src ${ATTNGEN_GFX942_SOURCES})
    get_filename_component(stem ${src} NAME_WE)
    set(out ${ATTNGEN_KERNEL_DIR}/gfx942/${stem}.co)
    add_custom_command(OUTPUT ${out}
      COMMAND ${ATTNGEN_CLANG19} ${ATTNGEN_GFX942_FLAGS} ${src} -o ${out}
      DEPENDS ${src} COMMENT "gfx942 code object ${stem}" VERBATIM)
    list(APPEND ATTNGEN_KERNEL_ARGS "gfx942:${stem}:${out}")
    list(APPEND ATTNGEN_KERNEL_FILES ${out})
  endforeach()
endif()
if(ATTNGEN_NVCC)
  foreach(src ${ATTNGEN_SM90_SOURCES})
    get_filename_component(stem ${src} NAME_WE)
    set(out ${ATTNGEN_KERNEL_DIR}/sm90/${stem}.cubin)
    add_custom_command(OUTPUT ${out}
      COMMAND ${ATTNGEN_NVCC} ${ATTNGEN_SM90_FLAGS} ${src} -o ${out}
      DEPENDS ${src} COMMENT "sm90 cubin ${stem}" VERBATIM)
    list(APPEND ATTNGEN_KERNEL_ARGS "sm90:${stem}:${out}")
    list(APPEND ATTNGEN_KERNEL_FILES ${out})
  endforeach()
endif()
add_custom_target(attngen_kernels DEPENDS ${ATTNGEN_KERNEL_FILES})

set(EMBEDDED_KERNELS_C ${CMAKE_BINARY_DIR}/embedded_kernels.c)
add_custom_command(OUTPUT ${EMBEDDED_KERNELS_C}
  COMMAND attngen_embed --kernels -o ${EMBEDDED_KERNELS_C} ${ATTNGEN_KERNEL_ARGS}
  DEPENDS attngen_embed ${ATTNGEN_KERNEL_FILES}
  COMMENT "Embedding kernel code objects")

# The emulator (runtime/emu, see cmake/emu.cmake) compiles generated gfx942 sources for
# the host and sets ATTNGEN_EMU_OBJECTS / ATTNGEN_EMU_LINK_TARGETS.
include(${CMAKE_SOURCE_DIR}/cmake/emu.cmake OPTIONAL)
