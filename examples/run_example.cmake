# Runs an example: natively where a GPU it runs on is present (the main example: compute capability 10.0 or
# 9.0), otherwise (exit code 77 from the native build) the emulator build on a small shape.
execute_process(COMMAND ${NATIVE} RESULT_VARIABLE rc)
if(rc EQUAL 77)
  execute_process(COMMAND ${EMULATED} RESULT_VARIABLE rc)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the example failed (exit code ${rc})")
endif()
