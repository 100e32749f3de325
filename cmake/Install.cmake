# Installs headers, libraries, tools, the runtime and a CMake package so a
# downstream project writes find_package(AMP CONFIG) and links AMP::...
include(CMakePackageConfigHelpers)

set(AMP_EXPORTED_LIBS
  AMPSupport:Support
  AMPInterfaces:Interfaces
  AMPTGDialect:TGDialect
  AMPAMPDialect:AMPDialect
  AMPRTDialect:AMPRTDialect
  AMPPrecisionModels:PrecisionModels
  AMPTGTransforms:TGTransforms
  AMPTransforms:Transforms
  AMPConversion:Conversion
  AMPInitAll:InitAll
  AMPRunner:Runner
  AMPRun:Run
  amptrain:Train
  amprt:Runtime)
set(AMP_INSTALL_TARGETS)
foreach(entry ${AMP_EXPORTED_LIBS})
  string(REPLACE ":" ";" pair ${entry})
  list(GET pair 0 target)
  list(GET pair 1 name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:include>)
  list(APPEND AMP_INSTALL_TARGETS ${target})
endforeach()

install(TARGETS ${AMP_INSTALL_TARGETS} EXPORT AMPTargets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin)
install(TARGETS amp-opt amp-run amp-train RUNTIME DESTINATION bin)
install(TARGETS AMPPlugin LIBRARY DESTINATION lib)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/amp DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/amp DESTINATION include
  FILES_MATCHING PATTERN "*.inc")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/amprt
  ${PROJECT_SOURCE_DIR}/runtime/include/amptrain DESTINATION include)
install(EXPORT AMPTargets NAMESPACE AMP:: DESTINATION lib/cmake/amp)
configure_file(${PROJECT_SOURCE_DIR}/cmake/AMPConfig.cmake.in
  ${PROJECT_BINARY_DIR}/AMPConfig.cmake @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/AMPConfig.cmake DESTINATION lib/cmake/amp)
# The CUDA backend is loaded from beside libamprt.so, not linked.
if(TARGET amprt_cuda)
  install(TARGETS amprt_cuda LIBRARY DESTINATION lib)
endif()
