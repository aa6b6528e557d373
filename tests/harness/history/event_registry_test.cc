// Every registered event type (history/event_registry.h), checked the same way: a new type is a
// struct in history/events/ and one line in EventTypes, and these tests then cover it: its data
// reads back as written, with every field set and with none, and any data, however damaged,
// reads without an exception into a value that writes and reads back the same.
#include "history/event_registry.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <set>
#include <string>

namespace killpoint {
namespace {

template <class Types>
struct GTestTypesOf;
template <class... T>
struct GTestTypesOf<std::tuple<T...>> {
  using Types = ::testing::Types<T...>;
};

template <class M>
inline constexpr bool kUnknownFieldType = false;

// A value of `m`'s type other than its default, told apart by `i`. A field of a type this does
// not know fails to compile: add the type here, and to event_fields.h's Take if it needs it.
template <class M>
void Fill(M& m, int i) {
  if constexpr (std::is_same_v<M, bool>) {
    m = !m;
  } else if constexpr (std::is_integral_v<M>) {
    m = static_cast<M>(100 + i);
  } else if constexpr (std::is_same_v<M, std::string>) {
    m = "value " + std::to_string(i);
  } else if constexpr (std::is_enum_v<M>) {  // named by a table: the next value, or the first
    m = static_cast<int>(m) == 0 ? static_cast<M>(1) : static_cast<M>(0);
  } else if constexpr (event_fields::IsOptional<M>::value) {
    typename M::value_type value = m.value_or(typename M::value_type{});
    Fill(value, i);
    m = value;
  } else if constexpr (std::is_same_v<M, nlohmann::json>) {
    m = m.is_array() ? nlohmann::json::array({i}) : nlohmann::json{{"field", i}};
  } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
    m = {"first " + std::to_string(i), "second"};
  } else if constexpr (std::is_same_v<M, std::map<std::string, int64_t>>) {
    m = {{"write:f", i}, {"fsync:f", 1}};
  } else if constexpr (std::is_same_v<M, std::map<std::string, std::string>>) {
    m = {{"write:f", "close:f"}};
  } else if constexpr (std::is_same_v<M, std::vector<OutsideWrite>>) {
    m = {{"/tmp/x" + std::to_string(i), outside_kind::kTemp, {"open", "rename"}}};
  } else {
    static_assert(kUnknownFieldType<M>, "a field type Fill does not know");
  }
}

template <class T>
T Filled() {
  T typed;
  int i = 0;
  std::apply([&](const auto&... f) { (Fill(typed.*(f.member), i++), ...); }, T::kFields);
  return typed;
}

template <class T>
std::vector<std::string> FieldNames() {
  return std::apply([](const auto&... f) { return std::vector<std::string>{f.name...}; },
                    T::kFields);
}

template <class T>
class EveryEventType : public ::testing::Test {};
TYPED_TEST_SUITE(EveryEventType, GTestTypesOf<EventTypes>::Types);

TYPED_TEST(EveryEventType, IsKnownByItsName) {
  EXPECT_TRUE(IsEventType(TypeParam::kType));
  Event e{0, 0, TypeParam::kType, "", 0, 0, DataOf(TypeParam{})};
  EXPECT_TRUE(Is<TypeParam>(e));
  int visited = 0;
  EXPECT_TRUE(Visit(e, [&](const auto& typed) {
    if constexpr (std::is_same_v<std::decay_t<decltype(typed)>, TypeParam>) ++visited;
  }));
  EXPECT_EQ(visited, 1);
}

TYPED_TEST(EveryEventType, NamesEachFieldOnce) {
  std::vector<std::string> names = FieldNames<TypeParam>();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TYPED_TEST(EveryEventType, ReadsBackWhatItWrote) {
  const TypeParam filled = Filled<TypeParam>();
  EXPECT_FALSE(filled == TypeParam{}) << "every field filled";
  EXPECT_EQ(Read<TypeParam>(DataOf(filled)), filled) << DataOf(filled);
  EXPECT_EQ(Read<TypeParam>(DataOf(TypeParam{})), TypeParam{}) << DataOf(TypeParam{});
  Event e{3, 40, TypeParam::kType, "2026-11-01", 1, 2, DataOf(filled)};
  EXPECT_EQ(As<TypeParam>(e), filled);
  e.type = "another";
  EXPECT_EQ(As<TypeParam>(e), std::nullopt);
}

// Each field given a value of another JSON type than the one it writes reads as what the field
// does not hold: never as an exception, never as the value it would have had.
TYPED_TEST(EveryEventType, ReadsAMistypedFieldAsNotThere) {
  const nlohmann::json data = DataOf(Filled<TypeParam>());
  for (const std::string& name : FieldNames<TypeParam>()) {
    nlohmann::json damaged = data;
    const nlohmann::json& good = data[name];
    damaged[name] = good.is_string() ? nlohmann::json(5) : nlohmann::json("five");
    nlohmann::json read_back = DataOf(Read<TypeParam>(damaged));
    EXPECT_NE(read_back.value(name, nlohmann::json()), good) << name << " in " << damaged;
  }
}

// Any JSON, however damaged: the fields' names with values of every kind, and other keys.
rc::Gen<nlohmann::json> AnyValue() {
  return rc::gen::oneOf(
      rc::gen::just(nlohmann::json(nullptr)),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return nlohmann::json(b); }),
      rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t n) { return nlohmann::json(n); }),
      rc::gen::map(rc::gen::arbitrary<uint64_t>(), [](uint64_t n) { return nlohmann::json(n); }),
      rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return nlohmann::json(d); }),
      rc::gen::map(rc::gen::arbitrary<std::string>(),
                   [](const std::string& s) { return nlohmann::json(s); }),
      rc::gen::map(rc::gen::container<std::vector<int>>(rc::gen::arbitrary<int>()),
                   [](const std::vector<int>& v) { return nlohmann::json(v); }),
      rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::arbitrary<std::string>()),
                   [](const std::vector<std::string>& v) { return nlohmann::json(v); }),
      rc::gen::map(rc::gen::container<std::map<std::string, int>>(rc::gen::arbitrary<std::string>(),
                                                                  rc::gen::arbitrary<int>()),
                   [](const std::map<std::string, int>& m) { return nlohmann::json(m); }),
      rc::gen::just(nlohmann::json{{"path", "/tmp/a"}, {"kind", "temp"}, {"ops", {"open"}}}),
      rc::gen::just(
          nlohmann::json::array({{{"path", "/tmp/a"}, {"kind", "temp"}, {"ops", {"open"}}}})),
      rc::gen::just(nlohmann::json("power")), rc::gen::just(nlohmann::json("ext9")));
}

