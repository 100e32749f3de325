//===- Checkpoint.cpp - Writing and reading checkpoint.amp ----------------===//

#include "amptrain/Checkpoint.h"
#include "FileKind.h"
#include "JsonFields.h"
#include "amptrain/Distributed.h"
#include "amptrain/Trainer.h"
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace amp::train {

std::string Checkpoint::pathIn(const std::string &dir) {
  return dir + "/" + kFileName;
}

std::string signatureFingerprint(const FunctionSpec &f) {
  std::string text;
  for (const auto *values : {&f.args, &f.results}) {
    for (const ValueSpec &v : *values)
      text += std::string(v.role ? roleName(*v.role) : "-") + ":" +
              v.type.str() + ";";
    text += "|";
  }
  return fingerprintHex(text);
}

namespace {

/// "amp-checkpoint 1\n": the magic and the version, one line.
std::string magicLine(int64_t version) {
  return std::string(Checkpoint::kMagic) + " " + std::to_string(version) + "\n";
}

json::Value headerJson(const Checkpoint &c) {
  json::Array tensors;
  for (const Checkpoint::Tensor &t : c.tensors) {
    json::Array shape;
    for (int64_t d : t.type.shape)
      shape.push_back(d);
    tensors.push_back(json::Object{{"argument", t.argument},
                                   {"role", roleName(t.role)},
                                   {"dtype", dtypeName(t.type.dtype)},
                                   {"shape", shape},
                                   {"bytes", (int64_t)t.bytes.size()}});
  }
  json::Array saturated;
  for (int64_t n : c.fp8Saturated)
    saturated.push_back(n);
  return json::Object{{"step", c.step},
                      {"precision", c.precision},
                      {"data", c.data},
                      {"seed", c.seed},
                      {"ranks", c.ranks},
                      {"batch", c.batch},
                      {"signature", c.signature},
                      {"generator", c.generator},
                      {"order", (int64_t)c.order.size()},
                      {"skipped_steps", c.skippedSteps},
                      {"fp8_saturated", saturated},
                      {"tensors", tensors}};
}

/// Writes pieces to a file, keeping their FNV-1a and calling `halfway`
/// once `half` bytes have gone.
struct Sink {
  std::FILE *out;
  uint64_t hash = 14695981039346656037ull, written = 0, half = 0;
  void (*halfway)(void *) = nullptr;
  void *context = nullptr;

  bool put(const char *data, size_t size) {
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ (unsigned char)data[i]) * 1099511628211ull;
    while (size) {
      size_t piece = size;
      if (halfway && written < half && written + piece >= half)
        piece = half - written;
      if (piece && std::fwrite(data, 1, piece, out) != piece)
        return false;
      written += piece, data += piece, size -= piece;
      if (halfway && written == half) {
        std::fflush(out);
        auto call = halfway;
        halfway = nullptr;
        call(context);
      }
    }
    return true;
  }
};

Status makeDirectory(const std::string &dir) {
  struct stat info;
  if (stat(dir.c_str(), &info) == 0)
    return S_ISDIR(info.st_mode)
               ? Status::success()
               : failure("--save '" + dir + "' is not a directory");
  if (mkdir(dir.c_str(), 0777) != 0)
    return failure("cannot make --save directory '" + dir +
                   "': " + std::strerror(errno));
  return Status::success();
}

} // namespace

Status Checkpoint::save(const std::string &dir, void (*halfway)(void *),
                        void *context) const {
  if (Status bad = makeDirectory(dir))
    return bad;
  std::string header = json::print(headerJson(*this), 0);
  std::string head = magicLine(kVersion) + std::to_string(header.size()) +
                     "\n" + header + "\n";
  uint64_t total = head.size() + order.size() * sizeof(int64_t);
  for (const Tensor &t : tensors)
    total += t.bytes.size();
  return writeFileFrom(pathIn(dir), "--save", [&](std::FILE *out) {
    Sink sink{out};
    sink.half = total / 2;
    sink.halfway = halfway;
    sink.context = context;
    if (!sink.put(head.data(), head.size()))
      return false;
    for (const Tensor &t : tensors)
      if (!sink.put(t.bytes.data(), t.bytes.size()))
        return false;
    if (!sink.put(reinterpret_cast<const char *>(order.data()),
                  order.size() * sizeof(int64_t)))
      return false;
    char sum[18];
    std::snprintf(sum, sizeof(sum), "%016llx\n", (unsigned long long)sink.hash);
    return std::fwrite(sum, 1, 17, out) == 17;
  });
}

