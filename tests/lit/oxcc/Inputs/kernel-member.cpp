#include <oxide/oxide.hpp>

struct Model {
  [[kernel]] void step(oxide::DisjointSpan<float> out);
};

int main() {}
