// The persistence models: what survives a crash (harness/durability/durability.h,
// docs/persistence-models.md). The one place their names are spelled; scenarios, plans,
// histories and results write those names, so they never change.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "util/name_table.h"
#include "util/result.h"

namespace killpoint {

enum class PersistenceModel {
  kProcess,     // "process": a kill -9, the page cache survives
  kPower,       // "power": only what POSIX promises (fsync'ed names and contents)
  kTorn,        // "torn": a seeded cut among the namespace states, contents torn by sector
  kExt4Ordered  // "ext4-ordered": ext4 with data=ordered, delalloc, auto_da_alloc
};

// Every model with its name, in the order error messages and docs list them. All but process
// need the syscall shim, which a scenario naming them loads.
inline constexpr auto kModelNames = MakeNameTable<PersistenceModel>({
    {PersistenceModel::kProcess, "process"},
    {PersistenceModel::kPower, "power"},
    {PersistenceModel::kTorn, "torn"},
    {PersistenceModel::kExt4Ordered, "ext4-ordered"},
});
static_assert(kModelNames.Unique());
inline constexpr auto kPersistenceModels = kModelNames.Values();

std::string_view NameOf(PersistenceModel model);
// Whether the model chooses at random among the states a crash may leave (torn's cut): the
// planner then draws a seed for each kill under it (plan/seed.h, DrawModelSeeds). Its unit says
// the same (durability::Model::Seeded; ModelRegistry.EachUnitIsSeededAsItsModelSays pins it).
constexpr bool ModelIsSeeded(PersistenceModel model) { return model == PersistenceModel::kTorn; }
// The model named `name`, or nullopt.
std::optional<PersistenceModel> ModelNamed(std::string_view name);
// As ModelNamed; an unknown name is BadInput naming the valid ones and, for a near miss, the
// one meant: "unknown or unavailable persistence model 'pwer' (did you mean 'power'? available:
// ...)".
Result<PersistenceModel> ParseModel(std::string_view name);
// Models ordered by name, as plans and results list them ("ext4-ordered" < "power").
bool NameLess(PersistenceModel a, PersistenceModel b);

// JSON: the name. from_json throws nlohmann::json::type_error (302) with ParseModel's message
// on an unknown name or a value that is no string, like every other malformed field.
void to_json(nlohmann::json& j, PersistenceModel model);
void from_json(const nlohmann::json& j, PersistenceModel& model);
std::ostream& operator<<(std::ostream& os, PersistenceModel model);

}  // namespace killpoint
