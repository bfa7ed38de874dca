#include <oxide/oxide.hpp>

[[kernel]] void uses_host(oxide::DisjointSpan<float> out) {
  auto ctx = oxide::Context::create();
}

int main() {}
