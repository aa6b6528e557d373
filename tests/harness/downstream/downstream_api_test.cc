// docs/downstream-openapi.json against the real downstream: the same endpoints, every
// documented example answered as documented, every answer's status documented.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <set>

#include "downstream/downstream.h"

namespace killpoint {
namespace {

using nlohmann::json;

json LoadSpec() {
  std::ifstream in(std::string(KILLPOINT_SOURCE_DIR) + "/docs/downstream-openapi.json");
  return json::parse(in);
}

// Follows a "$ref": "#/components/..." (one level is all the file uses).
const json& Resolve(const json& spec, const json& node) {
  if (!node.contains("$ref")) return node;
  return spec.at(json::json_pointer(node["$ref"].get<std::string>().substr(1)));
}

bool HasType(const json& value, const std::string& type) {
  if (type == "integer") return value.is_number_integer();
  if (type == "boolean") return value.is_boolean();
  if (type == "string") return value.is_string();
  if (type == "object") return value.is_object();
  return true;
}

// The answer's body matches the documented schema: an object with every required property, of
// its type.
void ExpectMatches(const json& spec, const json& response, const httplib::Result& answer,
                   const std::string& what) {
  if (!response.contains("content")) return;
  const json& schema = Resolve(spec, response["content"]["application/json"]["schema"]);
  json body = json::parse(answer->body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << what << ": " << answer->body;
  for (const auto& name : schema.value("required", json::array())) {
    ASSERT_TRUE(body.contains(name)) << what << " lacks " << name << ": " << answer->body;
    std::string type = schema["properties"][name.get<std::string>()].value("type", "");
    EXPECT_TRUE(HasType(body[name.get<std::string>()], type))
        << what << "." << name << " is not " << type;
  }
}

struct Server {
  Server() {
    auto s = Downstream::Start(false, &history);
    EXPECT_TRUE(s);
    downstream = std::move(s.value());
  }
  httplib::Result Send(const std::string& method, const std::string& path, const json& query,
                       const json* body) {
    httplib::Client c(downstream->BaseUrl());
    c.set_read_timeout(2, 0);
    if (method == "GET") {
      httplib::Params params;
      for (const auto& [k, v] : query.items()) params.emplace(k, v.get<std::string>());
      return c.Get(path, params, httplib::Headers{});
    }
    return c.Post(path, body ? body->dump() : "", "application/json");
  }
  History history;
  std::unique_ptr<Downstream> downstream;
};

TEST(DownstreamApi, DocumentsExactlyTheEndpointsItServes) {
  json spec = LoadSpec();
  std::set<std::pair<std::string, std::string>> documented;
  for (const auto& [path, operations] : spec["paths"].items()) {
    for (const auto& [method, _] : operations.items()) {
      std::string upper = method;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      documented.emplace(upper, path);
    }
  }
  auto routes = Downstream::Routes();
  EXPECT_EQ(documented, std::set(routes.begin(), routes.end()));
}

TEST(DownstreamApi, AnswersEveryDocumentedExampleAsDocumented) {
  json spec = LoadSpec();
  for (const auto& [path, operations] : spec["paths"].items()) {
    for (const auto& [method, op] : operations.items()) {
      std::string upper = method == "get" ? "GET" : "POST";
      std::string what = upper + " " + path;
      json query = json::object();
      for (const auto& p : op.value("parameters", json::array())) {
        const json& param = Resolve(spec, p);
        if (param["in"] == "query") query[param["name"].get<std::string>()] = param["example"];
      }
      const json* example = op.contains("requestBody")
                                ? &op["requestBody"]["content"]["application/json"]["example"]
                                : nullptr;
      Server server;
      auto ok = server.Send(upper, path, query, example);
      ASSERT_TRUE(ok) << what;
      EXPECT_EQ(ok->status, 200) << what << ": " << ok->body;
      ExpectMatches(spec, Resolve(spec, op["responses"]["200"]), ok, what);

      // Without its required fields: a documented 400 with its documented body.
      json empty = json::object();
      auto bad = server.Send(upper, path, json::object(), example ? &empty : nullptr);
      ASSERT_TRUE(bad) << what;
      EXPECT_EQ(bad->status, 400) << what;
      ASSERT_TRUE(op["responses"].contains("400")) << what << " answers 400, undocumented";
      ExpectMatches(spec, Resolve(spec, op["responses"]["400"]), bad, what + " (400)");
    }
  }
}

TEST(DownstreamApi, AnswersAnUndocumentedPathWith404) {
  Server server;
  auto answer = server.Send("GET", "/nowhere", json::object(), nullptr);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 404);
  EXPECT_TRUE(json::parse(answer->body, nullptr, false).contains("error")) << answer->body;
}

}  // namespace
}  // namespace killpoint
