// The progress line on stderr and the wall time of each family: which family, n of N, elapsed and
// the estimated time left. Host only; the arithmetic is tested without a GPU.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace warpcost::progress {

// Seconds left if the `total - done` items still to come take as long on average as the `done`
// ones took in `elapsed_s`; negative when nothing is done yet (no estimate).
double eta_seconds(double elapsed_s, long long done, long long total);

// "phase family n/N, suite d/T, 12.3 s elapsed, ~45 s left".
std::string line(const std::string& phase, const std::string& family, long long family_done,
                 long long family_total, long long done, long long total, double elapsed_s);

// The family of a benchmark name: the part before the first '/'.
std::string family_of(const std::string& benchmark_name);

// "a=1.25;b=2.50": the family wall times in the order the families first appeared.
std::string wall_text(const std::vector<std::pair<std::string, double>>& seconds);

// Counts finished items per family and prints the progress line: in place on a terminal, else at
// most every `interval_s` and at the phase's last item.
class Tracker {
 public:
  // interval_s: the plain lines' spacing when stderr is not a terminal.
  Tracker(std::string phase, const std::vector<std::string>& names, double interval_s = 10.0);
  ~Tracker() { end_line(); }
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;
  // Ends a line left open on a terminal (a phase stopped before its last item: an interrupt, a lost
  // device), so what is printed next starts on a line of its own. Nothing otherwise.
  void end_line();
  // One item of `family` finished now; the wall time since the previous item goes to `family`.
  void done(const std::string& family);
  long long total() const noexcept { return total_; }
  double elapsed_s() const;
  const std::vector<std::pair<std::string, double>>& family_seconds() const noexcept { return seconds_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::string phase_;
  std::map<std::string, long long> family_total_;
  std::map<std::string, long long> family_done_;
  std::vector<std::pair<std::string, double>> seconds_;
  long long total_ = 0;
  long long done_ = 0;
  double interval_s_;
  bool terminal_ = false;  // stderr is a terminal: the line is rewritten in place
  bool line_open_ = false;  // the line on the terminal has no newline yet
  Clock::time_point start_;
  Clock::time_point last_item_;
  Clock::time_point last_print_;
};

}  // namespace warpcost::progress
