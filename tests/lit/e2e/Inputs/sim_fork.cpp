// A program that launches on the CPU simulator, forks, and launches again in the child: the
// child has none of the parent's host threads (the worker pool, the spin watchdog) and must
// start its own instead of waiting for them. Prints "child 0" when the child's launches worked.
#include <oxide/oxide.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

[[kernel]] void fill(std::uint32_t *out) { out[oxide::block_idx().x * 32 + oxide::thread_idx().x] = 1; }

int launches() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto out = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, 64 * 32);
  for (int i = 0; i < 20; ++i)
    oxide::unsafe_launch(stream, fill, oxide::LaunchConfig1D{64, 32}, out);
  std::uint32_t sum = 0;
  for (const std::uint32_t v : out.to_host(stream))
    sum += v;
  return sum == 64 * 32 ? 0 : 1;
}

int main() {
  if (launches() != 0)
    return 1;
  const pid_t child = fork();
  if (child == 0)
    _exit(launches());
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("child %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
