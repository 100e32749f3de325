//===- RuntimeLoweringOpInterface.cpp - How an op runs on amprt -----------===//

#include "amp/Interfaces/RuntimeLoweringOpInterface.h"

#include "amp/Interfaces/RuntimeLoweringOpInterface.cpp.inc"
