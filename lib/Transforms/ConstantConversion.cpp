//===- ConstantConversion.cpp - Weights converted in bulk -----------------===//
//
// The element conversions are the runtime's (runtime/common/amprt_half.h):
// one definition of f32 -> f16 / bf16 rounding for the compiler's folds and
// the kernels that convert at run time.
//
//===----------------------------------------------------------------------===//

#include "ConstantConversion.h"
#include "amprt_half.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include <cstring>

using namespace mlir;

namespace amp {

namespace {

/// The f32 values of `values` without copying them: the raw data of a
/// dense attribute (one value for a splat) or a resource blob.
std::optional<ArrayRef<char>> rawF32(Attribute values, bool &splat) {
  splat = false;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(values)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    splat = dense.isSplat();
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(values)) {
    std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef();
    if (!data)
      return std::nullopt;
    return ArrayRef<char>(reinterpret_cast<const char *>(data->data()),
                          data->size() * sizeof(float));
  }
  return std::nullopt;
}

} // namespace

ConstantConverter::Entry *ConstantConverter::lookup(Attribute values,
                                                    FloatType target) {
  if (!target.isF16() && !target.isBF16())
    return nullptr;
  auto [it, inserted] = entries.try_emplace({values, target}, nullptr);
  if (!inserted)
    return it->second.get();
  bool splat;
  std::optional<ArrayRef<char>> raw = rawF32(values, splat);
  if (!raw)
    return nullptr;
  auto entry = std::make_unique<Entry>();
  size_t n = raw->size() / sizeof(float);
  entry->bits.resize(n);
  bool toHalf = target.isF16();
  const uint16_t largest = toHalf ? 0x7BFF : 0x7F7F;
  const uint16_t infinity = toHalf ? 0x7C00 : 0x7F80;
  const uint16_t mantissaMask = toHalf ? 0x03FF : 0x007F;
  int64_t overflowed = 0, zeros = 0, subnormals = 0;
  const char *data = raw->data();
  uint16_t *out = entry->bits.data();
  for (size_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, data + i * sizeof(float), sizeof(float));
    uint16_t h = toHalf ? amprt::floatToHalf(f) : amprt::floatToBf16(f);
    uint32_t fAbs = amprt::floatBits(f) & 0x7FFFFFFFu;
    uint16_t hAbs = h & 0x7FFF;
    bool finite = fAbs < 0x7F800000u;
    bool over = finite && hAbs == infinity;
    bool nonzero = fAbs != 0;
    overflowed += over;
    zeros += nonzero && hAbs == 0;
    subnormals += nonzero && hAbs != 0 && hAbs <= mantissaMask;
    if (over && overflow == ConstantOverflow::Saturate)
      h = (h & 0x8000) | largest;
    out[i] = h;
  }
  int64_t scale =
      splat
          ? cast<ShapedType>(cast<TypedAttr>(values).getType()).getNumElements()
          : 1;
  entry->counts = {static_cast<int64_t>(n) * scale, overflowed * scale,
                   zeros * scale, subnormals * scale};
  it->second = std::move(entry);
  return it->second.get();
}

const ConversionCounts *ConstantConverter::count(Attribute values,
                                                 FloatType target) {
  Entry *entry = lookup(values, target);
  return entry ? &entry->counts : nullptr;
}

bool ConstantConverter::fits(Attribute values, FloatType target) {
  // Data the converter cannot read (an elided resource) converts at run
  // time through a cast, which the IR shows.
  const ConversionCounts *counts = count(values, target);
  return !counts || counts->overflowed == 0 ||
         overflow == ConstantOverflow::Saturate;
}

ElementsAttr ConstantConverter::convert(Attribute values, ShapedType type) {
  auto target = dyn_cast<FloatType>(type.getElementType());
  Entry *entry = target ? lookup(values, target) : nullptr;
  if (!entry)
    return {};
  if (entry->converted && entry->converted.getType() == type)
    return entry->converted;
  ArrayRef<char> bytes(reinterpret_cast<const char *>(entry->bits.data()),
                       entry->bits.size() * sizeof(uint16_t));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(values)) {
    // A new blob beside the original, as front ends store weights.
    std::string name = (resource.getRawHandle().getKey() + "_" +
                        (target.isF16() ? "f16" : "bf16"))
                           .str();
    entry->converted = DenseResourceElementsAttr::get(
        type, name,
        HeapAsmResourceBlob::allocateAndCopyInferAlign(
            ArrayRef<uint16_t>(entry->bits)));
  } else {
    entry->converted = DenseElementsAttr::getFromRawBuffer(type, bytes);
  }
  return entry->converted;
}

} // namespace amp
