// Every persistence model's unit, one line a model in model_registry.cc: the tracker makes its
// units here and never branches on the model itself. A new model is its own file (model.h),
// its name in scenario/persistence_model.h and one line in the registry; a test checks that
// every model in kPersistenceModels has its unit.
#pragma once

#include <memory>
#include <span>

#include "durability/model.h"
#include "scenario/persistence_model.h"

namespace killpoint::durability {

struct ModelUnit {
  PersistenceModel model;
  std::unique_ptr<Model> (*make)();
};

// The registered units, in kPersistenceModels' order.
std::span<const ModelUnit> ModelUnits();
// A fresh unit of `model`; null for one not registered.
std::unique_ptr<Model> MakeModel(PersistenceModel model);
// Whether a crash under `model` rewrites the sandbox (its unit's Rewrites): whether the runner
// tracks an attempt killed under it and applies the model after the kill.
bool Rewrites(PersistenceModel model);

}  // namespace killpoint::durability
