// Wall-clock seconds accumulated per named stage of the time step.
//
// For load-imbalance studies the clock can wait for all ranks before each stage (a
// synchronising callback, e.g. a barrier): the time a rank spends waiting there is counted
// apart, so each stage's own seconds are its work on that rank, not the wait for a slower
// rank inside the stage's first collective call. Off by default: the extra
// synchronisation costs a little.
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dunesim {

class StageClock {
 public:
  explicit StageClock(std::vector<std::string> names)
      : seconds_(names.size(), 0.0), waited_(names.size(), 0.0) {
    names_ = std::move(names);
  }

  // Runs `wait_for_all` before every stage and counts its time as waiting (see above);
  // an empty function turns this off.
  void synchronise_stages(std::function<void()> wait_for_all) {
    wait_for_all_ = std::move(wait_for_all);
  }

  // Times a scope: `auto timer = clock.time(kStage);`.
  class Scope {
   public:
    Scope(StageClock& clock, int stage) : clock_(clock), stage_(stage) {
      if (clock_.wait_for_all_) {
        const auto before = std::chrono::steady_clock::now();
        clock_.wait_for_all_();
        clock_.waited_[stage_] += seconds_since(before);
      }
      start_ = std::chrono::steady_clock::now();
    }
    ~Scope() { clock_.seconds_[stage_] += seconds_since(start_); }

   private:
    static double seconds_since(std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    StageClock& clock_;
    int stage_;
    std::chrono::steady_clock::time_point start_;
  };
  Scope time(int stage) { return Scope(*this, stage); }

  std::vector<std::pair<std::string, double>> totals() const {
    std::vector<std::pair<std::string, double>> r;
    for (size_t s = 0; s < names_.size(); ++s) r.emplace_back(names_[s], seconds_[s]);
    return r;
  }
  // Seconds spent waiting for the other ranks before each stage (0 unless synchronised).
  const std::vector<double>& waited() const { return waited_; }
  void reset() {
    std::fill(seconds_.begin(), seconds_.end(), 0.0);
    std::fill(waited_.begin(), waited_.end(), 0.0);
  }

 private:
  std::vector<std::string> names_;
  std::vector<double> seconds_;
  std::vector<double> waited_;
  std::function<void()> wait_for_all_;
};

}  // namespace dunesim
