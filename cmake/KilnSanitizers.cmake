# Sanitizer and fuzzing builds (clang-19; scripts/sanitize.sh, scripts/tsan.sh,
# scripts/fuzz.sh): KILN_SANITIZE instruments every target, KILN_FUZZ adds
# libFuzzer's coverage instrumentation and the fuzz/ targets (fuzz/CMakeLists.txt
# says which code they compile and which they link prebuilt).
set(KILN_SANITIZE "" CACHE STRING
    "Sanitizers for every target: address,undefined or thread (empty: none)")
option(KILN_FUZZ "Build the libFuzzer targets in fuzz/ (clang, with address)"
       OFF)
set(KILN_FUZZ_LIBRARY_DIR "" CACHE PATH
    "KILN_FUZZ: the lib/ folder of an ordinary build, whose compiler libraries the fuzz targets link")

if(KILN_SANITIZE)
  add_compile_options(-fsanitize=${KILN_SANITIZE} -fno-omit-frame-pointer
                      -gline-tables-only)
  add_link_options(-fsanitize=${KILN_SANITIZE})
  if(KILN_SANITIZE MATCHES "undefined")
    # MLIR and LLVM are built without RTTI, so kiln is too: no vptr checks.
    # Any other undefined behaviour stops the program (a test then fails).
    add_compile_options(-fno-sanitize=vptr -fno-sanitize-recover=undefined)
    add_link_options(-fno-sanitize=vptr)
  endif()
endif()

if(KILN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KILN_FUZZ needs clang (scripts/fuzz.sh uses clang-19)")
  endif()
  if(NOT KILN_SANITIZE MATCHES "address")
    # The coverage hooks' weak defaults come with the sanitizer runtime.
    message(FATAL_ERROR "KILN_FUZZ needs KILN_SANITIZE to include address")
  endif()
  # Coverage for every library the targets reach; the targets themselves
  # link libFuzzer's main (-fsanitize=fuzzer, fuzz/CMakeLists.txt).
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
