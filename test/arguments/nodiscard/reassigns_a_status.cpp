// Must compile without a nodiscard warning, under the host compiler and nvcc (check_nodiscard.cmake):
// a Status assigned to an existing variable, copied and moved is used, not dropped.
#include <utility>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/arguments/nvfp4_gemm.hpp"

int main() {
  bwgemm::GemmArguments<__half> args;
  bwgemm::Status s = bwgemm::validate(args);
  bwgemm::Nvfp4GemmArguments<__half> nvfp4_args;
  s = bwgemm::validate(nvfp4_args);  // a later call's Status into the same variable
  bwgemm::Status copy;
  copy = s;
  bwgemm::Status moved;
  moved = std::move(copy);
  return s.ok() || moved.ok() ? 1 : 0;
}
