//===- CommandLine.cpp - amp-run's flags, bound to a RunConfig ------------===//

#include "CommandLine.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace amp::run {

bool NumberParser::parse(cl::Option &option, StringRef name, StringRef text,
                         double &value) {
  if (text.trim().empty())
    return option.error("'' is not a number");
  return cl::parser<double>::parse(option, name, text, value);
}

void CommandLine::hideForeignOptions() {
  const cl::OptionCategory *own[] = {&training, &validation, &parallel,
                                     &checkpoints};
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    StringRef name = entry.first;
    bool ours = any_of(option->Categories, [&](auto *category) {
      return is_contained(own, category);
    });
    if (!ours && !name.starts_with("help") && name != "version" &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}

bool CommandLine::parse(int argc, char **argv) {
  hideForeignOptions();
  // LLVM's refusals ("Unknown command line argument '--bogus'. Try: ...
  // Did you mean ...?", "for the --steps option: 'abc' value invalid for
  // long argument!") are said as one error line.
  std::string parseErrors;
  raw_string_ostream errors(parseErrors);
  std::string message;
  if (cl::ParseCommandLineOptions(
          argc, argv, "amp-run: train a tg training step\n", &errors)) {
    message = finish();
  } else {
    for (StringRef line : llvm::split(StringRef(parseErrors).trim(), '\n')) {
      line.consume_front("amp-run: ");
      if (!line.trim().empty())
        message += (message.empty() ? "" : " ") + line.trim().str();
    }
    if (message.empty())
      return false;
  }
  if (message.empty())
    return true;
  errs() << "amp-run: error: " << message << "\n";
  return false;
}

std::string CommandLine::finish() {
  // A flag given an empty value ("--report=") would otherwise quietly mean
  // "not given". --lower-options= is no options, and --validate's value is
  // optional.
  for (const Flag<std::string> *flag :
       {&entry, &evalEntry, &device, &precision, &data, &report, &listsFile,
        &emitObj, &emitObjCpu, &validateFix, &validateAnnotate, &comm,
        &gradComm, &injectFault})
    if (flag->getNumOccurrences() && flag->getValue().empty())
      return "--" + flag->ArgStr.str() + "= needs a value";
  run.lrGiven = lr.getNumOccurrences() > 0;
  run.gradCommGiven = gradComm.getNumOccurrences() > 0;
  run.bucketBytesGiven = bucketBytes.getNumOccurrences() > 0;
  config.tolerancesGiven = validateTolF16.getNumOccurrences() ||
                           validateTolBF16.getNumOccurrences() ||
                           validateMaxFlushed.getNumOccurrences();
  if (!validate.getNumOccurrences())
    return "";
  // A count that is no number is refused by checkConfig, in its turn.
  int64_t count = 5;
  if (!validate.empty() && StringRef(validate).getAsInteger(10, count))
    count = 0;
  config.validateSteps = count;
  config.validateText = validate;
  return "";
}

} // namespace amp::run
