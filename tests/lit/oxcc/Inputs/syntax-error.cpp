#include <oxide/oxide.hpp>

[[kernel]] void broken(oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d()
}

int main() {}
