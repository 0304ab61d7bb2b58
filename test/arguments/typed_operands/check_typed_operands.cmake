# Compiles wrong_element_types.cpp twice: with -DBWGEMM_TYPED_OK (the right element types) it must compile;
# without (data and scales swapped) it must fail at bwgemm::nvfp4_tensor's deleted overload, so a wrong
# element type is a compile error and a broken include path cannot make the test pass.
#   cmake -DCXX=... -DINCLUDES="a;b" -DSOURCE=... -DWORK=... -P check_typed_operands.cmake
set(_inc)
foreach(dir ${INCLUDES})
  list(APPEND _inc -I${dir})
endforeach()
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CXX} -std=c++17 ${_inc} -DBWGEMM_TYPED_OK -c ${SOURCE} -o ${WORK}/ok.o
                RESULT_VARIABLE ok_rc OUTPUT_VARIABLE ok_out ERROR_VARIABLE ok_out)
if(NOT ok_rc EQUAL 0)
  message(FATAL_ERROR "the right element types did not compile:\n${ok_out}")
endif()
execute_process(COMMAND ${CXX} -std=c++17 ${_inc} -c ${SOURCE} -o ${WORK}/swapped.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "swapped data and scales compiled: bwgemm::nvfp4_tensor does not check element types")
endif()
if(NOT out MATCHES "deleted")
  message(FATAL_ERROR "the swapped call failed for another reason:\n${out}")
endif()
message(STATUS "a wrong NVFP4 element type is a compile error")
