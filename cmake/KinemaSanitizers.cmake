# Sanitizer and fuzzing builds (docs/reliability.md). Both are off by default; the default build
# needs neither clang nor a sanitizer runtime.
#
# KINEMA_SANITIZE=<list>   e.g. "address,undefined": every target (libraries, CLI, tests) compiled
#                          and linked with -fsanitize=<list> -fno-omit-frame-pointer (gcc or clang),
#                          for use by hand (CI's sanitizer job uses KINEMA_FUZZ's build instead).
# KINEMA_FUZZ=ON           clang only: the whole build compiled with
#                          -fsanitize=fuzzer-no-link,address,undefined and the libFuzzer harnesses
#                          of tests/fuzz linked with -fsanitize=fuzzer. scripts/sanitize and
#                          scripts/fuzz configure build-fuzz/ with it: one build serves both jobs
#                          (the CLI and the tests link without libFuzzer).
set(KINEMA_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (empty: none)")
option(KINEMA_FUZZ "Build the libFuzzer harnesses of tests/fuzz (clang only)" OFF)

if(KINEMA_SANITIZE AND KINEMA_FUZZ)
  message(FATAL_ERROR "Kinema: KINEMA_SANITIZE and KINEMA_FUZZ are separate builds; KINEMA_FUZZ "
                      "already adds address,undefined. Configure them in separate build directories.")
endif()

if(KINEMA_SANITIZE)
  message(STATUS "Kinema: sanitizer build (-fsanitize=${KINEMA_SANITIZE})")
  add_compile_options(-fsanitize=${KINEMA_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${KINEMA_SANITIZE})
endif()

if(KINEMA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "Kinema: KINEMA_FUZZ=ON needs clang (libFuzzer), but the compilers are "
      "${CMAKE_C_COMPILER_ID} / ${CMAKE_CXX_COMPILER_ID}.\n"
      "  Configure a separate build directory with clang, e.g.\n"
      "    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DKINEMA_FUZZ=ON\n"
      "  or run scripts/fuzz, which does that (Debian package 'clang').")
  endif()
  message(STATUS "Kinema: fuzzing build (libFuzzer + ASan + UBSan, ${CMAKE_CXX_COMPILER})")
  # UBSan findings stop the run (a finding, not a warning in a log nobody reads).
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
