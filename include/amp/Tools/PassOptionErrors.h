//===- PassOptionErrors.h - Pass option errors in one line ------*- C++ -*-===//
//
// MLIR's pass option parser reports an unknown option as
// "<Pass-Options-Parser>: no such option X" and a value LLVM's option parser
// refuses with an empty message (LLVM has printed the reason to stderr
// already). amp's tools say either in one line of their own.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_PASSOPTIONERRORS_H
#define AMP_TOOLS_PASSOPTIONERRORS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include <string>

namespace amp {

/// The message without the parser's prefix or surrounding blank space;
/// empty when the reason was already printed.
inline std::string passOptionMessage(const llvm::Twine &message) {
  std::string whole = message.str();
  llvm::StringRef text = llvm::StringRef(whole).trim();
  text.consume_front("<Pass-Options-Parser>:");
  return text.trim().str();
}

} // namespace amp

#endif // AMP_TOOLS_PASSOPTIONERRORS_H
