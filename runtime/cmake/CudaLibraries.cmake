# Finds cuDNN and NCCL for the CUDA backend: in the CUDA toolkit, or in the
# NVIDIA Python wheels PyTorch installs (site-packages/nvidia/cudnn,
# nvidia/nccl, nvidia/cu13, ...: headers in include/, versioned libraries
# such as libcudnn.so.9 in lib/), which is where a GPU machine without a
# system cuDNN has them. AMPRT_CUDA_LIBRARY_ROOTS adds folders to search.
# Sets AMPRT_CUDNN_INCLUDE/AMPRT_CUDNN and AMPRT_NCCL_INCLUDE/AMPRT_NCCL
# (each NOTFOUND when absent).

set(AMPRT_CUDA_LIBRARY_ROOTS "" CACHE STRING
    "Extra folders holding include/ and lib/ of cuDNN or NCCL")

# Every site-packages/nvidia/* folder of the Python 3 found on PATH.
function(amprt_python_wheel_roots out)
  set(roots)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -c
        "import site; print(';'.join(site.getsitepackages() + [site.getusersitepackages()]))"
      OUTPUT_VARIABLE site_dirs OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET)
    foreach(dir IN LISTS site_dirs)
      file(GLOB found LIST_DIRECTORIES true "${dir}/nvidia/*")
      foreach(f IN LISTS found)
        if(IS_DIRECTORY "${f}")
          list(APPEND roots "${f}")
        endif()
      endforeach()
    endforeach()
  endif()
  set(${out} ${roots} PARENT_SCOPE)
endfunction()

# Finds HEADER and a library named NAME (or NAME's versioned file, as the
# wheels ship it) under the toolkit and ROOTS; sets PREFIX_INCLUDE, PREFIX.
function(amprt_find_cuda_library prefix header name version)
  set(roots ${ARGN})
  set(include_hints ${CUDAToolkit_INCLUDE_DIRS})
  set(lib_hints ${CUDAToolkit_LIBRARY_DIR})
  foreach(root IN LISTS roots)
    list(APPEND include_hints "${root}/include")
    list(APPEND lib_hints "${root}/lib" "${root}/lib64")
  endforeach()
  find_path(${prefix}_INCLUDE ${header} HINTS ${include_hints})
  find_library(${prefix} NAMES ${name} lib${name}.so.${version}
    HINTS ${lib_hints})
endfunction()

amprt_python_wheel_roots(amprt_wheel_roots)
set(amprt_cuda_roots ${AMPRT_CUDA_LIBRARY_ROOTS} ${amprt_wheel_roots})
amprt_find_cuda_library(AMPRT_CUDNN cudnn.h cudnn 9 ${amprt_cuda_roots})
amprt_find_cuda_library(AMPRT_NCCL nccl.h nccl 2 ${amprt_cuda_roots})
