# One code object per GPU, compiled by a custom command.
function(perarch_code_object arch)
  add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/blit_${arch}.co
                     COMMAND ${CMAKE_HIP_COMPILER} -x hip --cuda-device-only -mcpu=${arch}
                             -o ${CMAKE_CURRENT_BINARY_DIR}/blit_${arch}.co ${PROJECT_SOURCE_DIR}/src/kernels.hip
                     DEPENDS ${PROJECT_SOURCE_DIR}/src/kernels.hip)
  add_custom_target(blit_${arch} ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/blit_${arch}.co)
endfunction()
