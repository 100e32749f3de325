//===- LossScalingDefaults.h - Loss-scaling defaults, once -------*- C++ -*-===//
//
// The defaults of --amp-loss-scaling (SPEC section 4; PyTorch GradScaler's),
// used by the pass's ODS options, --amp-pipeline and amp-run alike. Hosts do
// not restate them: the pass writes the initial scale into the IR
// (`tg.init_value` on the `loss_scale` argument).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_LOSSSCALINGDEFAULTS_H
#define AMP_TRANSFORMS_LOSSSCALINGDEFAULTS_H

#include <cstdint>

namespace amp::loss_scaling {
inline constexpr double kInitScale = 65536.0; // 2^16
inline constexpr double kGrowthFactor = 2.0;
inline constexpr double kBackoffFactor = 0.5;
inline constexpr int64_t kGrowthInterval = 2000;
inline constexpr double kMinScale = 1.0;
inline constexpr double kMaxScale = 16777216.0; // 2^24
} // namespace amp::loss_scaling

#endif // AMP_TRANSFORMS_LOSSSCALINGDEFAULTS_H
