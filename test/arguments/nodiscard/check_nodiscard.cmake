# Compiles drops_a_status.cpp with -Werror=unused-result and passes only if that fails because a
# bwgemm::Status was dropped (bwgemm::Status is [[nodiscard]]). A control compile of the same source without
# the flag must succeed, so a broken include path cannot make the test pass.
#   cmake -DCXX=... -DINCLUDES="a;b" -DSOURCE=... -DWORK=... -P check_nodiscard.cmake
set(_inc)
foreach(dir ${INCLUDES})
  list(APPEND _inc -I${dir})
endforeach()
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CXX} -std=c++17 ${_inc} -c ${SOURCE} -o ${WORK}/control.o
                RESULT_VARIABLE control_rc OUTPUT_VARIABLE control_out ERROR_VARIABLE control_out)
if(NOT control_rc EQUAL 0)
  message(FATAL_ERROR "the control compile failed (not a nodiscard effect):\n${control_out}")
endif()
execute_process(COMMAND ${CXX} -std=c++17 -Werror=unused-result ${_inc} -c ${SOURCE} -o ${WORK}/dropped.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "a dropped bwgemm::Status compiled under -Werror=unused-result: Status is not [[nodiscard]]")
endif()
if(NOT out MATCHES "nodiscard|unused-result|ignoring return value")
  message(FATAL_ERROR "the compile failed for another reason:\n${out}")
endif()
message(STATUS "a dropped bwgemm::Status is a compile error under -Werror=unused-result")
