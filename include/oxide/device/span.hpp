// Kernel parameter views over device memory.
//
// Span<const T> is a shared read-only input; DisjointSpan<T> is the safe output, written only at
// the calling thread's own index. Both are {pointer, size} pairs with the same layout on host and
// device, so the host runtime passes them to kernels as ordinary parameters.
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

#include "oxide/device/cache.hpp"
#include "oxide/device/claims.hpp" // ClaimSet, which DisjointSpan::claim_mut takes
#include "oxide/device/group.hpp"
#include "oxide/device/intrinsics.hpp"
#include "oxide/device/permutation.hpp" // PermutationSpan, which DisjointSpan::scatter_mut takes
#include "oxide/device/thread.hpp"
#include "oxide/device/vector.hpp" // Vec<T, 2>, the pairs of a warpgroup tile

namespace oxide {

namespace detail {
struct SpanAccess;
} // namespace detail

/// A bounds-checked view of `size()` elements of T in device memory.
template <class T> class Span {
  static_assert(std::is_trivially_copyable_v<std::remove_const_t<T>>,
                "oxide::Span elements must be trivially copyable");

public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using size_type = std::size_t;

  constexpr Span() noexcept = default;

  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr T *data() const noexcept { return data_; }

  /// Element `i`; an out-of-bounds index stops the kernel with a message.
  constexpr T &operator[](size_type i) const noexcept {
    if (i >= size_) [[unlikely]]
      __oxide_bounds_fail(i, size_);
    return data_[i];
  }
  /// Pointer to element `i`, or nullptr when `i` is out of bounds.
  [[nodiscard]] constexpr T *get(size_type i) const noexcept { return i < size_ ? data_ + i : nullptr; }
  /// Element `i` read with cache hint `Hint` (oxide/device/cache.hpp: cache::streaming for data
  /// read once, cache::read_only for __ldg...); bounds-checked like operator[]. Inputs only: a
  /// Span<const T> parameter, in global memory.
  template <cache::Hint Hint> [[nodiscard, gnu::always_inline]] value_type load(size_type i) const noexcept {
    static_assert(std::is_const_v<T>, "cache-hinted loads read Span<const T> inputs (global memory that no "
                                      "thread writes); a Span<T> is shared memory or an unchecked kernel's");
    if (i >= size_) [[unlikely]]
      __oxide_bounds_fail(i, size_);
    return detail::cached_load<Hint>(data_ + i);
  }

  constexpr T *begin() const noexcept { return data_; }
  constexpr T *end() const noexcept { return data_ + size_; }

private:
  friend struct detail::SpanAccess;
  constexpr Span(T *data, size_type size) noexcept : data_(data), size_(size) {}
  T *data_ = nullptr;
  size_type size_ = 0;
};

/// in.load<Hint>(i), as a free function: generic code then needs no `in.template load<Hint>(i)`.
template <cache::Hint Hint, class T>
[[nodiscard, gnu::always_inline]] inline T load(const Span<const T> &in, std::size_t i) noexcept {
  return in.template load<Hint>(i);
}

/// The `N` (at most) consecutive output elements of one thread: index it below size() or
/// iterate over it. Every element is named by the thread's witness and its place in the tile,
/// so the compiler checks each write; there is no raw pointer to the tile to index past it.
template <class T, std::size_t N> class DisjointTile {
public:
  using size_type = std::size_t;

  /// Visits the tile's elements in order (a range-for over the tile). It holds its own copy of
  /// what names the elements, so it stays valid after the tile it came from is gone.
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = T *;
    using reference = T &;

    constexpr iterator() noexcept = default;
    constexpr T &operator*() const noexcept { return element(data_, span_size_, index_, j_, count_); }
    constexpr iterator &operator++() noexcept {
      ++j_;
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      iterator before = *this;
      ++j_;
      return before;
    }
    friend constexpr bool operator==(const iterator &a, const iterator &b) noexcept { return a.j_ == b.j_; }

  private:
    friend class DisjointTile;
    constexpr iterator(const DisjointTile &tile, size_type j) noexcept
        : data_(tile.data_), span_size_(tile.span_size_), index_(tile.index_), count_(tile.count_), j_(j) {}
    T *data_ = nullptr;
    size_type span_size_ = 0, index_ = 0, count_ = 0, j_ = 0;
  };