namespace {

/// Reads the tensors' entries of a header.
Status readTensors(const Fields &top, Checkpoint &c) {
  const json::Array *list = nullptr;
  AMPTRAIN_READ(list, top.array("tensors"));
  for (size_t i = 0; i < list->size(); ++i) {
    const json::Object *o = (*list)[i].asObject();
    if (!o)
      return top.bad("tensors[" + std::to_string(i) + "]", "an object");
    Fields f = top.element(*o, "tensors", i);
    Checkpoint::Tensor t;
    std::string role, dtype;
    int64_t bytes = 0;
    AMPTRAIN_READ(t.argument, f.integer("argument"));
    AMPTRAIN_READ(role, f.string("role"));
    AMPTRAIN_READ(dtype, f.string("dtype"));
    AMPTRAIN_READ(bytes, f.integer("bytes"));
    std::optional<Role> parsedRole = roleNamed(role);
    std::optional<amprt_dtype> parsedType = dtypeNamed(dtype);
    if (!parsedRole)
      return f.bad("role", "a tg.role name, not '" + role + "'");
    if (!parsedType)
      return f.bad("dtype", "an element type name, not '" + dtype + "'");
    t.role = *parsedRole;
    t.type.dtype = *parsedType;
    const json::Array *shape = nullptr;
    AMPTRAIN_READ(shape, f.array("shape"));
    for (const json::Value &d : *shape) {
      if (!d.asInteger() || *d.asInteger() < 1)
        return f.bad("shape", "sizes >= 1");
      t.type.shape.push_back(*d.asInteger());
    }
    uint64_t want = 0;
    if (__builtin_mul_overflow((uint64_t)t.type.numel(),
                               amprt_dtype_size(t.type.dtype), &want) ||
        bytes < 0 || uint64_t(bytes) != want)
      return f.bad("bytes", "the shape's size in bytes");
    t.bytes.resize(bytes);
    c.tensors.push_back(std::move(t));
  }
  return Status::success();
}

/// A count in decimal digits, nothing else.
bool decimal(std::string_view text, uint64_t &out) {
  if (text.empty() || text.size() > 18)
    return false;
  out = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9')
      return false;
    out = out * 10 + uint64_t(ch - '0');
  }
  return true;
}

Status readHeader(const Fields &top, Checkpoint &c) {
  AMPTRAIN_READ(c.step, top.integer("step"));
  AMPTRAIN_READ(c.precision, top.string("precision"));
  AMPTRAIN_READ(c.data, top.string("data"));
  AMPTRAIN_READ(c.seed, top.integer("seed"));
  AMPTRAIN_READ(c.ranks, top.integer("ranks"));
  AMPTRAIN_READ(c.batch, top.integer("batch"));
  AMPTRAIN_READ(c.signature, top.string("signature"));
  AMPTRAIN_READ(c.generator, top.string("generator"));
  int64_t order = 0;
  AMPTRAIN_READ(order, top.integer("order"));
  AMPTRAIN_READ(c.skippedSteps, top.integer("skipped_steps"));
  const json::Array *saturated = nullptr;
  AMPTRAIN_READ(saturated, top.array("fp8_saturated"));
  for (const json::Value &n : *saturated) {
    if (!n.asInteger() || *n.asInteger() < 0)
      return top.bad("fp8_saturated", "counts");
    c.fp8Saturated.push_back(*n.asInteger());
  }
  if (c.step < 0 || c.ranks < 1 || c.batch < 1 || order < 0)
    return top.bad("step, ranks, batch and order", "counts");
  c.order.resize(order);
  return readTensors(top, c);
}

} // namespace

Expected<Checkpoint> Checkpoint::load(const std::string &dir) {
  std::string path = pathIn(dir);
  auto fail = [&](const std::string &why) {
    return failure("checkpoint '" + path + "': " + why);
  };
  if (amprt::kindOf(path) == amprt::FileKind::Other)
    return fail(amprt::kNotRegularFile);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(std::string("cannot open: ") + std::strerror(errno));
  std::stringstream whole;
  whole << in.rdbuf();
  std::string file = whole.str();
  std::string magic = std::string(kMagic) + " ";
  size_t line = file.find('\n');
  if (file.compare(0, magic.size(), magic) != 0 || line == std::string::npos)
    return fail("not an amp checkpoint");
  if (file.substr(0, line + 1) != magicLine(kVersion))
    return fail("version " + file.substr(magic.size(), line - magic.size()) +
                "; this build reads version " + std::to_string(kVersion));
  size_t lengthEnd = file.find('\n', line + 1);
  uint64_t headerBytes = 0;
  if (lengthEnd == std::string::npos ||
      !decimal(file.substr(line + 1, lengthEnd - line - 1), headerBytes) ||
      headerBytes > file.size() ||
      lengthEnd + 1 + headerBytes + 1 > file.size())
    return fail("truncated header");
  size_t bodyStart = lengthEnd + 1 + headerBytes + 1;
  std::string error;
  std::optional<json::Value> header =
      json::parse(file.substr(lengthEnd + 1, headerBytes), &error);
  if (!header || !header->asObject())
    return fail("its header is not a JSON object: " + error);
  Checkpoint c;
  Fields top(*header->asObject(), "", path, "checkpoint");
  if (Status bad = readHeader(top, c))
    return bad;
  uint64_t body = c.order.size() * sizeof(int64_t);
  for (const Tensor &t : c.tensors)
    body += t.bytes.size();
  if (file.size() < bodyStart + body + 17)
    return fail("truncated: the header promises " + std::to_string(body) +
                " bytes of tensors, the file ends before them");
  if (file.size() > bodyStart + body + 17)
    return fail("more bytes than the header promises");
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                (unsigned long long)fingerprint(
                    std::string_view(file).substr(0, bodyStart + body)));
  if (file.compare(bodyStart + body, 17, std::string(hex) + "\n") != 0)
    return fail("corrupt: its checksum does not match its bytes");
  size_t at = bodyStart;
  for (Tensor &t : c.tensors) {
    t.bytes = file.substr(at, t.bytes.size());
    at += t.bytes.size();
  }
  // A text run keeps no example order, and an empty vector's data() may be
  // null, which memcpy must not be given even for zero bytes.
  if (!c.order.empty())
    std::memcpy(c.order.data(), file.data() + at, body - (at - bodyStart));
  return c;
}

} // namespace amp::train
