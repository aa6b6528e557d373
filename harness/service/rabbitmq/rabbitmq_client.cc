#include "service/rabbitmq/rabbitmq_client.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <memory>

#include "service/server_launch.h"

namespace killpoint {
namespace {

constexpr time_t kRabbitmqTimeoutS = 10;

std::string ReplyProblem(const amqp_rpc_reply_t& r) {
  switch (r.reply_type) {
    case AMQP_RESPONSE_NORMAL:
      return "";
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
      return amqp_error_string2(r.library_error);
    case AMQP_RESPONSE_SERVER_EXCEPTION:
      if (r.reply.id == AMQP_CONNECTION_CLOSE_METHOD || r.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        const auto* m = static_cast<amqp_channel_close_t*>(r.reply.decoded);
        return std::string(static_cast<const char*>(m->reply_text.bytes), m->reply_text.len);
      }
      return "the server closed the connection";
    default:
      return "no reply";
  }
}

bool IsNotFound(const amqp_rpc_reply_t& r) {
  return r.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
         r.reply.id == AMQP_CHANNEL_CLOSE_METHOD &&
         static_cast<amqp_channel_close_t*>(r.reply.decoded)->reply_code == AMQP_NOT_FOUND;
}

}  // namespace

std::string UrlSegment(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Status RabbitmqApi(int admin_port, const std::string& method, const std::string& path,
                   const std::string& body, std::string* answer) {
  httplib::Client client("127.0.0.1", admin_port);
  client.set_basic_auth(kRabbitmqUser, ServerPassword());
  client.set_connection_timeout(kRabbitmqTimeoutS, 0);
  client.set_read_timeout(kRabbitmqTimeoutS * 3, 0);  // a vhost's deletion waits for its queues
  httplib::Result r = method == "PUT"      ? client.Put(path, body, "application/json")
                      : method == "DELETE" ? client.Delete(path)
                                           : client.Get(path);
  if (!r) {
    return Error::Harness("rabbitmq management API: " + method + " " + path + ": " +
                          httplib::to_string(r.error()));
  }
  if (r->status < 200 || r->status >= 300) {
    return Error::Harness("rabbitmq management API: " + method + " " + path + ": HTTP " +
                          std::to_string(r->status) + " " + r->body.substr(0, 300));
  }
  if (answer) *answer = r->body;
  return Ok();
}

bool LoopbackPortOpen(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool open = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return open;
}

bool RabbitmqAccepting(int amqp_port, int admin_port) {
  return LoopbackPortOpen(amqp_port) && RabbitmqApi(admin_port, "GET", "/api/vhosts");
}

namespace {

using AmqpConnection = std::unique_ptr<amqp_connection_state_t_, int (*)(amqp_connection_state_t)>;

// A connection to `address`'s vhost with channel 1 open.
Result<AmqpConnection> OpenChannel(const ServiceAddress& address) {
  AmqpConnection conn(amqp_new_connection(), amqp_destroy_connection);
  amqp_socket_t* socket = amqp_tcp_socket_new(conn.get());
  if (!socket) return Error::Harness("rabbitmq: cannot create a socket");
  timeval timeout{kRabbitmqTimeoutS, 0};
  int opened = amqp_socket_open_noblock(socket, address.host.c_str(), address.port, &timeout);
  if (opened != AMQP_STATUS_OK) {
    return Error::Harness("rabbitmq: cannot connect to " + address.host + ":" +
                          std::to_string(address.port) + ": " + amqp_error_string2(opened));
  }
  amqp_rpc_reply_t r =
      amqp_login(conn.get(), address.database.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN,
                 address.user.c_str(), address.password.c_str());
  if (std::string p = ReplyProblem(r); !p.empty()) {
    return Error::Harness("rabbitmq: cannot log in to vhost " + address.database + ": " + p);
  }
  amqp_channel_open(conn.get(), 1);
  if (std::string p = ReplyProblem(amqp_get_rpc_reply(conn.get())); !p.empty()) {
    return Error::Harness("rabbitmq: cannot open a channel: " + p);
  }
  return conn;
}

}  // namespace

Result<RabbitmqQueueState> ReadRabbitmqQueue(const ServiceAddress& address,
                                             const std::string& queue) {
  auto opened = OpenChannel(address);
  if (!opened) return opened.error();
  amqp_connection_state_t conn = opened.value().get();
  amqp_queue_declare_ok_t* ok = amqp_queue_declare(conn, 1, amqp_cstring_bytes(queue.c_str()),
                                                   /*passive=*/1, 0, 0, 0, amqp_empty_table);
  amqp_rpc_reply_t r = amqp_get_rpc_reply(conn);
  RabbitmqQueueState state;
  if (IsNotFound(r)) return state;
  if (std::string p = ReplyProblem(r); !p.empty() || !ok) {
    return Error::Harness("rabbitmq: cannot read queue " + queue + ": " + p);
  }
  state = {true, ok->message_count, ok->consumer_count};
  amqp_channel_close(conn, 1, AMQP_REPLY_SUCCESS);
  amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
  return state;
}

}  // namespace killpoint
