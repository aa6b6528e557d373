// What every kind of server (service.h) needs to start: its folder in the run's sandbox root,
// owned by the server's user; the password it asks of every client; the data folder a kind's
// set-up tool (initdb, mariadb-install-db) fills once per run and every server of that kind
// copies; the environment its tools run in; the start on a loopback port picked for it.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "proc/server_process.h"
#include "service/service.h"
#include "util/result.h"

namespace killpoint {

// A new folder `root`/service-NAME-XXXXXX, given to the server's user.
Result<std::filesystem::path> MakeServerFolder(const std::filesystem::path& root,
                                               const std::string& name);

// The password every server this harness process starts asks of its clients (docs/hardening.md,
// "Who can reach the harness"): 32 letters and digits from getrandom, made at the first call.
// Letters and digits only, so that it goes into a URL, an SQL literal and a configuration line
// as it is. A job gets it in its environment (ServiceEnv); another local user, who cannot read
// the job's environment or the servers' 0700 folders, has no way to learn it.
const std::string& ServerPassword();

// Writes `text` to `path` in a server's folder with `mode`, given to the server's user: a server's
// configuration, which may hold ServerPassword and is never readable by another user.
Status WriteServerFile(const std::filesystem::path& path, const std::string& text,
                       std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                     std::filesystem::perms::owner_write);

// The marks' environment, a PATH of the system's folders and the C locale.
std::map<std::string, std::string> ServerEnvironment(const ServerMarks& marks);

// The data folder of `kind`'s template for the run whose sandbox root is `root`: made by `fill`
// (given the folder to create) the first time, the same folder afterwards. Set-up tools take
// seconds; a copy of their result, a tenth of one.
Result<std::filesystem::path> ServerTemplate(
    const std::string& kind, const std::filesystem::path& root,
    const std::function<Status(const std::filesystem::path& data)>& fill);

// Copies the template `data` to `dir`/data, as the server's user.
Status CopyServerTemplate(const std::filesystem::path& data, const std::filesystem::path& dir,
                          const ServerMarks& marks);

// Starts the server `command_for(port)` describes on a loopback port picked for it, and waits
// until `accepting(port)`, the server has exited, or a minute passed; a picked port taken in
// between gets another (3 tries). `kind` names the server in the error.
Result<std::unique_ptr<ServerProcess>> StartOnPickedPort(
    const std::string& kind, const std::function<ServerCommand(int port)>& command_for,
    const std::function<bool(int port)>& accepting, int& port);

// Starts `command` again on the port it names (a restart after a server kill) and waits until
// `accepting()` as StartOnPickedPort does; one try.
Result<std::unique_ptr<ServerProcess>> StartOnPort(const std::string& kind,
                                                   const ServerCommand& command,
                                                   const std::function<bool()>& accepting);

}  // namespace killpoint
