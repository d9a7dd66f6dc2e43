// The two halo verbs: fill ghosts from their owners, and sum ghost contributions into owners.
//
// Both work on any staggering and any element types, and batch several arrays (of one or
// several types) into one message per neighbour. Every rank must call them with the same
// lists of arrays.
#pragma once
#include <mpi.h>

#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>
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
    exchange<false>(arrays...);
  }

  // Ghost entries are added into the owner's entries (P2G). Ghosts are left as they were;
  // call fill afterwards to make them consistent again.
  template <class... Ts>
  void sum(std::initializer_list<Array3<Ts>*>... arrays) {
    exchange<true>(arrays...);
  }

  // Layers of ghosts around each rank's block.
  int ghost_width() const { return topo_.ghost(); }

  // Bytes sent by this rank so far, for the communication model.
  int64_t bytes_sent() const { return bytes_sent_; }

 private:
  // For fill: send (my owned) ∩ (their array box); receive (my box) ∩ (their owned).
  // For sum the roles swap. Sender and receiver compute the same boxes and visit the lists
  // in the same order, so they agree on the size and layout of every message without
  // exchanging it.
  template <bool summing, class... Ts>
  void exchange(std::initializer_list<Array3<Ts>*>... arrays) {
    const std::vector<int>& nbrs = topo_.neighbours();
    const int me = topo_.rank();
    std::vector<std::vector<char>> send(nbrs.size()), recv(nbrs.size());
    std::vector<MPI_Request> requests;
    requests.reserve(2 * nbrs.size());

    auto send_box = [&](const auto& a, int n) {
      return summing ? a.box().intersect(topo_.owned(a.stagger(), n))
                     : topo_.owned(a.stagger(), me).intersect(topo_.local(a.stagger(), n));
    };
    auto recv_box = [&](const auto& a, int n) {
      return summing ? topo_.owned(a.stagger(), me).intersect(topo_.local(a.stagger(), n))
                     : a.box().intersect(topo_.owned(a.stagger(), n));
    };
    // Bytes of the entries in `box_of(array, n)` over every array of every list.
    auto message_bytes = [&](auto&& box_of, int n) {
      int64_t bytes = 0;
      auto add = [&](auto list) {
        for (auto* a : list) bytes += box_of(*a, n).volume() * int64_t(sizeof(*a->data()));
      };
      (add(arrays), ...);
      return bytes;
    };
    auto check_full_block = [&](auto list) {
      for (auto* a : list)
        if (!(a->box() == topo_.local(a->stagger())))
          throw std::logic_error("halo exchange on an array that is not a full local block");
    };
    (check_full_block(arrays), ...);

    for (size_t q = 0; q < nbrs.size(); ++q) {
      const int64_t bytes = message_bytes(recv_box, nbrs[q]);
      if (bytes == 0) continue;
      recv[q].resize(size_t(bytes));
      requests.emplace_back();
      MPI_Irecv(recv[q].data(), int(bytes), MPI_BYTE, nbrs[q], kTag, topo_.comm(),
                &requests.back());
    }
    for (size_t q = 0; q < nbrs.size(); ++q) {
      const int64_t bytes = message_bytes(send_box, nbrs[q]);
      if (bytes == 0) continue;
      std::vector<char>& buf = send[q];
      buf.resize(size_t(bytes));
      char* out = buf.data();
      auto pack = [&](auto list) {
        for (auto* a : list)
          for_each_index(send_box(*a, nbrs[q]), [&](int i, int j, int k) {
            std::memcpy(out, &(*a)(i, j, k), sizeof(*a->data()));
            out += sizeof(*a->data());
          });
      };
      (pack(arrays), ...);
      bytes_sent_ += bytes;
      requests.emplace_back();
      MPI_Isend(buf.data(), int(bytes), MPI_BYTE, nbrs[q], kTag, topo_.comm(), &requests.back());
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

    for (size_t q = 0; q < nbrs.size(); ++q) {
      if (recv[q].empty()) continue;
      const char* in = recv[q].data();
      auto unpack = [&](auto list) {
        for (auto* a : list)
          for_each_index(recv_box(*a, nbrs[q]), [&](int i, int j, int k) {
            std::remove_pointer_t<decltype(a->data())> value;
            std::memcpy(&value, in, sizeof(value));
            in += sizeof(value);
            if constexpr (summing)
              (*a)(i, j, k) += value;
            else
              (*a)(i, j, k) = value;
          });
      };
      (unpack(arrays), ...);
    }
  }

  static constexpr int kTag = 7301;
  const Topology& topo_;
  int64_t bytes_sent_ = 0;
};

}  // namespace dunesim
