// The seccomp filter the job runs under (filter.cc says which calls it hands over).
#pragma once

#include <linux/filter.h>

#include <vector>

namespace killpoint::supervisor {

// errno for the calls of another ABI, which the filter refuses.
inline constexpr unsigned ENOSYS_VALUE = 38;

// A classic BPF program for seccomp(SECCOMP_SET_MODE_FILTER): x86-64 only.
std::vector<sock_filter> BuildFilter();

}  // namespace killpoint::supervisor
