#include "bench/common/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace warpcost::progress {

double eta_seconds(double elapsed_s, long long done, long long total) {
  if (done <= 0) return -1.0;
  if (done >= total) return 0.0;
  return elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
}

std::string line(const std::string& phase, const std::string& family, long long family_done,
                 long long family_total, long long done, long long total, double elapsed_s) {
  char buffer[256];
  const double eta = eta_seconds(elapsed_s, done, total);
  char left[64];
  if (eta < 0) {
    std::snprintf(left, sizeof left, "time left not yet known");
  } else {
    std::snprintf(left, sizeof left, "~%.0f s left", eta);
  }
  std::snprintf(buffer, sizeof buffer, "%s %s %lld/%lld, suite %lld/%lld, %.1f s elapsed, %s",
                phase.c_str(), family.c_str(), family_done, family_total, done, total, elapsed_s, left);
  return buffer;
}

std::string family_of(const std::string& name) { return name.substr(0, name.find('/')); }

std::string wall_text(const std::vector<std::pair<std::string, double>>& seconds) {
  std::string text;
  for (const auto& [family, s] : seconds) {
    char value[32];
    std::snprintf(value, sizeof value, "%.2f", s);
    text += (text.empty() ? "" : ";") + family + "=" + value;
  }
  return text;
}

Tracker::Tracker(std::string phase, const std::vector<std::string>& names, double interval_s)
    : phase_(std::move(phase)), interval_s_(interval_s), terminal_(isatty(STDERR_FILENO) == 1) {
  for (const auto& n : names) {
    const std::string f = family_of(n);
    if (family_total_[f]++ == 0) seconds_.emplace_back(f, 0.0);
  }
  total_ = static_cast<long long>(names.size());
  start_ = last_item_ = last_print_ = Clock::now();
}

double Tracker::elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void Tracker::done(const std::string& family) {
  const Clock::time_point now = Clock::now();
  const double since = std::chrono::duration<double>(now - last_item_).count();
  last_item_ = now;
  bool known = false;
  for (auto& [f, s] : seconds_) {
    if (f == family) {
      s += since;
      known = true;
    }
  }
  if (!known) seconds_.emplace_back(family, since);
  ++done_;
  const long long n = ++family_done_[family];
  // On a terminal one line per phase, rewritten in place (at most 4 times a second) and ended at
  // the phase's last item; otherwise a plain line every interval and at the phase's end (issue 36).
  const bool phase_end = done_ == total_;
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  const std::string text = line(phase_, family, n, family_total_[family], done_, total_, elapsed_s());
  if (terminal_) {
    if (phase_end || since_print >= 0.25) {
      last_print_ = now;
      std::fprintf(stderr, "\r\033[Kwarpcost-bench: %s%s", text.c_str(), phase_end ? "\n" : "");
      std::fflush(stderr);
      line_open_ = !phase_end;
    }
  } else if (phase_end || since_print >= interval_s_) {
    last_print_ = now;
    std::fprintf(stderr, "warpcost-bench: %s\n", text.c_str());
  }
}

void Tracker::end_line() {
  if (!line_open_) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  line_open_ = false;
}

}  // namespace warpcost::progress
