# Writes amprt-build.json in the build folder: each optional library this
# runtime build uses, with where it was found (null when it was not), so a
# report can say what ran on what without reading CMake's cache. Where the
# build adopts a library it sets AMPRT_USES_<key> to its path.

set(amprt_inventory "{\n  \"compiler\": \"${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}\",\n")
foreach(key openblas onednn zlib mpi nvcc cuda_toolkit cuda_architectures
            cublas cublaslt cudnn nccl)
  if(AMPRT_USES_${key})
    string(APPEND amprt_inventory "  \"${key}\": \"${AMPRT_USES_${key}}\",\n")
  else()
    string(APPEND amprt_inventory "  \"${key}\": null,\n")
  endif()
endforeach()
if(TARGET AMPRuntimeTests)
  string(APPEND amprt_inventory "  \"tests\": true\n}\n")
else()
  string(APPEND amprt_inventory "  \"tests\": false\n}\n")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/amprt-build.json "${amprt_inventory}")
