// The two halo verbs: fill ghosts from their owners, and sum ghost contributions into owners.
//
// Both work on any staggering and any element types, and batch several arrays (of one or
// several types) into one message per neighbour. Every rank must call them with the same
// lists of arrays. An array covers its rank's block, or the block's part inside a window that
// all ranks share (Array3::reset_within). The boxes each array sends and receives are worked
// out once per layout (a plan per staggering, array box, window and region, as AMReX caches its
// fill-boundary plans) and the message buffers are kept, so a steady-state exchange only
// packs, sends and unpacks.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <stdexcept>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"

namespace dunesim {

class Halo {
 public:
  explicit Halo(const Topology& topo) : topo_(topo) {}

  // Ghost entries that another rank owns get that rank's value. Takes one list of arrays per
  // element type, all sent in one message per neighbour:
  //   halo.fill<double, uint8_t>({&u, &v}, {&mask});
  template <class... Ts>
  void fill(std::initializer_list<Array3<Ts>*>... arrays) {
    fill_within(Box::everywhere(), arrays...);
  }

  // fill of the ghost entries of the cells in `cells` alone (of a face array, the faces that
  // bound them); `cells` must be the same box on every rank. Where nothing outside those
  // cells changed since the last fill, the other ghosts still hold and need no message.
  template <class... Ts>
  void fill_within(const Box& cells, std::initializer_list<Array3<Ts>*>... arrays) {
    exchange<false>([](const auto&) {}, cells, arrays...);
  }

  // fill, with `work(poll)` run while the messages travel: work that needs no ghost entry
  // of these arrays (the interior of a block) hides the exchange. The messages are packed
  // before work runs, so the neighbours get the owned entries as they were; work must
  // neither read nor write the ghosts, which arrive after it. Work calls poll() every few
  // microseconds: MPI moves a large message only inside MPI calls (Open MPI's shared-memory
  // transport copies it when the receiver asks), so without polls it would wait for the end.
  //   halo.fill_during<double>([&](const auto& poll) { interior(poll); }, {&x});
  template <class... Ts, class Work>
  void fill_during(Work&& work, std::initializer_list<Array3<Ts>*>... arrays) {
    exchange<false>(work, Box::everywhere(), arrays...);
  }

  // Ghost entries are added into the owner's entries (P2G). Ghosts are left as they were;
  // call fill afterwards to make them consistent again.
  template <class... Ts>
  void sum(std::initializer_list<Array3<Ts>*>... arrays) {
    exchange<true>([](const auto&) {}, Box::everywhere(), arrays...);
  }

  // Layers of ghosts around each rank's block.
  int ghost_width() const { return topo_.ghost(); }

  // Bytes sent by this rank so far, for the communication model.
  int64_t bytes_sent() const { return bytes_sent_; }

 private:
  // One array's part of every message, per neighbour (in neighbours() order): the entries
  // this rank owns that the neighbour's array holds as ghosts, and the entries the
  // neighbour owns that this array holds as ghosts. Fill sends the first and receives the
  // second; sum swaps them. Both ends compute the same boxes and visit the lists in the same
  // order, so they agree on every message without exchanging its size. A plan for part of
  // the block (fill_within) keeps to the entries of its cells.
  struct Plan {
    Stagger stagger;
    Box box, window;  // the array's: an array of another box or window never reuses this plan
    Box cells;        // the cells whose entries it exchanges (Box::everywhere(): all)
    std::vector<Box> owned_in_theirs, theirs_in_mine;
  };
  using Side = std::vector<Box> Plan::*;

  template <bool summing, class Work, class... Ts>
  void exchange(Work&& work, const Box& cells, std::initializer_list<Array3<Ts>*>... arrays) {
    (check_full_block(arrays), ...);
    drop_stale_plans();
    constexpr Side out = summing ? &Plan::theirs_in_mine : &Plan::owned_in_theirs;
    constexpr Side in = summing ? &Plan::owned_in_theirs : &Plan::theirs_in_mine;
    requests_.clear();
    requests_.reserve(2 * send_.size());  // allocates only after a re-cut adds neighbours
    for (size_t q = 0; q < recv_.size(); ++q)
      post_receive(q, message_bytes(in, q, cells, arrays...));
    for (size_t q = 0; q < send_.size(); ++q) pack_and_send(out, q, cells, arrays...);
    work([this] { poll(); });
    MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    for (size_t q = 0; q < recv_.size(); ++q) {
      const char* from = recv_[q].data();
      (unpack<summing>(in, q, from, cells, arrays), ...);
    }
  }

  // A rank sends what it assumes its neighbours' arrays cover (their local boxes, cut to the
  // array's window), so every array must cover its own.
  template <class T>
  void check_full_block(std::initializer_list<Array3<T>*> list) const {
    for (auto* a : list)
      if (!(a->box() == overlap(topo_.local(a->stagger()), a->window())))
        throw std::logic_error(
            "halo exchange on an array that is not its window's part of the local block");
  }

  // Plans and buffers follow one layout: after a re-cut, plans are rebuilt as arrays ask.
  // Windows that follow moving sand leave plans behind too; past a handful they all go.
  void drop_stale_plans() {
    if (plans_.size() > kMaxPlans) plans_.clear();
    if (plans_layout_ == topo_.layout_version()) return;
    plans_.clear();
    send_.resize(topo_.neighbours().size());
    recv_.resize(topo_.neighbours().size());
    plans_layout_ = topo_.layout_version();
  }

