//===- JsonFields.h - Typed fields of the JSON files amp reads -*- C++ -*-===//
//
// Reading a manifest or a checkpoint's header: each field by its type, a
// missing or mistyped one a failure naming the file and the field's path.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_JSONFIELDS_H
#define AMPTRAIN_JSONFIELDS_H

#include "amptrain/Json.h"
#include "amptrain/Result.h"

namespace amp::train {

/// Typed fields of one JSON object; a missing or mistyped field is a
/// failure naming the file (its kind, `noun`) and the field's path in it.
class Fields {
public:
  Fields(const json::Object &object, std::string where, const std::string &file,
         const char *noun)
      : members(object), where(std::move(where)), file(file), noun(noun) {}

  Status bad(const std::string &key, const std::string &want) const {
    return failure(std::string(noun) + " '" + file + "': " + where + key +
                   " must be " + want);
  }
  const json::Value *get(const std::string &key) const {
    return members.find(key);
  }
  Expected<std::string> string(const std::string &key) const {
    const json::Value *v = get(key);
    if (!v || !v->asString())
      return bad(key, "a string");
    return *v->asString();
  }
  Expected<int64_t> integer(const std::string &key) const {
    const json::Value *v = get(key);
    if (!v || !v->asInteger())
      return bad(key, "an integer");
    return *v->asInteger();
  }
  Expected<double> number(const std::string &key) const {
    const json::Value *v = get(key);
    if (!v || !v->asNumber())
      return bad(key, "a number");
    return *v->asNumber();
  }
  Expected<bool> boolean(const std::string &key) const {
    const json::Value *v = get(key);
    if (!v || !v->asBool())
      return bad(key, "true or false");
    return *v->asBool();
  }
  Expected<Fields> object(const std::string &key) const {
    const json::Value *v = get(key);
    if (!v || !v->asObject())
      return bad(key, "an object");
    return Fields(*v->asObject(), where + key + ".", file, noun);
  }
  Expected<const json::Array *> array(const std::string &key) const {
    const json::Value *v = get(key);
    if (!v || !v->asArray())
      return bad(key, "an array");
    return v->asArray();
  }
  const std::string &fileName() const { return file; }
  Fields element(const json::Object &o, const std::string &key,
                 size_t i) const {
    return Fields(o, where + key + "[" + std::to_string(i) + "].", file, noun);
  }

private:
  const json::Object &members;
  std::string where;
  const std::string &file;
  const char *noun;
};

// Unwraps an Expected field into `out`, or returns its failure.
#define AMPTRAIN_READ(out, expr)                                               \
  do {                                                                         \
    auto read_ = (expr);                                                       \
    if (!read_)                                                                \
      return read_.status();                                                   \
    out = *read_;                                                              \
  } while (0)

} // namespace amp::train

#endif // AMPTRAIN_JSONFIELDS_H
