//===- ManifestTest.cpp - A step's manifest, written and read back --------===//

#include "amptrain/Manifest.h"
#include "amptrain/Distributed.h"
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>

using namespace amp::train;

namespace {

Manifest sample() {
  Manifest m;
  m.object = "step.o";
  m.objectBytes = 5;
  m.objectFingerprint = "a0f7b8c9d0e1f203";
  m.triple = "x86_64-pc-linux-gnu";
  m.cpu = "x86-64";
  m.source = "model.mlir";
  m.precision = "fp8";
  m.lossScaling = "dynamic";
  m.initScale = 1024;
  m.options = "precision=fp8";
  m.optionsFingerprint = "0123456789abcdef";
  m.lossClasses = 3;
  ValueSpec w{{AMPRT_F32, {4, 3}}, Role::Param, Initializer::HeNormal, {}};
  ValueSpec x{
      {AMPRT_BF16, {8, 4}}, Role::Input, Initializer::GlorotUniform, {}};
  ValueSpec scale{
      {AMPRT_F32, {}}, Role::LossScale, Initializer::GlorotUniform, 65536.0};
  ValueSpec history{
      {AMPRT_F32, {16}}, Role::AmaxHistory, Initializer::GlorotUniform, {}};
  ValueSpec loss{{AMPRT_F32, {}}, Role::Loss, Initializer::GlorotUniform, {}};
  m.train = {"train_step", {w, x, scale, history}, {loss, w, scale, history}};
  m.eval =
      FunctionSpec{"predict", {w, x}, {{{AMPRT_F32, {8, 3}}, Role::Logits}}};
  m.fp8 = {{3, "f8E4M3FN", 0}};
  return m;
}

bool sameValue(const ValueSpec &a, const ValueSpec &b, bool argument) {
  return a.type == b.type && a.role == b.role &&
         (!argument || a.role != Role::Param || a.init == b.init) &&
         (!argument || a.initValue == b.initValue);
}

bool sameFunction(const FunctionSpec &a, const FunctionSpec &b) {
  if (a.name != b.name || a.args.size() != b.args.size() ||
      a.results.size() != b.results.size())
    return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!sameValue(a.args[i], b.args[i], true))
      return false;
  for (size_t i = 0; i < a.results.size(); ++i)
    if (!sameValue(a.results[i], b.results[i], false))
      return false;
  return true;
}

/// `sample()` as JSON with `edit` applied to its top-level object.
std::string failureOf(void (*edit)(json::Object &)) {
  json::Value value = sample().toJson();
  edit(*value.asObject());
  auto read = Manifest::fromJson(value, "m.json");
  return read ? "" : read.message();
}

} // namespace

TEST(Manifest, ReadsBackWhatItWrites) {
  Manifest m = sample();
  std::string text = json::print(m.toJson());
  auto value = json::parse(text);
  ASSERT_TRUE(value.has_value());
  auto read = Manifest::fromJson(*value, "m.json");
  ASSERT_TRUE(!!read) << read.message();
  EXPECT_EQ(read->precision, "fp8");
  EXPECT_EQ(read->lossScaling, "dynamic");
  EXPECT_EQ(read->initScale, 1024);
  EXPECT_EQ(read->lossClasses, 3);
  EXPECT_EQ(read->objectFingerprint, m.objectFingerprint);
  EXPECT_TRUE(sameFunction(read->train, m.train));
  ASSERT_TRUE(read->eval.has_value());
  EXPECT_TRUE(sameFunction(*read->eval, *m.eval));
  ASSERT_EQ(read->fp8.size(), 1u);
  EXPECT_EQ(read->fp8[0].argument, 3u);
  EXPECT_EQ(read->fp8[0].format, "f8E4M3FN");
  // Written again, it is the same text.
  EXPECT_EQ(json::print(read->toJson()), text);
}

TEST(Manifest, RefusesAnotherVersion) {
  std::string why = failureOf([](json::Object &o) { o["version"] = 1; });
  EXPECT_NE(why.find("manifest 'm.json' is version 1; this build reads "
                     "version 3"),
            std::string::npos)
      << why;
}

// The object's "fnv1a64" is FNV-1a as others compute it (the published
// test vectors), so tools outside amp can check an object.
TEST(Manifest, ObjectFingerprintIsFnv1a64) {
  EXPECT_EQ(fingerprint(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fingerprint("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fingerprintHex("foobar"), "85944171f73967e8");
}

TEST(Manifest, NamesAMissingOrWrongField) {
  std::string why = failureOf(
      [](json::Object &o) { (*o["train"].asObject())["arguments"] = "none"; });
  EXPECT_EQ(why, "manifest 'm.json': train.arguments must be an array");
  why = failureOf([](json::Object &o) {
    json::Object &train = *o["train"].asObject();
    (*(*train["arguments"].asArray())[1].asObject())["role"] = "weight";
  });
  EXPECT_EQ(why, "manifest 'm.json': train.arguments[1].role must be a "
                 "tg.role name, not 'weight'");
  why = failureOf([](json::Object &o) {
    json::Object &train = *o["train"].asObject();
    (*(*train["arguments"].asArray())[0].asObject())["shape"] =
        json::Array{4, 0};
  });
  EXPECT_EQ(why, "manifest 'm.json': train.arguments[0].shape must be a list "
                 "of sizes from 1 to 2^40");
  why = failureOf([](json::Object &o) {
    (*(*o["fp8_histories"].asArray())[0].asObject())["argument"] = 9;
  });
  EXPECT_EQ(why, "manifest 'm.json': fp8_histories[0].argument must be an "
                 "argument of the training entry");
  why = failureOf([](json::Object &o) { o["format"] = "something-else"; });
  EXPECT_EQ(why, "manifest 'm.json': format must be \"amp-step-manifest\"");
}

TEST(Manifest, ChecksItsObject) {
  std::string path = ::testing::TempDir() + "/manifest-object.o";
  {
    std::ofstream out(path, std::ios::binary);
    out << "bytes";
  }
  auto file = fingerprintFile(path);
  ASSERT_TRUE(!!file);
  Manifest m = sample();
  m.objectBytes = file->first;
  m.objectFingerprint = file->second;
  EXPECT_FALSE(checkObject(m, path));
  {
    std::ofstream out(path, std::ios::binary);
    out << "bytez";
  }
  Status changed = checkObject(m, path);
  ASSERT_TRUE(!!changed);
  EXPECT_NE(changed.message().find("is not the object its manifest describes"),
            std::string::npos);
  std::remove(path.c_str());
  EXPECT_TRUE(!!checkObject(m, path));
}

TEST(Manifest, UnreadableOrNotJson) {
  auto missing = Manifest::load("/nonexistent/step.o.json");
  ASSERT_FALSE(!!missing);
  EXPECT_NE(missing.message().find("cannot read the manifest"),
            std::string::npos);
  std::string path = ::testing::TempDir() + "/manifest-bad.json";
  {
    std::ofstream out(path);
    out << "{\"format\": ";
  }
  auto bad = Manifest::load(path);
  ASSERT_FALSE(!!bad);
  EXPECT_NE(bad.message().find("is not valid JSON: line 1"), std::string::npos)
      << bad.message();
  std::remove(path.c_str());
}
