// Wall-clock seconds accumulated per named stage of the time step, and how much each stage
// raised the process's peak resident memory (where a large run's peak is set).
//
// For load-imbalance studies the clock can wait for all ranks before each stage (a
// synchronising callback, e.g. a barrier): the time a rank spends waiting there is counted
// apart, so each stage's own seconds are its work on that rank, not the wait for a slower
// rank inside the stage's first collective call. Off by default: the extra
// synchronisation costs a little.
#pragma once
#include <algorithm>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dunesim {

// This process's peak resident memory so far (Linux: getrusage's high-water mark).
inline int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

class StageClock {
 public:
  explicit StageClock(std::vector<std::string> names)
      : seconds_(names.size(), 0.0),
        bytes_(names.size(), 0.0),
        waited_(names.size(), 0.0),
        peak_rise_(names.size(), 0),
        peak_at_reset_(peak_rss_bytes()),
        peak_(peak_at_reset_) {
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
      clock_.note_peak_outside_stages();
      start_ = std::chrono::steady_clock::now();
    }
    ~Scope() {
      clock_.seconds_[stage_] += seconds_since(start_);
      clock_.note_peak(stage_);
    }

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
  // Adds to a stage's compulsory memory traffic (src/driver/stage_traffic.hpp), bytes.
  void add_bytes(int stage, double bytes) { bytes_[size_t(stage)] += bytes; }
  // Each stage's compulsory traffic so far, bytes, in totals()' order.
  const std::vector<double>& bytes() const { return bytes_; }
  // Seconds spent waiting for the other ranks before each stage (0 unless synchronised).
  const std::vector<double>& waited() const { return waited_; }
  // Bytes by which each stage raised the peak resident memory. The peak now is the one when
  // the clock was (re)started, plus every stage's rise, plus the rise outside any stage
  // (setup, seeding and allocation included).
  std::vector<std::pair<std::string, int64_t>> peak_rises() const {
    std::vector<std::pair<std::string, int64_t>> r;
    for (size_t s = 0; s < names_.size(); ++s) r.emplace_back(names_[s], peak_rise_[s]);
    return r;
  }
  int64_t peak_at_reset() const { return peak_at_reset_; }
  int64_t peak_rise_outside_stages() const { return outside_rise_; }
  void reset() {
    std::fill(seconds_.begin(), seconds_.end(), 0.0);
    std::fill(bytes_.begin(), bytes_.end(), 0.0);
    std::fill(waited_.begin(), waited_.end(), 0.0);
    std::fill(peak_rise_.begin(), peak_rise_.end(), 0);
    outside_rise_ = 0;
    peak_at_reset_ = peak_ = peak_rss_bytes();
  }

 private:
  void note_peak_outside_stages() {
    const int64_t now = peak_rss_bytes();
    outside_rise_ += now - peak_;
    peak_ = now;
  }
  void note_peak(int stage) {
    const int64_t now = peak_rss_bytes();
    peak_rise_[size_t(stage)] += now - peak_;
    peak_ = now;
  }
  std::vector<std::string> names_;
  std::vector<double> seconds_;
  std::vector<double> bytes_;
  std::vector<double> waited_;
  std::vector<int64_t> peak_rise_;
  int64_t peak_at_reset_ = 0;
  int64_t outside_rise_ = 0;
  int64_t peak_ = 0;  // the peak when the last stage began or ended
  std::function<void()> wait_for_all_;
};

}  // namespace dunesim
