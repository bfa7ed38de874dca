#include <oxide/oxide.hpp>

[[kernel]] int count(oxide::Span<const int> in) { return 1; }

int main() {}
