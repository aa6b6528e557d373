#include "scenario/check_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "scenario/vocabulary.h"

namespace killpoint {
namespace {

constexpr size_t kMaxCheckName = 64;

bool IsCheckNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

std::string CheckedCheckName(FieldReader& r, const std::string& name) {
  if (name.empty() || name.size() > kMaxCheckName ||
      !std::all_of(name.begin(), name.end(), IsCheckNameChar) ||
      !(name[0] >= 'a' && name[0] <= 'z')) {
    r.Fail(name,
           "a check's name is a lower-case letter, then lower-case letters, digits and _ (at most "
           "64)");
  }
  if (std::find(kInvariantNames.begin(), kInvariantNames.end(), name) != kInvariantNames.end()) {
    r.Fail(name, "'" + name + "' is a built-in invariant; give the check another name");
  }
  return name;
}

// The first keyword, lower-cased, after spaces and comments.
std::string FirstWord(const std::string& sql) {
  size_t i = 0;
  while (i < sql.size()) {
    if (std::isspace(static_cast<unsigned char>(sql[i]))) {
      ++i;
    } else if (sql.compare(i, 2, "--") == 0) {
      i = sql.find('\n', i);
      if (i == std::string::npos) return "";
    } else if (sql.compare(i, 2, "/*") == 0) {
      i = sql.find("*/", i + 2);
      if (i == std::string::npos) return "";
      i += 2;
    } else {
      break;
    }
  }
  std::string word;
  for (; i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i])); ++i) {
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i])));
  }
  return word;
}

// Prepares `sql` in an empty in-memory database: a syntax error shows, a missing table is
// only the job's schema, which exists when the check runs.
std::optional<std::string> PrepareProblem(const std::string& sql) {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(raw);
    return std::nullopt;  // cannot tell here; the trial will
  }
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db.get(), sql.c_str(), static_cast<int>(sql.size()), &stmt, &tail);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(stmt, sqlite3_finalize);
  if (rc != SQLITE_OK) {
    std::string message = sqlite3_errmsg(db.get());
    if (message.rfind("no such table:", 0) == 0) return std::nullopt;
    return "SQLite cannot prepare it: " + message;
  }
  if (tail != nullptr && FirstWord(tail) != "") return "holds more than one statement";
  if (stmt != nullptr && !sqlite3_stmt_readonly(stmt)) return "is not read-only";
  return std::nullopt;
}

constexpr size_t kMaxIdentifier = 128;

// A table or column name: any text SQLite accepts once quoted, but not empty (unless
// `optional`) and without NUL.
std::string Identifier(FieldReader& r, const std::string& key, const std::string& fallback,
                       bool optional) {
  std::string name = r.String(key, &fallback);
  if ((name.empty() && !optional) || name.size() > kMaxIdentifier ||
      name.find('\0') != std::string::npos) {
    r.Fail(key, std::string("expected a table or column name (1 to 128 bytes, no NUL)") +
                    (optional ? ", or \"\" for none" : "") + ", got '" + name + "'");
  }
  return name;
}

constexpr int64_t kMaxKeyCount = 1000000000;

// A check's redis shape, from the fields "keys", "at_least", "at_most" and "ttl".
RedisKeyCheck ReadRedisKeyCheck(FieldReader& c) {
  RedisKeyCheck k;
  k.keys = c.String("keys");
  if (k.keys.empty()) c.Fail("keys", "expected a key or a glob pattern (lock:*), got ''");
  if (c.Has("at_least")) k.at_least = c.Integer("at_least", 0, kMaxKeyCount, nullptr);
  if (c.Has("at_most")) k.at_most = c.Integer("at_most", 0, kMaxKeyCount, nullptr);
  if (c.Has("ttl")) {
    if (c.String("ttl") != "required") c.Fail("ttl", "expected \"required\"");
    k.ttl_required = true;
  }
  if (!k.at_least && !k.at_most && !k.ttl_required) {
    c.Fail("keys",
           "says which keys; also say what of them: at_least, at_most or \"ttl\": "
           "\"required\"");
  }
  if (k.at_least && k.at_most && *k.at_least > *k.at_most) {
    c.Fail("at_most", "is below at_least (" + std::to_string(*k.at_least) + ")");
  }
  if (c.Has("sql")) c.Fail("sql", "a check reads keys (a redis service) or runs sql, not both");
  return k;
}

