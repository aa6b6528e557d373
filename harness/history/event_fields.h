// How a typed event (history/events/) becomes an event's data and back. Each event type is a
// plain struct that names itself (kType) and lists its fields once, as (name, member) pairs
// (kFields); this header writes and reads every type from that list, so a field is spelled in
// one place and a writer and a reader cannot disagree on it.
//
// Reading is lenient, as a history's readers have always been: a missing field, or one of the
// wrong type (a damaged or hand-edited history), reads as the default written beside it in the
// struct, never as an exception, so that a history still gets its verdicts and its timeline.
// An std::optional field is engaged when the field is there and of the right type, and nullopt
// when it is of the wrong type (null included); when it is missing it keeps its default
// (nullopt, unless the struct says otherwise). A field marked kOmitEmpty is left out of the data
// when it is empty (a JSON field: null). Whatever the data, Read(DataOf(Read(data))) equals
// Read(data) (tests/harness/history/event_registry_test.cc checks it for every type).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "history/event.h"

namespace killpoint {

enum class Omit { kNever, kWhenEmpty };
inline constexpr Omit kOmitEmpty = Omit::kWhenEmpty;

template <class Struct, class Member>
struct EventField {
  const char* name;
  Member Struct::*member;
  Omit omit = Omit::kNever;
};

template <class Struct, class Member>
constexpr EventField<Struct, Member> Field(const char* name, Member Struct::*member,
                                           Omit omit = Omit::kNever) {
  return {name, member, omit};
}

namespace event_fields {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsStringMap : std::false_type {};
template <class V>
struct IsStringMap<std::map<std::string, V>> : std::true_type {};

// `fallback` is the field's default: an optional engaged by default that is nullopt now (a
// name this killpoint does not know) is written as null, which reads back as nullopt.
template <class M>
void Put(nlohmann::json& data, const char* name, const M& value, Omit omit, const M& fallback) {
  if constexpr (IsOptional<M>::value) {
    if (value) {
      data[name] = *value;
    } else if (fallback) {
      data[name] = nullptr;
    }
  } else {
    if constexpr (std::is_same_v<M, nlohmann::json>) {
      if (omit == Omit::kWhenEmpty && value.is_null()) return;
    } else if constexpr (requires { value.empty(); }) {
      if (omit == Omit::kWhenEmpty && value.empty()) return;
    }
    data[name] = value;
  }
}

// Reads `from` into `to` when it has the type `to` needs; false (and `to` untouched) when not.
template <class M>
bool Take(const nlohmann::json& from, M& to) {
  if constexpr (std::is_same_v<M, bool>) {
    if (!from.is_boolean()) return false;
    to = from.get<bool>();
  } else if constexpr (std::is_integral_v<M>) {  // within M's range, never a float
    if (!from.is_number_integer()) return false;
    if (from.is_number_unsigned()) {
      uint64_t v = from.get<uint64_t>();
      if (v > static_cast<uint64_t>(std::numeric_limits<M>::max())) return false;
      to = static_cast<M>(v);
    } else {
      int64_t v = from.get<int64_t>();
      if (v < static_cast<int64_t>(std::numeric_limits<M>::min()) ||
          v > static_cast<int64_t>(std::numeric_limits<M>::max()))
        return false;
      to = static_cast<M>(v);
    }
  } else if constexpr (std::is_same_v<M, std::string>) {
    if (!from.is_string()) return false;
    to = from.get<std::string>();
  } else if constexpr (std::is_same_v<M, nlohmann::json>) {  // of the default's JSON type
    if (!to.is_null() && from.type() != to.type()) return false;
    to = from;
  } else if constexpr (IsOptional<M>::value) {
    typename M::value_type value{};
    if (!Take(from, value)) {
      to.reset();
      return false;
    }
    to = std::move(value);
  } else if constexpr (IsVector<M>::value) {  // all or nothing
    if (!from.is_array()) return false;
    M items;
    for (const nlohmann::json& item : from) {
      typename M::value_type value{};
      if (!Take(item, value)) return false;
      items.push_back(std::move(value));
    }
    to = std::move(items);
  } else if constexpr (IsStringMap<M>::value) {  // all or nothing
    if (!from.is_object()) return false;
    M items;
    for (const auto& [key, item] : from.items()) {
      typename M::mapped_type value{};
      if (!Take(item, value)) return false;
      items.emplace(key, std::move(value));
    }
    to = std::move(items);
  } else {  // structs and enums with from_json (which must throw on bad input)
    try {
      to = from.get<M>();
    } catch (const nlohmann::json::exception&) {
      return false;
    }
  }
  return true;
}

}  // namespace event_fields

// The event's data of a typed event.
template <class T>
nlohmann::json DataOf(const T& typed) {
  static const T kDefaults{};
  nlohmann::json data = nlohmann::json::object();
  std::apply(
      [&](const auto&... f) {
        (event_fields::Put(data, f.name, typed.*(f.member), f.omit, kDefaults.*(f.member)), ...);
      },
      T::kFields);
  return data;
}

// An event's data read as T, whatever the event's type (leniently: see the header's comment).
template <class T>
T Read(const nlohmann::json& data) {
  T typed;
  if (!data.is_object()) return typed;
  std::apply(
      [&](const auto&... f) {
        auto take = [&](const char* name, auto& member) {
          if (auto it = data.find(name); it != data.end()) event_fields::Take(*it, member);
        };
        (take(f.name, typed.*(f.member)), ...);
      },
      T::kFields);
  return typed;
}

template <class T>
T Read(const Event& e) {
  return Read<T>(e.data);
}

// Whether `e` is of type T.
template <class T>
bool Is(const Event& e) {
  return e.type == T::kType;
}

// `e` read as T when it is of type T.
template <class T>
std::optional<T> As(const Event& e) {
  if (!Is<T>(e)) return std::nullopt;
  return Read<T>(e);
}

// Changes `e`'s data through its typed view: f(T&) edits it, and the data is written anew.
template <class T, class F>
void Edit(Event& e, F&& f) {
  T typed = Read<T>(e);
  f(typed);
  e.data = DataOf(typed);
}

}  // namespace killpoint
