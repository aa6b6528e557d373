// The harness's end of the named-failpoint wire protocol (docs/failpoint-protocol.md):
// a TCP listener on 127.0.0.1; a job sends "HIT <name> <pid>\n" and waits for "CONTINUE\n".
// To crash the job at the point, the handler kills it and the channel never answers.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "util/result.h"

namespace killpoint {

struct FailpointHit {
  std::string name;
  int pid = 0;  // as the job reported it; 0 when it sent none
};

class ControlChannel {
 public:
  // Called on the channel's own thread, one hit at a time. Return true to answer CONTINUE;
  // return false after killing the job (the connection is then closed unanswered).
  using Handler = std::function<bool(const FailpointHit&)>;

  static Result<std::unique_ptr<ControlChannel>> Start(Handler handler);
  virtual ~ControlChannel() = default;

  // "127.0.0.1:PORT", the value of KILLPOINT_CTL.
  virtual std::string Address() const = 0;
};

}  // namespace killpoint
