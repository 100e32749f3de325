//===- Manifest.cpp - What a host needs to run a step compiled ahead of time
//===//

#include "amptrain/Manifest.h"
#include "JsonFields.h"
#include "amptrain/Distributed.h"
#include <fstream>
#include <sstream>

namespace amp::train {

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static json::Value valueToJson(const ValueSpec &value, bool argument) {
  json::Array shape;
  for (int64_t d : value.type.shape)
    shape.push_back(d);
  json::Object out{{"role", value.role ? json::Value(roleName(*value.role))
                                       : json::Value(nullptr)},
                   {"dtype", dtypeName(value.type.dtype)},
                   {"shape", std::move(shape)}};
  if (argument && value.role == Role::Param)
    out["init"] = initializerName(value.init);
  if (argument && value.initValue)
    out["init_value"] = *value.initValue;
  return out;
}

static json::Value functionToJson(const FunctionSpec &f) {
  json::Array args, results;
  for (const ValueSpec &v : f.args)
    args.push_back(valueToJson(v, true));
  for (const ValueSpec &v : f.results)
    results.push_back(valueToJson(v, false));
  return json::Object{
      {"name", f.name}, {"arguments", args}, {"results", results}};
}

json::Value Manifest::toJson() const {
  json::Array histories;
  for (const Fp8History &h : fp8)
    histories.push_back(json::Object{
        {"argument", h.argument}, {"format", h.format}, {"margin", h.margin}});
  return json::Object{
      {"format", kFormat},
      {"version", kVersion},
      {"object", json::Object{{"file", object},
                              {"bytes", objectBytes},
                              {"fnv1a64", objectFingerprint}}},
      {"target", json::Object{{"triple", triple}, {"cpu", cpu}}},
      {"runtime_abi", runtimeAbi},
      {"source", source},
      {"precision", precision},
      {"loss_scaling",
       json::Object{{"mode", lossScaling}, {"init_scale", initScale}}},
      {"data_parallel", json::Object{{"enabled", dataParallel},
                                     {"grad_comm", gradComm},
                                     {"bucket_bytes", bucketBytes},
                                     {"reduce_amax", reduceAmax}}},
      {"options", options},
      {"options_fingerprint", optionsFingerprint},
      {"loss_classes", lossClasses},
      {"train", functionToJson(train)},
      {"eval", eval ? functionToJson(*eval) : json::Value(nullptr)},
      {"fp8_histories", histories}};
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

Expected<ValueSpec> readValue(const Fields &f, bool argument) {
  ValueSpec v;
  const json::Value *role = f.get("role");
  if (!role || (!role->isNull() && !role->asString()))
    return f.bad("role", "a tg.role name or null");
  if (role->asString()) {
    v.role = roleNamed(*role->asString());
    if (!v.role)
      return f.bad("role", "a tg.role name, not '" + *role->asString() + "'");
  }
  std::string dtype;
  AMPTRAIN_READ(dtype, f.string("dtype"));
  std::optional<amprt_dtype> parsed = dtypeNamed(dtype);
  if (!parsed)
    return f.bad("dtype",
                 "an element type the runtime holds, not '" + dtype + "'");
  v.type.dtype = *parsed;
  const json::Array *shape = nullptr;
  AMPTRAIN_READ(shape, f.array("shape"));
  for (const json::Value &d : *shape) {
    if (!d.asInteger() || *d.asInteger() < 1 || *d.asInteger() > (1ll << 40))
      return f.bad("shape", "a list of sizes from 1 to 2^40");
    v.type.shape.push_back(*d.asInteger());
  }
  if (f.get("init")) {
    std::string init;
    AMPTRAIN_READ(init, f.string("init"));
    std::optional<Initializer> named = initializerNamed(init);
    if (!named)
      return f.bad("init", "a tg.init name, not '" + init + "'");
    v.init = *named;
  }
  if (f.get("init_value")) {
    double value;
    AMPTRAIN_READ(value, f.number("init_value"));
    v.initValue = value;
  }
  return v;
}

Expected<FunctionSpec> readFunction(const Fields &f) {
  FunctionSpec spec;
  AMPTRAIN_READ(spec.name, f.string("name"));
  for (const char *key : {"arguments", "results"}) {
    const json::Array *values = nullptr;
    AMPTRAIN_READ(values, f.array(key));
    bool argument = std::string(key) == "arguments";
    for (size_t i = 0; i < values->size(); ++i) {
      const json::Object *o = (*values)[i].asObject();
      if (!o)
        return f.bad(key, "a list of objects");
      ValueSpec v;
      AMPTRAIN_READ(v, readValue(f.element(*o, key, i), argument));
      (argument ? spec.args : spec.results).push_back(std::move(v));
    }
  }
  return spec;
}

Status readHeader(const Fields &top, Manifest &m) {
  std::string format;
  AMPTRAIN_READ(format, top.string("format"));
  if (format != Manifest::kFormat)
    return top.bad("format", std::string("\"") + Manifest::kFormat + "\"");
  int64_t version;
  AMPTRAIN_READ(version, top.integer("version"));
  if (version != Manifest::kVersion)
    return failure("manifest '" + top.fileName() + "' is version " +
                   std::to_string(version) + "; this build reads version " +
                   std::to_string(Manifest::kVersion) +
                   ": compile the step again with this build's amp-run");
  auto object = top.object("object");
  if (!object)
    return object.status();
  AMPTRAIN_READ(m.object, object->string("file"));
  AMPTRAIN_READ(m.objectBytes, object->integer("bytes"));
  AMPTRAIN_READ(m.objectFingerprint, object->string("fnv1a64"));
  auto target = top.object("target");
  if (!target)
    return target.status();
  AMPTRAIN_READ(m.triple, target->string("triple"));
  AMPTRAIN_READ(m.cpu, target->string("cpu"));
  AMPTRAIN_READ(m.runtimeAbi, top.integer("runtime_abi"));
  return Status::success();
}

Status readOptions(const Fields &top, Manifest &m) {
  AMPTRAIN_READ(m.source, top.string("source"));
  AMPTRAIN_READ(m.precision, top.string("precision"));
  auto scaling = top.object("loss_scaling");
  if (!scaling)
    return scaling.status();
  AMPTRAIN_READ(m.lossScaling, scaling->string("mode"));
  AMPTRAIN_READ(m.initScale, scaling->number("init_scale"));
  auto parallel = top.object("data_parallel");
  if (!parallel)
    return parallel.status();
  AMPTRAIN_READ(m.dataParallel, parallel->boolean("enabled"));
  AMPTRAIN_READ(m.gradComm, parallel->string("grad_comm"));
  AMPTRAIN_READ(m.bucketBytes, parallel->integer("bucket_bytes"));
  AMPTRAIN_READ(m.reduceAmax, parallel->boolean("reduce_amax"));
  AMPTRAIN_READ(m.options, top.string("options"));
  AMPTRAIN_READ(m.optionsFingerprint, top.string("options_fingerprint"));
  AMPTRAIN_READ(m.lossClasses, top.integer("loss_classes"));
  if (m.lossClasses < 1)
    return top.bad("loss_classes", "at least 1");
  return Status::success();
}

Status readFunctions(const Fields &top, Manifest &m) {
  auto train = top.object("train");
  if (!train)
    return train.status();
  AMPTRAIN_READ(m.train, readFunction(*train));
  const json::Value *eval = top.get("eval");
  if (eval && !eval->isNull()) {
    auto fields = top.object("eval");
    if (!fields)
      return fields.status();
    FunctionSpec spec;
    AMPTRAIN_READ(spec, readFunction(*fields));
    m.eval = std::move(spec);
  }
  const json::Array *histories = nullptr;
  AMPTRAIN_READ(histories, top.array("fp8_histories"));
  for (size_t i = 0; i < histories->size(); ++i) {
    const json::Object *o = (*histories)[i].asObject();
    if (!o)
      return top.bad("fp8_histories", "a list of objects");
    Fields h = top.element(*o, "fp8_histories", i);
    Fp8History history;
    int64_t argument;
    AMPTRAIN_READ(argument, h.integer("argument"));
    if (argument < 0 || argument >= (int64_t)m.train.args.size())
      return h.bad("argument", "an argument of the training entry");
    history.argument = (unsigned)argument;
    AMPTRAIN_READ(history.format, h.string("format"));
    if (history.format != "f8E4M3FN" && history.format != "f8E5M2")
      return h.bad("format", "\"f8E4M3FN\" or \"f8E5M2\"");
    int64_t margin;
    AMPTRAIN_READ(margin, h.integer("margin"));
    history.margin = (int)margin;
    m.fp8.push_back(history);
  }
  return Status::success();
}

} // namespace

Expected<Manifest> Manifest::fromJson(const json::Value &value,
                                      const std::string &path) {
  const json::Object *object = value.asObject();
  if (!object)
    return failure("manifest '" + path + "': not a JSON object");
  Fields top(*object, "", path, "manifest");
  Manifest m;
  for (Status (*read)(const Fields &, Manifest &) :
       {readHeader, readOptions, readFunctions})
    if (Status failed = read(top, m))
      return failed;
  return m;
}

Expected<Manifest> Manifest::load(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return failure("cannot read the manifest '" + path +
                   "' (amp-run --emit-obj=STEP.o writes STEP.o.json)");
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  std::optional<json::Value> value = json::parse(text.str(), &error);
  if (!value)
    return failure("manifest '" + path + "' is not valid JSON: " + error);
  return fromJson(*value, path);
}

Expected<std::pair<int64_t, std::string>>
fingerprintFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return failure("cannot read '" + path + "'");
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string all = bytes.str();
  return std::make_pair((int64_t)all.size(), fingerprintHex(all));
}

Status checkObject(const Manifest &manifest, const std::string &path) {
  auto found = fingerprintFile(path);
  if (!found)
    return found.status();
  if (found->first != manifest.objectBytes ||
      found->second != manifest.objectFingerprint)
    return failure("'" + path + "' is not the object its manifest describes (" +
                   std::to_string(found->first) + " bytes, fingerprint " +
                   found->second + "; the manifest says " +
                   std::to_string(manifest.objectBytes) + " bytes, " +
                   manifest.objectFingerprint +
                   "): compile the step and its manifest again together");
  if (manifest.runtimeAbi != amprt_abi_version())
    return failure("'" + path + "' calls the runtime C API of version " +
                   std::to_string(manifest.runtimeAbi) +
                   "; this runtime's is version " +
                   std::to_string(amprt_abi_version()) +
                   ": compile the step again with the amp-run of this "
                   "runtime's build");
  return Status::success();
}

} // namespace amp::train
