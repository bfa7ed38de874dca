#include <oxide/oxide.hpp>

[[kernel]] int not_a_function = 3;

int main() {}
