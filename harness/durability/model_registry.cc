#include "durability/model_registry.h"

#include <array>

#include "durability/ext4_ordered_model.h"
#include "durability/power_model.h"
#include "durability/process_model.h"
#include "durability/torn_model.h"

namespace killpoint::durability {
namespace {

template <typename Unit>
std::unique_ptr<Model> MakeUnit() {
  return std::make_unique<Unit>();
}

constexpr std::array kUnits = {
    ModelUnit{PersistenceModel::kProcess, MakeUnit<ProcessModel>},
    ModelUnit{PersistenceModel::kPower, MakeUnit<PowerModel>},
    ModelUnit{PersistenceModel::kTorn, MakeUnit<TornModel>},
    ModelUnit{PersistenceModel::kExt4Ordered, MakeUnit<Ext4OrderedModel>},
};

// Every model has a unit, in the same order: a model named in kPersistenceModels without its
// line here fails the build.
constexpr bool EveryModelRegistered() {
  if (kUnits.size() != kPersistenceModels.size()) return false;
  for (size_t i = 0; i < kUnits.size(); ++i) {
    if (kUnits[i].model != kPersistenceModels[i]) return false;
  }
  return true;
}
static_assert(EveryModelRegistered(), "each PersistenceModel needs one line in kUnits");

}  // namespace

std::span<const ModelUnit> ModelUnits() { return kUnits; }

std::unique_ptr<Model> MakeModel(PersistenceModel model) {
  for (const ModelUnit& unit : kUnits) {
    if (unit.model == model) return unit.make();
  }
  return nullptr;
}

bool Rewrites(PersistenceModel model) {
  std::unique_ptr<Model> unit = MakeModel(model);
  return unit != nullptr && unit->Rewrites();
}

}  // namespace killpoint::durability
