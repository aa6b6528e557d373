#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "catalogue/catalogue.h"
#include "common/http_client.h"

namespace killpoint::catalogue {

SQLite::Database OpenDb(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
  // SQLite's recommended setting for WAL: a commit is not fsynced (a checkpoint is), so a kill
  // loses nothing committed and a power loss may lose the last commits, never consistency.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  return db;
}

std::vector<Order> OrdersOf(const std::string& biz_date) {
  int64_t ymd = std::stoll(biz_date.substr(0, 4) + biz_date.substr(5, 2) + biz_date.substr(8, 2));
  int day = std::stoi(biz_date.substr(8, 2));
  std::vector<Order> out;
  for (int i = 1; i <= 3 + day % 3; ++i) {
    out.push_back({ymd * 100 + i, 100 + (ymd % 997 * 37 + i * 1009) % 50000, i % 2 ? "A" : "B",
                   1 + (day + i) % 5});
  }
  return out;
}

void SeedOrders(SQLite::Database& db, const std::string& table, const std::string& biz_date,
                bool with_items) {
  SQLite::Transaction tx(db);
  std::string sql =
      "INSERT OR IGNORE INTO " + table + "(order_id, biz_date, amount_cents" +
      (with_items ? ", sku, qty) VALUES (?1, ?2, ?3, ?4, ?5)" : ") VALUES (?1, ?2, ?3)");
  SQLite::Statement insert(db, sql);
  for (const Order& o : OrdersOf(biz_date)) {
    insert.bind(1, o.id);
    insert.bind(2, biz_date);
    insert.bind(3, o.amount_cents);
    if (with_items) {
      insert.bind(4, o.sku);
      insert.bind(5, o.qty);
    }
    insert.exec();
    insert.reset();
  }
  tx.commit();
}

int64_t NowMs() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

std::string NewUuid() {
  unsigned char b[16] = {};
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::read(fd, b, sizeof b) != static_cast<ssize_t>(sizeof b)) {
    if (fd >= 0) ::close(fd);
    throw JobError(kExitFailed, "cannot read /dev/urandom");
  }
  ::close(fd);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  char text[37];
  std::snprintf(text, sizeof text,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return text;
}

namespace http = jobs::http;

namespace {

// The downstream's address; the scenario's URL is checked where the job starts.
http::Endpoint Downstream(const Context& ctx) {
  std::optional<http::Endpoint> to = http::ParseBaseUrl(ctx.downstream);
  if (!to) throw JobError(kExitUsage, "not a downstream URL (http://HOST:PORT): " + ctx.downstream);
  return *to;
}

}  // namespace

int64_t Publish(const Context& ctx, const std::string& key, const std::string& idempotency_key,
                const std::string& payload_json) {
  if (ctx.downstream.empty())
    throw JobError(kExitUsage, "no downstream: set KILLPOINT_DOWNSTREAM or --downstream");
  nlohmann::json body = {
      {"key", key}, {"biz_date", ctx.biz_date}, {"payload", nlohmann::json::parse(payload_json)}};
  http::Outcome result =
      http::Post(Downstream(ctx), "/publish", {{"Idempotency-Key", idempotency_key}}, body.dump(),
                 std::chrono::milliseconds(ctx.timeout_ms));
  std::string what = "POST /publish " + key + " (Idempotency-Key " + idempotency_key + ")";
  if (!result) throw JobError(kExitFailed, what + ": no answer (" + result.error + ")");
  if (result->status != 200) {
    throw JobError(kExitFailed,
                   what + ": HTTP " + std::to_string(result->status) + " " + result->body);
  }
  nlohmann::json answer = nlohmann::json::parse(result->body, nullptr, false);
  if (!answer.is_object() || !answer.contains("delivery_id") ||
      !answer["delivery_id"].is_number_integer()) {
    throw JobError(kExitFailed, what + ": unexpected answer " + result->body);
  }
  return answer["delivery_id"].get<int64_t>();
}

void ReportWait(const Context& ctx, const std::string& what, int64_t ms, bool acquired,
                const std::string& held_by) {
  std::optional<http::Endpoint> to = http::ParseBaseUrl(ctx.downstream);
  if (!to) return;
  nlohmann::json body = {{"key", what}, {"ms", ms}, {"acquired", acquired}};
  if (!held_by.empty()) body["held_by"] = held_by;
  http::Post(*to, "/wait", {{"X-Killpoint-Instance", std::to_string(ctx.instance)}}, body.dump(),
             std::chrono::milliseconds(ctx.timeout_ms));
}

}  // namespace killpoint::catalogue
