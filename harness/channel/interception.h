// How a job's file-system calls reach the harness as crash points (docs/supervisor.md):
//   seccomp: killpoint-supervise runs the job under a seccomp user-notification filter and
//            hands every such call of every process and thread of the job to the harness, in
//            one order, whatever the language, linking or environment;
//   preload: libkillpoint_shim.so, an LD_PRELOAD library on libc: dynamically linked programs
//            that keep their environment only (docs/syscall-shim.md, "Limits").
// Both speak the same failpoint protocol with the same point names.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/name_table.h"
#include "util/result.h"

namespace killpoint {

enum class Interception { kSeccomp, kPreload };
inline constexpr auto kInterceptionNames = MakeNameTable<Interception>({
    {Interception::kSeccomp, "seccomp"},
    {Interception::kPreload, "preload"},
});
static_assert(kInterceptionNames.Unique());

std::string_view NameOf(Interception i);
std::optional<Interception> ParseInterception(std::string_view name);

// The program or library that intercepts for `i`, in `bindir`.
std::filesystem::path InterceptorPath(Interception i, const std::filesystem::path& bindir);

// Whether this machine lets a process install a seccomp user-notification filter with the
// features the supervisor needs (Linux 5.19: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV). Probed
// once, in a child process; the reason when it does not.
Status SeccompAvailable();

// seccomp where SeccompAvailable, preload otherwise: the default of every command that runs
// trials.
Interception DefaultInterception();

}  // namespace killpoint
