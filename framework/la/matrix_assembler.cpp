#include "framework/la/matrix_assembler.hpp"

#include "framework/core/error.hpp"

namespace kinema::la {

void MatrixAssembler::checkBlockSize(int n) const {
  if (n != blockSize())
    throw Error(str("matrix assembler: a ", n, "x", n, " block was added to an assembler of ",
                    blockSize(), "x", blockSize(), " blocks"));
}

}  // namespace kinema::la