constexpr int64_t kDefaultCheckTimeoutMs = 30000;
constexpr int64_t kMaxCheckTimeoutMs = 600000;

// A command check (docs/scenarios.md, "Command checks"): {"command", "timeout_ms", "says",
// "after_every_crash"}, no db, sql, service, queue or keys.
SqlCheck ReadCommandCheck(FieldReader& c) {
  for (const char* other : {"db", "sql", "service", "queue", "keys", "attach", "missing_db"}) {
    if (c.Has(other)) {
      c.Fail(other, "a check runs a command (command) or reads a database or a service, not both");
    }
  }
  SqlCheck check;
  check.command = c.Strings("command", true, false);
  if (check.command[0].empty()) c.Fail("command[0]", "the program must not be empty");
  for (size_t i = 0; i < check.command.size(); ++i) {
    const std::string& arg = check.command[i];
    std::string where = "command[" + std::to_string(i) + "]";
    if (arg.find('\0') != std::string::npos) c.Fail(where, "must not contain a NUL character");
    for (size_t open = arg.find('{'); open != std::string::npos; open = arg.find('{', open + 1)) {
      size_t close = arg.find_first_of("{}", open + 1);
      if (close == std::string::npos || arg[close] != '}') continue;
      std::string name = arg.substr(open + 1, close - open - 1);
      bool looks = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || ch == '_';
      });
      if (looks && name != "workdir" && name != "scenario_dir" && name != "dates") {
        c.Fail(where, "unknown placeholder {" + name +
                          "} (a check's command knows {workdir}, {scenario_dir} and {dates})");
      }
    }
  }
  check.timeout_ms = c.Integer("timeout_ms", 1, kMaxCheckTimeoutMs, &kDefaultCheckTimeoutMs);
  const std::string none;
  check.says = c.String("says", &none);
  check.after_every_crash = c.Boolean("after_every_crash", false);
  c.Finish();
  return check;
}

// "attach": {"ledger": "ledger.db"}: schema names a query may use for more sandbox databases.
std::map<std::string, std::string> ReadAttach(FieldReader& c, const std::string& db) {
  std::map<std::string, std::string> out = c.StringMap("attach");
  for (const auto& [alias, path] : out) {
    std::string where = "attach." + alias;
    if (alias.empty() || alias.size() > kMaxCheckName ||
        !std::all_of(alias.begin(), alias.end(), IsCheckNameChar) ||
        !(alias[0] >= 'a' && alias[0] <= 'z') || alias == "main" || alias == "temp") {
      c.Fail(where,
             "a schema name is a lower-case letter, then lower-case letters, digits and _ "
             "(not main or temp)");
    }
    if (!IsSandboxPath(path))
      c.Fail(where, "expected a path relative to the sandbox, got '" + path + "'");
    if (path == db) c.Fail(where, "is the check's own db, which the query reads as main");
  }
  return out;
}

}  // namespace

SettlementSchema ReadSettlementSchema(FieldReader r) {
  SettlementSchema s;
  s.table = Identifier(r, "table", s.table, false);
  s.date_column = Identifier(r, "date_column", s.date_column, false);
  s.amount_column = Identifier(r, "amount_column", s.amount_column, false);
  s.count_column = Identifier(r, "count_column", s.count_column, true);
  s.key_column = Identifier(r, "key_column", s.key_column, true);
  s.source_table = Identifier(r, "source_table", s.source_table, false);
  s.source_date_column = Identifier(r, "source_date_column", s.source_date_column, false);
  s.source_amount_column = Identifier(r, "source_amount_column", s.source_amount_column, false);
  r.Finish();
  return s;
}