  /// N for a full tile, fewer for the last thread's partial tile, 0 past the end.
  [[nodiscard]] constexpr size_type size() const noexcept { return count_; }
  [[nodiscard]] constexpr bool full() const noexcept { return count_ == N; }
  [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }
  constexpr iterator begin() const noexcept { return {*this, 0}; }
  constexpr iterator end() const noexcept { return {*this, count_}; }
  /// Element `j` of the tile; `j` must be below size() (checked: stops the kernel otherwise).
  constexpr T &operator[](size_type j) const noexcept {
    return element(data_, span_size_, index_, j, count_);
  }

private:
  /// Element j of thread `index`'s tile of a span of `span_size` elements at `data`.
  static constexpr T &element(T *data, size_type span_size, size_type index, size_type j,
                              size_type count) noexcept {
    T *element = static_cast<T *>(__oxide_disjoint_tile(data, span_size, sizeof(T), N, index, j));
    if (!element) [[unlikely]]
      __oxide_bounds_fail(j, count);
    return *element;
  }

  template <class> friend class DisjointSpan;
  constexpr DisjointTile(T *data, size_type span_size, size_type index, size_type count) noexcept
      : data_(data), span_size_(span_size), index_(index), count_(count) {}
  T *data_;
  size_type span_size_, index_, count_;
};

namespace detail {
/// Elements that OwnedElements::get_mut_pair pairs: a pair is one aligned access of 2 to 16 bytes.
template <class T>
concept pairable = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8;
} // namespace detail

/// The elements of an output that one owner may write beyond its single element: a thread's
/// strided elements, pair or z-column, or its lane's (thread's) part of its warp's (block's) row.
/// Element `j` is get_mut(j) for j < size(), nullptr where the set leaves the output. Each call
/// names one element from the owner's witness, so the compiler checks every write; the sets of
/// different owners never meet (intrinsic::Ownership says how each shape makes sure).
template <class T, intrinsic::Ownership Shape> class OwnedElements {
public:
  using size_type = std::size_t;

  /// The bound of `j`: how many elements the set names (some may be past the output's edge).
  [[nodiscard]] constexpr size_type size() const noexcept { return count_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }
  /// Element `j` of the set, or nullptr when `j >= size()` or the element is outside the output.
  [[nodiscard]] T *get_mut(size_type j) const noexcept {
    return static_cast<T *>(__oxide_owned_elem(data_, width_, height_, depth_, sizeof(T),
                                               intrinsic::code(Shape), param_, x_, y_, j));
  }
  /// Element `j`, which must be inside the output (checked: stops the kernel otherwise).
  T &operator[](size_type j) const noexcept {
    T *element = get_mut(j);
    if (!element) [[unlikely]]
      __oxide_bounds_fail(j, count_);
    return *element;
  }

  /// Elements `j` and `j + 1` of a warpgroup tile (j even: an accumulator pair, two adjacent
  /// columns of one row) as one vector, so that one 2-element store writes both
  /// (st.global.v2.f32 for float); nullptr when j is odd, either element is outside the output,
  /// or the pair is not aligned to its size (an odd width puts every other row's pairs off it).
  [[nodiscard]] Vec<T, 2> *get_mut_pair(size_type j) const noexcept
    requires(Shape == intrinsic::Ownership::warpgroup_tile && detail::pairable<T>)
  {
    return static_cast<Vec<T, 2> *>(__oxide_owned_pair(data_, width_, height_, depth_, sizeof(T),
                                                       intrinsic::code(Shape), param_, x_, y_, j));
  }
  /// Writes `first` to element `j` and `second` to element `j + 1` (j even): one paired store
  /// where get_mut_pair gives the pair, else each element that is inside the output. The
  /// epilogue of a warpgroup GEMM: `for (j = 0; j < acc.size; j += 2) out.store_pair(j, a, b);`.
  [[gnu::always_inline]] void store_pair(size_type j, T first, T second) const noexcept
    requires(Shape == intrinsic::Ownership::warpgroup_tile && detail::pairable<T>)
  {
    if (Vec<T, 2> *pair = get_mut_pair(j)) [[likely]] {
      *pair = Vec<T, 2>{first, second};
      return;
    }
    if (T *element = get_mut(j))
      *element = first;
    if (T *element = get_mut(j + 1))
      *element = second;
  }

private:
  template <class> friend class DisjointSpan;
  template <class> friend class DisjointSpan2D;
  template <class> friend class DisjointSpan3D;
  constexpr OwnedElements(T *data, size_type width, size_type height, size_type depth, size_type param,
                          size_type x, size_type y, size_type count) noexcept
      : data_(data), width_(width), height_(height), depth_(depth), param_(param), x_(x), y_(y),
        count_(count) {}
  // Only what names the elements: the shape is the type's, so it is a constant in the IR.
  T *data_;
  size_type width_, height_, depth_, param_, x_, y_, count_;
};

