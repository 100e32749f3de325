//===- GradientOpInterface.cpp - How an op is differentiated --------------===//

#include "amp/Interfaces/GradientOpInterface.h"

#include "amp/Interfaces/GradientOpInterface.cpp.inc"