bool IsSandboxPath(const std::string& value) {
  std::filesystem::path p(value);
  return !value.empty() && !p.is_absolute() && value.find('\0') == std::string::npos &&
         std::none_of(p.begin(), p.end(),
                      [](const std::filesystem::path& part) { return part == ".."; });
}

std::optional<std::string> QueryProblem(const std::string& sql) {
  if (sql.find('\0') != std::string::npos) return "must not contain a NUL character";
  std::string word = FirstWord(sql);
  if (word != "select" && word != "with" && word != "values") {
    return "expected one query (SELECT, WITH or VALUES) that returns the violating rows";
  }
  return std::nullopt;
}

std::optional<std::string> SqlProblem(const std::string& sql) {
  if (auto problem = QueryProblem(sql)) return problem;
  if (!sqlite3_complete((sql + ";").c_str())) return "is not a complete SQL statement";
  return PrepareProblem(sql);
}

// A check on a rabbitmq service's queue (docs/services.md): {"service", "queue", "messages",
// "says", "after_every_crash"}, held when the queue has exactly `messages` messages ready.
SqlCheck ReadQueueCheck(FieldReader& c, SqlCheck check) {
  if (check.service.empty()) c.Fail("queue", "a queue check names its rabbitmq service (service)");
  if (c.Has("sql")) c.Fail("sql", "a check reads either a queue (queue) or SQL (sql), not both");
  check.queue = c.String("queue");
  if (check.queue.empty() || check.queue.size() > 255) {
    c.Fail("queue", "expected a queue's name (1 to 255 bytes)");
  }
  check.messages = c.Integer("messages", 0, INT32_MAX, nullptr);
  check.says = c.String("says");
  if (check.says.empty()) c.Fail("says", "must say what a wrong count means");
  check.after_every_crash = c.Boolean("after_every_crash", false);
  c.Finish();
  return check;
}

std::map<std::string, SqlCheck> ReadChecks(FieldReader r, const nlohmann::json* checks) {
  std::map<std::string, SqlCheck> out;
  if (checks == nullptr) return out;
  for (auto it = checks->begin(); it != checks->end(); ++it) {
    std::string name = CheckedCheckName(r, it.key());
    FieldReader c = r.Object(name);
    if (c.Has("command")) {
      out[name] = ReadCommandCheck(c);
      continue;
    }
    SqlCheck check;
    const std::string none;
    check.service = c.String("service", &none);
    if (c.Has("queue")) {
      out[name] = ReadQueueCheck(c, check);
      continue;
    }
    if (c.Has("keys")) {
      if (check.service.empty()) c.Fail("service", "a check on keys names its redis service");
      check.redis = ReadRedisKeyCheck(c);
    } else if (check.service.empty()) {
      check.db = c.String("db");
      if (!IsSandboxPath(check.db))
        c.Fail("db", "expected a path relative to the sandbox, got '" + check.db + "'");
      if (c.Has("attach")) check.attach = ReadAttach(c, check.db);
    } else if (c.Has("db")) {
      c.Fail("db", "a check reads either a sandbox database (db) or a service (service), not both");
    }
    if (check.redis.keys.empty()) {
      check.sql = c.String("sql");
      auto problem = check.service.empty() ? SqlProblem(check.sql) : QueryProblem(check.sql);
      if (problem) c.Fail("sql", *problem);
    }
    check.says = c.String("says");
    if (check.says.empty()) c.Fail("says", "must say what a returned row means");
    const std::string violated = "violated";
    std::string missing = c.String("missing_db", &violated);
    if (missing != "violated" && missing != "held") {
      c.Fail("missing_db", "expected \"violated\" or \"held\", got '" + missing + "'");
    }
    check.missing_db_holds = missing == "held";
    check.after_every_crash = c.Boolean("after_every_crash", false);
    c.Finish();
    out[name] = check;
  }
  r.Finish();
  return out;
}

}  // namespace killpoint