namespace detail {
/// The calling thread's index in its block, x fastest (its warp is this / 32).
inline std::size_t thread_in_block() noexcept {
  return (std::size_t{__oxide_thread_idx(2)} * __oxide_block_dim(1) + __oxide_thread_idx(1)) *
             __oxide_block_dim(0) +
         __oxide_thread_idx(0);
}
/// ceil((extent - first) / step) when first < extent, else 0: how many of first, first + step...
/// are below extent.
constexpr std::size_t strided_count(std::size_t extent, std::size_t first, std::size_t step) noexcept {
  return first < extent && step != 0 ? (extent - first - 1) / step + 1 : 0;
}
} // namespace detail

/// An output that each thread may write only at its own index.
template <class T> class DisjointSpan {
  static_assert(!std::is_const_v<T>, "a DisjointSpan is an output; use Span<const T> for inputs");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DisjointSpan elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr DisjointSpan() noexcept = default;

  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }

  /// The calling thread's element, or nullptr when its index is out of bounds.
  [[nodiscard]] T *get_mut(const thread::ThreadIndex1D &index) const noexcept {
    return static_cast<T *>(__oxide_disjoint_get(data_, size_, sizeof(T), index.get()));
  }
  /// An integer is no witness: refused at the call, with the ways to write at a computed index.
  T *get_mut(size_type index) const noexcept __attribute__((unavailable(
      "get_mut takes the calling thread's witness (oxide::thread::index_1d()), not an index the kernel "
      "computed, "
      "which two threads could share; to write at a computed index use claim_mut(j, claims) with a ClaimSet "
      "parameter, scatter_mut(i, perm) with a checked PermutationSpan, an AtomicSpan's store, or an "
      "AppendSpan")));

  /// The calling thread's N consecutive elements [index * N, index * N + N), cut short at the
  /// end of the span (launch size() / N threads, rounded up).
  template <std::size_t N>
  [[nodiscard]] DisjointTile<T, N> tile_mut(const thread::ThreadIndex1D &index) const noexcept {
    static_assert(N > 0, "a tile holds at least one element");
    const size_type x = index.get(), tiles = size_ / N + (size_ % N != 0 ? 1 : 0);
    const size_type count = x >= tiles ? 0 : size_ - x * N < N ? size_ - x * N : N;
    return {data_, size_, x, count};
  }

  // The functions that take a witness are always inlined: a witness passed by reference to a call
  // that stays a call reaches it through memory, where the compiler can no longer see that it is one.

  /// Element `w` for warp `w`'s lane 0 (nullptr on the other lanes and past the end): where a
  /// warp writes its one result, after reducing it across its lanes.
  [[nodiscard, gnu::always_inline]] T *get_mut(const warp::WarpIndex &w) const noexcept {
    return leader<intrinsic::Ownership::warp_leader>(w.get());
  }
  /// Element `b` for block `b`'s thread 0 (nullptr for the others): a block's partial result.
  [[nodiscard, gnu::always_inline]] T *get_mut(const block::BlockIndex &b) const noexcept {
    return leader<intrinsic::Ownership::block_leader>(b.get());
  }
  /// Element `c` for thread 0 of cluster `c`'s block of rank 0: a cluster's result.
  [[nodiscard, gnu::always_inline]] T *get_mut(const cluster::ClusterIndex &c) const noexcept {
    return leader<intrinsic::Ownership::cluster_leader>(c.get());
  }

  /// The calling thread's elements i, i + T, i + 2T... (T = gridDim.x * blockDim.x, the launch's
  /// threads): a grid-stride loop's elements, named by their step j.
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::launch_strided>
  strided_mut(const thread::ThreadIndex1D &index) const noexcept {
    const size_type threads = size_type{__oxide_grid_dim(0)} * __oxide_block_dim(0);
    return {data_, size_, 1, 1, 0, index.get(), 0, detail::strided_count(size_, index.get(), threads)};
  }
  /// Coarsening with coalesced writes: block b's K * B elements from b * B * K, thread t of the
  /// block writing t, t + B, ... t + (K - 1) B of them (B = blockDim.x). Launch ceil(size() / K)
  /// threads; the thread's own index itself, not a grid-stride step.
  template <std::size_t K>
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::block_strided>
  block_strided_mut(const thread::ThreadIndex1D &index) const noexcept {
    static_assert(K > 0 && K <= detail::kMaxStridedCount,
                  "block_strided_mut takes 1 to 65536 elements per thread");
    return {data_, size_, 1, 1, K, index.get(), 0, K};
  }
  /// The pair of a sorting network or butterfly: thread i owns elements lo and lo + distance, with
  /// lo = (i / distance) * 2 * distance + i % distance (for i < distance: i and i + distance).
  /// Launch size() / 2 threads. `distance` must be the same for every thread: a constant or a
  /// kernel parameter (the compiler checks); get_mut(0) is lo, get_mut(1) lo + distance.
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::pair>
  pair_mut(const thread::ThreadIndex1D &index, size_type distance) const noexcept {
    return {data_, size_, 1, 1, distance, index.get(), 0, 2};
  }
  /// A scatter through a permutation: element perm[i] for witness i (grid-stride steps too), or
  /// nullptr when i >= perm.size() or perm[i] >= size(). `perm` is a PermutationSpan parameter,
  /// which the host checked is a permutation and no thread writes, so different threads get
  /// different elements. An output written this way is written through this `perm` only.
  [[nodiscard, gnu::always_inline]] T *scatter_mut(const thread::ThreadIndex1D &index,
                                                   const PermutationSpan &perm) const noexcept {
    return static_cast<T *>(
        __oxide_permuted_elem(data_, size_, sizeof(T), perm.data_, perm.size_, index.get()));
  }
  /// A scatter at any index: element j when this thread is the first of the launch to claim it
  /// through `claims` (one atomic bit operation), nullptr when another thread has it or when
  /// j >= size() or j >= claims.size(). `claims` is a ClaimSet parameter, whose bits start the
  /// launch clear, so no two threads get the same element. An output written this way is written
  /// through this `claims` only.
  [[nodiscard, gnu::always_inline]] T *claim_mut(size_type j, const ClaimSet &claims) const noexcept {
    return static_cast<T *>(__oxide_claimed_elem(data_, size_, sizeof(T), claims.bits_, claims.size_, j));
  }

