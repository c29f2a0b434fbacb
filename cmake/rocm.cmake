# rocm.cmake: the real ROCm compilers for gfx942 from the Debian 13 (trixie) root that
# .ci/rocm-root prepares (hipcc 5.7 / clang-17, hiprtc in libamdhip64.so.5, comgr 6.0). When
# the root is complete and can be entered (chroot as root, else `unshare -r chroot`), the
# default gfx942 set is also compiled with hipcc into build/kernels/gfx942-hipcc/NAME.co
# (part of `all`; not embedded: the library embeds clang-19's code objects, which build
# everywhere). tests/test_rocm.c compares them with clang-19's and with hiprtc's, and runs
# the hiprtc JIT inside the root. Without the root nothing here happens (and those tests
# print SKIPPED).
#
# Sets ATTNGEN_TRIXIE_ROOT (cache; default $ATTNGEN_TRIXIE_ROOT, else .cache/trixie in the
# source tree), ATTNGEN_ROCM_ROOT_OK (the root is complete), ATTNGEN_ROCM_ENTER (how to
# enter it: chroot | unshare | none, with the reason in ATTNGEN_ROCM_WHY) and
# ATTNGEN_HIPCC_KERNEL_DIR ("" when hipcc code objects are not built).
if(DEFINED ENV{ATTNGEN_TRIXIE_ROOT} AND NOT "$ENV{ATTNGEN_TRIXIE_ROOT}" STREQUAL "")
  set(attngen_root_default "$ENV{ATTNGEN_TRIXIE_ROOT}")
else()
  set(attngen_root_default "${CMAKE_SOURCE_DIR}/.cache/trixie")
endif()
set(ATTNGEN_TRIXIE_ROOT "${attngen_root_default}" CACHE PATH
    "Debian 13 root holding hipcc/hiprtc for gfx942 (made by .ci/rocm-root)")
option(ATTNGEN_HIPCC "Compile the gfx942 default set with hipcc from the trixie root" ON)

# The same flags as clang-19's (cmake/kernels.cmake) and as the hiprtc JIT (runtime/src/jit.c:
# -O3 -std=c++17 -ffp-contract=off), in hipcc's spelling: --genco = device code only,
# --no-gpu-bundle-output = a plain code object rather than an offload bundle. hipcc links
# the ROCm device libraries, as hiprtc (comgr) does.
set(ATTNGEN_HIPCC_FLAGS --genco --offload-arch=gfx942 -O3 -std=c++17 -ffp-contract=off
    --no-gpu-bundle-output)

set(ATTNGEN_ROCM_ROOT_OK OFF)
set(ATTNGEN_ROCM_ENTER none)
set(ATTNGEN_ROCM_WHY "")
set(ATTNGEN_HIPCC_KERNEL_DIR "")
set(attngen_stamp "${ATTNGEN_TRIXIE_ROOT}/.attngen-rocm-root")
if(NOT EXISTS "${attngen_stamp}" OR NOT EXISTS "${ATTNGEN_TRIXIE_ROOT}/usr/bin/hipcc")
  set(ATTNGEN_ROCM_WHY "no trixie root at ${ATTNGEN_TRIXIE_ROOT} (bash .ci/rocm-root makes it)")
else()
  set(ATTNGEN_ROCM_ROOT_OK ON)
  execute_process(COMMAND chroot "${ATTNGEN_TRIXIE_ROOT}" /usr/bin/test -x /usr/bin/hipcc
                  RESULT_VARIABLE attngen_rc OUTPUT_QUIET ERROR_QUIET)
  if(attngen_rc EQUAL 0)
    set(ATTNGEN_ROCM_ENTER chroot)
  else()
    execute_process(COMMAND unshare -r chroot "${ATTNGEN_TRIXIE_ROOT}" /usr/bin/test -x
                            /usr/bin/hipcc
                    RESULT_VARIABLE attngen_rc OUTPUT_QUIET ERROR_QUIET)
    if(attngen_rc EQUAL 0)
      set(ATTNGEN_ROCM_ENTER unshare)
    else()
      set(ATTNGEN_ROCM_WHY "cannot enter ${ATTNGEN_TRIXIE_ROOT}: chroot needs root and "
                           "`unshare -r` (user namespaces) is not allowed here")
    endif()
  endif()
endif()

if(ATTNGEN_ROCM_ENTER STREQUAL "none")
  message(STATUS "attngen: hipcc (gfx942): ${ATTNGEN_ROCM_WHY}")
elseif(NOT ATTNGEN_HIPCC)
  set(ATTNGEN_ROCM_WHY "ATTNGEN_HIPCC=OFF")
  message(STATUS "attngen: hipcc (gfx942): off (-DATTNGEN_HIPCC=OFF)")
else()
  message(STATUS "attngen: hipcc (gfx942): ${ATTNGEN_TRIXIE_ROOT}/usr/bin/hipcc through "
                 "${ATTNGEN_ROCM_ENTER} (code objects in build/kernels/gfx942-hipcc)")
  set(ATTNGEN_HIPCC_KERNEL_DIR ${CMAKE_BINARY_DIR}/kernels/gfx942-hipcc)
  file(MAKE_DIRECTORY ${ATTNGEN_HIPCC_KERNEL_DIR})
  set(attngen_hipcc_files "")
  foreach(src ${ATTNGEN_GFX942_SOURCES})
    get_filename_component(stem ${src} NAME_WE)
    set(out ${ATTNGEN_HIPCC_KERNEL_DIR}/${stem}.co)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E env ATTNGEN_ROCM_ENTER=${ATTNGEN_ROCM_ENTER}
              nice sh ${CMAKE_SOURCE_DIR}/cmake/hipcc_in_root.sh ${ATTNGEN_TRIXIE_ROOT}
              ${src} ${out} ${ATTNGEN_HIPCC_FLAGS}
      DEPENDS ${src} ${CMAKE_SOURCE_DIR}/cmake/hipcc_in_root.sh ${attngen_stamp}
      COMMENT "gfx942 code object ${stem} (hipcc)" VERBATIM)
    list(APPEND attngen_hipcc_files ${out})
  endforeach()
  add_custom_target(attngen_kernels_hipcc ALL DEPENDS ${attngen_hipcc_files})
endif()
