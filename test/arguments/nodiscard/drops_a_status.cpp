// Must not compile with -Werror=unused-result: a Status dropped on the floor (test/arguments/CMakeLists.txt).
#include "bwgemm/arguments/gemm.hpp"

int main() {
  bwgemm::GemmArguments<__half> args;
  bwgemm::validate(args);  // the caller ignores the error
  return 0;
}
