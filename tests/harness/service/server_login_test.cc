// Who may log in to the servers the harness starts (docs/hardening.md, "Who can reach the
// harness"): each kind asks the password of the harness process (service/server_launch.h's
// ServerPassword), which a job finds in its environment. The harness's own client logs in with
// it and is refused without it; another local user (testing::kStranger, neither the harness nor
// `nobody`, the servers' own user) runs Debian's client of the kind with no password and is
// refused. Before, PostgreSQL trusted every local user, MariaDB's root had no password, Redis's
// default user none and RabbitMQ let guest/guest in: each of these tests failed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "../channel/other_user.h"
#include "service/mariadb/mysql_client.h"
#include "service/postgres/pg_client.h"
#include "service/postgres/postgres.h"
#include "service/rabbitmq/rabbitmq_client.h"
#include "service/redis/redis_client.h"
#include "service/server_launch.h"
#include "service/service.h"
#include "service/service_kinds.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ServerLogin : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "kp-server-login-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    root_ = dir;
    // `nobody` (the servers' user when the tests run as root) passes through it.
    fs::permissions(root_, fs::perms::others_exec, fs::perm_options::add);
  }
  void TearDown() override {
    service_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A server of `kind`, reset for a trial: where its trial's client goes.
  ServiceAddress Start(const std::string& kind) {
    auto started = StartService("login", kind, root_, {});
    EXPECT_TRUE(started) << (started ? "" : started.error().message);
    if (!started) return {};
    service_ = std::move(started.value());
    auto address = service_->Reset();
    EXPECT_TRUE(address) << (address ? "" : address.error().message);
    return address ? address.value() : ServiceAddress{};
  }

  // Debian's client `argv` run as another user with no password is refused, saying `says`
  // (redis-cli exits 0 on an error answer: `exits_nonzero` false). Skips the test, which ends
  // here, where this process may not change user.
  static void ExpectStrangerRefused(const std::vector<std::string>& argv, const std::string& says,
                                    bool exits_nonzero = true) {
    auto other = testing::RunAsAnotherUser(argv);
    if (other.exit_code == -1 && other.output == "<cannot change user>") {
      GTEST_SKIP() << "not root";
    }
    if (exits_nonzero) {
      EXPECT_NE(other.exit_code, 0) << other.output;
    }
    EXPECT_THAT(other.output, HasSubstr(says)) << other.output;
  }

  static ServiceAddress Without(ServiceAddress a, const std::string& password = "") {
    a.password = password;
    return a;
  }

  fs::path root_;
  std::unique_ptr<RunningService> service_;
};

TEST(ServerPassword, IsThirtyTwoLettersAndDigitsTheSameForTheWholeProcess) {
  const std::string& p = ServerPassword();
  EXPECT_EQ(p.size(), 32u);
  EXPECT_EQ(p.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            std::string::npos);
  EXPECT_EQ(&ServerPassword(), &p);
}

TEST_F(ServerLogin, PostgresAsksThePasswordOfEveryone) {
  ServiceAddress a = Start("postgres");
  ASSERT_TRUE(service_);
  EXPECT_TRUE(PgConnection::Open(a, a.database));
  auto without = PgConnection::Open(Without(a), a.database);
  ASSERT_FALSE(without);
  EXPECT_THAT(without.error().message, HasSubstr("password"));
  EXPECT_FALSE(PgConnection::Open(Without(a, "guess"), a.database));

  auto bin = PostgresBinDir();
  ASSERT_TRUE(bin);
  ExpectStrangerRefused({(bin.value() / "psql").string(), "-w", "-h", a.host, "-p",
                         std::to_string(a.port), "-U", a.user, "-d", a.database, "-c", "SELECT 1"},
                        "password");
}

TEST_F(ServerLogin, MariadbsRootAsksItsPassword) {
  ServiceAddress a = Start("mariadb");
  ASSERT_TRUE(service_);
  EXPECT_TRUE(MysqlConnection::Open(a, a.database));
  auto without = MysqlConnection::Open(Without(a), a.database);
  ASSERT_FALSE(without);
  EXPECT_THAT(without.error().message, HasSubstr("Access denied"));

  // Every account of the server has a password now: none for anyone to try without.
  auto accounts = MysqlConnection::Open(a, "");
  ASSERT_TRUE(accounts);
  auto empty = accounts.value().Query(
      "SELECT CONCAT(User, '@', Host) FROM mysql.user WHERE authentication_string = '' AND "
      "User <> 'mariadb.sys'");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty.value().rows.empty()) << empty.value().rows.size() << " without a password";

  ExpectStrangerRefused({"/usr/bin/mariadb", "--no-defaults", "--protocol=TCP", "-h", a.host, "-P",
                         std::to_string(a.port), "-u", a.user, "-e", "SELECT 1"},
                        "Access denied");
}

TEST_F(ServerLogin, RedisAnswersNothingBeforeItsPassword) {
  ServiceAddress a = Start("redis");
  ASSERT_TRUE(service_);
  auto with = RedisConnection::Open(a);
  ASSERT_TRUE(with);
  EXPECT_TRUE(with.value().Command({"SET", "k", "v"}));
  auto without = RedisConnection::Open(Without(a));
  ASSERT_TRUE(without);  // the connection itself is taken; no command is
  auto refused = without.value().Command({"GET", "k"});
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("NOAUTH"));

  ExpectStrangerRefused(
      {"/usr/bin/redis-cli", "-h", a.host, "-p", std::to_string(a.port), "GET", "k"}, "NOAUTH",
      false);
}

TEST_F(ServerLogin, RabbitmqHasNoGuestAndAsksItsUsersPassword) {
  ServiceAddress a = Start("rabbitmq");
  ASSERT_TRUE(service_);
  auto queue = ReadRabbitmqQueue(a, "none");
  ASSERT_TRUE(queue) << queue.error().message;
  EXPECT_FALSE(queue.value().exists);
  ServiceAddress guest = a;
  guest.user = guest.password = "guest";
  EXPECT_FALSE(ReadRabbitmqQueue(guest, "none"));
  EXPECT_FALSE(ReadRabbitmqQueue(Without(a, "guess"), "none"));

  // guest:guest, base64: the management API's default login.
  std::string answer = testing::AsAnotherUser(
      a.admin_port, "GET /api/whoami HTTP/1.0\r\nAuthorization: Basic Z3Vlc3Q6Z3Vlc3Q=\r\n\r\n",
      true, testing::kStranger);
  if (answer == "<cannot change user>") GTEST_SKIP() << "not root";
  EXPECT_THAT(answer, HasSubstr(" 401 ")) << answer;
}

}  // namespace
}  // namespace killpoint
