// Language coverage, classes: member functions defined in the class and out of line, static
// member functions and constants, operator overloads, constructors and destructors (RAII),
// copy and move, inheritance, structs passed to a kernel by value, and virtual dispatch on
// objects constructed on the device, with new/delete (including aligned and array new) and
// placement new.
//
//   oxcc run tests/lang/classes.cpp
#include "lang_check.hpp"

#include <cstdint>
#include <new>

struct Vec3 {
  double x = 0, y = 0, z = 0;

  Vec3() = default;
  Vec3(double x, double y, double z) : x(x), y(y), z(z) {}
  explicit Vec3(double all) : Vec3(all, all, all) {}

  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  Vec3 cross(const Vec3 &o) const; // out of line
  double length_squared() const;   // out of line
  static Vec3 unit_x() { return {1, 0, 0}; }
  static constexpr int dimensions = 3;

  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-() const { return {-x, -y, -z}; }
  Vec3 &operator+=(const Vec3 &o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  double operator[](int k) const { return k == 0 ? x : k == 1 ? y : z; }
  bool operator==(const Vec3 &) const = default;
  explicit operator bool() const { return x != 0 || y != 0 || z != 0; }
};
Vec3 Vec3::cross(const Vec3 &o) const { return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x}; }
double Vec3::length_squared() const { return dot(*this); }
Vec3 operator*(double s, const Vec3 &v) { return {s * v.x, s * v.y, s * v.z}; } // free operator

/// Counts constructions and destructions into a caller's counters (RAII on the device).
struct Tracer {
  int *constructed, *destroyed;
  int id;
  Tracer(int *c, int *d, int id) : constructed(c), destroyed(d), id(id) { ++*constructed; }
  Tracer(const Tracer &o) : constructed(o.constructed), destroyed(o.destroyed), id(o.id + 100) {
    ++*constructed;
  }
  Tracer(Tracer &&o) noexcept : constructed(o.constructed), destroyed(o.destroyed), id(o.id + 1000) {
    ++*constructed;
  }
  ~Tracer() { *destroyed += id; }
};

int raii(int i) {
  int constructed = 0, destroyed = 0;
  {
    Tracer a(&constructed, &destroyed, i);
    Tracer b = a;            // copy
    Tracer c = std::move(a); // move
    (void)b;
    (void)c;
  }
  return constructed * 100000 + destroyed;
}

class Counter { // private state, public interface, a mutable member and a friend
public:
  explicit Counter(int start) : value_(start) {}
  Counter &operator++() {
    ++value_;
    ++reads_;
    return *this;
  }
  Counter operator++(int) {
    Counter old = *this;
    ++*this;
    return old;
  }
  int operator()(int k) const {
    ++reads_;
    return value_ * k;
  }
  int reads() const { return reads_; }
  friend int peek(const Counter &c) { return c.value_; }

private:
  int value_;
  mutable int reads_ = 0;
};

struct Base {
  int base_value;
  int twice() const { return 2 * base_value; }
};
struct Derived : Base {
  int extra;
  int total() const { return twice() + extra; }
};

// Polymorphism on the device: objects constructed by device code (new, locals, placement new).
struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual int sides() const { return 0; }
};
struct Square : Shape {
  double a;
  explicit Square(double a) : a(a) {}
  double area() const override { return a * a; }
  int sides() const override { return 4; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.0 * r * r; }
};
struct Triangle final : Shape {
  double b, h;
  int *destroyed;
  Triangle(double b, double h, int *destroyed) : b(b), h(h), destroyed(destroyed) {}
  ~Triangle() override { ++*destroyed; }
  double area() const override { return 0.5 * b * h; }
  int sides() const override { return 3; }
};

struct alignas(64) Aligned {
  double value;
};

[[gnu::noinline]] Shape *make_shape(int kind, double size, int *destroyed) {
  switch (kind % 3) {
  case 0:
    return new Square(size);
  case 1:
    return new Circle(size);
  default:
    return new Triangle(size, 2.0, destroyed);
  }
}

