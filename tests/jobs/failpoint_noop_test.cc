// Without KILLPOINT_CTL a failpoint must cost next to nothing: no allocation after the first
// call, and no attempt to reach a controller. This binary counts every operator new.
#include <gtest/gtest.h>
#include <killpoint/failpoint.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// None of the three is inlined: GCC 12 would see malloc() or free() through the inlined body
// and call the pair mismatched (-Wmismatched-new-delete, an error), in one way with
// -fsanitize=address and in the other without.
[[gnu::noinline]] void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

TEST(FailpointNoopTest, DisabledFailpointsDoNotAllocate) {
  ASSERT_EQ(::unsetenv("KILLPOINT_CTL"), 0);
  killpoint::failpoint("warm_up");
  long before = g_allocations.load();
  for (int i = 0; i < 100000; ++i) killpoint::failpoint("hot_path");
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_FALSE(killpoint::failpoint_enabled());
}

TEST(FailpointNoopTest, TheEnvironmentIsReadOnceAtTheFirstCall) {
  ASSERT_EQ(::unsetenv("KILLPOINT_CTL"), 0);
  killpoint::failpoint("first");
  // Port 1 on loopback refuses connections: a client that looked again would exit 70 here.
  ASSERT_EQ(::setenv("KILLPOINT_CTL", "127.0.0.1:1", 1), 0);
  killpoint::failpoint("second");
  EXPECT_FALSE(killpoint::failpoint_enabled());
}

}  // namespace
