# bwgemm::Status is [[nodiscard]] for dropped calls, and silent for assignments:
#  1. drops_a_status.cpp, a call whose Status is dropped, must fail under the host compiler's
#     -Werror=unused-result and, where NVCC is given, under nvcc's -Werror all-warnings (nvcc's #3004-D);
#     a control compile of it without those flags must succeed, so a broken include path cannot make the
#     test pass;
#  2. reassigns_a_status.cpp (s = bwgemm::validate(...) into an existing Status, copies and moves) must
#     compile with the unused-result warnings errors under the host compiler and every nvcc warning an
#     error (-Werror all-warnings): nvcc warned #2810-D there while Status's assignments returned Status&.
#   cmake -DCXX=... [-DNVCC=...] -DINCLUDES="a;b" -DSOURCE=drops_a_status.cpp -DREASSIGN=reassigns_a_status.cpp
#         -DWORK=... -P check_nodiscard.cmake
set(_inc)
foreach(dir ${INCLUDES})
  list(APPEND _inc -I${dir})
endforeach()
file(MAKE_DIRECTORY ${WORK})

function(compile what)  # compile(<what> <command...>): sets rc and out in the caller
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  set(rc ${_rc} PARENT_SCOPE)
  set(out "${_out}" PARENT_SCOPE)
endfunction()

# 1. A dropped Status.
compile(control ${CXX} -std=c++17 ${_inc} -c ${SOURCE} -o ${WORK}/control.o)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the control compile failed (not a nodiscard effect):\n${out}")
endif()
compile(dropped ${CXX} -std=c++17 -Werror=unused-result ${_inc} -c ${SOURCE} -o ${WORK}/dropped.o)
if(rc EQUAL 0)
  message(FATAL_ERROR "a dropped bwgemm::Status compiled under -Werror=unused-result: Status is not [[nodiscard]]")
endif()
if(NOT out MATCHES "nodiscard|unused-result|ignoring return value")
  message(FATAL_ERROR "the compile failed for another reason:\n${out}")
endif()
if(NVCC)
  compile(nvcc_control ${NVCC} -std=c++17 -x cu ${_inc} -c ${SOURCE} -o ${WORK}/nvcc_control.o)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the nvcc control compile failed (not a nodiscard effect):\n${out}")
  endif()
  compile(nvcc_dropped ${NVCC} -std=c++17 -x cu -Werror all-warnings ${_inc} -c ${SOURCE}
          -o ${WORK}/nvcc_dropped.o)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a dropped bwgemm::Status compiled under nvcc -Werror all-warnings")
  endif()
  if(NOT out MATCHES "3004-D|nodiscard")
    message(FATAL_ERROR "the nvcc compile failed for another reason:\n${out}")
  endif()
endif()

# 2. Assigned, copied and moved: no warning anywhere.
compile(reassign ${CXX} -std=c++17 -Werror=unused-result -Werror=unused-value ${_inc} -c ${REASSIGN}
        -o ${WORK}/reassign.o)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "assigning a bwgemm::Status warns or fails under the host compiler:\n${out}")
endif()
if(NVCC)
  compile(nvcc_reassign ${NVCC} -std=c++17 -x cu -Werror all-warnings
          -Xcompiler=-Werror=unused-result,-Werror=unused-value ${_inc} -c ${REASSIGN} -o ${WORK}/nvcc_reassign.o)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "assigning a bwgemm::Status warns or fails under nvcc (#2810-D?):\n${out}")
  endif()
endif()
message(STATUS "a dropped bwgemm::Status is a compile error under -Werror; an assigned one compiles clean")