private:
  friend struct detail::SpanAccess;
  constexpr DisjointSpan(T *data, size_type size) noexcept : data_(data), size_(size) {}
  template <intrinsic::Ownership Shape> [[gnu::always_inline]] T *leader(size_type owner) const noexcept {
    return static_cast<T *>(
        __oxide_owned_elem(data_, size_, 1, 1, sizeof(T), intrinsic::code(Shape), 0, owner, 0, 0));
  }
  T *data_ = nullptr;
  size_type size_ = 0;
};

/// The Rows x Cols block of output elements of one thread of a 2-D launch (a register tile of a
/// matrix product), cut short at the right and bottom edges: element (r, c) is bounds-checked
/// against the tile, which is inside the output.
template <class T, std::size_t Rows, std::size_t Cols> class DisjointTile2D {
public:
  using size_type = std::size_t;

  /// Rows and columns of the tile inside the output (Rows x Cols unless at an edge; 0 past it).
  [[nodiscard]] constexpr size_type rows() const noexcept { return extent(height_, y_, Rows); }
  [[nodiscard]] constexpr size_type cols() const noexcept { return extent(width_, x_, Cols); }
  /// Whether the tile is whole: its last element exists. Asked as the element guard asks it, so
  /// that under `if (tile.full())` the compiler sees every element's guard hold.
  [[nodiscard]] constexpr bool full() const noexcept {
    return __oxide_disjoint_tile_2d(data_, width_, height_, sizeof(T), Cols, Rows, x_, y_, Cols - 1,
                                    Rows - 1) != nullptr;
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return rows() == 0 || cols() == 0; }
  /// Element (r, c) of the tile, r < rows() and c < cols() (checked: stops the kernel otherwise).
  constexpr T &operator()(size_type r, size_type c) const noexcept {
    T *element = static_cast<T *>(
        __oxide_disjoint_tile_2d(data_, width_, height_, sizeof(T), Cols, Rows, x_, y_, c, r));
    if (!element) [[unlikely]]
      __oxide_bounds_fail(r >= rows() ? r : c, r >= rows() ? rows() : cols());
    return *element;
  }

private:
  template <class> friend class DisjointSpan2D;
  constexpr DisjointTile2D(T *data, size_type width, size_type height, size_type x, size_type y) noexcept
      : data_(data), width_(width), height_(height), x_(x), y_(y) {}
  /// The tile's extent along one dimension: `tile` elements from `index * tile`, cut at `total`.
  static constexpr size_type extent(size_type total, size_type index, size_type tile) noexcept {
    if (index >= total / tile + (total % tile != 0 ? 1 : 0))
      return 0;
    return total - index * tile < tile ? total - index * tile : tile;
  }
  // Only what names an element: the rows and columns are recomputed when asked, so a tile made
  // before a long loop keeps few registers live across it.
  T *data_;
  size_type width_, height_, x_, y_;
};