  // The plan of an array's staggering, box and window and of the cells exchanged, built on
  // first use.
  template <class T>
  const Plan& plan_for(const Array3<T>& a, const Box& cells) {
    for (const Plan& p : plans_)
      if (p.stagger == a.stagger() && p.box == a.box() && p.window == a.window() &&
          p.cells == cells)
        return p;
    return build_plan(a.stagger(), a.box(), a.window(), cells);
  }

  // The array covers local(s) cut to the window, and so does each neighbour's.
  const Plan& build_plan(Stagger s, const Box& box, const Box& window, const Box& cells) {
    Plan p{s, box, window, cells, {}, {}};
    const int axis = face_axis(s);
    const Box entries = axis < 0 ? cells : faces_of_cells(cells, axis);
    for (int n : topo_.neighbours()) {
      p.owned_in_theirs.push_back(
          overlap(topo_.owned(s).intersect(window).intersect(entries), topo_.local(s, n)));
      p.theirs_in_mine.push_back(overlap(box.intersect(entries), topo_.owned(s, n)));
    }
    plans_.push_back(std::move(p));
    return plans_.back();  // a deque keeps earlier plans where they are
  }

  // Bytes of the message to or from neighbour q: every array's `side` box, in list order.
  template <class... Ts>
  int64_t message_bytes(Side side, size_t q, const Box& cells,
                        std::initializer_list<Array3<Ts>*>... arrays) {
    int64_t bytes = 0;
    auto add = [&](auto list) {
      for (auto* a : list)
        bytes += (plan_for(*a, cells).*side)[q].volume() * int64_t(sizeof(*a->data()));
    };
    (add(arrays), ...);
    return bytes;
  }

  // Copies a row of `length` entries of kSize bytes between an array and a message. Across a
  // cut along x a row is as long as the ghost layers are deep (one on the multigrid's
  // levels), and a call to memcpy for an entry or two cost more than the copy: short rows
  // are copied an entry at a time, with copies of a size known here, which compile to moves.
  template <size_t kSize>
  static void copy_entries(void* to, const void* from, int length) {
    char* out = static_cast<char*>(to);
    const char* in = static_cast<const char*>(from);
    if (length > kShortRow) {
      std::memcpy(out, in, size_t(length) * kSize);
      return;
    }
    switch (length) {  // fall through: the entries from the last one down
      case 4: std::memcpy(out + 3 * kSize, in + 3 * kSize, kSize); [[fallthrough]];
      case 3: std::memcpy(out + 2 * kSize, in + 2 * kSize, kSize); [[fallthrough]];
      case 2: std::memcpy(out + kSize, in + kSize, kSize); [[fallthrough]];
      case 1: std::memcpy(out, in, kSize); [[fallthrough]];
      default: break;
    }
  }

  // Lets MPI move the pending messages on; they complete in MPI_Waitall.
  void poll() {
    int done = 0;
    MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
  }

  // Buffers only grow, so steady-state exchanges allocate nothing.
  static void grow(std::vector<char>& buffer, int64_t bytes) {
    if (buffer.size() < size_t(bytes)) buffer.resize(size_t(bytes));
  }

  void post_receive(size_t q, int64_t bytes) {
    if (bytes == 0) return;
    grow(recv_[q], bytes);
    requests_.emplace_back();
    MPI_Irecv(recv_[q].data(), int(bytes), MPI_BYTE, topo_.neighbours()[q], kTag, topo_.comm(),
              &requests_.back());
  }

  template <class... Ts>
  void pack_and_send(Side side, size_t q, const Box& cells,
                     std::initializer_list<Array3<Ts>*>... arrays) {
    const int64_t bytes = message_bytes(side, q, cells, arrays...);
    if (bytes == 0) return;
    grow(send_[q], bytes);
    char* to = send_[q].data();
    auto pack = [&](auto list) {
      for (auto* a : list)
        for_each_row((plan_for(*a, cells).*side)[q], [&](int i, int j, int k, int length) {
          copy_entries<sizeof(*a->data())>(to, &(*a)(i, j, k), length);
          to += size_t(length) * sizeof(*a->data());
        });
    };
    (pack(arrays), ...);
    bytes_sent_ += bytes;
    requests_.emplace_back();
    MPI_Isend(send_[q].data(), int(bytes), MPI_BYTE, topo_.neighbours()[q], kTag, topo_.comm(),
              &requests_.back());
  }

  // Reads one list's share of neighbour q's message, advancing `from` past it.
  template <bool summing, class T>
  void unpack(Side side, size_t q, const char*& from, const Box& cells,
              std::initializer_list<Array3<T>*> list) {
    for (auto* a : list)
      for_each_row((plan_for(*a, cells).*side)[q], [&](int i, int j, int k, int length) {
        T* row = &(*a)(i, j, k);
        if constexpr (summing) {
          for (int n = 0; n < length; ++n) {
            T value;
            std::memcpy(&value, from + n * sizeof(T), sizeof(T));
            row[n] += value;
          }
        } else {
          copy_entries<sizeof(T)>(row, from, length);
        }
        from += size_t(length) * sizeof(T);
      });
  }

  static constexpr int kShortRow = 4;
  static constexpr int kTag = 7301;
  static constexpr size_t kMaxPlans = 32;
  static constexpr uint64_t kNoLayout = ~uint64_t(0);
  const Topology& topo_;
  int64_t bytes_sent_ = 0;
  uint64_t plans_layout_ = kNoLayout;  // the layout version the plans were built for
  std::deque<Plan> plans_;             // a handful: one per staggering, box and window in use
  std::vector<std::vector<char>> send_, recv_;  // per neighbour, kept between calls
  std::vector<MPI_Request> requests_;
};

}  // namespace dunesim
