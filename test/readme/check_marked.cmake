# The README marks every snippet in EXPECTED (a fenced block after `<!-- snippet: NAME -->`).
#   cmake -DREADME=... -DEXPECTED="a;b" -P check_marked.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/readme_snippets.cmake)
readme_snippet_names(${README} names)
foreach(name IN LISTS EXPECTED)
  if(NOT name IN_LIST names)
    message(FATAL_ERROR "${README} no longer marks the snippet '${name}' (<!-- snippet: ${name} -->)")
  endif()
  readme_snippet(${README} ${name} body)  # fails where the block is missing or not closed
endforeach()
message(STATUS "the README marks ${EXPECTED}")