/// The order of DisjointSpan2D::warpgroup_tile_mut's tiles for work that grows along runs of
/// `period` tiles (causal attention: a head's q-tiles): longest tiles first, `runs_at_once` runs
/// at a time (0: all of them). Fewer runs at once keep the blocks running together on fewer
/// inputs (a few heads' keys and values in L2); more spread the long tiles over more blocks.
struct LongestFirst {
  std::size_t period;
  std::size_t runs_at_once = 0;
};

/// A row-major width x height output of a 2-D launch; thread (x, y) may write element
/// [y][x] only, or the tile of elements tile_mut gives it.
template <class T> class DisjointSpan2D {
  static_assert(!std::is_const_v<T>, "a DisjointSpan2D is an output; use Span<const T> for inputs");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DisjointSpan2D elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr DisjointSpan2D() noexcept = default;

  [[nodiscard]] constexpr size_type width() const noexcept { return width_; }
  [[nodiscard]] constexpr size_type height() const noexcept { return height_; }
  [[nodiscard]] constexpr size_type size() const noexcept { return width_ * height_; }

  /// Element [y][x] for the calling thread's witness, or nullptr outside width x height.
  [[nodiscard]] T *get_mut(const thread::ThreadIndex2D &index) const noexcept {
    return static_cast<T *>(__oxide_disjoint_get_2d(data_, width_, height_, sizeof(T), index.x(), index.y()));
  }

  /// The calling thread's Rows x Cols tile: rows [y * Rows, y * Rows + Rows) and columns
  /// [x * Cols, x * Cols + Cols), cut short at the edges (launch ceil(width / Cols) x
  /// ceil(height / Rows) threads). Tiles of different threads never overlap.
  template <std::size_t Rows, std::size_t Cols>
  [[nodiscard]] DisjointTile2D<T, Rows, Cols> tile_mut(const thread::ThreadIndex2D &index) const noexcept {
    static_assert(Rows > 0 && Cols > 0, "a tile holds at least one element");
    return {data_, width_, height_, index.x(), index.y()};
  }

  /// Row `w` for warp `w`: its lane l writes columns l, l + 32, l + 64... (j-th: l + 32 j).
  /// One warp per row along grid x, so any number of rows fits (no gridDim.y limit).
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::warp_lanes>
  row_mut(const warp::WarpIndex &w) const noexcept {
    const size_type lane = __oxide_lane_id();
    return {data_, width_,  height_, 1,
            0,     w.get(), 0,       w.get() < height_ ? detail::strided_count(width_, lane, kWarpSize) : 0};
  }
  /// Row `b` for block `b`: its thread t (linear in the block) writes columns t, t + B...
  /// (B = the block's threads).
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::block_threads>
  row_mut(const block::BlockIndex &b) const noexcept {
    const size_type threads = size_type{__oxide_block_dim(0)} * __oxide_block_dim(1) * __oxide_block_dim(2);
    return {
        data_,   width_,
        height_, 1,
        0,       b.get(),
        0,       b.get() < height_ ? detail::strided_count(width_, detail::thread_in_block(), threads) : 0};
  }
  /// Column x, and K rows strided by the block's height: thread (x, y) of block row b
  /// (y = b * By + t, By = blockDim.y) writes rows b * By * K + t + By * j, j < K. The tiles of a
  /// 32 x 8 block covering 32 x 32 outputs (rows ty, ty + 8, ty + 16, ty + 24). Launch
  /// ceil(height / K) rows of threads; the thread's own index itself, not a grid-stride step.
  template <std::size_t K>
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::strided_rows>
  strided_rows_mut(const thread::ThreadIndex2D &index) const noexcept {
    static_assert(K > 0 && K <= detail::kMaxStridedCount, "strided_rows_mut takes 1 to 65536 rows");
    return {data_, width_, height_, 1, K, index.x(), index.y(), K};
  }

  /// The calling thread's part of its block's tile when warpgroups First .. First + Consumers - 1
  /// of the block each hold a 64 x N accumulator of warpgroup MMAs (oxide::wgmma): block b owns
  /// a (64 * Consumers) x N tile of the output, the blocks taking the tiles Group tile rows at a
  /// time (detail::WarpgroupTile says which), consumer c rows [64 c, 64 c + 64) of it, and
  /// element j of the set is element j of the thread's wgmma::Accumulator<T, N>. Launch one block
  /// per tile (a 1-D grid of ceil(height / (64 Consumers)) * ceil(width / N) blocks); threads
  /// outside the consumer warpgroups get an empty set.
  template <std::uint32_t N, std::uint32_t Consumers, std::uint32_t First = 0, std::uint32_t Group = 1>
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::warpgroup_tile>
  warpgroup_tile_mut(const block::BlockIndex &b) const noexcept {
    constexpr detail::WarpgroupTile tile{N, Consumers, First, Group};
    static_assert(tile.valid(),
                  "warpgroup_tile_mut: N is a multiple of 8 up to 256, 1 to 4 consumer warpgroups "
                  "among a block's 8, and 1 to 65535 tile rows per group");
    return {data_, width_, height_, 1, tile.pack(), b.get(), 0, N / 2};
  }
  /// Where block `b`'s tile of warpgroup_tile_mut<N, Consumers, First, Group> starts (the rows and
  /// columns of the inputs it multiplies); `inside` is false for a block past the last tile.
  template <std::uint32_t N, std::uint32_t Consumers, std::uint32_t First = 0, std::uint32_t Group = 1>
  [[nodiscard]] detail::WarpgroupTile::Origin
  warpgroup_tile_origin(const block::BlockIndex &b) const noexcept {
    return detail::WarpgroupTile{N, Consumers, First, Group}.origin(b.get(), width_, height_);
  }
  /// The same tiles taken longest-first: they come in runs of `order.period` tiles whose work
  /// grows along the run (the q-tiles of one head in causal attention), taken
  /// `order.runs_at_once` runs at a time (0: all): the blocks of a group of runs take each run's
  /// last tile, then each run's tile before, and so on (detail::WarpgroupTile gives the formula).
  /// A persistent launch's blocks take the steps of every other round in reverse, so that each
  /// gets its share of long and short tiles.
  /// A bijection from blocks to tiles, as the other order; the order must be the same for every
  /// thread (constants, kernel parameters, the launch's dimensions or arithmetic of them:
  /// checked) and the period divide the tiles (or no block gets a tile).
  template <std::uint32_t N, std::uint32_t Consumers, std::uint32_t First = 0>
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::warpgroup_tile>
  warpgroup_tile_mut(const block::BlockIndex &b, LongestFirst order) const noexcept {
    constexpr detail::WarpgroupTile tile{N, Consumers, First, 1, 1};
    static_assert(tile.valid(),
                  "warpgroup_tile_mut: N is a multiple of 8 up to 256, 1 to 4 consumer warpgroups "
                  "among a block's 8");
    return {data_,
            width_,
            height_,
            1,
            tile.pack(),
            b.get(),
            detail::WarpgroupTile::longest_first_order(order.period, order.runs_at_once),
            N / 2};
  }
  template <std::uint32_t N, std::uint32_t Consumers, std::uint32_t First = 0>
  [[nodiscard]] detail::WarpgroupTile::Origin warpgroup_tile_origin(const block::BlockIndex &b,
                                                                    LongestFirst order) const noexcept {
    const size_type blocks = size_type{__oxide_grid_dim(0)} * __oxide_grid_dim(1) * __oxide_grid_dim(2);
    return detail::WarpgroupTile{N, Consumers, First, 1, 1}.origin(
        b.get(), width_, height_,
        detail::WarpgroupTile::longest_first_order(order.period, order.runs_at_once), blocks);
  }

private:
  static constexpr size_type kWarpSize = detail::kWarpSize;
  friend struct detail::SpanAccess;
  constexpr DisjointSpan2D(T *data, size_type width, size_type height) noexcept
      : data_(data), width_(width), height_(height) {}
  T *data_ = nullptr;
  size_type width_ = 0;
  size_type height_ = 0;
};