[[gnu::noinline]] double describe(const Shape &s) { return s.area() + 10.0 * s.sides(); }

double polymorphism(int i) {
  int destroyed = 0;
  const double size = 1.0 + (i % 5);
  Shape *shape = make_shape(i, size, &destroyed);
  double result = describe(*shape);
  delete shape; // virtual destructor through the base

  Square square(size);
  Circle circle(size);
  const Shape *locals[] = {&square, &circle};
  result += 100.0 * describe(*locals[i % 2]);

  alignas(Triangle) unsigned char storage[sizeof(Triangle)];
  Shape *placed = new (storage) Triangle(size, 4.0, &destroyed);
  result += 1000.0 * describe(*placed);
  placed->~Shape();

  double *array = new double[4]{size, 2 * size, 3 * size, 4 * size};
  result += array[i % 4];
  delete[] array;

  Aligned *aligned = new Aligned{size};
  result += (reinterpret_cast<std::uintptr_t>(aligned) % 64 == 0 ? 1e6 : 0.0) + aligned->value;
  delete aligned;
  return result + 1e7 * destroyed;
}

/// Passed to a kernel by value: nested structs, arrays and an enum.
enum class Mode : std::uint8_t { add, multiply };
struct Params {
  Vec3 origin;
  double weights[3];
  Mode mode;
  int count;
};

using Row = std::array<double, 10>;

Row compute(std::int64_t i, const Params &params) {
  Row r{};
  const double t = static_cast<double>(i);
  Vec3 v(t, t + 1, t - 1);
  Vec3 w(0.5);
  r[0] = v.dot(w) + v.cross(Vec3::unit_x()).length_squared();
  Vec3 acc = v + -w;
  acc += 2.0 * w;
  r[1] = acc[0] + acc[1] * 10 + acc[2] * 100 + Vec3::dimensions + (acc == v + w ? 1000 : 0) +
         (bool(Vec3()) ? 1 : 0);
  r[2] = raii(static_cast<int>(i));
  Counter counter(static_cast<int>(i));
  ++counter;
  Counter old = counter++;
  r[3] = counter(3) + peek(old) * 1000 + counter.reads() * 100000;
  Derived d;
  d.base_value = static_cast<int>(i);
  d.extra = 7;
  r[4] = d.total();
  r[5] = 0; // polymorphism: its own kernel, below
  const double weighted = params.weights[0] * v.x + params.weights[1] * v.y + params.weights[2] * v.z;
  r[6] = params.mode == Mode::add ? weighted + params.origin.dot(v) : weighted * params.origin.dot(v);
  r[7] = params.count + static_cast<double>(i % params.count);
  r[8] = (params.origin + v).length_squared();
  r[9] = sizeof(Params) + alignof(Aligned);
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void classes(oxide::DisjointSpan<Row> out,
                                                                          Params params) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()), params);
}

// Virtual destructors that count through a pointer kept in a heap object: the safety verifier
// cannot follow a pointer stored in memory, so this part runs in the unsafe tier (no contract,
// oxide::unsafe_launch).
[[kernel]] void classes_polymorphism(oxide::DisjointSpan<double> out) {
  const auto idx = oxide::thread::index_1d();
  if (double *o = out.get_mut(idx))
    *o = polymorphism(static_cast<int>(idx.get()));
}

int main() {
  return lang::run_group("classes", [](lang::Checker &check) {
    check.run_unsafe("classes_polymorphism", classes_polymorphism, 200,
                     [](std::size_t i) { return polymorphism(static_cast<int>(i)); });
    const Params add{{1.0, -2.0, 0.5}, {0.25, 0.5, 2.0}, Mode::add, 7};
    const Params multiply{{0.5, 0.5, 0.5}, {1.0, 0.0, -1.0}, Mode::multiply, 3};
    check.run(
        "classes(add)", classes, 200,
        [&](std::size_t i) { return compute(static_cast<std::int64_t>(i), add); }, add);
    check.run(
        "classes(multiply)", classes, 200,
        [&](std::size_t i) { return compute(static_cast<std::int64_t>(i), multiply); }, multiply);
  });
}
