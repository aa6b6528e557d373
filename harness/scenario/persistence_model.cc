#include "scenario/persistence_model.h"

namespace killpoint {

std::string_view NameOf(PersistenceModel model) { return kModelNames.NameOf(model); }

std::optional<PersistenceModel> ModelNamed(std::string_view name) {
  return kModelNames.Named(name);
}

Result<PersistenceModel> ParseModel(std::string_view name) {
  if (auto m = ModelNamed(name)) return *m;
  std::string closest = kModelNames.Closest(name);
  return Error::BadInput("unknown or unavailable persistence model '" + std::string(name) + "' (" +
                         (closest.empty() ? "" : "did you mean '" + closest + "'? ") +
                         "available: " + kModelNames.Listed() + ")");
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