TYPED_TEST(EveryEventType, ReadsAnyDataIntoAValueThatReadsBackTheSame) {
  const std::vector<std::string> names = FieldNames<TypeParam>();
  EXPECT_TRUE(rc::check(TypeParam::kType, [&] {
    nlohmann::json data = nlohmann::json::object();
    for (const std::string& name : names) {
      if (*rc::gen::arbitrary<bool>()) data[name] = *AnyValue();
    }
    data["not a field"] = *AnyValue();
    const TypeParam read = Read<TypeParam>(data);
    RC_ASSERT(Read<TypeParam>(DataOf(read)) == read);
  }));
}

TEST(EventRegistry, KnowsNoOtherName) {
  EXPECT_FALSE(IsEventType("not_an_event"));
  EXPECT_FALSE(IsEventType(""));
  Event e{0, 0, "not_an_event", "", 0, 0, nlohmann::json::object()};
  EXPECT_FALSE(Visit(e, [](const auto&) { FAIL() << "visited an unknown type"; }));
}

TEST(EventRegistry, DataThatIsNoObjectReadsAsTheDefaults) {
  for (const nlohmann::json& data : {nlohmann::json::array({1}), nlohmann::json("x"),
                                     nlohmann::json(nullptr), nlohmann::json(3)}) {
    EXPECT_EQ(Read<event::Kill>(data), event::Kill{}) << data;
    EXPECT_EQ(Read<event::Publish>(data), event::Publish{}) << data;
  }
}

}  // namespace
}  // namespace killpoint