/// A width x height x depth output of a 3-D launch, x fastest; thread (x, y, z) may write
/// element [z][y][x] only.
template <class T> class DisjointSpan3D {
  static_assert(!std::is_const_v<T>, "a DisjointSpan3D is an output; use Span<const T> for inputs");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DisjointSpan3D elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr DisjointSpan3D() noexcept = default;

  [[nodiscard]] constexpr size_type width() const noexcept { return width_; }
  [[nodiscard]] constexpr size_type height() const noexcept { return height_; }
  [[nodiscard]] constexpr size_type depth() const noexcept { return depth_; }
  [[nodiscard]] constexpr size_type size() const noexcept { return width_ * height_ * depth_; }

  [[nodiscard]] T *get_mut(const thread::ThreadIndex3D &index) const noexcept {
    return static_cast<T *>(
        __oxide_disjoint_get_3d(data_, width_, height_, depth_, sizeof(T), index.x(), index.y(), index.z()));
  }

  /// The z-column of thread (x, y) of a 2-D launch (`domain = 2`): elements [j][y][x] for every
  /// j < depth(), for kernels that march along z (2.5-D stencils).
  [[nodiscard, gnu::always_inline]] OwnedElements<T, intrinsic::Ownership::z_column>
  column_mut(const thread::ThreadIndex2D &index) const noexcept {
    return {data_, width_, height_, depth_, 0, index.x(), index.y(), depth_};
  }

private:
  friend struct detail::SpanAccess;
  constexpr DisjointSpan3D(T *data, size_type width, size_type height, size_type depth) noexcept
      : data_(data), width_(width), height_(height), depth_(depth) {}
  T *data_ = nullptr;
  size_type width_ = 0;
  size_type height_ = 0;
  size_type depth_ = 0;
};

