// An enum's names, spelled once: the name of a value, the value of a name, every name for an
// error message, and "did you mean" for a near miss. A table lists each value with its name;
// each table is checked where it is defined for a name or a value given twice
// (static_assert(kTable.Unique())).
#pragma once

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/closest_name.h"

namespace killpoint {

template <class E, size_t N>
struct NameTable {
  std::array<std::pair<E, std::string_view>, N> entries;
  std::string_view what = "a name";  // what a value is, for FromJson's error: "a kill's moment"

  // "?" for a value the table does not list.
  constexpr std::string_view NameOf(E value) const {
    for (const auto& [v, name] : entries) {
      if (v == value) return name;
    }
    return "?";
  }

  constexpr std::optional<E> Named(std::string_view name) const {
    for (const auto& [v, n] : entries) {
      if (n == name) return v;
    }
    return std::nullopt;
  }

  // "a, b, c" in the table's order.
  std::string Listed(std::string_view separator = ", ") const {
    std::string out;
    for (const auto& entry : entries) {
      if (!out.empty()) out += separator;
      out += entry.second;
    }
    return out;
  }

  // Every listed value, in the table's order.
  constexpr std::array<E, N> Values() const {
    std::array<E, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = entries[i].first;
    return out;
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries) out.emplace_back(entry.second);
    return out;
  }

  // The listed name nearest to a mistyped one (util/closest_name.h), or "".
  std::string Closest(std::string_view typed) const { return ClosestName(typed, Names()); }

  // The value a JSON name stands for; nlohmann::json::type_error (302) naming the listed ones
  // when it is no name of the table, as every malformed field of a JSON document is.
  E FromJson(const nlohmann::json& j) const {
    std::optional<E> value = j.is_string() ? Named(j.get_ref<const std::string&>()) : std::nullopt;
    if (!value) {
      throw nlohmann::json::type_error::create(
          302, std::string(what) + " must be one of: " + Listed(), &j);
    }
    return *value;
  }

  // No value and no name listed twice.
  constexpr bool Unique() const {
    for (size_t i = 0; i < N; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (entries[i].first == entries[j].first || entries[i].second == entries[j].second)
          return false;
      }
    }
    return true;
  }
};

// MakeNameTable<E>({{E::kA, "a"}, {E::kB, "b"}}, "an e"): N from the list.
template <class E, size_t N>
constexpr NameTable<E, N> MakeNameTable(const std::pair<E, std::string_view> (&entries)[N],
                                        std::string_view what = "a name") {
  NameTable<E, N> table{};
  for (size_t i = 0; i < N; ++i) table.entries[i] = entries[i];
  table.what = what;
  return table;
}

// An enum whose JSON is its name: beside it, in its namespace, a function that returns its
// table, found by argument-dependent lookup,
//   constexpr const auto& NamesOf(Moment) { return kMomentNames; }
// gives it NameOf, and JSON as its name (nlohmann::adl_serializer below; a name the table does
// not list is FromJson's error). Without NamesOf, nlohmann writes an enum as its number.
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires(E e) {
  NamesOf(e);
};
template <NamedEnum E>
constexpr std::string_view NameOf(E value) {
  return NamesOf(value).NameOf(value);
}

}  // namespace killpoint

// Specialized rather than found by lookup: nlohmann's own to_json for every enum (its number)
// would otherwise win for an enum of a nested namespace, where killpoint's is not looked for.
template <killpoint::NamedEnum E>
struct nlohmann::adl_serializer<E> {
  static void to_json(nlohmann::json& j, E value) { j = killpoint::NameOf(value); }
  static void from_json(const nlohmann::json& j, E& value) { value = NamesOf(value).FromJson(j); }
};
