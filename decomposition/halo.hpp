// The two halo verbs: fill ghosts from their owners, and sum ghost contributions into owners.
//
// Both work on any staggering and any element type, and batch several arrays into one
// message per neighbour. Every rank must call them with the same list of arrays.
#pragma once
#include <mpi.h>

#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"

namespace dunesim {

class Halo {
 public:
  explicit Halo(const Topology& topo) : topo_(topo) {}

  // Ghost entries that another rank owns get that rank's value.
  template <class T>
  void fill(std::initializer_list<Array3<T>*> arrays) { exchange(arrays, false); }

  // Ghost entries are added into the owner's entries (P2G). Ghosts are left as they were;
  // call fill afterwards to make them consistent again.
  template <class T>
  void sum(std::initializer_list<Array3<T>*> arrays) { exchange(arrays, true); }

  // Layers of ghosts around each rank's block.
  int ghost_width() const { return topo_.ghost(); }

  // Bytes sent by this rank so far, for the communication model.
  int64_t bytes_sent() const { return bytes_sent_; }

 private:
  // For fill: send (my owned) ∩ (their array box); receive (my box) ∩ (their owned).
  // For sum the roles swap. Sender and receiver compute the same box, so they agree on
  // the size and order of every message without exchanging it.
  template <class T>
  void exchange(std::initializer_list<Array3<T>*> arrays, bool summing) {
    const std::vector<int>& nbrs = topo_.neighbours();
    const int me = topo_.rank();
    std::vector<std::vector<T>> send(nbrs.size()), recv(nbrs.size());
    std::vector<MPI_Request> requests;
    requests.reserve(2 * nbrs.size());

    auto send_box = [&](const Array3<T>& a, int n) {
      return summing ? a.box().intersect(topo_.owned(a.stagger(), n))
                     : topo_.owned(a.stagger(), me).intersect(topo_.local(a.stagger(), n));
    };
    auto recv_box = [&](const Array3<T>& a, int n) {
      return summing ? topo_.owned(a.stagger(), me).intersect(topo_.local(a.stagger(), n))
                     : a.box().intersect(topo_.owned(a.stagger(), n));
    };

    for (size_t q = 0; q < nbrs.size(); ++q) {
      int64_t count = 0;
      for (Array3<T>* a : arrays) {
        if (!(a->box() == topo_.local(a->stagger())))
          throw std::logic_error("halo exchange on an array that is not a full local block");
        count += recv_box(*a, nbrs[q]).volume();
      }
      if (count == 0) continue;
      recv[q].resize(count);
      requests.emplace_back();
      MPI_Irecv(recv[q].data(), int(count * sizeof(T)), MPI_BYTE, nbrs[q], kTag, topo_.comm(),
                &requests.back());
    }
    for (size_t q = 0; q < nbrs.size(); ++q) {
      std::vector<T>& buf = send[q];
      for (Array3<T>* a : arrays)
        for_each_index(send_box(*a, nbrs[q]),
                       [&](int i, int j, int k) { buf.push_back((*a)(i, j, k)); });
      if (buf.empty()) continue;
      bytes_sent_ += int64_t(buf.size() * sizeof(T));
      requests.emplace_back();
      MPI_Isend(buf.data(), int(buf.size() * sizeof(T)), MPI_BYTE, nbrs[q], kTag, topo_.comm(),
                &requests.back());
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

    for (size_t q = 0; q < nbrs.size(); ++q) {
      if (recv[q].empty()) continue;
      const T* in = recv[q].data();
      for (Array3<T>* a : arrays)
        for_each_index(recv_box(*a, nbrs[q]), [&](int i, int j, int k) {
          if (summing) (*a)(i, j, k) += *in++;
          else (*a)(i, j, k) = *in++;
        });
    }
  }

  static constexpr int kTag = 7301;
  const Topology& topo_;
  int64_t bytes_sent_ = 0;
};

}  // namespace dunesim
