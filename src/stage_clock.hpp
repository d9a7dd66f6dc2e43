// Wall-clock seconds accumulated per named stage of the time step.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace dunesim {

class StageClock {
 public:
  explicit StageClock(std::vector<std::string> names) : seconds_(names.size(), 0.0) {
    names_ = std::move(names);
  }

  // Times a scope: `auto timer = clock.time(kStage);`.
  class Scope {
   public:
    Scope(StageClock& clock, int stage)
        : clock_(clock), stage_(stage), start_(std::chrono::steady_clock::now()) {}
    ~Scope() {
      std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
      clock_.seconds_[stage_] += d.count();
    }

   private:
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
  void reset() { std::fill(seconds_.begin(), seconds_.end(), 0.0); }

 private:
  std::vector<std::string> names_;
  std::vector<double> seconds_;
};

}  // namespace dunesim
