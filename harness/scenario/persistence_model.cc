#include "scenario/persistence_model.h"

#include <vector>

#include "util/closest_name.h"

namespace killpoint {

std::string_view NameOf(PersistenceModel model) {
  switch (model) {
    case PersistenceModel::kProcess:
      return "process";
    case PersistenceModel::kPower:
      return "power";
    case PersistenceModel::kTorn:
      return "torn";
    case PersistenceModel::kExt4Ordered:
      return "ext4-ordered";
  }
  return "?";
}

std::optional<PersistenceModel> ModelNamed(std::string_view name) {
  for (PersistenceModel m : kPersistenceModels) {
    if (NameOf(m) == name) return m;
  }
  return std::nullopt;
}

Result<PersistenceModel> ParseModel(std::string_view name) {
  if (auto m = ModelNamed(name)) return *m;
  std::vector<std::string> names;
  std::string available;
  for (PersistenceModel m : kPersistenceModels) {
    names.emplace_back(NameOf(m));
    available += (available.empty() ? "" : ", ") + names.back();
  }
  std::string closest = ClosestName(name, names);
  return Error::BadInput("unknown or unavailable persistence model '" + std::string(name) + "' (" +
                         (closest.empty() ? "" : "did you mean '" + closest + "'? ") +
                         "available: " + available + ")");
}

bool NameLess(PersistenceModel a, PersistenceModel b) { return NameOf(a) < NameOf(b); }

void to_json(nlohmann::json& j, PersistenceModel model) { j = NameOf(model); }

void from_json(const nlohmann::json& j, PersistenceModel& model) {
  if (!j.is_string())
    throw nlohmann::json::type_error::create(302, "a persistence model must be a name", &j);
  auto m = ParseModel(j.get_ref<const std::string&>());
  if (!m) throw nlohmann::json::type_error::create(302, m.error().message, &j);
  model = m.value();
}

std::ostream& operator<<(std::ostream& os, PersistenceModel model) { return os << NameOf(model); }

}  // namespace killpoint