namespace detail {
/// The one way to make spans from raw device pointers: used by the host runtime when it binds
/// DeviceBuffers to kernel parameters. Not part of the public API.
struct SpanAccess {
  template <class T> static constexpr Span<T> make_span(T *data, std::size_t size) noexcept {
    return {data, size};
  }
  template <class T> static constexpr DisjointSpan<T> make_disjoint(T *data, std::size_t size) noexcept {
    return {data, size};
  }
  template <class T>
  static constexpr DisjointSpan2D<T> make_disjoint_2d(T *data, std::size_t width,
                                                      std::size_t height) noexcept {
    return {data, width, height};
  }
  template <class T>
  static constexpr DisjointSpan3D<T> make_disjoint_3d(T *data, std::size_t width, std::size_t height,
                                                      std::size_t depth) noexcept {
    return {data, width, height, depth};
  }
  /// AtomicSpan<T, S> (oxide/device/atomic.hpp), constructed the same way.
  template <class AtomicSpanT, class T>
  static constexpr AtomicSpanT make_atomic(T *data, std::size_t size) noexcept {
    return {data, size};
  }

  /// Whether span type S has the layout whose offsets the compiler reads a parameter's fields at
  /// (kSpanDataOffset, kSpanExtentOffset, kSpanExtentStride in oxide/detail/intrinsic_abi.hpp):
  /// the data pointer, then the size, or the width, height and depth.
  template <class S> static constexpr bool has_compiler_layout() noexcept {
    if constexpr (requires { &S::size_; })
      return offsetof(S, data_) == kSpanDataOffset && offsetof(S, size_) == kSpanExtentOffset;
    else if constexpr (requires { &S::depth_; })
      return offsetof(S, data_) == kSpanDataOffset && offsetof(S, width_) == kSpanExtentOffset &&
             offsetof(S, height_) == kSpanExtentOffset + kSpanExtentStride &&
             offsetof(S, depth_) == kSpanExtentOffset + 2 * kSpanExtentStride;
    else
      return offsetof(S, data_) == kSpanDataOffset && offsetof(S, width_) == kSpanExtentOffset &&
             offsetof(S, height_) == kSpanExtentOffset + kSpanExtentStride;
  }
};
static_assert(SpanAccess::has_compiler_layout<Span<const char>>() &&
              SpanAccess::has_compiler_layout<DisjointSpan<char>>() &&
              SpanAccess::has_compiler_layout<DisjointSpan2D<char>>() &&
              SpanAccess::has_compiler_layout<DisjointSpan3D<char>>());
} // namespace detail

} // namespace oxide
